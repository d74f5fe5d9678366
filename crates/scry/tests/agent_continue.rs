//! Continue CLI at the command line, over the real corpus home (read-only; the index goes to
//! a temporary directory): the CJK prompt found by `search` with and without the index, the
//! `commands` ledger (`cat missing.txt` failed with exit 1, `false` unknown: Continue stored it
//! as done), `files` (notes.txt written then edited), the planted key redacted by
//! `export --redact` and `serve`, `resume` refused, and the demo session.

use crate::util::{corpus, scry};

const A: &str = "continue:433d4076-aa3d-4857-84c4-68d12b9d7cf0";
const B: &str = "continue:7b9f44da-fcf5-40f5-8e20-c2bf9f426c68";
const KEY: &str = "sk-live-TESTSECRET123456";

fn home() -> std::path::PathBuf {
    corpus().join("real/home")
}

#[test]
fn cjk_prompt_is_found_with_and_without_the_index() {
    for extra in [None, Some("--no-index")] {
        let mut args = vec!["search", "--global", "--provider", "continue", "--json"];
        args.extend(extra);
        args.push("跨会话检索");
        let out = scry(&home(), &args);
        assert_eq!(out.code, 0, "{}", out.render());
        let v = out.json();
        let uris: Vec<&str> = v["sessions"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|s| s["session"]["uri"].as_str())
            .collect();
        assert_eq!(uris, vec![B], "{extra:?}: {}", out.render());
    }
}

#[test]
fn commands_and_files_ledgers() {
    let out = scry(&home(), &["commands", A, "--json"]);
    assert_eq!(out.code, 0, "{}", out.render());
    let v = out.json();
    let cmds = v["commands"].as_array().unwrap();
    let by = |c: &str| cmds.iter().find(|x| x["command"] == c).unwrap();
    assert_eq!(cmds.len(), 3);
    assert_eq!(by("cat missing.txt")["outcome"], "failed");
    assert_eq!(by("cat missing.txt")["exit_code"], 1);
    // `false` exited 1 but Continue stored it as done with no output: not claimed either way.
    assert_ne!(by("false")["outcome"], "failed");
    assert_ne!(by("false")["outcome"], "ok");
    assert_eq!(by("false")["exit_code"], serde_json::Value::Null);
    let out = scry(&home(), &["files", A, "--json"]);
    assert_eq!(out.code, 0, "{}", out.render());
    let v = out.json();
    let files = v["files"].as_array().unwrap();
    assert_eq!(files.len(), 1, "{}", out.render());
    assert_eq!(
        files[0]["path"],
        "/home/dev/new/work/proj-continue/notes.txt"
    );
    assert_eq!(files[0]["writes"], 2);
}

#[test]
fn planted_key_is_redacted_in_export_and_serve() {
    let plain = scry(&home(), &["export", B, "--format", "json"]);
    assert_eq!(plain.code, 0, "{}", plain.render());
    assert!(plain.stdout.contains(KEY), "the plant is there");
    for format in ["md", "json", "html"] {
        let red = scry(&home(), &["export", B, "--format", format, "--redact"]);
        assert_eq!(red.code, 0, "{}", red.render());
        assert!(!red.stdout.contains(KEY), "{format} --redact leaks the key");
        assert!(red.stdout.contains("[redacted:"), "{format}");
    }
    let srv = crate::http::Server::start(&home(), &[]);
    let r = srv.get(&format!(
        "/v1/sessions/{}/content?turns=1",
        crate::http::enc(B)
    ));
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(!r.body.contains(KEY), "{}", r.body);
    assert!(r.body.contains("[redacted:"), "{}", r.body);
}

#[test]
fn resume_is_refused_and_the_demo_has_a_session() {
    let out = scry(&home(), &["resume", A, "--json"]);
    assert_eq!(out.code, 2, "{}", out.render());
    assert!(
        out.stderr.contains("no documented resume"),
        "{}",
        out.render()
    );
    let tmp = tempfile::tempdir().unwrap();
    let out = scry(
        tmp.path(),
        &["list", "--demo", "--provider", "continue", "--json"],
    );
    assert_eq!(out.code, 0, "{}", out.render());
    let v = out.json();
    assert_eq!(
        v["sessions"].as_array().unwrap().len(),
        1,
        "{}",
        out.render()
    );
    let uri = v["sessions"][0]["uri"].as_str().unwrap().to_string();
    let out = scry(tmp.path(), &["commands", "--demo", &uri, "--json"]);
    let v = out.json();
    assert!(
        v["commands"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["outcome"] == "failed" && c["exit_code"] == 1),
        "{}",
        out.render()
    );
}
