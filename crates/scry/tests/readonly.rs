//! Read-only proof (SPEC P1): every file of a corpus home keeps its bytes and mtime, and no file
//! appears, after every command over every session (list, show, turns, turn, --event, --raw).

use std::collections::BTreeMap;
use std::path::Path;
use std::time::SystemTime;

use crate::util::{all_uris, corpus, scry};

type Snapshot = BTreeMap<String, (u64, Option<SystemTime>)>;

fn snapshot(root: &Path) -> Snapshot {
    let mut map = BTreeMap::new();
    for entry in walkdir::WalkDir::new(root).sort_by_file_name() {
        let entry = entry.expect("walk");
        let rel = entry
            .path()
            .strip_prefix(root)
            .unwrap()
            .display()
            .to_string();
        let meta = entry.metadata().expect("stat");
        let hash = if meta.is_file() {
            xxhash_rust::xxh3::xxh3_64(&std::fs::read(entry.path()).expect("read"))
        } else {
            0
        };
        map.insert(rel, (hash, meta.modified().ok()));
    }
    map
}

fn run_everything(home: &Path) -> usize {
    for args in [
        vec!["list"],
        vec!["list", "--global"],
        vec!["list", "--global", "--json", "--kind", "all"],
    ] {
        let out = scry(home, &args);
        assert_eq!(out.code, 0, "{}", out.render());
    }
    let uris = all_uris(home, false);
    for uri in &uris {
        for args in [
            vec!["show", uri.as_str()],
            vec!["show", "--json", uri.as_str()],
            vec!["turns", uri.as_str()],
            vec!["turn", uri.as_str(), "0-1000"],
            vec!["turn", "--raw", uri.as_str(), "0-1000"],
            vec!["turn", "--json", uri.as_str(), "--event", "1-50"],
            vec!["turn", "--raw", uri.as_str(), "--event", "1-50"],
        ] {
            let out = scry(home, &args);
            out.assert_no_panic();
            assert!(
                out.code == 0 || (args[0] == "turn" && out.code == 2),
                "scry {}:\n{}",
                args.join(" "),
                out.render()
            );
        }
    }
    uris.len()
}

#[test]
fn corpus_home_is_untouched() {
    let home = corpus().join("real/home");
    let home = home.canonicalize().expect("corpus present");
    let before = snapshot(&home);
    let n = run_everything(&home);
    assert!(n > 0, "no sessions found in the corpus");
    assert_eq!(snapshot(&home), before);
}

#[test]
fn writable_copy_is_untouched() {
    let src = corpus()
        .join("real/home")
        .canonicalize()
        .expect("corpus present");
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    for entry in walkdir::WalkDir::new(&src) {
        let entry = entry.unwrap();
        let to = home.join(entry.path().strip_prefix(&src).unwrap());
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&to).unwrap();
        } else if entry.file_type().is_file() {
            std::fs::copy(entry.path(), &to).unwrap();
        }
    }
    let before = snapshot(&home);
    run_everything(&home);
    assert_eq!(snapshot(&home), before);
}
