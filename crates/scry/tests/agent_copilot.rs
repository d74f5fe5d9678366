//! GitHub Copilot CLI (issue 21) through the binary, on the real corpus home
//! (`real/home/.copilot`, Copilot CLI 1.0.102): list, show's totals (equal to ccusage: see
//! crates/scry-source-copilot/tests/corpus.rs for the recorded run), the CJK prompt found by
//! `search` with and without the index, the failing `cat missing.txt` in the commands ledger,
//! notes.txt in the files ledger, the planted key redacted by `serve` and `export --redact`,
//! and the resume command. The corpus home is read-only; every index goes to a temp dir.

use std::path::PathBuf;

use crate::http::{enc, Server};
use crate::util::{corpus, scry};

const LONG: &str = "f596c862-f63a-4ce1-a6b7-43eb7ab0fa00";
const SHORT: &str = "3d3522bb-747f-4805-a27f-58abaa6acff5";
const SECRET: &str = "sk-live-TESTSECRET123456";

fn home() -> PathBuf {
    corpus().join("real/home")
}

#[test]
fn list_and_show_read_both_sessions() {
    let h = home();
    let out = scry(&h, &["list", "--global", "--provider", "copilot", "--json"]);
    assert_eq!(out.code, 0, "{}", out.render());
    let v = out.json();
    let mut uris: Vec<&str> = v["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|s| s["uri"].as_str())
        .collect();
    uris.sort();
    assert_eq!(
        uris,
        [format!("copilot:{SHORT}"), format!("copilot:{LONG}")]
    );
    let out = scry(&h, &["show", LONG, "--json"]);
    assert_eq!(out.code, 0, "{}", out.render());
    let st = &out.json()["stats"];
    // Counted from the raw file: 4 human prompts (the subagent's prompt and /compact are
    // none), 9 toolRequests, 9 tool.execution_complete records.
    assert_eq!(st["turns"], 4);
    assert_eq!(st["tool_calls"], 9);
    assert_eq!(st["events"]["tool_result"], 9);
    assert_eq!(st["events"]["compaction"], 1);
    // ccusage copilot session: input 84268, output 827, cache read 90864, cache write 0.
    let t = &st["tokens"];
    assert_eq!(
        (
            &t["input"],
            &t["output"],
            &t["cache_read"],
            &t["cache_write"]
        ),
        (&84268.into(), &827.into(), &90864.into(), &0.into())
    );
}

#[test]
fn the_cjk_prompt_is_found_with_and_without_the_index() {
    let h = home();
    let mut seen = Vec::new();
    for extra in [&[][..], &["--no-index"][..]] {
        let mut args = extra.to_vec();
        args.extend([
            "search",
            "--global",
            "跨会话检索",
            "--provider",
            "copilot",
            "--json",
        ]);
        let out = scry(&h, &args);
        assert_eq!(out.code, 0, "{}", out.render());
        let v = out.json();
        let sessions = v["sessions"].as_array().unwrap();
        assert_eq!(sessions.len(), 1, "{v}");
        assert_eq!(sessions[0]["session"]["uri"], format!("copilot:{SHORT}"));
        let user: Vec<_> = sessions[0]["hits"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|h| h["kind"] == "user")
            .map(|h| h["locator"].clone())
            .collect();
        assert_eq!(user.len(), 1, "{v}");
        seen.push(user);
    }
    assert_eq!(seen[0], seen[1], "indexed and direct answers agree");
}

#[test]
fn commands_and_files_ledgers() {
    let h = home();
    let out = scry(&h, &["commands", LONG, "--json"]);
    assert_eq!(out.code, 0, "{}", out.render());
    let v = out.json();
    let cmds = v["commands"].as_array().unwrap();
    let cat = cmds
        .iter()
        .find(|c| c["command"] == "cat missing.txt")
        .unwrap_or_else(|| panic!("no cat command: {v}"));
    assert_eq!(cat["outcome"], "failed");
    assert_eq!(cat["exit_code"], 1);
    assert!(cat["stdout"]["text"]
        .as_str()
        .unwrap()
        .contains("No such file or directory"));
    let failed: Vec<&str> = cmds
        .iter()
        .filter(|c| c["outcome"] == "failed")
        .filter_map(|c| c["command"].as_str())
        .collect();
    assert_eq!(failed, ["cat missing.txt", "false"]);

    let out = scry(&h, &["files", LONG, "--json"]);
    assert_eq!(out.code, 0, "{}", out.render());
    let v = out.json();
    let files = v["files"].as_array().unwrap();
    assert_eq!(files.len(), 1, "{v}");
    assert_eq!(
        files[0]["path"],
        "/home/dev/new/work/proj-copilot/notes.txt"
    );
    assert_eq!(files[0]["group"], "project");
    // create in turn 1, edit in turn 2.
    assert_eq!(files[0]["writes"], 2);
    assert_eq!(
        (&files[0]["first_turn"], &files[0]["last_turn"]),
        (&1.into(), &2.into())
    );
}

#[test]
fn the_planted_key_is_redacted_by_serve_and_export() {
    let h = home();
    // Without redaction the key is there (the CLI stored it verbatim): the check has teeth.
    let plain = scry(&h, &["export", SHORT, "--format", "json"]);
    assert_eq!(plain.code, 0, "{}", plain.render());
    assert!(plain.stdout.contains(SECRET));
    for format in ["md", "json", "html"] {
        let out = scry(&h, &["export", SHORT, "--format", format, "--redact"]);
        assert_eq!(out.code, 0, "{}", out.render());
        assert!(
            !out.stdout.contains(SECRET),
            "export {format} leaks the key"
        );
        assert!(
            out.stdout.contains("[redacted:"),
            "export {format}: no marker"
        );
    }
    let srv = Server::start(&h, &[]);
    for path in [
        format!("/v1/sessions/{SHORT}"),
        format!("/v1/sessions/{SHORT}/content?turns=1"),
        format!("/v1/search?q={}&scope=global", enc("跨会话检索")),
        "/v1/sessions?scope=global".to_string(),
    ] {
        let r = srv.get(&path);
        assert_eq!(r.status, 200, "{path}: {}", r.body);
        assert!(
            r.body.contains(SHORT),
            "{path}: session missing: {}",
            r.body
        );
        assert!(!r.body.contains(SECRET), "{path} leaks the key: {}", r.body);
    }
}

#[test]
fn resume_prints_copilots_own_command() {
    let h = home();
    let out = scry(&h, &["resume", LONG, "--json"]);
    assert_eq!(out.code, 0, "{}", out.render());
    let v = out.json();
    assert_eq!(v["argv"], serde_json::json!(["copilot", "--resume", LONG]));
    assert_eq!(v["verified"], true);
    assert_eq!(
        v["command"],
        format!("cd /home/dev/new/work/proj-copilot && copilot --resume {LONG}")
    );
}
