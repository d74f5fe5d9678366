//! The OpenCode provider against stores built in the test: a SQLite database written with
//! rusqlite (the OpenCode 1.18 column names, trimmed to what the reader uses) plus a legacy
//! `storage/` tree beside it. Covers the merge of a session present in both stores, damaged
//! rows, error / running tool states, placeholder titles, unknown part types, the environment
//! overrides and the read-only guarantees on a WAL-mode database.

use std::fs;
use std::path::{Path, PathBuf};

use rusqlite::{params, Connection};
use scry_model::{EventKind, SessionKind, Surface, TitleSource, WarningKind};
use scry_source::{Env, Source};
use scry_source_opencode::OpencodeSource;
use serde_json::{json, Value};

const SCHEMA: &str = "
CREATE TABLE session (id text PRIMARY KEY, project_id text NOT NULL, parent_id text,
  slug text NOT NULL, directory text NOT NULL, title text NOT NULL, version text NOT NULL,
  time_created integer NOT NULL, time_updated integer NOT NULL, revert text);
CREATE TABLE message (id text PRIMARY KEY, session_id text NOT NULL, time_created integer NOT NULL,
  time_updated integer NOT NULL, data text NOT NULL);
CREATE TABLE part (id text PRIMARY KEY, message_id text NOT NULL, session_id text NOT NULL,
  time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL);
";

const T0: i64 = 1_796_000_000_000;

struct Db {
    conn: Connection,
}

impl Db {
    fn create(path: &Path) -> Db {
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        let conn = Connection::open(path).unwrap();
        conn.execute_batch(SCHEMA).unwrap();
        Db { conn }
    }

    fn session(&self, id: &str, parent: Option<&str>, title: &str) {
        self.conn
            .execute(
                "INSERT INTO session (id, project_id, parent_id, slug, directory, title, version, \
                 time_created, time_updated) VALUES (?1, 'global', ?2, 'slug', '/home/demo/p', ?3, '1.18.0', ?4, ?5)",
                params![id, parent, title, T0, T0 + 60_000],
            )
            .unwrap();
    }

    fn message(&self, sid: &str, mid: &str, t: i64, data: &str) {
        self.conn
            .execute(
                "INSERT INTO message VALUES (?1, ?2, ?3, ?3, ?4)",
                params![mid, sid, T0 + t, data],
            )
            .unwrap();
    }

    fn part(&self, sid: &str, mid: &str, pid: &str, data: &str) {
        self.conn
            .execute(
                "INSERT INTO part VALUES (?1, ?2, ?3, ?4, ?4, ?5)",
                params![pid, mid, sid, T0, data],
            )
            .unwrap();
    }
}

fn user(sid: &str) -> String {
    json!({"role":"user","sessionID":sid,"time":{"created":T0},"agent":"build",
           "model":{"providerID":"p","modelID":"m1"}})
    .to_string()
}

fn assistant(sid: &str) -> String {
    json!({"role":"assistant","sessionID":sid,"modelID":"m1","providerID":"p","agent":"build",
           "time":{"created":T0},"tokens":{"input":10,"output":5,"reasoning":0,"cache":{"read":0,"write":0}}})
    .to_string()
}

fn data_dir(home: &Path) -> PathBuf {
    home.join(".local/share/opencode")
}

fn write_json(path: &Path, v: &Value) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, v.to_string()).unwrap();
}

/// Session `ses_both` is in the database and in `storage/`; `ses_json` only in `storage/`;
/// `ses_bad` has a corrupt part row and a corrupt message row.
fn build(home: &Path) {
    let dir = data_dir(home);
    let db = Db::create(&dir.join("opencode.db"));
    db.session("ses_both", None, "Fix the parser");
    db.message("ses_both", "msg_01", 0, &user("ses_both"));
    db.part(
        "ses_both",
        "msg_01",
        "prt_01",
        r#"{"type":"text","text":"fix it"}"#,
    );
    db.part(
        "ses_both",
        "msg_01",
        "prt_02",
        r#"{"type":"text","text":"please","time":{"start":1796000000001}}"#,
    );
    db.message("ses_both", "msg_02", 1_000, &assistant("ses_both"));
    db.part("ses_both", "msg_02", "prt_03", r#"{"type":"step-start"}"#);
    db.part(
        "ses_both",
        "msg_02",
        "prt_04",
        r#"{"type":"tool","tool":"bash","callID":"c1","state":{"status":"error","input":{"command":"make"},"error":"make: *** no rule","time":{"start":1796000001000,"end":1796000001500}}}"#,
    );
    db.part(
        "ses_both",
        "msg_02",
        "prt_05",
        r#"{"type":"tool","tool":"read","callID":"c2","state":{"status":"running","input":{"filePath":"a.rs"},"time":{"start":1796000001600}}}"#,
    );
    db.part("ses_both", "msg_02", "prt_06", r#"{"type":"weird","x":1}"#);
    db.part("ses_both", "msg_02", "prt_07", r#"{"type":"weird","x":2}"#);
    db.part(
        "ses_both",
        "msg_02",
        "prt_08",
        r#"{"type":"retry","attempt":1,"error":{"name":"APIError","data":{"message":"overloaded"}}}"#,
    );
    db.part(
        "ses_both",
        "msg_02",
        "prt_09",
        r#"{"type":"step-finish","reason":"tool-calls","tokens":{"input":10,"output":5,"reasoning":0,"cache":{"read":3,"write":2}}}"#,
    );

    db.session("ses_bad", None, "New session - 2026-11-30T10:00:00.000Z");
    db.message("ses_bad", "msg_10", 0, &user("ses_bad"));
    db.part(
        "ses_bad",
        "msg_10",
        "prt_10",
        r#"{"type":"text","text":"hello there"}"#,
    );
    db.part("ses_bad", "msg_10", "prt_11", r#"{"type":"text","text":"#);
    db.message("ses_bad", "msg_11", 1_000, "{not json");
    db.part(
        "ses_bad",
        "msg_11",
        "prt_12",
        r#"{"type":"text","text":"orphan words"}"#,
    );
    db.message("ses_bad", "msg_12", 2_000, &assistant("ses_bad"));
    db.part(
        "ses_bad",
        "msg_12",
        "prt_13",
        r#"{"type":"text","text":"hi"}"#,
    );
    db.session(
        "ses_kid",
        Some("ses_both"),
        "Look around (@explore subagent)",
    );
    db.session("ses_undo", None, "Undo");
    db.message("ses_undo", "msg_20", 0, &user("ses_undo"));
    db.part(
        "ses_undo",
        "msg_20",
        "prt_20",
        r#"{"type":"text","text":"keep"}"#,
    );
    db.message("ses_undo", "msg_21", 1_000, &assistant("ses_undo"));
    db.part(
        "ses_undo",
        "msg_21",
        "prt_21",
        r#"{"type":"text","text":"kept answer"}"#,
    );
    db.part(
        "ses_undo",
        "msg_21",
        "prt_22",
        r#"{"type":"text","text":"undone answer"}"#,
    );
    db.message("ses_undo", "msg_22", 2_000, &user("ses_undo"));
    db.part(
        "ses_undo",
        "msg_22",
        "prt_23",
        r#"{"type":"text","text":"undone prompt"}"#,
    );
    db.conn
        .execute(
            r#"UPDATE session SET revert = '{"messageID":"msg_21","partID":"prt_22"}' WHERE id = 'ses_undo'"#,
            [],
        )
        .unwrap();
    drop(db);

    let storage = dir.join("storage");
    for (sid, title) in [("ses_both", "Old copy"), ("ses_json", "Only here")] {
        write_json(
            &storage.join(format!("session/proj1/{sid}.json")),
            &json!({"id":sid,"version":"1.1.0","projectID":"proj1","directory":"/home/demo/q",
                    "title":title,"time":{"created":T0,"updated":T0+5_000}}),
        );
    }
    write_json(
        &storage.join("message/ses_json/msg_a.json"),
        &json!({"id":"msg_a","sessionID":"ses_json","role":"user","time":{"created":T0}}),
    );
    write_json(
        &storage.join("part/msg_a/prt_a.json"),
        &json!({"id":"prt_a","type":"text","text":"from json"}),
    );
    fs::write(storage.join("part/msg_a/prt_b.json"), "{broken").unwrap();
}

#[test]
fn session_in_both_stores_is_listed_once_and_read_from_the_database() {
    let tmp = tempfile::tempdir().unwrap();
    build(tmp.path());
    let d = OpencodeSource.discover(&Env::with_home(tmp.path()));
    let ids: Vec<&str> = d.files.iter().map(|f| f.id.as_str()).collect();
    assert_eq!(ids.iter().filter(|i| **i == "ses_both").count(), 1);
    assert_eq!(d.files.len(), 5, "{ids:?}");
    let both = d.files.iter().find(|f| f.id == "ses_both").unwrap();
    assert!(both.path.ends_with("opencode.db"));
    assert_eq!(both.related.len(), 1);
    let s = OpencodeSource.parse(both).unwrap();
    assert_eq!(s.header.title.as_deref(), Some("Fix the parser"));
    assert!(s.header.sources[0].ends_with("opencode.db"));
    assert!(s.header.sources[1].ends_with("storage/session/proj1/ses_both.json"));
    assert_eq!(s.header.cwd.as_deref(), Some("/home/demo/p"));

    // Two text parts of one user message: one prompt.
    let users: Vec<&str> = s
        .events
        .iter()
        .filter(|e| e.kind == EventKind::User)
        .map(|e| e.text.as_str())
        .collect();
    assert_eq!(users, vec!["fix it\n\nplease"]);

    // Error tool: result with is_error and the error text; running tool: call only.
    let res: Vec<_> = s
        .events
        .iter()
        .filter(|e| e.kind == EventKind::ToolResult)
        .collect();
    assert_eq!(res.len(), 1);
    assert_eq!(res[0].is_error, Some(true));
    assert_eq!(res[0].exit_code, None);
    assert_eq!(res[0].text, "make: *** no rule");
    assert_eq!(res[0].duration_ms, Some(500));
    assert!(res[0].is_failure());
    let calls = s
        .events
        .iter()
        .filter(|e| e.kind == EventKind::ToolCall)
        .count();
    assert_eq!(calls, 2);
    let retry = s
        .events
        .iter()
        .find(|e| e.subtype.as_deref() == Some("retry"))
        .unwrap();
    assert_eq!(
        (retry.kind, retry.text.as_str()),
        (EventKind::System, "overloaded")
    );

    // Usage once, from step-finish (message tokens not added again).
    let t = s.total_usage().unwrap();
    assert_eq!(
        (t.input, t.output, t.cache_read, t.cache_write),
        (10, 5, 3, 2)
    );
    assert_eq!(s.events.iter().filter(|e| e.usage.is_some()).count(), 1);

    // One warning for the unknown type, with its count.
    let unknown: Vec<_> = s
        .warnings
        .iter()
        .filter(|w| w.kind == WarningKind::UnknownRecord)
        .collect();
    assert_eq!(unknown.len(), 1, "{:?}", s.warnings);
    assert!(unknown[0].message.contains("'weird': 2"));
}

#[test]
fn corrupt_rows_are_warnings_and_other_rows_still_read() {
    let tmp = tempfile::tempdir().unwrap();
    build(tmp.path());
    let d = OpencodeSource.discover(&Env::with_home(tmp.path()));
    let f = d.files.iter().find(|f| f.id == "ses_bad").unwrap();
    let s = OpencodeSource.parse(f).unwrap();
    let corrupt: Vec<_> = s
        .warnings
        .iter()
        .filter(|w| w.kind == WarningKind::CorruptRecord)
        .collect();
    assert_eq!(corrupt.len(), 2, "{:?}", s.warnings);
    assert!(corrupt.iter().any(|w| w.message.contains("part prt_11")));
    assert!(corrupt.iter().any(|w| w.message.contains("message msg_11")));
    assert!(corrupt.iter().all(|w| w.line.is_some() && w.file.is_some()));
    let texts: Vec<(EventKind, &str)> =
        s.events.iter().map(|e| (e.kind, e.text.as_str())).collect();
    assert_eq!(
        texts,
        vec![
            (EventKind::User, "hello there"),
            (EventKind::Meta, "orphan words"),
            (EventKind::Assistant, "hi"),
        ]
    );
    // Placeholder title: the first prompt stands in, the placeholder stays in the history.
    assert_eq!(s.header.title.as_deref(), Some("hello there"));
    assert_eq!(s.header.title_source, Some(TitleSource::FirstPrompt));
    assert_eq!(
        s.header.titles,
        vec!["New session - 2026-11-30T10:00:00.000Z"]
    );
    // Message-level tokens count when no step-finish exists.
    assert_eq!(s.total_usage().unwrap().input, 10);
}

#[test]
fn json_only_session_and_child_session() {
    let tmp = tempfile::tempdir().unwrap();
    build(tmp.path());
    let d = OpencodeSource.discover(&Env::with_home(tmp.path()));
    let f = d.files.iter().find(|f| f.id == "ses_json").unwrap();
    assert!(f.path.ends_with("storage/session/proj1/ses_json.json"));
    assert_eq!(f.key, None);
    assert_eq!(f.cwd_hint.as_deref(), Some("/home/demo/q"));
    let s = OpencodeSource.parse(f).unwrap();
    assert_eq!(s.events.len(), 1);
    assert_eq!(s.events[0].text, "from json");
    assert_eq!(s.warnings.len(), 1);
    assert_eq!(s.warnings[0].kind, WarningKind::CorruptRecord);
    assert!(s.warnings[0].file.as_ref().unwrap().ends_with("prt_b.json"));

    let kid = d.files.iter().find(|f| f.id == "ses_kid").unwrap();
    assert_eq!(kid.kind, SessionKind::Subagent);
    assert_eq!(kid.parent.as_deref(), Some("ses_both"));
    let s = OpencodeSource.parse(kid).unwrap();
    assert!(s.events.is_empty());
    assert_eq!(s.header.lineage[0].target, "ses_both");
}

#[test]
fn events_after_the_revert_point_are_shadowed() {
    let tmp = tempfile::tempdir().unwrap();
    build(tmp.path());
    let d = OpencodeSource.discover(&Env::with_home(tmp.path()));
    let f = d.files.iter().find(|f| f.id == "ses_undo").unwrap();
    let s = OpencodeSource.parse(f).unwrap();
    let surfaces: Vec<(&str, Surface)> = s
        .events
        .iter()
        .map(|e| (e.text.as_str(), e.surface))
        .collect();
    assert_eq!(
        surfaces,
        vec![
            ("keep", Surface::Current),
            ("kept answer", Surface::Current),
            ("undone answer", Surface::Shadowed),
            ("undone prompt", Surface::Shadowed),
        ]
    );
}

#[test]
fn unknown_session_key_is_not_found() {
    let tmp = tempfile::tempdir().unwrap();
    build(tmp.path());
    let d = OpencodeSource.discover(&Env::with_home(tmp.path()));
    let mut f = d.files[0].clone();
    f.key = Some("ses_nope".into());
    assert!(matches!(
        OpencodeSource.parse(&f),
        Err(scry_source::SourceError::NotFound { .. })
    ));
}

#[test]
fn environment_overrides() {
    let tmp = tempfile::tempdir().unwrap();
    // XDG_DATA_HOME moves the data directory.
    let xdg = tmp.path().join("xdg");
    build(&tmp.path().join("elsewhere"));
    fs::create_dir_all(&xdg).unwrap();
    fs::rename(
        data_dir(&tmp.path().join("elsewhere")),
        xdg.join("opencode"),
    )
    .unwrap();
    let env =
        Env::with_home(tmp.path().join("nohome")).var_set("XDG_DATA_HOME", xdg.to_str().unwrap());
    let d = OpencodeSource.discover(&env);
    assert_eq!(d.files.len(), 5);
    assert_eq!(
        d.roots.last().unwrap().env_var.as_deref(),
        Some("XDG_DATA_HOME")
    );

    // OPENCODE_DB: absolute, and relative to the data directory; a channel database too.
    let other = tmp.path().join("custom.db");
    let db = Db::create(&other);
    db.session("ses_custom", None, "Custom");
    drop(db);
    let env2 = env.clone().var_set("OPENCODE_DB", other.to_str().unwrap());
    let d = OpencodeSource.discover(&env2);
    assert_eq!(d.roots[0].env_var.as_deref(), Some("OPENCODE_DB"));
    assert!(d.files.iter().any(|f| f.id == "ses_custom"));
    assert_eq!(d.files.len(), 6);

    fs::rename(&other, xdg.join("opencode/opencode-dev.db")).unwrap();
    let d = OpencodeSource.discover(&env);
    assert!(d
        .files
        .iter()
        .any(|f| f.id == "ses_custom" && f.path.ends_with("opencode-dev.db")));
    let env3 = env.clone().var_set("OPENCODE_DB", "opencode-dev.db");
    let d = OpencodeSource.discover(&env3);
    assert_eq!(d.files[0].id, "ses_custom");
    assert_eq!(d.files.len(), 6, "the override is not listed twice");
    let env4 = env.var_set("OPENCODE_DB", ":memory:");
    assert_eq!(OpencodeSource.roots(&env4).len(), 1);
}

fn listing(d: &Path) -> Vec<String> {
    let mut v: Vec<String> = fs::read_dir(d)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// A WAL-mode database closed cleanly has no `-wal` / `-shm`; a plain `mode=ro` open would
/// create them (SQLite needs the shared-memory file to read a WAL database). The immutable
/// open must not.
#[test]
fn wal_database_gets_no_wal_or_shm_files() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = data_dir(tmp.path());
    let path = dir.join("opencode.db");
    let db = Db::create(&path);
    db.conn.pragma_update(None, "journal_mode", "WAL").unwrap();
    db.session("ses_w", None, "Walled");
    db.message("ses_w", "msg_w", 0, &user("ses_w"));
    db.part(
        "ses_w",
        "msg_w",
        "prt_w",
        r#"{"type":"text","text":"in wal mode"}"#,
    );
    drop(db);
    let before = listing(&dir);
    assert_eq!(before, vec!["opencode.db"]);
    let bytes = fs::read(&path).unwrap();
    let d = OpencodeSource.discover(&Env::with_home(tmp.path()));
    let s = OpencodeSource.parse(&d.files[0]).unwrap();
    assert_eq!(s.events[0].text, "in wal mode");
    assert!(s.warnings.is_empty(), "{:?}", s.warnings);
    assert_eq!(listing(&dir), before);
    assert_eq!(fs::read(&path).unwrap(), bytes);
}

/// A live database with changes still in its `-wal`: they are read (through a private copy of
/// the database and its WAL), and nothing beside the database changes.
#[test]
fn pending_wal_is_read_without_touching_the_store() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = data_dir(tmp.path());
    let path = dir.join("opencode.db");
    let db = Db::create(&path);
    db.conn.pragma_update(None, "journal_mode", "WAL").unwrap();
    db.conn
        .pragma_update(None, "wal_autocheckpoint", 0)
        .unwrap();
    db.session("ses_w", None, "Walled");
    db.conn
        .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
        .unwrap();
    // Only in the WAL: a second session and a message with its part.
    db.session("ses_new", None, "Only in the WAL");
    db.message("ses_w", "msg_w", 0, &user("ses_w"));
    db.part(
        "ses_w",
        "msg_w",
        "prt_w",
        r#"{"type":"text","text":"from the wal"}"#,
    );
    let stat = |p: &Path| {
        let m = fs::metadata(p).unwrap();
        (m.len(), m.modified().unwrap(), fs::read(p).unwrap())
    };
    let wal = dir.join("opencode.db-wal");
    assert!(fs::metadata(&wal).unwrap().len() > 0);
    let before = (listing(&dir), stat(&path), stat(&wal));
    let d = OpencodeSource.discover(&Env::with_home(tmp.path()));
    let mut ids: Vec<&str> = d.files.iter().map(|f| f.id.as_str()).collect();
    ids.sort();
    assert_eq!(ids, ["ses_new", "ses_w"]);
    let f = d.files.iter().find(|f| f.id == "ses_w").unwrap();
    let s = OpencodeSource.parse(f).unwrap();
    assert_eq!(s.events[0].text, "from the wal");
    assert!(s.warnings.is_empty(), "{:?}", s.warnings);
    let new = d.files.iter().find(|f| f.id == "ses_new").unwrap();
    assert_eq!(
        OpencodeSource.scan_header(new).unwrap().title.as_deref(),
        Some("Only in the WAL")
    );
    assert_eq!((listing(&dir), stat(&path), stat(&wal)), before);
    drop(db);
}

#[test]
fn garbage_files_are_errors_or_warnings_never_panics() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = data_dir(tmp.path());
    fs::create_dir_all(dir.join("storage/session/p")).unwrap();
    fs::write(dir.join("opencode.db"), b"SQLite format 3\0 but not really").unwrap();
    fs::write(dir.join("storage/session/p/x.json"), b"[[[[").unwrap();
    let deep = format!("{}{}", "[".repeat(50_000), "]".repeat(50_000));
    fs::write(dir.join("storage/session/p/deep.json"), deep).unwrap();
    let d = OpencodeSource.discover(&Env::with_home(tmp.path()));
    assert!(d.files.is_empty());
    assert_eq!(d.warnings.len(), 3, "{:?}", d.warnings);
    assert!(OpencodeSource.detect(&dir.join("opencode.db")).is_none());
}
