//! The Antigravity reader against the third-party `agy` transcripts (corpus
//! `third-party/antigravity`) and against fixtures built here: step output restoration (present
//! and missing), the workspace from a conversations database (read-only directory) or from tool
//! arguments, both homes, and an IDE brain directory holding only artifacts.
//!
//! Corpus expectations were counted with a python one-off over the raw lines (json.loads, sort
//! by step_index, stable): cli_transcript_small.jsonl — USER_INPUT 2, PLANNER_RESPONSE thinking 3
//! / content 1 / planned calls 2, tool-execution steps 10, SYSTEM_MESSAGE 2,
//! CONVERSATION_HISTORY 1, CHECKPOINT 1, lines with `truncated_fields: ["content"]` 8; sorted line
//! order 1, 13–19, 2–12 (the trimmed fixture lines all carry step_index 0). Pairing by order
//! then leaves 8 of the 10 tool steps without a pending planned call.

use std::path::{Path, PathBuf};

use scry_model::{EventKind, Session, TimeSource, WarningKind};
use scry_source::{Env, Source, SourceFile};
use scry_source_antigravity::AntigravitySource;
use serde_json::json;

fn corpus() -> PathBuf {
    scry_testkit::corpus().join("third-party/antigravity")
}

fn count(s: &Session, kind: EventKind) -> usize {
    s.events.iter().filter(|e| e.kind == kind).count()
}

fn warnings(s: &Session, kind: WarningKind) -> usize {
    s.warnings.iter().filter(|w| w.kind == kind).count()
}

#[test]
fn third_party_small_transcript() {
    let f = SourceFile::new(
        scry_model::ProviderId::Antigravity,
        "small",
        corpus().join("cli_transcript_small.jsonl"),
    );
    let s = AntigravitySource.parse(&f).unwrap();
    assert_eq!(count(&s, EventKind::User), 2);
    assert_eq!(count(&s, EventKind::Thinking), 3);
    assert_eq!(count(&s, EventKind::Assistant), 1);
    assert_eq!(count(&s, EventKind::ToolCall), 2);
    assert_eq!(count(&s, EventKind::ToolResult), 10);
    assert_eq!(count(&s, EventKind::System), 2);
    assert_eq!(count(&s, EventKind::Compaction), 1);
    // Meta: CONVERSATION_HISTORY + the derived workspace.
    assert_eq!(count(&s, EventKind::Meta), 2);
    assert_eq!(warnings(&s, WarningKind::UnpairedResult), 8);
    assert_eq!(warnings(&s, WarningKind::MissingSideFile), 8);
    assert_eq!(s.warnings.len(), 16, "{:?}", s.warnings);
    assert!(s.total_usage().is_none());
    // The prompt without its wrapper; the model from the settings change.
    let first = &s.events.iter().find(|e| e.kind == EventKind::User).unwrap();
    assert_eq!(first.text, "List the files.");
    assert_eq!(
        s.header.models,
        vec!["Gemini 3.5 Flash (Medium)".to_string()]
    );
    // Planned calls pair by order with the next tool steps; argument values are decoded JSON.
    let calls: Vec<_> = s
        .events
        .iter()
        .filter(|e| e.kind == EventKind::ToolCall)
        .collect();
    assert_eq!(
        calls[0].args.as_ref().unwrap()["DirectoryPath"],
        "/tmp/repo"
    );
    assert_eq!(calls[0].call_id.as_deref(), Some("step2#0"));
    let paired: Vec<(&str, &str)> = s
        .events
        .iter()
        .filter(|e| e.kind == EventKind::ToolResult && e.tool.is_some())
        .map(|e| (e.tool.as_deref().unwrap(), e.subtype.as_deref().unwrap()))
        .collect();
    assert_eq!(
        paired,
        vec![
            ("list_dir", "list_directory"),
            ("write_file", "code_action")
        ]
    );
    // RUN_COMMAND "completed successfully" → exit 0.
    let run = s
        .events
        .iter()
        .find(|e| e.subtype.as_deref() == Some("run_command") && e.raw.line == 6)
        .unwrap();
    assert_eq!(run.exit_code, Some(0));
    // Truncated content with no steps/ file: text kept with a note.
    let view = s
        .events
        .iter()
        .find(|e| e.subtype.as_deref() == Some("view_file"))
        .unwrap();
    assert!(view.data.as_ref().unwrap()["note"]
        .as_str()
        .unwrap()
        .contains("steps/4/output.txt"));
    assert_eq!(view.text, "File Path: `file:///tmp/repo/a.txt`\n1: hello\n");
    // Workspace: derived from tool-argument paths (no .git on this machine → common directory).
    assert_eq!(s.header.cwd.as_deref(), Some("/tmp/repo"));
    let ws = s
        .events
        .iter()
        .find(|e| e.subtype.as_deref() == Some("workspace"))
        .unwrap();
    assert_eq!(ws.data.as_ref().unwrap()["derived"], json!(true));
    // The artifact beside the transcript is listed.
    assert!(s
        .header
        .artifacts
        .iter()
        .any(|a| a.ends_with("brain_artifact_small.md")));
    // Sorted by step_index: the trimmed step-0 lines come right after line 1.
    let lines: Vec<u64> = s
        .events
        .iter()
        .filter(|e| e.subtype.as_deref() != Some("workspace"))
        .map(|e| e.raw.line)
        .collect();
    assert_eq!(&lines[..3], &[1, 13, 14]);
    assert_eq!(
        s.events
            .iter()
            .find(|e| e.raw.line == 1)
            .unwrap()
            .time_source,
        TimeSource::Event
    );
}

#[test]
fn third_party_schema_drift() {
    let f = SourceFile::new(
        scry_model::ProviderId::Antigravity,
        "drift",
        corpus().join("cli_transcript_schema_drift.jsonl"),
    );
    let s = AntigravitySource.parse(&f).unwrap();
    let kinds: Vec<EventKind> = s.events.iter().map(|e| e.kind).collect();
    assert_eq!(
        kinds,
        vec![EventKind::User, EventKind::Thinking, EventKind::ToolResult]
    );
    assert_eq!(s.events[0].text, "Go");
    assert_eq!(s.events[2].subtype.as_deref(), Some("browser_navigate"));
    assert_eq!(s.warnings.len(), 1);
    assert_eq!(s.warnings[0].kind, WarningKind::UnpairedResult);
    assert!(s.header.cwd.is_none());
}

const ID: &str = "3f1c9a2e-7b44-4d0e-9a51-6c2b8e0d4f17";

fn write_lines(path: &Path, lines: &[serde_json::Value]) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let mut s = String::new();
    for l in lines {
        s.push_str(&l.to_string());
        s.push('\n');
    }
    std::fs::write(path, s).unwrap();
}

/// An agy session whose tool arguments point into a git checkout at `<tmp>/work/app`.
fn agy_session(home: &Path, repo: &Path) -> PathBuf {
    let brain = home.join(".gemini/antigravity-cli/brain").join(ID);
    let file = |p: &str| format!("\"{}\"", repo.join(p).display());
    write_lines(
        &brain.join(".system_generated/logs/transcript.jsonl"),
        &[
            json!({"step_index":0,"source":"USER_EXPLICIT","type":"USER_INPUT","status":"DONE","created_at":"2026-11-14T08:00:00Z",
               "content":"<USER_REQUEST>\nWhy does the build fail?\n</USER_REQUEST>\n<ADDITIONAL_METADATA>\nlocal time 09:00\n</ADDITIONAL_METADATA>"}),
            json!({"step_index":1,"source":"MODEL","type":"PLANNER_RESPONSE","status":"DONE","created_at":"2026-11-14T08:00:02Z",
               "thinking":"Read the build log and run the build.","tool_calls":[
                   {"name":"view_file","args":{"AbsolutePath":file("build.log")}},
                   {"name":"run_command","args":{"CommandLine":"\"make\"","Cwd":file("")}}]}),
            // Gap in step_index and out-of-order lines: 5 is written before 3.
            json!({"step_index":5,"source":"MODEL","type":"PLANNER_RESPONSE","status":"DONE","created_at":"2026-11-14T08:00:09Z",
               "content":"The build fails because `make` exits with code 2."}),
            json!({"step_index":3,"source":"MODEL","type":"VIEW_FILE","status":"DONE","created_at":"2026-11-14T08:00:03Z",
               "content":"error: missing sem","truncated_fields":["content"]}),
            json!({"step_index":4,"source":"MODEL","type":"RUN_COMMAND","status":"DONE","created_at":"2026-11-14T08:00:07Z",
               "content":"The command exited with code 2.\nOutput:\nmake: *** [all] Error 2","truncated_fields":["content"]}),
            json!({"step_index":6,"source":"SYSTEM","type":"CHECKPOINT","status":"DONE","created_at":"2026-11-14T08:01:00Z","content":"# Resuming from a compaction"}),
            json!({"step_index":7,"source":"SYSTEM","type":"EPHEMERAL_MESSAGE","status":"DONE","created_at":"2026-11-14T08:01:01Z","content":"(reminder)"}),
        ],
    );
    // steps/3/output.txt restores the truncated VIEW_FILE output; steps/4 is missing.
    let out3 = brain.join(".system_generated/steps/3/output.txt");
    std::fs::create_dir_all(out3.parent().unwrap()).unwrap();
    std::fs::write(
        &out3,
        "error: missing semicolon at src/main.c:12\nerror: 1 error generated\n",
    )
    .unwrap();
    std::fs::write(
        brain.join("task.md"),
        "# Task\n- [x] find the build error\n",
    )
    .unwrap();
    brain
}

#[test]
fn restoration_workspace_and_pairing_on_own_fixture() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("work/app");
    std::fs::create_dir_all(repo.join(".git")).unwrap();
    std::fs::create_dir_all(repo.join("src")).unwrap();
    let home = tmp.path().join("home");
    agy_session(&home, &repo);
    let d = AntigravitySource.discover(&Env::with_home(&home));
    assert_eq!(d.files.len(), 1);
    let f = &d.files[0];
    assert_eq!(f.id, ID);
    assert!(f.path.ends_with(".system_generated/logs/transcript.jsonl"));
    let s = AntigravitySource.parse(f).unwrap();
    // Sorted by step index.
    let kinds: Vec<EventKind> = s.events.iter().map(|e| e.kind).collect();
    assert_eq!(
        kinds,
        vec![
            EventKind::Meta, // workspace
            EventKind::User,
            EventKind::Thinking,
            EventKind::ToolCall,
            EventKind::ToolCall,
            EventKind::ToolResult,
            EventKind::ToolResult,
            EventKind::Assistant,
            EventKind::Compaction,
            EventKind::Meta,
        ]
    );
    // Restored from steps/3/output.txt.
    let view = &s.events[5];
    assert_eq!(view.tool.as_deref(), Some("view_file"));
    assert_eq!(
        view.text,
        "error: missing semicolon at src/main.c:12\nerror: 1 error generated\n"
    );
    assert_eq!(view.data.as_ref().unwrap()["restored"], json!(true));
    // steps/4 missing: truncated text kept, note + one MissingSideFile warning.
    let run = &s.events[6];
    assert_eq!(
        (run.tool.as_deref(), run.exit_code, run.is_error),
        (Some("run_command"), Some(2), Some(true))
    );
    assert!(run.text.starts_with("The command exited with code 2."));
    assert!(run.data.as_ref().unwrap()["note"]
        .as_str()
        .unwrap()
        .contains("steps/4/output.txt"));
    assert_eq!(s.warnings.len(), 1, "{:?}", s.warnings);
    assert_eq!(s.warnings[0].kind, WarningKind::MissingSideFile);
    // Call args decoded; call ids synthesized from the step.
    assert_eq!(s.events[4].args.as_ref().unwrap()["CommandLine"], "make");
    assert_eq!(s.events[4].call_id.as_deref(), Some("step1#1"));
    assert_eq!(run.call_id.as_deref(), Some("step1#1"));
    // Workspace: nearest .git above the argument paths.
    assert_eq!(
        s.header.cwd.as_deref(),
        Some(repo.display().to_string().as_str())
    );
    assert_eq!(
        s.events[0].data.as_ref().unwrap()["source"],
        "derived:git_root"
    );
    assert_eq!(s.header.artifacts.len(), 1);
    assert_eq!(
        s.events[1].data.as_ref().unwrap()["metadata"],
        "local time 09:00"
    );
}

#[test]
fn workspace_from_a_read_only_conversations_db() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("work/app");
    let home = tmp.path().join("home");
    agy_session(&home, &repo);
    let conv = home.join(".gemini/antigravity-cli/conversations");
    std::fs::create_dir_all(&conv).unwrap();
    let db = conv.join(format!("{ID}.db"));
    {
        let c = rusqlite::Connection::open(&db).unwrap();
        c.execute_batch("PRAGMA journal_mode=WAL; CREATE TABLE trajectory_meta(trajectory_id TEXT, cascade_id TEXT, trajectory_type INTEGER, source INTEGER, trajectory_metadata_blob BLOB);").unwrap();
        // message { 1: { 1: "file:///home/demo/projects/shop%20front", 4: "main" } }
        let uri = b"file:///home/demo/projects/shop%20front";
        let mut inner = vec![0x0a, uri.len() as u8];
        inner.extend_from_slice(uri);
        inner.extend_from_slice(&[0x22, 4]);
        inner.extend_from_slice(b"main");
        let mut blob = vec![0x0a, inner.len() as u8];
        blob.extend(inner);
        c.execute(
            "INSERT INTO trajectory_meta VALUES ('t', 'c', 1, 1, ?1)",
            [blob],
        )
        .unwrap();
        c.execute_batch("PRAGMA wal_checkpoint(TRUNCATE); PRAGMA journal_mode=DELETE;")
            .unwrap();
    }
    let before = std::fs::read(&db).unwrap();
    let mtime = std::fs::metadata(&db).unwrap().modified().unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&conv, std::fs::Permissions::from_mode(0o555)).unwrap();
    }
    let d = AntigravitySource.discover(&Env::with_home(&home));
    let s = AntigravitySource.parse(&d.files[0]).unwrap();
    assert_eq!(
        s.header.cwd.as_deref(),
        Some("/home/demo/projects/shop front")
    );
    assert_eq!(
        s.events[0].data.as_ref().unwrap()["source"],
        "conversations_db"
    );
    assert_eq!(s.events[0].data.as_ref().unwrap()["derived"], json!(false));
    // Read-only: nothing created beside the database, bytes and mtime unchanged.
    let names: Vec<String> = std::fs::read_dir(&conv)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, vec![format!("{ID}.db")]);
    assert_eq!(std::fs::read(&db).unwrap(), before);
    assert_eq!(std::fs::metadata(&db).unwrap().modified().unwrap(), mtime);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&conv, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
}

#[test]
fn both_homes_and_artifact_only_brain_dirs() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path();
    // A transcript under the IDE home, and an IDE brain dir with only artifacts.
    write_lines(&home.join(".gemini/antigravity/brain/aaaa0000-0000-4000-8000-000000000001/.system_generated/logs/transcript.jsonl"), &[
        json!({"step_index":0,"source":"USER_EXPLICIT","type":"USER_INPUT","status":"DONE","created_at":"2026-11-14T08:00:00Z","content":"<USER_REQUEST>hi</USER_REQUEST>"}),
    ]);
    let ide = home.join(".gemini/antigravity/brain/bbbb0000-0000-4000-8000-000000000002");
    std::fs::create_dir_all(&ide).unwrap();
    std::fs::write(
        ide.join("implementation_plan.md"),
        "# Plan\nSplit the parser.\n",
    )
    .unwrap();
    std::fs::write(ide.join("walkthrough.md"), "# Walkthrough\nDone.\n").unwrap();
    std::fs::create_dir_all(home.join(".gemini/antigravity/brain/cccc-empty")).unwrap();
    let d = AntigravitySource.discover(&Env::with_home(home));
    let ids: Vec<&str> = d.files.iter().map(|f| f.id.as_str()).collect();
    assert_eq!(
        ids,
        vec![
            "aaaa0000-0000-4000-8000-000000000001",
            "bbbb0000-0000-4000-8000-000000000002"
        ]
    );
    assert_eq!(d.roots.len(), 2);
    let s = AntigravitySource.parse(&d.files[1]).unwrap();
    assert_eq!(s.header.artifacts.len(), 2);
    assert_eq!(s.header.title.as_deref(), Some("Plan"));
    let texts: Vec<&str> = s.events.iter().map(|e| e.text.as_str()).collect();
    assert_eq!(
        texts,
        vec!["# Plan\nSplit the parser.\n", "# Walkthrough\nDone.\n"]
    );
    assert!(s
        .events
        .iter()
        .all(|e| e.subtype.as_deref() == Some("artifact") && e.time_source == TimeSource::Derived));
    // detect() from the transcript path.
    let t = home.join(".gemini/antigravity/brain/aaaa0000-0000-4000-8000-000000000001/.system_generated/logs/transcript.jsonl");
    assert_eq!(
        AntigravitySource.detect(&t).unwrap().id,
        "aaaa0000-0000-4000-8000-000000000001"
    );
}

#[test]
fn damaged_lines_never_panic() {
    let tmp = tempfile::tempdir().unwrap();
    let p = tmp.path().join("transcript.jsonl");
    std::fs::write(&p, "{\"step_index\":1,\"type\":\"USER_INPUT\",\"content\":\"a\"}\nnot json\n{\"step_index\":0,\"type\":\"NEW_TOOL\",\"content\":\"x\"}\n{\"step_index\":2,\"type\":\"PLANNER_RESPONSE\",\"tool_calls\":[{\"name\":\"t\",\"args\":\"{bad\"}]}\n{\"step_index\":3,").unwrap();
    let f = SourceFile::new(scry_model::ProviderId::Antigravity, "x", &p);
    let s = AntigravitySource.parse(&f).unwrap();
    let kinds: Vec<&str> = s.warnings.iter().map(|w| w.kind.as_str()).collect();
    assert!(
        kinds.contains(&"corrupt_record")
            && kinds.contains(&"incomplete_tail")
            && kinds.contains(&"unknown_record"),
        "{kinds:?}"
    );
    assert_eq!(count(&s, EventKind::User), 1);
    assert_eq!(count(&s, EventKind::ToolCall), 1);
}

#[test]
fn demo_session_reads_as_intended() {
    let home = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../demo/home");
    let d = AntigravitySource.discover(&Env::with_home(&home));
    assert_eq!(d.files.len(), 1);
    let s = AntigravitySource.parse(&d.files[0]).unwrap();
    assert!(s.warnings.is_empty(), "{:?}", s.warnings);
    assert_eq!(s.turn_count(), 2);
    assert_eq!(
        s.header.cwd.as_deref(),
        Some("/home/demo/projects/weather-api")
    );
    assert_eq!(s.header.models, vec!["Gemini 3.1 Pro (High)".to_string()]);
    assert_eq!(s.header.artifacts.len(), 1);
    assert_eq!(count(&s, EventKind::ToolCall), 5);
    assert!(s
        .events
        .iter()
        .filter(|e| e.kind == EventKind::ToolResult)
        .all(|e| e.tool.is_some()));
    assert_eq!(s.events.iter().filter(|e| e.is_failure()).count(), 1);
    let restored = s
        .events
        .iter()
        .find(|e| {
            e.data
                .as_ref()
                .is_some_and(|d| d["restored"] == json!(true))
        })
        .unwrap();
    assert!(restored.text.contains("1 failed, 1 passed"));
}
