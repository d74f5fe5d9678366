//! Both databases of corpus/langgraph (written by the real `langgraph` / deepagents-code
//! 0.1.57): every thread and namespace parses; the messages each root thread's events come
//! from are exactly LangGraph's own (`expected/<db>.json`, ids in order); dcode specifics
//! (summarization + offload, pending approval, rejected approvals, second agent) as described
//! in `dcode/threads.json`.

mod common;

use std::collections::BTreeSet;

use scry_model::{EventKind, SessionKind, Surface};

const DCODE: &str = "langgraph/dcode/home/.deepagents/.state/sessions.db";
const PLAIN: &str = "langgraph/langgraph/sessions.db";

/// Message ids (in order) behind a session's events: message events carry the message's
/// 1-based index in `raw.line` and its id in the locator.
fn message_ids(s: &scry_model::Session) -> Vec<String> {
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for e in &s.events {
        if e.raw.line == 0 || !seen.insert(e.raw.line) {
            continue;
        }
        let id = e.locator.as_str().strip_prefix("id:").unwrap_or("");
        out.push(id.split('#').next().unwrap_or("").to_string());
    }
    out
}

fn check_expected(db: &str, expected: &str) {
    let path = common::corpus().join(db);
    let files = common::sources_of(&path);
    let text = std::fs::read_to_string(common::corpus().join(expected)).unwrap();
    let want: serde_json::Value = serde_json::from_str(&text).unwrap();
    let want = want.as_array().unwrap();
    let roots: Vec<_> = files
        .iter()
        .filter(|f| f.kind == SessionKind::Main)
        .collect();
    assert_eq!(roots.len(), want.len());
    for t in want {
        let id = t["thread_id"].as_str().unwrap();
        let ids: Vec<String> = t["messages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["id"].as_str().unwrap_or("").to_string())
            .collect();
        let s = common::session(&files, id);
        assert_eq!(message_ids(&s), ids, "thread {id}");
    }
    for f in &files {
        let s = common::parse(f);
        assert!(!s.events.is_empty(), "{}", f.id);
        for (i, e) in s.events.iter().enumerate() {
            assert_eq!(e.seq as usize, i);
        }
        // The shared surface rules (S-Q2) agree with the provider's own marks.
        let own: Vec<Surface> = s.events.iter().map(|e| e.surface).collect();
        assert_eq!(scry_facts::surfaces(&s.events), own, "{}", f.id);
    }
}

#[test]
fn dcode_threads_match_langgraph() {
    // expected/dcode.verify.txt: 10, 4, 13, 12, 56, 2, 6, 4 messages.
    check_expected(DCODE, "langgraph/expected/dcode.json");
}

#[test]
fn plain_langgraph_threads_match_langgraph() {
    // expected/langgraph.verify.txt: 11, 4, 6, 8, 12, 8, 8 messages.
    check_expected(PLAIN, "langgraph/expected/langgraph.json");
}

#[test]
fn dcode_summarization_offload_and_shadowing() {
    let files = common::sources_of(&common::corpus().join(DCODE));
    let s = common::session(&files, "01a22ce5-ebc1-7090-b100-aeff29f7dcf9");
    let c: Vec<_> = s
        .events
        .iter()
        .filter(|e| e.kind == EventKind::Compaction)
        .collect();
    assert_eq!(c.len(), 1);
    let c = c[0];
    assert!(c.text.contains("<summary>"));
    let d = c.data.as_ref().unwrap();
    assert_eq!(d["cutoff_index"], 6);
    assert_eq!(
        d["file_path"].as_str(),
        Some("/var/dcode-artifacts-0/conversation_history/session_32558efc95874c4193b5f84627ac47c0.md")
    );
    assert_eq!(d["file_exists"], false);
    // Found beside the database, in the Deep Agents home.
    let resolved = d["resolved_path"].as_str().unwrap();
    assert!(resolved
        .ends_with(".deepagents/conversation_history/session_32558efc95874c4193b5f84627ac47c0.md"));
    assert!(std::path::Path::new(resolved).is_file());
    // It comes right after the 7th message (the "Please compact" prompt, index 6) and the
    // first six messages (3 prompts + 3 answers) are shadowed.
    let shadowed: Vec<_> = s
        .events
        .iter()
        .filter(|e| e.surface == Surface::Shadowed)
        .collect();
    assert_eq!(shadowed.len(), 6);
    assert!(shadowed.iter().all(|e| e.raw.line <= 6));
    let prev = &s.events[c.seq as usize - 1];
    assert_eq!(prev.kind, EventKind::User);
    assert_eq!(prev.raw.line, 7);
    assert_eq!(c.turn, 4);
    // The prompt's turn id as deepagents-code recorded it (additional_kwargs).
    let first = s.events.iter().find(|e| e.kind == EventKind::User).unwrap();
    assert_eq!(
        first.data.as_ref().unwrap()["turn_id"],
        "4b414736-73f9-4165-a302-661e50f003a4"
    );
    assert!(s.warnings.is_empty(), "{:?}", s.warnings);
}

#[test]
fn dcode_pending_and_answered_approvals() {
    let files = common::sources_of(&common::corpus().join(DCODE));
    // Bare reject => turn aborted, interrupt pending: the write_file call has no result.
    let s = common::session(&files, "01a22ce6-128c-73f1-ba28-42708c079275");
    let pending: Vec<_> = s
        .events
        .iter()
        .filter(|e| e.subtype.as_deref() == Some("interrupt_pending"))
        .collect();
    assert_eq!(pending.len(), 1);
    assert_eq!(pending[0].kind, EventKind::System);
    assert!(pending[0].text.contains("write_file"));
    assert_eq!(common::count(&s, EventKind::ToolCall), 1);
    assert_eq!(common::count(&s, EventKind::ToolResult), 0);
    // Reject with a message => resumed: both rejections are error results, nothing pending.
    let s = common::session(&files, "01a22ce6-16b4-778e-af6c-bb01aeeaad1b");
    assert!(s
        .events
        .iter()
        .all(|e| e.subtype.as_deref() != Some("interrupt_pending")));
    let rejected: Vec<_> = s
        .events
        .iter()
        .filter(|e| e.kind == EventKind::ToolResult && e.is_error == Some(true))
        .collect();
    assert_eq!(rejected.len(), 2);
    assert_eq!(
        rejected[0].data.as_ref().unwrap()["lc_source"].as_str(),
        Some("hitl_interrupt_decision")
    );
}

#[test]
fn dcode_agents_subagent_and_memory() {
    let path = common::corpus().join(DCODE);
    let files = common::sources_of(&path);
    assert_eq!(files.len(), 9, "8 threads + 1 subagent namespace");
    let s = common::session(&files, "01a22ce6-3d2d-74a3-907b-b87f75755676");
    assert_eq!(s.header.agent_name.as_deref(), Some("reviewer"));
    assert_eq!(s.header.git_branch.as_deref(), Some("feature/fixtures"));
    // The reviewer's user-level memory file exists in the corpus home.
    assert!(s.header.artifacts.iter().any(
        |a| a.ends_with(".deepagents/reviewer/AGENTS.md") && std::path::Path::new(a).is_file()
    ));
    let child = common::session(&files, "911bf932-a8ea-acec-0663-70a3c5b9a14d");
    assert_eq!(child.header.kind, SessionKind::Subagent);
    assert_eq!(
        child.header.parent.as_deref(),
        Some("01a22ce5-dd05-747f-9fab-b6142de7abb0")
    );
    // deepagents 0.7.6 does not fork the context: nothing copied.
    assert!(child
        .events
        .iter()
        .all(|e| e.subtype.as_deref() != Some("forked_context")));
    assert_eq!(common::count(&child, EventKind::User), 1);
    // 26 sequential tool calls, all paired.
    let s = common::session(&files, "01a22ce6-01de-7711-b381-af8b8a0a8211");
    assert_eq!(common::count(&s, EventKind::ToolCall), 26);
    assert_eq!(common::count(&s, EventKind::ToolResult), 26);
    assert!(s.warnings.is_empty());
}

#[test]
fn plain_langgraph_system_message_and_unknown_tool() {
    let files = common::sources_of(&common::corpus().join(PLAIN));
    let s = common::session(&files, "019b0000-0000-7000-8000-00000000000c");
    let injected: Vec<_> = s
        .events
        .iter()
        .filter(|e| e.subtype.as_deref() == Some("system_injected"))
        .collect();
    assert_eq!(injected.len(), 1);
    assert_eq!(injected[0].kind, EventKind::Meta);
    assert!(injected[0].text.starts_with("[SYSTEM]"));
    let s = common::session(&files, "019b0000-0000-7000-8000-00000000000d");
    // Parallel glob + grep + an unknown tool: three error results; one reasoning block.
    let errors = s
        .events
        .iter()
        .filter(|e| e.kind == EventKind::ToolResult && e.is_error == Some(true))
        .count();
    assert_eq!(errors, 3);
    assert_eq!(common::count(&s, EventKind::Thinking), 1);
    let s = common::session(&files, "019b0000-0000-7000-8000-00000000000a");
    assert_eq!(s.events[0].subtype.as_deref(), Some("system_prompt"));
}
