//! The synthetic demo database (`demo/home/.deepagents`, written by `fixtures/demo.py` with the
//! real langgraph library): what `scry --demo` shows for Deep Agents Code.

mod common;

use std::path::Path;

use scry_model::{EventKind, SessionKind};
use scry_source::Env;

fn demo_home() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../demo/home")
}

#[test]
fn demo_thread_and_subagent() {
    let files = common::discover(&Env::with_home(demo_home()));
    assert_eq!(files.len(), 2);
    let main = common::parse(&files[0]);
    assert_eq!(main.header.kind, SessionKind::Main);
    assert_eq!(
        main.header.cwd.as_deref(),
        Some("/home/demo/projects/webapp")
    );
    assert_eq!(main.turn_count(), 2);
    assert!(main.warnings.is_empty(), "{:?}", main.warnings);
    // Memory as recorded, HTML comments stripped; the demo home's AGENTS.md is listed.
    let memory: Vec<_> = main
        .events
        .iter()
        .filter(|e| e.subtype.as_deref() == Some("agent_memory"))
        .collect();
    assert_eq!(memory.len(), 1);
    assert!(!memory[0].text.contains("<!--"));
    assert!(memory[0].text.contains("The user's name is Dana."));
    assert!(main
        .header
        .artifacts
        .iter()
        .any(|a| a.ends_with(".deepagents/agent/AGENTS.md") && Path::new(a).is_file()));
    // One failing and one passing test run.
    let codes: Vec<Option<i64>> = main
        .events
        .iter()
        .filter(|e| e.kind == EventKind::ToolResult && e.tool.as_deref() == Some("execute"))
        .map(|e| e.exit_code)
        .collect();
    assert_eq!(codes, vec![Some(1), Some(0)]);
    assert_eq!(common::count(&main, EventKind::Thinking), 2);
    let sub = common::parse(&files[1]);
    assert_eq!(sub.header.kind, SessionKind::Subagent);
    assert_eq!(sub.header.agent_name.as_deref(), Some("general-purpose"));
    assert_eq!(common::count(&sub, EventKind::ToolCall), 1);
    assert!(sub.warnings.is_empty(), "{:?}", sub.warnings);
}
