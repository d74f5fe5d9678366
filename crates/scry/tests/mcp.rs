//! `scry mcp` driven by a real MCP client — the official Rust SDK's (`rmcp`) client over a
//! child process: initialize, tools/list, a call of every tool on the demo corpus (each answer
//! equal to the CLI's `--json` and within its budget), paging with cursors until the CLI's
//! full list is seen, a stale cursor refused, errors with the closed codes, and redaction of
//! secrets planted in a session.

use std::path::Path;

use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::RunningService;
use rmcp::transport::TokioChildProcess;
use rmcp::{RoleClient, ServiceExt};
use serde_json::{json, Map, Value};

use crate::util::{claude_line, scry};

/// The demo session most tests read (Claude, three turns, a failing command).
const DEMO: &str = "claude:4f1c2a9e-7b3d-4c8e-9a21-5d6e7f809a1b";

pub type Client = RunningService<RoleClient, ()>;

/// Starts `scry [--demo] mcp` hermetically (empty environment, HOME pinned, own index).
pub async fn connect(home: &Path, db: &Path, demo: bool) -> Client {
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_scry"));
    cmd.env_clear()
        .env("HOME", home)
        .env("TZ", "UTC")
        .env("SCRY_DB", db.join("index.db"))
        .current_dir(home);
    if demo {
        cmd.arg("--demo");
    }
    cmd.arg("mcp");
    let (transport, _stderr) = TokioChildProcess::builder(cmd)
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("spawn scry mcp");
    ().serve(transport).await.expect("MCP initialize")
}

/// Calls `tool` with `args`; returns (text length, parsed answer, is_error).
pub async fn call(c: &Client, tool: &str, args: Value) -> (usize, Value, bool) {
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
        .unwrap_or_else(|| panic!("{tool}: no text content"));
    let v: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{tool}: {e}: {text}"));
    assert_eq!(
        r.structured_content.as_ref(),
        Some(&v),
        "{tool}: structured content equals the text"
    );
    (text.chars().count(), v, r.is_error == Some(true))
}

/// The CLI's `--json` answer on the demo corpus.
fn cli(home: &Path, args: &[&str]) -> Value {
    let mut a = vec!["--demo", "--json"];
    a.extend_from_slice(args);
    let out = scry(home, &a);
    assert_eq!(out.code, 0, "{}", out.render());
    out.json()
}

pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime")
}

#[test]
fn mcp_initialize_list_and_every_tool_on_the_demo() {
    let home = tempfile::tempdir().unwrap();
    let db = tempfile::tempdir().unwrap();
    let h = home.path();
    runtime().block_on(async {
        let c = connect(h, db.path(), true).await;
        let info = c.peer_info().expect("server info after initialize");
        assert_eq!(
            info.server_info.as_ref().map(|s| s.name.as_str()),
            Some("scry")
        );
        assert!(info.capabilities.tools.is_some());
        assert!(info
            .instructions
            .as_deref()
            .unwrap_or("")
            .contains("cursor"));

        let tools = c.list_all_tools().await.expect("tools/list");
        let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
        assert_eq!(
            names,
            [
                "list_sessions",
                "show_session",
                "turns",
                "read",
                "search",
                "commands",
                "files",
                "errors",
                "trace",
                "graph",
                "context",
                "usage"
            ]
        );
        for t in &tools {
            let d = t.description.as_deref().unwrap_or("");
            assert!(d.contains("Use") && d.len() > 60, "{}: {d}", t.name);
            let props = t.input_schema.get("properties").expect("properties");
            assert!(props.get("max_chars").is_some() && props.get("cursor").is_some());
            let a = t.annotations.as_ref().expect("annotations");
            assert_eq!(a.read_only_hint, Some(true), "{}", t.name);
        }

        // Every tool, with a budget that holds the whole demo answer: the answer is the CLI's
        // JSON, cites the session uri, and says nothing was cut.
        let big = 200_000;
        let cases: Vec<(&str, Value, Vec<&str>)> = vec![
            (
                "list_sessions",
                json!({"scope": "global", "limit": 100}),
                vec!["list", "--scope", "global", "--limit", "100"],
            ),
            ("show_session", json!({"id": DEMO}), vec!["show", DEMO]),
            ("turns", json!({"id": DEMO}), vec!["turns", DEMO]),
            (
                "read",
                json!({"id": DEMO, "turns": "1"}),
                vec!["turn", DEMO, "1", "--max-chars", "120000"],
            ),
            (
                "read",
                json!({"id": DEMO, "event": "9-10"}),
                vec!["turn", DEMO, "--event", "9-10", "--max-chars", "120000"],
            ),
            (
                "read",
                json!({"id": DEMO, "call": "toolu_demo_w04"}),
                vec![
                    "turn",
                    DEMO,
                    "--call",
                    "toolu_demo_w04",
                    "--max-chars",
                    "120000",
                ],
            ),
            (
                "read",
                json!({"id": DEMO, "locator": "id:4f1c0001-d3e0-4a11-9c5e-000000000001#0"}),
                vec![
                    "turn",
                    DEMO,
                    "--locator",
                    "id:4f1c0001-d3e0-4a11-9c5e-000000000001#0",
                    "--max-chars",
                    "120000",
                ],
            ),
            (
                "search",
                json!({"query": "password"}),
                vec!["search", "password"],
            ),
            (
                "search",
                json!({"query": "npm test", "session": DEMO, "area": "tools"}),
                vec!["search", "npm test", "--session", DEMO, "--area", "tools"],
            ),
            (
                "commands",
                json!({"id": DEMO, "failed": true}),
                vec!["commands", DEMO, "--failed"],
            ),
            ("files", json!({"id": DEMO}), vec!["files", DEMO]),
            ("errors", json!({"id": DEMO}), vec!["errors", DEMO]),
            ("trace", json!({"id": DEMO}), vec!["trace", DEMO]),
            ("graph", json!({"id": DEMO}), vec!["graph", DEMO]),
            ("context", json!({"id": DEMO}), vec!["context", DEMO]),
        ];
        for (tool, mut args, cli_args) in cases {
            args["max_chars"] = json!(big);
            let (n, v, err) = call(&c, tool, args.clone()).await;
            assert!(!err, "{tool} {args}: {v}");
            assert!(n <= big);
            assert_eq!(v["tool"], json!(tool));
            assert_eq!(v["redacted"], json!(0), "the demo holds no secrets");
            assert_eq!(
                v["page"]["truncated"],
                json!(false),
                "{tool}: {}",
                v["page"]
            );
            let expected = cli(h, &cli_args);
            assert_eq!(
                v["result"], expected,
                "{tool} {args} equals scry {cli_args:?} --json"
            );
            if tool != "list_sessions" && !(tool == "search" && args.get("session").is_none()) {
                assert_eq!(v["session"], json!(DEMO), "{tool} cites the session");
            }
        }
        // Facts carry their citation: every read event has a locator, every search hit a uri.
        let (_, v, _) = call(&c, "read", json!({"id": DEMO, "turns": "1"})).await;
        for e in v["result"]["turns"][0]["events"]
            .as_array()
            .expect("events")
        {
            assert!(e["locator"].as_str().is_some_and(|l| !l.is_empty()), "{e}");
        }
        let (_, v, _) = call(&c, "search", json!({"query": "password"})).await;
        for s in v["result"]["sessions"].as_array().expect("sessions") {
            for hit in s["hits"].as_array().expect("hits") {
                assert!(hit["uri"].as_str().is_some(), "{hit}");
            }
        }
        c.cancel().await.ok();
    });
}

/// Pages `tool` with a small budget until no cursor is left; returns every item of its list.
async fn page_all(c: &Client, tool: &str, args: Value, budget: usize) -> (Vec<Value>, usize) {
    let mut items = Vec::new();
    let mut cursor: Option<String> = None;
    let mut pages = 0;
    loop {
        let mut a = args.clone();
        a["max_chars"] = json!(budget);
        if let Some(cur) = &cursor {
            a["cursor"] = json!(cur);
        }
        let (n, v, err) = call(c, tool, a).await;
        assert!(!err, "{v}");
        assert!(n <= budget, "{tool}: {n} characters > budget {budget}");
        pages += 1;
        let list = v["page"]["list"]
            .as_str()
            .expect("a paged list")
            .to_string();
        items.extend(v["result"][&list].as_array().cloned().unwrap_or_default());
        match v["page"]["next_cursor"].as_str() {
            Some(next) => cursor = Some(next.to_string()),
            None => break,
        }
        assert!(pages < 100, "paging does not end");
    }
    (items, pages)
}

#[test]
fn mcp_budgets_and_cursors() {
    let home = tempfile::tempdir().unwrap();
    let db = tempfile::tempdir().unwrap();
    let h = home.path();
    runtime().block_on(async {
        let c = connect(h, db.path(), true).await;
        // 13 demo sessions do not fit 3000 characters: several pages, together the CLI's list.
        let (items, pages) = page_all(
            &c,
            "list_sessions",
            json!({"scope": "global", "limit": 100}),
            3_000,
        )
        .await;
        let expected = cli(h, &["list", "--scope", "global", "--limit", "100"]);
        assert!(pages > 2, "{pages} pages");
        // Same sessions in the same order (`persisted` may differ: each side has its own index).
        let uris = |a: &[Value]| a.iter().map(|s| s["uri"].clone()).collect::<Vec<_>>();
        assert_eq!(
            uris(&items),
            uris(expected["sessions"].as_array().expect("sessions"))
        );

        let (items, pages) = page_all(&c, "turns", json!({"id": DEMO}), 2_000).await;
        let expected = cli(h, &["turns", DEMO]);
        assert!(pages >= 2, "{pages} pages");
        let numbers: Vec<&Value> = items.iter().map(|t| &t["number"]).collect();
        let want: Vec<&Value> = expected["turns"]
            .as_array()
            .expect("turns")
            .iter()
            .map(|t| &t["number"])
            .collect();
        assert_eq!(numbers, want);

        // A cursor whose fingerprint does not match the result is refused.
        let (_, first, _) = call(&c, "turns", json!({"id": DEMO, "max_chars": 2000})).await;
        let cur = first["page"]["next_cursor"]
            .as_str()
            .expect("cursor")
            .to_string();
        let (off, _) = cur.rsplit_once('.').expect("g.<offset>.<fp>");
        let stale = format!("{off}.0000000000000001");
        let (_, v, err) = call(&c, "turns", json!({"id": DEMO, "cursor": stale})).await;
        assert!(err);
        assert_eq!(v["error"]["code"], json!("INVALID_CURSOR"));
        let (_, v, err) = call(&c, "turns", json!({"id": DEMO, "cursor": "nonsense"})).await;
        assert!(err);
        assert_eq!(v["error"]["code"], json!("INVALID_CURSOR"));

        // read pages itself (the CLI's cursor, wrapped): a small budget on the longest turn
        // gives several pages, each within budget, and the pages end.
        let mut cursor: Option<String> = None;
        let mut pages = 0;
        loop {
            let mut a = json!({"id": DEMO, "turns": "1-3", "max_chars": 2000});
            if let Some(cur) = &cursor {
                a["cursor"] = json!(cur);
            }
            let (n, v, err) = call(&c, "read", a).await;
            assert!(!err, "{v}");
            assert!(n <= 2000, "{n}");
            pages += 1;
            match v["page"]["next_cursor"].as_str() {
                Some(next) => {
                    assert!(next.starts_with("n."), "{next}");
                    cursor = Some(next.to_string());
                }
                None => break,
            }
            assert!(pages < 50);
        }
        assert!(pages >= 2, "turns 1-3 in 2000-character pages: {pages}");
        c.cancel().await.ok();
    });
}

#[test]
fn mcp_errors_use_the_closed_codes() {
    let home = tempfile::tempdir().unwrap();
    let db = tempfile::tempdir().unwrap();
    runtime().block_on(async {
        let c = connect(home.path(), db.path(), true).await;
        for (tool, args, code) in [
            (
                "show_session",
                json!({"id": "claude:does-not-exist"}),
                "SESSION_NOT_FOUND",
            ),
            (
                "turns",
                json!({"id": DEMO, "max_chars": 10}),
                "INVALID_PAGE_SIZE",
            ),
            ("read", json!({"id": DEMO}), "INVALID_QUERY"),
            ("read", json!({"id": DEMO, "turns": "99"}), "INVALID_WINDOW"),
            (
                "search",
                json!({"query": "(", "regex": true}),
                "INVALID_QUERY",
            ),
            ("files", json!({"id": DEMO, "bogus": 1}), "INVALID_QUERY"),
            ("no_such_tool", json!({}), "INVALID_QUERY"),
        ] {
            let (_, v, err) = call(&c, tool, args.clone()).await;
            assert!(err, "{tool} {args}: {v}");
            assert_eq!(v["error"]["code"], json!(code), "{tool} {args}: {v}");
            assert!(v["error"]["message"]
                .as_str()
                .is_some_and(|m| !m.is_empty()));
        }
        c.cancel().await.ok();
    });
}

#[test]
fn mcp_redacts_planted_secrets() {
    let home = tempfile::tempdir().unwrap();
    let db = tempfile::tempdir().unwrap();
    let h = home.path();
    let dir = h.join(".claude/projects/-work-app");
    std::fs::create_dir_all(&dir).unwrap();
    let id = "5ec0e7aa-1111-4222-8333-944455556666";
    let secrets = crate::export::SECRETS;
    let mut body = String::new();
    body.push_str(&claude_line(
        "user",
        id,
        0,
        "/work/app",
        &format!("deploy with key {}", secrets[0]),
    ));
    body.push('\n');
    body.push_str(&claude_line(
        "assistant",
        id,
        1,
        "/work/app",
        &format!("Using token {} now", secrets[1]),
    ));
    body.push('\n');
    std::fs::write(dir.join(format!("{id}.jsonl")), body).unwrap();
    runtime().block_on(async {
        let c = connect(h, db.path(), false).await;
        for (tool, args) in [
            ("read", json!({"id": id, "turns": "1"})),
            ("turns", json!({"id": id})),
            ("search", json!({"query": "deploy", "scope": "global"})),
        ] {
            let (_, v, err) = call(&c, tool, args).await;
            assert!(!err, "{v}");
            let text = v.to_string();
            for s in secrets {
                assert!(!text.contains(s), "{tool} leaks {s}: {text}");
            }
            assert!(text.contains("[redacted:"), "{tool}: {text}");
            assert!(v["redacted"].as_u64().unwrap_or(0) >= 1);
        }
        c.cancel().await.ok();
    });
}
