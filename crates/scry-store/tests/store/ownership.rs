//! The index file is scry's own (issue 15): opening judges the file before writing to it, a
//! file that is not a scry index is refused untouched, a new one carries scry's application id,
//! damage surfaces as an error naming the file, and a rebuild swaps a fresh index in.

use std::path::Path;

use rusqlite::Connection;
use scry_model::ErrorCode;
use scry_store::{inspect, IndexHealth, RefreshOptions, Store, StoreError, APPLICATION_ID};

fn application_id(db: &Path) -> i32 {
    Connection::open(db)
        .unwrap()
        .query_row("PRAGMA application_id", [], |r| r.get(0))
        .unwrap()
}

#[test]
fn many_openers_of_a_new_index_all_succeed() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("sub/index.db");
    let threads: Vec<_> = (0..8)
        .map(|_| {
            let db = db.clone();
            std::thread::spawn(move || Store::open(&db).map(|_| ()))
        })
        .collect();
    for t in threads {
        t.join().unwrap().unwrap();
    }
    assert_eq!(application_id(&db), APPLICATION_ID);
    assert_eq!(inspect(&db), IndexHealth::Healthy { legacy: false });
}

#[test]
fn a_foreign_database_is_refused_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("app.db");
    Connection::open(&db)
        .unwrap()
        .execute_batch("CREATE TABLE notes(body TEXT); INSERT INTO notes VALUES('keep me');")
        .unwrap();
    let before = std::fs::read(&db).unwrap();
    let err = Store::open(&db).unwrap_err();
    assert!(matches!(err, StoreError::NotAnIndex { .. }), "{err}");
    assert_eq!(err.code(), ErrorCode::PersistenceFailure);
    assert!(err.to_string().contains(&db.display().to_string()), "{err}");
    let rebuilt = Store::rebuild(&db, &[], &[], &RefreshOptions::complete(), &mut |_| true);
    assert!(matches!(rebuilt, Err(StoreError::NotAnIndex { .. })));
    assert_eq!(std::fs::read(&db).unwrap(), before);
    let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().flatten().collect();
    assert_eq!(names.len(), 1, "side files created");
    assert!(matches!(inspect(&db), IndexHealth::NotAnIndex(_)));
}

#[test]
fn damage_is_an_error_naming_the_file_and_a_rebuild_heals_it() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("index.db");
    {
        let store = Store::open(&db).unwrap();
        rusqlite::Connection::open(store.path())
            .unwrap()
            .execute_batch("PRAGMA wal_checkpoint(TRUNCATE);")
            .unwrap();
    }
    // Page 2 is `meta`, read on every open.
    let mut bytes = std::fs::read(&db).unwrap();
    let page = usize::from(u16::from_be_bytes([bytes[16], bytes[17]]));
    bytes[page..2 * page].fill(0xa5);
    std::fs::write(&db, &bytes).unwrap();
    let err = Store::open(&db).unwrap_err();
    assert!(err.is_corrupt(), "{err}");
    assert!(
        matches!(&err, StoreError::DamagedIndex { path, .. } if path == &db),
        "{err}"
    );
    assert!(matches!(inspect(&db), IndexHealth::Damaged(_)));
    let (store, _) =
        Store::rebuild(&db, &[], &[], &RefreshOptions::complete(), &mut |_| true).unwrap();
    assert_eq!(store.quick_check().unwrap(), None);
    drop(store);
    assert_eq!(inspect(&db), IndexHealth::Healthy { legacy: false });
}
