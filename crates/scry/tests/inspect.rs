//! `scry inspect` against every output of the real `inspect_sessions.py` (deepagents-code
//! 0.1.57) in `corpus/langgraph/inspector/<db>/`: the same call gives byte-identical stdout (the
//! `database` path aside), and the error cases the same stderr and exit code (except that
//! "not found" and "ambiguous" exit 3, SPEC §3). The six files where
//! that script is wrong (LangGraph's own rebuild in `expected/` proves it) are skipped here and
//! checked field by field in `crates/scry-langgraph/tests/inspector.rs`.

use std::path::{Path, PathBuf};

use crate::util::{corpus, scry};

/// Files where 0.1.57 is wrong (delta snapshots of threads …0e / …0f, parallel tool results of
/// dcode …e207 replayed by task_id instead of task_path).
const WRONG_IN_0_1_57: &[&str] = &[
    "langgraph/transcript_019b0000-0000-7000-8000-00000000000e.json",
    "langgraph/summary_meta_019b0000-0000-7000-8000-00000000000e.json",
    "langgraph/transcript_019b0000-0000-7000-8000-00000000000f.json",
    "langgraph/summary_meta_019b0000-0000-7000-8000-00000000000f.json",
    "dcode/latest-turn_01a22ce5-e207-7051-9c51-52e64cb7c602.json",
    "dcode/transcript_01a22ce5-e207-7051-9c51-52e64cb7c602.json",
];

/// The script's command line for each recorded output file.
fn args_for(stem: &str) -> Vec<String> {
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    if stem == "list5" {
        s(&["--list", "5"])
    } else if stem == "list50_with_ignored_flags" {
        s(&["--list", "50", "--mode", "transcript", "--include-metadata"])
    } else if stem == "error_not_found" {
        s(&["does-not-exist"])
    } else if stem == "error_prefix_0" {
        s(&["0"])
    } else if let Some(id) = stem.strip_prefix("transcript_") {
        s(&[id, "--mode", "transcript"])
    } else if let Some(id) = stem.strip_prefix("latest-turn_") {
        s(&[&id[..18]])
    } else if let Some(id) = stem.strip_prefix("summary_meta_") {
        s(&[
            id,
            "--mode",
            "summary",
            "--include-metadata",
            "--max-content",
            "50",
        ])
    } else {
        panic!("unexpected inspector file {stem}")
    }
}

fn check_dir(name: &str, db: &Path) -> usize {
    let home = tempfile::tempdir().expect("tempdir");
    let dir = corpus().join("langgraph/inspector").join(name);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("inspector dir")
        .map(|e| e.expect("entry").path())
        .collect();
    files.sort();
    let db_text = std::fs::canonicalize(db).expect("db").display().to_string();
    let mut checked = 0;
    for path in files {
        let file = path.file_name().unwrap().to_string_lossy().into_owned();
        let rel = format!("{name}/{file}");
        let stem = file.rsplit_once('.').map_or(file.as_str(), |(s, _)| s);
        let is_error = file.ends_with(".stderr");
        if (file.ends_with(".json") && std::fs::metadata(&path).unwrap().len() == 0)
            || WRONG_IN_0_1_57.contains(&rel.as_str())
        {
            continue;
        }
        let mut args = vec!["inspect".to_string(), "--db".to_string(), db_text.clone()];
        args.extend(args_for(stem));
        let argv: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = scry(home.path(), &argv);
        if is_error {
            let text = std::fs::read_to_string(&path).unwrap();
            let mut lines: Vec<&str> = text.lines().collect();
            let rc = match lines.last() {
                Some(l) if l.starts_with("rc=") => {
                    let rc = l[3..].parse().unwrap();
                    lines.pop();
                    rc
                }
                _ => 1,
            };
            // The script exits 1 for everything; scry exits 3 for "not found" and
            // "ambiguous" (SPEC §3), with the script's message unchanged.
            let rc = if lines.first().is_some_and(|l| {
                l.starts_with("Thread not found:") || l.starts_with("Thread prefix is ambiguous:")
            }) {
                3
            } else {
                rc
            };
            assert_eq!(out.code, rc, "{rel}\n{}", out.render());
            assert_eq!(out.stderr.trim_end(), lines.join("\n"), "{rel}");
            assert!(out.stdout.is_empty(), "{rel}");
        } else {
            let want = std::fs::read_to_string(&path).unwrap();
            let recorded: serde_json::Value = serde_json::from_str(&want).unwrap();
            let recorded_db = recorded["database"].as_str().unwrap();
            assert_eq!(out.code, 0, "{rel}\n{}", out.render());
            assert_eq!(out.stdout.replace(&db_text, recorded_db), want, "{rel}");
        }
        checked += 1;
    }
    checked
}

#[test]
fn inspect_matches_the_reference_inspector_on_the_langgraph_db() {
    let db = corpus().join("langgraph/langgraph/sessions.db");
    // 25 recorded calls of which 4 are the script's known errors on …0e / …0f.
    assert_eq!(check_dir("langgraph", &db), 21);
}

#[test]
fn inspect_matches_the_reference_inspector_on_the_dcode_db() {
    let db = corpus().join("langgraph/dcode/home/.deepagents/.state/sessions.db");
    // 28 recorded calls of which 2 are the script's known error on …e207.
    assert_eq!(check_dir("dcode", &db), 26);
}

#[test]
fn inspect_usage_errors_keep_the_scripts_messages() {
    let home = tempfile::tempdir().expect("tempdir");
    let out = scry(home.path(), &["inspect"]);
    assert_eq!(out.code, 1);
    assert_eq!(out.stderr.trim_end(), "Provide a thread ID or use --list N");
    let out = scry(home.path(), &["inspect", "abc", "--list", "2"]);
    assert_eq!(
        out.stderr.trim_end(),
        "Use either a thread ID or --list N, not both"
    );
    let out = scry(home.path(), &["inspect", "--list", "0"]);
    assert_eq!(out.stderr.trim_end(), "--list must be positive");
    let out = scry(home.path(), &["inspect", "--mode", "everything", "abc"]);
    assert_eq!(out.code, 2, "{}", out.render());
}

#[test]
fn inspect_reads_the_demo_deep_agents_database() {
    let home = tempfile::tempdir().expect("tempdir");
    let out = scry(home.path(), &["--demo", "inspect", "--list", "5"]);
    assert_eq!(out.code, 0, "{}", out.render());
    let v = out.json();
    assert!(!v["threads"].as_array().unwrap().is_empty());
}
