//! The OpenCode provider against the database OpenCode 1.18.33 itself wrote
//! (corpus/real/home/.local/share/opencode/opencode.db): one main session over five runs and
//! the child session of a `task` call.
//!
//! Every expected number below was computed from the raw database, not from this parser:
//! `python3` with `sqlite3.connect('file:opencode.db?mode=ro&immutable=1', uri=True)`, walking
//! `message` (ordered by `time_created, id`) and `part` (ordered by `id`), counting part types
//! (`text` split by role / `synthetic` / `summary: true`), summing `step-finish` `tokens`, and
//! reading `state.metadata.exit` and `state.time` of `tool` parts; titles from the `event`
//! rows `session.created.1` / `session.updated.1` (`info.title`, consecutive duplicates
//! dropped). The session-level check `session.tokens_input = 52627` / `6984` is OpenCode's own
//! sum, a second, independent witness for the input totals.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use scry_model::{EventKind, LineageKind, Session, SessionKind, TitleSource};
use scry_source::{Env, Source, SourceFile};
use scry_source_opencode::OpencodeSource;

const MAIN: &str = "ses_dd2c91f2cffe1k0KCFlrrjigz1";
const CHILD: &str = "ses_dd2c8efc8ffelh9gXm5tKzPycT";

fn home() -> PathBuf {
    scry_testkit::corpus().join("real/home")
}

fn files() -> Vec<SourceFile> {
    let d = OpencodeSource.discover(&Env::with_home(home()));
    assert!(d.warnings.is_empty(), "{:?}", d.warnings);
    d.files
}

fn session(id: &str) -> Session {
    let f = files()
        .into_iter()
        .find(|f| f.id == id)
        .expect("session listed");
    OpencodeSource.parse(&f).expect("parses")
}

fn kinds(s: &Session) -> BTreeMap<&'static str, usize> {
    let mut m = BTreeMap::new();
    for e in &s.events {
        *m.entry(e.kind.as_str()).or_default() += 1;
    }
    m
}

#[test]
fn discovery_lists_both_sessions_from_the_database() {
    let files = files();
    assert_eq!(files.len(), 2);
    for f in &files {
        assert!(f.path.ends_with(".local/share/opencode/opencode.db"));
        assert_eq!(f.key.as_deref(), Some(f.id.as_str()));
        assert_eq!(
            f.cwd_hint.as_deref(),
            Some("/home/dev/more/work/proj-opencode")
        );
    }
    let child = files.iter().find(|f| f.id == CHILD).unwrap();
    assert_eq!(child.kind, SessionKind::Subagent);
    assert_eq!(child.parent.as_deref(), Some(MAIN));
    let main = files.iter().find(|f| f.id == MAIN).unwrap();
    assert_eq!(main.kind, SessionKind::Main);
}

#[test]
fn main_session_header() {
    let s = session(MAIN);
    let h = &s.header;
    assert_eq!(h.uri, format!("opencode:{MAIN}"));
    assert_eq!(h.cwd.as_deref(), Some("/home/dev/more/work/proj-opencode"));
    assert_eq!(h.title.as_deref(), Some("Mock reply."));
    assert_eq!(h.title_source, Some(TitleSource::Generated));
    assert_eq!(
        h.titles,
        vec!["New session - 2026-11-30T16:08:20.948Z", "Mock reply."]
    );
    assert_eq!(h.agent_version.as_deref(), Some("1.18.33"));
    assert_eq!(h.agent_name.as_deref(), Some("build"));
    assert_eq!(h.kind, SessionKind::Main);
    assert_eq!(h.models, vec!["mock-coder", "mock-coder-small-ctx"]);
    // session.time_created / time_updated = 1796054900948 / 1796054922689 ms.
    assert_eq!(h.created.unwrap().as_millisecond(), 1_796_054_900_948);
    assert_eq!(h.updated.unwrap().as_millisecond(), 1_796_054_922_689);
    assert!(s.warnings.is_empty(), "{:?}", s.warnings);
}

#[test]
fn main_session_events() {
    let s = session(MAIN);
    // text parts: 5 user, 6 assistant, 1 summary (compaction), 1 synthetic; 3 reasoning;
    // 8 tool; 2 patch; 1 compaction part.
    let k = kinds(&s);
    assert_eq!(k.get("user"), Some(&5));
    assert_eq!(k.get("assistant"), Some(&6));
    assert_eq!(k.get("thinking"), Some(&3));
    assert_eq!(k.get("tool_call"), Some(&8));
    assert_eq!(k.get("tool_result"), Some(&8));
    assert_eq!(k.get("compaction"), Some(&2));
    assert_eq!(k.get("meta"), Some(&3));
    assert_eq!(k.get("system"), None);
    assert_eq!(s.events.len(), 35);
    assert_eq!(s.turn_count(), 5);
    assert_eq!(
        s.events[0].text,
        "\"Please inspect this project and then create a notes file.\""
    );

    let tools: Vec<&str> = s
        .events
        .iter()
        .filter(|e| e.kind == EventKind::ToolCall)
        .filter_map(|e| e.tool.as_deref())
        .collect();
    assert_eq!(
        tools,
        vec![
            "bash",
            "write",
            "read",
            "edit",
            "bash",
            "task",
            "todowrite",
            "bash"
        ]
    );

    // Every result pairs with the call before it (same part, same callID).
    for (i, e) in s.events.iter().enumerate() {
        if e.kind == EventKind::ToolResult {
            let call = &s.events[i - 1];
            assert_eq!(call.kind, EventKind::ToolCall);
            assert_eq!(call.call_id, e.call_id);
            assert_eq!(call.tool, e.tool);
            // All 8 tool parts are 'completed'; the two with `metadata.exit: 1` are errors.
            let failed = e.exit_code.is_some_and(|c| c != 0);
            assert_eq!(e.is_error, Some(failed));
        }
    }

    // exit codes recorded only on bash: 0, 1, 1 (cat missing.txt, false); others unknown.
    let exits: Vec<(Option<&str>, Option<i64>, Option<u64>)> = s
        .events
        .iter()
        .filter(|e| e.kind == EventKind::ToolResult)
        .map(|e| (e.tool.as_deref(), e.exit_code, e.duration_ms))
        .collect();
    assert_eq!(
        exits,
        vec![
            (Some("bash"), Some(0), Some(143)),
            (Some("write"), None, Some(29)),
            (Some("read"), None, Some(44)),
            (Some("edit"), None, Some(33)),
            (Some("bash"), Some(1), Some(120)),
            (Some("task"), None, Some(676)),
            (Some("todowrite"), None, Some(4)),
            (Some("bash"), Some(1), Some(81)),
        ]
    );
    let failed: Vec<&str> = s
        .events
        .iter()
        .filter(|e| e.is_failure())
        .map(|e| e.text.as_str())
        .collect();
    assert_eq!(
        failed,
        vec![
            "cat: missing.txt: No such file or directory\n",
            "(no output)"
        ]
    );
    let args = s.events[3].args.as_ref().unwrap();
    assert_eq!(args["command"], "ls -la");

    // The task call links the child session.
    let task = s
        .events
        .iter()
        .find(|e| e.tool.as_deref() == Some("task"))
        .unwrap();
    assert_eq!(task.data.as_ref().unwrap()["child_session"], CHILD);

    // The auto-compaction: request part, then the summary message's text.
    let comp: Vec<(Option<&str>, u32)> = s
        .events
        .iter()
        .filter(|e| e.kind == EventKind::Compaction)
        .map(|e| (e.subtype.as_deref(), e.turn))
        .collect();
    assert_eq!(
        comp,
        vec![
            (Some("compaction_request"), 4),
            (Some("compaction_summary"), 4)
        ]
    );
    let summary = s
        .events
        .iter()
        .find(|e| e.subtype.as_deref() == Some("compaction_summary"))
        .unwrap();
    assert!(summary.text.contains("<summary>"));
    assert_eq!(summary.model.as_deref(), Some("mock-coder-small-ctx"));
    // The synthetic "Continue if you have next steps" text is not a prompt.
    let synthetic = s
        .events
        .iter()
        .find(|e| e.subtype.as_deref() == Some("synthetic_text"))
        .unwrap();
    assert_eq!(synthetic.kind, EventKind::Meta);
    assert!(synthetic
        .text
        .starts_with("Continue if you have next steps"));
}

#[test]
fn main_session_tokens_once_per_step() {
    let s = session(MAIN);
    // 14 step-finish parts; sums: input 52627, output 874, reasoning 45, cache.read 50798,
    // cache.write 0 (session.tokens_input = 52627 agrees).
    let with_usage = s.events.iter().filter(|e| e.usage.is_some()).count();
    assert_eq!(with_usage, 14);
    let t = s.total_usage().unwrap();
    assert_eq!(t.input, 52_627);
    assert_eq!(t.output, 874 + 45, "normalized output includes reasoning");
    assert_eq!(t.reasoning, 45);
    assert_eq!(t.cache_read, 50_798);
    assert_eq!(t.cache_write, 0);
    // No usage on tool results or prompts.
    assert!(s
        .events
        .iter()
        .filter(|e| e.usage.is_some())
        .all(|e| matches!(
            e.kind,
            EventKind::Assistant
                | EventKind::Thinking
                | EventKind::ToolCall
                | EventKind::Compaction
        )));
}

#[test]
fn child_session() {
    let s = session(CHILD);
    let h = &s.header;
    assert_eq!(h.kind, SessionKind::Subagent);
    assert_eq!(h.parent.as_deref(), Some(MAIN));
    assert_eq!(h.lineage.len(), 1);
    assert_eq!(h.lineage[0].kind, LineageKind::SubagentOf);
    assert_eq!(h.lineage[0].target, MAIN);
    assert_eq!(h.lineage[0].evidence, "session.parent_id");
    assert_eq!(
        h.title.as_deref(),
        Some("Count project files (@general subagent)")
    );
    assert_eq!(h.title_source, Some(TitleSource::Metadata));
    assert_eq!(h.agent_name.as_deref(), Some("general"));
    let k = kinds(&s);
    assert_eq!(k.get("user"), Some(&1));
    assert_eq!(k.get("thinking"), Some(&1));
    assert_eq!(k.get("tool_call"), Some(&1));
    assert_eq!(k.get("tool_result"), Some(&1));
    assert_eq!(k.get("assistant"), Some(&1));
    assert_eq!(s.events.len(), 5);
    let r = &s.events[3];
    assert_eq!((r.exit_code, r.duration_ms), (Some(0), Some(174)));
    assert_eq!(r.text, "3\n");
    // 2 step-finish parts: input 5805+1179, output 54+27, reasoning 12, cache.read 4713.
    let t = s.total_usage().unwrap();
    assert_eq!(
        (t.input, t.output, t.reasoning, t.cache_read),
        (6984, 81 + 12, 12, 4713)
    );
    assert!(s.warnings.is_empty(), "{:?}", s.warnings);
}

#[test]
fn scan_header_matches_parse() {
    for f in files() {
        let scanned = OpencodeSource.scan_header(&f).unwrap();
        let parsed = OpencodeSource.parse(&f).unwrap().header;
        assert_eq!(scanned.id, parsed.id);
        assert_eq!(scanned.title, parsed.title);
        assert_eq!(scanned.cwd, parsed.cwd);
        assert_eq!(scanned.kind, parsed.kind);
        assert_eq!(scanned.parent, parsed.parent);
        assert_eq!(scanned.created, parsed.created);
        assert_eq!(scanned.updated, parsed.updated);
    }
}

#[test]
fn detect_a_database_path_picks_the_latest_main_session() {
    let db = home().join(".local/share/opencode/opencode.db");
    let f = OpencodeSource.detect(&db).expect("recognized");
    assert_eq!(f.id, MAIN);
    assert_eq!(f.key.as_deref(), Some(MAIN));
}

/// A copy in a directory without write bits: reading creates no `-wal` / `-shm` / journal and
/// changes no byte.
#[test]
fn read_only_directory_gets_no_new_files() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join(".local/share/opencode");
    fs::create_dir_all(&dir).unwrap();
    let src = home().join(".local/share/opencode/opencode.db");
    fs::copy(&src, dir.join("opencode.db")).unwrap();
    let before = fs::read(dir.join("opencode.db")).unwrap();
    let listing = |d: &Path| {
        let mut v: Vec<String> = fs::read_dir(d)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    };
    let names_before = listing(&dir);
    set_readonly(&dir, true);
    let env = Env::with_home(tmp.path());
    let d = OpencodeSource.discover(&env);
    assert_eq!(d.files.len(), 2);
    for f in &d.files {
        let s = OpencodeSource.parse(f).unwrap();
        assert!(!s.events.is_empty());
        OpencodeSource.scan_header(f).unwrap();
    }
    set_readonly(&dir, false);
    assert_eq!(listing(&dir), names_before);
    assert_eq!(fs::read(dir.join("opencode.db")).unwrap(), before);
}

#[cfg(unix)]
fn set_readonly(dir: &Path, ro: bool) {
    use std::os::unix::fs::PermissionsExt;
    let mode = if ro { 0o555 } else { 0o755 };
    fs::set_permissions(dir, fs::Permissions::from_mode(mode)).unwrap();
}

#[cfg(not(unix))]
fn set_readonly(dir: &Path, ro: bool) {
    let mut p = fs::metadata(dir).unwrap().permissions();
    p.set_readonly(ro);
    fs::set_permissions(dir, p).unwrap();
}
