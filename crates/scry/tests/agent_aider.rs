//! Aider at the command line, over the real corpus (read-only; the index goes to a temporary
//! directory). Aider's history lives in the project directory: found from the directory scry
//! runs in (a subtree walk) or from the config file's `[aider] roots`, never from HOME alone.
//! Each launch is a session; the CJK prompt is found by `search` with and without the index;
//! `cat missing.txt` is in the `commands` ledger (Aider writes no exit status: unknown);
//! notes.txt is created then edited in `files`; the key is redacted by `export --redact` and
//! `serve`; `resume` prints `aider --restore-chat-history` in the project directory.

use crate::util::{corpus, scry, scry_env, scry_in};

const KEY: &str = "sk-live-TESTSECRET123456";
const FIRST: &str = "aider:20261201-221342-proj-aider";
const SECOND: &str = "aider:20261201-221409-proj-aider";
const THIRD: &str = "aider:20261201-221429-proj-aider";

fn home() -> std::path::PathBuf {
    corpus().join("real/home")
}

fn aider_uris(out: &crate::util::Out) -> Vec<String> {
    assert_eq!(out.code, 0, "{}", out.render());
    out.json()["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|s| s["uri"].as_str())
        .filter(|u| u.starts_with("aider:"))
        .map(String::from)
        .collect()
}

#[test]
fn found_from_the_working_directory_or_the_config_roots() {
    let list = ["list", "--global", "--provider", "aider", "--json"];
    // From HOME (the project is below it): three launches, three sessions.
    let mut got = aider_uris(&scry(&home(), &list));
    got.sort();
    assert_eq!(got, vec![FIRST, SECOND, THIRD]);
    // From the project directory itself, default scope: the same three.
    let proj = home().join("new/work/proj-aider");
    let got = aider_uris(&scry_in(
        &home(),
        &proj,
        &["list", "--provider", "aider", "--json"],
    ));
    assert_eq!(got.len(), 3);
    // From elsewhere: nothing, unless the config file names a root above the project.
    let elsewhere = tempfile::tempdir().unwrap();
    assert!(aider_uris(&scry_in(&home(), elsewhere.path(), &list)).is_empty());
    let cfg = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(cfg.path().join("scry")).unwrap();
    std::fs::write(
        cfg.path().join("scry/config.toml"),
        format!("[aider]\nroots = [\"{}\"]\n", home().join("new").display()),
    )
    .unwrap();
    let vars = [("XDG_CONFIG_HOME", cfg.path())];
    let got = aider_uris(&scry_env(&home(), elsewhere.path(), &vars, &list));
    assert_eq!(got.len(), 3);
    // A relative root is a usage error naming it.
    std::fs::write(
        cfg.path().join("scry/config.toml"),
        "[aider]\nroots = [\"src\"]\n",
    )
    .unwrap();
    let out = scry_env(&home(), elsewhere.path(), &vars, &list);
    assert_eq!(out.code, 2, "{}", out.render());
    assert!(out.stderr.contains("'src'"), "{}", out.render());
}

#[test]
fn lineage_and_header() {
    let out = scry(&home(), &["show", SECOND, "--json"]);
    assert_eq!(out.code, 0, "{}", out.render());
    let v = out.json();
    let s = &v["session"];
    assert_eq!(s["agent_version"], "0.86.2");
    assert_eq!(s["models"][0], "openai/mock-coder");
    assert_eq!(s["lineage"][0]["kind"], "resumed_from");
    assert_eq!(
        s["lineage"][0]["target"],
        FIRST.trim_start_matches("aider:")
    );
    assert!(s["cwd"].as_str().unwrap().ends_with("new/work/proj-aider"));
}

#[test]
fn cjk_prompt_is_found_with_and_without_the_index() {
    for extra in [None, Some("--no-index")] {
        let mut args = vec!["search", "--global", "--provider", "aider", "--json"];
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
        assert_eq!(uris, vec![THIRD], "{extra:?}: {}", out.render());
    }
}

#[test]
fn commands_and_files_ledgers() {
    let out = scry(&home(), &["commands", SECOND, "--json"]);
    assert_eq!(out.code, 0, "{}", out.render());
    let v = out.json();
    let cmds = v["commands"].as_array().unwrap();
    assert_eq!(cmds.len(), 1, "{}", out.render());
    assert_eq!(cmds[0]["command"], "cat missing.txt");
    // Aider writes no exit status for `/run`: the outcome is not claimed.
    assert_eq!(cmds[0]["exit_code"], serde_json::Value::Null);
    assert_ne!(cmds[0]["outcome"], "ok");
    let ops: Vec<(String, String)> = [FIRST, SECOND]
        .iter()
        .flat_map(|uri| {
            let out = scry(&home(), &["files", uri, "--json"]);
            assert_eq!(out.code, 0, "{}", out.render());
            out.json()["writes"]
                .as_array()
                .unwrap()
                .iter()
                .map(|w| {
                    (
                        w["display"].as_str().unwrap_or("").to_string(),
                        w["op"].as_str().unwrap_or("").to_string(),
                    )
                })
                .collect::<Vec<_>>()
        })
        .collect();
    assert_eq!(
        ops,
        vec![
            ("notes.txt".to_string(), "write".to_string()),
            ("notes.txt".to_string(), "edit".to_string())
        ]
    );
}

#[test]
fn planted_key_is_redacted_in_export_and_serve() {
    let plain = scry(&home(), &["export", THIRD, "--format", "json"]);
    assert_eq!(plain.code, 0, "{}", plain.render());
    assert!(plain.stdout.contains(KEY), "the plant is there");
    for format in ["md", "json", "html"] {
        let red = scry(&home(), &["export", THIRD, "--format", format, "--redact"]);
        assert_eq!(red.code, 0, "{}", red.render());
        assert!(!red.stdout.contains(KEY), "{format} --redact leaks the key");
        assert!(red.stdout.contains("[redacted:"), "{format}");
    }
    let srv = crate::http::Server::start(&home(), &[]);
    let r = srv.get(&format!(
        "/v1/sessions/{}/content?turns=1",
        crate::http::enc(THIRD)
    ));
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(!r.body.contains(KEY), "{}", r.body);
    assert!(r.body.contains("[redacted:"), "{}", r.body);
}

#[test]
fn resume_restores_the_chat_in_its_directory() {
    let out = scry(&home(), &["resume", SECOND, "--json"]);
    assert_eq!(out.code, 0, "{}", out.render());
    let v = out.json();
    assert_eq!(
        v["argv"],
        serde_json::json!(["aider", "--restore-chat-history"])
    );
    let text = scry(&home(), &["resume", SECOND]);
    assert!(
        text.stdout
            .contains("new/work/proj-aider && aider --restore-chat-history"),
        "{}",
        text.render()
    );
    // The demo's Aider project is inside the demo home.
    let tmp = tempfile::tempdir().unwrap();
    let got = aider_uris(&scry(
        tmp.path(),
        &["list", "--demo", "--provider", "aider", "--json"],
    ));
    assert_eq!(got, vec!["aider:20261130-234012-cli-tool"]);
}
