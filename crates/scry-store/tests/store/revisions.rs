//! Issue 20, revisions at the store level: a whole re-parse that keeps every old event (an
//! append parsed whole, a forced re-parse) retires the old session; one that loses or changes
//! an event keeps it as an earlier revision, readable by [`SessionRef::Revision`], searchable
//! (its lost events only, marked superseded; none with `live` only), counted, pruned by age.

use scry_store::{RefreshOptions, SearchRequest, SessionRef, Store};

use crate::lines::{line, Lines};

fn body(texts: &[&str]) -> String {
    texts
        .iter()
        .enumerate()
        .map(|(i, t)| line(if i % 2 == 0 { "user" } else { "assistant" }, t, i as i64))
        .collect()
}

fn refresh(store: &mut Store, p: &Lines, force: bool) {
    let opts = RefreshOptions {
        force,
        ..RefreshOptions::complete()
    };
    let r = store
        .refresh(&p.boxed(), &p.files(), &opts, &mut |_| true)
        .unwrap();
    assert!(r.failed.is_empty(), "{r:?}");
}

#[test]
fn lost_events_stay_as_an_earlier_revision() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("src");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("s.jsonl");
    let key = path.to_string_lossy().into_owned();
    let rev = |n| SessionRef::Revision {
        path: &path,
        key: None,
        n,
    };
    let mut p = Lines::new(&dir);
    // Whole parses only: an append parsed whole must make no revision either.
    p.resume = false;
    let mut store = Store::open(&tmp.path().join("index.db")).unwrap();
    std::fs::write(&path, body(&["alpha one", "beta two"])).unwrap();
    refresh(&mut store, &p, false);
    std::fs::write(&path, body(&["alpha one", "beta two", "gamma three"])).unwrap();
    refresh(&mut store, &p, false);
    refresh(&mut store, &p, true);
    assert!(store.revisions(&key, "").unwrap().is_empty());
    let before = store.session("mtagent:s").unwrap();

    // Truncated: the current session follows the file, the old one is revision 1.
    std::fs::write(&path, body(&["alpha one"])).unwrap();
    refresh(&mut store, &p, false);
    assert_eq!(store.session("mtagent:s").unwrap().events.len(), 1);
    let revs = store.revisions(&key, "").unwrap();
    assert_eq!(revs.len(), 1, "{revs:?}");
    assert_eq!((revs[0].n, revs[0].events, revs[0].common), (1, 3, 1));
    assert_eq!(
        store.session(rev(1)).unwrap().events,
        before.events,
        "revision 1 reads back as the session was"
    );
    assert!(store.session(rev(2)).is_err());

    // Search: the lost text only, marked; the shared text is the current session's.
    let found = store.search(&SearchRequest::literal("gamma")).unwrap();
    let hits: Vec<_> = found.sessions.iter().flat_map(|s| &s.hits).collect();
    assert_eq!(hits.len(), 1, "{found:?}");
    assert!(
        hits[0].superseded && hits[0].revision == Some(1),
        "{:?}",
        hits[0]
    );
    assert!(hits[0].command.ends_with("--revision 1"));
    let shared = store.search(&SearchRequest::literal("alpha")).unwrap();
    // The title and the first event, both of the current session.
    assert_eq!(shared.total_matches, 2, "{shared:?}");
    assert_eq!(shared.sessions.len(), 1, "{shared:?}");
    assert!(shared.sessions[0].hits.iter().all(|h| !h.superseded));
    let mut live = SearchRequest::literal("gamma");
    live.filter.live = Some(true);
    assert_eq!(store.search(&live).unwrap().total_matches, 0);
    let within = store
        .search_revision(rev(1), &SearchRequest::literal("a"))
        .unwrap();
    assert_eq!(within.sessions.len(), 1);
    assert!(within.sessions[0].hits.iter().all(|h| h.superseded));

    // Rewritten in place (same count, other text): revision 1 again, the first now 2.
    std::fs::write(&path, body(&["delta four"])).unwrap();
    refresh(&mut store, &p, false);
    let revs = store.revisions(&key, "").unwrap();
    assert_eq!(revs.iter().map(|r| r.events).collect::<Vec<_>>(), [1, 3]);
    assert_eq!(revs[0].common, 0);
    assert_eq!(store.session(rev(2)).unwrap().events, before.events);
    let stats = store.revision_stats().unwrap();
    assert_eq!((stats.revisions, stats.events), (2, 4));
    assert!(stats.bytes > 0);

    // Prune: by age (none replaced before an hour ago), dry run, then all.
    let hour_ago =
        scry_model::Timestamp::from_second(scry_model::Timestamp::now().as_second() - 3600)
            .unwrap();
    assert!(store
        .prune_revisions(Some(hour_ago), false)
        .unwrap()
        .is_empty());
    assert_eq!(store.prune_revisions(None, true).unwrap().len(), 2);
    assert_eq!(store.revisions(&key, "").unwrap().len(), 2);
    assert_eq!(store.prune_revisions(None, false).unwrap().len(), 2);
    assert!(store.revisions(&key, "").unwrap().is_empty());
    assert_eq!(
        store
            .search(&SearchRequest::literal("gamma"))
            .unwrap()
            .total_matches,
        0
    );
    let conn = rusqlite::Connection::open(store.path()).unwrap();
    let pending: i64 = conn
        .query_row("SELECT count(*) FROM pending", [], |r| r.get(0))
        .unwrap();
    assert_eq!(pending, 0, "pruned revisions are collected");
}

/// `index --rebuild` (and the rebuild of a damaged index) builds from the sources, which no
/// longer hold an archived session or an earlier revision: both are read from the replaced
/// file and kept, readable and searchable as before.
#[test]
fn a_rebuild_keeps_archived_sessions_and_revisions() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("src");
    std::fs::create_dir_all(&dir).unwrap();
    let (gone, cut) = (dir.join("a.jsonl"), dir.join("b.jsonl"));
    let mut p = Lines::new(&dir);
    p.resume = false;
    let db = tmp.path().join("index.db");
    let mut store = Store::open(&db).unwrap();
    std::fs::write(&gone, body(&["archived zebra", "still here"])).unwrap();
    std::fs::write(&cut, body(&["kept part", "lost okapi"])).unwrap();
    refresh(&mut store, &p, false);
    let archived = store.session("mtagent:a").unwrap();
    let before = store.session("mtagent:b").unwrap();
    std::fs::remove_file(&gone).unwrap();
    std::fs::write(&cut, body(&["kept part"])).unwrap();
    refresh(&mut store, &p, false);
    let key = cut.to_string_lossy().into_owned();
    assert_eq!(store.revisions(&key, "").unwrap().len(), 1);
    drop(store);

    let (store, report) = Store::rebuild(
        &db,
        &p.boxed(),
        &p.files(),
        &RefreshOptions::complete(),
        &mut |_| true,
    )
    .unwrap();
    assert_eq!((report.carried, report.carry_lost), (2, 0), "{report:?}");
    let kept = store.session("mtagent:a").unwrap();
    assert!(!kept.header.live);
    assert_eq!(kept.events, archived.events);
    let revs = store.revisions(&key, "").unwrap();
    assert_eq!(revs.len(), 1, "{revs:?}");
    assert_eq!((revs[0].events, revs[0].common), (2, 1));
    let rev = SessionRef::Revision {
        path: &cut,
        key: None,
        n: 1,
    };
    assert_eq!(store.session(rev).unwrap().events, before.events);
    assert_eq!(store.session("mtagent:b").unwrap().events.len(), 1);
    let okapi = store.search(&SearchRequest::literal("okapi")).unwrap();
    let hits: Vec<_> = okapi.sessions.iter().flat_map(|s| &s.hits).collect();
    assert!(hits.len() == 1 && hits[0].superseded, "{okapi:?}");
    let zebra = store.search(&SearchRequest::literal("zebra")).unwrap();
    assert_eq!(zebra.sessions.len(), 1, "{zebra:?}");

    // A second rebuild carries them again, once (nothing doubled).
    drop(store);
    let (store, report) = Store::rebuild(
        &db,
        &p.boxed(),
        &p.files(),
        &RefreshOptions::complete(),
        &mut |_| true,
    )
    .unwrap();
    assert_eq!(report.carried, 2);
    assert_eq!(store.revisions(&key, "").unwrap().len(), 1);
    assert_eq!(store.revision_stats().unwrap().revisions, 1);
}
