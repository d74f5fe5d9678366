//! Qwen Code 0.24.4 through the CLI, on the corpus' real files (`real/home/.qwen`, read-only):
//! the CJK prompt found by `search` (indexed and `--no-index`), the ledgers (`commands`: the two
//! failing commands with exit 1; `files`: notes.txt written then edited), the planted key
//! redacted by `serve` and `export --redact`, `resume`, and the subagent in `list`.
//! Expected values are written down from the raw files (corpus notes/qwen.md and the lines
//! themselves).

use std::path::PathBuf;

use serde_json::Value;

use crate::http::{enc, Server};
use crate::util::{corpus, scry};

const MAIN: &str = "qwen:4106c652-5ce3-4ae6-a2cd-65c5cd0e4ab1";
const CJK: &str = "qwen:f8aa1e14-f598-4d91-a29c-07a02d84eaed";
const SUB: &str = "qwen:general-purpose-call_0831eabf344947feb914e450";
const KEY: &str = "sk-live-TESTSECRET123456";

fn home() -> PathBuf {
    corpus().join("real/home")
}

fn json(args: &[&str]) -> Value {
    let mut a = args.to_vec();
    a.push("--json");
    let out = scry(&home(), &a);
    out.assert_no_panic();
    assert_eq!(out.code, 0, "scry {}:\n{}", a.join(" "), out.render());
    out.json()
}

#[test]
fn list_shows_both_sessions_and_the_subagent() {
    let v = json(&[
        "list",
        "--global",
        "--provider",
        "qwen",
        "--kind",
        "all",
        "--limit",
        "100",
    ]);
    let mut uris: Vec<(String, String)> = v["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["uri"].as_str().unwrap().to_string(),
                s["kind"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    uris.sort();
    assert_eq!(
        uris,
        [
            (MAIN.to_string(), "main".to_string()),
            (CJK.to_string(), "main".to_string()),
            (SUB.to_string(), "subagent".to_string()),
        ]
    );
}

#[test]
fn the_cjk_prompt_is_found_indexed_and_not() {
    for no_index in [false, true] {
        let mut a = vec![];
        if no_index {
            a.push("--no-index");
        }
        a.extend(["search", "--global", "跨会话检索", "--provider", "qwen"]);
        let v = json(&a);
        let text = v.to_string();
        assert!(text.contains(CJK), "no_index={no_index}: {text}");
        assert!(!text.contains(MAIN), "no_index={no_index}: {text}");
    }
}

#[test]
fn commands_ledger_has_both_failures_with_exit_1() {
    let c = json(&["commands", MAIN]);
    let rows: Vec<(String, String, Option<i64>)> = c["commands"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["command"].as_str().unwrap().to_string(),
                r["outcome"].as_str().unwrap().to_string(),
                r["exit_code"].as_i64(),
            )
        })
        .collect();
    let row = |c: &str, o: &str, e: i64| (c.to_string(), o.to_string(), Some(e));
    assert_eq!(
        rows,
        [
            row("ls -la", "succeeded", 0),
            row("cat missing.txt", "failed", 1),
            row("echo planning", "succeeded", 0),
            row("false", "failed", 1),
        ]
    );
    let f = json(&["commands", MAIN, "--failed"]);
    assert_eq!(f["commands"].as_array().unwrap().len(), 2);
}

#[test]
fn files_ledger_has_notes_written_then_edited() {
    let w = json(&["files", MAIN]);
    let rows: Vec<(&str, &str, &str)> = w["writes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| {
            (
                x["display"].as_str().unwrap(),
                x["op"].as_str().unwrap(),
                x["extractor"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        rows,
        [
            ("notes.txt", "write", "tool:write_file"),
            ("notes.txt", "edit", "tool:edit"),
        ]
    );
}

#[test]
fn the_planted_key_is_redacted_by_serve_and_export() {
    // Without redaction the file holds it verbatim (Qwen stores it as typed).
    let plain = scry(&home(), &["export", CJK, "--format", "md"]);
    assert_eq!(plain.code, 0, "{}", plain.render());
    assert!(plain.stdout.contains(KEY));
    for format in ["md", "json", "html"] {
        let out = scry(&home(), &["export", CJK, "--format", format, "--redact"]);
        assert_eq!(out.code, 0, "{}", out.render());
        assert!(!out.stdout.contains(KEY), "export {format} leaks the key");
        assert!(
            out.stdout.contains("[redacted:"),
            "export {format}: no marker"
        );
        assert!(
            out.stdout.contains("跨会话检索"),
            "export {format} lost the prompt"
        );
    }
    let srv = Server::start(&home(), &[]);
    let id = CJK.trim_start_matches("qwen:");
    for path in [
        format!("/v1/sessions/{id}/content?turns=1"),
        format!("/v1/sessions/{id}/content?turns=1&raw=true"),
        format!("/v1/search?q={}&scope=global", enc("跨会话检索")),
    ] {
        let r = srv.get(&path);
        assert_eq!(r.status, 200, "{path}: {}", r.body);
        assert!(!r.body.contains(KEY), "{path} leaks the key: {}", r.body);
        assert!(r.body.contains(id), "{path}: {}", r.body);
    }
}

#[test]
fn resume_is_qwen_resume_in_the_sessions_directory() {
    let v = json(&["resume", MAIN]);
    assert_eq!(
        v["argv"],
        serde_json::json!(["qwen", "--resume", "4106c652-5ce3-4ae6-a2cd-65c5cd0e4ab1"])
    );
    assert_eq!(v["verified"], true);
    let out = scry(&home(), &["resume", SUB]);
    assert_eq!(out.code, 2, "{}", out.render());
    assert!(out.stderr.contains("subagent"), "{}", out.render());
}
