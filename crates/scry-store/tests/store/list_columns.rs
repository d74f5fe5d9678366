//! `list` from the indexed columns (issue 16): [`Store::list_rows`] gives, for every indexed
//! source of the corpus, exactly what a direct parse's header says about the fields `list`
//! sorts, filters and folds by (provider, native id, uri, cwd, updated, kind, parent) — read
//! from the `sessions` columns, never from the header JSON — and leaves out the sources whose
//! parse failed.

use std::collections::HashMap;

use scry_store::{ListRow, RefreshOptions, Store};

use crate::corpus::corpus_files;

#[test]
fn list_rows_equal_the_parsed_headers_of_every_corpus_source() {
    let sources = scry_sources::registry();
    let files = corpus_files(&sources);
    let tmp = tempfile::tempdir().unwrap();
    let mut store = Store::open(&tmp.path().join("index.db")).unwrap();
    store
        .refresh(&sources, &files, &RefreshOptions::complete(), &mut |_| true)
        .unwrap();
    let rows: HashMap<(String, String), ListRow> = store
        .list_rows()
        .unwrap()
        .into_iter()
        .map(|r| ((r.path.clone(), r.key.clone()), r))
        .collect();
    let (mut parsed, mut failed) = (0, 0);
    for f in &files {
        let key = (
            f.path.to_string_lossy().into_owned(),
            f.key.clone().unwrap_or_default(),
        );
        let direct = scry_sources::source_for(&sources, f.provider)
            .unwrap()
            .parse(f);
        match direct {
            Ok(s) => {
                parsed += 1;
                let h = s.header;
                let row = rows
                    .get(&key)
                    .unwrap_or_else(|| panic!("{key:?} has no list row"));
                assert_eq!(row.provider, h.provider, "{key:?}");
                assert_eq!(row.id, h.id, "{key:?}");
                assert_eq!(row.uri, h.uri, "{key:?}");
                assert_eq!(row.cwd, h.cwd, "{key:?}");
                assert_eq!(row.updated, h.updated, "{key:?}");
                assert_eq!(row.kind, h.kind, "{key:?}");
                assert_eq!(row.parent, h.parent, "{key:?}");
                // The page's whole header comes by the row's sid.
                let mut whole = store.header_by_sid(row.sid).unwrap();
                whole.persisted = false;
                whole.live = true;
                assert_eq!(whole, h, "{key:?}");
            }
            Err(_) => {
                failed += 1;
                assert!(!rows.contains_key(&key), "{key:?} failed but is listed");
            }
        }
    }
    assert_eq!(rows.len(), parsed, "{failed} failed");
    assert!(parsed >= 40, "only {parsed} sessions");
    // Sessions with a time and without one, roots and children: the columns carry both.
    assert!(rows.values().any(|r| r.updated.is_some()));
    assert!(rows.values().any(|r| r.parent.is_some()));
}

#[test]
fn a_vanished_source_has_no_list_row() {
    let sources = scry_sources::registry();
    let files = corpus_files(&sources);
    let tmp = tempfile::tempdir().unwrap();
    let mut store = Store::open(&tmp.path().join("index.db")).unwrap();
    store
        .refresh(&sources, &files, &RefreshOptions::complete(), &mut |_| true)
        .unwrap();
    let before = store.list_rows().unwrap().len();
    let gone = files
        .iter()
        .find(|f| {
            store
                .list_rows()
                .unwrap()
                .iter()
                .any(|r| r.path == f.path.to_string_lossy())
        })
        .unwrap();
    let rest: Vec<_> = files
        .iter()
        .filter(|f| f.path != gone.path)
        .cloned()
        .collect();
    store
        .refresh(&sources, &rest, &RefreshOptions::complete(), &mut |_| true)
        .unwrap();
    let after = store.list_rows().unwrap();
    assert!(after.len() < before, "{} -> {}", before, after.len());
    assert!(after.iter().all(|r| r.path != gone.path.to_string_lossy()));
}
