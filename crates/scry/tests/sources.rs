//! `scry doctor` and the source exclusions (`--exclude-provider`, `--exclude-path`,
//! `--exclude-project`, the config file) at the command line.

use crate::util::{corpus, scry, scry_env};

#[test]
fn doctor_reports_every_provider_of_the_real_corpus() {
    let home = corpus().join("real/home");
    let out = scry(&home, &["doctor", "--json"]);
    assert_eq!(out.code, 0, "{}", out.render());
    let v = out.json();
    let text = v.to_string();
    for provider in [
        "claude",
        "codex",
        "gemini",
        "dsh",
        "opencode",
        "pi",
        "deepagents",
        "qwen",
    ] {
        assert!(
            text.contains(&format!("\"{provider}\"")),
            "{provider} missing"
        );
    }
    let out = scry(&home, &["doctor"]);
    assert_eq!(out.code, 0, "{}", out.render());
    assert!(out.stdout.contains("0 failed"), "{}", out.stdout);
}

#[test]
fn excluded_providers_and_paths_leave_list() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let all = scry(tmp.path(), &["--demo", "list", "--json", "--kind", "all"]).json();
    let count = |v: &serde_json::Value, p: &str| {
        v["sessions"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|s| s["provider"] == p)
            .count()
    };
    assert!(count(&all, "claude") > 0);
    let out = scry(
        tmp.path(),
        &[
            "--demo",
            "--exclude-provider",
            "claude",
            "list",
            "--json",
            "--kind",
            "all",
        ],
    );
    assert_eq!(out.code, 0, "{}", out.render());
    let v = out.json();
    assert_eq!(count(&v, "claude"), 0);
    assert_eq!(count(&v, "codex"), count(&all, "codex"));
    let v = scry(
        tmp.path(),
        &[
            "--demo",
            "--exclude-path",
            "**/.codex/**",
            "list",
            "--json",
            "--kind",
            "all",
        ],
    )
    .json();
    assert_eq!(count(&v, "codex"), 0);
    assert_eq!(count(&v, "claude"), count(&all, "claude"));
}

#[test]
fn a_bad_exclusion_is_a_usage_error_naming_the_value() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let out = scry(
        tmp.path(),
        &["--demo", "--exclude-provider", "curosr", "list"],
    );
    assert_eq!(out.code, 2, "{}", out.render());
    assert!(out.stderr.contains("curosr"), "{}", out.stderr);
}

#[test]
fn the_config_file_excludes_and_a_broken_one_is_named() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let cfg = tmp.path().join("cfg");
    std::fs::create_dir_all(cfg.join("scry")).unwrap();
    std::fs::write(
        cfg.join("scry/config.toml"),
        "[exclude]\nproviders = [\"codex\"]\n",
    )
    .unwrap();
    let home = corpus().join("real/home");
    // The index lives in the tempdir: the corpus is read-only.
    let db = tmp.path().join("index.db");
    let out = scry_env(
        &home,
        &home,
        &[("XDG_CONFIG_HOME", &cfg), ("SCRY_DB", &db)],
        &["list", "--global", "--json", "--kind", "all"],
    );
    assert_eq!(out.code, 0, "{}", out.render());
    assert!(!out.stdout.contains("\"codex\""), "{}", out.stdout);
    std::fs::write(cfg.join("scry/config.toml"), "[exclude]\nprovider = 3\n").unwrap();
    let out = scry_env(
        &home,
        &home,
        &[("XDG_CONFIG_HOME", &cfg), ("SCRY_DB", &db)],
        &["list", "--global"],
    );
    assert_eq!(out.code, 2, "{}", out.render());
    assert!(out.stderr.contains("config.toml"), "{}", out.stderr);
}
