//! Issue 15, defect 2: session references over HTTP and MCP are ids from discovery, never
//! paths (a path is not found, whatever file it names); exclusions hold on every route and
//! tool; FIFOs, devices and directories never block a request or the CLI; `/health` keeps
//! answering after hundreds of such requests. Servers bind port 0 on 127.0.0.1; every wait is
//! bounded by a generous "does not hang" limit.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::RunningService;
use rmcp::transport::TokioChildProcess;
use rmcp::{RoleClient, ServiceExt};
use serde_json::{json, Map, Value};

use crate::http::enc;
use crate::util::{claude_line, claude_session, scry_env, Out};

/// "Does not hang": far above what any of these answers needs, far below forever.
const HANG: Duration = Duration::from_secs(20);

const KEPT: &str = "a11ce000-1111-4111-8111-111111111111";
const SECRET: &str = "5ec12e70-2222-4222-8222-222222222222";

/// A home with two Claude sessions: `KEPT` in `-test-proj`, `SECRET` (whose text holds the word
/// `zanzibarquux`) in `-secret-proj`.
fn home() -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    claude_session(home.path(), KEPT, "/work/kept", 2);
    let dir = home.path().join(".claude/projects/-secret-proj");
    std::fs::create_dir_all(&dir).unwrap();
    let lines = [
        claude_line("user", SECRET, 0, "/work/secret", "tell zanzibarquux"),
        claude_line("assistant", SECRET, 1, "/work/secret", "zanzibarquux told"),
    ];
    std::fs::write(dir.join(format!("{SECRET}.jsonl")), lines.join("\n") + "\n").unwrap();
    home
}

fn session_file(home: &Path, proj: &str, id: &str) -> PathBuf {
    home.join(format!(".claude/projects/{proj}/{id}.jsonl"))
}

fn mkfifo(path: &Path) {
    let st = Command::new("mkfifo").arg(path).status().expect("mkfifo");
    assert!(st.success(), "mkfifo {}", path.display());
}

/// A running `scry serve` (or `scry web`) with its index at `db`; killed when dropped.
struct Serve {
    child: Child,
    addr: String,
}

impl Serve {
    fn start(home: &Path, db: &Path, args: &[&str]) -> Serve {
        Serve::start_as("serve", home, db, args)
    }

    /// `scry <command> --port 0 <args>` (`serve` or `web`).
    fn start_as(command: &str, home: &Path, db: &Path, args: &[&str]) -> Serve {
        let mut child = Command::new(env!("CARGO_BIN_EXE_scry"))
            .env_clear()
            .env("HOME", home)
            .env("TZ", "UTC")
            .env("SCRY_DB", db)
            .current_dir(home)
            .args([command, "--port", "0"])
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start scry serve / web");
        let addr = crate::util::announced_addr(&mut child);
        Serve { child, addr }
    }

    /// `GET path`: (status, body); a missing answer within [`HANG`] fails the test.
    fn get(&self, path: &str) -> (u16, String) {
        let (status, _, body) = crate::util::http_get(&self.addr, path, HANG);
        assert_ne!(status, 0, "GET {path}: no answer within {HANG:?}");
        (status, body)
    }

    /// `GET path` answered 404 `SESSION_NOT_FOUND`.
    fn assert_not_found(&self, path: &str) {
        let (status, body) = self.get(path);
        assert_eq!(status, 404, "GET {path}: {body}");
        let v: Value = serde_json::from_str(&body).unwrap_or_else(|e| panic!("{e}: {body}"));
        assert_eq!(
            v["error"]["code"], "SESSION_NOT_FOUND",
            "GET {path}: {body}"
        );
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Every route that takes a session reference, for reference `r` (already encoded).
fn session_routes(r: &str) -> Vec<String> {
    vec![
        format!("/v1/sessions/{r}"),
        format!("/v1/sessions/{r}/turns"),
        format!("/v1/sessions/{r}/content?turns=1"),
        format!("/v1/sessions/{r}/content?around=1"),
        format!("/v1/sessions/{r}/events"),
        format!("/v1/sessions/{r}/lineage"),
        format!("/v1/sessions/{r}/commands"),
        format!("/v1/sessions/{r}/files"),
        format!("/v1/sessions/{r}/errors"),
        format!("/v1/sessions/{r}/jobs"),
        format!("/v1/graph/{r}"),
        format!("/v1/search?q=prompt&global=true&session={r}"),
    ]
}

/// `/v1/headers?ids=r` reports the one reference as not found.
fn assert_header_not_found(srv: &Serve, r: &str) {
    let (status, body) = srv.get(&format!("/v1/headers?ids={r}"));
    assert_eq!(status, 200, "{body}");
    assert!(
        body.contains("SESSION_NOT_FOUND") && !body.contains("\"uri\":\"claude:"),
        "headers of {r}: {body}"
    );
}

#[test]
fn http_never_opens_a_path() {
    let home = home();
    let h = home.path();
    let db = tempfile::tempdir().unwrap();
    // A real session file copied outside every agent home, and the discovered file itself.
    let outside = tempfile::tempdir().unwrap();
    let copy = outside.path().join(format!("{KEPT}.jsonl"));
    std::fs::copy(session_file(h, "-test-proj", KEPT), &copy).unwrap();
    for command in ["serve", "web"] {
        let srv = Serve::start_as(command, h, &db.path().join("index.db"), &[]);
        // The id reads.
        let (status, body) = srv.get(&format!("/v1/sessions/{KEPT}"));
        assert_eq!(status, 200, "{command}: {body}");
        for path in [copy.clone(), session_file(h, "-test-proj", KEPT)] {
            let r = enc(&path.display().to_string());
            for route in session_routes(&r) {
                srv.assert_not_found(&route);
            }
            assert_header_not_found(&srv, &r);
        }
    }
}

#[test]
fn http_fifos_and_devices_answer_at_once_and_health_survives() {
    let home = home();
    let h = home.path();
    let db = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe.jsonl");
    mkfifo(&fifo);
    let srv = Serve::start(h, &db.path().join("index.db"), &[]);
    let refs: Vec<String> = [
        "/dev/stdin".to_string(),
        "/dev/zero".to_string(),
        fifo.display().to_string(),
        dir.path().display().to_string(),
    ]
    .iter()
    .map(|r| enc(r))
    .collect();
    for r in &refs {
        for route in session_routes(r) {
            srv.assert_not_found(&route);
        }
    }
    // 600 more, from 8 clients at once: each answered (404), and /health after them.
    std::thread::scope(|s| {
        for t in 0..8 {
            let (srv, refs) = (&srv, &refs);
            s.spawn(move || {
                for i in 0..75 {
                    let r = &refs[(t + i) % refs.len()];
                    let (status, body) = srv.get(&format!("/v1/sessions/{r}"));
                    assert_eq!(status, 404, "{body}");
                }
            });
        }
    });
    let (status, body) = srv.get("/health");
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("\"ok\""), "{body}");
}

#[test]
fn http_exclusions_hold_on_every_route() {
    let home = home();
    let h = home.path();
    let db = tempfile::tempdir().unwrap();
    let db = db.path().join("index.db");
    // The index already holds both sessions (built without exclusions).
    let out = scry_env(h, h, &[("SCRY_DB", &db)], &["index", "--all"]);
    assert_eq!(out.code, 0, "{}", out.render());
    let secret_path = session_file(h, "-secret-proj", SECRET);

    let by_path = Serve::start(h, &db, &["--exclude-path", "**/-secret-proj/**"]);
    let by_provider = Serve::start(h, &db, &["--exclude-provider", "claude"]);
    for srv in [&by_path, &by_provider] {
        for r in [
            SECRET.to_string(),
            format!("claude:{SECRET}"),
            SECRET[..8].to_string(),
            enc(&secret_path.display().to_string()),
        ] {
            for route in session_routes(&r) {
                srv.assert_not_found(&route);
            }
            assert_header_not_found(srv, &r);
        }
        for route in [
            "/v1/search?q=zanzibarquux&global=true",
            "/v1/search?q=zanzibarquux&global=true&area=all",
            "/v1/sessions?global=true&kind=all&limit=500",
        ] {
            let (status, body) = srv.get(route);
            assert_eq!(status, 200, "{route}: {body}");
            assert!(
                !body.contains(SECRET),
                "{route} shows the excluded session: {body}"
            );
            assert!(!body.contains("zanzibarquux"), "{route}: {body}");
        }
    }
    // The kept session still reads where only the path is excluded.
    let (status, body) = by_path.get(&format!("/v1/sessions/{KEPT}"));
    assert_eq!(status, 200, "{body}");
    let (_, body) = by_path.get("/v1/search?q=prompt&global=true");
    assert!(body.contains(KEPT), "{body}");
}

type Client = RunningService<RoleClient, ()>;

async fn mcp(home: &Path, db: &Path, args: &[&str]) -> Client {
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_scry"));
    cmd.env_clear()
        .env("HOME", home)
        .env("TZ", "UTC")
        .env("SCRY_DB", db.join("index.db"))
        .current_dir(home)
        .arg("mcp")
        .args(args);
    let (transport, _stderr) = TokioChildProcess::builder(cmd)
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn scry mcp");
    ().serve(transport).await.expect("MCP initialize")
}

/// Calls `tool`; returns (answer, is_error).
async fn call(c: &Client, tool: &str, args: Value) -> (Value, bool) {
    let map: Map<String, Value> = args.as_object().cloned().unwrap_or_default();
    let r: CallToolResult = c
        .call_tool(CallToolRequestParams::new(tool.to_string()).with_arguments(map))
        .await
        .unwrap_or_else(|e| panic!("{tool}: {e}"));
    let text = r
        .content
        .first()
        .and_then(|b| b.as_text())
        .map(|t| t.text.clone())
        .unwrap_or_default();
    let v = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{tool}: {e}: {text}"));
    (v, r.is_error == Some(true))
}

#[test]
fn mcp_refuses_paths_and_excluded_sessions() {
    let home = home();
    let h = home.path();
    let db = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe.jsonl");
    mkfifo(&fifo);
    let copy = dir.path().join(format!("{KEPT}.jsonl"));
    std::fs::copy(session_file(h, "-test-proj", KEPT), &copy).unwrap();
    let refs = [
        copy.display().to_string(),
        session_file(h, "-test-proj", KEPT).display().to_string(),
        fifo.display().to_string(),
        "/dev/stdin".to_string(),
        // Excluded below.
        SECRET.to_string(),
        session_file(h, "-secret-proj", SECRET)
            .display()
            .to_string(),
    ];
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let c = mcp(h, db.path(), &["--exclude-path", "**/-secret-proj/**"]).await;
        let (v, err) = call(&c, "show_session", json!({"id": KEPT})).await;
        assert!(!err, "{v}");
        for r in &refs {
            for (tool, args) in [
                ("show_session", json!({"id": r})),
                ("read", json!({"id": r, "turns": "1"})),
                ("turns", json!({"id": r})),
                ("commands", json!({"id": r})),
                ("graph", json!({"id": r})),
                ("search", json!({"query": "prompt", "session": r})),
            ] {
                let asked = Instant::now();
                let (v, err) = tokio::time::timeout(HANG, call(&c, tool, args.clone()))
                    .await
                    .unwrap_or_else(|_| panic!("{tool} {args}: no answer within {HANG:?}"));
                assert!(err, "{tool} {args}: {v}");
                assert_eq!(
                    v["error"]["code"], "SESSION_NOT_FOUND",
                    "{tool} {args}: {v}"
                );
                assert!(asked.elapsed() < HANG);
            }
        }
        let (v, _) = call(
            &c,
            "search",
            json!({"query": "zanzibarquux", "scope": "global"}),
        )
        .await;
        assert!(!v.to_string().contains(SECRET), "{v}");
        c.cancel().await.ok();
    });
}

/// Runs `scry args…` (HOME=home, own index); kills it and fails past [`HANG`].
fn scry_bounded(home: &Path, args: &[&str]) -> Out {
    let db = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_scry"))
        .env_clear()
        .env("HOME", home)
        .env("TZ", "UTC")
        .env("SCRY_DB", db.path().join("index.db"))
        .current_dir(home)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run scry");
    let start = Instant::now();
    while child.try_wait().expect("wait").is_none() {
        if start.elapsed() > HANG {
            let _ = child.kill();
            let _ = child.wait();
            panic!("scry {args:?} did not finish within {HANG:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().expect("output");
    Out {
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        code: out.status.code().unwrap_or(-1),
    }
}

#[test]
fn cli_show_refuses_what_is_not_a_regular_file() {
    let home = home();
    let h = home.path();
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe.jsonl");
    mkfifo(&fifo);
    let fifo_link = dir.path().join("link-to-pipe.jsonl");
    std::os::unix::fs::symlink(&fifo, &fifo_link).unwrap();
    let sub = dir.path().join("sessions");
    std::fs::create_dir(&sub).unwrap();
    for (target, what) in [
        (fifo.display().to_string(), "FIFO"),
        (fifo_link.display().to_string(), "FIFO"),
        (sub.display().to_string(), "directory"),
        ("/dev/null".to_string(), "character device"),
    ] {
        for json in [false, true] {
            let mut args = vec!["show", target.as_str()];
            if json {
                args.insert(1, "--json");
            }
            let out = scry_bounded(h, &args);
            out.assert_no_panic();
            assert_eq!(out.code, 3, "{args:?}\n{}", out.render());
            let lines: Vec<&str> = out.stderr.lines().collect();
            assert_eq!(lines.len(), 1, "{}", out.render());
            assert!(
                lines[0].contains(&target) && lines[0].contains(what),
                "{}",
                out.render()
            );
            if json {
                assert_eq!(out.json()["error"]["code"], "SESSION_NOT_FOUND");
            }
        }
    }
}

#[test]
fn cli_show_still_reads_a_session_file_by_path() {
    let home = home();
    let h = home.path();
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join(format!("{KEPT}.jsonl"));
    std::fs::copy(session_file(h, "-test-proj", KEPT), &copy).unwrap();
    // A symlink to a regular session file is fine (named like its target: a Claude session's
    // id is its file name).
    std::fs::create_dir(dir.path().join("links")).unwrap();
    let link = dir.path().join(format!("links/{KEPT}.jsonl"));
    std::os::unix::fs::symlink(&copy, &link).unwrap();
    for r in [&copy, &link, &session_file(h, "-test-proj", KEPT)] {
        let out = scry_bounded(h, &["show", "--json", &r.display().to_string()]);
        assert_eq!(out.code, 0, "{}", out.render());
        assert_eq!(out.json()["session"]["uri"], format!("claude:{KEPT}"));
    }
    // Exclusions hold for a file named by path, too.
    let secret = session_file(h, "-secret-proj", SECRET)
        .display()
        .to_string();
    let kept = copy.display().to_string();
    for args in [
        vec!["--exclude-path", "**/-secret-proj/**", "show", &secret],
        vec!["--exclude-provider", "claude", "show", &kept],
    ] {
        let out = scry_bounded(h, &args);
        assert_eq!(out.code, 3, "{args:?}\n{}", out.render());
    }
}

/// A session whose text records MCP `show_session` calls naming a FIFO path and a discovered
/// session's path: `graph` matches such references against discovery only, so it neither
/// opens the FIFO nor hangs, and still links the discovered session.
#[test]
fn graph_does_not_open_paths_found_in_session_text() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe.jsonl");
    mkfifo(&fifo);
    let other = claude_session(h, KEPT, "/work/kept", 1);
    let id = "9a9b0000-3333-4333-8333-333333333333";
    let proj = h.join(".claude/projects/-test-proj");
    let mut lines = vec![claude_line(
        "user",
        id,
        0,
        "/work/g",
        "look at the sessions",
    )];
    for (n, target) in [fifo.display().to_string(), other.display().to_string()]
        .iter()
        .enumerate()
    {
        let call = json!({
            "type": "assistant", "uuid": format!("a-call-{n}"), "sessionId": id,
            "cwd": "/work/g", "timestamp": "2026-11-20T10:01:00.000Z", "version": "2.1.0",
            "message": {"id": format!("msg-call-{n}"), "role": "assistant",
                "model": "claude-test", "content": [{"type": "tool_use",
                "id": format!("toolu_{n}"), "name": "mcp__scry__show_session",
                "input": {"id": target}}]}
        });
        let result = json!({
            "type": "user", "uuid": format!("u-result-{n}"), "sessionId": id, "cwd": "/work/g",
            "timestamp": "2026-11-20T10:02:00.000Z", "version": "2.1.0",
            "message": {"role": "user", "content": [{"type": "tool_result",
                "tool_use_id": format!("toolu_{n}"), "content": "ok"}]}
        });
        lines.push(call.to_string());
        lines.push(result.to_string());
    }
    std::fs::write(proj.join(format!("{id}.jsonl")), lines.join("\n") + "\n").unwrap();
    for no_index in [false, true] {
        let mut args = vec!["graph", "--json", id];
        if no_index {
            args.insert(0, "--no-index");
        }
        let out = scry_bounded(h, &args);
        assert_eq!(out.code, 0, "{}", out.render());
        let v = out.json();
        assert_eq!(v["candidates"]["total"], 2, "{v}");
        assert_eq!(v["candidates"]["made_edges"], 1, "{v}");
        assert!(v.to_string().contains(&format!("claude:{KEPT}")), "{v}");
    }
}
