//! One typed query door (issue 18): the ledgers (`commands`, `files`, `errors`, `jobs`), `graph`,
//! `trace` and `context` answer alike through every front end, for every session of the demo
//! and of the real corpus home. For each session and operation: the CLI's `--json` equals the
//! HTTP body of a server that reveals session text; the MCP tool's result equals the body of a
//! server that redacts (both redact through the same function) — or, for the operations without
//! a route, the CLI's JSON when the MCP answer redacted nothing. A failing operation fails alike
//! everywhere, with the same closed error code.

use std::path::Path;

use serde_json::{json, Value};

use crate::http::{enc, Server};
use crate::mcp::{call, connect, runtime};
use crate::util::{all_uris, corpus, scry};

/// One operation on one session, as each front end asks it.
struct Case {
    /// What the CLI runs (after `--json`).
    cli: Vec<String>,
    /// The HTTP path, when the operation has a route.
    http: Option<String>,
    /// The MCP tool and its arguments, when the operation has a tool.
    mcp: Option<(&'static str, Value)>,
}

fn cases(uri: &str) -> Vec<Case> {
    let s = |v: &[&str]| -> Vec<String> { v.iter().map(|x| x.to_string()).collect() };
    let e = enc(uri);
    vec![
        Case {
            cli: s(&["commands", "--", uri]),
            http: Some(format!("/v1/sessions/{e}/commands")),
            mcp: Some(("commands", json!({"id": uri}))),
        },
        Case {
            cli: s(&["commands", "--failed", "--turn", "1", "--", uri]),
            http: Some(format!("/v1/sessions/{e}/commands?failed=true&turn=1")),
            mcp: Some(("commands", json!({"id": uri, "failed": true, "turn": 1}))),
        },
        Case {
            cli: s(&["files", "--", uri]),
            http: Some(format!("/v1/sessions/{e}/files")),
            mcp: Some(("files", json!({"id": uri}))),
        },
        Case {
            cli: s(&["files", "--group", "project", "--", uri]),
            http: Some(format!("/v1/sessions/{e}/files?group=project")),
            mcp: Some(("files", json!({"id": uri, "group": "project"}))),
        },
        Case {
            cli: s(&["errors", "--", uri]),
            http: Some(format!("/v1/sessions/{e}/errors")),
            mcp: Some(("errors", json!({"id": uri}))),
        },
        Case {
            cli: s(&["jobs", "--", uri]),
            http: Some(format!("/v1/sessions/{e}/jobs")),
            mcp: None,
        },
        Case {
            cli: s(&["graph", "--", uri]),
            http: Some(format!("/v1/graph/{e}")),
            mcp: Some(("graph", json!({"id": uri}))),
        },
        Case {
            cli: s(&["trace", "--", uri]),
            http: None,
            mcp: Some(("trace", json!({"id": uri}))),
        },
        Case {
            cli: s(&["context", "--", uri]),
            http: None,
            mcp: Some(("context", json!({"id": uri}))),
        },
    ]
}

/// What one home showed: comparisons made, per kind.
#[derive(Debug, Default)]
struct Tally {
    sessions: usize,
    cli_http: usize,
    mcp_http: usize,
    mcp_cli: usize,
    http_failures_alike: usize,
    mcp_failures_alike: usize,
    /// MCP answers not compared: cut by the budget, or redacted with no route to compare with.
    mcp_skipped: usize,
}

fn check_home(home: &Path, demo: bool) -> Tally {
    let flags: Vec<&str> = if demo { vec!["--demo"] } else { vec![] };
    let uris = all_uris(home, demo);
    assert!(!uris.is_empty(), "no sessions under {}", home.display());
    let mut reveal_args = flags.clone();
    reveal_args.push("--reveal");
    let reveal = Server::start(home, &reveal_args);
    let redacting = Server::start(home, &flags);
    let db = tempfile::tempdir().expect("tempdir");
    let mut t = Tally {
        sessions: uris.len(),
        ..Tally::default()
    };
    runtime().block_on(async {
        let c = connect(home, db.path(), demo).await;
        for uri in &uris {
            for case in cases(uri) {
                let mut argv: Vec<&str> = flags.clone();
                argv.push("--json");
                argv.extend(case.cli.iter().map(String::as_str));
                let out = scry(home, &argv);
                out.assert_no_panic();
                let cli = out.json();
                let what = format!("scry {}", argv.join(" "));
                let failed = out.code != 0;
                if failed {
                    assert!(
                        cli["error"]["code"].is_string(),
                        "{what}: exit {} without an error object: {}",
                        out.code,
                        out.render()
                    );
                }
                let mut redacted_body = None;
                if let Some(path) = &case.http {
                    let r = reveal.get(path);
                    if failed {
                        assert_eq!(r.code(), cli["error"]["code"], "{path} fails like {what}");
                        t.http_failures_alike += 1;
                    } else {
                        assert_eq!(r.status, 200, "{path}: {}", r.body);
                        assert_eq!(r.json(), cli, "{path} equals {what}");
                        t.cli_http += 1;
                        let r = redacting.get(path);
                        assert_eq!(r.status, 200, "{path} (redacted): {}", r.body);
                        redacted_body = Some(r.json());
                    }
                }
                let Some((tool, mut args)) = case.mcp else {
                    continue;
                };
                args["max_chars"] = json!(200_000);
                let (_, v, is_error) = call(&c, tool, args.clone()).await;
                if failed {
                    assert!(is_error, "{tool} {args} fails like {what}: {v}");
                    assert_eq!(v["error"]["code"], cli["error"]["code"], "{tool} {args}");
                    t.mcp_failures_alike += 1;
                    continue;
                }
                assert!(!is_error, "{tool} {args}: {v}");
                assert_eq!(v["session"], json!(uri), "{tool} cites the session");
                if v["page"]["truncated"] != json!(false) {
                    t.mcp_skipped += 1;
                } else if let Some(body) = &redacted_body {
                    assert_eq!(
                        v["result"], *body,
                        "{tool} {args} equals the redacted route"
                    );
                    t.mcp_http += 1;
                } else if v["redacted"] == json!(0) {
                    assert_eq!(v["result"], cli, "{tool} {args} equals {what}");
                    t.mcp_cli += 1;
                } else {
                    t.mcp_skipped += 1;
                }
            }
        }
        c.cancel().await.ok();
    });
    t
}

#[test]
fn every_fact_operation_answers_alike_through_cli_http_and_mcp() {
    let demo_home = tempfile::tempdir().expect("tempdir");
    let demo = check_home(demo_home.path(), true);
    let real = check_home(&corpus().join("real/home"), false);
    eprintln!("demo: {demo:?}\nreal: {real:?}");
    for (name, t) in [("demo", &demo), ("real", &real)] {
        // Every session compared on every routed operation (7 per session), and most MCP
        // answers compared whole.
        assert_eq!(
            t.cli_http + t.http_failures_alike,
            t.sessions * 7,
            "{name}: {t:?}"
        );
        assert!(t.mcp_http + t.mcp_cli > t.mcp_skipped * 4, "{name}: {t:?}");
    }
}

/// A bad request fails alike through every front end: an unknown session is
/// `SESSION_NOT_FOUND` (exit 3, HTTP 404, an MCP tool error), a bad value `INVALID_QUERY`
/// (exit 2, HTTP 400, an MCP tool error) naming the value.
#[test]
fn bad_requests_fail_alike_through_cli_http_and_mcp() {
    let home = tempfile::tempdir().expect("tempdir");
    let h = home.path();
    let srv = Server::start(h, &["--demo"]);
    let db = tempfile::tempdir().expect("tempdir");
    let demo = "claude:4f1c2a9e-7b3d-4c8e-9a21-5d6e7f809a1b";
    let missing = "nosuch-session-4471";

    for op in [
        "commands", "files", "errors", "jobs", "graph", "trace", "context",
    ] {
        let out = scry(h, &["--demo", "--json", op, "--", missing]);
        assert_eq!(out.code, 3, "{op}: {}", out.render());
        assert_eq!(out.json()["error"]["code"], json!("SESSION_NOT_FOUND"));
    }
    for path in [
        format!("/v1/sessions/{missing}/commands"),
        format!("/v1/sessions/{missing}/files"),
        format!("/v1/sessions/{missing}/errors"),
        format!("/v1/sessions/{missing}/jobs"),
        format!("/v1/graph/{missing}"),
    ] {
        let r = srv.get(&path);
        assert_eq!(
            (r.status, r.code().as_str()),
            (404, "SESSION_NOT_FOUND"),
            "{path}"
        );
    }
    let bad_group = srv.get(&format!("/v1/sessions/{demo}/files?group=bogus"));
    assert_eq!(bad_group.status, 400, "{}", bad_group.body);
    assert_eq!(bad_group.code(), "INVALID_QUERY");
    assert!(bad_group.body.contains("bogus"), "{}", bad_group.body);
    let bad_turn = srv.get(&format!("/v1/sessions/{demo}/commands?turn=abc"));
    assert_eq!(
        (bad_turn.status, bad_turn.code().as_str()),
        (400, "INVALID_QUERY")
    );
    assert!(bad_turn.body.contains("abc"), "{}", bad_turn.body);
    let out = scry(h, &["--demo", "--json", "files", "--group", "bogus", demo]);
    assert_eq!(out.code, 2, "{}", out.render());

    runtime().block_on(async {
        let c = connect(h, db.path(), true).await;
        for tool in ["commands", "files", "errors", "graph", "trace", "context"] {
            let (_, v, is_error) = call(&c, tool, json!({"id": missing})).await;
            assert!(is_error, "{tool}: {v}");
            assert_eq!(v["error"]["code"], json!("SESSION_NOT_FOUND"), "{tool}");
        }
        for (tool, args, named) in [
            ("files", json!({"id": demo, "group": "bogus"}), "bogus"),
            ("commands", json!({"id": demo, "turn": "abc"}), "abc"),
            ("commands", json!({"id": demo, "failed": "yes"}), "yes"),
            (
                "read",
                json!({"id": demo, "turns": "1", "event": "2"}),
                "exactly one",
            ),
            ("list_sessions", json!({"kind": "nested"}), "nested"),
            (
                "search",
                json!({"query": "x", "area": "nowhere"}),
                "nowhere",
            ),
        ] {
            let (_, v, is_error) = call(&c, tool, args.clone()).await;
            assert!(is_error, "{tool} {args}: {v}");
            assert_eq!(v["error"]["code"], json!("INVALID_QUERY"), "{tool} {args}");
            let msg = v["error"]["message"].as_str().unwrap_or_default();
            assert!(msg.contains(named), "{tool} {args}: {msg}");
        }
        c.cancel().await.ok();
    });
}
