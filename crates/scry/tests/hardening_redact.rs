//! Issue 15, defect 1: secrets must not leave through `scry serve`, `scry mcp` or
//! `scry web --redact` or `export --redact`, whatever the name of the field that holds them. A real-format Claude Code
//! session (the shape of the corpus' `real/home/.claude/projects` files) makes a tool call whose
//! arguments are named like identifier fields of scry's answers (`code`, `to`, `path`, `id`,
//! `cwd`, `model`, `index`) and hold provider keys; the prompt holds all-lower-case keys
//! (`sk-live-…`, DeepSeek's `sk-` + 32 hex). Every front end must drop every one of them,
//! mark them `[redacted:`, and keep the identifiers (uri, call id, plain paths, model) intact.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::{json, Value};

use crate::http::{enc, Server};
use crate::util::scry;

const SESSION: &str = "7a1e5c2d-3b4f-4a6e-8c9d-0e1f2a3b4c5d";
const CALL: &str = "toolu_01c8d48a73daa040d8a547e9";
const CWD: &str = "/home/dev/work/proj-keys";
const MODEL: &str = "claude-opus-5-5";

const OPENAI: &str = "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAb3dEf6hIj9k";
const GITHUB: &str = "ghp_aB3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6";
const AWS: &str = "AKIA2E0A8F3B244C9986";
const STRIPE: &str = "sk_live_51HxQ2mKx9Lr8Tb3Wq7Yz0Pn4";
const JWT: &str = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJkZXYtdXNlci0xIn0.c2lnbmF0dXJlLXBhcnQtOTk4";
const LOWER: &str = "sk-live-abc123def456ghi789jkl";
const DEEPSEEK: &str = "sk-0f9e8d7c6b5a49382716a5b4c3d2e1f0";

/// Every planted secret.
const SECRETS: [&str; 7] = [OPENAI, GITHUB, AWS, STRIPE, JWT, LOWER, DEEPSEEK];

/// One line of a Claude Code 2.x session, as the real program writes it.
fn line(kind: &str, uuid: &str, parent: Option<&str>, ts: &str, message: Value) -> String {
    json!({
        "parentUuid": parent, "isSidechain": false, "type": kind, "message": message,
        "uuid": uuid, "timestamp": ts, "userType": "external", "entrypoint": "sdk-cli",
        "cwd": CWD, "sessionId": SESSION, "version": "2.1.332", "gitBranch": "master",
    })
    .to_string()
}

/// Writes the session under `home`; returns nothing (found by discovery).
fn write_session(home: &Path) {
    let dir = home.join(".claude/projects/-home-dev-work-proj-keys");
    std::fs::create_dir_all(&dir).unwrap();
    let u = |n: u32| format!("0c6e7d8f-1a2b-4c3d-9e8f-{n:012}");
    let usage = json!({"input_tokens": 638, "output_tokens": 114});
    let lines = [
        line(
            "user",
            &u(1),
            None,
            "2026-11-30T14:52:28.182Z",
            json!({"role": "user", "content": format!(
                "Configure the client. staging key is {LOWER} and the deepseek one is {DEEPSEEK}."
            )}),
        ),
        line(
            "assistant",
            &u(2),
            Some(&u(1)),
            "2026-11-30T14:52:28.324Z",
            json!({
                "id": "msg_01b0927d7dc0ef4da4a55470", "type": "message", "role": "assistant",
                "model": MODEL, "stop_reason": "tool_use", "usage": usage,
                "content": [{"type": "tool_use", "id": CALL, "name": "Write", "input": {
                    "code": format!("import openai\nopenai.api_key='{OPENAI}'\n"),
                    "to": GITHUB,
                    "path": format!("{CWD}/config/{AWS}.json"),
                    "id": STRIPE,
                    "cwd": CWD,
                    "model": MODEL,
                    "index": format!("Bearer {JWT}"),
                }}],
            }),
        ),
        line(
            "user",
            &u(3),
            Some(&u(2)),
            "2026-11-30T14:52:28.401Z",
            json!({"role": "user", "content": [{
                "tool_use_id": CALL, "type": "tool_result", "is_error": false,
                "content": format!("wrote {CWD}/config/settings.json (token {DEEPSEEK})"),
            }]}),
        ),
        line(
            "assistant",
            &u(4),
            Some(&u(3)),
            "2026-11-30T14:52:29.010Z",
            json!({
                "id": "msg_01b0927d7dc0ef4da4a55471", "type": "message", "role": "assistant",
                "model": MODEL, "stop_reason": "end_turn", "usage": usage,
                "content": [{"type": "text", "text": "Done: the client is configured."}],
            }),
        ),
    ];
    std::fs::write(
        dir.join(format!("{SESSION}.jsonl")),
        lines.join("\n") + "\n",
    )
    .unwrap();
}

/// `text` holds no planted secret, holds a redaction marker, and keeps the identifiers.
fn assert_redacted(what: &str, text: &str) {
    for s in SECRETS {
        assert!(!text.contains(s), "{what} leaks {s}:\n{text}");
    }
    assert!(text.contains("[redacted:"), "{what}: no marker:\n{text}");
    assert!(
        text.contains(&format!("claude:{SESSION}")) || text.contains(SESSION),
        "{what}: session id changed:\n{text}"
    );
}

/// The tool call's arguments in an answer: the first object with a `code` argument.
fn args_of(v: &Value) -> Option<&Value> {
    match v {
        Value::Object(m) => {
            if m.get("args").and_then(|a| a.get("code")).is_some() {
                return m.get("args");
            }
            m.values().find_map(args_of)
        }
        Value::Array(a) => a.iter().find_map(args_of),
        _ => None,
    }
}

/// Identifier arguments stay, secret arguments go, by field.
fn assert_args(what: &str, v: &Value) {
    let a = args_of(v).unwrap_or_else(|| panic!("{what}: no tool arguments in {v}"));
    assert_eq!(a["cwd"], CWD, "{what}: {a}");
    assert_eq!(a["model"], MODEL, "{what}: {a}");
    assert_eq!(
        a["path"],
        format!("{CWD}/config/[redacted:aws_access_key_id].json"),
        "{what}: {a}"
    );
    assert_eq!(a["to"], "[redacted:github_token]", "{what}: {a}");
    assert_eq!(a["id"], "[redacted:stripe_key]", "{what}: {a}");
    assert!(
        a["code"]
            .as_str()
            .is_some_and(|c| c.contains("openai.api_key='[redacted:openai_key]'")),
        "{what}: {a}"
    );
}

#[test]
fn serve_redacts_every_string_of_a_tool_call() {
    let home = tempfile::tempdir().unwrap();
    write_session(home.path());
    let srv = Server::start(home.path(), &[]);
    let r = srv.get(&format!(
        "/v1/sessions/{SESSION}/content?call={}",
        enc(CALL)
    ));
    assert_eq!(r.status, 200, "{}", r.body);
    assert_redacted("GET content?call", &r.body);
    assert!(r.body.contains(CALL), "call id changed: {}", r.body);
    assert_args("GET content?call", &r.json());
    // The raw lines and the whole turn, too.
    for q in [
        format!("call={}&raw=true", enc(CALL)),
        "turns=1".to_string(),
    ] {
        let r = srv.get(&format!("/v1/sessions/{SESSION}/content?{q}"));
        assert_eq!(r.status, 200, "{q}: {}", r.body);
        assert_redacted(&format!("GET content?{q}"), &r.body);
    }
    let r = srv.get(&format!("/v1/search?q={}&scope=global", enc("staging key")));
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(r.body.contains(SESSION), "search found nothing: {}", r.body);
    for s in SECRETS {
        assert!(!r.body.contains(s), "search leaks {s}: {}", r.body);
    }
}

#[test]
fn mcp_read_redacts_every_string_of_a_tool_call() {
    use rmcp::model::CallToolRequestParams;
    use rmcp::transport::TokioChildProcess;
    use rmcp::ServiceExt;

    let home = tempfile::tempdir().unwrap();
    let db = tempfile::tempdir().unwrap();
    let h = home.path();
    write_session(h);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_scry"));
        cmd.env_clear()
            .env("HOME", h)
            .env("TZ", "UTC")
            .env("SCRY_DB", db.path().join("index.db"))
            .current_dir(h)
            .arg("mcp");
        let (transport, _) = TokioChildProcess::builder(cmd)
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("spawn scry mcp");
        let c = ().serve(transport).await.expect("initialize");
        for args in [
            json!({"id": SESSION, "call": CALL}),
            json!({"id": SESSION, "turns": "1"}),
        ] {
            let map = args.as_object().cloned().unwrap_or_default();
            let r = c
                .call_tool(CallToolRequestParams::new("read".to_string()).with_arguments(map))
                .await
                .expect("read");
            assert_ne!(r.is_error, Some(true), "{r:?}");
            let text = r
                .content
                .first()
                .and_then(|b| b.as_text())
                .map(|t| t.text.clone())
                .unwrap_or_default();
            assert_redacted(&format!("MCP read {args}"), &text);
            let v: Value = serde_json::from_str(&text).expect("JSON answer");
            assert!(v["redacted"].as_u64().unwrap_or(0) >= 5, "{v}");
            if args.get("call").is_some() {
                assert!(text.contains(CALL), "call id changed: {text}");
                assert_args("MCP read call", &v);
            }
        }
        c.cancel().await.ok();
    });
}

#[test]
fn export_redact_drops_lower_case_and_argument_keys() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    write_session(h);
    for format in ["md", "json", "html"] {
        let out = scry(h, &["export", SESSION, "--format", format, "--redact"]);
        assert_eq!(out.code, 0, "{}", out.render());
        assert_redacted(&format!("export --format {format}"), &out.stdout);
        assert!(out.stdout.contains(CWD), "{format}: path changed");
        if format == "json" {
            let v = out.json();
            assert_eq!(v["session"]["uri"], format!("claude:{SESSION}"));
            assert_args("export json", &v);
            assert!(v["redactions"].as_u64().unwrap_or(0) >= 8, "{v}");
        }
    }
    // Without --redact the document is the session as written (the test plants real text).
    let out = scry(h, &["export", SESSION, "--format", "json"]);
    assert!(out.stdout.contains(DEEPSEEK) && out.stdout.contains(OPENAI));
}

#[test]
fn web_redact_redacts_every_string_of_a_tool_call() {
    let home = tempfile::tempdir().unwrap();
    let db = tempfile::tempdir().unwrap();
    write_session(home.path());
    let mut child = Command::new(env!("CARGO_BIN_EXE_scry"))
        .env_clear()
        .env("HOME", home.path())
        .env("TZ", "UTC")
        .env("SCRY_DB", db.path().join("index.db"))
        .current_dir(home.path())
        .args(["web", "--port", "0", "--redact"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start scry web");
    let addr = crate::util::announced_addr(&mut child);
    let path = format!("/v1/sessions/{SESSION}/content?call={}", enc(CALL));
    let (status, head, body) = crate::util::http_get(&addr, &path, Duration::from_secs(120));
    let _ = child.kill();
    let _ = child.wait();
    assert_eq!(
        status, 200,
        "no answer from scry web at {addr}: {head}\n{body}"
    );
    let body = body.as_str();
    assert_redacted("web --redact content?call", body);
    let v: Value = serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {body}"));
    assert_args("web --redact content?call", &v);
}
