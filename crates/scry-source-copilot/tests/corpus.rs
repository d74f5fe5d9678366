//! The Copilot CLI reader on every session of the real corpus (Copilot CLI 1.0.102,
//! `real/home/.copilot/session-state/`), and token totals against ccusage.
//!
//! Expected counts were taken from the raw files with a separate Python script (not this
//! parser): prompts = `user.message` records without `agentId`; tool calls = entries of
//! `toolRequests` over `assistant.message` records; results = `tool.execution_complete`
//! records; texts / thoughts = `assistant.message` records with a non-empty `content` /
//! `reasoningText`; subagent events = records carrying `agentId`.
//!
//! ccusage's figures, recorded once (ccusage is not part of the repo or CI): installed with
//! `npm install ccusage@20.0.24 @ccusage/ccusage-linux-x64@20.0.24` and run as
//! `HOME=<corpus>/real/home npx ccusage copilot session --json --offline`. Its `inputTokens`
//! is Copilot's `inputTokens` minus `cacheReadTokens` (24845 − 10020 = 14825 for the short
//! session), which is scry's fresh input too.

use std::path::{Path, PathBuf};

use scry_model::{EventKind, Session, Surface, TitleSource, TokenUsage};
use scry_source::{Env, Source};
use scry_source_copilot::CopilotSource;

const LONG: &str = "f596c862-f63a-4ce1-a6b7-43eb7ab0fa00";
const SHORT: &str = "3d3522bb-747f-4805-a27f-58abaa6acff5";

fn home() -> PathBuf {
    scry_testkit::corpus().join("real/home")
}

fn log(id: &str) -> PathBuf {
    home().join(format!(".copilot/session-state/{id}/events.jsonl"))
}

fn parse(id: &str) -> Session {
    let f = CopilotSource.detect(&log(id)).expect("detected");
    CopilotSource.parse(&f).expect("parses")
}

fn count(s: &Session, kind: EventKind) -> usize {
    s.events.iter().filter(|e| e.kind == kind).count()
}

fn usage(s: &Session) -> TokenUsage {
    s.total_usage().unwrap_or_default()
}

#[test]
fn discovery_finds_both_sessions_with_side_files() {
    let d = CopilotSource.discover(&Env::with_home(home()));
    assert_eq!(d.roots.len(), 1);
    assert!(d.roots[0].exists);
    assert!(d.roots[0].path.ends_with(".copilot/session-state"));
    let ids: Vec<&str> = d.files.iter().map(|f| f.id.as_str()).collect();
    assert_eq!(ids, [SHORT, LONG]);
    let long = &d.files[1];
    let names: Vec<String> = long
        .related
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["workspace.yaml", "session.db"]);
    assert!(d.warnings.is_empty(), "{:?}", d.warnings);
    // COPILOT_HOME moves the root.
    let env = Env::with_home("/nowhere")
        .var_set("COPILOT_HOME", home().join(".copilot").to_string_lossy());
    let d = CopilotSource.discover(&env);
    assert_eq!(d.roots[0].env_var.as_deref(), Some("COPILOT_HOME"));
    assert_eq!(d.files.len(), 2);
}

#[test]
fn long_session_counts_match_the_raw_file() {
    let s = parse(LONG);
    assert!(s.warnings.is_empty(), "{:?}", s.warnings);
    assert_eq!(count(&s, EventKind::User), 4);
    assert_eq!(s.turn_count(), 4);
    assert_eq!(count(&s, EventKind::ToolCall), 9);
    assert_eq!(count(&s, EventKind::ToolResult), 9);
    assert_eq!(count(&s, EventKind::Assistant), 6);
    assert_eq!(count(&s, EventKind::Thinking), 4);
    assert_eq!(count(&s, EventKind::Compaction), 1);
    // Every result pairs with a call of the same id and tool.
    for r in s.events.iter().filter(|e| e.kind == EventKind::ToolResult) {
        let call = s
            .events
            .iter()
            .find(|c| c.kind == EventKind::ToolCall && c.call_id == r.call_id)
            .expect("paired");
        assert_eq!(call.tool, r.tool);
        assert!(call.seq < r.seq);
    }
    let tools: std::collections::BTreeSet<&str> =
        s.events.iter().filter_map(|e| e.tool.as_deref()).collect();
    assert_eq!(
        tools.into_iter().collect::<Vec<_>>(),
        ["bash", "create", "edit", "sql", "task", "view"]
    );
    // Header: workspace.yaml and session.start.
    let h = &s.header;
    assert_eq!(h.id, LONG);
    assert_eq!(h.cwd.as_deref(), Some("/home/dev/new/work/proj-copilot"));
    assert_eq!(h.git_branch.as_deref(), Some("master"));
    assert_eq!(
        h.git_commit.as_deref(),
        Some("cf762475ee289ae8357eaa4145630528fe6a0091")
    );
    assert_eq!(h.agent_version.as_deref(), Some("1.0.102"));
    assert_eq!(h.models, ["gpt-4.1"]);
    assert_eq!(
        h.title.as_deref(),
        Some("Please inspect this project and then create a notes file.")
    );
    assert_eq!(h.title_source, Some(TitleSource::FirstPrompt));
}

#[test]
fn failing_commands_keep_their_exit_codes() {
    let s = parse(LONG);
    let bash: Vec<_> = s
        .events
        .iter()
        .filter(|e| e.kind == EventKind::ToolResult && e.tool.as_deref() == Some("bash"))
        .collect();
    let codes: Vec<Option<i64>> = bash.iter().map(|e| e.exit_code).collect();
    assert_eq!(codes, [Some(0), Some(1), Some(0), Some(1)]);
    let cat = bash
        .iter()
        .find(|e| e.text.contains("missing.txt"))
        .expect("the cat result");
    assert!(cat.is_failure());
    // Copilot calls the tool run a success; the exit code says the command failed.
    assert_eq!(cat.is_error, Some(false));
    assert!(cat.duration_ms.is_some());
    // The create result names the file it wrote.
    let create = s
        .events
        .iter()
        .find(|e| e.kind == EventKind::ToolResult && e.tool.as_deref() == Some("create"))
        .unwrap();
    assert_eq!(
        create.data.as_ref().unwrap()["file_edits"][0]["path"],
        "/home/dev/new/work/proj-copilot/notes.txt"
    );
}

#[test]
fn the_inline_subagent_is_marked_and_takes_no_turn() {
    let s = parse(LONG);
    let marked: Vec<_> = s
        .events
        .iter()
        .filter(|e| e.data.as_ref().is_some_and(|d| d.get("agent_id").is_some()))
        .collect();
    assert!(!marked.is_empty());
    for e in &marked {
        assert_eq!(
            e.data.as_ref().unwrap()["agent_id"],
            "8d990b3b-f8c9-4784-ba98-2e5ac9a49588"
        );
        assert_eq!(e.data.as_ref().unwrap()["subagent"], "file-counter");
        assert_ne!(e.kind, EventKind::User);
    }
    let prompt = marked
        .iter()
        .find(|e| e.subtype.as_deref() == Some("subagent_prompt"))
        .expect("the subagent's prompt");
    assert!(prompt.text.contains("count the files"));
    // The subagent's own shell call is a real call with its result, in the delegating turn.
    let sub_call = marked
        .iter()
        .find(|e| e.kind == EventKind::ToolCall)
        .expect("subagent tool call");
    assert_eq!(sub_call.tool.as_deref(), Some("bash"));
    let task = s
        .events
        .iter()
        .find(|e| e.kind == EventKind::ToolCall && e.tool.as_deref() == Some("task"))
        .unwrap();
    assert_eq!(sub_call.turn, task.turn);
    assert!(s
        .events
        .iter()
        .any(|e| e.subtype.as_deref() == Some("subagent_end")));
}

#[test]
fn compaction_and_todos() {
    let s = parse(LONG);
    let c = s
        .events
        .iter()
        .find(|e| e.kind == EventKind::Compaction)
        .unwrap();
    assert!(c.text.starts_with("<analysis>"));
    let d = c.data.as_ref().unwrap();
    assert_eq!(d["preCompactionTokens"], 11272);
    assert_eq!(d["postCompactionTokens"], 10684);
    // "/compact" writes no user message: the compaction sits in the third prompt's turn.
    assert_eq!(c.turn, 3);
    let todos = s.events.last().unwrap();
    assert_eq!(todos.subtype.as_deref(), Some("todos"));
    assert_eq!(
        todos.text,
        "[done] List the files\n[in_progress] Write a summary"
    );
    assert!(s.header.sources.iter().any(|p| p.ends_with("session.db")));
    // Bookkeeping records stay out of the model's view.
    let resumes = s
        .events
        .iter()
        .filter(|e| e.subtype.as_deref() == Some("session_resume"))
        .count();
    assert_eq!(resumes, 4);
    assert!(s
        .events
        .iter()
        .filter(|e| e.subtype.as_deref() == Some("session_shutdown"))
        .all(|e| e.surface == Surface::LogOnly));
}

#[test]
fn short_session_has_the_cjk_prompt() {
    let s = parse(SHORT);
    assert!(s.warnings.is_empty(), "{:?}", s.warnings);
    assert_eq!(count(&s, EventKind::User), 1);
    assert_eq!(count(&s, EventKind::ToolCall), 1);
    assert_eq!(count(&s, EventKind::ToolResult), 1);
    assert!(s.events[..]
        .iter()
        .any(|e| e.kind == EventKind::User && e.text.contains("跨会话检索")));
    assert!(s.header.title.as_deref().unwrap().starts_with("请帮我检查"));
    // No session.db: no todos event, one source.
    assert_eq!(s.header.sources.len(), 1);
}

#[test]
fn tokens_match_ccusage() {
    // ccusage rows: (session, inputTokens, outputTokens, cacheReadTokens, cacheCreationTokens).
    for (id, input, output, cache_read, cache_write) in
        [(SHORT, 14825, 218, 10020, 0), (LONG, 84268, 827, 90864, 0)]
    {
        let u = usage(&parse(id));
        assert_eq!(
            (u.input, u.output, u.cache_read, u.cache_write),
            (input, output, cache_read, cache_write),
            "{id}"
        );
    }
    // Reasoning is reported apart (a part of output): 29 in the short session.
    assert_eq!(usage(&parse(SHORT)).reasoning, 29);
}

#[test]
fn every_usage_record_lands_on_its_assistant_message() {
    let s = parse(LONG);
    let carriers: Vec<_> = s.events.iter().filter(|e| e.usage.is_some()).collect();
    assert_eq!(carriers.len(), 14);
    assert!(carriers.iter().all(|e| matches!(
        e.kind,
        EventKind::Assistant | EventKind::ToolCall | EventKind::Thinking
    )));
}

#[test]
fn reading_changes_nothing() {
    // A writable copy (the corpus itself is read-only, where a write would just fail).
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join(LONG);
    copy(log(LONG).parent().unwrap(), &dir);
    let before = snapshot(&dir);
    let f = CopilotSource.detect(&dir.join("events.jsonl")).unwrap();
    let s = CopilotSource.parse(&f).unwrap();
    assert_eq!(count(&s, EventKind::User), 4);
    assert!(s
        .events
        .iter()
        .any(|e| e.subtype.as_deref() == Some("todos")));
    assert_eq!(
        snapshot(&dir),
        before,
        "bytes, mtimes and the file list unchanged"
    );
}

fn copy(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            copy(&p, &to.join(e.file_name()));
        } else {
            std::fs::copy(&p, to.join(e.file_name())).unwrap();
        }
    }
}

/// Every entry of `dir` (recursively) with its bytes and mtime.
fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>, std::time::SystemTime)> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        let m = e.metadata().unwrap();
        if m.is_dir() {
            out.extend(snapshot(&p));
        } else {
            out.push((p.clone(), std::fs::read(&p).unwrap(), m.modified().unwrap()));
        }
    }
    out.sort();
    out
}
