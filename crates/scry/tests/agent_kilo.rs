//! Kilo CLI at the CLI level, on the corpus database Kilo CLI 7.7.9 wrote (corpus/real, notes
//! kilo.md): listing with the subagent child, the CJK prompt found by search (index and
//! `--no-index`), the failed `cat missing.txt` in the commands ledger, notes.txt in the files
//! ledger, the planted key redacted by `serve` and `export --redact`, and the live WAL trio read
//! through the index without touching the agent's three files.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::http::{enc, Server};
use crate::util::{all_uris, corpus, scry, scry_env};

const MAIN: &str = "kilo:ses_dcc5306e9ffeDxDok7PdnFdKIE";
const CHILD: &str = "kilo:ses_dcc4fd7bdffebAeAbYG85FAU2O";
const CJK: &str = "kilo:ses_dcc4cdd9affe7t35agMQZeWqAT";
const KEY: &str = "sk-live-TESTSECRET123456";

fn home() -> PathBuf {
    corpus().join("real/home")
}

fn kilo_uris(home: &Path) -> Vec<String> {
    let mut v: Vec<String> = all_uris(home, false)
        .into_iter()
        .filter(|u| u.starts_with("kilo:"))
        .collect();
    v.sort();
    v
}

#[test]
fn lists_the_three_sessions_with_the_child() {
    assert_eq!(kilo_uris(&home()), [CJK, CHILD, MAIN]);
    let out = scry(&home(), &["trace", CHILD, "--json", "--no-index"]);
    assert_eq!(out.code, 0, "{}", out.render());
    assert!(out.stdout.contains(MAIN), "{}", out.stdout);
}

#[test]
fn cjk_prompt_is_found_with_and_without_the_index() {
    for extra in [None, Some("--no-index")] {
        let mut args = vec!["search", "跨会话检索", "--global", "--json"];
        args.extend(extra);
        let out = scry(&home(), &args);
        assert_eq!(out.code, 0, "{extra:?}: {}", out.render());
        let v = out.json();
        let hits: Vec<&str> = v["sessions"]
            .as_array()
            .unwrap_or_else(|| panic!("{v}"))
            .iter()
            .filter_map(|s| s["session"]["uri"].as_str())
            .filter(|u| u.starts_with("kilo:"))
            .collect();
        assert_eq!(hits, [CJK], "{extra:?}");
    }
}

#[test]
fn failed_commands_and_the_notes_file_are_in_the_ledgers() {
    let out = scry(&home(), &["commands", MAIN, "--json"]);
    assert_eq!(out.code, 0, "{}", out.render());
    let v = out.json();
    let rows: Vec<(String, Option<i64>, String)> = v["commands"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["command"].as_str().unwrap().to_string(),
                c["exit_code"].as_i64(),
                c["outcome"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let row = |c: &str, e: i64, o: &str| (c.to_string(), Some(e), o.to_string());
    assert_eq!(
        rows,
        [
            row("ls -la", 0, "succeeded"),
            row("cat missing.txt", 1, "failed"),
            row("false", 1, "failed"),
        ]
    );
    let out = scry(&home(), &["files", MAIN, "--json"]);
    assert_eq!(out.code, 0, "{}", out.render());
    let v = out.json();
    let files: Vec<&str> = v["files"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|f| f["path"].as_str())
        .collect();
    assert_eq!(files, ["/home/dev/new/work/proj-kilo/notes.txt"]);
    assert_eq!(v["counts"]["write_events"]["project"], 2, "write + edit");
}

#[test]
fn the_planted_key_is_redacted_by_serve_and_export() {
    // The raw database holds it verbatim (notes: stored by the agent).
    let out = scry(&home(), &["export", CJK, "--format", "json", "--no-index"]);
    assert_eq!(out.code, 0, "{}", out.render());
    assert!(out.stdout.contains(KEY), "the unredacted export has it");
    let out = scry(
        &home(),
        &["export", CJK, "--format", "json", "--redact", "--no-index"],
    );
    assert_eq!(out.code, 0, "{}", out.render());
    assert!(!out.stdout.contains(KEY), "{}", out.stdout);
    assert!(out.stdout.contains("[redacted:"));
    let srv = Server::start(&home(), &[]);
    let r = srv.get(&format!("/v1/sessions/{}/content?turns=1", enc(CJK)));
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(!r.body.contains(KEY), "{}", r.body);
    assert!(r.body.contains("[redacted:"), "{}", r.body);
}

/// Every file under `dir`: name, bytes, mtime.
fn snapshot(dir: &Path) -> Vec<(String, Vec<u8>, std::time::SystemTime)> {
    let mut v: Vec<_> = fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| {
            (
                e.file_name().to_string_lossy().into_owned(),
                fs::read(e.path()).unwrap(),
                e.metadata().unwrap().modified().unwrap(),
            )
        })
        .collect();
    v.sort();
    v
}

/// The live trio as Kilo left it (copied first: SQLite must never touch the corpus): `index`,
/// `list` and `show` through the index see all three sessions, as from the checkpointed copy,
/// and the db, -wal and -shm keep their bytes and mtimes with no file added.
#[test]
fn live_wal_is_indexed_without_touching_the_three_files() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join(".local/share/kilo");
    fs::create_dir_all(&dir).unwrap();
    let src = corpus().join("real/wal/kilo/.local/share/kilo");
    for name in ["kilo.db", "kilo.db-wal", "kilo.db-shm"] {
        fs::copy(src.join(name), dir.join(name)).unwrap();
    }
    let before = snapshot(&dir);
    let idx = tempfile::tempdir().unwrap();
    let db = idx.path().join("index.db");
    let vars: [(&str, &Path); 1] = [("SCRY_DB", &db)];
    let out = scry_env(tmp.path(), tmp.path(), &vars, &["index"]);
    assert_eq!(out.code, 0, "{}", out.render());
    let out = scry_env(
        tmp.path(),
        tmp.path(),
        &vars,
        &["list", "--global", "--kind", "all", "--json"],
    );
    assert_eq!(out.code, 0, "{}", out.render());
    let mut uris: Vec<String> = out.json()["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|s| s["uri"].as_str().map(str::to_string))
        .collect();
    uris.sort();
    assert_eq!(uris, [CJK, CHILD, MAIN], "B lives only in the WAL");
    let show = |home: &Path| -> Value {
        let out = scry_env(home, home, &[], &["show", CJK, "--json", "--no-index"]);
        assert_eq!(out.code, 0, "{}", out.render());
        out.json()
    };
    let (wal, checkpointed) = (show(tmp.path()), show(&home()));
    for k in ["goal", "answer", "stats", "facts"] {
        assert_eq!(wal[k], checkpointed[k], "{k}");
    }
    assert_eq!(wal["session"]["title"], checkpointed["session"]["title"]);
    assert_eq!(snapshot(&dir), before, "bytes, mtimes and names unchanged");
}
