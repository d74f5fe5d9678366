//! Incremental refresh (S-I2, S-I6) and exact text round-trips (S-I3), with the resuming test
//! provider of `lines.rs` counting the bytes it reads.

use std::fs::OpenOptions;
use std::io::Write;
use std::time::{Duration, SystemTime};

use scry_source::Source;
use scry_store::{RefreshOptions, SessionFilter, Store};

use crate::corpus::as_parsed;
use crate::lines::{line, Lines};

fn refresh(store: &mut Store, p: &Lines) -> scry_store::RefreshReport {
    store
        .refresh(
            &p.boxed(),
            &p.files(),
            &RefreshOptions::complete(),
            &mut |_| true,
        )
        .unwrap()
}

fn assert_equal_to_parse(store: &Store, p: &Lines, id: &str) {
    let file = p.files().into_iter().find(|f| f.id == id).unwrap();
    let direct = p.parse(&file).unwrap();
    let indexed = as_parsed(store.session(&direct.header.uri).unwrap());
    assert_eq!(indexed, direct);
}

#[test]
fn an_appended_line_to_a_50mb_session_reads_only_the_new_bytes() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("src");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("big.jsonl");
    // 1,000 lines of ~50 KB: 50 MB.
    let filler = "lorem ipsum dolor sit amet ".repeat(1900);
    let mut f = std::fs::File::create(&path).unwrap();
    for i in 0..1000 {
        let kind = if i % 10 == 0 { "user" } else { "assistant" };
        f.write_all(line(kind, &format!("{i} {filler}"), 1_790_000_000 + i).as_bytes())
            .unwrap();
    }
    drop(f);
    let size = std::fs::metadata(&path).unwrap().len();
    assert!(size >= 50_000_000, "{size}");
    let p = Lines::new(&dir);
    let mut store = Store::open(&tmp.path().join("index.db")).unwrap();
    let t = std::time::Instant::now();
    let r = refresh(&mut store, &p);
    eprintln!(
        "50 MB cold index: {:?}, {} bytes read",
        t.elapsed(),
        p.bytes_read()
    );
    assert_eq!(r.parsed, 1);
    assert_eq!(p.bytes_read(), size);

    // Append one line (a heartbeat-like append): only the new bytes are parsed.
    let before = p.bytes_read();
    let extra = line("user", "one more prompt", 1_790_009_999);
    OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap()
        .write_all(extra.as_bytes())
        .unwrap();
    let r = refresh(&mut store, &p);
    assert_eq!((r.resumed, r.parsed), (1, 0), "{r:?}");
    let provider_read = p.bytes_read() - before;
    assert_eq!(provider_read, extra.len() as u64);
    // The store hashed the head (64 KB), checked the 64 KB windows at the old resume point and
    // hashed them at the new one: a few hundred KB, against 50 MB.
    assert!(r.bytes_hashed <= 6 * 64 * 1024, "{r:?}");
    eprintln!(
        "append: provider read {provider_read} B, store hashed {} B (file {size} B)",
        r.bytes_hashed
    );
    let s = store.session("mtagent:big").unwrap();
    assert_eq!(s.events.len(), 1001);
    assert_eq!(s.events[1000].text, "one more prompt");
    assert_eq!(s.events[1000].turn, 101);
    assert_equal_to_parse(&store, &p, "big");

    // Touching the mtime without changing a byte: fingerprint only, nothing parsed.
    let before = p.bytes_read();
    let f = OpenOptions::new().write(true).open(&path).unwrap();
    f.set_modified(SystemTime::now() + Duration::from_secs(5))
        .unwrap();
    drop(f);
    let r = refresh(&mut store, &p);
    assert_eq!(
        (r.unchanged, r.hashed, r.parsed, r.resumed),
        (1, 1, 0, 0),
        "{r:?}"
    );
    assert_eq!(p.bytes_read(), before);

    // Nothing changed at all: not even opened.
    let r = refresh(&mut store, &p);
    assert_eq!((r.unchanged, r.hashed, r.bytes_hashed), (1, 0, 0), "{r:?}");

    // Truncation: the file is re-parsed whole.
    let f = OpenOptions::new().write(true).open(&path).unwrap();
    f.set_len(size / 2).unwrap();
    drop(f);
    let before = p.bytes_read();
    let r = refresh(&mut store, &p);
    assert_eq!((r.parsed, r.resumed), (1, 0), "{r:?}");
    assert_eq!(p.bytes_read() - before, size / 2);
    assert_equal_to_parse(&store, &p, "big");
    let s = store.session("mtagent:big").unwrap();
    assert_eq!(s.warnings.len(), 1, "the cut line is a torn tail");
}

#[test]
fn a_torn_tail_completed_later_resumes_and_equals_the_parse() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("src");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("s.jsonl");
    let full = line("user", "first", 1) + &line("assistant", "second", 2);
    let (a, b) = full.split_at(full.len() - 7);
    std::fs::write(&path, a).unwrap();
    let p = Lines::new(&dir);
    let mut store = Store::open(&tmp.path().join("index.db")).unwrap();
    refresh(&mut store, &p);
    assert_eq!(store.session("mtagent:s").unwrap().warnings.len(), 1);
    OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap()
        .write_all(b.as_bytes())
        .unwrap();
    let r = refresh(&mut store, &p);
    assert_eq!(r.resumed, 1, "{r:?}");
    assert_equal_to_parse(&store, &p, "s");
    assert!(store.session("mtagent:s").unwrap().warnings.is_empty());
}

#[test]
fn a_rewritten_prefix_is_parsed_whole_not_resumed() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("src");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("s.jsonl");
    std::fs::write(
        &path,
        line("user", "alpha", 1) + &line("assistant", "beta", 2),
    )
    .unwrap();
    let p = Lines::new(&dir);
    let mut store = Store::open(&tmp.path().join("index.db")).unwrap();
    refresh(&mut store, &p);
    // Same length prefix, other bytes, plus growth: the prefix hash refuses the resume.
    std::fs::write(
        &path,
        line("user", "ALPHA", 1) + &line("assistant", "beta", 2) + &line("user", "gamma", 3),
    )
    .unwrap();
    let r = refresh(&mut store, &p);
    assert_eq!((r.parsed, r.resumed), (1, 0), "{r:?}");
    assert_equal_to_parse(&store, &p, "s");
}

#[test]
fn a_vanished_source_stays_with_live_false_until_prune() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("src");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("gone.jsonl"), line("user", "remember me", 1)).unwrap();
    std::fs::write(dir.join("kept.jsonl"), line("user", "still here", 2)).unwrap();
    let p = Lines::new(&dir);
    let mut store = Store::open(&tmp.path().join("index.db")).unwrap();
    refresh(&mut store, &p);
    std::fs::remove_file(dir.join("gone.jsonl")).unwrap();
    let r = refresh(&mut store, &p);
    assert_eq!(r.vanished, 1, "{r:?}");
    let h = store.header("mtagent:gone").unwrap();
    assert!(!h.live && h.persisted);
    assert_eq!(
        store.session("mtagent:gone").unwrap().events[0].text,
        "remember me"
    );
    let gone = SessionFilter {
        live: Some(false),
        ..Default::default()
    };
    assert_eq!(store.headers(&gone, 10, 0).unwrap().len(), 1);
    // A partial refresh of other files leaves it as it is; it comes back when its file does.
    std::fs::write(dir.join("gone.jsonl"), line("user", "remember me", 1)).unwrap();
    let r = refresh(&mut store, &p);
    assert_eq!(r.revived + r.parsed, 1, "{r:?}");
    assert!(store.header("mtagent:gone").unwrap().live);
    std::fs::remove_file(dir.join("gone.jsonl")).unwrap();
    refresh(&mut store, &p);
    assert_eq!(store.prune().unwrap(), 1);
    assert_eq!(
        store.header("mtagent:gone").unwrap_err().code(),
        scry_model::ErrorCode::SessionNotFound
    );
    assert!(store.header("mtagent:kept").unwrap().live);
}

#[test]
fn nul_and_arbitrary_text_round_trip_exactly() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("src");
    std::fs::create_dir_all(&dir).unwrap();
    let texts = [
        "A\0B\0\0C",
        "\0",
        "",
        "\u{FFFF}\u{FFFE}\u{10FFFF} 🦀 \r\n\t\u{1b}[31m",
        "跨会话检索 \u{200B} e\u{301} ſ K",
        "'; DROP TABLE events; -- \" * NEAR(a b) OR -x (",
    ];
    let body: String = texts
        .iter()
        .enumerate()
        .map(|(i, t)| line("user", t, i as i64))
        .collect();
    std::fs::write(dir.join("nul.jsonl"), body).unwrap();
    let p = Lines::new(&dir);
    let mut store = Store::open(&tmp.path().join("index.db")).unwrap();
    refresh(&mut store, &p);
    let s = store.session("mtagent:nul").unwrap();
    let got: Vec<&str> = s.events.iter().map(|e| e.text.as_str()).collect();
    assert_eq!(got, texts);
    assert_equal_to_parse(&store, &p, "nul");
    // Text after a NUL is searchable through the index.
    // The event and the session title (its first prompt line).
    let r = store
        .search(&scry_store::SearchRequest::literal("B\0\0C"))
        .unwrap();
    assert_eq!(r.total_matches, 2);
    let r = store
        .search(&scry_store::SearchRequest::literal("DROP TABLE"))
        .unwrap();
    assert_eq!(r.total_matches, 1);
}

#[test]
fn a_schema_version_change_rebuilds_and_versions_are_recorded() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("index.db");
    let store = Store::open(&db).unwrap();
    assert_eq!(
        store.versions().unwrap(),
        [
            scry_store::SCHEMA_VERSION,
            scry_store::PARSER_VERSION,
            scry_store::EXTRACTOR_VERSION,
            scry_store::EDGE_VERSION
        ]
    );
    rusqlite::Connection::open(store.path())
        .unwrap()
        .execute("UPDATE meta SET value = 0 WHERE key = 'schema_version'", [])
        .unwrap();
    rusqlite::Connection::open(store.path())
        .unwrap()
        .execute("CREATE TABLE junk(x)", [])
        .unwrap();
    drop(store);
    let store = Store::open(&db).unwrap();
    assert_eq!(store.versions().unwrap()[0], scry_store::SCHEMA_VERSION);
    let junk: i64 = rusqlite::Connection::open(store.path())
        .unwrap()
        .query_row(
            "SELECT count(*) FROM sqlite_master WHERE name = 'junk'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(junk, 0);
}

#[test]
fn a_failing_source_is_reported_not_retried_and_keeps_its_old_session() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("src");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("a.jsonl"), line("user", "fine", 1)).unwrap();
    std::fs::write(dir.join("bad.jsonl"), "FAIL\n").unwrap();
    std::fs::write(dir.join("c.jsonl"), line("user", "also fine", 2)).unwrap();
    let p = Lines::new(&dir);
    let mut store = Store::open(&tmp.path().join("index.db")).unwrap();
    let r = refresh(&mut store, &p);
    assert_eq!((r.parsed, r.failed.len()), (2, 1), "{r:?}");
    assert!(r.failed[0].message.contains("told to fail"));
    assert_eq!(store.count(&SessionFilter::default()).unwrap(), 2);
    // Unchanged and still broken: not parsed again (no poison-source loop).
    let r = refresh(&mut store, &p);
    assert_eq!((r.unchanged, r.parsed, r.failed.len()), (3, 0, 0), "{r:?}");
    // A session that indexed fine and then fails keeps its previous version.
    std::fs::write(dir.join("a.jsonl"), "FAIL, and longer now\n").unwrap();
    let r = refresh(&mut store, &p);
    assert_eq!(r.failed.len(), 1, "{r:?}");
    assert_eq!(store.session("mtagent:a").unwrap().events[0].text, "fine");
    // Progress is reported per file and returning false aborts with ABORTED.
    std::fs::write(dir.join("c.jsonl"), line("user", "changed", 3)).unwrap();
    let mut calls = Vec::new();
    let err = store
        .refresh(
            &p.boxed(),
            &p.files(),
            &RefreshOptions::complete(),
            &mut |pr| {
                calls.push((pr.done, pr.total));
                false
            },
        )
        .unwrap_err();
    assert_eq!(err.code(), scry_model::ErrorCode::Aborted);
    assert_eq!(calls, vec![(1, 3)]);
}
