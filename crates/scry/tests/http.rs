//! `scry serve` (S-H1): every route against the demo corpus, the error codes (bad id,
//! ambiguous prefix, stale cursor, bad regex, non-GET method, wrong token, foreign Host header,
//! unknown parameter / route), the OpenAPI document against the live routes, redaction, and a
//! request log without query strings. Servers bind port 0 (other test runs share the machine).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::Value;

use crate::util::claude_session;

/// A running `scry serve`; killed (by its own handle) when dropped.
pub struct Server {
    child: Child,
    /// `127.0.0.1:PORT`.
    pub addr: String,
    /// Where stderr (the request log) goes.
    pub log: PathBuf,
    _db: tempfile::TempDir,
}

pub use scry_testkit::http::Resp;

impl Server {
    /// Starts `scry serve --port 0 <args>` with `HOME=home` and a fresh index.
    pub fn start(home: &Path, args: &[&str]) -> Server {
        let db = tempfile::tempdir().expect("tempdir");
        let log = db.path().join("serve.log");
        let mut child = Command::new(env!("CARGO_BIN_EXE_scry"))
            .env_clear()
            .env("HOME", home)
            .env("TZ", "UTC")
            .env("SCRY_DB", db.path().join("index.db"))
            .current_dir(home)
            .args(["serve", "--port", "0"])
            .args(args)
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(&log).expect("log file"))
            .spawn()
            .expect("start scry serve");
        let addr = crate::util::announced_addr(&mut child);
        Server {
            child,
            addr,
            log,
            _db: db,
        }
    }

    /// `GET path` with the right Host header.
    pub fn get(&self, path: &str) -> Resp {
        self.request("GET", path, &[])
    }

    /// Any request; `headers` may override `Host`.
    pub fn request(&self, method: &str, path: &str, headers: &[(&str, &str)]) -> Resp {
        scry_testkit::http::request(&self.addr, method, path, headers, Duration::from_secs(120))
            .expect("request")
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Percent-encodes a query value.
pub fn enc(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

const CLAUDE: &str = "claude:4f1c2a9e-7b3d-4c8e-9a21-5d6e7f809a1b";

#[test]
fn every_route_answers_on_the_demo() {
    let home = tempfile::tempdir().unwrap();
    let srv = Server::start(home.path(), &["--demo"]);
    assert_eq!(srv.get("/health").json()["status"], "ok");
    let m = srv.get("/manifest").json();
    assert_eq!(m["redacted"], true);
    assert_eq!(m["auth"], "none");
    let list = srv.get("/v1/sessions?kind=all&limit=100");
    assert_eq!(list.status, 200, "{}", list.body);
    assert_eq!(list.header("content-type"), Some("application/json"));
    let uris: Vec<String> = list.json()["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["uri"].as_str().unwrap().to_string())
        .collect();
    assert!(uris.len() >= 13 && uris.contains(&CLAUDE.to_string()));
    // Paging: limit=5 gives a cursor; following it gives the next five.
    let p1 = srv.get("/v1/sessions?kind=all&limit=5").json();
    let c = p1["next_cursor"].as_str().expect("a next page");
    let p2 = srv
        .get(&format!("/v1/sessions?kind=all&limit=5&cursor={}", enc(c)))
        .json();
    assert_eq!(p2["sessions"][0]["uri"].as_str(), Some(uris[5].as_str()));

    let id = enc(CLAUDE);
    let show = srv.get(&format!("/v1/sessions/{id}")).json();
    assert_eq!(show["session"]["uri"], CLAUDE);
    assert!(show["fingerprint"].as_str().is_some_and(|f| f.len() == 16));
    let turns = srv.get(&format!("/v1/sessions/{id}/turns")).json();
    assert!(turns["turns"].as_array().is_some_and(|t| t.len() >= 2));
    let turn = srv
        .get(&format!("/v1/sessions/{id}/content?turns=1"))
        .json();
    assert_eq!(turn["turns"][0]["number"], 1);
    let events = srv
        .get(&format!("/v1/sessions/{id}/content?event=1-3"))
        .json();
    let evs = events["turns"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|t| t["events"].as_array().cloned().unwrap_or_default())
        .collect::<Vec<_>>();
    assert_eq!(evs.len(), 3);
    let locator = evs[1]["locator"].as_str().unwrap().to_string();
    let by_loc = srv.get(&format!(
        "/v1/sessions/{id}/content?locator={}",
        enc(&locator)
    ));
    assert_eq!(by_loc.status, 200, "{}", by_loc.body);
    let window = srv
        .get(&format!("/v1/sessions/{id}/content?around=3&radius=1"))
        .json();
    let n: Vec<u64> = window["turns"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|t| t["events"].as_array().cloned().unwrap_or_default())
        .filter_map(|e| e["event"].as_u64())
        .collect();
    assert_eq!(n, vec![2, 3, 4]);
    let tools = &turn["turns"][0]["tools"];
    if let Some(call) = tools[0]["call_id"].as_str() {
        let r = srv.get(&format!("/v1/sessions/{id}/content?call={}", enc(call)));
        assert_eq!(r.status, 200, "{}", r.body);
    }
    let raw = srv.get(&format!("/v1/sessions/{id}/content?turns=1&raw=true"));
    assert_eq!(raw.status, 200, "{}", raw.body);
    for ledger in ["commands", "files", "errors", "jobs", "lineage"] {
        let r = srv.get(&format!("/v1/sessions/{id}/{ledger}"));
        assert_eq!(r.status, 200, "{ledger}: {}", r.body);
        assert!(r.json().is_object());
    }
    let failed = srv.get(&format!("/v1/sessions/{id}/commands?failed=true"));
    assert_eq!(failed.status, 200, "{}", failed.body);
    let graph = srv.get(&format!("/v1/graph/{id}"));
    assert_eq!(graph.status, 200, "{}", graph.body);
    let search = srv.get("/v1/search?q=password").json();
    assert!(search["total_matches"].as_u64().unwrap_or(0) > 0);
    let within = srv
        .get(&format!(
            "/v1/search?q=zzz-nothing-matches&session={}",
            enc(CLAUDE)
        ))
        .json();
    assert_eq!(within["total_matches"], 0);
    assert_eq!(
        within["session"]["uri"], CLAUDE,
        "header even with zero hits"
    );
    let batch = srv
        .get(&format!("/v1/headers?ids={},zzzzzzzz-nope", enc(CLAUDE)))
        .json();
    assert_eq!(batch["results"][0]["session"]["uri"], CLAUDE);
    assert_eq!(batch["results"][1]["error"]["code"], "SESSION_NOT_FOUND");
    let head = srv.request("HEAD", "/health", &[]);
    assert_eq!(head.status, 200);
}

#[test]
fn errors_have_closed_codes_and_statuses() {
    let home = tempfile::tempdir().unwrap();
    let srv = Server::start(home.path(), &["--demo"]);
    let r = srv.get("/v1/sessions/zzzzzzzz-nope");
    assert_eq!((r.status, r.code().as_str()), (404, "SESSION_NOT_FOUND"));
    let r = srv.get("/v1/search?q=%28unclosed&regex=true");
    assert_eq!((r.status, r.code().as_str()), (400, "INVALID_QUERY"));
    assert!(r.json()["error"]["message"]
        .as_str()
        .unwrap()
        .contains("(unclosed"));
    let r = srv.request("POST", "/v1/sessions", &[]);
    assert_eq!((r.status, r.code().as_str()), (405, "INVALID_QUERY"));
    assert_eq!(r.header("allow"), Some("GET, HEAD"));
    let r = srv.request("DELETE", &format!("/v1/sessions/{}", enc(CLAUDE)), &[]);
    assert_eq!(r.status, 405);
    let r = srv.request("GET", "/health", &[("Host", "evil.example:80")]);
    assert_eq!((r.status, r.code().as_str()), (403, "INVALID_QUERY"));
    let r = srv.get("/v1/sessions?limitt=3");
    assert_eq!((r.status, r.code().as_str()), (400, "INVALID_QUERY"));
    let r = srv.get("/v1/sessions?limit=0");
    assert_eq!((r.status, r.code().as_str()), (400, "INVALID_PAGE_SIZE"));
    let r = srv.get("/v1/sessions?kind=bogus");
    assert_eq!((r.status, r.code().as_str()), (400, "INVALID_FILTER"));
    let r = srv.get("/v1/nope");
    assert_eq!(r.status, 404);
    let r = srv.get(&format!("/v1/sessions/{}/content?event=999", enc(CLAUDE)));
    assert_eq!((r.status, r.code().as_str()), (400, "INVALID_WINDOW"));
    let r = srv.get(&format!(
        "/v1/sessions/{}/content?locator=nope",
        enc(CLAUDE)
    ));
    assert_eq!((r.status, r.code().as_str()), (410, "STALE_LOCATOR"));
    let r = srv.get(&format!("/v1/sessions/{}/content?call=nope", enc(CLAUDE)));
    assert_eq!((r.status, r.code().as_str()), (404, "EVENT_NOT_FOUND"));
    let r = srv.get("/v1/sessions?cursor=garbage");
    assert_eq!((r.status, r.code().as_str()), (400, "INVALID_CURSOR"));
    // The log names method, path, status — never the query string.
    let log = std::fs::read_to_string(&srv.log).unwrap();
    assert!(log.contains("GET /v1/search 400"), "{log}");
    assert!(!log.contains("unclosed"), "{log}");
}

#[test]
fn ambiguous_prefix_and_stale_cursor() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let a = claude_session(h, "abcdef01-1111-4111-8111-111111111111", "/work/a", 3);
    claude_session(h, "abcdef01-2222-4222-8222-222222222222", "/work/a", 1);
    let srv = Server::start(h, &[]);
    let r = srv.get("/v1/sessions/abcdef01");
    assert_eq!((r.status, r.code().as_str()), (409, "AMBIGUOUS_ID"));
    assert_eq!(
        r.json()["error"]["candidates"].as_array().map(Vec::len),
        Some(2)
    );
    // A page cut short gives a cursor; once the source changes the cursor is refused.
    let first = srv
        .get("/v1/sessions/abcdef01-1111/content?turns=0-3&max_chars=20")
        .json();
    let cursor = first["next_cursor"]
        .as_str()
        .expect("more pages")
        .to_string();
    let next = srv.get(&format!(
        "/v1/sessions/abcdef01-1111/content?turns=0-3&max_chars=20&cursor={}",
        enc(&cursor)
    ));
    assert_eq!(next.status, 200, "{}", next.body);
    let mut f = std::fs::OpenOptions::new().append(true).open(&a).unwrap();
    writeln!(
        f,
        "{}",
        crate::util::claude_line(
            "user",
            "abcdef01-1111-4111-8111-111111111111",
            40,
            "/work/a",
            "more"
        )
    )
    .unwrap();
    drop(f);
    let stale = srv.get(&format!(
        "/v1/sessions/abcdef01-1111/content?turns=0-3&max_chars=20&cursor={}",
        enc(&cursor)
    ));
    assert_eq!(
        (stale.status, stale.code().as_str()),
        (400, "INVALID_CURSOR")
    );
    assert!(stale.body.contains("stale"), "{}", stale.body);
}

#[test]
fn token_is_required_when_set() {
    let home = tempfile::tempdir().unwrap();
    let srv = Server::start(home.path(), &["--demo", "--token", "s3cret-token"]);
    let r = srv.get("/health");
    assert_eq!(r.status, 401);
    assert!(r.header("www-authenticate").is_some());
    let r = srv.request(
        "GET",
        "/health",
        &[("Authorization", "Bearer wrong-token!")],
    );
    assert_eq!((r.status, r.code().as_str()), (401, "INVALID_QUERY"));
    let r = srv.request(
        "GET",
        "/health",
        &[("Authorization", "Bearer s3cret-token")],
    );
    assert_eq!(r.status, 200);
    assert_eq!(
        srv.request(
            "GET",
            "/manifest",
            &[("Authorization", "Bearer s3cret-token")]
        )
        .json()["auth"],
        "bearer"
    );
}

#[test]
fn non_loopback_without_token_is_refused() {
    let home = tempfile::tempdir().unwrap();
    let out = crate::util::scry(
        home.path(),
        &["serve", "--demo", "--host", "0.0.0.0", "--port", "0"],
    );
    assert_eq!(out.code, 2, "{}", out.render());
    assert!(out.stderr.contains("--token"), "{}", out.render());
    let out = crate::util::scry(
        home.path(),
        &[
            "serve", "--demo", "--host", "0.0.0.0", "--port", "0", "--token", "t", "--reveal",
        ],
    );
    assert_eq!(out.code, 2, "{}", out.render());
}

#[test]
fn openapi_lists_every_route_and_each_answers() {
    let home = tempfile::tempdir().unwrap();
    let srv = Server::start(home.path(), &["--demo"]);
    let doc = srv.get("/openapi.json").json();
    assert_eq!(doc["openapi"], "3.1.0");
    let paths = doc["paths"].as_object().unwrap();
    let manifest = srv.get("/manifest").json();
    let routes: Vec<&str> = manifest["routes"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert_eq!(paths.len(), routes.len());
    for path in paths.keys() {
        assert!(routes.contains(&path.as_str()), "{path}");
        if path.ends_with("/stream") {
            continue; // server-sent event streams never end: tests/live.rs reads them
        }
        let concrete = path.replace("{id}", &enc(CLAUDE));
        let concrete = match path.as_str() {
            "/v1/search" => format!("{concrete}?q=test"),
            "/v1/sessions/{id}/content" => format!("{concrete}?turns=1"),
            "/v1/headers" => format!("{concrete}?ids={}", enc(CLAUDE)),
            _ => concrete,
        };
        let r = srv.get(&concrete);
        assert_eq!(r.status, 200, "{path}: {}", r.body);
    }
}

#[test]
fn session_text_is_redacted_unless_revealed() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let key = "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789AbCdEfGhIjKlMnOp";
    let dir = h.join(".claude/projects/-test-proj");
    std::fs::create_dir_all(&dir).unwrap();
    let id = "5ec7e700-1111-4111-8111-111111111111";
    let lines = [
        crate::util::claude_line(
            "user",
            id,
            0,
            "/work/s",
            &format!("use the key {key} please"),
        ),
        crate::util::claude_line("assistant", id, 1, "/work/s", "done"),
    ];
    std::fs::write(dir.join(format!("{id}.jsonl")), lines.join("\n") + "\n").unwrap();
    let path = format!("/v1/sessions/{id}/content?turns=1");
    let hidden = Server::start(h, &[]).get(&path);
    assert_eq!(hidden.status, 200, "{}", hidden.body);
    assert!(!hidden.body.contains(key), "{}", hidden.body);
    assert!(hidden.body.contains("[redacted:"), "{}", hidden.body);
    assert!(hidden.body.contains(id), "ids are not redacted");
    let shown = Server::start(h, &["--reveal"]).get(&path);
    assert!(shown.body.contains(key), "{}", shown.body);
}
