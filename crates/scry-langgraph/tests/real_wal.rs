//! The real deepagents-code 0.1.88 database (`corpus/real`, WAL mode, read-only directory) and
//! the read-only open policy: never a `-wal` / `-shm` file created beside a database.
//!
//! Expected numbers were derived independently with a small Python msgpack reader over the raw
//! `writes` rows (unique message ids of `messages` writes in checkpoint / task_path order):
//! root namespace 28 messages = 5 HumanMessage, 14 AIMessage, 9 ToolMessage; 9 tool calls
//! (execute, write_file, read_file, edit_file, execute, task, compact_conversation, execute,
//! execute) each answered by a ToolMessage with its id; 3 AI messages with thinking blocks;
//! usage_metadata on all 14 AI messages. Namespace `tools:eeada537-…` (the `task` subagent)
//! holds 19 messages. File header bytes 18–19 are 2/2 (WAL). Latest root checkpoint:
//! `_model_spec` = `anthropic:claude-sonnet-4-5`, `_context_tokens` = 13997.

mod common;

use std::collections::BTreeSet;
use std::path::Path;

use scry_langgraph::{reconstruct, threads, Db};

const THREAD: &str = "01a22cf1-d681-7529-82a8-e14759aabcb3";
const SUBAGENT_NS: &str = "tools:eeada537-4255-c8f6-be89-cb758bd13a40";

fn dir_listing(dir: &Path) -> BTreeSet<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect()
}

fn set_mode(dir: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(mode)).unwrap();
}

#[test]
fn real_database_lists_and_rebuilds() {
    let path = common::real_db();
    let header = std::fs::read(&path).unwrap();
    assert_eq!(
        &header[18..20],
        &[2, 2],
        "the corpus database is in WAL mode"
    );
    let dir = path.parent().unwrap();
    let before = dir_listing(dir);

    let db = Db::open(&path).unwrap();
    let list = threads::list_threads(&db, None, true).unwrap();
    assert_eq!(list.len(), 1);
    let info = &list[0];
    assert_eq!(info.thread_id, THREAD);
    assert_eq!(info.message_count, Some(28));
    assert_eq!(
        info.initial_prompt.as_deref(),
        Some("Please inspect this project and then create a notes file.")
    );
    assert_eq!(
        info.model_spec.as_deref(),
        Some("anthropic:claude-sonnet-4-5")
    );
    assert_eq!(info.context_tokens, Some(13997));
    assert_eq!(info.agent_name.as_deref(), Some("agent"));
    assert_eq!(info.git_branch.as_deref(), Some("master"));
    assert_eq!(info.cwd.as_deref(), Some("/home/dev/work/proj-da"));
    assert_eq!(info.checkpoint_count, 187);
    assert!(info.warnings.is_empty(), "{:?}", info.warnings);
    // The `task` subagent is a child namespace, not a root thread.
    assert_eq!(info.children.len(), 1);
    assert_eq!(info.children[0].namespace, SUBAGENT_NS);
    assert_eq!(info.children[0].checkpoint_count, 30);
    assert_eq!(info.children[0].message_count, Some(19));

    let rebuilt = reconstruct::thread_messages(&db, THREAD, "").unwrap();
    let m = &rebuilt.messages;
    let count = |k: &str| m.iter().filter(|x| x.kind() == k).count();
    assert_eq!((count("human"), count("ai"), count("tool")), (5, 14, 9));
    let turn_starts = m
        .iter()
        .filter(|x| scry_langgraph::inspect::is_turn_start(x))
        .count();
    assert_eq!(turn_starts, 5);
    let mut calls = Vec::new();
    for x in m {
        if let Some(list) = x.tool_calls().and_then(|v| v.as_array()) {
            for c in list {
                calls.push((
                    c.get("id").and_then(|v| v.as_str()).unwrap().to_string(),
                    c.get("name").and_then(|v| v.as_str()).unwrap().to_string(),
                ));
            }
        }
    }
    let names: Vec<&str> = calls.iter().map(|(_, n)| n.as_str()).collect();
    assert_eq!(
        names,
        [
            "execute",
            "write_file",
            "read_file",
            "edit_file",
            "execute",
            "task",
            "compact_conversation",
            "execute",
            "execute"
        ]
    );
    for (id, name) in &calls {
        let result = m.iter().find(|x| x.tool_call_id() == Some(id.as_str()));
        assert!(
            result.is_some(),
            "tool call {name} {id} has no tool message"
        );
    }
    let thinking = m.iter().filter(|x| !x.reasoning().is_empty()).count();
    assert_eq!(thinking, 3);
    let with_usage = m
        .iter()
        .filter(|x| x.kind() == "ai" && x.usage_metadata().is_some())
        .count();
    assert_eq!(with_usage, 14);
    assert!(m
        .iter()
        .filter_map(|x| x.usage_metadata())
        .all(|u| u.get("input_tokens").and_then(|v| v.as_i64()).is_some()));

    // Every message gets a time from the checkpoint after the write that introduced it.
    let times = reconstruct::message_times(&db, THREAD, "", m).unwrap();
    assert!(
        times
            .iter()
            .all(|t| t.as_deref().is_some_and(|t| t.starts_with("2026-11-30T"))),
        "{times:?}"
    );
    assert!(
        times.windows(2).all(|w| w[0] <= w[1]),
        "times are monotonic: {times:?}"
    );

    let sub = reconstruct::thread_messages(&db, THREAD, SUBAGENT_NS).unwrap();
    assert_eq!(sub.messages.len(), 19);

    drop(db);
    assert_eq!(
        dir_listing(dir),
        before,
        "no side files appear next to the corpus database"
    );
}

/// Builds a WAL-mode LangGraph-shaped database at `path` and returns the open writer.
fn make_wal_db(path: &Path) -> rusqlite::Connection {
    let conn = rusqlite::Connection::open(path).unwrap();
    let mode: String = conn
        .query_row("PRAGMA journal_mode=WAL", [], |r| r.get(0))
        .unwrap();
    assert_eq!(mode, "wal");
    conn.execute_batch(
        "CREATE TABLE checkpoints (thread_id TEXT NOT NULL, checkpoint_ns TEXT NOT NULL DEFAULT '', \
         checkpoint_id TEXT NOT NULL, parent_checkpoint_id TEXT, type TEXT, checkpoint BLOB, metadata BLOB, \
         PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id)); \
         CREATE TABLE writes (thread_id TEXT NOT NULL, checkpoint_ns TEXT NOT NULL DEFAULT '', \
         checkpoint_id TEXT NOT NULL, task_id TEXT NOT NULL, idx INTEGER NOT NULL, channel TEXT NOT NULL, \
         type TEXT, value BLOB, PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id, task_id, idx)); \
         INSERT INTO checkpoints VALUES ('t-one', '', 'c1', NULL, NULL, NULL, '{\"updated_at\": \"2026-11-01T00:00:00+00:00\"}');",
    )
    .unwrap();
    conn
}

#[test]
fn wal_copy_in_read_only_dir_creates_no_side_files() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("ro");
    std::fs::create_dir(&dir).unwrap();
    // The real WAL-mode database, copied, in a directory without write bits.
    std::fs::copy(common::real_db(), dir.join("sessions.db")).unwrap();
    // A second one written here with a writer still open, so its `-wal` holds committed rows
    // that are not yet in the main file; copy main + wal as a crashed writer would leave them.
    let live = tmp.path().join("live.db");
    let writer = make_wal_db(&live);
    std::fs::copy(&live, dir.join("crashed.db")).unwrap();
    std::fs::copy(tmp.path().join("live.db-wal"), dir.join("crashed.db-wal")).unwrap();
    set_mode(&dir, 0o555);
    let before = dir_listing(&dir);

    let db = Db::open(&dir.join("sessions.db")).unwrap();
    assert!(
        !db.read_wal(),
        "no -wal beside the corpus copy: read in place"
    );
    assert_eq!(threads::list_threads(&db, None, false).unwrap().len(), 1);
    assert_eq!(
        reconstruct::thread_messages(&db, THREAD, "")
            .unwrap()
            .messages
            .len(),
        28
    );
    drop(db);

    // The crashed copy: its WAL rows (the tables and thread `t-one`) are read through a
    // private copy, although nothing may be created in this directory.
    let db = Db::open(&dir.join("crashed.db")).unwrap();
    assert!(db.read_wal() && db.open_notes().is_empty());
    assert_eq!(threads::resolve_thread_id(&db, "t-o").unwrap(), "t-one");
    drop(db);

    // Tests run as root in CI, so a permission error would not prove anything: check files.
    assert_eq!(
        dir_listing(&dir),
        before,
        "no -wal/-shm created in the read-only directory"
    );
    set_mode(&dir, 0o755);
    drop(writer);
}

/// Bytes and mtime of each file in `dir`, by name.
fn files_state(dir: &Path) -> Vec<(String, Vec<u8>, std::time::SystemTime)> {
    let mut out: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            let p = e.path();
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read(&p).unwrap(),
                std::fs::metadata(&p).unwrap().modified().unwrap(),
            )
        })
        .collect();
    out.sort();
    out
}

#[test]
fn live_wal_in_writable_dir_is_read_without_creating_files() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("sessions.db");
    let writer = make_wal_db(&path);
    // The writer keeps -wal and -shm; its rows are only in the WAL.
    assert!(
        tmp.path().join("sessions.db-wal").exists() && tmp.path().join("sessions.db-shm").exists()
    );
    let main_len = std::fs::metadata(&path).unwrap().len();
    let before = files_state(tmp.path());
    let db = Db::open(&path).unwrap();
    assert!(db.read_wal(), "a live -wal is read through a private copy");
    assert_eq!(threads::resolve_thread_id(&db, "t-o").unwrap(), "t-one");
    assert_eq!(threads::list_threads(&db, None, false).unwrap().len(), 1);
    drop(db);
    assert_eq!(
        files_state(tmp.path()),
        before,
        "db, -wal and -shm keep their bytes and mtimes, and no file appears"
    );
    assert_eq!(std::fs::metadata(&path).unwrap().len(), main_len);
    drop(writer);
}

#[test]
fn wal_without_shm_is_read_and_no_shm_appears() {
    // What a crashed writer leaves in a writable directory: db + -wal, no -shm. Opening it in
    // place without `immutable` would create the -shm; the snapshot must not.
    let tmp = tempfile::tempdir().unwrap();
    let live = tmp.path().join("live.db");
    let writer = make_wal_db(&live);
    let dir = tmp.path().join("agent");
    std::fs::create_dir(&dir).unwrap();
    std::fs::copy(&live, dir.join("sessions.db")).unwrap();
    std::fs::copy(tmp.path().join("live.db-wal"), dir.join("sessions.db-wal")).unwrap();
    let before = files_state(&dir);
    assert_eq!(before.len(), 2);
    let db = Db::open(&dir.join("sessions.db")).unwrap();
    assert!(db.read_wal());
    assert_eq!(threads::resolve_thread_id(&db, "t-o").unwrap(), "t-one");
    drop(db);
    assert_eq!(files_state(&dir), before, "unchanged, and no -shm appeared");
    assert!(!dir.join("sessions.db-shm").exists());
    drop(writer);
}

#[test]
fn summarization_events_and_pending_interrupts() {
    use scry_langgraph::channels;
    let db = Db::open(&common::dcode_db()).unwrap();
    // Thread …ebc1 ran compact_conversation once (dcode/threads.json); the raw writes hold one
    // `_summarization_event` with cutoff_index 6 (read with the Python msgpack reader).
    let (events, warnings) = channels::channel_writes(
        &db,
        "01a22ce5-ebc1-7090-b100-aeff29f7dcf9",
        "",
        "_summarization_event",
    )
    .unwrap();
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(events.len(), 1);
    assert_eq!(
        events[0].value.get("cutoff_index").and_then(|v| v.as_i64()),
        Some(6)
    );
    assert!(events[0].ts.is_some());
    // …128c: bare reject => turn aborted, the approval interrupt is still pending;
    // …16b4: reject with message => resumed, nothing pending.
    let pending =
        channels::pending_interrupts(&db, "01a22ce6-128c-73f1-ba28-42708c079275", "").unwrap();
    assert_eq!(pending.len(), 1);
    let request = pending[0]
        .get("value")
        .and_then(|v| v.get("action_requests"))
        .and_then(|v| v.as_array());
    assert_eq!(
        request
            .and_then(|r| r[0].get("name"))
            .and_then(|v| v.as_str()),
        Some("write_file")
    );
    assert!(
        channels::pending_interrupts(&db, "01a22ce6-16b4-778e-af6c-bb01aeeaad1b", "")
            .unwrap()
            .is_empty()
    );
}
