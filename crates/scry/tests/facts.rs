//! The fact commands (`commands`, `files`, `errors`, `jobs`, `digest`, `workspace`, `graph`,
//! `trace`, `context`): on every demo session and every session of the real corpus home (no
//! panic, exit 0, the counts of the ledgers agree with each other), the figures of the real
//! Claude and Codex sessions (written down from the raw files in
//! crates/scry-facts/tests/corpus/real.rs), lineage and reference edges, and the error cases.

use std::path::Path;

use serde_json::Value;

use crate::util::{all_uris, corpus, redact, scry};

fn real_home() -> std::path::PathBuf {
    corpus().join("real/home")
}

/// `scry <args> --json` (with `--demo` when `demo`), exit 0, parsed.
fn json(home: &Path, demo: bool, args: &[&str]) -> Value {
    let mut a: Vec<&str> = args.to_vec();
    a.push("--json");
    if demo {
        a.push("--demo");
    }
    let out = scry(home, &a);
    out.assert_no_panic();
    assert_eq!(out.code, 0, "scry {}:\n{}", a.join(" "), out.render());
    out.json()
}

fn len(v: &Value) -> usize {
    v.as_array().map_or(usize::MAX, Vec::len)
}

/// Every fact command on one session: exit 0, and the numbers agree — `files --group all`
/// rows == the write-event count == the digest's and `show`'s write events == `show --json`
/// `facts.writes` == the sum of `turns` per-turn writes; project + runtime + log add up (files
/// and writes); the errors / commands / jobs ledgers == the counts of `show` and `digest`;
/// every row carries provenance, extractor and an evidence handle.
fn check_session(home: &Path, demo: bool, uri: &str) {
    let files = json(home, demo, &["files", uri, "--group", "all"]);
    let writes = len(&files["writes"]);
    let counts = &files["counts"];
    assert_eq!(counts["write_events"]["total"], writes, "{uri}");
    for c in [&counts["write_events"], &counts["files"]] {
        let sum = c["project"].as_u64().unwrap_or(0)
            + c["runtime"].as_u64().unwrap_or(0)
            + c["log"].as_u64().unwrap_or(0);
        assert_eq!(c["total"].as_u64(), Some(sum), "{uri}");
    }
    assert_eq!(counts["files"]["total"], len(&files["files"]), "{uri}");
    let mut by_group = 0;
    for g in ["project", "runtime", "log"] {
        let one = json(home, demo, &["files", uri, "--group", g]);
        assert_eq!(
            one["counts"]["write_events"][g],
            len(&one["writes"]),
            "{uri} {g}"
        );
        by_group += len(&one["writes"]);
    }
    assert_eq!(by_group, writes, "{uri}");
    let commands = json(home, demo, &["commands", uri]);
    let failed = json(home, demo, &["commands", uri, "--failed"]);
    assert_eq!(
        commands["total"]["failed"],
        len(&failed["commands"]),
        "{uri}"
    );
    let errors = json(home, demo, &["errors", uri]);
    let jobs = json(home, demo, &["jobs", uri]);
    let digest = json(home, demo, &["digest", uri, "--focus", "full"]);
    let d = &digest["digest"];
    assert_eq!(d["files_changed"]["write_events"], writes, "{uri}");
    assert_eq!(
        d["files_changed"]["files_changed"],
        len(&files["files"]),
        "{uri}"
    );
    assert_eq!(d["failures"], len(&errors["failures"]), "{uri}");
    assert_eq!(d["commands"], len(&commands["commands"]), "{uri}");
    assert_eq!(d["commands_failed"], len(&failed["commands"]), "{uri}");
    assert_eq!(d["final"]["jobs"]["total"], len(&jobs["jobs"]), "{uri}");
    for row in [
        &files["writes"],
        &commands["commands"],
        &errors["failures"],
        &jobs["jobs"],
    ]
    .into_iter()
    .flat_map(|a| a.as_array().cloned().unwrap_or_default())
    {
        assert!(row["provenance"].is_string(), "{uri}: {row}");
        assert!(row["extractor"].is_string(), "{uri}: {row}");
        assert!(
            row["evidence"]["handle"]
                .as_str()
                .is_some_and(|h| h.starts_with('E')),
            "{uri}: {row}"
        );
    }
    let show = json(home, demo, &["show", uri]);
    let card = &show["facts"];
    assert_eq!(card["files"]["write_events"], writes, "{uri}");
    assert_eq!(len(&card["writes"]), writes, "{uri}");
    assert_eq!(card["writes"], files["writes"], "{uri}");
    assert_eq!(
        card["files"]["files_changed"],
        len(&files["files"]),
        "{uri}"
    );
    assert_eq!(
        card["files"]["events_by_group"], counts["write_events"],
        "{uri}"
    );
    assert_eq!(card["files"]["files_by_group"], counts["files"], "{uri}");
    assert_eq!(card["failures"], len(&errors["failures"]), "{uri}");
    assert_eq!(card["commands"], len(&commands["commands"]), "{uri}");
    assert_eq!(card["commands_failed"], len(&failed["commands"]), "{uri}");
    assert_eq!(card["jobs"]["total"], len(&jobs["jobs"]), "{uri}");
    let turns = json(home, demo, &["turns", uri]);
    let per_turn: u64 = turns["turns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["file_writes"].as_u64().unwrap_or(0))
        .sum();
    assert_eq!(per_turn as usize, writes, "{uri}");
    for t in turns["turns"].as_array().unwrap() {
        for m in t["status"].as_array().cloned().unwrap_or_default() {
            assert!(m["state"].is_string(), "{uri}: {m}");
            assert!(m["evidence"].is_array(), "{uri}: {m}");
        }
    }
    let ctx = json(home, demo, &["context", uri, "--max-chars", "2000"]);
    assert!(
        ctx["context"]["chars"].as_u64().is_some_and(|c| c <= 2000),
        "{uri}"
    );
    let trace = json(home, demo, &["trace", uri]);
    let t = &trace["trace"];
    assert!(
        t["root"].is_string() != t["unresolved_parent"].is_string(),
        "{uri}: {t}"
    );
    json(home, demo, &["graph", uri]);
    for cmd in [
        "commands", "files", "errors", "jobs", "digest", "graph", "trace", "context",
    ] {
        let mut a = vec![cmd, uri];
        if demo {
            a.push("--demo");
        }
        let out = scry(home, &a);
        out.assert_no_panic();
        assert_eq!(out.code, 0, "scry {}:\n{}", a.join(" "), out.render());
    }
}

#[test]
fn every_demo_session_agrees() {
    let home = tempfile::tempdir().unwrap();
    let uris = all_uris(home.path(), true);
    assert!(uris.len() >= 10, "{uris:?}");
    for uri in uris {
        check_session(home.path(), true, &uri);
    }
}

#[test]
fn every_real_session_agrees() {
    let home = real_home();
    let uris = all_uris(&home, false);
    assert!(uris.len() >= 10, "{uris:?}");
    for uri in uris {
        check_session(&home, false, &uri);
    }
}

fn commands_of(v: &Value) -> Vec<(String, String, Option<i64>)> {
    v["commands"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["command"].as_str().unwrap().to_string(),
                c["outcome"].as_str().unwrap().to_string(),
                c["exit_code"].as_i64(),
            )
        })
        .collect()
}

fn s(a: &str, b: &str, c: Option<i64>) -> (String, String, Option<i64>) {
    (a.to_string(), b.to_string(), c)
}

/// claude 029942d1…: Bash `ls -la`, `cat missing.txt`, `echo planning`, `false` with
/// `is_error` false, true, false, true and no exit code (scry-facts corpus/real.rs, from the
/// raw lines 22/25, 49/50, 109/113, 116/117); Write and Edit of notes.txt; one background
/// Agent job completed by its `<task-notification>`.
#[test]
fn real_claude_ledgers() {
    let h = real_home();
    let id = "claude:029942d1-8e5d-4155-96e8-b9fe03dadf8d";
    let c = json(&h, false, &["commands", id]);
    assert_eq!(
        commands_of(&c),
        vec![
            s("ls -la", "succeeded", None),
            s("cat missing.txt", "failed", None),
            s("echo planning", "succeeded", None),
            s("false", "failed", None),
        ]
    );
    let f = json(&h, false, &["commands", id, "--failed"]);
    assert_eq!(
        commands_of(&f),
        vec![
            s("cat missing.txt", "failed", None),
            s("false", "failed", None)
        ]
    );
    let t2 = json(&h, false, &["commands", id, "--turn", "2"]);
    assert!(t2["commands"]
        .as_array()
        .unwrap()
        .iter()
        .all(|r| r["turn"] == 2));
    let none = json(&h, false, &["commands", id, "--host", "elsewhere"]);
    assert_eq!(len(&none["commands"]), 0);
    let e = json(&h, false, &["errors", id]);
    let errs: Vec<&str> = e["failures"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["command"].as_str().unwrap())
        .collect();
    assert_eq!(errs, vec!["cat missing.txt", "false"]);
    assert_eq!(e["total"]["fixed_later"], 0);
    let w = json(&h, false, &["files", id]);
    let rows: Vec<(&str, &str, &str, &str)> = w["writes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| {
            (
                x["display"].as_str().unwrap(),
                x["op"].as_str().unwrap(),
                x["group"].as_str().unwrap(),
                x["extractor"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        rows,
        vec![
            ("notes.txt", "write", "project", "tool:Write"),
            ("notes.txt", "edit", "project", "tool:Edit"),
        ]
    );
    let j = json(&h, false, &["jobs", id]);
    assert_eq!(len(&j["jobs"]), 1);
    assert_eq!(j["jobs"][0]["id"], "a9975201ec1be8441");
    assert_eq!(j["jobs"][0]["status"], "completed");
    let text = scry(&h, &["commands", id]);
    assert!(
        text.stdout.contains("4 commands, 2 failed"),
        "{}",
        text.stdout
    );
}

/// codex rollout …805d…: `exec_command` outputs say exit 0, 0, 1, 0, 1 (raw lines 17, 37, 49,
/// 64, 69); apply_patch adds then updates notes.txt (lines 19, 41).
#[test]
fn real_codex_ledgers() {
    let h = real_home();
    let id = "codex:01a22cf1-805d-7161-bbbc-a2414caa5633";
    let c = json(&h, false, &["commands", id]);
    assert_eq!(
        commands_of(&c),
        vec![
            s("ls -la", "succeeded", Some(0)),
            s("cat notes.txt", "succeeded", Some(0)),
            s("cat missing.txt", "failed", Some(1)),
            s("echo planning", "succeeded", Some(0)),
            s("false", "failed", Some(1)),
        ]
    );
    let e = json(&h, false, &["errors", id]);
    let errs: Vec<(&str, i64)> = e["failures"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| {
            (
                x["command"].as_str().unwrap(),
                x["exit_code"].as_i64().unwrap(),
            )
        })
        .collect();
    assert_eq!(errs, vec![("cat missing.txt", 1), ("false", 1)]);
    let w = json(&h, false, &["files", id, "--group", "project"]);
    let ops: Vec<&str> = w["writes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["op"].as_str().unwrap())
        .collect();
    assert_eq!(ops, vec!["create", "edit"]);
    assert!(w["writes"][0]["path"]
        .as_str()
        .unwrap()
        .ends_with("/proj-codex/notes.txt"));
    assert_eq!(len(&json(&h, false, &["jobs", id])["jobs"]), 0);
    let text = scry(&h, &["errors", id]);
    assert!(
        text.stdout.contains("2 failures, 0 fixed later"),
        "{}",
        text.stdout
    );
}

/// Lineage of the real subagents: the Claude subagent a9975201… and the Codex subagent
/// …892d… (session_meta parent_thread_id …88a4…) each have their parent as ancestor and root;
/// the parents list them as descendants. The Codex subagent's graph has the `subagent_of`
/// edge named by its header field.
#[test]
fn real_lineage_and_graph() {
    let h = real_home();
    let t = json(&h, false, &["trace", "claude:a9975201ec1be8441"]);
    let parent = "claude:029942d1-8e5d-4155-96e8-b9fe03dadf8d";
    assert_eq!(t["trace"]["ancestors"], serde_json::json!([parent]));
    assert_eq!(t["trace"]["root"], parent);
    let p = json(&h, false, &["trace", parent]);
    assert_eq!(p["trace"]["root"], parent);
    assert_eq!(
        p["trace"]["descendants"][0]["uri"],
        "claude:a9975201ec1be8441"
    );
    let child = "codex:01a22cf1-892d-7182-af0e-31b8d4237fb3";
    let cparent = "codex:01a22cf1-88a4-7de1-a508-335da749c9f9";
    let t = json(&h, false, &["trace", child]);
    assert_eq!(t["trace"]["ancestors"], serde_json::json!([cparent]));
    let g = json(&h, false, &["graph", child]);
    assert_eq!(len(&g["edges"]), 1);
    assert_eq!(g["edges"][0]["kind"], "subagent_of");
    assert_eq!(g["edges"][0]["to"], cparent);
}

/// A Claude session whose Bash call ran `scry show <other>` twice and `scry context <other>`
/// once (each with a result) and whose here-doc only mentions `scry show`: two edges,
/// references ×2 and handoff_from ×1, both to the other session.
#[test]
fn reference_edges_from_real_calls() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let target = "7a7a0001-1111-4111-8111-111111111111";
    crate::util::claude_session(h, target, "/test/proj", 1);
    let me = "7b7b0002-2222-4222-8222-222222222222";
    let line = |n: u32, v: serde_json::Value| {
        let mut v = v;
        v["sessionId"] = me.into();
        v["cwd"] = "/test/proj".into();
        v["uuid"] = format!("r-{n}").into();
        v["timestamp"] = format!("2026-11-21T10:{n:02}:00.000Z").into();
        v.to_string()
    };
    let call = |n: u32, id: &str, cmd: &str| {
        line(
            n,
            serde_json::json!({"type": "assistant", "message": {"id": format!("m{n}"),
                "role": "assistant", "model": "claude-test", "content": [{"type": "tool_use",
                "id": id, "name": "Bash", "input": {"command": cmd}}]}}),
        )
    };
    let result = |n: u32, id: &str| {
        line(
            n,
            serde_json::json!({"type": "user", "message": {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": id, "content": "ok", "is_error": false}]}}),
        )
    };
    let body = [
        line(
            0,
            serde_json::json!({"type": "user", "message": {"role": "user", "content": "read the other session"}}),
        ),
        call(1, "t1", &format!("scry show {target}")),
        result(2, "t1"),
        call(3, "t2", &format!("scry turns --json {target} | head")),
        result(4, "t2"),
        call(5, "t3", &format!("scry context {target}")),
        result(6, "t3"),
        call(7, "t4", &format!("cat > notes.md <<'EOF'\nscry show {target}\nEOF")),
        result(8, "t4"),
    ]
    .join("\n");
    std::fs::write(
        h.join(format!(".claude/projects/-test-proj/{me}.jsonl")),
        body + "\n",
    )
    .unwrap();
    let g = json(h, false, &["graph", me]);
    let edges: Vec<(&str, &str, u64)> = g["edges"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["kind"].as_str().unwrap(),
                e["to"].as_str().unwrap(),
                e["count"].as_u64().unwrap(),
            )
        })
        .collect();
    let to = format!("claude:{target}");
    assert_eq!(
        edges,
        vec![
            ("references", to.as_str(), 2),
            ("handoff_from", to.as_str(), 1)
        ]
    );
    let text = scry(h, &["graph", me]);
    assert!(text.stdout.contains("2 edges"), "{}", text.stdout);
}

/// Text output of the fact commands on one demo session, and `workspace` over the demo webapp.
#[test]
fn demo_fact_snapshots() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let uri = "claude:4f1c2a9e-7b3d-4c8e-9a21-5d6e7f809a1b";
    let mut all = String::new();
    for args in [
        vec!["commands", "--demo", uri],
        vec!["commands", "--demo", uri, "--failed"],
        vec!["files", "--demo", uri],
        vec!["errors", "--demo", uri],
        vec!["jobs", "--demo", uri],
        vec!["digest", "--demo", uri],
        vec!["digest", "--demo", uri, "--focus", "full"],
        vec!["graph", "--demo", uri],
        vec!["trace", "--demo", uri],
        vec!["context", "--demo", uri, "--max-chars", "400"],
        vec!["workspace", "--demo", "/home/demo/projects/webapp"],
        vec![
            "workspace",
            "--demo",
            "/home/demo/projects/cli-tool",
            "--digest",
        ],
    ] {
        all.push_str(&format!("$ scry {}\n", args.join(" ")));
        let out = scry(h, &args);
        out.assert_no_panic();
        assert_eq!(out.code, 0, "{}", out.render());
        all.push_str(&redact(&out.render(), h));
    }
    insta::assert_snapshot!("demo_facts", all);
}

/// `workspace --demo` (no path) covers every demo session; attribution rows == the files
/// ledgers' rows summed over the sessions.
#[test]
fn demo_workspace_attribution_agrees() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let w = json(h, true, &["workspace"]);
    let sessions = w["sessions"].as_array().unwrap();
    let main = all_uris(h, true);
    assert_eq!(sessions.len(), main.len());
    let summed: u64 = sessions
        .iter()
        .map(|s| s["write_events"].as_u64().unwrap())
        .sum();
    let attributed: usize = w["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| len(&f["writes"]))
        .sum();
    assert_eq!(summed as usize, attributed);
    assert!(w["files"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|f| f["writes"].as_array().cloned().unwrap_or_default())
        .all(|x| x["session"].is_string()
            && x["agent"].is_string()
            && x["evidence"]["handle"].is_string()));
    let since = json(h, true, &["workspace", "--since", "2026-11-16"]);
    assert!(len(&since["sessions"]) < sessions.len());
}

/// Unknown ids exit 3 (with the JSON error object), a bad `--group` / `--focus` exits 2.
#[test]
fn fact_command_errors() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    for cmd in [
        "commands", "files", "errors", "jobs", "digest", "graph", "trace", "context",
    ] {
        let out = scry(h, &[cmd, "--demo", "nosuchsession42"]);
        out.assert_no_panic();
        assert_eq!(out.code, 3, "{cmd}: {}", out.render());
        let out = scry(h, &[cmd, "--demo", "--json", "nosuchsession42"]);
        assert_eq!(out.code, 3, "{cmd}");
        assert_eq!(out.json()["error"]["code"], "SESSION_NOT_FOUND", "{cmd}");
    }
    let uri = "claude:4f1c2a9e-7b3d-4c8e-9a21-5d6e7f809a1b";
    let out = scry(h, &["files", "--demo", uri, "--group", "bogus"]);
    assert_eq!(out.code, 2, "{}", out.render());
    assert!(out.stderr.contains("bogus"), "{}", out.stderr);
    let out = scry(h, &["digest", "--demo", uri, "--focus", "bogus"]);
    assert_eq!(out.code, 2, "{}", out.render());
    let out = scry(h, &["workspace", "--demo", "--since", "yesterday-ish"]);
    assert_eq!(out.code, 2, "{}", out.render());
    let out = scry(h, &["workspace", "/no/such/dir/here"]);
    assert_eq!(out.code, 2, "{}", out.render());
}

/// The hand-off pack of the real compacted sessions starts with the compaction summary: Claude
/// 029942d1… line 80 is the `isCompactSummary` user line ("This session is being continued
/// from a previous conversation…"), Codex …805d… line 82 is `compacted` ("Another language
/// model started to solve this problem…"); the budget bounds the pack.
#[test]
fn real_context_packs_start_with_the_summary() {
    let h = real_home();
    for (id, start) in [
        (
            "claude:029942d1-8e5d-4155-96e8-b9fe03dadf8d",
            "This session is being continued",
        ),
        (
            "codex:01a22cf1-805d-7161-bbbc-a2414caa5633",
            "Another language model",
        ),
    ] {
        let c = json(&h, false, &["context", id]);
        let sum = c["context"]["summary"]["text"].as_str().unwrap_or("");
        assert!(sum.contains(start), "{id}: {sum}");
        assert_eq!(c["context"]["summary"]["kind"], "compaction", "{id}");
        assert!(c["context"]["from_seq"].as_u64().unwrap() > 0, "{id}");
        let small = json(&h, false, &["context", id, "--max-chars", "50"]);
        assert_eq!(small["context"]["chars"], 50, "{id}");
        assert_eq!(small["context"]["truncated"], true, "{id}");
    }
}

/// The demo Claude session 8b2e4d60…: turn 2 ("Yes, do it.") is an Edit the user rejected
/// (`is_error: true`) with no assistant text after it, so `turns` marks it no_response and
/// failed_tail, the latter with the failing result as evidence; turns 1 and 3 end on an answer.
#[test]
fn demo_turn_status_with_evidence() {
    let home = tempfile::tempdir().unwrap();
    let t = json(
        home.path(),
        true,
        &["turns", "claude:8b2e4d60-1f3a-4e5b-8c7d-9e0f1a2b3c4d"],
    );
    let states = |n: usize| -> Vec<String> {
        t["turns"][n]["status"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["state"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(states(0), vec!["completed"]);
    assert_eq!(states(1), vec!["no_response", "failed_tail"]);
    assert_eq!(states(2), vec!["completed"]);
    let tail = &t["turns"][1]["status"][1];
    assert_eq!(tail["evidence"][0]["handle"], "E10·T2");
}
