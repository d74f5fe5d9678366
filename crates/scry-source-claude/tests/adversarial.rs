//! Damaged and hostile input, written to a tempdir: the parse never panics, keeps what it can
//! and says what it skipped.

mod common;

use std::path::{Path, PathBuf};

use common::*;
use scry_model::{EventKind, WarningKind};

fn user(uuid: &str, text: &str) -> String {
    serde_json::json!({"type":"user","uuid":uuid,"sessionId":"s","cwd":"/w","timestamp":"2026-11-01T10:00:00Z",
        "message":{"role":"user","content":text}})
    .to_string()
}

fn assistant(uuid: &str, id: &str, text: &str, out: u64) -> String {
    serde_json::json!({"type":"assistant","uuid":uuid,"sessionId":"s","requestId":"req_1","timestamp":"2026-11-01T10:00:01Z",
        "message":{"id":id,"role":"assistant","model":"claude-x","content":[{"type":"text","text":text}],
        "usage":{"input_tokens":10,"output_tokens":out,"cache_read_input_tokens":5,"cache_creation_input_tokens":2}}})
    .to_string()
}

fn session_file(dir: &Path, bytes: &[u8]) -> PathBuf {
    let proj = dir.join("projects/-w");
    std::fs::create_dir_all(&proj).unwrap();
    let p = proj.join("0b0e0000-0000-4000-8000-000000000001.jsonl");
    std::fs::write(&p, bytes).unwrap();
    p
}

#[test]
fn torn_last_line_is_incomplete_tail() {
    let dir = tempfile::tempdir().unwrap();
    let mut data = format!(
        "{}\n{}\n",
        user("u1", "hi"),
        assistant("a1", "m1", "hello", 3)
    );
    data.push_str(&assistant("a2", "m2", "cut", 4)[..40]);
    let s = parse(&session_file(dir.path(), data.as_bytes()));
    assert_eq!(count(&s, EventKind::Assistant), 1);
    assert_eq!(s.warnings.len(), 1);
    assert_eq!(s.warnings[0].kind, WarningKind::IncompleteTail);
    assert_eq!(s.warnings[0].line, Some(3));
}

#[test]
fn corrupt_middle_line_is_skipped_with_location() {
    let dir = tempfile::tempdir().unwrap();
    let data = format!(
        "{}\n{{\"type\":\"user\",\"message\n{}\n",
        user("u1", "hi"),
        assistant("a1", "m1", "ok", 3)
    );
    let s = parse(&session_file(dir.path(), data.as_bytes()));
    assert_eq!(s.events.len(), 2);
    assert_eq!(s.warnings[0].kind, WarningKind::CorruptRecord);
    assert_eq!(s.warnings[0].line, Some(2));
}

#[test]
fn nul_bytes_in_text_survive() {
    let dir = tempfile::tempdir().unwrap();
    let escaped = user("u1", "a\u{0}b");
    let raw = escaped.replace("\\u0000", "\u{0}");
    let data = format!("{escaped}\n{raw}\n");
    let s = parse(&session_file(dir.path(), data.as_bytes()));
    assert_eq!(s.events.len(), 2);
    assert!(s.events.iter().all(|e| e.text == "a\u{0}b"));
    assert!(s.warnings.is_empty());
}

#[test]
fn invalid_utf8_is_lossy_with_warning() {
    let dir = tempfile::tempdir().unwrap();
    let mut data = user("u1", "caf_").into_bytes();
    let at = data.windows(4).position(|w| w == b"caf_").unwrap() + 3;
    data[at] = 0xff;
    data.push(b'\n');
    let s = parse(&session_file(dir.path(), &data));
    assert_eq!(s.events[0].text, "caf\u{fffd}");
    assert_eq!(s.warnings[0].kind, WarningKind::InvalidUtf8);
}

#[test]
fn twenty_megabyte_line() {
    let dir = tempfile::tempdir().unwrap();
    let big = "x".repeat(20 * 1024 * 1024);
    let data = format!("{}\n{}\n", user("u1", "go"), assistant("a1", "m1", &big, 7));
    let s = parse(&session_file(dir.path(), data.as_bytes()));
    assert_eq!(s.events[1].text.len(), big.len());
    assert_eq!(s.total_usage().unwrap().output, 7);
}

#[test]
fn empty_file_is_a_session_without_events() {
    let dir = tempfile::tempdir().unwrap();
    let p = session_file(dir.path(), b"");
    let s = parse(&p);
    assert!(s.events.is_empty());
    assert!(s.warnings.is_empty());
    assert_eq!(s.header.id, "0b0e0000-0000-4000-8000-000000000001");
    assert!(s.total_usage().is_none());
}

#[test]
fn split_message_usage_counted_once_with_final_output() {
    // Three lines of one message (growing output), an interleaved attachment, and the same
    // message id again later (copied): usage once, output 30, on the last block.
    let dir = tempfile::tempdir().unwrap();
    let att = serde_json::json!({"type":"attachment","uuid":"t1","attachment":{"type":"date","date":"x"}}).to_string();
    let data = [
        user("u1", "go"),
        assistant("a1", "m1", "one", 10),
        att,
        assistant("a2", "m1", "two", 20),
        assistant("a3", "m1", "three", 30),
        user("u2", "again"),
        assistant("a4", "m1", "echo", 30),
    ]
    .join("\n");
    let s = parse(&session_file(dir.path(), data.as_bytes()));
    let with: Vec<_> = s.events.iter().filter(|e| e.usage.is_some()).collect();
    assert_eq!(with.len(), 1);
    assert_eq!(with[0].text, "three");
    assert_eq!(with[0].usage.unwrap().output, 30);
    assert_eq!(s.total_usage().unwrap().input, 10);
    // File order is kept: the attachment stays between the first two blocks.
    let kinds: Vec<_> = s.events.iter().map(|e| e.kind).collect();
    assert_eq!(
        kinds[1..5],
        [
            EventKind::Assistant,
            EventKind::Meta,
            EventKind::Assistant,
            EventKind::Assistant
        ]
    );
}

#[test]
fn deep_nesting_and_garbage_values() {
    let dir = tempfile::tempdir().unwrap();
    let deep = "[".repeat(200_000);
    let data = format!("{deep}\n42\n\"str\"\nnull\n{{\"type\":\"user\",\"message\":{{\"content\":[1,{{}},null]}}}}\n{{\"type\":\"assistant\",\"message\":{{\"content\":\"plain\",\"usage\":7}}}}\n");
    let s = parse(&session_file(dir.path(), data.as_bytes()));
    assert!(s
        .warnings
        .iter()
        .any(|w| w.kind == WarningKind::CorruptRecord));
    assert!(s
        .warnings
        .iter()
        .any(|w| w.kind == WarningKind::UnknownRecord));
    assert_eq!(count(&s, EventKind::Assistant), 1);
}

#[test]
fn usage_of_a_message_without_blocks_is_kept() {
    let dir = tempfile::tempdir().unwrap();
    let empty = serde_json::json!({"type":"assistant","uuid":"a1","requestId":"r","message":{"id":"m1","role":"assistant","model":"x","content":[],
        "usage":{"input_tokens":3,"output_tokens":1}}}).to_string();
    let data = format!("{}\n{empty}\n", user("u1", "hi"));
    let s = parse(&session_file(dir.path(), data.as_bytes()));
    assert_eq!(s.total_usage().unwrap().input, 3);
    assert_eq!(s.events[1].subtype.as_deref(), Some("empty_message"));
}

#[test]
fn corrupt_bookkeeping_line_still_warns() {
    let dir = tempfile::tempdir().unwrap();
    let data = format!(
        "{{\"type\":\"api-request\",\"id\":\"x\"}}\n{{\"type\":\"api-request\",\"id\":}}\n{}\n",
        user("u1", "hi")
    );
    let s = parse(&session_file(dir.path(), data.as_bytes()));
    assert_eq!(s.events.len(), 1);
    assert_eq!(s.warnings.len(), 1);
    assert_eq!(s.warnings[0].kind, WarningKind::CorruptRecord);
    assert_eq!(s.warnings[0].line, Some(2));
}

#[test]
fn files_without_any_request_id_copy_nothing() {
    // Gateways and some releases write no requestId at all: nothing is taken for copied
    // history, every message counts.
    let dir = tempfile::tempdir().unwrap();
    let no_req =
        |uuid: &str, id: &str| assistant(uuid, id, "ok", 2).replace(",\"requestId\":\"req_1\"", "");
    let data = [
        user("u1", "a"),
        no_req("a1", "m1"),
        user("u2", "b"),
        no_req("a2", "m2"),
    ]
    .join("\n");
    assert!(!data.contains("requestId"));
    let s = parse(&session_file(dir.path(), data.as_bytes()));
    assert_eq!(s.total_usage().unwrap().input, 20);
    assert!(s
        .events
        .iter()
        .all(|e| e.data.as_ref().is_none_or(|d| d.get("copied").is_none())));
}
