//! Adversarial SQLite and LangGraph sources: corrupt and non-SQLite databases, a database
//! locked by a writer, WAL mode in a read-only directory, msgpack length bombs in a checkpoint.

use super::*;

/// The OpenCode database of the corpus.
fn opencode_db() -> PathBuf {
    corpus().join("real/home/.local/share/opencode/opencode.db")
}

/// The Deep Agents Code home of the corpus (its `sessions.db` is WAL-mode).
fn dcode_home() -> PathBuf {
    corpus().join("langgraph/dcode/home")
}

#[test]
fn corrupt_and_non_sqlite_databases() {
    // Corrupt: pages overwritten after the header; the schema page is kept so the damage is
    // met while reading rows.
    let c = Case::new();
    let db = c.copy_from_corpus(&opencode_db(), ".local/share/opencode/opencode.db");
    let mut bytes = std::fs::read(&db).expect("read copy");
    let page = 4096;
    for (i, b) in bytes.iter_mut().enumerate().skip(page * 2) {
        *b = (i as u8).wrapping_mul(31) ^ 0xA5;
    }
    std::fs::write(&db, &bytes).expect("corrupt copy");
    let list = c.check_common();
    let doctor = c.scry(&["doctor", "--json"]);
    assert_eq!(doctor.out.code, 0, "{}", doctor.out.render());
    assert_named(
        &[&list.to_string(), &doctor.out.stdout],
        "opencode.db",
        "corrupt opencode.db",
    );

    // Not SQLite at all, for OpenCode and Deep Agents.
    let c = Case::new();
    let oc = c.home().join(".local/share/opencode/opencode.db");
    std::fs::create_dir_all(oc.parent().expect("parent")).expect("mkdir");
    std::fs::write(&oc, "this is not a database\n".repeat(100)).expect("write");
    let da = c.home().join(".deepagents/.state/sessions.db");
    std::fs::create_dir_all(da.parent().expect("parent")).expect("mkdir");
    std::fs::write(&da, [0u8; 8192]).expect("write");
    let list = c.check_common();
    let doctor = c.scry(&["doctor", "--json"]);
    assert_eq!(doctor.out.code, 0, "{}", doctor.out.render());
    let both = [list.to_string(), doctor.out.stdout.clone()];
    let both: Vec<&str> = both.iter().map(String::as_str).collect();
    assert_named(&both, "opencode.db", "text file as opencode.db");
    assert_named(&both, "sessions.db", "zeros as sessions.db");
    let inspect = c.scry(&["inspect", "--db", &da.display().to_string(), "--list", "5"]);
    assert_ne!(inspect.out.code, 0, "{}", inspect.out.render());
    assert!(
        // `inspect` keeps inspect_sessions.py's message ("Cannot read sessions database …").
        inspect.out.stderr.contains("sessions.db") && inspect.out.stderr.contains("not a database"),
        "{}",
        inspect.out.render()
    );
}

#[test]
fn database_locked_by_a_writer() {
    let c = Case::new();
    let db = c.copy_from_corpus(&opencode_db(), ".local/share/opencode/opencode.db");
    // Baseline: what an unlocked read lists.
    let base = uris(&c.check_common());
    let opencode: Vec<&String> = base.iter().filter(|u| u.starts_with("opencode:")).collect();
    assert!(!opencode.is_empty(), "{base:?}");
    // A writer holds a write transaction (RESERVED, then EXCLUSIVE after a write) while scry
    // reads; a fresh index makes scry read the database again.
    let conn = rusqlite::Connection::open(&db).expect("open writer");
    conn.execute_batch(
        "BEGIN EXCLUSIVE; CREATE TABLE scry_adv_lock(x); INSERT INTO scry_adv_lock VALUES (1);",
    )
    .expect("hold a write transaction");
    let fresh = c.dir.path().join("index2/index.db");
    let start = Instant::now();
    let list = run(
        &c.home(),
        &fresh,
        &[],
        &[
            "list", "--global", "--kind", "all", "--json", "--limit", "1000",
        ],
        DEADLINE,
    );
    let took = start.elapsed();
    assert_eq!(list.out.code, 0, "{}", list.out.render());
    let v = list.out.json();
    assert!(uris(&v).contains(&format!("claude:{HEALTHY}")), "{v}");
    // Either the committed state is read (immutable snapshot / WAL reader) or the lock is
    // reported, naming the file; never a hang.
    let listed_all = opencode.iter().all(|u| uris(&v).contains(u));
    if !listed_all {
        assert_named(&[&list.out.stdout], "opencode.db", "locked opencode.db");
    }
    println!(
        "locked database: {} of {} OpenCode sessions listed in {:.1} s",
        uris(&v)
            .iter()
            .filter(|u| u.starts_with("opencode:"))
            .count(),
        opencode.len(),
        took.as_secs_f64()
    );
    conn.execute_batch("ROLLBACK").expect("release");
    drop(conn);
    // Nothing of the writer's uncommitted work or scry's is left beside the database.
    for side in ["-wal", "-shm", "-journal"] {
        let p = PathBuf::from(format!("{}{side}", db.display()));
        assert!(!p.exists(), "{} left behind", p.display());
    }
}

#[test]
fn wal_database_in_a_read_only_directory() {
    let c = Case::new();
    let home = c.copy_from_corpus(&dcode_home(), "");
    let _ = home;
    let state = c.home().join(".deepagents/.state");
    let db = state.join("sessions.db");
    let header = std::fs::read(&db).expect("read");
    assert_eq!(
        header.get(18..20),
        Some(&[2u8, 2][..]),
        "corpus sessions.db is WAL-mode"
    );
    std::fs::set_permissions(&db, std::fs::Permissions::from_mode(0o444)).expect("chmod");
    std::fs::set_permissions(&state, std::fs::Permissions::from_mode(0o555)).expect("chmod");
    let before: Vec<String> = std::fs::read_dir(&state)
        .expect("ls")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    let list = c.check_common();
    let deep: Vec<String> = uris(&list)
        .into_iter()
        .filter(|u| u.starts_with("deepagents:"))
        .collect();
    assert!(deep.len() >= 5, "Deep Agents threads not listed: {list}");
    for u in deep.iter().take(3) {
        let show = c.scry(&["show", "--json", u]);
        assert_eq!(show.out.code, 0, "{}", show.out.render());
    }
    let inspect = c.scry(&[
        "inspect",
        "--db",
        &db.display().to_string(),
        "--list",
        "5",
        "--json",
    ]);
    assert_eq!(inspect.out.code, 0, "{}", inspect.out.render());
    let after: Vec<String> = std::fs::read_dir(&state)
        .expect("ls")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    std::fs::set_permissions(&state, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    assert_eq!(before, after, "files appeared beside the WAL-mode database");
}

#[test]
fn msgpack_length_bombs_in_a_checkpoint() {
    let c = Case::new();
    c.copy_from_corpus(&dcode_home(), "");
    let db = c.home().join(".deepagents/.state/sessions.db");
    // The newest checkpoint of four threads gets a bomb: array32, map32, bin32, str32 headers
    // announcing 4 G entries / bytes, followed by next to nothing.
    let conn = rusqlite::Connection::open(&db).expect("open copy");
    let threads: Vec<String> = conn
        .prepare(
            "SELECT DISTINCT thread_id FROM checkpoints \
             WHERE checkpoint_ns = '' ORDER BY thread_id",
        )
        .and_then(|mut s| {
            s.query_map([], |r| r.get::<_, String>(0))
                .map(|rows| rows.flatten().collect())
        })
        .expect("threads");
    assert!(threads.len() >= 5, "{threads:?}");
    let bombs: [&[u8]; 4] = [
        &[0xdd, 0xff, 0xff, 0xff, 0xff, 0xc0],
        &[0xdf, 0xff, 0xff, 0xff, 0xff, 0xa1, b'k'],
        &[0xc6, 0xff, 0xff, 0xff, 0xff, 0x00],
        &[
            0x81, 0xa8, b'c', b'h', b'a', b'n', b'n', b'e', b'l', b's', 0xdb, 0xff, 0xff, 0xff,
            0xf0,
        ],
    ];
    let bombed: Vec<String> = threads.iter().take(4).cloned().collect();
    for (t, bomb) in bombed.iter().zip(bombs) {
        conn.execute(
            "UPDATE checkpoints SET checkpoint = ?1, type = 'msgpack' \
             WHERE thread_id = ?2 AND checkpoint_ns = '' AND checkpoint_id = \
             (SELECT max(checkpoint_id) FROM checkpoints WHERE thread_id = ?2 AND checkpoint_ns = '')",
            rusqlite::params![bomb, t],
        )
        .expect("plant bomb");
        conn.execute(
            "UPDATE writes SET value = ?1, type = 'msgpack' \
             WHERE thread_id = ?2 AND channel = 'messages'",
            rusqlite::params![bomb, t],
        )
        .expect("plant bomb in writes");
    }
    conn.execute_batch("PRAGMA wal_checkpoint(TRUNCATE)")
        .expect("checkpoint");
    drop(conn);
    let list = c.check_common();
    let listed = uris(&list);
    let untouched = &threads[4];
    assert!(
        listed.iter().any(|u| u.ends_with(untouched.as_str())),
        "untouched thread {untouched} not listed: {list}"
    );
    let db_arg = db.display().to_string();
    for t in &bombed {
        let show = c.scry(&["show", "--json", t]);
        let inspect = c.scry(&["inspect", "--db", &db_arg, "--json", t]);
        let outs = [
            show.out.stdout.as_str(),
            show.out.stderr.as_str(),
            inspect.out.stdout.as_str(),
            inspect.out.stderr.as_str(),
            &list.to_string(),
        ];
        if show.out.code == 0 {
            // The undecodable checkpoint / write is a located warning on the session.
            let w = assert_named(&[&show.out.stdout], "sessions.db", "msgpack bomb");
            assert!(
                w.iter().any(|w| w["message"]
                    .as_str()
                    .is_some_and(|m| m.contains("decode") || m.contains("msgpack"))),
                "{t}: {w:?}"
            );
            let mut messages: Vec<&str> = w.iter().filter_map(|w| w["message"].as_str()).collect();
            let all = messages.len();
            messages.sort_unstable();
            messages.dedup();
            assert_eq!(messages.len(), all, "{t}: a warning said twice: {w:?}");
        } else {
            assert!(
                show.out.stderr.starts_with("error: "),
                "{}",
                show.out.render()
            );
        }
        // `inspect` answers too (its own shape), or names the database in its error.
        let named = outs.iter().any(|o| o.contains("sessions.db"));
        assert!(named, "bomb in {t} not reported:\n{}", outs.join("\n---\n"));
        println!(
            "msgpack bomb in {t}: show exit {} in {:.1} s, inspect exit {} in {:.1} s",
            show.out.code,
            show.took.as_secs_f64(),
            inspect.out.code,
            inspect.took.as_secs_f64()
        );
    }
}
