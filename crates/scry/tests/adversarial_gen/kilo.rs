//! Adversarial Kilo CLI stores (OpenCode's layout in `kilo.db`, left in WAL mode by the CLI): a
//! live WAL cut mid-frame, a `-wal` of garbage, the live trio in a read-only directory, and
//! rows whose JSON is damaged. Every case also proves the agent's files keep their bytes and
//! mtimes and that no file appears beside them.

use super::*;

/// The live trio as Kilo left it.
fn wal_dir() -> PathBuf {
    corpus().join("real/wal/kilo/.local/share/kilo")
}

const STORE: &str = ".local/share/kilo";

/// Every file in `dir`: name, bytes, mtime.
fn files_of(dir: &Path) -> Vec<(String, Vec<u8>, std::time::SystemTime)> {
    let mut v: Vec<_> = std::fs::read_dir(dir)
        .expect("ls")
        .flatten()
        .filter(|e| e.path().is_file())
        .map(|e| {
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read(e.path()).expect("read"),
                e.metadata().expect("stat").modified().expect("mtime"),
            )
        })
        .collect();
    v.sort();
    v
}

fn kilo_uris(list: &Value) -> Vec<String> {
    let mut v: Vec<String> = uris(list)
        .into_iter()
        .filter(|u| u.starts_with("kilo:"))
        .collect();
    v.sort();
    v
}

/// A case holding the live trio, with `wal` as its `-wal` (`None`: the corpus one).
fn live_case(wal: Option<Vec<u8>>) -> (Case, PathBuf) {
    let c = Case::new();
    for name in ["kilo.db", "kilo.db-shm", "kilo.db-wal"] {
        c.copy_from_corpus(&wal_dir().join(name), &format!("{STORE}/{name}"));
    }
    let dir = c.home().join(STORE);
    if let Some(bytes) = wal {
        std::fs::write(dir.join("kilo.db-wal"), bytes).expect("write wal");
    }
    (c, dir)
}

#[test]
fn live_wal_cut_mid_frame_reads_the_committed_frames() {
    let full = std::fs::read(wal_dir().join("kilo.db-wal")).expect("read wal");
    // A WAL frame is a 24-byte header + a 4096-byte page: cut inside the last frame.
    let (c, dir) = live_case(Some(full[..full.len() - 1000].to_vec()));
    let before = files_of(&dir);
    let list = c.check_common();
    let listed = kilo_uris(&list);
    // The database alone holds 2 sessions, the whole WAL 3; a torn tail loses at most the
    // last transaction.
    assert!(listed.len() >= 2, "{list}");
    for u in &listed {
        let show = c.scry(&["show", "--json", u]);
        assert_eq!(show.out.code, 0, "{}", show.out.render());
    }
    println!(
        "WAL cut mid-frame: {} of 3 Kilo sessions listed",
        listed.len()
    );
    assert_eq!(files_of(&dir), before, "the agent's files changed");
}

#[test]
fn garbage_wal_beside_a_good_database() {
    let junk: Vec<u8> = (0..70_000u32)
        .map(|i| (i.wrapping_mul(2654435761) >> 13) as u8)
        .collect();
    let (c, dir) = live_case(Some(junk));
    let before = files_of(&dir);
    let list = c.check_common();
    // SQLite ignores a WAL whose header is not valid: the database's own 2 sessions.
    assert_eq!(kilo_uris(&list).len(), 2, "{list}");
    assert_eq!(files_of(&dir), before, "the agent's files changed");
}

#[test]
fn live_trio_in_a_read_only_directory() {
    let (c, dir) = live_case(None);
    for name in ["kilo.db", "kilo.db-shm", "kilo.db-wal"] {
        std::fs::set_permissions(dir.join(name), std::fs::Permissions::from_mode(0o444))
            .expect("chmod");
    }
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o555)).expect("chmod");
    let before = files_of(&dir);
    let list = c.check_common();
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    // All three sessions: the WAL is read from a private copy, not through the agent's -shm.
    assert_eq!(kilo_uris(&list).len(), 3, "{list}");
    assert_eq!(files_of(&dir), before, "the agent's files changed");
}

#[test]
fn damaged_rows_are_located_warnings() {
    let c = Case::new();
    let db = c.copy_from_corpus(
        &corpus().join("real/home/.local/share/kilo/kilo.db"),
        &format!("{STORE}/kilo.db"),
    );
    let conn = rusqlite::Connection::open(&db).expect("open copy");
    // One part cut mid-JSON, one part not UTF-8, one message that is a JSON array.
    conn.execute_batch(
        "UPDATE part SET data = substr(data, 1, 40) WHERE id = (SELECT min(id) FROM part);
         UPDATE part SET data = X'7B2274797065223A2274657874222C2274657874223A22FF227D'
           WHERE id = (SELECT max(id) FROM part);
         UPDATE message SET data = '[1,2,3]' WHERE id = (SELECT max(id) FROM message);",
    )
    .expect("damage rows");
    drop(conn);
    let list = c.check_common();
    let listed = kilo_uris(&list);
    assert_eq!(listed.len(), 3, "{list}");
    let mut warned = 0;
    for u in &listed {
        let show = c.scry(&["show", "--json", u]);
        assert_eq!(show.out.code, 0, "{}", show.out.render());
        let v = show.out.json();
        warned += v["warnings"]
            .as_array()
            .map(|w| {
                w.iter()
                    .filter(|w| w.to_string().contains("kilo.db"))
                    .count()
            })
            .unwrap_or(0);
    }
    assert!(warned >= 3, "the three damaged rows are not all reported");
}
