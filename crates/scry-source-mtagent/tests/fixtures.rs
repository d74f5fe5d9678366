//! The three MT-Agent scenarios of `fixtures/generate.py` (transcripts written from seed 003,
//! checkpoints written by the real langgraph 1.2.24 `SqliteSaver`).
//!
//! Numbers come from the raw files: record types and roles counted with
//! `jq -r .type FILE | sort | uniq -c` and `jq -r 'select(.type=="transcript_message") | .role'`;
//! tool calls with `jq '[.tool_calls[]?] | length'`; fresh input with
//! `jq 'select(.usage) | .usage.input_tokens - .usage.input_token_details.cache_read'`; the
//! checkpoint side with the real library (`graph.get_state(...)`: webapp 12 messages, status
//! done, next (); api 2 messages, next ('approval',), one interrupt naming call_a1; cli 6
//! messages, next ('tool_execution',), pending call_c2, a RuntimeError task error; the orphan
//! thread 2 messages).

mod common;

use scry_model::{EventKind, Surface, WarningKind};

#[test]
fn discovery_lists_transcripts_and_the_orphan_thread() {
    let files = common::files();
    let ids: Vec<&str> = files.iter().map(|f| f.id.as_str()).collect();
    assert_eq!(files.len(), 5, "{ids:?}");
    for id in [
        "5e55a0b2d0e1",
        "a9f1c2d3e4f5",
        "01d01d01d01d",
        "c11c11c11c11",
        "thread-cli-orphan",
    ] {
        assert!(ids.contains(&id), "{id} in {ids:?}");
    }
    let orphan = files.iter().find(|f| f.id == "thread-cli-orphan").unwrap();
    assert!(orphan.path.ends_with("checkpoints.sqlite"));
    assert_eq!(orphan.cwd_hint.as_deref(), Some("/home/dev/projects/cli"));
    let web = files.iter().find(|f| f.id == "5e55a0b2d0e1").unwrap();
    assert_eq!(web.cwd_hint.as_deref(), Some("/home/dev/projects/webapp"));
    assert_eq!(web.related.len(), 1);
}

#[test]
fn clean_session_with_compression_and_resume() {
    let s = common::session("5e55a0b2d0e1");
    assert_eq!(s.header.cwd.as_deref(), Some("/home/dev/projects/webapp"));
    assert_eq!(s.header.title.as_deref(), Some("What is in src?"));
    assert_eq!(s.header.models, vec!["deepseek-chat".to_string()]);
    assert_eq!(s.header.sources.len(), 2, "transcript + checkpoints.sqlite");
    // 12 transcript messages: 3 user, 6 assistant (3 with one tool call each), 3 tool.
    assert_eq!(common::count(&s, EventKind::User), 3);
    assert_eq!(common::count(&s, EventKind::ToolCall), 3);
    assert_eq!(common::count(&s, EventKind::ToolResult), 3);
    assert_eq!(common::count(&s, EventKind::Thinking), 1);
    // Two session_start records: the resumed session merged into the file.
    assert_eq!(common::with_subtype(&s, "session_start").len(), 1);
    let resumed = common::with_subtype(&s, "session_resumed");
    assert_eq!(resumed.len(), 1);
    assert_eq!(
        resumed[0].data.as_ref().unwrap()["resumedFrom"],
        "5e55a0a1c0de"
    );
    // One compression: 8 messages before it, kept 2 → the first 6 messages are shadowed.
    let c = common::with_subtype(&s, "compression");
    assert_eq!(c.len(), 1);
    assert_eq!(c[0].kind, EventKind::Compaction);
    assert_eq!(c[0].surface, Surface::Current);
    assert_eq!(c[0].data.as_ref().unwrap()["removed_count"], 6);
    let shadowed_lines: std::collections::BTreeSet<u64> = s
        .events
        .iter()
        .filter(|e| e.surface == Surface::Shadowed)
        .map(|e| e.raw.line)
        .collect();
    // Lines 2–7 hold messages 1–6 (line 1 is session_start).
    assert_eq!(shadowed_lines, (2..=7).collect());
    // The approved write: request and decision, then the paired result.
    assert_eq!(common::with_subtype(&s, "approval_request").len(), 1);
    let d = common::with_subtype(&s, "approval_decision");
    assert_eq!(d[0].text, "Approval approved");
    // Exit codes from the shell trailer: 0 then 1.
    let codes: Vec<Option<i64>> = s
        .events
        .iter()
        .filter(|e| e.kind == EventKind::ToolResult && e.tool.as_deref() == Some("shell"))
        .map(|e| e.exit_code)
        .collect();
    assert_eq!(codes, vec![Some(0), Some(1)]);
    // Usage: input_tokens − cache_read summed over the 6 assistant messages = 1762.
    assert_eq!(s.total_usage().unwrap().input, 1762);
    // Transcript and checkpoint agree: no warnings, nothing pending.
    assert!(s.warnings.is_empty(), "{:?}", s.warnings);
    assert!(common::with_subtype(&s, "interrupt_pending").is_empty());
    assert!(common::with_subtype(&s, "interrupted_tool_call").is_empty());
    let state = common::with_subtype(&s, "checkpoint_state");
    assert_eq!(state[0].data.as_ref().unwrap()["status"], "done");
    assert_eq!(state[0].data.as_ref().unwrap()["messages"], 12);
}

#[test]
fn pending_tool_call_awaiting_approval() {
    let s = common::session("a9f1c2d3e4f5");
    assert_eq!(common::count(&s, EventKind::ToolCall), 1);
    assert_eq!(common::count(&s, EventKind::ToolResult), 0);
    let p = common::with_subtype(&s, "interrupt_pending");
    assert_eq!(p.len(), 1);
    assert_eq!(p[0].kind, EventKind::System);
    assert!(p[0].text.contains("rm -rf build"), "{}", p[0].text);
    let d = p[0].data.as_ref().unwrap();
    assert_eq!(d["status"], "awaiting_approval");
    assert_eq!(d["next"], serde_json::json!(["approval"]));
    // The approval covers the call: it is awaiting approval, not interrupted.
    assert!(common::with_subtype(&s, "interrupted_tool_call").is_empty());
    assert!(s.warnings.is_empty(), "{:?}", s.warnings);
}

#[test]
fn transcript_checkpoint_mismatch_and_interrupted_call() {
    let s = common::session("c11c11c11c11");
    assert_eq!(
        common::count(&s, EventKind::User),
        1,
        "the second prompt never reached the transcript"
    );
    let i = common::with_subtype(&s, "interrupted_tool_call");
    assert_eq!(i.len(), 1);
    assert_eq!(i[0].call_id.as_deref(), Some("call_c2"));
    assert_eq!(i[0].tool.as_deref(), Some("shell"));
    assert_eq!(i[0].args.as_ref().unwrap()["command"], "cargo test");
    let d = i[0].data.as_ref().unwrap();
    assert_eq!(d["in_transcript"], false);
    assert_eq!(d["next"], serde_json::json!(["tool_execution"]));
    assert!(d["error"].as_str().unwrap().contains("process killed"));
    let w: Vec<_> = s
        .warnings
        .iter()
        .filter(|w| w.kind == WarningKind::Inconsistent)
        .collect();
    assert_eq!(w.len(), 1, "{:?}", s.warnings);
    assert!(
        w[0].message.contains("has 6 messages, the transcript 4"),
        "{}",
        w[0]
    );
}

#[test]
fn missing_thread_id_and_checkpoint_without_transcript() {
    let s = common::session("01d01d01d01d");
    assert_eq!(s.warnings.len(), 1);
    assert_eq!(s.warnings[0].kind, WarningKind::Inconsistent);
    assert!(s.warnings[0].message.contains("no threadId"));
    assert_eq!(s.header.sources.len(), 1);
    assert_eq!(common::count(&s, EventKind::User), 1);

    let o = common::session("thread-cli-orphan");
    assert_eq!(o.header.cwd.as_deref(), Some("/home/dev/projects/cli"));
    assert_eq!(o.header.title.as_deref(), Some("What does --verbose do?"));
    assert_eq!(common::count(&o, EventKind::User), 1);
    assert_eq!(common::count(&o, EventKind::Assistant), 1);
    assert!(o
        .events
        .iter()
        .filter(|e| e.raw.line > 0)
        .all(|e| e.time.is_some()));
    assert_eq!(o.warnings.len(), 1);
    assert!(o.warnings[0].message.contains("has no transcript"));
}

#[test]
fn shared_surface_rules_agree() {
    use scry_source::Source;
    for f in common::files() {
        let s = scry_source_mtagent::MtagentSource.parse(&f).unwrap();
        let own: Vec<Surface> = s.events.iter().map(|e| e.surface).collect();
        assert_eq!(scry_facts::surfaces(&s.events), own, "{}", f.id);
    }
}

#[test]
fn header_scan_and_detect() {
    use scry_source::Source;
    for f in common::files() {
        let scanned = scry_source_mtagent::MtagentSource.scan_header(&f).unwrap();
        let parsed = scry_source_mtagent::MtagentSource.parse(&f).unwrap().header;
        assert_eq!(scanned, parsed);
        if !f.path.ends_with("checkpoints.sqlite") {
            let d = scry_source_mtagent::MtagentSource.detect(&f.path).unwrap();
            assert_eq!(d.id, f.id);
        }
    }
}
