//! The index at the CLI level (SPEC S-I4, S-I5, S-S5, S-C5, S-C8): `list`, `show`, `turns`, `turn`
//! and `search` print byte-identical output (text and JSON, stderr and exit status included)
//! with the index and with `--no-index`, on the demo corpus and on the real corpus home; an
//! appended line shows up on the next run; usage errors of `search` exit 2; `index` reports
//! what it did and a second run finds everything unchanged.

use std::io::Write;
use std::path::Path;

use crate::util::{all_uris, claude_line, claude_session, corpus, scry_env};

/// Search shapes run on both corpora (each also with `--json`).
const SEARCHES: &[&[&str]] = &[
    &["search", "the"],
    &["search", "会"],
    &["search", "会话"],
    &["search", "--regex", "err(or)?s?"],
    &["search", "--regex", r"\d{2,}|[A-Z][a-z]+"],
    &["search", "--terms", r#"["test","file"]"#, "--area", "all"],
    &[
        "search",
        "--terms",
        r#"["test","file"]"#,
        "--operator",
        "or",
        "--area",
        "all",
    ],
    &["search", "The", "--case"],
    &["search", "e", "--area", "tools", "--max-hits", "2"],
    &["search", "the", "--kind", "thinking"],
    &["search", "the", "--since", "3000d", "--sort", "time"],
    &[
        "search",
        "a",
        "--area",
        "all",
        "--limit",
        "3",
        "--context",
        "10",
    ],
];

/// Runs `args` with and without `--no-index` and asserts identical output; returns the output.
fn same(home: &Path, db: &Path, args: &[&str]) -> String {
    let vars = [("SCRY_DB", db)];
    let indexed = scry_env(home, home, &vars, args);
    let mut direct_args = args.to_vec();
    direct_args.push("--no-index");
    let direct = scry_env(home, home, &vars, &direct_args);
    indexed.assert_no_panic();
    assert_eq!(
        indexed.render(),
        direct.render(),
        "scry {} differs with the index",
        args.join(" ")
    );
    indexed.render()
}

fn check_home(home: &Path, db: &Path, extra: &[&str], scope: &[&str]) -> usize {
    let with = |args: &[&str]| -> Vec<String> {
        let mut v: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        v.extend(extra.iter().map(|s| s.to_string()));
        v
    };
    let run = |args: Vec<String>| {
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        same(home, db, &refs)
    };
    for args in [
        &["list", "--global"][..],
        &["list", "--global", "--json", "--kind", "all"],
    ] {
        run(with(args));
    }
    let mut shapes = 0;
    for s in SEARCHES {
        let mut args = with(s);
        args.extend(scope.iter().map(|s| s.to_string()));
        run(args.clone());
        args.push("--json".into());
        let out = run(args);
        assert!(out.contains("total_matches"), "{out}");
        shapes += 1;
    }
    let uris = all_uris(home, extra.contains(&"--demo"));
    assert!(!uris.is_empty());
    for uri in &uris {
        for args in [
            vec!["show", uri.as_str()],
            vec!["show", "--json", uri.as_str()],
            vec!["turns", uri.as_str()],
            vec!["turns", "--json", uri.as_str()],
            vec!["turn", uri.as_str(), "1"],
            vec!["turn", "--json", uri.as_str(), "--event", "1-50"],
        ] {
            run(with(&args));
        }
        // Within one session.
        run(with(&[
            "search",
            "the",
            "--session",
            uri.as_str(),
            "--json",
        ]));
    }
    shapes
}

#[test]
fn demo_indexed_equals_direct() {
    let home = tempfile::tempdir().unwrap();
    let db = tempfile::tempdir().unwrap();
    let db = db.path().join("unused.db");
    let shapes = check_home(
        home.path(),
        &db,
        &["--demo"],
        &["--scope", "/home/demo/projects/webapp"],
    );
    assert!(shapes >= 10);
    // The demo has its own index beside the extracted demo home, never SCRY_DB's.
    assert!(!db.exists(), "--demo wrote the user's index");
    let demo_index = walkdir::WalkDir::new(home.path())
        .into_iter()
        .filter_map(Result::ok)
        .any(|e| e.file_name() == "index.db");
    assert!(demo_index, "no demo index beside the demo home");
}

#[test]
fn real_home_indexed_equals_direct() {
    let home = corpus().join("real/home").canonicalize().unwrap();
    let db = tempfile::tempdir().unwrap();
    let shapes = check_home(&home, &db.path().join("index.db"), &[], &["--global"]);
    assert!(shapes >= 10);
}

#[test]
fn appended_line_shows_up_on_the_next_run() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let db = tempfile::tempdir().unwrap();
    let db = db.path().join("index.db");
    let vars = [("SCRY_DB", db.as_path())];
    let id = "11111111-2222-3333-4444-555555555555";
    let file = claude_session(h, id, "/work/proj", 2);
    let run = |args: &[&str]| scry_env(h, h, &vars, args);
    let before = run(&["search", "zebracorn", "--global", "--json"]).json();
    assert_eq!(before["total_matches"], 0);
    let list = run(&["list", "--global", "--json"]).json();
    assert_eq!(list["sessions"][0]["updated"], "2026-11-20T10:03:00Z");
    assert!(db.exists(), "the index was not created");

    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&file)
        .unwrap();
    writeln!(
        f,
        "{}",
        claude_line("user", id, 9, "/work/proj", "now the zebracorn")
    )
    .unwrap();
    drop(f);
    let after = run(&["search", "zebracorn", "--global", "--json"]).json();
    assert_eq!(after["total_matches"], 1, "{after}");
    assert_eq!(after["sessions"][0]["hits"][0]["event"], 5);
    let list = run(&["list", "--global", "--json"]).json();
    assert_eq!(list["sessions"][0]["updated"], "2026-11-20T10:09:00Z");
    let direct = scry_env(
        h,
        h,
        &vars,
        &["search", "zebracorn", "--global", "--no-index"],
    );
    assert_eq!(
        direct.render(),
        run(&["search", "zebracorn", "--global"]).render()
    );
}

#[test]
fn search_usage_errors_exit_2() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    claude_session(h, "11111111-2222-3333-4444-555555555555", "/work/proj", 3);
    claude_session(h, "66666666-2222-3333-4444-555555555555", "/work/proj", 2);
    let db = tempfile::tempdir().unwrap();
    let db = db.path().join("index.db");
    let vars = [("SCRY_DB", db.as_path())];
    for extra in [&[][..], &["--no-index"][..]] {
        let mut args = vec!["search", "--regex", "(unclosed", "--global"];
        args.extend(extra);
        let out = scry_env(h, h, &vars, &args);
        assert_eq!(out.code, 2, "{}", out.render());
        assert!(
            out.stderr.contains("'(unclosed'") && out.stderr.lines().count() == 1,
            "{}",
            out.render()
        );
        let mut args = vec!["search", "--regex", "(unclosed", "--global", "--json"];
        args.extend(extra);
        let out = scry_env(h, h, &vars, &args);
        assert_eq!(out.json()["error"]["code"], "INVALID_QUERY");

        // A cursor of another query is stale.
        let first = scry_env(
            h,
            h,
            &vars,
            &["search", "prompt", "--global", "--json", "--limit", "1"],
        )
        .json();
        let cursor = first["next_cursor"]
            .as_str()
            .expect("two sessions: a next page");
        let mut args = vec!["search", "answer", "--global", "--cursor", cursor];
        args.extend(extra);
        let out = scry_env(h, h, &vars, &args);
        assert_eq!(out.code, 2, "{}", out.render());
    }
}

#[test]
fn index_command_reports_and_is_idempotent() {
    let home = corpus().join("real/home").canonicalize().unwrap();
    let db = tempfile::tempdir().unwrap();
    let db = db.path().join("index.db");
    let vars = [("SCRY_DB", db.as_path())];
    let first = scry_env(&home, &home, &vars, &["index", "--json"]);
    assert_eq!(first.code, 0, "{}", first.render());
    let first = first.json();
    let files = first["files"].as_u64().unwrap();
    assert!(files > 0);
    assert_eq!(first["unchanged"], 0);
    let second = scry_env(&home, &home, &vars, &["index", "--json"]).json();
    assert_eq!(second["files"].as_u64(), Some(files));
    assert_eq!(second["unchanged"].as_u64(), Some(files), "{second}");
    assert_eq!(second["parsed"], 0);
    // Piped: no progress bar on stderr.
    let text = scry_env(&home, &home, &vars, &["index", "--force"]);
    assert_eq!(text.code, 0);
    assert!(text.stderr.is_empty(), "{}", text.render());
    assert!(
        text.stdout.contains(&format!("{files} files:")),
        "{}",
        text.stdout
    );
    // `index` with --no-index is a usage error.
    let out = scry_env(&home, &home, &vars, &["index", "--no-index"]);
    assert_eq!(out.code, 2);
}

#[test]
fn cjk_one_and_two_characters_match_as_substrings() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let id = "77777777-2222-3333-4444-555555555555";
    let file = claude_session(h, id, "/work/proj", 1);
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&file)
        .unwrap();
    writeln!(
        f,
        "{}",
        claude_line("user", id, 7, "/work/proj", "请做跨会话检索")
    )
    .unwrap();
    drop(f);
    let db = tempfile::tempdir().unwrap();
    let db = db.path().join("index.db");
    let prompt = "请做跨会话检索";
    for q in ["会", "会话", "跨会话检索"] {
        // Character offset of `q` in the prompt, counted independently of scry.
        let start = prompt[..prompt.find(q).unwrap()].chars().count();
        let out = same(h, &db, &["search", q, "--global", "--json"]);
        let v: serde_json::Value =
            serde_json::from_str(out.split("[exit status").next().unwrap_or("")).unwrap();
        assert_eq!(v["total_matches"], 1, "{q}: {out}");
        assert_eq!(
            v["sessions"][0]["hits"][0]["ranges"][0],
            serde_json::json!([start, start + q.chars().count()]),
            "{q}"
        );
    }
}

#[test]
fn an_unusable_index_location_still_reads() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    claude_session(h, "88888888-2222-3333-4444-555555555555", "/work/proj", 2);
    // A regular file as the index's directory: the index cannot be created.
    let blocker = h.join("not-a-dir");
    std::fs::write(&blocker, "x").unwrap();
    let db = blocker.join("index.db");
    let vars = [("SCRY_DB", db.as_path())];
    for args in [
        &["list", "--global"][..],
        &["show", "88888888"],
        &["turns", "88888888"],
        &["turn", "88888888", "1"],
        &["search", "prompt", "--global"],
    ] {
        let out = scry_env(h, h, &vars, args);
        assert_eq!(out.code, 0, "{}", out.render());
        assert!(out.stderr.contains("index unavailable"), "{}", out.render());
        let mut direct = args.to_vec();
        direct.push("--no-index");
        assert_eq!(out.stdout, scry_env(h, h, &vars, &direct).stdout);
    }
}
