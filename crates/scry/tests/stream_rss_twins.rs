//! The HTTP and MCP twins of the per-session commands stream too (issue 17): on the generated
//! ~40 MB Claude Code session of [`super::stream_rss`], one fresh `scry serve` (resp. `scry mcp`
//! over stdio) per request, indexed and `--no-index`, must not grow by more than 0.25× the
//! session's size + 16 MB over its own peak RSS before the request (`VmHWM` of the server,
//! read from /proc before it is stopped). An answer built from the session held whole (about
//! 1.3–1.8× its size) fails; the answers' own size (turn rows, pages of a bounded size) fits.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::{json, Value};

use super::stream_rss::{big_session, run_peak, scry_bin};

/// The peak RSS of process `pid` so far, in bytes.
fn hwm(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|st| {
            st.lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        })
        .map_or(0, |kb| kb * 1024)
}

/// `scry [--no-index] <args>` with the big session's home and its own index.
fn spawn(home: &Path, db: &Path, no_index: bool, args: &[&str]) -> Child {
    let mut cmd = Command::new(scry_bin());
    cmd.env_clear()
        .env("HOME", home)
        .env("TZ", "UTC")
        .env("SCRY_DB", db)
        .current_dir(home);
    if no_index {
        cmd.arg("--no-index");
    }
    cmd.args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start scry")
}

/// One request to a fresh `scry serve`: (status, body length, peak before, peak after).
fn http_once(home: &Path, db: &Path, no_index: bool, path: &str) -> (u16, usize, u64, u64) {
    let mut child = spawn(home, db, no_index, &["serve", "--port", "0"]);
    let addr = crate::util::announced_addr(&mut child);
    std::thread::sleep(Duration::from_millis(300));
    let before = hwm(child.id());
    let r = scry_testkit::http::request(&addr, "GET", path, &[], Duration::from_secs(600))
        .expect("request");
    let after = hwm(child.id());
    let _ = child.kill();
    let _ = child.wait();
    (r.status, r.body.len(), before, after)
}

/// One tool call to a fresh `scry mcp`: (the answer, peak before, peak after).
fn mcp_once(home: &Path, db: &Path, no_index: bool, tool: &str, args: Value) -> (Value, u64, u64) {
    let mut child = spawn(home, db, no_index, &["mcp"]);
    let mut stdin = child.stdin.take().expect("stdin");
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
    let mut send = |m: Value| {
        stdin
            .write_all(format!("{m}\n").as_bytes())
            .expect("write to scry mcp");
        stdin.flush().expect("flush");
    };
    let mut line = String::new();
    send(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "stream_rss_twins", "version": "0"}}}),
    );
    stdout.read_line(&mut line).expect("initialize answer");
    send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    std::thread::sleep(Duration::from_millis(300));
    let before = hwm(child.id());
    send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": tool, "arguments": args}}));
    line.clear();
    stdout.read_line(&mut line).expect("tools/call answer");
    let after = hwm(child.id());
    drop(stdin);
    let _ = child.kill();
    let _ = child.wait();
    let v: Value = serde_json::from_str(&line).unwrap_or(Value::Null);
    (v, before, after)
}

#[test]
fn http_and_mcp_twins_stay_under_the_session_size() {
    let home = tempfile::tempdir().expect("home");
    let (sid, size) = big_session(home.path());
    let db_dir = tempfile::tempdir().expect("db dir");
    let db = db_dir.path().join("index.db");
    let growth = size as u64 / 4 + (16 << 20);
    let mut failures = Vec::new();
    let mut check = |label: String, before: u64, after: u64| {
        eprintln!(
            "{label}: peak {} MB (before the request {} MB; session {} MB, bound +{} MB)",
            after >> 20,
            before >> 20,
            size >> 20,
            growth >> 20
        );
        if after > before + growth {
            failures.push(format!("{label}: {} → {} MB", before >> 20, after >> 20));
        }
    };
    let id = json!(sid);
    for no_index in [true, false] {
        if !no_index {
            let (code, _, _) = run_peak(home.path(), &db, &["index", &sid]);
            assert_eq!(code, 0, "index the big session");
        }
        let routes = [
            format!("/v1/sessions/{sid}"),
            format!("/v1/sessions/{sid}/turns"),
            format!("/v1/sessions/{sid}/content?turns=3"),
            format!("/v1/sessions/{sid}/content?turns=1-1000000&max_chars=200000"),
            format!("/v1/sessions/{sid}/events?limit=1000"),
            format!("/v1/sessions/{sid}/commands"),
            format!("/v1/sessions/{sid}/errors"),
            format!("/v1/graph/{sid}"),
            format!("/v1/search?q=the&session={sid}"),
        ];
        for path in &routes {
            let (status, len, before, after) = http_once(home.path(), &db, no_index, path);
            assert_eq!(status, 200, "GET {path} (no_index {no_index})");
            assert!(len > 0, "GET {path} answers something");
            check(format!("http {path} (no_index {no_index})"), before, after);
        }
        let tools = [
            ("show_session", json!({"id": id})),
            ("turns", json!({"id": id})),
            ("read", json!({"id": id, "turns": "3"})),
            ("read", json!({"id": id, "turns": "1-1000000"})),
            ("commands", json!({"id": id})),
            ("errors", json!({"id": id})),
            ("graph", json!({"id": id})),
            ("context", json!({"id": id})),
            ("search", json!({"query": "the", "session": id})),
        ];
        for (tool, args) in tools {
            let (v, before, after) = mcp_once(home.path(), &db, no_index, tool, args);
            let result = &v["result"];
            assert!(
                result.is_object() && result["isError"] != json!(true),
                "mcp {tool} (no_index {no_index}) answers: {v}"
            );
            check(format!("mcp {tool} (no_index {no_index})"), before, after);
        }
    }
    assert!(
        failures.is_empty(),
        "peak RSS grew by more than {} MB (0.25 × {} MB + 16 MB): {failures:?}",
        growth >> 20,
        size >> 20
    );
}
