//! Earlier revisions on the page (issue 20) in headless Chromium: a session whose source was
//! rewritten shorter links its earlier revision, which opens marked "superseded" with the turns
//! it had; a search finds the text only the revision holds, marked, and its hit opens the
//! revision at that event.

use super::*;

/// GET an API route of `server` as JSON (panics on a transport error).
fn api(server: &WebServer, path: &str) -> (u16, Value) {
    let host = format!("127.0.0.1:{}", server.port);
    let (status, _, body) = http(server.port, "GET", path, &host, None);
    (status, serde_json::from_str(&body).unwrap_or(Value::Null))
}

/// Polls `path` until `ok` holds for its JSON answer.
fn poll(server: &WebServer, path: &str, what: &str, ok: impl Fn(&Value) -> bool) -> Value {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let (status, v) = api(server, path);
        if status == 200 && ok(&v) {
            return v;
        }
        assert!(Instant::now() < deadline, "{what}: {status} {v}");
        std::thread::sleep(Duration::from_millis(200));
    }
}

#[test]
fn browser_shows_and_searches_an_earlier_revision() {
    let Some((chromium, driver)) = browser_tools() else {
        return;
    };
    let tmp = tempfile::tempdir().expect("tempdir");
    let home = tmp.path().join("home");
    let dir = home.join(".pi/agent/sessions/--home-dev-more-work-proj-pi--");
    std::fs::create_dir_all(&dir).expect("session dir");
    let file = dir.join("2026-11-30T16-01-50-811Z_01a22d30-ecda-727d-b78c-ef0f21e58dab.jsonl");
    let lines = super::live::pi_lines();
    std::fs::write(&file, lines.join("\n") + "\n").expect("write session");
    let server = WebServer::start(&home, &tmp.path().join("index.db"), &[]);
    let uri = "pi:01a22d30-ecda-727d-b78c-ef0f21e58dab";
    let whole = poll(
        &server,
        &format!("/v1/sessions/{uri}/turns"),
        "the whole session",
        |v| v["turns"].as_array().is_some_and(|t| t.len() >= 3),
    );
    let turns_before = whole["turns"].as_array().map_or(0, Vec::len);

    // The agent rewrites the file shorter: the last turns are gone from the source.
    std::fs::write(&file, lines[..9].join("\n") + "\n").expect("truncate session");
    poll(
        &server,
        &format!("/v1/sessions/{uri}"),
        "an earlier revision",
        |v| v["revisions"].as_array().is_some_and(|r| r.len() == 1),
    );
    let found = poll(
        &server,
        "/v1/search?q=I%20updated",
        "a superseded hit",
        |v| v["total_matches"].as_u64().unwrap_or(0) > 0,
    );
    let hits: Vec<Value> = found["sessions"]
        .as_array()
        .expect("sessions")
        .iter()
        .flat_map(|s| s["hits"].as_array().cloned().unwrap_or_default())
        .collect();
    assert!(
        !hits.is_empty() && hits.iter().all(|h| h["superseded"] == json!(true)),
        "{found}"
    );

    let b = Browser::start(&chromium, &driver, tmp.path());
    b.goto(&format!("{}/#/s/{}", server.base, uri.replace(':', "%3A")));
    b.wait_for(
        "the link to the earlier revision",
        "document.querySelector('.revisions a')",
    );
    assert!(b
        .js("return document.querySelector('.revisions').textContent;")
        .as_str()
        .unwrap_or("")
        .contains("1 earlier revision"));
    b.js("document.querySelector('.revisions a').click(); return null;");
    b.wait_for(
        "the revision's turn directory",
        "location.hash.includes('rev=1') && document.querySelector('h1 .badge.superseded') \
         && document.querySelectorAll('details.turn').length",
    );
    assert_eq!(
        b.js("return document.getElementById('turn-count').textContent;"),
        json!(format!("{turns_before} turns"))
    );

    // Search: the hit is marked and opens the revision at its event.
    b.goto(&format!("{}/#/search?q=I%20updated", server.base));
    b.wait_for("the hits", "document.querySelectorAll('a.hit').length");
    let hit = b.js("const a = document.querySelector('a.hit'); \
         return { href: a.getAttribute('href'), where: a.querySelector('.where').textContent };");
    assert!(
        hit["where"]
            .as_str()
            .unwrap_or("")
            .contains("superseded (revision 1)"),
        "{hit}"
    );
    assert!(
        hit["href"].as_str().unwrap_or("").contains("rev=1"),
        "{hit}"
    );
    b.js("document.querySelector('a.hit').click(); return null;");
    b.wait_for(
        "the target event in the revision",
        "document.querySelector('h1 .badge.superseded') && document.querySelector('.ev.target')",
    );
    b.screenshot(&tmp.path().join("revision.png"));
}
