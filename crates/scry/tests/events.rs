//! `scry events` (S-Q4 event filters, S-Q6 event relations) on the demo corpus, on the real
//! Claude Code and Codex sessions of `corpus/real/home`, and on small synthetic sessions.
//!
//! How the real-corpus numbers were obtained (python over the raw JSONL, not scry's output):
//! - Claude `029942d1…`: `tool_use` blocks in assistant records = 8, `tool_result` blocks in user
//!   records = 8; the `compact_boundary` system record is line 79, and 12 of those 16 blocks
//!   sit on lines before it (6 uses + 6 results: shadowed), 2 `tool_use` after it (current);
//!   compaction records = the boundary + one `isCompactSummary` user record = 2; the timestamps
//!   of the `tool_use` records are 14:52:28.324, 28.428, 29.295, 29.387, 29.439, 30.197, 31.972,
//!   32.102 (so 29.295 ..= 30.197 holds 4 calls); `re.search(r"cat\s+missing\.txt", re.I)` over
//!   the content blocks of user / assistant records hits 3: the `tool_use` input (line 49), the
//!   assistant text of line 52 and the compact summary (line 80). The failing call's id is
//!   `toolu_01dce1d4d4500847c2ad52e2` (line 49), its result is in line 50.
//! - Codex `01a22cf1-805d…`: 5 `function_call` + 2 `custom_tool_call` response items and their 7
//!   outputs, all before the `compacted` record (line 82); none after it; one `compacted`
//!   record. The first call is `exec_command` `ls -la`, id `call_f76bba8b43a6423fa5fc629a`.
//! - DSH `session-585b2c35…` (`zstd -dc` + python over the records with a `surfaceOp` replace):
//!   record 31 replaces records 7-8 (the first user prompt and what follows), record 49 replaces
//!   31, record 66 replaces 49 — three compaction checkpoints, the last one current.

use std::path::Path;

use serde_json::Value;

use crate::util::{claude_line, corpus, redact, scry, Out};

const CLAUDE: &str = "029942d1-8e5d-4155-96e8-b9fe03dadf8d";
const CODEX: &str = "01a22cf1-805d-7161-bbbc-a2414caa5633";
const DEMO_CLAUDE: &str = "claude:4f1c2a9e-7b3d-4c8e-9a21-5d6e7f809a1b";

fn real() -> std::path::PathBuf {
    corpus().join("real/home")
}

fn ok(home: &Path, args: &[&str]) -> Out {
    let out = scry(home, args);
    out.assert_no_panic();
    assert_eq!(out.code, 0, "scry {}:\n{}", args.join(" "), out.render());
    out
}

fn json(home: &Path, args: &[&str]) -> Value {
    let mut all = args.to_vec();
    all.push("--json");
    ok(home, &all).json()
}

fn total(home: &Path, args: &[&str]) -> u64 {
    json(home, args)["total"].as_u64().unwrap_or(u64::MAX)
}

fn field<'a>(v: &'a Value, key: &str) -> Vec<&'a Value> {
    v["events"]
        .as_array()
        .map(|a| a.iter().map(|e| &e[key]).collect())
        .unwrap_or_default()
}

/// Cursors in text output depend on the source's mtime: not part of a snapshot.
fn stable(text: &str, home: &Path) -> String {
    let re = regex::Regex::new("c1[A-Za-z0-9_-]{20,}").expect("regex");
    re.replace_all(&redact(text, home), "[CURSOR]").into_owned()
}

#[test]
fn each_filter_alone_on_the_real_claude_session() {
    let h = real();
    let h = h.as_path();
    let all = json(h, &["events", CLAUDE, "--limit", "1000"]);
    let n = all["session_events"].as_u64().unwrap();
    assert_eq!(all["total"].as_u64(), Some(n));
    assert_eq!(total(h, &["events", CLAUDE, "--kind", "tool_call"]), 8);
    assert_eq!(total(h, &["events", CLAUDE, "--kind", "tool_result"]), 8);
    assert_eq!(total(h, &["events", CLAUDE, "--kind", "compaction"]), 2);
    // Seq ranges are inclusive; several ranges OR together; an open end runs to the last event.
    let v = json(h, &["events", CLAUDE, "--seq", "12-15"]);
    assert_eq!(field(&v, "seq"), vec![12, 13, 14, 15]);
    assert_eq!(total(h, &["events", CLAUDE, "--seq", "0,12-15,200"]), 5);
    assert_eq!(total(h, &["events", CLAUDE, "--seq", "50-"]), n - 50);
    // Time range, inclusive at both ends (the tool_use timestamps, see the module doc).
    let v = json(
        h,
        &[
            "events",
            CLAUDE,
            "--kind",
            "tool_call",
            "--since",
            "2026-11-30T14:52:29.295Z",
            "--until",
            "2026-11-30T14:52:30.197Z",
        ],
    );
    assert_eq!(
        field(&v, "call_id"),
        vec![
            "toolu_011ecfb918df304fc4a84666",
            "toolu_01a8366cfc260d4bfbab151f",
            "toolu_01dce1d4d4500847c2ad52e2",
            "toolu_019347a87175a84bafa940df"
        ]
    );
    assert_eq!(
        total(h, &["events", CLAUDE, "--since", "2026-11-30T14:53:00Z"]),
        0
    );
    // A date alone as --until means through the end of that day; events without a time
    // never match a time range (no evidence, no claim).
    let timed = field(&all, "time").iter().filter(|t| !t.is_null()).count() as u64;
    assert!(timed > 0 && timed < n, "{timed} of {n} events have a time");
    assert_eq!(
        total(h, &["events", CLAUDE, "--until", "2026-11-30"]),
        timed
    );
    assert_eq!(total(h, &["events", CLAUDE, "--until", "2026-11-29"]), 0);
    // Surfaces: every surface is one of the three, and they add up.
    let cur = total(h, &["events", CLAUDE, "--surface", "current"]);
    let sha = total(h, &["events", CLAUDE, "--surface", "shadowed"]);
    let log = total(h, &["events", CLAUDE, "--surface", "log-only"]);
    assert!(sha > 0 && cur > 0 && log > 0);
    assert_eq!(cur + sha + log, n);
    assert_eq!(
        total(h, &["events", CLAUDE, "--surface", "current,log-only"]),
        cur + log
    );
    // Text: literal, case-insensitive, a run of spaces matches any whitespace run.
    let v = json(h, &["events", CLAUDE, "--text", "CAT   missing.TXT"]);
    assert_eq!(v["total"], 3);
    assert_eq!(
        field(&v, "kind"),
        vec!["tool_call", "assistant", "compaction"]
    );
    assert_eq!(v["events"][0]["match"]["field"], "args.command");
    assert_eq!(v["events"][0]["call_id"], "toolu_01dce1d4d4500847c2ad52e2");
    // Literal: a dot is a dot.
    assert_eq!(
        total(h, &["events", CLAUDE, "--text", "cat missing_txt"]),
        0
    );
}

#[test]
fn filters_combine_with_and() {
    let h = real();
    let h = h.as_path();
    // Tool calls and results before the compaction are shadowed, the two calls after it are not.
    let v = json(
        h,
        &[
            "events",
            CLAUDE,
            "--surface",
            "shadowed",
            "--kind",
            "tool_call,tool_result",
        ],
    );
    assert_eq!(v["total"], 12);
    assert!(field(&v, "surface").iter().all(|s| *s == "shadowed"));
    assert_eq!(
        total(
            h,
            &[
                "events",
                CLAUDE,
                "--surface",
                "current",
                "--kind",
                "tool_call"
            ]
        ),
        2
    );
    // Text AND kind AND surface: the failing call is shadowed, the summary mentioning it is not.
    let args = ["events", CLAUDE, "--text", "cat missing.txt"];
    let mut a = args.to_vec();
    a.extend(["--kind", "tool_call", "--surface", "shadowed"]);
    assert_eq!(total(h, &a), 1);
    let mut b = args.to_vec();
    b.extend(["--surface", "current"]);
    let v = json(h, &b);
    assert_eq!(field(&v, "kind"), vec!["compaction"]);
    // Codex: 7 calls, all before the `compacted` record; none after it.
    assert_eq!(
        total(
            h,
            &[
                "events",
                CODEX,
                "--kind",
                "tool_call",
                "--surface",
                "shadowed"
            ]
        ),
        7
    );
    assert_eq!(total(h, &["events", CODEX, "--kind", "tool_call"]), 7);
    assert_eq!(
        total(
            h,
            &[
                "events",
                CODEX,
                "--kind",
                "tool_call,tool_result",
                "--surface",
                "current"
            ]
        ),
        0
    );
    assert_eq!(total(h, &["events", CODEX, "--kind", "compaction"]), 1);
}

#[test]
fn relations_name_the_call_and_the_compaction() {
    let h = real();
    let h = h.as_path();
    let calls = json(
        h,
        &[
            "events",
            CLAUDE,
            "--kind",
            "tool_call,tool_result",
            "--text",
            "cat missing.txt",
        ],
    );
    assert_eq!(
        calls["total"], 1,
        "only the call's arguments hold the command"
    );
    let call_seq = calls["events"][0]["seq"].as_u64().unwrap();
    let results = json(h, &["events", CLAUDE, "--kind", "tool_result"]);
    let result = results["events"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["call_id"] == "toolu_01dce1d4d4500847c2ad52e2")
        .expect("the failing call's result");
    let result_seq = result["seq"].as_u64().unwrap().to_string();
    let r = json(h, &["events", CLAUDE, "--relations", &result_seq]);
    assert_eq!(r["sources"][0]["seq"].as_u64(), Some(call_seq));
    assert_eq!(r["sources"][0]["kind"], "tool_call");
    assert_eq!(r["surface"], "shadowed");
    assert_eq!(r["provider_surface"], "current");
    let link = &r["replaced_by"][0];
    assert_eq!(link["rule"], "compaction");
    assert_eq!(
        link["subtypes"],
        serde_json::json!(["compact_boundary", "compact_summary"])
    );
    assert_eq!(r["replaced_by"].as_array().map(Vec::len), Some(1));
    // The same relation from the other end, by display number.
    let c = json(
        h,
        &[
            "events",
            CLAUDE,
            "--relations",
            &format!("E{}", call_seq + 1),
        ],
    );
    assert_eq!(c["derived"][0]["seq"], result["seq"]);
    // The compaction: its group, and what it replaced.
    let comp = json(h, &["events", CLAUDE, "--kind", "compaction"]);
    let first = comp["events"][0]["seq"].as_u64().unwrap();
    let g = json(h, &["events", CLAUDE, "--relations", &first.to_string()]);
    assert_eq!(g["group"], serde_json::json!([first, first + 1]));
    assert_eq!(g["replaces"]["from_seq"], 0);
    assert_eq!(g["replaces"]["to_seq"].as_u64(), Some(first - 1));
    assert!(g["replaced_by"].as_array().unwrap().is_empty());
    // Codex: the first call's result names its call and the `compacted` record.
    let cx = json(
        h,
        &["events", CODEX, "--kind", "tool_result", "--limit", "1"],
    );
    assert_eq!(cx["events"][0]["call_id"], "call_f76bba8b43a6423fa5fc629a");
    let seq = cx["events"][0]["seq"].to_string();
    let r = json(h, &["events", CODEX, "--relations", &seq]);
    assert_eq!(r["sources"][0]["kind"], "tool_call");
    assert_eq!(r["replaced_by"][0]["subtypes"][0], "compacted");
}

#[test]
fn recorded_replacements_chain_through_every_compaction() {
    let h = real();
    let h = h.as_path();
    let id = "session-585b2c35";
    let comp = json(h, &["events", id, "--kind", "compaction"]);
    let seqs: Vec<&Value> = field(&comp, "seq");
    assert_eq!(seqs.len(), 3);
    let prompt = json(h, &["events", id, "--kind", "user", "--limit", "1"]);
    let seq = prompt["events"][0]["seq"].to_string();
    let r = json(h, &["events", id, "--relations", &seq]);
    assert_eq!(r["surface"], "shadowed");
    let chain = r["replaced_by"].as_array().unwrap();
    let firsts: Vec<&Value> = chain.iter().map(|l| &l["seqs"][0]).collect();
    assert_eq!(firsts, seqs);
    assert!(chain.iter().all(|l| l["rule"] == "recorded"));
    let surfaces: Vec<&Value> = chain.iter().map(|l| &l["surface"]).collect();
    assert_eq!(surfaces, vec!["shadowed", "shadowed", "current"]);
    // The first checkpoint lists what it replaced; the prompt is among it.
    let c = json(h, &["events", id, "--relations", &seqs[0].to_string()]);
    assert_eq!(c["replaces"]["rule"], "recorded");
    assert!(c["replaces"]["seqs"]
        .as_array()
        .unwrap()
        .contains(&prompt["events"][0]["seq"]));
}

#[test]
fn paging_until_exhausted_equals_the_unpaged_result() {
    let h = real();
    let demo = tempfile::tempdir().unwrap();
    for (home, base) in [
        (h.as_path(), vec!["events", CLAUDE]),
        (h.as_path(), vec!["events", CODEX, "--surface", "shadowed"]),
        (demo.path(), vec!["--demo", "events", DEMO_CLAUDE]),
        (
            demo.path(),
            vec![
                "--demo",
                "events",
                DEMO_CLAUDE,
                "--kind",
                "tool_call,tool_result",
            ],
        ),
    ] {
        let mut all = base.clone();
        all.extend(["--limit", "1000"]);
        let whole = json(home, &all);
        assert!(whole["next_cursor"].is_null());
        let expected = whole["events"].as_array().unwrap().clone();
        assert!(expected.len() > 3);
        for limit in ["1", "3"] {
            let mut got: Vec<Value> = Vec::new();
            let mut cursor: Option<String> = None;
            let mut pages = 0;
            loop {
                let mut args = base.clone();
                args.extend(["--limit", limit]);
                if let Some(c) = &cursor {
                    args.extend(["--cursor", c.as_str()]);
                }
                let v = json(home, &args);
                assert_eq!(v["total"].as_u64(), Some(expected.len() as u64));
                assert_eq!(v["from"].as_u64(), Some(got.len() as u64 + 1));
                got.extend(v["events"].as_array().unwrap().iter().cloned());
                pages += 1;
                assert!(pages <= expected.len() + 1, "the cursor does not advance");
                match v["next_cursor"].as_str() {
                    Some(c) => {
                        assert_eq!(v["truncated"], true);
                        cursor = Some(c.to_string());
                    }
                    None => break,
                }
            }
            assert_eq!(got, expected, "{} --limit {limit}", base.join(" "));
        }
    }
}

#[test]
fn bad_values_are_usage_errors_with_closed_codes() {
    let h = real();
    let h = h.as_path();
    let first = json(h, &["events", CLAUDE, "--limit", "2"]);
    let cursor = first["next_cursor"].as_str().unwrap().to_string();
    let cases: Vec<(Vec<&str>, &str, i32)> = vec![
        (vec!["--seq", "40-10"], "INVALID_FILTER", 2),
        (vec!["--seq", "ten"], "INVALID_FILTER", 2),
        (vec!["--kind", "tool"], "INVALID_FILTER", 2),
        (vec!["--since", "yesterday"], "INVALID_FILTER", 2),
        (
            vec!["--since", "2026-12-01", "--until", "2026-11-30"],
            "INVALID_FILTER",
            2,
        ),
        (vec!["--text", "   "], "INVALID_FILTER", 2),
        (vec!["--surface", "visible"], "INVALID_SURFACE", 2),
        (vec!["--limit", "0"], "INVALID_PAGE_SIZE", 2),
        (vec!["--cursor", "nope"], "INVALID_CURSOR", 2),
        // A cursor is bound to the filters and the page size.
        (
            vec!["--limit", "3", "--cursor", &cursor],
            "INVALID_CURSOR",
            2,
        ),
        (
            vec!["--limit", "2", "--kind", "user", "--cursor", &cursor],
            "INVALID_CURSOR",
            2,
        ),
        (vec!["--relations", "100000"], "EVENT_NOT_FOUND", 3),
        (vec!["--relations", "E0"], "INVALID_FILTER", 2),
    ];
    for (extra, code, exit) in cases {
        let mut args = vec!["events", CLAUDE, "--json"];
        args.extend(extra.iter().copied());
        let out = scry(h, &args);
        out.assert_no_panic();
        assert_eq!(out.code, exit, "{}: {}", extra.join(" "), out.render());
        assert_eq!(out.json()["error"]["code"], code, "{}", extra.join(" "));
        assert_eq!(out.stderr.lines().count(), 1, "{}", out.stderr);
    }
    // The same cursor is still good for its own query.
    ok(h, &["events", CLAUDE, "--limit", "2", "--cursor", &cursor]);
    let out = scry(h, &["events", "no-such-session-id", "--json"]);
    assert_eq!(out.code, 3, "{}", out.render());
    assert_eq!(out.json()["error"]["code"], "SESSION_NOT_FOUND");
}

#[test]
fn without_the_index_the_output_is_byte_identical() {
    let h = real();
    let demo = tempfile::tempdir().unwrap();
    let runs: Vec<(&Path, Vec<&str>)> = vec![
        (h.as_path(), vec!["events", CLAUDE]),
        (
            h.as_path(),
            vec!["events", CLAUDE, "--json", "--limit", "7"],
        ),
        (
            h.as_path(),
            vec![
                "events",
                CLAUDE,
                "--surface",
                "shadowed",
                "--text",
                "notes",
                "--json",
            ],
        ),
        (
            h.as_path(),
            vec!["events", CLAUDE, "--relations", "13", "--json"],
        ),
        (
            h.as_path(),
            vec!["events", CODEX, "--kind", "tool_result", "--json"],
        ),
        (h.as_path(), vec!["events", CODEX, "--relations", "33"]),
        (demo.path(), vec!["--demo", "events", DEMO_CLAUDE, "--json"]),
        (
            demo.path(),
            vec!["--demo", "events", "session-7d3f2a10", "--text", "npm test"],
        ),
    ];
    for (home, args) in runs {
        let indexed = ok(home, &args);
        let mut direct_args = args.clone();
        direct_args.push("--no-index");
        let direct = ok(home, &direct_args);
        assert_eq!(indexed.stdout, direct.stdout, "{}", args.join(" "));
        assert!(!indexed.stdout.is_empty());
    }
}

#[test]
fn text_clauses_match_any_script_caselessly() {
    let home = tempfile::tempdir().unwrap();
    let dir = home.path().join(".claude/projects/-test-proj");
    std::fs::create_dir_all(&dir).unwrap();
    let id = "e7e70001-1111-4111-8111-111111111111";
    // Built here, so the expectations follow from the lines themselves: the clause 会话 is in
    // the first prompt only; "ΣΟΦΊΑ μένει" matches the answer's "σοφία\n\t μένει" (caseless
    // Greek, a newline + tab + space run for the one space); "SOFIA" matches nothing.
    let lines = [
        claude_line("user", id, 0, "/work/p", "请实现跨会话检索"),
        claude_line("assistant", id, 1, "/work/p", "好的。η σοφία\n\t μένει"),
        claude_line("user", id, 2, "/work/p", "会 话 (spaced)"),
    ];
    std::fs::write(dir.join(format!("{id}.jsonl")), lines.join("\n") + "\n").unwrap();
    let h = home.path();
    let v = json(h, &["events", id, "--text", "会话"]);
    assert_eq!(field(&v, "seq"), vec![0]);
    assert_eq!(v["events"][0]["match"]["from"], 4);
    assert_eq!(v["events"][0]["match"]["to"], 6);
    let v = json(h, &["events", id, "--text", "ΣΟΦΊΑ μένει"]);
    assert_eq!(field(&v, "seq"), vec![1]);
    assert_eq!(total(h, &["events", id, "--text", "SOFIA"]), 0);
    assert_eq!(total(h, &["events", id, "--text", "会  话"]), 1);
}

#[test]
fn demo_text_output() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let mut all = String::new();
    for args in [
        vec!["--demo", "events", DEMO_CLAUDE, "--limit", "8"],
        vec![
            "--demo",
            "events",
            DEMO_CLAUDE,
            "--kind",
            "tool_call,tool_result",
            "--surface",
            "current",
        ],
        vec![
            "--demo",
            "events",
            DEMO_CLAUDE,
            "--text",
            "password   of SPACES",
        ],
        vec!["--demo", "events", DEMO_CLAUDE, "--relations", "9"],
        vec!["--demo", "events", DEMO_CLAUDE, "--relations", "E1"],
        vec![
            "--demo",
            "events",
            "session-7d3f2a10",
            "--kind",
            "tool_result",
            "--limit",
            "2",
        ],
        vec!["--demo", "events", DEMO_CLAUDE, "--seq", "900-"],
    ] {
        let out = ok(h, &args);
        all.push_str(&format!("$ scry {}\n", args.join(" ")));
        all.push_str(&stable(&out.render(), h));
    }
    insta::assert_snapshot!("demo_events", all);
}

#[test]
fn real_relations_text() {
    let h = real();
    let h = h.as_path();
    let mut all = String::new();
    for args in [
        vec!["events", CLAUDE, "--relations", "24"],
        vec!["events", CLAUDE, "--relations", "35"],
        vec![
            "events",
            CLAUDE,
            "--kind",
            "compaction,tool_call",
            "--surface",
            "current",
        ],
        vec!["events", CODEX, "--relations", "E8"],
        vec!["events", "session-585b2c35", "--relations", "E4"],
    ] {
        let out = ok(h, &args);
        all.push_str(&format!("$ scry {}\n", args.join(" ")));
        all.push_str(&stable(&out.render(), h));
    }
    insta::assert_snapshot!("real_relations", all);
}

/// The demo Claude session, each filter alone and combined. Numbers from python over the raw
/// `demo/home/.claude/projects/-home-demo-projects-webapp/4f1c2a9e….jsonl`: `tool_use` blocks on
/// lines 5, 8, 10, 13, 15, 21, 30 (7, each answered by one `tool_result` block); human prompts on
/// lines 2, 19, 29 (3; lines 24, 25, 28 are a caveat, `/compact` and its stdout: meta); the
/// `compact_boundary` is line 26, so 6 calls come before it and 1 after; the records timed
/// 09:03:00 ..= 09:03:24 are lines 19-23 (prompt, text, `Task` call, its result, text), those at
/// or after 09:06:00 lines 29-32 (prompt, call, result, text); `re.search(r"npm\s+test", re.I)`
/// hits only the `tool_use` inputs of lines 10 and 15.
#[test]
fn each_filter_alone_and_combined_on_the_demo() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let base = ["--demo", "events", DEMO_CLAUDE];
    let with = |extra: &[&str]| {
        let mut a = base.to_vec();
        a.extend(extra.iter().copied());
        json(h, &a)
    };
    assert_eq!(with(&["--kind", "tool_call"])["total"], 7);
    assert_eq!(with(&["--kind", "tool_result"])["total"], 7);
    assert_eq!(with(&["--kind", "user"])["total"], 3);
    assert_eq!(with(&["--kind", "user,tool_call"])["total"], 10);
    assert_eq!(field(&with(&["--seq", "0-3"]), "seq"), vec![0, 1, 2, 3]);
    let v = with(&[
        "--since",
        "2026-11-12T09:03:00Z",
        "--until",
        "2026-11-12T09:03:24Z",
    ]);
    assert_eq!(
        field(&v, "kind"),
        vec!["user", "assistant", "tool_call", "tool_result", "assistant"]
    );
    assert_eq!(with(&["--since", "2026-11-12T09:06:00Z"])["total"], 4);
    let v = with(&["--text", "NPM   test"]);
    assert_eq!(field(&v, "kind"), vec!["tool_call", "tool_call"]);
    assert_eq!(
        with(&["--kind", "tool_call", "--surface", "shadowed"])["total"],
        6
    );
    assert_eq!(
        with(&["--kind", "tool_call", "--surface", "current"])["total"],
        1
    );
    assert_eq!(
        with(&[
            "--text",
            "npm test",
            "--surface",
            "shadowed",
            "--kind",
            "tool_call"
        ])["total"],
        2
    );
    assert_eq!(
        with(&["--text", "npm test", "--surface", "current"])["total"],
        0
    );
    assert_eq!(
        with(&["--text", "npm test", "--since", "2026-11-12T09:00:20Z"])["total"],
        1
    );
}

/// `GET /v1/sessions/{id}/events` (parameters named like the flags) answers what
/// `scry events --json` prints, and its errors carry the same closed codes.
#[test]
fn http_events_equal_the_cli() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let srv = crate::http::Server::start(h, &["--demo", "--reveal"]);
    let id = crate::http::enc(DEMO_CLAUDE);
    let cases: Vec<(&str, Vec<&str>)> = vec![
        ("", vec![]),
        (
            "?kind=tool_call,tool_result&surface=shadowed&limit=3",
            vec![
                "--kind",
                "tool_call,tool_result",
                "--surface",
                "shadowed",
                "--limit",
                "3",
            ],
        ),
        (
            "?text=password%20%20%20of%20SPACES",
            vec!["--text", "password   of SPACES"],
        ),
        (
            "?seq=3-20&since=2026-11-12&until=2026-11-12",
            vec![
                "--seq",
                "3-20",
                "--since",
                "2026-11-12",
                "--until",
                "2026-11-12",
            ],
        ),
        ("?relations=9", vec!["--relations", "9"]),
        ("?relations=E1", vec!["--relations", "E1"]),
    ];
    for (query, args) in cases {
        let r = srv.get(&format!("/v1/sessions/{id}/events{query}"));
        assert_eq!(r.status, 200, "{query}: {}", r.body);
        let mut all = vec!["--demo", "events", DEMO_CLAUDE];
        all.extend(args);
        assert_eq!(r.json(), json(h, &all), "{query}");
    }
    // The cursor of one page continues over HTTP too.
    let first = srv.get(&format!("/v1/sessions/{id}/events?limit=4")).json();
    let cursor = first["next_cursor"].as_str().unwrap();
    let second = srv
        .get(&format!("/v1/sessions/{id}/events?limit=4&cursor={cursor}"))
        .json();
    assert_eq!(second["from"], 5);
    for (query, status, code) in [
        ("?surface=hidden", 400, "INVALID_SURFACE"),
        ("?kind=tool", 400, "INVALID_FILTER"),
        ("?seq=9-1", 400, "INVALID_FILTER"),
        ("?limit=0", 400, "INVALID_PAGE_SIZE"),
        ("?cursor=garbage", 400, "INVALID_CURSOR"),
        ("?relations=99999", 404, "EVENT_NOT_FOUND"),
        ("?relations=1&kind=user", 400, "INVALID_QUERY"),
        ("?bogus=1", 400, "INVALID_QUERY"),
    ] {
        let r = srv.get(&format!("/v1/sessions/{id}/events{query}"));
        assert_eq!((r.status, r.code().as_str()), (status, code), "{query}");
    }
    let r = srv.get("/v1/sessions/zzzzzzzz-nope/events");
    assert_eq!((r.status, r.code().as_str()), (404, "SESSION_NOT_FOUND"));
    let doc = srv.get("/openapi.json").json();
    assert!(doc["paths"]["/v1/sessions/{id}/events"].is_object());
}
