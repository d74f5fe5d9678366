//! The freshness lease (issue 16): one holder at a time, renewed by its holder only, released
//! on request, dead once its heartbeat is old or its process is gone, and readable by `doctor`
//! over a read-only connection.

use rusqlite::params;
use scry_store::{lease_at, now_ms, Acquired, Store, LEASE_TTL};

/// Writes a lease as another process `pid` would, with its last heartbeat `age_ms` ago.
fn plant(store: &Store, pid: i64, age_ms: i64) {
    let now = now_ms();
    for (key, value) in [
        ("lease_pid", pid),
        ("lease_started_ms", now - age_ms),
        ("lease_heartbeat_ms", now - age_ms),
        ("lease_digest", 42),
        ("lease_watched", 3),
        ("lease_polled", 1),
        ("lease_waiting", 2),
    ] {
        rusqlite::Connection::open(store.path())
            .unwrap()
            .execute(
                "INSERT INTO meta(key, value) VALUES(?1, ?2)
                 ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                params![key, value],
            )
            .unwrap();
    }
}

/// The pid of a process that has just ended (so it runs no more).
fn dead_pid() -> i64 {
    let mut child = std::process::Command::new("true").spawn().unwrap();
    let pid = child.id();
    child.wait().unwrap();
    i64::from(pid)
}

#[test]
fn one_holder_renews_and_releases_its_lease() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("index.db");
    let store = Store::open(&db).unwrap();
    assert_eq!(store.lease().unwrap(), None);
    assert_eq!(store.acquire_lease(7, 4, 1, 2).unwrap(), Acquired::Ours);
    let l = store.lease().unwrap().expect("lease written");
    assert_eq!(l.pid, std::process::id());
    assert_eq!((l.digest, l.watched, l.polled, l.waiting), (7, 4, 1, 2));
    assert!(l.is_live(now_ms()));
    // Taking one's own lease again is fine; renewing updates the counts.
    assert_eq!(store.acquire_lease(7, 4, 1, 2).unwrap(), Acquired::Ours);
    assert!(store.renew_lease(5, 0, 1).unwrap());
    let l = store.lease().unwrap().unwrap();
    assert_eq!((l.watched, l.polled, l.waiting), (5, 0, 1));
    // doctor's read-only view says the same.
    assert_eq!(lease_at(&db), Some(l));
    store.release_lease().unwrap();
    assert_eq!(store.lease().unwrap(), None);
    assert!(!store.renew_lease(5, 0, 1).unwrap(), "nothing to renew");
}

#[test]
fn a_live_lease_of_another_process_is_not_taken() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("index.db")).unwrap();
    // pid 1 runs on any Linux system (and the heartbeat is fresh).
    plant(&store, 1, 0);
    match store.acquire_lease(7, 1, 0, 0).unwrap() {
        Acquired::HeldBy(l) => assert_eq!((l.pid, l.digest), (1, 42)),
        Acquired::Ours => panic!("took a live lease"),
    }
    assert!(
        !store.renew_lease(1, 0, 0).unwrap(),
        "renewed another's lease"
    );
    store.release_lease().unwrap();
    assert_eq!(
        store.lease().unwrap().unwrap().pid,
        1,
        "released another's lease"
    );
}

#[test]
fn a_stale_heartbeat_or_a_gone_process_frees_the_lease() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("index.db")).unwrap();
    let ttl = i64::try_from(LEASE_TTL.as_millis()).unwrap();
    plant(&store, 1, ttl + 1000);
    assert!(!store.lease().unwrap().unwrap().is_live(now_ms()));
    assert_eq!(store.acquire_lease(7, 1, 0, 0).unwrap(), Acquired::Ours);

    if cfg!(target_os = "linux") {
        plant(&store, dead_pid(), 0);
        assert!(!store.lease().unwrap().unwrap().is_live(now_ms()));
        assert_eq!(store.acquire_lease(7, 1, 0, 0).unwrap(), Acquired::Ours);
        assert_eq!(store.lease().unwrap().unwrap().pid, std::process::id());
    }
}
