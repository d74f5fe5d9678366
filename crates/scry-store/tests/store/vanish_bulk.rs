//! Sources that vanish, or are left out of a refresh, when the refresh handles many files in one
//! transaction (64 or more: the fingerprints are read in bulk once, and the rows not taken by a
//! given file are the candidates to mark `live: false`, without a second scan of `files`).

use scry_source::SourceFile;
use scry_store::{RefreshOptions, SessionFilter, Store};

use crate::lines::{line, Lines};

const FILES: usize = 80;

fn refresh(
    store: &mut Store,
    p: &Lines,
    files: &[SourceFile],
    opts: &RefreshOptions,
) -> scry_store::RefreshReport {
    store
        .refresh(&p.boxed(), files, opts, &mut |_| true)
        .unwrap()
}

fn live_ids(store: &Store) -> Vec<String> {
    let live = SessionFilter {
        live: Some(true),
        ..Default::default()
    };
    let mut ids: Vec<String> = store
        .headers(&live, 1000, 0)
        .unwrap()
        .into_iter()
        .map(|h| h.id)
        .collect();
    ids.sort();
    ids
}

/// `FILES` one-line sessions in `<root>/src`.
fn sources(root: &std::path::Path) -> std::path::PathBuf {
    let dir = root.join("src");
    std::fs::create_dir_all(&dir).unwrap();
    for i in 0..FILES {
        std::fs::write(
            dir.join(format!("s{i:03}.jsonl")),
            line("user", &format!("n{i}"), 1),
        )
        .unwrap();
    }
    dir
}

#[test]
fn many_files_in_one_transaction_mark_exactly_the_missing_ones() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = sources(tmp.path());
    let p = Lines::new(&dir);
    let mut store = Store::open(&tmp.path().join("index.db")).unwrap();
    let all = p.files();
    assert_eq!(all.len(), FILES);
    let r = refresh(&mut store, &p, &all, &RefreshOptions::complete());
    assert_eq!((r.parsed, r.vanished), (FILES, 0), "{r:?}");

    // Three files deleted; a partial refresh of the other 77 (bulk read) marks those three.
    for i in [3, 40, 79] {
        std::fs::remove_file(dir.join(format!("s{i:03}.jsonl"))).unwrap();
    }
    let rest = p.files();
    assert_eq!(rest.len(), FILES - 3);
    let r = refresh(&mut store, &p, &rest, &RefreshOptions::partial());
    assert_eq!(
        (r.unchanged, r.vanished, r.parsed),
        (FILES - 3, 3, 0),
        "{r:?}"
    );
    let live = live_ids(&store);
    assert_eq!(live.len(), FILES - 3);
    assert!(!live
        .iter()
        .any(|id| ["s003", "s040", "s079"].contains(&id.as_str())));

    // Existing files left out of a partial refresh stay live; of a complete one, they vanish.
    let fewer: Vec<SourceFile> = rest[5..].to_vec();
    assert!(fewer.len() >= 64);
    let r = refresh(&mut store, &p, &fewer, &RefreshOptions::partial());
    assert_eq!((r.vanished, r.revived), (0, 0), "{r:?}");
    assert_eq!(live_ids(&store).len(), FILES - 3);
    let r = refresh(&mut store, &p, &fewer, &RefreshOptions::complete());
    assert_eq!(r.vanished, 5, "{r:?}");
    assert_eq!(live_ids(&store).len(), FILES - 8);
    // Already vanished sources are not counted again; given back, they revive.
    let r = refresh(&mut store, &p, &fewer, &RefreshOptions::complete());
    assert_eq!(r.vanished, 0, "{r:?}");
    let r = refresh(&mut store, &p, &rest, &RefreshOptions::complete());
    assert_eq!((r.vanished, r.revived), (0, 5), "{r:?}");
    assert_eq!(live_ids(&store).len(), FILES - 3);
}

/// A refresh given exactly the files of the last one, with nothing written to the index since,
/// returns without reading the stored rows (the digest and write generation in `meta`); any
/// write to `files` / `sessions` or any change of a given file's stat makes it check again.
#[test]
fn a_repeated_refresh_with_nothing_written_since_reads_no_rows() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = sources(tmp.path());
    let p = Lines::new(&dir);
    let db = tmp.path().join("index.db");
    let mut store = Store::open(&db).unwrap();
    let opts = RefreshOptions::partial();
    let r = refresh(&mut store, &p, &p.files(), &opts);
    assert_eq!(r.parsed, FILES, "{r:?}");
    // The cold refresh spans several transactions (parse threads, staged sessions): it
    // stores no digest; the first nothing-changed refresh reads every row and stores one.
    let r = refresh(&mut store, &p, &p.files(), &opts);
    assert_eq!(r.unchanged, FILES, "{r:?}");
    // A stored mtime changed behind the index's back, by a write the generation does not count
    // (only `mtime_ns`): a refresh that reads the rows hashes that file (its size and head are
    // the same: a touch); the skipped one does not.
    let raw = rusqlite::Connection::open(&db).unwrap();
    let fake = |raw: &rusqlite::Connection| {
        raw.execute(
            "UPDATE files SET mtime_ns = 1 WHERE path LIKE '%s007.jsonl'",
            [],
        )
        .unwrap();
    };
    fake(&raw);
    let r = refresh(&mut store, &p, &p.files(), &opts);
    assert_eq!((r.unchanged, r.hashed, r.parsed), (FILES, 0, 0), "{r:?}");
    // Any write the generation counts: the rows are read again (the faked mtime is seen).
    raw.execute(
        "UPDATE sessions SET title = title WHERE rowid = (SELECT min(rowid) FROM sessions)",
        [],
    )
    .unwrap();
    let r = refresh(&mut store, &p, &p.files(), &opts);
    assert_eq!((r.unchanged, r.hashed), (FILES, 1), "{r:?}");
    // Stored again by that refresh: skipped while nothing changes.
    fake(&raw);
    let r = refresh(&mut store, &p, &p.files(), &opts);
    assert_eq!((r.unchanged, r.hashed), (FILES, 0), "{r:?}");
    // A given file's stat changed: read again, and the file is parsed.
    std::fs::write(
        dir.join("s050.jsonl"),
        format!("{}{}", line("user", "n50", 1), line("assistant", "more", 2)),
    )
    .unwrap();
    let r = refresh(&mut store, &p, &p.files(), &opts);
    assert_eq!(r.unchanged, FILES - 1, "{r:?}");
    assert_eq!(r.parsed + r.resumed, 1, "{r:?}");
    // Another set of files (one left out, still on disk: kept live unseen): read, and no
    // digest stored for it, so the whole set is read again next time too.
    let fewer: Vec<SourceFile> = p.files()[1..].to_vec();
    let r = refresh(&mut store, &p, &fewer, &opts);
    assert_eq!(r.unchanged, FILES - 1, "{r:?}");
    fake(&raw);
    let r = refresh(&mut store, &p, &fewer, &opts);
    assert_eq!((r.unchanged, r.hashed), (FILES - 1, 1), "{r:?}");
}
