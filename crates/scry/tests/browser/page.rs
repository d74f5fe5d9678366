//! The page in headless Chromium: a tiny WebDriver client (chromedriver over plain HTTP) and
//! the tests that drive it — search to a highlighted event, and the first paint of a large
//! session requesting only the turn directory.

use super::*;

mod live;
mod revisions;
mod store;
mod usage_view;

/// A chromedriver process and one browser session; both end on drop.
struct Browser {
    driver: Child,
    port: u16,
    session: String,
    browser_pid: Option<u64>,
}

impl Drop for Browser {
    fn drop(&mut self) {
        let closed = self.call("DELETE", "", None).is_ok();
        if !closed {
            // The browser this session started (its pid from the capabilities).
            if let Some(pid) = self.browser_pid {
                let _ = Command::new("kill").arg(pid.to_string()).status();
            }
        }
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}

fn which(names: &[&str]) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    for name in names {
        for dir in std::env::split_paths(&path) {
            let p = dir.join(name);
            if p.is_file() {
                return Some(p);
            }
        }
    }
    None
}

/// chromium and chromedriver, or `None` (after a loud message) when the test may skip.
fn browser_tools() -> Option<(PathBuf, PathBuf)> {
    let chromium = ["/usr/lib/chromium/chromium"]
        .iter()
        .map(PathBuf::from)
        .find(|p| p.is_file())
        .or_else(|| which(&["chromium", "chromium-browser", "google-chrome"]));
    let driver = which(&["chromedriver"])
        .or_else(|| Some(PathBuf::from("/usr/lib/chromium/chromedriver")).filter(|p| p.is_file()));
    match (chromium, driver) {
        (Some(c), Some(d)) => Some((c, d)),
        (c, d) => {
            let msg = format!(
                "headless Chromium test needs chromium ({}) and chromedriver ({}); \
                 install Debian's `chromium chromium-driver`",
                c.map_or("missing".into(), |p| p.display().to_string()),
                d.map_or("missing".into(), |p| p.display().to_string())
            );
            if std::env::var("SCRY_REQUIRE_BROWSER").as_deref() == Ok("1") {
                panic!("SCRY_REQUIRE_BROWSER=1: {msg}");
            }
            eprintln!("\n!!!!!!!!!! SKIPPED: {msg} !!!!!!!!!!\n");
            None
        }
    }
}

impl Browser {
    fn start(chromium: &Path, driver: &Path, profile: &Path) -> Browser {
        let mut child = Command::new(driver)
            .arg("--port=0")
            .env("HOME", profile)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start chromedriver");
        let stdout = child.stdout.take().expect("chromedriver stdout");
        let mut reader = BufReader::new(stdout);
        let mut port = None;
        for _ in 0..20 {
            let mut line = String::new();
            if reader.read_line(&mut line).unwrap_or(0) == 0 {
                break;
            }
            if let Some(rest) = line.split("started successfully on port ").nth(1) {
                port = rest.trim().trim_end_matches('.').parse().ok();
                break;
            }
        }
        // Keep draining its stdout so it never blocks on a full pipe.
        std::thread::spawn(move || for _ in reader.lines().map_while(Result::ok) {});
        let port = port.expect("chromedriver port");
        let data_dir = profile.join("chromium-profile");
        let caps = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {
                "binary": chromium.to_string_lossy(),
                "args": [
                    "--headless", "--no-sandbox", "--disable-gpu",
                    "--disable-background-networking", "--disable-component-update",
                    "--disable-sync", "--no-first-run", "--disable-quic",
                    "--disable-dev-shm-usage", "--window-size=1280,900",
                    format!("--user-data-dir={}", data_dir.display()),
                ]
            }
        }}});
        let mut b = Browser {
            driver: child,
            port,
            session: String::new(),
            browser_pid: None,
        };
        let v = b
            .call("POST", "/session-new", Some(caps))
            .expect("new WebDriver session");
        b.browser_pid = v["capabilities"]["goog:processID"].as_u64();
        b.session = v["sessionId"].as_str().expect("sessionId").to_string();
        b
    }

    /// A WebDriver command on this session (`/session-new` creates one); returns `value`.
    fn call(&self, method: &str, path: &str, body: Option<Value>) -> Result<Value, String> {
        let full = if path == "/session-new" {
            "/session".to_string()
        } else {
            format!("/session/{}{path}", self.session)
        };
        let body = body.map(|b| b.to_string());
        let (status, _, text) = try_http(
            self.port,
            method,
            &full,
            &format!("127.0.0.1:{}", self.port),
            body.as_deref(),
        )?;
        let v: Value = serde_json::from_str(&text).map_err(|e| format!("{e}: {text}"))?;
        if status != 200 {
            return Err(format!("{method} {full} → {status}: {}", v["value"]));
        }
        Ok(v["value"].clone())
    }

    fn goto(&self, url: &str) {
        self.call("POST", "/url", Some(json!({ "url": url })))
            .expect("navigate");
    }

    fn js(&self, script: &str) -> Value {
        self.call(
            "POST",
            "/execute/sync",
            Some(json!({"script": script, "args": []})),
        )
        .unwrap_or_else(|e| panic!("script failed: {e}\n{script}"))
    }

    /// Polls `expr` (a JS expression) until it is truthy; returns its value.
    fn wait_for(&self, what: &str, expr: &str) -> Value {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let v = self.js(&format!("return ({expr}) || null;"));
            if !v.is_null() && v != json!(false) {
                return v;
            }
            if Instant::now() > deadline {
                let page =
                    self.js("return document.getElementById('main').innerText.slice(0, 2000);");
                panic!("timed out waiting for {what}; page shows:\n{page}");
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Presses keys through the keyboard (WebDriver actions): one keyDown/keyUp per char.
    fn keys(&self, text: &str) {
        let mut actions = Vec::new();
        for c in text.chars() {
            actions.push(json!({"type": "keyDown", "value": c.to_string()}));
            actions.push(json!({"type": "keyUp", "value": c.to_string()}));
        }
        self.call(
            "POST",
            "/actions",
            Some(json!({"actions": [{"type": "key", "id": "keyboard", "actions": actions}]})),
        )
        .expect("key actions");
    }

    fn screenshot(&self, path: &Path) {
        let v = self.call("GET", "/screenshot", None).expect("screenshot");
        let png = base64_decode(v.as_str().expect("base64 PNG"));
        assert!(png.starts_with(b"\x89PNG"), "not a PNG");
        std::fs::write(path, &png).expect("write screenshot");
        if let Some(dir) = std::env::var_os("SCRY_SCREENSHOT_DIR") {
            let dir = PathBuf::from(dir);
            let _ = std::fs::create_dir_all(&dir);
            if let Some(name) = path.file_name() {
                let _ = std::fs::write(dir.join(name), &png);
            }
        }
        eprintln!("screenshot: {}", path.display());
    }
}

const ENTER: &str = "\u{E007}";
const ESCAPE: &str = "\u{E00C}";

fn base64_decode(s: &str) -> Vec<u8> {
    let val = |c: u8| match c {
        b'A'..=b'Z' => Some(c - b'A'),
        b'a'..=b'z' => Some(c - b'a' + 26),
        b'0'..=b'9' => Some(c - b'0' + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        _ => None,
    };
    let mut out = Vec::with_capacity(s.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0u32);
    for c in s.bytes().filter_map(val) {
        acc = (acc << 6) | u32::from(c);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    out
}

/// The `/v1/` URLs the page fetched since it loaded (the browser's resource timing entries).
const API_FETCHES: &str = "performance.getEntriesByType('resource').map(e => e.name)\
     .filter(n => n.includes('/v1/'))";

// ---------- the page in a browser ----------

#[test]
fn browser_search_jumps_to_the_highlighted_event() {
    let Some((chromium, driver)) = browser_tools() else {
        return;
    };
    let (tmp, server) = demo_server();
    let b = Browser::start(&chromium, &driver, tmp.path());
    b.goto(&format!("{}/", server.base));
    b.wait_for(
        "the session list",
        "document.querySelectorAll('.sessions a.row').length",
    );

    // Keyboard only: `/` focuses the search box, typing + Enter searches.
    b.keys("/");
    assert_eq!(b.js("return document.activeElement.id;"), json!("q"));
    b.keys(&format!("password{ENTER}"));
    b.wait_for(
        "search hits",
        "document.querySelectorAll('#results a.hit').length",
    );
    let marks = b.js(
        "return Array.from(document.querySelectorAll('#results a.hit mark')).map(m => m.textContent);",
    );
    let marks: Vec<String> = serde_json::from_value(marks).expect("marks");
    assert!(!marks.is_empty(), "no highlighted excerpt");
    assert!(
        marks.iter().all(|m| m.eq_ignore_ascii_case("password")),
        "{marks:?}"
    );
    b.screenshot(&tmp.path().join("search-results.png"));

    // `j` walks the hits; Enter opens the first hit that names an event.
    let hits = b.js(
        "return Array.from(document.querySelectorAll('#results a.hit')).map(a => a.dataset.event || '');",
    );
    let hits: Vec<String> = serde_json::from_value(hits).expect("hits");
    let index = hits
        .iter()
        .position(|e| !e.is_empty())
        .expect("a hit with an event");
    let event = hits[index].clone();
    for _ in 0..=index {
        b.keys("j");
    }
    assert_eq!(
        b.js("return document.activeElement.dataset.event || '';"),
        json!(event),
        "j moves the focus through the hits"
    );
    let href = b.js("return document.activeElement.getAttribute('href');");
    let href = href.as_str().expect("href").to_string();
    assert!(href.contains("loc="), "a hit anchors by locator: {href}");
    b.keys(ENTER);

    let target = b.wait_for(
        "the target event",
        "(() => { const t = document.querySelector('article.ev.target'); \
          return t && t.querySelector('mark') ? { event: t.dataset.event, locator: t.dataset.locator, \
          focused: document.activeElement === t, \
          marks: Array.from(t.querySelectorAll('mark')).map(m => m.textContent) } : null; })()",
    );
    assert_eq!(target["event"], json!(event), "{target}");
    assert!(target["focused"].as_bool().unwrap_or(false), "{target}");
    let locator = target["locator"].as_str().expect("locator");
    assert!(
        href.contains(&locator.replace(':', "%3A").replace('#', "%23")),
        "the event shown has the hit's locator: {href} vs {locator}"
    );
    for m in target["marks"].as_array().expect("marks") {
        assert!(
            m.as_str().unwrap_or("").eq_ignore_ascii_case("password"),
            "{m}"
        );
    }
    // Only the turn holding the event is open.
    let open = b.js("return document.querySelectorAll('details.turn[open]').length;");
    assert_eq!(open, json!(1));
    b.screenshot(&tmp.path().join("session-view.png"));

    // Escape goes back to the results.
    b.keys(ESCAPE);
    b.wait_for(
        "the search results again",
        "location.hash.startsWith('#/search') && document.querySelectorAll('#results a.hit').length",
    );

    // Nothing left this machine: every resource the page loaded is on the scry server.
    let foreign = b.js(&format!(
        "return performance.getEntriesByType('resource').map(e => e.name)\
         .filter(n => !n.startsWith('{}'));",
        server.base
    ));
    assert_eq!(foreign, json!([]));
}

/// Writes a Claude Code session in its on-disk format: `turns` turns, each a prompt, `calls`
/// Bash tool calls with results, and an answer — `turns * (2 * calls + 2)` events.
fn write_big_claude_session(home: &Path, id: &str, turns: usize, calls: usize) -> PathBuf {
    let cwd = "/home/big/projects/huge";
    let dir = home.join(".claude/projects/-home-big-projects-huge");
    std::fs::create_dir_all(&dir).expect("project dir");
    let path = dir.join(format!("{id}.jsonl"));
    let mut out = String::new();
    let mut n = 0u64;
    let mut parent: Option<String> = None;
    let mut line = |kind: &str, message: Value, extra: Option<(&str, Value)>| {
        n += 1;
        let uuid = format!("b16b16b1-0000-4000-8000-{n:012x}");
        let secs = n;
        let ts = format!(
            "2026-11-21T{:02}:{:02}:{:02}.000Z",
            8 + secs / 3600,
            (secs / 60) % 60,
            secs % 60
        );
        let mut rec = json!({
            "parentUuid": parent,
            "type": kind,
            "message": message,
            "uuid": uuid,
            "timestamp": ts,
            "isSidechain": false,
            "cwd": cwd,
            "sessionId": id,
            "version": "2.1.332",
            "gitBranch": "main",
        });
        if let Some((k, v)) = extra {
            rec[k] = v;
        }
        out.push_str(&rec.to_string());
        out.push('\n');
        parent = Some(uuid);
    };
    for t in 1..=turns {
        line(
            "user",
            json!({"role": "user", "content": format!("Step {t}: run the checks of module {t} and report.")}),
            None,
        );
        for c in 1..=calls {
            let call_id = format!("toolu_big_{t}_{c}");
            line(
                "assistant",
                json!({"id": format!("msg_big_{t}_{c}"), "type": "message", "role": "assistant",
                       "model": "claude-opus-5-5",
                       "content": [{"type": "tool_use", "id": call_id, "name": "Bash",
                                    "input": {"command": format!("make check-{t}-{c}")}}],
                       "usage": {"input_tokens": 10, "output_tokens": 5,
                                 "cache_read_input_tokens": 100, "cache_creation_input_tokens": 0}}),
                Some(("requestId", json!(format!("req_big_{t}_{c}")))),
            );
            line(
                "user",
                json!({"role": "user", "content": [{"tool_use_id": call_id, "type": "tool_result",
                        "content": format!("check {t}.{c}: ok")}]}),
                None,
            );
        }
        line(
            "assistant",
            json!({"id": format!("msg_big_{t}_end"), "type": "message", "role": "assistant",
                   "model": "claude-opus-5-5",
                   "content": [{"type": "text", "text": format!("Module {t}: all {calls} checks pass.")}],
                   "usage": {"input_tokens": 10, "output_tokens": 8,
                             "cache_read_input_tokens": 100, "cache_creation_input_tokens": 0}}),
            Some(("requestId", json!(format!("req_big_{t}_end")))),
        );
    }
    std::fs::write(&path, out).expect("write session");
    path
}

#[test]
fn browser_large_session_first_paint_requests_only_the_turn_directory() {
    let Some((chromium, driver)) = browser_tools() else {
        return;
    };
    let tmp = tempfile::tempdir().expect("tempdir");
    let home = tmp.path().join("home");
    let id = "b16b16b1-2000-4e00-8000-000000002000";
    // 100 turns × (prompt + 10 calls + 10 results + answer) = 2,200 events.
    write_big_claude_session(&home, id, 100, 10);
    let server = WebServer::start(&home, &tmp.path().join("index.db"), &[]);
    let uri = format!("claude:{id}");

    // The directory itself says how many events the session has.
    let (status, _, body) = http(
        server.port,
        "GET",
        &format!("/v1/sessions/{uri}/turns"),
        &format!("127.0.0.1:{}", server.port),
        None,
    );
    assert_eq!(status, 200, "{body}");
    let dir: Value = serde_json::from_str(&body).expect("turns JSON");
    let turns = dir["turns"].as_array().expect("turns");
    assert_eq!(turns.len(), 100);
    let events: u64 = turns.iter().filter_map(|t| t["events"].as_u64()).sum();
    assert!(events >= 2_000, "{events} events");
    // The server logs a request after replying: wait for this one before counting.
    let deadline = Instant::now() + Duration::from_secs(10);
    while server.api_requests().is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    let before = server.api_requests().len();

    let b = Browser::start(&chromium, &driver, tmp.path());
    b.goto(&format!("{}/#/s/{}", server.base, uri.replace(':', "%3A")));
    b.wait_for(
        "the turn directory",
        "document.querySelectorAll('#turns details.turn').length === 100",
    );
    // First paint: the page asked the API for the turn directory and nothing else.
    let fetched: Vec<String> =
        serde_json::from_value(b.js(&format!("return {API_FETCHES};"))).expect("entries");
    assert_eq!(fetched.len(), 1, "{fetched:?}");
    assert!(fetched[0].ends_with("/turns"), "{fetched:?}");
    let deadline = Instant::now() + Duration::from_secs(10);
    while server.api_requests().len() <= before && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    // The session's live stream (tests/browser/page/live.rs) is not a read of its events.
    let logged: Vec<String> = server.api_requests()[before..]
        .iter()
        .filter(|l| !l.contains("/stream "))
        .cloned()
        .collect();
    assert_eq!(logged.len(), 1, "{logged:?}");
    assert!(logged[0].contains("/turns 200"), "{logged:?}");
    assert_eq!(
        b.js("return document.querySelectorAll('article.ev').length;"),
        json!(0),
        "no event text before a turn is opened"
    );
    assert!(b
        .js("return document.getElementById('side').innerText;")
        .as_str()
        .unwrap_or("")
        .contains("2200"));

    // Opening a turn (keyboard: focus its summary, Enter) loads that turn only.
    b.js("document.querySelector('#turn-50 > summary').focus(); return null;");
    b.keys(ENTER);
    b.wait_for(
        "turn 50's text",
        "document.querySelectorAll('#turn-50 article.ev').length >= 2",
    );
    let fetched: Vec<String> =
        serde_json::from_value(b.js(&format!("return {API_FETCHES};"))).expect("entries");
    assert_eq!(fetched.len(), 2, "{fetched:?}");
    assert!(fetched[1].contains("/content?turns=50"), "{fetched:?}");
    let text = b.js("return document.querySelector('#turn-50 .body').innerText;");
    assert!(
        text.as_str()
            .unwrap_or("")
            .contains("Module 50: all 10 checks pass."),
        "{text}"
    );
    b.screenshot(&tmp.path().join("large-session.png"));
}
