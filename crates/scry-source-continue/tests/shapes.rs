//! Shapes the real corpus does not hold, from a hand-made document in the same layout: roles
//! `thinking`, `system`, `tool` and an unknown one, a `conversationSummary`, a canceled tool,
//! an Anthropic-shaped usage, a result whose call never appeared; and documents that are not
//! Continue's.

use scry_model::{EventKind, WarningKind};
use scry_source::{Source, SourceFile};
use scry_source_continue::ContinueSource;
use serde_json::json;

fn parse(doc: &serde_json::Value) -> Result<scry_model::Session, scry_source::SourceError> {
    let tmp = tempfile::tempdir().unwrap();
    let p = tmp.path().join("s1.json");
    std::fs::write(&p, serde_json::to_vec_pretty(doc).unwrap()).unwrap();
    ContinueSource.parse(&SourceFile::new(scry_model::ProviderId::Continue, "s1", &p))
}

#[test]
fn every_role_and_state() {
    let doc = json!({"sessionId": "s1", "title": "Fix the login bug", "workspaceDirectory": "/w",
    "history": [
        {"message": {"role": "system", "content": "be brief"}, "contextItems": []},
        {"message": {"role": "user", "content": [{"type": "text", "text": "look"},
            {"type": "imageUrl", "imageUrl": {"url": "data:"}}]}, "contextItems": []},
        {"message": {"role": "thinking", "content": "hmm"}, "contextItems": []},
        {"message": {"role": "assistant", "content": "",
            "toolCalls": [{"id": "c1", "type": "function", "function": {"name": "Edit", "arguments": "{\"filepath\":\"/w/a\"}"}}],
            "usage": {"input_tokens": 10, "output_tokens": 5, "cache_read_input_tokens": 100,
                      "cache_creation_input_tokens": 20, "model": "claude-x"}},
         "contextItems": [],
         "toolCallStates": [{"toolCallId": "c1", "status": "canceled", "output": []},
                            {"toolCallId": "c9", "status": "done", "output": [{"content": "?"}]},
                            {"toolCallId": "c1", "status": "generating"}]},
        {"message": {"role": "tool", "toolCallId": "c1", "content": "old-style result"}, "contextItems": []},
        {"message": {"role": "oracle", "content": "a"}, "contextItems": []},
        {"message": {"role": "oracle", "content": "b"}, "contextItems": []},
        {"message": {"role": "assistant", "content": "summary follows"}, "contextItems": [],
         "conversationSummary": "we fixed it"},
        {"nope": true}
    ]});
    let s = parse(&doc).unwrap();
    let kinds: Vec<EventKind> = s.events.iter().map(|e| e.kind).collect();
    use EventKind::*;
    assert_eq!(
        kinds,
        vec![
            Meta, User, Thinking, ToolCall, ToolResult, ToolResult, ToolResult, Meta, Meta,
            Compaction, Assistant
        ]
    );
    assert_eq!(s.header.title.as_deref(), Some("Fix the login bug"));
    assert_eq!(s.events[1].text, "look");
    assert_eq!(s.events[1].data.as_ref().unwrap()["images"], 1);
    let canceled = &s.events[4];
    assert_eq!(
        (canceled.is_error, canceled.subtype.as_deref()),
        (Some(true), Some("canceled"))
    );
    let u = s.total_usage().unwrap();
    assert_eq!(
        (u.input, u.cache_read, u.cache_write, u.output),
        (10, 100, 20, 5)
    );
    assert_eq!(s.header.models, vec!["claude-x".to_string()]);
    let kinds: Vec<WarningKind> = s.warnings.iter().map(|w| w.kind).collect();
    assert_eq!(
        kinds,
        vec![
            WarningKind::UnpairedResult,
            WarningKind::CorruptRecord,
            WarningKind::UnknownRecord
        ],
        "{:?}",
        s.warnings
    );
    assert!(
        s.warnings[2].message.contains("'oracle' (2 item(s))"),
        "{:?}",
        s.warnings
    );
}

#[test]
fn documents_that_are_not_continue_s() {
    for doc in [json!([]), json!({"sessionId": "x"}), json!({"history": 5})] {
        let e = parse(&doc).unwrap_err().to_string();
        assert!(e.contains("not a Continue session document"), "{e}");
    }
    let tmp = tempfile::tempdir().unwrap();
    let p = tmp.path().join("other.json");
    std::fs::write(&p, br#"{"sessionId":"x","messages":[]}"#).unwrap();
    assert!(ContinueSource.detect(&p).is_none());
}
