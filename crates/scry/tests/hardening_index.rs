//! The index file is scry's own and is repaired when damaged (issue 15, defects 3, 4 and the
//! waiting indexer of 6):
//! - a file at `SCRY_DB` that is not a scry index (another program's SQLite database, another
//!   application id, not SQLite at all) is refused with one line naming it, exit 1, and stays
//!   byte-identical with the same mtime and no side file created; `doctor` says what it is;
//! - an index made before application ids is adopted (nothing rebuilt);
//! - a damaged index (pages overwritten, or a stored block damaged) is reported by `doctor`,
//!   rebuilt by the first command that meets the damage (one warning naming the file, answers
//!   equal to `--no-index`), by `index --all` and by `index --rebuild`;
//! - `index` waits for another writer instead of failing after the busy timeout.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use rusqlite::Connection;

use crate::util::{claude_session, corpus, scry_env, Out};

/// The application id of a scry index (`Scry`).
const SCRY_ID: i32 = 0x5363_7279;

fn real_home() -> PathBuf {
    corpus()
        .join("real/home")
        .canonicalize()
        .expect("corpus home")
}

/// Runs `args` against `home` with the index at `db`.
fn run(home: &Path, db: &Path, args: &[&str]) -> Out {
    let out = scry_env(home, home, &[("SCRY_DB", db)], args);
    out.assert_no_panic();
    out
}

/// `args` with `--no-index`.
fn direct(home: &Path, db: &Path, args: &[&str]) -> Out {
    let mut a = args.to_vec();
    a.push("--no-index");
    run(home, db, &a)
}

/// Bytes, mtime and the side files present beside `path`.
fn snapshot(path: &Path) -> (Vec<u8>, SystemTime, Vec<String>) {
    let bytes = std::fs::read(path).expect("read");
    let mtime = std::fs::metadata(path)
        .and_then(|m| m.modified())
        .expect("mtime");
    let dir = path.parent().expect("dir");
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("list")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    (bytes, mtime, names)
}

/// Every command refuses `db` (exit 1, one stderr line naming it, "not a scry index") and
/// leaves it as it was; `doctor` names it too.
fn assert_refused_untouched(home: &Path, db: &Path) {
    let before = snapshot(db);
    for args in [
        &["list", "--global"][..],
        &["search", "the"],
        &["index", "--all"],
        &["index", "--rebuild"],
        &["show", "claude:029942d1"],
    ] {
        let out = run(home, db, args);
        assert_eq!(out.code, 1, "scry {}:\n{}", args.join(" "), out.render());
        assert!(out.stdout.is_empty(), "{}", out.render());
        assert_eq!(out.stderr.lines().count(), 1, "{}", out.render());
        assert!(
            out.stderr.contains(&db.display().to_string())
                && out.stderr.contains("not a scry index"),
            "{}",
            out.render()
        );
    }
    let doctor = run(home, db, &["doctor", "--json"]);
    assert_eq!(doctor.code, 0, "{}", doctor.render());
    assert_eq!(doctor.json()["index"]["status"], "not_an_index");
    let after = snapshot(db);
    assert!(before.0 == after.0, "{} changed", db.display());
    assert_eq!(before.1, after.1, "mtime of {} changed", db.display());
    assert_eq!(before.2, after.2, "files beside {}", db.display());
}

#[test]
fn foreign_sqlite_file_is_refused_and_left_untouched() {
    let home = real_home();
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("opencode.db");
    std::fs::copy(home.join(".local/share/opencode/opencode.db"), &db).unwrap();
    let mut perms = std::fs::metadata(&db).unwrap().permissions();
    #[allow(clippy::permissions_set_readonly_false)]
    perms.set_readonly(false);
    std::fs::set_permissions(&db, perms).unwrap();
    assert_refused_untouched(&home, &db);
    // Its tables are all there.
    let conn = Connection::open(&db).unwrap();
    let tables: i64 = conn
        .query_row(
            "SELECT count(*) FROM sqlite_master WHERE name IN ('session', 'message', 'part')",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(tables, 3);
}

#[test]
fn other_files_are_refused_and_left_untouched() {
    let home = real_home();
    let dir = tempfile::tempdir().unwrap();
    // Not SQLite at all.
    let text = dir.path().join("notes.db");
    std::fs::write(&text, "my notes, not a database\n").unwrap();
    // Another program's SQLite file that declares itself (application id), in WAL mode.
    let other = dir.path().join("other.db");
    {
        let c = Connection::open(&other).unwrap();
        c.execute_batch(
            "PRAGMA application_id = 305419896; PRAGMA journal_mode = WAL;
             CREATE TABLE sessions(id TEXT); INSERT INTO sessions VALUES('x');",
        )
        .unwrap();
    }
    // Application id 0 and a `meta` table of its own.
    let meta = dir.path().join("meta.db");
    {
        let c = Connection::open(&meta).unwrap();
        c.execute_batch(
            "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT);
             INSERT INTO meta VALUES('version', '3');",
        )
        .unwrap();
    }
    for db in [&text, &other, &meta] {
        let sub = tempfile::tempdir().unwrap();
        let moved = sub.path().join(db.file_name().unwrap());
        std::fs::rename(db, &moved).unwrap();
        assert_refused_untouched(&home, &moved);
    }
}

/// An index as the release before application ids left it: id 0, no marker row.
fn make_legacy(db: &Path) {
    let c = Connection::open(db).unwrap();
    c.execute_batch(
        "PRAGMA application_id = 0; DELETE FROM meta WHERE key = 'scry_index';
         PRAGMA wal_checkpoint(TRUNCATE);",
    )
    .unwrap();
}

#[test]
fn index_from_before_application_ids_is_adopted() {
    let home = real_home();
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("index.db");
    let first = run(&home, &db, &["index", "--all", "--json"]);
    assert_eq!(first.code, 0, "{}", first.render());
    let files = first.json()["files"].as_u64().unwrap();
    assert!(files > 5, "{}", first.render());
    let id: i32 = Connection::open(&db)
        .unwrap()
        .query_row("PRAGMA application_id", [], |r| r.get(0))
        .unwrap();
    assert_eq!(id, SCRY_ID, "a new index carries scry's application id");
    make_legacy(&db);
    let list = run(&home, &db, &["list", "--global"]);
    assert_eq!(list.code, 0, "{}", list.render());
    assert_eq!(
        list.render(),
        direct(&home, &db, &["list", "--global"]).render()
    );
    // Adopted as it was: nothing re-parsed, and now marked as scry's.
    let again = run(&home, &db, &["index", "--all", "--json"]);
    assert_eq!(again.code, 0, "{}", again.render());
    assert_eq!(again.json()["unchanged"].as_u64(), Some(files));
    let c = Connection::open(&db).unwrap();
    let id: i32 = c
        .query_row("PRAGMA application_id", [], |r| r.get(0))
        .unwrap();
    let marker: i64 = c
        .query_row("SELECT value FROM meta WHERE key = 'scry_index'", [], |r| {
            r.get(0)
        })
        .unwrap();
    assert_eq!((id, marker), (SCRY_ID, i64::from(SCRY_ID)));
}

/// Overwrites page `n` (1-based) of the database at `db` with bytes from `seed`.
fn overwrite_page(db: &Path, n: u64, seed: u64) {
    use std::io::{Seek, SeekFrom, Write};
    let size = page_size(db);
    let mut f = std::fs::OpenOptions::new().write(true).open(db).unwrap();
    f.seek(SeekFrom::Start((n - 1) * size)).unwrap();
    let mut x = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    let bytes: Vec<u8> = (0..size)
        .map(|_| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (x >> 56) as u8
        })
        .collect();
    f.write_all(&bytes).unwrap();
}

/// The page size in the database header (bytes 16–17; 1 means 65536).
fn page_size(db: &Path) -> u64 {
    let head = std::fs::read(db).unwrap();
    match u16::from_be_bytes([head[16], head[17]]) {
        1 => 65536,
        n => u64::from(n),
    }
}

fn pages(db: &Path) -> u64 {
    std::fs::metadata(db).unwrap().len() / page_size(db)
}

/// Builds the index of `home` at `db` and folds its WAL in, so every page is in the main file.
fn build(home: &Path, db: &Path) {
    let out = run(home, db, &["index", "--all"]);
    assert_eq!(out.code, 0, "{}", out.render());
    Connection::open(db)
        .unwrap()
        .execute_batch("PRAGMA wal_checkpoint(TRUNCATE);")
        .unwrap();
}

/// `PRAGMA integrity_check` of `db` ("ok" when healthy; an error's text otherwise).
fn integrity(db: &Path) -> String {
    let c = Connection::open(db).unwrap();
    let rows = c.prepare("PRAGMA integrity_check").and_then(|mut st| {
        st.query_map([], |r| r.get::<_, String>(0))?
            .collect::<rusqlite::Result<Vec<_>>>()
    });
    match rows {
        Ok(r) => r.join("\n"),
        Err(e) => e.to_string(),
    }
}

/// Four pages overwritten: page 2 (the first table, read on every open) and three more picked
/// by a fixed seed.
fn damage(db: &Path) {
    let n = pages(db);
    assert!(n > 20, "index of {n} pages");
    overwrite_page(db, 2, 1);
    for (i, p) in [n / 3, n / 2, n - 3].into_iter().enumerate() {
        overwrite_page(db, p, 10 + i as u64);
    }
    assert_ne!(integrity(db), "ok", "the damage is real");
}

/// The one line `got` printed on stderr before what `want` (the direct run) printed there.
fn damage_warning<'a>(got: &'a Out, want: &Out) -> &'a str {
    let extra = got
        .stderr
        .strip_suffix(want.stderr.as_str())
        .unwrap_or_else(|| panic!("stderr differs:\n{}", got.render()));
    assert_eq!(extra.lines().count(), 1, "{}", got.render());
    extra
}

#[test]
fn damaged_index_is_reported_then_rebuilt_by_the_command_that_meets_it() {
    let home = real_home();
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("index.db");
    build(&home, &db);
    damage(&db);
    let doctor = run(&home, &db, &["doctor", "--json"]);
    assert_eq!(doctor.code, 0, "{}", doctor.render());
    assert_eq!(
        doctor.json()["index"]["status"],
        "damaged",
        "{}",
        doctor.stdout
    );
    let text = run(&home, &db, &["doctor"]);
    assert!(
        text.stdout
            .contains(&format!("index: {} DAMAGED", db.display())),
        "{}",
        text.render()
    );

    let args = ["search", "the"];
    let want = direct(&home, &db, &args);
    let got = run(&home, &db, &args);
    assert_eq!(
        (got.code, &got.stdout),
        (0, &want.stdout),
        "{}",
        got.render()
    );
    let warning = damage_warning(&got, &want);
    assert!(
        warning.contains(&format!("index {} is damaged", db.display()))
            && warning.contains("rebuilding"),
        "{}",
        got.render()
    );
    assert_eq!(integrity(&db), "ok");
    // The fresh index answers from now on, silently.
    let next = run(&home, &db, &args);
    assert_eq!(next.render(), want.render());
    let list = run(&home, &db, &["list", "--global", "--kind", "all"]);
    assert_eq!(
        list.render(),
        direct(&home, &db, &["list", "--global", "--kind", "all"]).render()
    );
    assert_eq!(
        run(&home, &db, &["doctor", "--json"]).json()["index"]["status"],
        "ok"
    );
}

#[test]
fn index_all_and_index_rebuild_repair_a_damaged_index() {
    let home = real_home();
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("index.db");
    build(&home, &db);
    let pristine = std::fs::read(&db).unwrap();
    for args in [&["index", "--all"][..], &["index", "--rebuild"]] {
        std::fs::write(&db, &pristine).unwrap();
        damage(&db);
        let out = run(&home, &db, args);
        assert_eq!(out.code, 0, "scry {}:\n{}", args.join(" "), out.render());
        assert!(
            out.stdout.contains("(rebuilt from the sources)"),
            "{}",
            out.render()
        );
        assert_eq!(integrity(&db), "ok", "after scry {}", args.join(" "));
        let side: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.contains("rebuild"))
            .collect();
        assert!(side.is_empty(), "leftovers {side:?}");
        for check in [&["search", "the"][..], &["list", "--global"]] {
            assert_eq!(
                run(&home, &db, check).render(),
                direct(&home, &db, check).render()
            );
        }
    }
    // A healthy index is rebuilt on request too.
    let out = run(&home, &db, &["index", "--rebuild", "--json"]);
    assert_eq!(out.code, 0, "{}", out.render());
    assert_eq!(out.json()["rebuilt"], true);
    assert_eq!(integrity(&db), "ok");
}

/// A stored block damaged in a session's second replay window: `show`, `turns` and `events` have already
/// received the first 2000 events from the index when the damage shows; the rest comes from
/// the source, so the output still equals `--no-index`.
#[test]
fn damage_met_mid_replay_still_answers_like_the_source() {
    let home = tempfile::tempdir().unwrap();
    let id = "7c1a0d6e-0000-4000-8000-00000000a11e";
    claude_session(home.path(), id, "/test/proj", 1600);
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("index.db");
    build(home.path(), &db);
    // The first block starting past event 2000: damage the middle of its blob in the file.
    let blob: Vec<u8> = Connection::open(&db)
        .unwrap()
        .query_row(
            "SELECT data FROM blocks WHERE (id & 4294967295) >= 2100 ORDER BY id LIMIT 1",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert!(blob.len() > 256, "block of {} bytes", blob.len());
    let mut file = std::fs::read(&db).unwrap();
    let probe = &blob[blob.len() / 2..blob.len() / 2 + 32];
    let at = file
        .windows(probe.len())
        .position(|w| w == probe)
        .expect("blob bytes in the file");
    for b in &mut file[at..at + 32] {
        *b ^= 0x5a;
    }
    std::fs::write(&db, &file).unwrap();
    let pristine = std::fs::read(&db).unwrap();
    // `events --surface` reads the session twice through one handle: the damage is met (and
    // warned about) once.
    for args in [
        &["show", id][..],
        &["turns", id],
        &["events", id, "--surface", "current", "--seq", "2590-2600"],
    ] {
        std::fs::write(&db, &pristine).unwrap();
        let want = direct(home.path(), &db, args);
        assert_eq!(want.code, 0, "{}", want.render());
        let got = run(home.path(), &db, args);
        assert_eq!(
            (got.code, &got.stdout),
            (0, &want.stdout),
            "{}",
            got.render()
        );
        let warning = damage_warning(&got, &want);
        assert!(
            warning.contains(&format!("index {} is damaged", db.display())),
            "{}",
            got.render()
        );
        assert_eq!(integrity(&db), "ok");
    }
}

/// Every single page of a small index overwritten in turn: `search` never errs and always
/// answers like `--no-index`.
#[test]
fn single_page_sweep_never_errs_or_answers_wrong() {
    let home = tempfile::tempdir().unwrap();
    for (i, turns) in [(1, 40), (2, 3), (3, 120)] {
        claude_session(
            home.path(),
            &format!("5e55{i:04}-0000-4000-8000-000000000000"),
            "/test/proj",
            turns,
        );
    }
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("index.db");
    build(home.path(), &db);
    let pristine = std::fs::read(&db).unwrap();
    let args = ["search", "answer"];
    let want = direct(home.path(), &db, &args);
    assert_eq!(want.code, 0, "{}", want.render());
    let n = pages(&db);
    let mut rebuilt = 0;
    for p in 2..=n {
        std::fs::write(&db, &pristine).unwrap();
        overwrite_page(&db, p, p);
        let got = run(home.path(), &db, &args);
        assert_eq!(
            (got.code, &got.stdout),
            (0, &want.stdout),
            "page {p} of {n}:\n{}",
            got.render()
        );
        rebuilt += usize::from(got.stderr.contains("is damaged"));
    }
    assert!(rebuilt > 0, "no page of {n} was met");
}

/// Another connection holds the write lock for 12 s (past the 10 s busy timeout): `index --all`
/// says it waits, then indexes.
#[test]
fn indexer_waits_for_another_writer() {
    let home = tempfile::tempdir().unwrap();
    claude_session(
        home.path(),
        "0a17e000-0000-4000-8000-000000000001",
        "/test/proj",
        3,
    );
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("index.db");
    build(home.path(), &db);
    let added = "0a17e000-0000-4000-8000-000000000002";
    claude_session(home.path(), added, "/test/proj", 3);
    let (ready_tx, ready_rx) = std::sync::mpsc::channel();
    let holder = {
        let db = db.clone();
        std::thread::spawn(move || {
            let c = Connection::open(&db).unwrap();
            c.execute_batch("BEGIN IMMEDIATE; INSERT INTO meta(key, value) VALUES('held', 1);")
                .unwrap();
            ready_tx.send(()).unwrap();
            std::thread::sleep(std::time::Duration::from_secs(12));
            c.execute_batch("ROLLBACK").unwrap();
        })
    };
    ready_rx.recv().unwrap();
    let out = run(home.path(), &db, &["index", "--all", "--json"]);
    holder.join().unwrap();
    assert_eq!(out.code, 0, "{}", out.render());
    assert_eq!(out.json()["parsed"].as_u64(), Some(1), "{}", out.render());
    assert_eq!(out.stderr.lines().count(), 1, "{}", out.render());
    assert!(
        out.stderr.contains(&format!(
            "waiting for another scry process to finish writing the index {}",
            db.display()
        )),
        "{}",
        out.render()
    );
}

/// Page 1 overwritten: the header no longer says SQLite, let alone scry, so the file cannot be
/// told apart from someone else's; it is refused untouched like one (delete it to start over).
#[test]
fn page_one_damage_is_refused_not_guessed() {
    let home = real_home();
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("index.db");
    build(&home, &db);
    overwrite_page(&db, 1, 99);
    assert_refused_untouched(&home, &db);
    std::fs::remove_file(&db).unwrap();
    let out = run(&home, &db, &["list", "--global"]);
    assert_eq!(
        out.render(),
        direct(&home, &db, &["list", "--global"]).render()
    );
}
