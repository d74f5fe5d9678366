//! Hand-written fixtures for the `.jsonl` protocol, damaged input and the folder layout.

use std::fs;
use std::path::Path;

use scry_model::{EventKind, Session, SessionKind, Surface, WarningKind};
use scry_source::{Env, Source};
use scry_source_gemini::GeminiSource;

const META: &str = r#"{"sessionId":"11111111-aaaa-4bbb-8ccc-000000000001","projectHash":"x","startTime":"2026-11-02T10:00:00.000Z","lastUpdated":"2026-11-02T10:00:00.000Z","kind":"main"}"#;

fn user(id: &str, text: &str) -> String {
    format!(
        r#"{{"id":"{id}","timestamp":"2026-11-02T10:00:01.000Z","type":"user","content":[{{"text":"{text}"}}]}}"#
    )
}

fn gemini(id: &str, text: &str) -> String {
    format!(
        r#"{{"id":"{id}","timestamp":"2026-11-02T10:00:02.000Z","type":"gemini","content":"{text}","thoughts":[],"tokens":{{"input":100,"output":10,"cached":40,"thoughts":5,"tool":0,"total":115}},"model":"gemini-x"}}"#
    )
}

/// Writes `lines` as a session under a fake home and parses it.
fn session(lines: &[String]) -> Session {
    let home = tempfile::tempdir().unwrap();
    let chats = home.path().join(".gemini/tmp/proj/chats");
    fs::create_dir_all(&chats).unwrap();
    fs::write(
        home.path().join(".gemini/tmp/proj/.project_root"),
        "/home/demo/p\n",
    )
    .unwrap();
    let mut text = lines.join("\n");
    text.push('\n');
    fs::write(chats.join("session-2026-11-02T10-00-11111111.jsonl"), text).unwrap();
    let d = GeminiSource.discover(&Env::with_home(home.path()));
    assert_eq!(d.files.len(), 1);
    let s = GeminiSource.parse(&d.files[0]).unwrap();
    assert_eq!(s.header.cwd.as_deref(), Some("/home/demo/p"));
    s
}

fn texts(s: &Session, surface: Surface) -> Vec<String> {
    s.events
        .iter()
        .filter(|e| e.surface == surface)
        .map(|e| e.text.clone())
        .collect()
}

#[test]
fn rewind_to_a_known_id_shadows_it_and_everything_after() {
    let s = session(&[
        META.into(),
        user("u1", "one"),
        gemini("g1", "answer one"),
        user("u2", "two"),
        gemini("g2", "answer two"),
        r#"{"$rewindTo":"u2"}"#.into(),
        user("u3", "three"),
        gemini("g3", "answer three"),
    ]);
    assert_eq!(
        texts(&s, Surface::Current),
        ["one", "answer one", "three", "answer three"]
    );
    assert_eq!(texts(&s, Surface::Shadowed), ["two", "answer two"]);
    // Rewound messages stay in place (kept, not current); the tokens were really spent.
    assert_eq!(s.events[2].text, "two");
    assert_eq!(s.total_usage().unwrap().cache_read, 3 * 40);
}

#[test]
fn rewind_to_an_unknown_id_clears_everything_before_it() {
    let s = session(&[
        META.into(),
        user("u1", "one"),
        gemini("g1", "answer one"),
        r#"{"$rewindTo":"nope"}"#.into(),
        user("u2", "two"),
    ]);
    assert_eq!(texts(&s, Surface::Shadowed), ["one", "answer one"]);
    assert_eq!(texts(&s, Surface::Current), ["two"]);
}

#[test]
fn reappended_ids_last_write_wins_in_first_seen_order() {
    let s = session(&[
        META.into(),
        user("u1", "one"),
        gemini("g1", ""),
        r#"{"$set":{"lastUpdated":"2026-11-02T10:00:03.000Z"}}"#.into(),
        user("u2", "two"),
        // g1 re-appended with its text and a tool call: replaces the first write, keeps place.
        r#"{"id":"g1","timestamp":"2026-11-02T10:00:02.000Z","type":"gemini","content":"done","thoughts":[{"subject":"Plan","description":"list files","timestamp":"2026-11-02T10:00:02.000Z"}],"tokens":{"input":100,"output":10,"cached":40,"thoughts":5,"tool":2,"total":117},"model":"gemini-x","toolCalls":[{"id":"c1","name":"run_shell_command","args":{"command":"ls"},"result":[{"functionResponse":{"id":"c1","name":"run_shell_command","response":{"output":"Output: a\nExit Code: 2"}}}],"status":"error","timestamp":"2026-11-02T10:00:02.500Z"}]}"#.into(),
        // 0.61.0 also records the result as a user message: not a second result.
        r#"{"id":"r1","timestamp":"2026-11-02T10:00:02.600Z","type":"user","content":[{"functionResponse":{"id":"c1","name":"run_shell_command","response":{"output":"Output: a\nExit Code: 2"}}}]}"#.into(),
        r#"{"$set":{"summary":"Listing files"}}"#.into(),
    ]);
    let kinds: Vec<EventKind> = s.events.iter().map(|e| e.kind).collect();
    assert_eq!(
        kinds,
        [
            EventKind::User,
            EventKind::Thinking,
            EventKind::Assistant,
            EventKind::ToolCall,
            EventKind::ToolResult,
            EventKind::User,
        ]
    );
    assert_eq!(s.events[1].text, "Plan\nlist files");
    assert_eq!(s.events[2].text, "done");
    let r = &s.events[4];
    assert_eq!(r.is_error, Some(true));
    assert_eq!(r.exit_code, Some(2));
    assert_eq!(r.tool.as_deref(), Some("run_shell_command"));
    // One usage for g1 (the re-appended one), normalized.
    let with_usage: Vec<_> = s.events.iter().filter_map(|e| e.usage).collect();
    assert_eq!(with_usage.len(), 1);
    let u = with_usage[0];
    assert_eq!(
        (u.input, u.cache_read, u.output, u.reasoning),
        (62, 40, 15, 5)
    );
    assert_eq!(s.header.title.as_deref(), Some("Listing files"));
    assert!(s.warnings.is_empty(), "{:?}", s.warnings);
}

#[test]
fn set_messages_replaces_the_list_and_keeps_full_records() {
    let s = session(&[
        META.into(),
        user("u1", "one"),
        gemini("g1", "answer one"),
        user("u2", "two"),
        gemini("g2", "answer two"),
        // A compression-like rewrite: a new summary message, then the last exchange.
        r#"{"$set":{"messages":[{"id":"sum","timestamp":"2026-11-02T10:00:05.000Z","type":"user","content":[{"text":"<state_snapshot>summary</state_snapshot>"}]},{"id":"u2","type":"user","content":[{"text":"two"}]},{"id":"g2","type":"gemini","content":[{"text":"answer two"}]}]}}"#.into(),
    ]);
    assert_eq!(texts(&s, Surface::Shadowed), ["one", "answer one"]);
    let current = texts(&s, Surface::Current);
    assert_eq!(current[1..], ["two".to_string(), "answer two".to_string()]);
    let snapshot = s
        .events
        .iter()
        .find(|e| e.text.contains("summary"))
        .unwrap();
    assert_eq!(snapshot.kind, EventKind::Compaction);
    assert_eq!(snapshot.turn, 1, "a snapshot does not start a turn");
    // g2 keeps its own record (with tokens), not the content-only projection.
    assert_eq!(s.events.iter().filter(|e| e.usage.is_some()).count(), 2);
}

#[test]
fn torn_tail_and_corrupt_middle_line_are_warnings() {
    let s = session(&[
        META.into(),
        user("u1", "one"),
        "{not json".into(),
        gemini("g1", "answer one"),
        r#"{"id":"u2","timestamp":"2026-11-02T10:00:01.000Z","type":"us"#.into(),
    ]);
    // `session()` ends every line with a newline, so both bad lines are mid-file.
    assert_eq!(texts(&s, Surface::Current), ["one", "answer one"]);
    assert_eq!(s.warnings.len(), 2);
    assert!(s
        .warnings
        .iter()
        .all(|w| w.kind == WarningKind::CorruptRecord && w.line.is_some()));

    // Now a torn last line (no newline).
    let home = tempfile::tempdir().unwrap();
    let chats = home.path().join(".gemini/tmp/proj/chats");
    fs::create_dir_all(&chats).unwrap();
    let text = format!("{META}\n{}\n{{\"id\":\"u2\",\"ty", user("u1", "one"));
    fs::write(chats.join("session-2026-11-02T10-00-11111111.jsonl"), text).unwrap();
    let d = GeminiSource.discover(&Env::with_home(home.path()));
    let s = GeminiSource.parse(&d.files[0]).unwrap();
    assert_eq!(s.events.len(), 1);
    assert_eq!(s.warnings[0].kind, WarningKind::IncompleteTail);
    assert_eq!(s.warnings[0].line, Some(3));
}

#[test]
fn unknown_records_and_types_are_counted_once() {
    let s = session(&[
        META.into(),
        r#"{"$future":1}"#.into(),
        r#"{"$future":2}"#.into(),
        r#"{"id":"x1","type":"hologram","content":"a"}"#.into(),
        r#"{"id":"x2","type":"hologram","content":"b"}"#.into(),
        r#"{"id":"r9","type":"user","content":[{"functionResponse":{"id":"ghost","name":"t","response":{"output":"o"}}}]}"#.into(),
    ]);
    let unknown: Vec<_> = s
        .warnings
        .iter()
        .filter(|w| w.kind == WarningKind::UnknownRecord)
        .collect();
    assert_eq!(unknown.len(), 2, "{unknown:?}");
    assert!(unknown.iter().any(|w| w.message.contains("2 time(s)")));
    let unpaired = s
        .events
        .iter()
        .find(|e| e.call_id.as_deref() == Some("ghost"))
        .unwrap();
    assert_eq!(unpaired.data.as_ref().unwrap()["unconfirmed"], true);
    assert!(s
        .warnings
        .iter()
        .any(|w| w.kind == WarningKind::UnpairedResult));
}

fn write(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

#[test]
fn layout_pairs_merges_and_separates_subagents() {
    let home = tempfile::tempdir().unwrap();
    let chats = home.path().join("alt/.gemini/tmp/3f2a/chats");
    let id = "22222222-bbbb-4ccc-8ddd-000000000002";
    let meta = |kind: &str, start: &str| {
        format!(
            r#"{{"sessionId":"{id}","projectHash":"h","startTime":"{start}","lastUpdated":"{start}","kind":"{kind}"}}"#
        )
    };
    // A legacy document and its migrated .jsonl copy: only the .jsonl is read.
    write(
        &chats.join("session-2026-11-03T09-00-22222222.json"),
        &format!(
            r#"{{"sessionId":"{id}","projectHash":"h","startTime":"2026-11-03T09:00:00Z","lastUpdated":"2026-11-03T09:00:00Z","messages":[{{"id":"old","type":"user","content":"legacy"}}]}}"#
        ),
    );
    write(
        &chats.join("session-2026-11-03T09-00-22222222.jsonl"),
        &format!(
            "{}\n{}\n",
            meta("main", "2026-11-03T09:00:00Z"),
            user("m1", "first")
        ),
    );
    // A resume written to a later minute's file: same session.
    write(
        &chats.join("session-2026-11-03T09-07-22222222.jsonl"),
        &format!(
            "{}\n{}\n{}\n",
            meta("main", "2026-11-03T09:07:00Z"),
            user("m1", "first"),
            user("m2", "second")
        ),
    );
    // A subagent written beside the parent with the parent's id.
    write(
        &chats.join("session-2026-11-03T09-08-22222222.jsonl"),
        &format!(
            "{}\n{}\n",
            meta("subagent", "2026-11-03T09:08:00Z"),
            user("s1", "task")
        ),
    );
    let env = Env::with_home(home.path())
        .var_set("GEMINI_CLI_HOME", home.path().join("alt").to_string_lossy());
    let d = GeminiSource.discover(&env);
    assert_eq!(d.roots[0].env_var.as_deref(), Some("GEMINI_CLI_HOME"));
    let mains: Vec<_> = d
        .files
        .iter()
        .filter(|f| f.kind == SessionKind::Main)
        .collect();
    assert_eq!(mains.len(), 1);
    assert_eq!(mains[0].id, id);
    assert_eq!(mains[0].related.len(), 1);
    let s = GeminiSource.parse(mains[0]).unwrap();
    let prompts: Vec<_> = s.events.iter().map(|e| e.text.as_str()).collect();
    assert_eq!(prompts, ["first", "second"]);
    assert_eq!(s.header.sources.len(), 2);
    assert_eq!(s.events[1].raw.file, 1);

    let sub = d
        .files
        .iter()
        .find(|f| f.kind == SessionKind::Subagent)
        .unwrap();
    assert_eq!(sub.parent.as_deref(), Some(id));
    let s = GeminiSource.parse(sub).unwrap();
    assert_eq!(s.header.kind, SessionKind::Subagent);
    assert_eq!(s.header.id, "session-2026-11-03T09-08-22222222");
    assert_eq!(s.header.parent.as_deref(), Some(id));
    assert_eq!(s.events[0].kind, EventKind::User);
}

#[test]
fn odd_shapes_never_panic() {
    let s = session(&[
        META.into(),
        r#"{"id":5}"#.into(),
        r#"{"$set":3}"#.into(),
        r#"{"$rewindTo":7}"#.into(),
        r#"{"$set":{"messages":"nope","summary":42}}"#.into(),
        r#"{"$set":{"messages":[{"no":"id"},17,{"id":"s1","type":"gemini","content":[{"functionCall":{"name":"x"}},{"text":"t","thought":true}]}]}}"#.into(),
        r#"{"id":"g","type":"gemini","content":12,"toolCalls":"x","tokens":"y","thoughts":{}}"#.into(),
        r#"{"id":"g2","type":"gemini","toolCalls":[null,5,{"id":7,"result":{"x":1}},{"id":"c","status":"error","result":null,"resultDisplay":"boom"}]}"#.into(),
        r#"{"id":"u","type":"user","content":[null,{"functionResponse":null},{"functionResponse":{"id":"c","response":"str"}}]}"#.into(),
        r#"{"id":"u2","type":"user","content":{"text":"object content"}}"#.into(),
        r#"[]"#.into(),
        r#""just a string""#.into(),
        r#"{"id":"t","type":"gemini","timestamp":"not a time","tokens":{"input":-5,"output":"7","cached":99}}"#.into(),
    ]);
    assert!(!s.events.is_empty());
    let c = s
        .events
        .iter()
        .find(|e| e.call_id.as_deref() == Some("c") && e.kind == EventKind::ToolResult)
        .unwrap();
    assert_eq!((c.is_error, c.text.as_str()), (Some(true), "boom"));
    // Negative input clamps, cached beyond input saturates: never a panic, never a wrap.
    let u = s.events.iter().rev().find_map(|e| e.usage).unwrap();
    assert_eq!((u.input, u.output, u.cache_read), (0, 7, 99));
}
