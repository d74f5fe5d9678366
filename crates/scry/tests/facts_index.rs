//! The ledger commands and `graph` with the index (SPEC S-I1, S-I4): `commands`, `files`,
//! `errors`, `jobs` and `graph` read the L2 facts / L3 reference candidates stored in the index
//! and print byte-identical output (text and JSON, stderr and exit status) to `--no-index`, on
//! the first indexed run (facts computed from stored events and stored) and on the next (read
//! back from the index).

use std::path::Path;

use crate::util::{all_uris, corpus, scry_env};

const LEDGERS: &[&[&str]] = &[
    &["commands"],
    &["commands", "--failed"],
    &["files", "--group", "all"],
    &["errors"],
    &["jobs"],
    &["graph"],
];

fn check(home: &Path, db: &Path, uri: &str, extra: &[&str]) {
    let vars = [("SCRY_DB", db)];
    for ledger in LEDGERS {
        for json in [false, true] {
            let mut args: Vec<&str> = ledger.to_vec();
            args.push(uri);
            args.extend_from_slice(extra);
            if json {
                args.push("--json");
            }
            let first = scry_env(home, home, &vars, &args);
            let again = scry_env(home, home, &vars, &args);
            let mut direct_args = args.clone();
            direct_args.push("--no-index");
            let direct = scry_env(home, home, &vars, &direct_args);
            first.assert_no_panic();
            assert_eq!(
                first.render(),
                direct.render(),
                "scry {} differs with the index (facts computed)",
                args.join(" ")
            );
            assert_eq!(
                again.render(),
                direct.render(),
                "scry {} differs with the index (facts stored)",
                args.join(" ")
            );
        }
    }
}

/// Every indexed session of `db` has its L2 / L3 layers stored (read back, not computed).
fn assert_stored(db: &Path, uris: &[String]) {
    let store = scry_store::Store::open(db).unwrap();
    for uri in uris {
        let layers = store.facts(uri).unwrap();
        assert!(
            !layers.computed,
            "{uri}: facts were not stored by the commands"
        );
    }
}

#[test]
fn real_home_ledgers_read_from_the_index_equal_direct() {
    let home = corpus().join("real/home").canonicalize().unwrap();
    let db = tempfile::tempdir().unwrap();
    let db = db.path().join("index.db");
    let uris = all_uris(&home, false);
    assert!(uris.len() >= 5, "{uris:?}");
    for uri in &uris {
        check(&home, &db, uri, &[]);
    }
    assert_stored(&db, &uris);
}

#[test]
fn demo_ledgers_read_from_the_index_equal_direct() {
    let home = tempfile::tempdir().unwrap();
    let db = tempfile::tempdir().unwrap();
    let db = db.path().join("unused.db");
    let uris = all_uris(home.path(), true);
    assert!(!uris.is_empty());
    for uri in &uris {
        check(home.path(), &db, uri, &["--demo"]);
    }
}
