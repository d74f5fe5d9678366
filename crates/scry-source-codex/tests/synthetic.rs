//! Synthetic rollouts for what the corpus does not show: damaged input (torn tail, corrupt
//! middle line, NUL padding, a truncated TypeScript document), a fork with copied parent
//! history, receipts before and after their output, mirror-only files, in-file thread names,
//! early payload-level token counts and unknown record types.

use std::fs;
use std::path::PathBuf;

use scry_model::{EventKind, LineageKind, Session, SessionKind, TitleSource, WarningKind};
use scry_source::{Source, SourceFile};
use scry_source_codex::CodexSource;
use serde_json::{json, Value};
use tempfile::TempDir;

const ID: &str = "0199aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee";

fn line(ts: &str, ty: &str, payload: Value) -> String {
    json!({"timestamp": ts, "type": ty, "payload": payload}).to_string()
}

fn meta(id: &str, extra: Value) -> String {
    let mut p = json!({"id": id, "timestamp": "2026-11-30T10:00:00Z", "cwd": "/w/proj",
        "originator": "codex_cli_rs", "cli_version": "0.150.0", "source": "cli"});
    if let (Some(m), Value::Object(e)) = (p.as_object_mut(), extra) {
        m.extend(e);
    }
    line("2026-11-30T10:00:00Z", "session_meta", p)
}

fn user(ts: &str, text: &str) -> String {
    line(
        ts,
        "response_item",
        json!({"type":"message","role":"user","content":[{"type":"input_text","text":text}]}),
    )
}

fn assistant(ts: &str, text: &str) -> String {
    line(
        ts,
        "response_item",
        json!({"type":"message","role":"assistant","content":[{"type":"output_text","text":text}]}),
    )
}

fn tokens(ts: &str, total: [u64; 3], last: Option<[u64; 3]>) -> String {
    let u = |v: [u64; 3]| json!({"input_tokens": v[0], "cached_input_tokens": v[1], "output_tokens": v[2], "reasoning_output_tokens": 0, "total_tokens": v[0] + v[2]});
    let mut info = json!({"total_token_usage": u(total)});
    if let Some(l) = last {
        info["last_token_usage"] = u(l);
    }
    line(ts, "event_msg", json!({"type":"token_count","info": info}))
}

fn write(dir: &TempDir, lines: &[String], tail: &[u8]) -> SourceFile {
    let day = dir.path().join(".codex/sessions/2026/11/30");
    fs::create_dir_all(&day).unwrap();
    let path: PathBuf = day.join(format!("rollout-2026-11-30T10-00-00-{ID}.jsonl"));
    let mut bytes = lines.join("\n").into_bytes();
    bytes.push(b'\n');
    bytes.extend_from_slice(tail);
    fs::write(&path, bytes).unwrap();
    CodexSource.detect(&path).expect("detected")
}

fn parse(lines: &[String], tail: &[u8]) -> Session {
    let dir = tempfile::tempdir().unwrap();
    let f = write(&dir, lines, tail);
    CodexSource.parse(&f).unwrap()
}

/// A UUIDv7-shaped turn id minted at `ms`.
fn v7(ms: i64) -> String {
    let h = format!("{ms:012x}");
    format!("{}-{}-7000-8000-000000000001", &h[..8], &h[8..12])
}

const T_CHILD: i64 = 1_796_032_800_000; // 2026-11-30T10:00:00Z

#[test]
fn fork_copied_history_is_marked_and_not_counted() {
    let parent = "0199aaaa-0000-7000-8000-000000000000";
    let lines = vec![
        meta(ID, json!({"forked_from_id": parent})),
        line(
            "2026-11-30T10:00:00.010Z",
            "session_meta",
            json!({"id": parent, "timestamp": "2026-11-30T09:00:00Z", "cwd": "/w/parent"}),
        ),
        line(
            "2026-11-30T10:00:00.011Z",
            "turn_context",
            json!({"turn_id": v7(T_CHILD - 3_600_000), "cwd": "/w/parent", "model": "gpt-parent"}),
        ),
        user("2026-11-30T10:00:00.012Z", "parent prompt"),
        assistant("2026-11-30T10:00:00.013Z", "parent answer"),
        tokens(
            "2026-11-30T10:00:00.014Z",
            [100, 50, 10],
            Some([100, 50, 10]),
        ),
        line(
            "2026-11-30T10:00:01Z",
            "event_msg",
            json!({"type":"task_started","turn_id": v7(T_CHILD + 1000)}),
        ),
        line(
            "2026-11-30T10:00:01Z",
            "turn_context",
            json!({"turn_id": v7(T_CHILD + 1000), "cwd": "/w/proj", "model": "gpt-child"}),
        ),
        user("2026-11-30T10:00:02Z", "child prompt"),
        line(
            "2026-11-30T10:00:03Z",
            "response_item",
            json!({"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"false\"}","call_id":"c1"}),
        ),
        // The receipt comes before the output.
        line(
            "2026-11-30T10:00:04Z",
            "event_msg",
            json!({"type":"exec_command_end","call_id":"c1","exit_code":1,"duration":{"secs":1,"nanos":500_000_000}}),
        ),
        line(
            "2026-11-30T10:00:04Z",
            "response_item",
            json!({"type":"function_call_output","call_id":"c1","output":"no header lines here"}),
        ),
        tokens("2026-11-30T10:00:05Z", [300, 100, 30], Some([200, 50, 20])),
        assistant("2026-11-30T10:00:06Z", "done"),
        // No last_token_usage: the delta of totals counts.
        tokens("2026-11-30T10:00:07Z", [450, 150, 40], None),
        line(
            "2026-11-30T10:00:08Z",
            "response_item",
            json!({"type":"function_call_output","call_id":"nope","output":"stray"}),
        ),
    ];
    let s = parse(&lines, b"");
    let h = &s.header;
    assert_eq!(h.id, ID);
    assert_eq!(h.kind, SessionKind::Fork);
    assert_eq!(h.parent.as_deref(), Some(parent));
    assert_eq!(h.lineage.len(), 1);
    assert_eq!(h.lineage[0].kind, LineageKind::ForkedFrom);
    assert_eq!(h.lineage[0].evidence, "session_meta.forked_from_id");
    assert_eq!(
        h.cwd.as_deref(),
        Some("/w/proj"),
        "first session_meta is identity"
    );

    let copied: Vec<_> = s
        .events
        .iter()
        .filter(|e| e.data.as_ref().and_then(|d| d.get("copied")).is_some())
        .map(|e| e.text.as_str())
        .collect();
    assert_eq!(copied, ["parent prompt", "parent answer"]);
    assert!(s
        .events
        .iter()
        .filter(|e| e.text.starts_with("parent"))
        .all(|e| e.usage.is_none()));
    let u = s.total_usage().unwrap();
    // own requests only: (200-50, 50, 20) + delta (150-50, 50, 10)
    assert_eq!((u.input, u.cache_read, u.output), (250, 100, 30));
    assert_eq!(s.events.iter().filter(|e| e.usage.is_some()).count(), 2);

    let r = s
        .events
        .iter()
        .find(|e| e.call_id.as_deref() == Some("c1") && e.kind == EventKind::ToolResult)
        .unwrap();
    assert_eq!(
        (r.exit_code, r.duration_ms, r.is_error),
        (Some(1), Some(1500), Some(true))
    );
    let stray = s
        .events
        .iter()
        .find(|e| e.call_id.as_deref() == Some("nope"))
        .unwrap();
    assert_eq!(stray.data.as_ref().unwrap()["unconfirmed"], true);
    assert_eq!(
        s.warnings
            .iter()
            .filter(|w| w.kind == WarningKind::UnpairedResult)
            .count(),
        1
    );
}

#[test]
fn subagent_fork_without_uuid7_turn_ids_uses_the_copy_burst() {
    let parent = "11111111-2222-4333-8444-555555555555";
    let lines = vec![
        meta(
            ID,
            json!({"forked_from_id": parent, "source": {"subagent": {"thread_spawn": {"parent_thread_id": parent, "depth": 1}}}, "agent_nickname": "Ada"}),
        ),
        line(
            "2026-11-30T10:00:00.100Z",
            "session_meta",
            json!({"id": parent, "cwd": "/w/parent"}),
        ),
        user("2026-11-30T10:00:00.200Z", "copied prompt"),
        tokens("2026-11-30T10:00:00.300Z", [100, 0, 10], Some([100, 0, 10])),
        user("2026-11-30T10:00:09Z", "own prompt"),
        assistant("2026-11-30T10:00:10Z", "own answer"),
        tokens("2026-11-30T10:00:11Z", [160, 0, 15], Some([60, 0, 5])),
    ];
    let s = parse(&lines, b"");
    assert_eq!(s.header.kind, SessionKind::Subagent);
    assert_eq!(s.header.parent.as_deref(), Some(parent));
    assert_eq!(s.header.agent_name.as_deref(), Some("Ada"));
    let kinds: Vec<_> = s.header.lineage.iter().map(|l| l.kind).collect();
    assert_eq!(kinds, [LineageKind::SubagentOf, LineageKind::ForkedFrom]);
    let u = s.total_usage().unwrap();
    assert_eq!((u.input, u.output), (60, 5));
}

#[test]
fn receipt_after_the_output_still_applies_and_unknown_exit_stays_none() {
    let lines = vec![
        meta(ID, json!({})),
        user("2026-11-30T10:00:01Z", "go"),
        line(
            "2026-11-30T10:00:02Z",
            "response_item",
            json!({"type":"custom_tool_call","name":"apply_patch","input":"*** Begin Patch\n*** End Patch","call_id":"p1"}),
        ),
        line(
            "2026-11-30T10:00:03Z",
            "response_item",
            json!({"type":"custom_tool_call_output","call_id":"p1","output":"{\"output\":\"Done\"}"}),
        ),
        line(
            "2026-11-30T10:00:03Z",
            "event_msg",
            json!({"type":"patch_apply_end","call_id":"p1","success":false}),
        ),
        line(
            "2026-11-30T10:00:04Z",
            "response_item",
            json!({"type":"function_call","name":"view","arguments":"{}","call_id":"v1"}),
        ),
        line(
            "2026-11-30T10:00:05Z",
            "response_item",
            json!({"type":"function_call_output","call_id":"v1","output":"just text"}),
        ),
        tokens("2026-11-30T10:00:06Z", [10, 0, 1], Some([10, 0, 1])),
    ];
    let s = parse(&lines, b"");
    let p = s
        .events
        .iter()
        .find(|e| e.call_id.as_deref() == Some("p1") && e.kind == EventKind::ToolResult)
        .unwrap();
    assert_eq!((p.exit_code, p.is_error), (None, Some(true)));
    assert!(p.is_failure());
    let v = s
        .events
        .iter()
        .find(|e| e.call_id.as_deref() == Some("v1") && e.kind == EventKind::ToolResult)
        .unwrap();
    assert_eq!(
        (v.exit_code, v.is_error),
        (None, None),
        "unknown stays unknown"
    );
    // The usage lands on the last model output of the request (the `view` call).
    let with_usage: Vec<_> = s.events.iter().filter(|e| e.usage.is_some()).collect();
    assert_eq!(with_usage.len(), 1);
    assert_eq!(with_usage[0].tool.as_deref(), Some("view"));
    assert_eq!(with_usage[0].kind, EventKind::ToolCall);
}

#[test]
fn mirror_only_file_uses_the_mirrors() {
    let lines = vec![
        meta(ID, json!({})),
        line(
            "2026-11-30T10:00:01Z",
            "event_msg",
            json!({"type":"user_message","message":"hi there","kind":"plain"}),
        ),
        line(
            "2026-11-30T10:00:02Z",
            "event_msg",
            json!({"type":"agent_reasoning","text":"thinking"}),
        ),
        line(
            "2026-11-30T10:00:03Z",
            "event_msg",
            json!({"type":"agent_message","message":"hello"}),
        ),
        tokens("2026-11-30T10:00:04Z", [10, 0, 2], Some([10, 0, 2])),
        line(
            "2026-11-30T10:00:05Z",
            "event_msg",
            json!({"type":"thread_name_updated","thread_id": ID, "thread_name":"First"}),
        ),
        line(
            "2026-11-30T10:00:06Z",
            "event_msg",
            json!({"type":"thread_name_updated","thread_id": ID, "thread_name":"Second"}),
        ),
    ];
    let s = parse(&lines, b"");
    let kinds: Vec<_> = s
        .events
        .iter()
        .filter(|e| e.kind != EventKind::Meta)
        .map(|e| e.kind)
        .collect();
    assert_eq!(
        kinds,
        [EventKind::User, EventKind::Thinking, EventKind::Assistant]
    );
    assert!(s.events[2].usage.is_some());
    assert_eq!(s.header.title.as_deref(), Some("Second"));
    assert_eq!(s.header.title_source, Some(TitleSource::Custom));
    assert_eq!(s.header.titles, ["First", "Second"]);
}

#[test]
fn mirrors_are_ignored_when_response_items_exist() {
    let lines = vec![
        meta(ID, json!({})),
        line(
            "2026-11-30T10:00:01Z",
            "event_msg",
            json!({"type":"user_message","message":"hi"}),
        ),
        user("2026-11-30T10:00:01Z", "hi"),
        line(
            "2026-11-30T10:00:02Z",
            "event_msg",
            json!({"type":"agent_message","message":"yo"}),
        ),
        assistant("2026-11-30T10:00:02Z", "yo"),
        line(
            "2026-11-30T10:00:02Z",
            "event_msg",
            json!({"type":"item_completed","item":{"type":"AgentMessage","id":"m","content":[{"type":"Text","text":"yo"}]}}),
        ),
    ];
    let s = parse(&lines, b"");
    assert_eq!(s.events.len(), 2);
    assert_eq!(s.turn_count(), 1);
}

#[test]
fn early_payload_level_token_counts_and_unknown_types() {
    let lines = vec![
        meta(ID, json!({})),
        user("2026-11-30T10:00:01Z", "q"),
        assistant("2026-11-30T10:00:02Z", "a"),
        line(
            "2026-11-30T10:00:03Z",
            "event_msg",
            json!({"type":"token_count","input_tokens":12,"cached_input_tokens":2,"output_tokens":3}),
        ),
        line(
            "2026-11-30T10:00:03Z",
            "event_msg",
            json!({"type":"token_count","input_tokens":12,"cached_input_tokens":2,"output_tokens":3}),
        ),
        line("2026-11-30T10:00:04Z", "brand_new_line", json!({})),
        line("2026-11-30T10:00:05Z", "brand_new_line", json!({})),
        line("2026-11-30T10:00:06Z", "brand_new_line", json!({})),
        line(
            "2026-11-30T10:00:07Z",
            "event_msg",
            json!({"type":"brand_new_event"}),
        ),
    ];
    let s = parse(&lines, b"");
    let u = s.total_usage().unwrap();
    assert_eq!((u.input, u.cache_read, u.output), (10, 2, 3));
    let unknown: Vec<_> = s
        .warnings
        .iter()
        .filter(|w| w.kind == WarningKind::UnknownRecord)
        .collect();
    assert_eq!(unknown.len(), 2, "one warning per type");
    assert!(unknown[0].message.contains("3×"));
    assert_eq!(unknown[0].line, Some(6));
}

#[test]
fn torn_tail_is_incomplete_and_earlier_lines_survive() {
    let lines = vec![meta(ID, json!({})), user("2026-11-30T10:00:01Z", "q")];
    let s = parse(
        &lines,
        b"{\"timestamp\":\"2026-11-30T10:00:02Z\",\"type\":\"response_item\",\"payload\":{\"type\":\"mess",
    );
    assert_eq!(s.events.len(), 1);
    assert_eq!(s.warnings.len(), 1);
    assert_eq!(s.warnings[0].kind, WarningKind::IncompleteTail);
    assert_eq!(s.warnings[0].line, Some(3));
}

#[test]
fn corrupt_middle_line_and_nul_padding() {
    let nul_line = String::from_utf8(vec![0u8; 300]).unwrap();
    let padded = format!(
        "{}{}{}",
        "\0".repeat(25),
        user("2026-11-30T10:00:03Z", "padded"),
        "\0".repeat(40)
    );
    let lines = vec![
        meta(ID, json!({})),
        "{\"timestamp\":\"2026-11-30T10:00:01Z\",\"type\":".to_string(),
        user("2026-11-30T10:00:02Z", "q"),
        nul_line,
        padded,
        assistant("2026-11-30T10:00:04Z", "a"),
    ];
    let s = parse(&lines, b"");
    let texts: Vec<_> = s.events.iter().map(|e| e.text.as_str()).collect();
    assert_eq!(
        texts,
        ["q", "padded", "a"],
        "the record after NUL padding is kept"
    );
    let mut located: Vec<_> = s.warnings.iter().map(|w| (w.kind, w.line)).collect();
    located.sort();
    assert_eq!(
        located,
        [
            (WarningKind::CorruptRecord, Some(2)),
            (WarningKind::CorruptRecord, Some(4)),
            (WarningKind::Other, Some(5)),
        ]
    );
    // The kept record points past the padding.
    let padded = s.events.iter().find(|e| e.text == "padded").unwrap();
    assert_eq!(padded.raw.line, 5);
}

#[test]
fn truncated_typescript_document_is_an_error_not_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(".codex/sessions");
    fs::create_dir_all(&path).unwrap();
    let file = path.join(format!("rollout-2026-11-30-{ID}.json"));
    fs::write(
        &file,
        "{\n  \"session\": {\"id\": \"x\", \"timestamp\": \"2026-11-30T10:00:00Z\"},\n  \"items\": [\n    {\"type\": \"message\", \"role\": \"user\", \"content\": [",
    )
    .unwrap();
    let f = CodexSource.detect(&file).unwrap();
    assert!(CodexSource.parse(&f).is_err());
    assert!(CodexSource.scan_header(&f).is_err());
    // An empty rollout is an empty session named by its file.
    let empty = path.join(format!("rollout-2026-11-30T10-00-00-{ID}.jsonl"));
    fs::write(&empty, "").unwrap();
    let f = SourceFile::new(scry_model::ProviderId::Codex, ID, empty);
    let s = CodexSource.parse(&f).unwrap();
    assert_eq!((s.header.id.as_str(), s.events.len()), (ID, 0));
}

#[test]
fn a_multi_megabyte_output_line_is_kept_whole() {
    let big = "x".repeat(8 * 1024 * 1024);
    let lines = vec![
        meta(ID, json!({})),
        user("2026-11-30T10:00:01Z", "dump it"),
        line(
            "2026-11-30T10:00:02Z",
            "response_item",
            json!({"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"cat big\"}","call_id":"b1"}),
        ),
        line(
            "2026-11-30T10:00:03Z",
            "response_item",
            json!({"type":"function_call_output","call_id":"b1","output": format!("Process exited with code 0\nOutput:\n{big}")}),
        ),
    ];
    let s = parse(&lines, b"");
    let r = s
        .events
        .iter()
        .find(|e| e.kind == EventKind::ToolResult)
        .unwrap();
    assert!(r.text.len() > 8 * 1024 * 1024);
    assert_eq!(r.exit_code, Some(0));
}
