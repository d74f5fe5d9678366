//! Issue 15, defect 6 (write lock): a whole parse is written in several short transactions under
//! a session id no reader can reach, then swapped in. With the test hook committing after every
//! block, a reader polling the session, its event count and a search never sees half of one
//! version; the replaced version's rows are all deleted afterwards; and two files holding one
//! session id stay two sessions through the swaps.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use scry_model::EventKind;
use scry_store::{RefreshOptions, SearchRequest, SessionRef, Store, StoreError};

use crate::lines::{line, Lines};

/// Events per version; each carries ~3 KB so a version spans dozens of 64 KB blocks.
const OLD: usize = 400;
const NEW: usize = 700;

fn version(tag: &str, n: usize) -> String {
    let pad = "x".repeat(3000);
    (0..n)
        .map(|i| {
            line(
                if i % 2 == 0 { "user" } else { "assistant" },
                &format!("{tag} {i} {pad}"),
                i as i64,
            )
        })
        .collect()
}

fn opts() -> RefreshOptions {
    RefreshOptions {
        commit_blocks: Some(1),
        ..RefreshOptions::complete()
    }
}

fn count(store: &Store, sql: &str) -> i64 {
    rusqlite::Connection::open(store.path())
        .unwrap()
        .query_row(sql, [], |r| r.get(0))
        .unwrap()
}

#[test]
fn a_session_written_in_many_transactions_is_never_seen_half() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("src");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("s.jsonl");
    std::fs::write(&path, version("old", OLD)).unwrap();
    let db = tmp.path().join("index.db");
    let mut p = Lines::new(&dir);
    p.resume = false;
    let mut writer = Store::open(&db).unwrap();
    let first = writer
        .refresh(&p.boxed(), &p.files(), &opts(), &mut |_| true)
        .unwrap();
    assert!(
        first.staged_commits > 10,
        "a cold write commits between blocks: {first:?}"
    );

    let stop = Arc::new(AtomicBool::new(false));
    let reader = {
        let db = db.clone();
        let stop = stop.clone();
        std::thread::spawn(move || {
            let store = Store::open(&db).unwrap();
            // Events only (a title is a hit of its own), of the current session only (every
            // rewrite keeps the version it replaced as an earlier revision, issue 20).
            let mut new_events = SearchRequest {
                kinds: vec![EventKind::User, EventKind::Assistant],
                ..SearchRequest::literal("new ")
            };
            new_events.filter.live = Some(true);
            let mut seen = std::collections::BTreeSet::new();
            let mut reads = 0;
            while !stop.load(Ordering::SeqCst) || reads < 10 {
                let s = store.session("mtagent:s").unwrap();
                let tag = s.events[0].text.split(' ').next().unwrap().to_string();
                let n = if tag == "old" { OLD } else { NEW };
                assert_eq!(s.events.len(), n, "half a session seen ({tag})");
                assert!(s.events.iter().all(|e| e.text.starts_with(&tag)));
                // Search sees one whole version too: every event of it or none.
                let found = store.search(&new_events).unwrap();
                assert!(
                    [0, NEW as u64].contains(&found.total_matches),
                    "search saw {} of {NEW} new events",
                    found.total_matches
                );
                assert_eq!(count(&store, "SELECT count(*) FROM sessions"), 1);
                seen.insert(tag);
                reads += 1;
            }
            (seen, reads)
        })
    };
    let mut commits = Vec::new();
    for round in 0..6 {
        let (tag, n) = if round % 2 == 0 {
            ("new", NEW)
        } else {
            ("old", OLD)
        };
        std::fs::write(&path, version(tag, n)).unwrap();
        let r = writer
            .refresh(&p.boxed(), &p.files(), &opts(), &mut |_| true)
            .unwrap();
        assert!(r.failed.is_empty(), "{r:?}");
        assert_eq!(r.parsed, 1, "{r:?}");
        commits.push(r.staged_commits);
    }
    stop.store(true, Ordering::SeqCst);
    let (seen, reads) = reader.join().unwrap();
    eprintln!("reader: {reads} reads, versions seen {seen:?}; staged commits {commits:?}");
    assert!(commits.iter().all(|c| *c > 10), "{commits:?}");

    // Every rewrite changed every event: each replaced version is an earlier revision, until
    // pruned. Then nothing of them is left: the blocks are those of a fresh index.
    let revisions = writer.prune_revisions(None, false).unwrap();
    assert_eq!(revisions.len(), 6, "{revisions:?}");
    assert_eq!(count(&writer, "SELECT count(*) FROM pending"), 0);
    let blocks = count(&writer, "SELECT count(*) FROM blocks");
    let fresh = Store::open(&tmp.path().join("fresh.db")).unwrap();
    let mut fresh = fresh;
    fresh
        .refresh(
            &p.boxed(),
            &p.files(),
            &RefreshOptions::complete(),
            &mut |_| true,
        )
        .unwrap();
    assert_eq!(blocks, count(&fresh, "SELECT count(*) FROM blocks"));
    assert_eq!(writer.session("mtagent:s").unwrap().events.len(), OLD);
}

#[test]
fn two_files_with_one_session_id_are_two_sessions() {
    let tmp = tempfile::tempdir().unwrap();
    let a = tmp.path().join("a");
    let b = tmp.path().join("b");
    for (dir, tag) in [(&a, "alpha"), (&b, "beta")] {
        std::fs::create_dir_all(dir).unwrap();
        std::fs::write(dir.join("s.jsonl"), version(tag, 50)).unwrap();
    }
    let pa = Lines::new(&a);
    let pb = Lines::new(&b);
    let mut store = Store::open(&tmp.path().join("index.db")).unwrap();
    for round in 0..3 {
        if round == 2 {
            std::fs::write(b.join("s.jsonl"), version("gamma", 60)).unwrap();
        }
        let files: Vec<_> = pa.files().into_iter().chain(pb.files()).collect();
        let r = store
            .refresh(&pa.boxed(), &files, &opts(), &mut |_| true)
            .unwrap();
        assert!(r.failed.is_empty(), "{r:?}");
        let a_s = store.session(&files[0]).unwrap();
        let b_s = store.session(&files[1]).unwrap();
        assert_eq!(a_s.header.uri, b_s.header.uri);
        assert!(a_s.events.iter().all(|e| e.text.starts_with("alpha")));
        let want = if round == 2 { "gamma" } else { "beta" };
        assert!(
            b_s.events.iter().all(|e| e.text.starts_with(want)),
            "round {round}: {:?}",
            b_s.events.iter().map(|e| &e.text[..8]).collect::<Vec<_>>()
        );
        // The uri both hold is ambiguous, naming both sources.
        match store.header("mtagent:s") {
            Err(StoreError::AmbiguousSession { sources, .. }) => assert_eq!(sources.len(), 2),
            other => panic!("{other:?}"),
        }
        // Searching the given sources finds each.
        let found = store
            .search_sources(&SearchRequest::literal(want), &files)
            .unwrap();
        assert_eq!(found.total_sessions, 1);
        let only_a = store
            .search_sources(&SearchRequest::literal(want), &files[..1])
            .unwrap();
        assert_eq!(only_a.total_sessions, 0);
        let r = SessionRef::from(&files[1]);
        assert_eq!(store.event_count(r).unwrap(), b_s.events.len() as u32);
    }
}

#[test]
fn rows_left_by_a_dead_writer_are_collected_a_live_writers_are_not() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("src");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("s.jsonl"), version("old", 40)).unwrap();
    let p = Lines::new(&dir);
    let mut store = Store::open(&tmp.path().join("index.db")).unwrap();
    store
        .refresh(&p.boxed(), &p.files(), &opts(), &mut |_| true)
        .unwrap();
    let blocks = count(&store, "SELECT count(*) FROM blocks");
    // Two staged sessions as a writer leaves them between its transactions: one whose heartbeat
    // is an hour old (its writer died), one beating now (its writer is still at work).
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64;
    let conn = rusqlite::Connection::open(store.path()).unwrap();
    for (sid, since) in [(1000i64, now - 3600), (1001, now)] {
        conn.execute(
            "INSERT INTO pending(sid, since) VALUES(?1, ?2)",
            [sid, since],
        )
        .unwrap();
        conn.execute(
            "INSERT INTO blocks(id, last, kinds, data) SELECT ?1 << 32 | (id & 4294967295),
                 last, kinds, data FROM blocks WHERE id >> 32 = (SELECT sid FROM sessions)",
            [sid],
        )
        .unwrap();
    }
    assert_eq!(count(&store, "SELECT count(*) FROM blocks"), 3 * blocks);
    // Readers never see them.
    assert_eq!(count(&store, "SELECT count(*) FROM sessions"), 1);
    assert_eq!(store.session("mtagent:s").unwrap().events.len(), 40);
    // The next refresh (nothing changed) collects the dead writer's rows only.
    let r = store
        .refresh(&p.boxed(), &p.files(), &opts(), &mut |_| true)
        .unwrap();
    assert_eq!(r.unchanged, 1);
    assert_eq!(count(&store, "SELECT count(*) FROM blocks"), 2 * blocks);
    assert_eq!(count(&store, "SELECT count(*) FROM pending"), 1);
    assert_eq!(count(&store, "SELECT sid FROM pending"), 1001);
}
