//! Concurrent readers during a refresh (S-I5): with two connections on one WAL database, a
//! reader sees either the old or the new version of a session, never half of one.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use scry_store::{RefreshOptions, Store};

use crate::lines::{line, Lines};

fn version(tag: &str, n: usize) -> String {
    (0..n)
        .map(|i| {
            line(
                if i == 0 { "user" } else { "assistant" },
                &format!("{tag} {i}"),
                i as i64,
            )
        })
        .collect()
}

#[test]
fn a_reader_sees_whole_old_or_whole_new_sessions() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("src");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("s.jsonl");
    std::fs::write(&path, version("old", 300)).unwrap();
    let db = tmp.path().join("index.db");
    let mut p = Lines::new(&dir);
    p.resume = false;
    let mut writer = Store::open(&db).unwrap();
    writer
        .refresh(
            &p.boxed(),
            &p.files(),
            &RefreshOptions::complete(),
            &mut |_| true,
        )
        .unwrap();

    let stop = Arc::new(AtomicBool::new(false));
    let reader = {
        let db = db.clone();
        let stop = stop.clone();
        std::thread::spawn(move || {
            let store = Store::open(&db).unwrap();
            let mut seen = std::collections::BTreeSet::new();
            let mut reads = 0;
            while !stop.load(Ordering::SeqCst) || reads < 10 {
                let s = store.session("mtagent:s").unwrap();
                let tag = s.events[0].text.split(' ').next().unwrap().to_string();
                let n = if tag == "old" { 300 } else { 500 };
                assert_eq!(s.events.len(), n, "half a session seen ({tag})");
                assert!(s.events.iter().all(|e| e.text.starts_with(&tag)));
                seen.insert(tag);
                reads += 1;
            }
            (seen, reads)
        })
    };
    for round in 0..12 {
        let (tag, n) = if round % 2 == 0 {
            ("new", 500)
        } else {
            ("old", 300)
        };
        std::fs::write(&path, version(tag, n)).unwrap();
        let r = writer
            .refresh(
                &p.boxed(),
                &p.files(),
                &RefreshOptions::complete(),
                &mut |_| true,
            )
            .unwrap();
        assert!(r.failed.is_empty());
    }
    stop.store(true, Ordering::SeqCst);
    let (seen, reads) = reader.join().unwrap();
    eprintln!("reader: {reads} reads, versions seen {seen:?}");
    assert!(reads >= 10);
}
