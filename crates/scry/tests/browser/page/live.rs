//! The live page (issue 16) in headless Chromium: a record appended to the open session's file
//! appears on the page without a reload, through the session's server-sent event stream.

use super::*;

/// Lines of the corpus pi session (one record each).
pub(super) fn pi_lines() -> Vec<String> {
    let path = crate::util::corpus().join(
        "real/home/.pi/agent/sessions/--home-dev-more-work-proj-pi--/\
         2026-11-30T16-01-50-811Z_01a22d30-ecda-727d-b78c-ef0f21e58dab.jsonl",
    );
    std::fs::read_to_string(path)
        .expect("corpus pi session")
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn browser_live_session_shows_appended_turns_without_reload() {
    let Some((chromium, driver)) = browser_tools() else {
        return;
    };
    let tmp = tempfile::tempdir().expect("tempdir");
    let home = tmp.path().join("home");
    let dir = home.join(".pi/agent/sessions/--home-dev-more-work-proj-pi--");
    std::fs::create_dir_all(&dir).expect("session dir");
    let file = dir.join("2026-11-30T16-01-50-811Z_01a22d30-ecda-727d-b78c-ef0f21e58dab.jsonl");
    let lines = pi_lines();
    std::fs::write(&file, lines[..9].join("\n") + "\n").expect("write session");
    let server = WebServer::start(&home, &tmp.path().join("index.db"), &[]);
    let b = Browser::start(&chromium, &driver, tmp.path());
    let uri = "pi:01a22d30-ecda-727d-b78c-ef0f21e58dab";
    b.goto(&format!("{}/#/s/{}", server.base, uri.replace(':', "%3A")));
    b.wait_for(
        "the turn directory",
        "document.querySelectorAll('details.turn').length",
    );
    assert!(
        b.js("return !!document.getElementById('turn-1') && !document.getElementById('turn-2');")
            == json!(true)
    );
    // Open turn 1 so its body is on the page, and mark this page load.
    b.js(
        "document.querySelector('#turn-1 > summary').click(); window.__loadMark = 42; return null;",
    );
    b.wait_for(
        "turn 1's events",
        "document.querySelectorAll('#turn-1 article.ev').length",
    );
    // The stream is open before anything is appended (its log line comes once it answered).
    let deadline = Instant::now() + Duration::from_secs(60);
    while !server
        .api_requests()
        .iter()
        .any(|l| l.contains("/stream 200"))
    {
        assert!(Instant::now() < deadline, "{:?}", server.api_requests());
        std::thread::sleep(Duration::from_millis(100));
    }
    std::thread::sleep(Duration::from_millis(500));

    // The next user prompt: a new turn T2 appears with its prompt (T0 is the preamble).
    std::fs::OpenOptions::new()
        .append(true)
        .open(&file)
        .and_then(|mut f| f.write_all(format!("{}\n", lines[9]).as_bytes()))
        .expect("append");
    let prompt = b.wait_for(
        "turn 2",
        "(() => { const t = document.getElementById('turn-2'); \
          return t ? t.querySelector('.prompt').textContent : null; })()",
    );
    assert!(
        prompt.as_str().unwrap_or("").contains("hello world"),
        "{prompt}"
    );
    assert_eq!(
        b.js("return window.__loadMark;"),
        json!(42),
        "the page reloaded"
    );
    assert_eq!(
        b.js("return document.getElementById('turn-count').textContent;"),
        json!("3 turns")
    );

    // Turn 2 opened, then its answer written: the open turn shows the new text.
    b.js("document.querySelector('#turn-2 > summary').click(); return null;");
    b.wait_for(
        "turn 2's prompt event",
        "document.querySelectorAll('#turn-2 article.ev').length",
    );
    let rest: String = lines[10..17].iter().map(|l| format!("{l}\n")).collect();
    std::fs::OpenOptions::new()
        .append(true)
        .open(&file)
        .and_then(|mut f| f.write_all(rest.as_bytes()))
        .expect("append");
    let answer = b.wait_for(
        "turn 2's answer",
        "(() => { const t = document.getElementById('turn-2'); \
          const a = t && t.querySelector('.answer'); return a ? a.textContent : null; })()",
    );
    assert!(
        answer.as_str().unwrap_or("").contains("hello world"),
        "{answer}"
    );
    b.wait_for(
        "the answer in the open turn",
        "Array.from(document.querySelectorAll('#turn-2 article.ev.assistant .text'))\
         .some(e => e.textContent.includes('I updated'))",
    );
    assert_eq!(
        b.js("return window.__loadMark;"),
        json!(42),
        "the page reloaded"
    );
    b.screenshot(&tmp.path().join("live-session.png"));

    let foreign = b.js(&format!(
        "return performance.getEntriesByType('resource').map(e => e.name)\
         .filter(n => !n.startsWith('{}'));",
        server.base
    ));
    assert_eq!(foreign, json!([]));
}
