//! The Kilo provider against the database Kilo CLI 7.7.9 wrote (corpus/real, see its
//! notes/kilo.md): the checkpointed copy in `home/.local/share/kilo/kilo.db` and the live trio
//! `wal/kilo/.local/share/kilo/kilo.db{,-wal,-shm}` exactly as the CLI left it.
//!
//! Expected numbers were computed from the raw database, not from this parser: `python3` with
//! `sqlite3.connect('file:kilo.db?mode=ro&immutable=1', uri=True)`, walking `message` (ordered
//! by `time_created, id`) and `part` (ordered by `id`): user messages with a non-synthetic
//! `text` part, synthetic text parts, non-empty assistant `text` (split by the message's
//! `summary: true`), non-empty `reasoning`, `tool` parts and their `state.metadata.exit`,
//! `compaction` parts. For the WAL trio: a copy of `kilo.db` + `kilo.db-wal` opened by Python
//! in normal mode (3 sessions, 27 messages, 73 parts, 442 events: the same as the checkpointed
//! copy) against the same `kilo.db` opened `immutable=1` (2 sessions, 24 messages, 64 parts:
//! session B and three messages exist only in the WAL).

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use scry_model::{EventKind, LineageKind, Session, SessionKind, TitleSource};
use scry_source::{Env, Source, SourceFile};
use scry_source_kilo::KiloSource;

const MAIN: &str = "ses_dcc5306e9ffeDxDok7PdnFdKIE";
const CHILD: &str = "ses_dcc4fd7bdffebAeAbYG85FAU2O";
const CJK: &str = "ses_dcc4cdd9affe7t35agMQZeWqAT";

fn real() -> PathBuf {
    scry_testkit::corpus().join("real")
}

fn home() -> PathBuf {
    real().join("home")
}

fn files_in(home: &Path) -> Vec<SourceFile> {
    let d = KiloSource.discover(&Env::with_home(home));
    assert!(d.warnings.is_empty(), "{:?}", d.warnings);
    d.files
}

fn parse_all(home: &Path) -> BTreeMap<String, Session> {
    files_in(home)
        .iter()
        .map(|f| (f.id.clone(), KiloSource.parse(f).expect("parses")))
        .collect()
}

fn count(s: &Session, kind: EventKind) -> usize {
    s.events.iter().filter(|e| e.kind == kind).count()
}

fn sub(s: &Session, subtype: &str) -> usize {
    s.events
        .iter()
        .filter(|e| e.subtype.as_deref() == Some(subtype))
        .count()
}

#[test]
fn discovery_lists_three_sessions_with_the_child_and_its_diff_file() {
    let files = files_in(&home());
    let mut ids: Vec<&str> = files.iter().map(|f| f.id.as_str()).collect();
    ids.sort();
    assert_eq!(ids, [CJK, CHILD, MAIN]);
    for f in &files {
        assert!(f.path.ends_with(".local/share/kilo/kilo.db"));
        assert_eq!(f.key.as_deref(), Some(f.id.as_str()));
        assert_eq!(f.cwd_hint.as_deref(), Some("/home/dev/new/work/proj-kilo"));
        assert_eq!(f.related.len(), 1, "{:?}", f.related);
        assert!(f.related[0].ends_with(format!("storage/session_diff/{}.json", f.id)));
    }
    let child = files.iter().find(|f| f.id == CHILD).unwrap();
    assert_eq!(child.kind, SessionKind::Subagent);
    assert_eq!(child.parent.as_deref(), Some(MAIN));
}

#[test]
fn events_match_the_raw_rows() {
    let all = parse_all(&home());
    // (users, synthetic text, assistant text, thinking, tool calls, tool results, compaction
    // requests, compaction summaries) from the raw rows (module doc).
    let expect = [
        (MAIN, (5, 2, 6, 3, 8, 8, 1, 1)),
        (CHILD, (1, 0, 1, 1, 1, 1, 0, 0)),
        (CJK, (1, 0, 2, 1, 1, 1, 0, 0)),
    ];
    for (id, want) in expect {
        let s = &all[id];
        let got = (
            count(s, EventKind::User),
            sub(s, "synthetic_text"),
            count(s, EventKind::Assistant),
            count(s, EventKind::Thinking),
            count(s, EventKind::ToolCall),
            count(s, EventKind::ToolResult),
            sub(s, "compaction_request"),
            sub(s, "compaction_summary"),
        );
        assert_eq!(got, want, "{id}");
        assert!(s.warnings.is_empty(), "{id}: {:?}", s.warnings);
        assert_eq!(s.header.provider, scry_model::ProviderId::Kilo);
        assert_eq!(s.header.agent_version.as_deref(), Some("7.7.9"));
        assert_eq!(
            s.header.cwd.as_deref(),
            Some("/home/dev/new/work/proj-kilo")
        );
        // Only the main session changed a file; the other two diff files hold `[]`.
        assert_eq!(sub(s, "session_diff"), usize::from(id == MAIN), "{id}");
        assert!(s
            .header
            .sources
            .iter()
            .any(|p| p.ends_with(format!("{id}.json"))));
    }
}

#[test]
fn failed_commands_are_failures_with_their_exit_code() {
    let all = parse_all(&home());
    let s = &all[MAIN];
    let mut failed: Vec<(String, i64)> = Vec::new();
    for r in s.events.iter().filter(|e| e.kind == EventKind::ToolResult) {
        let call = s
            .events
            .iter()
            .find(|c| c.kind == EventKind::ToolCall && c.call_id == r.call_id)
            .unwrap();
        if r.exit_code.is_some_and(|c| c != 0) {
            assert_eq!(r.is_error, Some(true));
            assert!(r.is_failure());
            let cmd = call.args.as_ref().unwrap()["command"].as_str().unwrap();
            failed.push((cmd.to_string(), r.exit_code.unwrap()));
        } else if r.tool.as_deref() == Some("bash") {
            assert_eq!((r.exit_code, r.is_error), (Some(0), Some(false)));
        }
    }
    assert_eq!(
        failed,
        [("cat missing.txt".to_string(), 1), ("false".to_string(), 1)]
    );
    let miss = s
        .events
        .iter()
        .find(|e| e.kind == EventKind::ToolResult && e.text.contains("missing.txt"))
        .unwrap();
    assert_eq!(miss.text, "cat: missing.txt: No such file or directory\n");
}

#[test]
fn titles_subagent_lineage_and_models() {
    let all = parse_all(&home());
    let main = &all[MAIN].header;
    // The placeholder is kept in the history, the first prompt is the title (Kilo stored the
    // `run` argument with its quotes).
    assert_eq!(
        main.title.as_deref(),
        Some("\"Please inspect this project and then create a notes file.\"")
    );
    assert_eq!(main.title_source, Some(TitleSource::FirstPrompt));
    assert!(main.titles[0].starts_with("New session - 2026-12-01T22:15:03"));
    assert_eq!(main.agent_name.as_deref(), Some("code"));
    assert_eq!(main.models, ["mock-coder", "mock-coder-small-ctx"]);
    let child = &all[CHILD].header;
    assert_eq!(child.kind, SessionKind::Subagent);
    assert_eq!(child.parent.as_deref(), Some(MAIN));
    assert_eq!(child.lineage[0].kind, LineageKind::SubagentOf);
    assert_eq!(
        child.title.as_deref(),
        Some("Count project files (@general subagent)")
    );
    assert_eq!(child.agent_name.as_deref(), Some("general"));
    // The task call names the child session.
    let task = all[MAIN]
        .events
        .iter()
        .find(|e| e.kind == EventKind::ToolCall && e.tool.as_deref() == Some("task"))
        .unwrap();
    assert_eq!(task.data.as_ref().unwrap()["child_session"], CHILD);
    let cjk = &all[CJK].header;
    assert!(cjk.title.as_deref().unwrap().contains("跨会话检索"));
    // scan_header gives the same title as a parse.
    for f in files_in(&home()) {
        let h = KiloSource.scan_header(&f).unwrap();
        assert_eq!(h.title, all[&f.id].header.title, "{}", f.id);
    }
}

#[test]
fn detect_takes_a_kilo_database_path() {
    let db = home().join(".local/share/kilo/kilo.db");
    let f = KiloSource.detect(&db).expect("recognized");
    assert_eq!(f.id, CJK, "the most recently updated top-level session");
    assert!(KiloSource
        .detect(&home().join(".local/share/opencode/opencode.db"))
        .is_none());
}

/// Every file (name, bytes, mtime) in `dir`.
fn snapshot(dir: &Path) -> Vec<(String, Vec<u8>, std::time::SystemTime)> {
    let mut v: Vec<_> = fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| {
            let m = e.metadata().unwrap();
            (
                e.file_name().to_string_lossy().into_owned(),
                fs::read(e.path()).unwrap(),
                m.modified().unwrap(),
            )
        })
        .collect();
    v.sort();
    v
}

/// The live WAL trio, copied (SQLite must never touch the corpus): the same sessions and events
/// as the checkpointed copy, and the three files byte-identical, same mtimes, nothing new.
#[test]
fn live_wal_reads_like_the_checkpointed_copy_and_touches_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join(".local/share/kilo");
    fs::create_dir_all(&dir).unwrap();
    let src = real().join("wal/kilo/.local/share/kilo");
    for name in ["kilo.db", "kilo.db-wal", "kilo.db-shm"] {
        fs::copy(src.join(name), dir.join(name)).unwrap();
    }
    let before = snapshot(&dir);
    assert_eq!(before.len(), 3);

    let wal = parse_all(tmp.path());
    let checkpointed = parse_all(&home());
    assert_eq!(
        wal.keys().collect::<Vec<_>>(),
        checkpointed.keys().collect::<Vec<_>>()
    );
    for (id, s) in &wal {
        let c = &checkpointed[id];
        let shape = |s: &Session| -> Vec<(EventKind, String, Option<String>)> {
            s.events
                .iter()
                .filter(|e| e.subtype.as_deref() != Some("session_diff"))
                .map(|e| (e.kind, e.text.clone(), e.call_id.clone()))
                .collect()
        };
        assert_eq!(shape(s), shape(c), "{id}");
        assert_eq!(s.header.title, c.header.title, "{id}");
        assert!(s.warnings.is_empty(), "{id}: {:?}", s.warnings);
    }
    assert_eq!(snapshot(&dir), before, "bytes, mtimes and names unchanged");
}
