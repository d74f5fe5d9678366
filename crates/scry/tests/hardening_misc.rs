//! Issue 15, defect 7: `scry mcp` speaks JSON-RPC 2.0 on bad lines (parse error, invalid
//! request, notifications before `initialize`) and keeps serving; `export --format md` renders
//! no HTML from session text and no fence the text could break; `inspect` exits 3 for "not
//! found"; sessions under a directory whose name is not UTF-8 are listed and counted by
//! `doctor`; a 64 MB line of NUL bytes is read without a panic.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{json, Value};

use crate::util::{claude_line, corpus, scry};

/// A `scry mcp` child driven line by line over its stdin / stdout.
struct Mcp {
    child: std::process::Child,
    stdin: Option<std::process::ChildStdin>,
    lines: mpsc::Receiver<String>,
}

impl Mcp {
    fn start(home: &Path, db: &Path) -> Mcp {
        let mut child = Command::new(env!("CARGO_BIN_EXE_scry"))
            .env_clear()
            .env("HOME", home)
            .env("TZ", "UTC")
            .env("SCRY_DB", db.join("index.db"))
            .current_dir(home)
            .args(["--demo", "mcp"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn scry mcp");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Mcp {
            stdin: child.stdin.take(),
            child,
            lines: rx,
        }
    }

    fn send(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(line.as_bytes()).expect("write");
        stdin.write_all(b"\n").expect("write");
        stdin.flush().expect("flush");
    }

    /// The next message from the server (generous bound: "does not hang").
    fn next(&self, after: &str) -> Value {
        let line = self
            .lines
            .recv_timeout(Duration::from_secs(30))
            .unwrap_or_else(|e| panic!("no answer after {after:?}: {e}"));
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"))
    }

    /// Closes stdin and returns the exit status.
    fn finish(mut self) -> i32 {
        drop(self.stdin.take());
        for _ in 0..300 {
            if let Some(s) = self.child.try_wait().expect("wait") {
                return s.code().unwrap_or(-1);
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        let _ = self.child.kill();
        panic!("scry mcp did not exit after stdin closed");
    }
}

fn error_of(v: &Value) -> (i64, Value) {
    assert_eq!(v["jsonrpc"], "2.0", "{v}");
    (
        v["error"]["code"].as_i64().unwrap_or_else(|| panic!("{v}")),
        v["id"].clone(),
    )
}

#[test]
fn mcp_answers_bad_lines_per_json_rpc_and_keeps_serving() {
    let home = tempfile::tempdir().unwrap();
    let db = tempfile::tempdir().unwrap();
    let mut m = Mcp::start(home.path(), db.path());

    // Before initialize: a line that is not JSON, JSON that is not a request, notifications.
    let bad = "{\"jsonrpc\": \"2.0\", \"method\": \"tools/list\"";
    m.send(bad);
    let v = m.next(bad);
    assert_eq!(error_of(&v), (-32700, Value::Null), "{v}");
    assert!(
        v.as_object().unwrap().contains_key("id"),
        "id: null is present"
    );
    m.send("{\"foo\": \"bar\"}");
    assert_eq!(error_of(&m.next("foo")), (-32600, Value::Null));
    m.send("{\"jsonrpc\": \"2.0\", \"id\": 7, \"method\": 12}");
    assert_eq!(error_of(&m.next("method 12")), (-32600, json!(7)));
    m.send("[]");
    assert_eq!(error_of(&m.next("[]")), (-32600, Value::Null));
    m.send("{\"jsonrpc\": \"2.0\", \"method\": \"notifications/whatever\"}");
    m.send("{\"jsonrpc\": \"2.0\", \"method\": \"vendor/ping\", \"params\": {}}");
    m.send("{\"jsonrpc\": \"2.0\", \"method\": \"notifications/initialized\"}");

    // The handshake still works, and the first answer is the initialize result (the
    // notifications above were ignored, not answered and not fatal).
    m.send(
        &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "hardening-test", "version": "1"}}})
        .to_string(),
    );
    let init = m.next("initialize");
    assert_eq!(init["id"], 1, "{init}");
    assert_eq!(init["result"]["serverInfo"]["name"], "scry", "{init}");
    m.send("{\"jsonrpc\": \"2.0\", \"method\": \"notifications/initialized\"}");

    // After initialize: still answered, still serving.
    m.send("}{");
    assert_eq!(error_of(&m.next("}{")), (-32700, Value::Null));
    m.send("{\"jsonrpc\": \"2.0\", \"method\": \"notifications/unknown-after-init\"}");
    m.send("{\"jsonrpc\": \"2.0\", \"id\": \"c\", \"method\": \"tools/call\", \"params\": {\"name\": 3}}");
    assert_eq!(error_of(&m.next("bad params")), (-32602, json!("c")));
    m.send("{\"jsonrpc\": \"2.0\", \"id\": 2, \"method\": \"tools/list\"}");
    let tools = m.next("tools/list");
    assert_eq!(tools["id"], 2, "{tools}");
    let names: Vec<&str> = tools["result"]["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("{tools}"))
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert!(names.contains(&"list_sessions"), "{names:?}");
    m.send(
        &json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
            "params": {"name": "list_sessions", "arguments": {"limit": 2}}})
        .to_string(),
    );
    let call = m.next("tools/call");
    assert_eq!(call["id"], 3, "{call}");
    assert_eq!(call["result"]["isError"], false, "{call}");
    assert_eq!(m.finish(), 0);
}

#[test]
fn mcp_exits_cleanly_when_the_client_leaves_before_initialize() {
    let home = tempfile::tempdir().unwrap();
    let db = tempfile::tempdir().unwrap();
    let mut m = Mcp::start(home.path(), db.path());
    m.send("{\"jsonrpc\": \"2.0\", \"method\": \"notifications/cancelled\", \"params\": {\"requestId\": 1}}");
    assert_eq!(m.finish(), 0);
}

/// Lines of `md` with whether each is inside a fenced block. The export writes every fence at
/// column 0 with backticks only, so this is CommonMark's rule for such a document.
fn fenced_lines(md: &str) -> (Vec<(bool, &str)>, bool) {
    let mut open: Option<usize> = None;
    let mut out = Vec::new();
    for l in md.lines() {
        let run = l.len() - l.trim_start_matches('`').len();
        match open {
            None if run >= 3 && !l[run..].contains('`') => {
                open = Some(run);
                out.push((true, l));
            }
            Some(n) if run >= n && l[run..].trim().is_empty() => {
                open = None;
                out.push((true, l));
            }
            o => out.push((o.is_some(), l)),
        }
    }
    (out, open.is_some())
}

#[test]
fn markdown_export_renders_no_html_from_session_text() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let id = "5e55e55e-0000-4000-8000-00000000c0de";
    let dir = h.join(".claude/projects/-evil");
    std::fs::create_dir_all(&dir).unwrap();
    let cwd = "/work/`<img src=x onerror=alert(9)>`";
    let texts = [
        "<script>alert(1)</script> and <img src=x onerror=alert(2)>",
        // An unclosed fence in the text: it must end with the event, not swallow the rest.
        "Here is the page:\n```html\n<script>alert(3)</script>",
        // A fence nested in a list that a shorter inner fence would close.
        "- item\n  ````\n<img src=x onerror=alert(4)>\n  ```\n<img src=x onerror=alert(5)>\n  ````",
        // A code span split by a table cell (GFM splits cells before it reads code spans).
        "| a | b |\n|---|---|\n| `x|<img src=x onerror=alert(6)>` | y |",
        "Keep `Vec<u8>` as code.",
    ];
    let mut body = String::new();
    for (n, t) in texts.iter().enumerate() {
        let kind = if n % 2 == 0 { "user" } else { "assistant" };
        body.push_str(&claude_line(kind, id, n as u32, cwd, t));
        body.push('\n');
    }
    std::fs::write(dir.join(format!("{id}.jsonl")), body).unwrap();

    let out = scry(h, &["--no-index", "export", id, "--format", "md"]);
    assert_eq!(out.code, 0, "{}", out.render());
    let md = &out.stdout;
    let (lines, left_open) = fenced_lines(md);
    assert!(!left_open, "a fence is left open:\n{md}");
    for (fenced, l) in &lines {
        let lower = l.to_lowercase();
        if !fenced && !l.starts_with("- directory:") {
            assert!(
                !lower.contains("<script") && !lower.contains("<img"),
                "raw tag outside a code block: {l:?}\n{md}"
            );
        }
    }
    // What was code stays code, literally.
    assert!(lines
        .iter()
        .any(|(f, l)| *f && *l == "<script>alert(3)</script>"));
    assert!(lines
        .iter()
        .any(|(f, l)| *f && *l == "<img src=x onerror=alert(5)>"));
    assert!(md.contains("Keep `Vec<u8>` as code."), "{md}");
    // The text's unclosed fence ends with its event: the next turn is a heading, not code.
    assert!(lines.iter().any(|(f, l)| !*f && *l == "## Turn 2"), "{md}");
    // The directory holds backticks: its code span's delimiter is longer than any of them.
    assert!(
        md.contains("- directory: `` /work/`<img src=x onerror=alert(9)>` ``\n"),
        "{md}"
    );
}

#[test]
fn inspect_not_found_and_ambiguous_exit_3() {
    let home = tempfile::tempdir().unwrap();
    let db = corpus().join("langgraph/langgraph/sessions.db");
    let db = db.to_str().unwrap();
    let out = scry(home.path(), &["inspect", "--db", db, "does-not-exist"]);
    assert_eq!(out.code, 3, "{}", out.render());
    assert_eq!(out.stderr.trim_end(), "Thread not found: does-not-exist");
    assert!(out.stdout.is_empty());

    let out = scry(
        home.path(),
        &["--json", "inspect", "--db", db, "does-not-exist"],
    );
    assert_eq!(out.code, 3, "{}", out.render());
    assert_eq!(out.json()["error"]["code"], "SESSION_NOT_FOUND");

    let out = scry(home.path(), &["--json", "inspect", "--db", db, "0"]);
    assert_eq!(out.code, 3, "{}", out.render());
    let v = out.json();
    assert_eq!(v["error"]["code"], "AMBIGUOUS_ID");
    assert_eq!(v["error"]["candidates"].as_array().map(Vec::len), Some(7));

    let missing = home.path().join("nope.db");
    let out = scry(
        home.path(),
        &["inspect", "--db", missing.to_str().unwrap(), "x"],
    );
    assert_eq!(out.code, 3, "{}", out.render());
    assert!(out.stderr.contains("nope.db"), "{}", out.render());
}

/// Runs scry with `HOME` given as raw bytes (it may not be UTF-8).
fn scry_home_os(home: &Path, args: &[&str]) -> crate::util::Out {
    let db = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_scry"))
        .env_clear()
        .env("HOME", home.as_os_str())
        .env("TZ", "UTC")
        .env("SCRY_DB", db.path().join("index.db"))
        .current_dir(db.path())
        .args(args)
        .output()
        .expect("run scry");
    crate::util::Out {
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        code: out.status.code().unwrap_or(-1),
    }
}

/// A Claude session in a project folder whose name is not UTF-8; returns its id.
fn claude_in_non_utf8_dir(home: &Path) -> &'static str {
    use std::os::unix::ffi::OsStrExt;
    let id = "0dd0dd00-0000-4000-8000-0000000000ff";
    let slug = std::ffi::OsStr::from_bytes(b"-home-caf\xe9-\xff\xfe");
    let dir = home.join(".claude/projects").join(slug);
    std::fs::create_dir_all(&dir).unwrap();
    let body = format!(
        "{}\n{}\n",
        claude_line("user", id, 0, "/home/x", "a prompt under a latin-1 folder"),
        claude_line("assistant", id, 1, "/home/x", "an answer")
    );
    std::fs::write(dir.join(format!("{id}.jsonl")), body).unwrap();
    id
}

#[test]
fn sessions_under_a_non_utf8_directory_are_listed_read_and_counted() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let id = claude_in_non_utf8_dir(h);
    let uri = format!("claude:{id}");
    for index in [&["--no-index"][..], &[][..]] {
        let mut args = index.to_vec();
        args.extend(["list", "--global", "--json"]);
        let out = scry(h, &args);
        assert_eq!(out.code, 0, "{}", out.render());
        let v = out.json();
        let s = &v["sessions"][0];
        assert_eq!(s["uri"], uri.as_str(), "{args:?}: {}", out.render());
        // Shown lossily; the exact bytes stay with discovery for opening.
        let src = s["sources"][0].as_str().unwrap();
        assert!(src.contains("caf\u{fffd}-\u{fffd}\u{fffd}"), "{src}");
        let mut args = index.to_vec();
        args.extend(["turn", &uri, "1"]);
        let out = scry(h, &args);
        assert_eq!(out.code, 0, "{}", out.render());
        assert!(out.stdout.contains("a prompt under a latin-1 folder"));
    }
    let out = scry(h, &["doctor"]);
    assert_eq!(out.code, 0, "{}", out.render());
    assert!(
        out.stdout.starts_with("1 sources found"),
        "{}",
        out.render()
    );
    assert!(out.stdout.contains("not valid UTF-8"), "{}", out.render());
    let out = scry(h, &["--json", "doctor"]);
    assert_eq!(out.code, 0, "{}", out.render());
    let v = out.json();
    let claude = &v["providers"][0];
    assert_eq!(claude["provider"], "claude");
    assert_eq!(claude["parsed"], 1);
    assert_eq!(claude["non_utf8_paths_total"], 1);
}

#[test]
fn a_home_that_is_not_utf8_is_read_without_a_panic() {
    use std::os::unix::ffi::OsStrExt;
    let base = tempfile::tempdir().unwrap();
    let home = base.path().join(std::ffi::OsStr::from_bytes(b"h\xffome"));
    std::fs::create_dir_all(&home).unwrap();
    let id = claude_in_non_utf8_dir(&home);
    let out = scry_home_os(&home, &["list", "--global", "--json"]);
    out.assert_no_panic();
    assert_eq!(out.code, 0, "{}", out.render());
    assert_eq!(out.json()["sessions"][0]["id"], id);
    let out = scry_home_os(&home, &["doctor"]);
    out.assert_no_panic();
    assert!(
        out.stdout.starts_with("1 sources found"),
        "{}",
        out.render()
    );
}

/// A Claude session whose line 2 is `middle`, between a prompt and an answer.
fn claude_with_middle_line(home: &Path, id: &str, middle: &[u8]) {
    let dir = home.join(".claude/projects/-big");
    std::fs::create_dir_all(&dir).unwrap();
    let mut body = claude_line("user", id, 0, "/home/x", "before").into_bytes();
    body.push(b'\n');
    body.extend_from_slice(middle);
    body.push(b'\n');
    body.extend_from_slice(claude_line("assistant", id, 1, "/home/x", "after").as_bytes());
    body.push(b'\n');
    std::fs::write(dir.join(format!("{id}.jsonl")), body).unwrap();
}

#[test]
fn a_64_mb_line_of_nul_bytes_is_one_skipped_record() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let id = "00000000-0000-4000-8000-0000000000a0";
    claude_with_middle_line(h, id, &vec![0u8; 64 << 20]);
    for index in [&["--no-index"][..], &[][..]] {
        let mut args = index.to_vec();
        args.extend(["--json", "show", id]);
        let out = scry(h, &args);
        out.assert_no_panic();
        assert_eq!(out.code, 0, "{args:?}\n{}", out.render());
        let v = out.json();
        assert_eq!(v["stats"]["events"]["total"], 2, "{args:?}");
        let w = &v["warnings"].as_array().expect("warnings")[..];
        assert_eq!(w.len(), 1, "{w:?}");
        assert_eq!(w[0]["kind"], "corrupt_record");
        assert_eq!(w[0]["line"], 2);
    }
}

#[test]
fn a_long_nul_run_inside_a_string_is_kept() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let id = "00000000-0000-4000-8000-0000000000b0";
    let record = claude_line("assistant", id, 5, "/home/x", "MARK");
    let mut middle = Vec::new();
    let (head, tail) = record.split_once("MARK").unwrap();
    middle.extend_from_slice(head.as_bytes());
    middle.extend(std::iter::repeat_n(0u8, 4 << 20));
    middle.extend_from_slice(tail.as_bytes());
    claude_with_middle_line(h, id, &middle);
    let out = scry(h, &["--no-index", "--json", "show", id]);
    out.assert_no_panic();
    assert_eq!(out.code, 0, "{}", out.render());
    let v = out.json();
    assert_eq!(v["stats"]["events"]["total"], 3, "{}", out.render());
    assert_eq!(v["warnings"].as_array().map(Vec::len), Some(0));
}
