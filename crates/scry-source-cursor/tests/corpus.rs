//! The Cursor CLI reader on the third-party fixtures and on hand-built layouts and stores.
//!
//! Expected numbers were counted from the raw files with a separate Python script (not with
//! this parser): prompts = `text` blocks of `role: user` lines; text / thinking / tool_use /
//! tool_result = content blocks by `type`; `turn_ended` lines counted apart. The store's meta
//! value was hex-decoded with Python (`bytes.fromhex(value)`).

use std::fs;
use std::path::{Path, PathBuf};

use scry_model::{EventKind, Session, SessionKind, Surface, TimeSource, TitleSource, WarningKind};
use scry_source::{Env, Source};
use scry_source_cursor::CursorSource;

fn corpus() -> PathBuf {
    scry_testkit::corpus().join("third-party/cursor")
}

fn count(s: &Session, kind: EventKind) -> usize {
    s.events.iter().filter(|e| e.kind == kind).count()
}

fn parse(path: &Path) -> Session {
    let f = CursorSource.detect(path).expect("detected");
    CursorSource.parse(&f).expect("parses")
}

#[test]
fn every_fixture_parses() {
    let mut n = 0;
    for entry in fs::read_dir(corpus()).unwrap() {
        let s = parse(&entry.unwrap().path());
        assert!(s.warnings.is_empty(), "{:?}", s.warnings);
        n += 1;
    }
    assert_eq!(n, 4);
}

#[test]
fn small_transcript() {
    let s = parse(&corpus().join("agent-transcripts_small.jsonl"));
    assert_eq!(count(&s, EventKind::User), 2);
    assert_eq!(count(&s, EventKind::Assistant), 2);
    assert_eq!(count(&s, EventKind::ToolCall), 1);
    assert_eq!(count(&s, EventKind::ToolResult), 0);
    let ended = s.events.last().unwrap();
    assert_eq!(ended.subtype.as_deref(), Some("turn_ended"));
    assert_eq!(ended.text, "success");
    assert_eq!(ended.surface, Surface::LogOnly);
    assert!(s
        .events
        .iter()
        .all(|e| e.time.is_none() && e.time_source == TimeSource::None));
    assert!(s.header.updated.is_some(), "file mtime is the session time");
    assert!(s.header.created.is_none());
    assert_eq!(s.header.title.as_deref(), Some("List the files."));
}

#[test]
fn large_transcript_pairs_idless_calls_by_order() {
    let s = parse(&corpus().join("agent-transcripts_large.jsonl"));
    assert_eq!(count(&s, EventKind::User), 3);
    assert_eq!(count(&s, EventKind::Assistant), 4);
    assert_eq!(count(&s, EventKind::Thinking), 1);
    assert_eq!(count(&s, EventKind::ToolCall), 2);
    assert_eq!(count(&s, EventKind::ToolResult), 2);
    for r in s.events.iter().filter(|e| e.kind == EventKind::ToolResult) {
        let call = s
            .events
            .iter()
            .find(|c| c.kind == EventKind::ToolCall && c.call_id == r.call_id)
            .unwrap();
        assert!(call.seq < r.seq);
        assert_eq!(call.tool, r.tool);
        assert_eq!(r.data.as_ref().unwrap()["paired_by"], "order");
    }
    let bash = s
        .events
        .iter()
        .find(|e| e.tool.as_deref() == Some("Bash"))
        .unwrap();
    assert_eq!(bash.call_id.as_deref(), Some("t1"));
}

#[test]
fn cursor_agent_transcript_strips_user_query() {
    let s = parse(&corpus().join("cursor-agent_test-session.jsonl"));
    let prompts: Vec<_> = s
        .events
        .iter()
        .filter(|e| e.kind == EventKind::User)
        .map(|e| e.text.as_str())
        .collect();
    assert_eq!(prompts, ["run ls command", "now show me the git status"]);
    assert_eq!(count(&s, EventKind::Assistant), 4);
    assert_eq!(count(&s, EventKind::ToolCall), 2);
    assert_eq!(count(&s, EventKind::Meta), 0);
    assert!(s.events.iter().all(|e| e.locator.as_str().starts_with('r')));
}

#[test]
fn store_db_meta_only() {
    let s = parse(&corpus().join("cursor-agent_store.db"));
    let h = &s.header;
    assert_eq!(h.id, "a1b2c3d4-e5f6-7890-abcd-ef1234567890");
    assert_eq!(h.title.as_deref(), Some("Test Session"));
    assert_eq!(h.title_source, Some(TitleSource::Metadata));
    assert_eq!(h.models, ["claude-4-sonnet"]);
    assert_eq!(h.created.unwrap().as_millisecond(), 1775522590321);
    assert!(s.events.is_empty());
}

/// Creates a WAL-mode store with meta and blobs, closed so no -wal/-shm remain.
fn make_store(path: &Path, agent: &str, blobs: &[(&str, Vec<u8>)]) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    let c = rusqlite::Connection::open(path).unwrap();
    c.execute_batch(
        "PRAGMA journal_mode=WAL; CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT);
         CREATE TABLE blobs (id TEXT PRIMARY KEY, data BLOB);",
    )
    .unwrap();
    let meta = format!(
        r#"{{"agentId":"{agent}","name":"Fix login","mode":"default","createdAt":1794300000000,"lastUsedModel":"gpt-5"}}"#
    );
    let hex: String = meta.bytes().map(|b| format!("{b:02x}")).collect();
    c.execute("INSERT INTO meta VALUES ('0', ?1)", [hex])
        .unwrap();
    c.execute(
        "INSERT INTO meta VALUES ('cursorAuth/accessToken', 'not-for-reading')",
        [],
    )
    .unwrap();
    for (id, data) in blobs {
        c.execute(
            "INSERT INTO blobs VALUES (?1, ?2)",
            rusqlite::params![id, data],
        )
        .unwrap();
    }
    drop(c);
}

fn siblings(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn store_blobs_decoded_read_only_and_counted() {
    let home = tempfile::tempdir().unwrap();
    let agent = "0f1e2d3c-4b5a-4978-8a6b-5c4d3e2f1a0b";
    let db = home
        .path()
        .join(format!(".cursor/chats/abc123/{agent}/store.db"));
    make_store(
        &db,
        agent,
        &[
            ("b1", br#"{"role":"user","content":[{"type":"text","text":"<user_query>fix login</user_query>"}]}"#.to_vec()),
            ("b2", br#"{"role":"assistant","content":[{"type":"text","text":"Looking."},{"type":"tool_use","id":"tc1","name":"Read","input":{"path":"/home/demo/app/login.ts"}}]}"#.to_vec()),
            ("b3", br#"{"role":"user","content":[{"type":"tool_result","tool_use_id":"tc1","content":"export function login() {}"}]}"#.to_vec()),
            ("b4", vec![0x0a, 0x20, 0xff, 0x00, 0x12]),
        ],
    );
    let before = fs::read(&db).unwrap();
    let mtime = fs::metadata(&db).unwrap().modified().unwrap();
    let files_before = siblings(db.parent().unwrap());

    let d = CursorSource.discover(&Env::with_home(home.path()));
    assert_eq!(d.files.len(), 1);
    let s = CursorSource.parse(&d.files[0]).unwrap();
    assert_eq!(s.header.id, agent);
    assert_eq!(s.header.title.as_deref(), Some("Fix login"));
    let kinds: Vec<_> = s.events.iter().map(|e| e.kind).collect();
    assert_eq!(
        kinds,
        [
            EventKind::User,
            EventKind::Assistant,
            EventKind::ToolCall,
            EventKind::ToolResult
        ]
    );
    assert_eq!(s.events[3].tool.as_deref(), Some("Read"));
    assert!(s.events[0].locator.as_str().starts_with("id:b1"));
    let other: Vec<_> = s
        .warnings
        .iter()
        .filter(|w| w.kind == WarningKind::Other)
        .collect();
    assert_eq!(other.len(), 1);
    assert!(other[0].message.contains("1 binary blob(s) (5 bytes"));
    // Read-only: same bytes, same mtime, no -wal / -shm / -journal created.
    assert_eq!(fs::read(&db).unwrap(), before);
    assert_eq!(fs::metadata(&db).unwrap().modified().unwrap(), mtime);
    assert_eq!(siblings(db.parent().unwrap()), files_before);
}

#[test]
fn transcript_joined_with_its_store_and_cwd_checked_against_slug() {
    let home = tempfile::tempdir().unwrap();
    let id = "6a5b4c3d-2e1f-4a0b-9c8d-7e6f5a4b3c2d";
    let tdir = home
        .path()
        .join(".cursor/projects/home-demo-projects-web-app/agent-transcripts")
        .join(id);
    fs::create_dir_all(&tdir).unwrap();
    fs::write(
        tdir.join(format!("{id}.jsonl")),
        concat!(
            r#"{"role":"user","message":{"content":[{"type":"text","text":"<user_query>\nfix the header\n</user_query>"}]}}"#,
            "\n",
            r#"{"role":"assistant","message":{"content":[{"type":"tool_use","name":"Edit","input":{"path":"/home/demo/projects/web_app/src/header.tsx"}}]}}"#,
            "\n{corrupt\n",
            r#"{"role":"assistant","message":{"content":[{"type":"text","text":"Done."}]}}"#,
            "\n",
            r#"{"role":"assistant","message":{"content":[{"type":"te"#,
        ),
    )
    .unwrap();
    fs::write(
        tdir.join("9d8c7b6a-0000-4000-8000-000000000001.jsonl"),
        r#"{"role":"user","message":{"content":[{"type":"text","text":"sub task"}]}}"#,
    )
    .unwrap();
    make_store(
        &home
            .path()
            .join(format!(".cursor/chats/ffee/{id}/store.db")),
        id,
        &[],
    );
    let d = CursorSource.discover(&Env::with_home(home.path()));
    assert_eq!(d.files.len(), 2, "the store joins its transcript");
    let main = d.files.iter().find(|f| f.id == id).unwrap();
    assert_eq!(main.related.len(), 1);
    let s = CursorSource.parse(main).unwrap();
    let h = &s.header;
    // "/home/demo/projects/web_app" re-encodes to the folder's slug; nothing is decoded.
    assert_eq!(h.cwd.as_deref(), Some("/home/demo/projects/web_app"));
    assert_eq!(h.title.as_deref(), Some("Fix login"));
    assert_eq!(h.created.unwrap().as_millisecond(), 1794300000000);
    assert_eq!(h.sources.len(), 2);
    assert_eq!(count(&s, EventKind::User), 1);
    assert_eq!(count(&s, EventKind::Assistant), 1);
    let kinds: Vec<_> = s.warnings.iter().map(|w| w.kind).collect();
    assert_eq!(
        kinds,
        [WarningKind::CorruptRecord, WarningKind::IncompleteTail]
    );
    assert_eq!(s.warnings[0].line, Some(3));

    let sub = d.files.iter().find(|f| f.id != id).unwrap();
    let s = CursorSource.parse(sub).unwrap();
    assert_eq!(s.header.kind, SessionKind::Subagent);
    assert_eq!(s.header.parent.as_deref(), Some(id));
}

#[test]
fn demo_session_parses() {
    // demo/home is synthetic (written for `scry --demo`).
    let home = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../demo/home");
    let d = CursorSource.discover(&Env::with_home(home));
    assert_eq!(d.files.len(), 1);
    let s = CursorSource.parse(&d.files[0]).unwrap();
    assert!(s.warnings.is_empty(), "{:?}", s.warnings);
    assert_eq!(
        s.header.cwd.as_deref(),
        Some("/home/demo/projects/api-server")
    );
    assert_eq!(count(&s, EventKind::User), 2);
    assert!(count(&s, EventKind::ToolCall) >= 2);
}

#[test]
fn odd_shapes_never_panic() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("x.jsonl");
    fs::write(
        &path,
        concat!(
            r#"{"role":"user","message":{"content":[]}}"#, "\n",
            r#"{"role":"assistant","message":{"content":[null,5,{"type":"tool_use","input":"{\"a\":1}"},{"type":"mystery"}]}}"#, "\n",
            r#"{"role":"user","message":{"content":[{"type":"tool_result"},{"type":"text","text":"<user_query>unclosed"}]}}"#, "\n",
            r#"{"role":"user","message":{"content":"plain string <user_query>x</user_query> tail"}}"#, "\n",
            r#"{"role":7}"#, "\n",
            r#"{"type":"turn_ended"}"#, "\n",
            r#"[]"#, "\n",
        ),
    )
    .unwrap();
    let s = parse(&path);
    assert!(!s.events.is_empty());
    let call = s
        .events
        .iter()
        .find(|e| e.kind == EventKind::ToolCall)
        .unwrap();
    assert_eq!(
        call.args.as_ref().unwrap()["a"],
        1,
        "JSON-in-string arguments are decoded"
    );
    assert!(s
        .events
        .iter()
        .any(|e| e.kind == EventKind::User && e.text == "unclosed"));
    assert!(s
        .warnings
        .iter()
        .any(|w| w.kind == WarningKind::UnknownRecord));
}

#[test]
fn cursor_config_dir_is_searched_too() {
    let alt = tempfile::tempdir().unwrap();
    let t = alt.path().join("projects/p/agent-transcripts");
    fs::create_dir_all(&t).unwrap();
    fs::write(
        t.join("11111111-2222-4333-8444-555555555555.jsonl"),
        r#"{"role":"user","message":{"content":[{"type":"text","text":"hi"}]}}"#,
    )
    .unwrap();
    let env =
        Env::with_home("/nonexistent").var_set("CURSOR_CONFIG_DIR", alt.path().to_string_lossy());
    let d = CursorSource.discover(&env);
    assert_eq!(d.roots[0].env_var.as_deref(), Some("CURSOR_CONFIG_DIR"));
    assert_eq!(d.files.len(), 1);
}
