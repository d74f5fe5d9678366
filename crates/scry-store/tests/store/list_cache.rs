//! `list`'s stored counts (issue 16, `scry_store`'s list count cache): a count is read back
//! while nothing is written, and counted again after any write to the rows it counts, by any
//! writer (the write generation moves in the writer's own transaction, by trigger).

use scry_store::ListMode;

use crate::corpus::corpus;
use crate::list_page::{discover, indexed};

fn stored(store: &scry_store::Store) -> i64 {
    rusqlite::Connection::open(store.path())
        .unwrap()
        .query_row("SELECT count(*) FROM list_counts", [], |r| r.get(0))
        .unwrap()
}

#[test]
fn counts_are_read_back_until_a_write_moves_the_generation() {
    let home = corpus().join("real/home");
    let (files, spec) = discover(&home);
    let (_tmp, store) = indexed(&files);
    let conn = rusqlite::Connection::open(store.path()).unwrap();
    let fold = ListMode::Fold;
    let counted = store.list_counts(&spec, fold).unwrap();
    assert!(counted.0 > 1, "{counted:?}");
    assert_eq!(stored(&store), 1);

    // Read back, not counted again: a stored value that differs shows through.
    conn.execute("UPDATE list_counts SET total = total + 1000", [])
        .unwrap();
    assert_eq!(
        store.list_counts(&spec, fold).unwrap(),
        (counted.0 + 1000, counted.1)
    );
    // Another query (every kind, unfolded) has its own entry.
    let all = store.list_counts(&spec, ListMode::Kind(None)).unwrap();
    assert_eq!(all.0, files.len());
    assert_eq!(stored(&store), 2);

    // A main session with no children: its source gone (a write to `files`) lists one less.
    let lone = "SELECT s.sid FROM sessions s WHERE s.kind = 'main' AND NOT EXISTS
        (SELECT 1 FROM sessions c WHERE c.fold = s.native AND c.provider = s.provider)
        ORDER BY s.sid LIMIT 1";
    let sid: i64 = conn.query_row(lone, [], |r| r.get(0)).unwrap();
    conn.execute("UPDATE files SET live = 0 WHERE sid = ?1", [sid])
        .unwrap();
    assert_eq!(
        store.list_counts(&spec, fold).unwrap(),
        (counted.0 - 1, counted.1)
    );
    // The older generation's entries are gone with the new one stored.
    assert_eq!(stored(&store), 1);
    conn.execute("UPDATE files SET live = 1 WHERE sid = ?1", [sid])
        .unwrap();
    assert_eq!(store.list_counts(&spec, fold).unwrap(), counted);

    // A write to `sessions`: a main session becoming an exec run is hidden.
    conn.execute("UPDATE sessions SET kind = 'exec' WHERE sid = ?1", [sid])
        .unwrap();
    assert_eq!(
        store.list_counts(&spec, fold).unwrap(),
        (counted.0 - 1, counted.1 + 1)
    );

    // With `--since` nothing is stored (the instant moves with every command).
    let before = stored(&store);
    let mut since = spec.clone();
    since.since = Some(scry_model::Timestamp::UNIX_EPOCH);
    store.list_counts(&since, fold).unwrap();
    assert_eq!(stored(&store), before);
}

/// The Aider cwd lookup's summary of every live source is kept the same way: read back while
/// nothing is written, computed again after a write.
#[test]
fn live_cwds_are_read_back_until_a_write_moves_the_generation() {
    use scry_model::ProviderId;
    let home = corpus().join("real/home");
    let (files, _spec) = discover(&home);
    let (_tmp, store) = indexed(&files);
    let conn = rusqlite::Connection::open(store.path()).unwrap();
    let of = [ProviderId::Claude, ProviderId::Codex];
    let first = store.live_cwds_of(ProviderId::Aider, &of).unwrap();
    assert!(!first.cwds.is_empty(), "{first:?}");
    let kept = |conn: &rusqlite::Connection| -> i64 {
        conn.query_row("SELECT count(*) FROM lookup_cache", [], |r| r.get(0))
            .unwrap()
    };
    assert_eq!(kept(&conn), 1);

    // Read back, not computed again: a stored answer that differs shows through.
    let mut faked = first.clone();
    faked.cwds.insert("/nowhere/faked".into());
    conn.execute(
        "UPDATE lookup_cache SET body = ?1",
        [serde_json::to_vec(&faked).unwrap()],
    )
    .unwrap();
    assert_eq!(store.live_cwds_of(ProviderId::Aider, &of).unwrap(), faked);
    // Other providers asked: their own entry, computed.
    let codex = store.live_cwds_of(ProviderId::Aider, &of[1..]).unwrap();
    assert!(!codex.cwds.contains("/nowhere/faked"));
    assert_eq!(kept(&conn), 2);

    // Any write to `sessions` moves the generation: computed again, the old entries dropped.
    conn.execute(
        "UPDATE sessions SET cwd = cwd WHERE sid = (SELECT min(sid) FROM sessions)",
        [],
    )
    .unwrap();
    assert_eq!(store.live_cwds_of(ProviderId::Aider, &of).unwrap(), first);
    assert_eq!(kept(&conn), 1);
}

/// `occupied` drops exactly the roots holding no live source, and the list it gives is the
/// list of the whole spec.
#[test]
fn occupied_roots_list_what_every_root_lists() {
    let home = corpus().join("real/home");
    let (files, mut spec) = discover(&home);
    let (_tmp, store) = indexed(&files);
    spec.roots
        .push(home.join("no-such-agent").to_string_lossy().into_owned());
    let occupied = store.occupied(&spec).unwrap();
    assert!(occupied.roots.len() < spec.roots.len(), "{:?}", spec.roots);
    for root in &spec.roots {
        let holds = files
            .iter()
            .any(|f| f.path.starts_with(root) || f.path.to_string_lossy() == *root);
        assert_eq!(occupied.roots.contains(root), holds, "{root}");
    }
    for mode in [ListMode::Fold, ListMode::Kind(None)] {
        assert_eq!(
            store.list_counts(&occupied, mode).unwrap(),
            store.list_counts(&spec, mode).unwrap()
        );
        assert_eq!(
            store.list_page(&occupied, mode, 0, 50).unwrap(),
            store.list_page(&spec, mode, 0, 50).unwrap()
        );
    }
}
