//! Issue 15, defect 5: two files holding the same session id (a copied project folder, a backup
//! copy opened by path). Each file is a session of its own: `list` and `search` with the index
//! equal `--no-index` (same sessions, hits, order), `show <id>` names each candidate once with
//! its path, `show <path>` opens either, and nothing stays wrong after one copy changes.
//!
//! The homes are built from the real-format corpus (`real/home`): its Claude session (with its
//! subagent) and a Codex rollout, each copied a second time where discovery finds it.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::util::{claude_line, corpus, scry_env, Out};

const CLAUDE_ID: &str = "029942d1-8e5d-4155-96e8-b9fe03dadf8d";
const CLAUDE_PROJECT: &str = ".claude/projects/-home-dev-work-proj-claude";
const CODEX_DAY: &str = ".codex/sessions/2026/11/30";
const CODEX_FILE: &str = "rollout-2026-11-30T14-52-36-01a22cf1-88a4-7de1-a508-335da749c9f9.jsonl";

/// Copies the directory tree `from` to `to`, every file writable (the corpus is read-only).
fn copy_tree(from: &Path, to: &Path) {
    for entry in walkdir::WalkDir::new(from) {
        let entry = entry.expect("walk corpus");
        let rel = entry.path().strip_prefix(from).expect("under the corpus");
        let dest = to.join(rel);
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&dest).expect("mkdir");
        } else {
            std::fs::copy(entry.path(), &dest).expect("copy");
            let mut perm = std::fs::metadata(&dest).expect("stat").permissions();
            #[allow(clippy::permissions_set_readonly_false)]
            perm.set_readonly(false);
            std::fs::set_permissions(&dest, perm).expect("chmod");
        }
    }
}

/// A home with the corpus Claude project twice (the second folder a copy: same session id, two
/// paths) and one Codex rollout twice (another day's folder). Returns the home and the paths of
/// the two Claude session files.
fn home_with_copies() -> (tempfile::TempDir, [PathBuf; 2]) {
    let home = tempfile::tempdir().expect("tempdir");
    let real = corpus().join("real/home");
    let h = home.path();
    copy_tree(&real.join(CLAUDE_PROJECT), &h.join(CLAUDE_PROJECT));
    let copy = format!("{CLAUDE_PROJECT}-copy");
    copy_tree(&real.join(CLAUDE_PROJECT), &h.join(&copy));
    for day in [CODEX_DAY, ".codex/sessions/2026/12/01"] {
        std::fs::create_dir_all(h.join(day)).expect("mkdir");
        std::fs::copy(
            real.join(CODEX_DAY).join(CODEX_FILE),
            h.join(day).join(CODEX_FILE),
        )
        .expect("copy codex");
    }
    let file = format!("{CLAUDE_ID}.jsonl");
    let paths = [h.join(CLAUDE_PROJECT).join(&file), h.join(copy).join(&file)];
    (home, paths)
}

/// Runs scry in `home` against the index `db` (`None`: `--no-index`).
fn run(home: &Path, db: Option<&Path>, args: &[&str]) -> Out {
    let mut all: Vec<&str> = Vec::new();
    if db.is_none() {
        all.push("--no-index");
    }
    all.extend_from_slice(args);
    let none = home.join("unused-index.db");
    let vars = [("SCRY_DB", db.unwrap_or(&none))];
    let out = scry_env(home, home, &vars, &all);
    out.assert_no_panic();
    out
}

fn json_ok(home: &Path, db: Option<&Path>, args: &[&str]) -> Value {
    let out = run(home, db, args);
    assert_eq!(out.code, 0, "scry {}: {}", args.join(" "), out.render());
    out.json()
}

/// The commands whose JSON must be identical with and without the index.
const COMPARED: &[&[&str]] = &[
    &["list", "--global", "--json"],
    &["list", "--global", "--kind", "all", "--json"],
    &["search", "--global", "the", "--json", "--max-hits", "50"],
    &["search", "--global", "file", "--area", "all", "--json"],
    &["search", "--global", "notes", "--sort", "time", "--json"],
];

fn assert_indexed_equals_direct(home: &Path, db: &Path) {
    for args in COMPARED {
        let indexed = json_ok(home, Some(db), args);
        let direct = json_ok(home, None, args);
        assert_eq!(
            indexed,
            direct,
            "scry {} differs with the index",
            args.join(" ")
        );
    }
}

/// The primary source path of every session a search found.
fn search_sources(v: &Value) -> Vec<String> {
    v["sessions"]
        .as_array()
        .expect("sessions")
        .iter()
        .filter_map(|s| s["session"]["sources"][0].as_str().map(str::to_string))
        .collect()
}

#[test]
fn copied_project_folder_indexed_equals_direct() {
    let (home, [a, b]) = home_with_copies();
    let h = home.path();
    let db_dir = tempfile::tempdir().expect("tempdir");
    let db = db_dir.path().join("index.db");

    // Every copy is a session: both Claude files (and their subagents) are listed and searched.
    let listed = json_ok(
        h,
        Some(&db),
        &["list", "--global", "--kind", "all", "--json"],
    );
    let uris: Vec<&str> = listed["sessions"]
        .as_array()
        .expect("sessions")
        .iter()
        .filter_map(|s| s["uri"].as_str())
        .collect();
    let claude_uri = format!("claude:{CLAUDE_ID}");
    assert_eq!(
        uris.iter().filter(|u| **u == claude_uri).count(),
        2,
        "{uris:?}"
    );
    let found = json_ok(h, Some(&db), &["search", "--global", "the", "--json"]);
    let sources = search_sources(&found);
    for p in [&a, &b] {
        let p = p.display().to_string();
        assert_eq!(
            sources.iter().filter(|s| **s == p).count(),
            1,
            "{sources:?}"
        );
    }
    assert_indexed_equals_direct(h, &db);

    // After `index --all`, one copy changes: still two sessions, each with its own content.
    let out = run(h, Some(&db), &["index", "--all"]);
    assert_eq!(out.code, 0, "{}", out.render());
    let line = claude_line(
        "user",
        CLAUDE_ID,
        90,
        "/home/dev/work/proj-claude",
        "zanzibarquokka only in the copy",
    );
    let mut body = std::fs::read_to_string(&b).expect("read copy");
    body.push_str(&line);
    body.push('\n');
    std::fs::write(&b, body).expect("append to copy");
    assert_indexed_equals_direct(h, &db);
    let found = json_ok(
        h,
        Some(&db),
        &["search", "--global", "zanzibarquokka", "--json"],
    );
    assert_eq!(found["total_sessions"], 1, "{found}");
    assert_eq!(search_sources(&found), [b.display().to_string()]);
    let found = json_ok(h, Some(&db), &["search", "--global", "the", "--json"]);
    assert_eq!(search_sources(&found).len(), sources.len(), "{found}");
}

#[test]
fn show_names_each_copy_once_with_its_path() {
    let (home, paths) = home_with_copies();
    let h = home.path();
    let db_dir = tempfile::tempdir().expect("tempdir");
    let db = db_dir.path().join("index.db");
    for db in [Some(db.as_path()), None] {
        let out = run(h, db, &["show", &CLAUDE_ID[..8]]);
        assert_eq!(out.code, 3, "{}", out.render());
        let line = out.stderr.trim();
        assert_eq!(line.lines().count(), 1, "{line}");
        for p in &paths {
            let p = p.display().to_string();
            assert_eq!(line.matches(&p).count(), 1, "{p} in {line}");
        }
        let out = run(h, db, &["show", "--json", CLAUDE_ID]);
        assert_eq!(out.code, 3, "{}", out.render());
        let err = &out.json()["error"];
        assert_eq!(err["code"], "AMBIGUOUS_ID");
        let mut candidates: Vec<String> = err["candidates"]
            .as_array()
            .expect("candidates")
            .iter()
            .filter_map(|c| c.as_str().map(str::to_string))
            .collect();
        candidates.sort();
        let mut want: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
        want.sort();
        assert_eq!(
            candidates, want,
            "each candidate once, as the path that picks it"
        );
        // The path picks one; both open, each as itself.
        for p in &paths {
            let p = p.display().to_string();
            let v = json_ok(h, db, &["show", "--json", &p]);
            let v = if v.get("session").is_some() {
                v["session"].clone()
            } else {
                v
            };
            assert_eq!(v["sources"][0], p.as_str(), "{v}");
            assert_eq!(v["id"], CLAUDE_ID);
        }
    }
    // Each candidate picked by its path reads the same with and without the index.
    for p in &paths {
        let p = p.display().to_string();
        for args in [
            vec!["show", "--json", p.as_str()],
            vec!["turns", "--json", p.as_str()],
            vec!["commands", "--json", p.as_str()],
            vec!["files", "--json", p.as_str()],
        ] {
            let indexed = json_ok(h, Some(&db), &args);
            let direct = json_ok(h, None, &args);
            assert_eq!(indexed, direct, "scry {}", args.join(" "));
        }
    }
}

#[test]
fn backup_copy_opened_by_path_does_not_displace_the_session() {
    let (home, [a, _]) = home_with_copies();
    let h = home.path();
    // Only one Claude copy is discovered; the other is a backup outside every root.
    std::fs::remove_dir_all(h.join(format!("{CLAUDE_PROJECT}-copy"))).expect("rm copy");
    let backup_dir = tempfile::tempdir().expect("tempdir");
    let backup = backup_dir.path().join(format!("{CLAUDE_ID}.jsonl"));
    std::fs::copy(&a, &backup).expect("backup");
    let db_dir = tempfile::tempdir().expect("tempdir");
    let db = db_dir.path().join("index.db");

    let out = run(h, Some(&db), &["index", "--all"]);
    assert_eq!(out.code, 0, "{}", out.render());
    let b = backup.display().to_string();
    let shown = json_ok(h, Some(&db), &["show", "--json", &b]);
    let shown = if shown.get("session").is_some() {
        shown["session"].clone()
    } else {
        shown
    };
    assert_eq!(shown["sources"][0], b.as_str(), "{shown}");
    let out = run(h, Some(&db), &["index", "--all"]);
    assert_eq!(out.code, 0, "{}", out.render());
    assert_indexed_equals_direct(h, &db);
    let found = json_ok(h, Some(&db), &["search", "--global", "the", "--json"]);
    assert!(
        search_sources(&found).contains(&a.display().to_string()),
        "the discovered session is still searched: {found}"
    );
    // The discovered one still opens by id, from the index.
    let out = run(h, Some(&db), &["show", CLAUDE_ID]);
    assert_eq!(out.code, 0, "{}", out.render());
}
