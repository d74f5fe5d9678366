//! `list` answered by SQL over the index (issue 16) prints what a direct parse prints: text and
//! JSON, every flag, page by page, on a home with subagents (the corpus), one session id in two
//! project folders whose names make text order and path order disagree, scoped sessions, and
//! with exclusions in force (which the index does not answer, so the full read must).

use std::path::Path;

use crate::util::{claude_session, corpus, scry_env, Out};

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let (src, dst) = (e.path(), to.join(e.file_name()));
        let ty = e.file_type().unwrap();
        if ty.is_dir() {
            copy_dir(&src, &dst);
        } else if ty.is_file() {
            std::fs::copy(&src, &dst).unwrap();
        }
    }
}

/// Runs `scry args…` in `cwd` with the index at `db` (or none: `--no-index`).
fn run(home: &Path, cwd: &Path, db: Option<&Path>, args: &[&str]) -> Out {
    let dir = tempfile::tempdir().unwrap();
    let unused = dir.path().join("unused.db");
    let mut all: Vec<&str> = Vec::new();
    if db.is_none() {
        all.push("--no-index");
    }
    all.extend_from_slice(args);
    let out = scry_env(home, cwd, &[("SCRY_DB", db.unwrap_or(&unused))], &all);
    out.assert_no_panic();
    out
}

#[test]
fn indexed_pages_equal_direct_pages_for_every_flag() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    copy_dir(&corpus().join("real/home"), h);
    let proj = h.join("proj");
    let sub = proj.join("sub");
    std::fs::create_dir_all(&sub).unwrap();
    let s = |p: &Path| p.display().to_string();
    // Claude sessions in this home's directories: two in `proj`, one below it.
    claude_session(h, "11110001-1111-4111-8111-111111111111", &s(&proj), 1);
    claude_session(h, "11110002-1111-4111-8111-111111111111", &s(&sub), 2);
    let twin = claude_session(h, "11110003-1111-4111-8111-111111111111", &s(&proj), 1);
    // The same session in a second project folder: a tie of time and uri, ordered by path,
    // where `-test-proj-copy/…` sorts before `-test-proj/…` as text but after it by component.
    let copy = h.join(".claude/projects/-test-proj-copy");
    std::fs::create_dir_all(&copy).unwrap();
    std::fs::copy(&twin, copy.join(twin.file_name().unwrap())).unwrap();

    let db_dir = tempfile::tempdir().unwrap();
    let db = db_dir.path().join("index.db");
    let global: &[&[&str]] = &[
        &["--global"],
        &["--global", "--limit", "1"],
        &["--global", "--limit", "2"],
        &["--global", "--limit", "7"],
        &["--global", "--kind", "all", "--limit", "3"],
        &["--global", "--kind", "all", "--limit", "1000"],
        &["--global", "--kind", "exec"],
        &["--global", "--kind", "subagent", "--limit", "2"],
        &["--global", "--kind", "main"],
        &["--global", "--provider", "claude,codex", "--limit", "3"],
        &["--global", "--since", "2026-11-30T16:00:00Z"],
        &["--global", "--since", "2000-01-01", "--limit", "4"],
        &["--scope", "proj"],
        &["--scope", "proj/sub", "--kind", "all"],
        &["--scope", "proj", "--limit", "1"],
    ];
    let mut compared = 0;
    let mut saw_tie = false;
    for args in global {
        for json in [false, true] {
            let mut a: Vec<&str> = vec!["list"];
            a.extend_from_slice(args);
            if json {
                a.push("--json");
            }
            let mut cursor: Option<String> = None;
            for page in 0..12 {
                let mut with = a.clone();
                if let Some(c) = &cursor {
                    with.extend_from_slice(&["--cursor", c]);
                }
                let indexed = run(h, h, Some(&db), &with);
                let direct = run(h, h, None, &with);
                assert_eq!(indexed.code, 0, "{with:?}\n{}", indexed.render());
                assert_eq!(
                    indexed.render(),
                    direct.render(),
                    "{with:?} page {page}: indexed vs direct"
                );
                compared += 1;
                if !json {
                    break;
                }
                let v = indexed.json();
                let uris: Vec<&str> = v["sessions"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .filter_map(|s| s["uri"].as_str())
                    .collect();
                saw_tie |= uris.iter().filter(|u| u.contains("11110003")).count() == 2;
                match v["next_cursor"].as_str() {
                    Some(c) => cursor = Some(c.to_string()),
                    None => break,
                }
            }
        }
    }
    assert!(compared > 40, "{compared}");
    assert!(saw_tie, "the copied session never showed twice on one page");

    // Exclusions the index cannot express (a path glob, a project): the full read answers,
    // the same as a direct parse.
    for ex in [
        ["--exclude-path", "**/-test-proj-copy/**"],
        ["--exclude-project", proj.to_str().unwrap()],
    ] {
        for json in [false, true] {
            let mut a = vec![ex[0], ex[1], "list", "--global", "--kind", "all"];
            if json {
                a.push("--json");
            }
            let indexed = run(h, h, Some(&db), &a);
            assert_eq!(indexed.code, 0, "{}", indexed.render());
            assert_eq!(indexed.render(), run(h, h, None, &a).render(), "{a:?}");
        }
    }
}
