//! The Deep Agents Code 0.1.88 session in corpus/real (one thread, five turns, a `task`
//! subagent in namespace `tools:eeada537-…`), read through discovery from `$HOME`.
//!
//! Expected numbers were derived independently: the messages were rebuilt with the real
//! `langgraph` 1.2.24 library (`StateGraph(...).compile(checkpointer=SqliteSaver(copy)).get_state`
//! with a `DeltaChannel(add_messages)` messages channel) and counted with Python over that
//! JSON: 28 root messages (5 human, 14 AI, 9 tool), 19 in the subagent namespace of which the
//! first 15 carry the parent's message ids.

mod common;

use scry_model::{EventKind, LineageKind, SessionKind, Surface, TimeSource};
use scry_source::Env;

const THREAD: &str = "01a22cf1-d681-7529-82a8-e14759aabcb3";
const CHILD: &str = "eeada537-4255-c8f6-be89-cb758bd13a40";

fn files() -> Vec<scry_source::SourceFile> {
    common::discover(&Env::with_home(common::corpus().join("real/home")))
}

#[test]
fn discovery_lists_the_thread_and_its_subagent() {
    let files = files();
    assert_eq!(files.len(), 2);
    assert_eq!(files[0].id, THREAD);
    assert_eq!(files[0].kind, SessionKind::Main);
    assert_eq!(files[0].cwd_hint.as_deref(), Some("/home/dev/work/proj-da"));
    assert_eq!(files[1].id, CHILD);
    assert_eq!(files[1].kind, SessionKind::Subagent);
    assert_eq!(files[1].parent.as_deref(), Some(THREAD));
}

#[test]
fn root_thread_turns_tools_thinking_usage() {
    let s = common::session(&files(), THREAD);
    let h = &s.header;
    assert_eq!(h.cwd.as_deref(), Some("/home/dev/work/proj-da"));
    assert_eq!(h.git_branch.as_deref(), Some("master"));
    assert_eq!(
        h.git_commit.as_deref(),
        Some("e0673801535e1241207653e40770d8924251883d")
    );
    assert_eq!(h.agent_version.as_deref(), Some("0.1.88"));
    assert_eq!(h.agent_name.as_deref(), Some("agent"));
    assert_eq!(
        h.title.as_deref(),
        Some("Please inspect this project and then create a notes file.")
    );
    assert_eq!(h.models, vec!["claude-sonnet-4-5".to_string()]);
    // The recorded memory_contents channel names the user-level AGENTS.md.
    assert_eq!(
        h.artifacts,
        vec!["/home/dev/work/home-da/.deepagents/agent/AGENTS.md".to_string()]
    );

    // 5 human prompts = 5 turns.
    assert_eq!(common::count(&s, EventKind::User), 5);
    assert_eq!(s.turn_count(), 5);
    // 9 tool calls (execute ×4, write_file, read_file, edit_file, task, compact_conversation),
    // 9 results, every one paired.
    assert_eq!(common::count(&s, EventKind::ToolCall), 9);
    assert_eq!(common::count(&s, EventKind::ToolResult), 9);
    assert!(s.warnings.is_empty(), "{:?}", s.warnings);
    for r in s.events.iter().filter(|e| e.kind == EventKind::ToolResult) {
        let call = s
            .events
            .iter()
            .find(|c| c.kind == EventKind::ToolCall && c.call_id == r.call_id)
            .expect("paired call");
        assert!(call.seq < r.seq);
        assert_eq!(call.tool, r.tool);
        assert_eq!(
            r.is_error,
            Some(false),
            "status is success on every tool message"
        );
    }
    // 3 thinking blocks, 6 non-empty text blocks.
    assert_eq!(common::count(&s, EventKind::Thinking), 3);
    assert_eq!(common::count(&s, EventKind::Assistant), 6);
    // execute results: artifact.exit_code 0, 1, 0, 1.
    let codes: Vec<Option<i64>> = s
        .events
        .iter()
        .filter(|e| e.kind == EventKind::ToolResult && e.tool.as_deref() == Some("execute"))
        .map(|e| e.exit_code)
        .collect();
    assert_eq!(codes, vec![Some(0), Some(1), Some(0), Some(1)]);
    assert!(s
        .events
        .iter()
        .filter(|e| e.kind == EventKind::ToolResult && e.tool.as_deref() != Some("execute"))
        .all(|e| e.exit_code.is_none()));
    // Usage: one event per AI message (14); input = input_tokens − cache_read − cache_creation.
    assert_eq!(s.events.iter().filter(|e| e.usage.is_some()).count(), 14);
    let u = s.total_usage().unwrap();
    assert_eq!(
        (u.input, u.output, u.cache_read, u.cache_write, u.reasoning),
        (10014, 633, 148533, 28853, 0)
    );
    // Every message event has its checkpoint time.
    for e in s.events.iter().filter(|e| e.raw.line > 0) {
        assert!(e.time.is_some(), "{e:?}");
        assert_eq!(e.time_source, TimeSource::Derived);
    }
    // The task call names the subagent session it ran.
    let task = s
        .events
        .iter()
        .find(|e| e.tool.as_deref() == Some("task") && e.kind == EventKind::ToolCall)
        .unwrap();
    assert_eq!(
        task.data.as_ref().unwrap()["subagent_session"].as_str(),
        Some(CHILD)
    );
    // Model spec and context tokens (ResumeStateMiddleware channels) at the end.
    let state = s.events.last().unwrap();
    assert_eq!(state.subtype.as_deref(), Some("thread_state"));
    assert_eq!(state.surface, Surface::LogOnly);
    let d = state.data.as_ref().unwrap();
    assert_eq!(
        d["model_spec"].as_str(),
        Some("anthropic:claude-sonnet-4-5")
    );
    assert_eq!(d["context_tokens"].as_i64(), Some(13997));
    // No summarization happened (compact_conversation answered "nothing to compact yet").
    assert_eq!(common::count(&s, EventKind::Compaction), 0);
}

#[test]
fn subagent_is_a_child_session_without_the_copied_history() {
    let s = common::session(&files(), CHILD);
    let h = &s.header;
    assert_eq!(h.kind, SessionKind::Subagent);
    assert_eq!(h.parent.as_deref(), Some(THREAD));
    assert_eq!(h.lineage.len(), 1);
    assert_eq!(h.lineage[0].kind, LineageKind::SubagentOf);
    assert_eq!(h.lineage[0].target, THREAD);
    assert_eq!(h.agent_name.as_deref(), Some("general-purpose"));
    assert_eq!(
        h.title.as_deref(),
        Some("Please count the files in the current project directory and report the number.")
    );
    let first = &s.events[0];
    assert_eq!(first.subtype.as_deref(), Some("forked_context"));
    assert_eq!(first.data.as_ref().unwrap()["copied_messages"], 15);
    // 4 own messages: the task prompt, AI (thinking + execute), tool, AI (text).
    assert_eq!(common::count(&s, EventKind::User), 1);
    assert_eq!(common::count(&s, EventKind::Thinking), 1);
    assert_eq!(common::count(&s, EventKind::ToolCall), 1);
    assert_eq!(common::count(&s, EventKind::ToolResult), 1);
    assert_eq!(common::count(&s, EventKind::Assistant), 1);
    let r = s
        .events
        .iter()
        .find(|e| e.kind == EventKind::ToolResult)
        .unwrap();
    assert_eq!(r.exit_code, Some(0));
    // Only the subagent's own two requests: parent + child = the 16 requests and 214525 raw
    // input tokens of `_session_cost_breakdown` (11371 fresh after removing cache kinds).
    let u = s.total_usage().unwrap();
    assert_eq!(
        (u.input, u.output, u.cache_read, u.cache_write),
        (1357, 112, 23056, 2712)
    );
    let parent = common::session(&files(), THREAD).total_usage().unwrap();
    assert_eq!(
        parent.input
            + parent.cache_read
            + parent.cache_write
            + u.input
            + u.cache_read
            + u.cache_write,
        214_525
    );
    assert!(s.warnings.is_empty(), "{:?}", s.warnings);
}

#[test]
fn header_scan_agrees_with_parse() {
    use scry_source::Source;
    for f in files() {
        let scanned = scry_source_deepagents::DeepagentsSource
            .scan_header(&f)
            .unwrap();
        let parsed = common::parse(&f).header;
        assert_eq!(scanned, parsed);
    }
}
