//! The Codex reader against the shared corpus: every Codex file parses without panic, and the
//! six real rollouts (three 0.171.0 files, two TypeScript-era documents, one bare-era file)
//! match numbers written down from the raw files.
//!
//! How the expected numbers were obtained (never from this parser's output):
//! - real 0.171.0 files: a Python script over the raw JSON lines — human prompts = the
//!   `event_msg item_completed` `UserMessage` items (Codex's own record of what was typed);
//!   tool calls = `response_item` `function_call` + `custom_tool_call`; results = `*_output`
//!   items, paired when their `call_id` is a call's; failing commands = `item_completed`
//!   `CommandExecution` with `exit_code != 0`; thinking = `reasoning` items with a non-empty
//!   summary; compactions = `compacted` lines; tokens = Σ `last_token_usage` over `token_count`
//!   events whose `total_token_usage` changed (input − cached, cached, output, reasoning), which
//!   also equals the file's final `total_token_usage` and ccusage 20.0.24 (see `ccusage.rs`).
//! - TypeScript-era documents: `json.load` of the file — prompts = `role:user` messages (they
//!   agree with `history.json`), calls = `local_shell_call`, failures = outputs whose JSON
//!   `metadata.exit_code != 0`, compaction = the `compact-<ms>` message.
//! - bare 0.23.0: the same over its lines; prompts = user messages not starting with
//!   `<environment_context>`; failures from the `{"output","metadata":{exit_code}}` strings.

use std::path::{Path, PathBuf};

use scry_model::{EventKind, LineageKind, Session, SessionKind, TitleSource, WarningKind};
use scry_source::{Source, SourceFile};
use scry_source_codex::CodexSource;
use scry_testkit::corpus;

fn real(name: &str) -> PathBuf {
    corpus()
        .join("real/home/.codex/sessions/2026/11/30")
        .join(name)
}

fn parse(path: &Path) -> Session {
    let src = CodexSource;
    let file = src
        .detect(path)
        .unwrap_or_else(|| panic!("not detected: {}", path.display()));
    src.parse(&file).expect("parse")
}

fn texts(s: &Session, kind: EventKind) -> Vec<String> {
    s.events
        .iter()
        .filter(|e| e.kind == kind)
        .map(|e| e.text.clone())
        .collect()
}

fn count(s: &Session, kind: EventKind) -> usize {
    s.events.iter().filter(|e| e.kind == kind).count()
}

/// Exit codes of failing results, by call id.
fn failures(s: &Session) -> Vec<(String, i64)> {
    let mut v: Vec<(String, i64)> = s
        .events
        .iter()
        .filter(|e| e.kind == EventKind::ToolResult && e.is_failure())
        .map(|e| {
            (
                e.call_id.clone().unwrap_or_default(),
                e.exit_code.unwrap_or(-999),
            )
        })
        .collect();
    v.sort();
    v
}

/// Every result is paired with a call of the same id, which precedes it.
fn assert_paired(s: &Session) {
    for r in s.events.iter().filter(|e| e.kind == EventKind::ToolResult) {
        let call = s
            .events
            .iter()
            .find(|c| c.kind == EventKind::ToolCall && c.call_id == r.call_id)
            .unwrap_or_else(|| panic!("result {:?} has no call", r.call_id));
        assert!(call.seq < r.seq);
        assert_eq!(call.tool, r.tool);
        assert!(r.data.is_none(), "paired results are not unconfirmed");
    }
}

#[test]
fn every_codex_corpus_file_parses_without_panic() {
    let mut files: Vec<PathBuf> = Vec::new();
    for dir in [
        corpus().join("third-party/codex"),
        corpus().join("real/home/.codex"),
        corpus().join("real-older"),
    ] {
        collect(&dir, &mut files);
    }
    let root = corpus();
    files.retain(|p| {
        // Judge the path inside the corpus only (the checkout's own path may say "codex").
        let s = p
            .strip_prefix(&root)
            .unwrap_or(p)
            .to_string_lossy()
            .into_owned();
        (s.contains("codex/") || s.contains(".codex/") || s.starts_with("codex-"))
            && (s.ends_with(".jsonl") || s.ends_with(".jsonl.zst") || s.contains("/rollout-"))
    });
    assert_eq!(files.len(), 11, "{files:#?}");
    let src = CodexSource;
    let mut warnings = 0;
    let mut events = 0;
    let mut probes = 0;
    for p in &files {
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let id = name.trim_end_matches(".jsonl").to_string();
        let file = src
            .detect(p)
            .unwrap_or_else(|| SourceFile::new(scry_model::ProviderId::Codex, id, p.clone()));
        let s = src.parse(&file).expect("readable");
        let h = src.scan_header(&file).expect("header");
        assert_eq!(h.id, s.header.id, "{}", p.display());
        assert_eq!(h.cwd, s.header.cwd, "{}", p.display());
        assert_eq!(h.kind, s.header.kind, "{}", p.display());
        assert_eq!(h.parent, s.header.parent, "{}", p.display());
        assert_eq!(h.title, s.header.title, "{}", p.display());
        assert_eq!(h.created, s.header.created, "{}", p.display());
        assert_eq!(h.updated, s.header.updated, "{}", p.display());
        // The cwd probe (Aider's project directories) names the parse's cwd or nothing.
        let probed = src.probe_cwd(&file);
        assert!(
            probed.is_none() || probed == s.header.cwd,
            "{}",
            p.display()
        );
        probes += usize::from(probed.is_some());
        for (i, e) in s.events.iter().enumerate() {
            assert_eq!(e.seq as usize, i);
        }
        events += s.events.len();
        warnings += s.warnings.len();
    }
    // Warnings come only from the third-party fixtures: 2 unknown item types in
    // `agent-sessions_large` (tool_call, tool_result), 1 unpaired trimmed output in the
    // many-types catalogue, 2 in `schema_drift` (2 lines without a type, one unknown bare
    // item type `function_result`; its `world_state` line is known).
    assert_eq!(warnings, 5, "warnings counted");
    assert!(
        probes >= 5,
        "the wrapped-era rollouts name their cwd at once: {probes}"
    );
    assert!(events > 150, "{events}");
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            collect(&p, out);
        } else {
            out.push(p);
        }
    }
}

#[test]
fn real_main_exec_session_with_compaction() {
    let s = parse(&real(
        "rollout-2026-11-30T14-52-34-01a22cf1-805d-7161-bbbc-a2414caa5633.jsonl",
    ));
    let h = &s.header;
    assert_eq!(h.id, "01a22cf1-805d-7161-bbbc-a2414caa5633");
    assert_eq!(h.cwd.as_deref(), Some("/home/dev/work/proj-codex"));
    assert_eq!(
        h.kind,
        SessionKind::Exec,
        "originator codex_exec, source exec"
    );
    assert_eq!(h.parent, None);
    assert_eq!(h.agent_version.as_deref(), Some("0.171.0"));
    assert_eq!(h.git_branch.as_deref(), Some("master"));
    assert_eq!(
        h.git_commit.as_deref(),
        Some("43f247759e8a825fc20b1db70f56943700243863")
    );
    assert_eq!(h.models, vec!["gpt-5.5-codex"]);
    assert_eq!(
        h.title.as_deref(),
        Some("Please inspect this project and then create a notes file.")
    );
    assert_eq!(h.title_source, Some(TitleSource::FirstPrompt));
    assert_eq!(
        texts(&s, EventKind::User),
        vec![
            "Please inspect this project and then create a notes file.",
            "Now modify the notes file so the first line says hello world, then show missing.txt.",
            "Make a plan and run a command that fails.",
            "Thanks, that is all for now.",
        ]
    );
    assert_eq!(s.turn_count(), 4);
    assert_eq!(count(&s, EventKind::ToolCall), 7);
    assert_eq!(count(&s, EventKind::ToolResult), 7);
    assert_paired(&s);
    let tools: Vec<_> = s
        .events
        .iter()
        .filter(|e| e.kind == EventKind::ToolCall)
        .filter_map(|e| e.tool.clone())
        .collect();
    assert_eq!(
        tools,
        [
            "exec_command",
            "apply_patch",
            "exec_command",
            "apply_patch",
            "exec_command",
            "exec_command",
            "exec_command"
        ]
    );
    // `exec_command` arguments are a JSON string, decoded; apply_patch input is raw text.
    let first = s
        .events
        .iter()
        .find(|e| e.kind == EventKind::ToolCall)
        .unwrap();
    assert_eq!(first.args.as_ref().unwrap()["cmd"], "ls -la");
    let patch = s
        .events
        .iter()
        .find(|e| e.tool.as_deref() == Some("apply_patch"))
        .unwrap();
    assert!(patch
        .args
        .as_ref()
        .unwrap()
        .as_str()
        .unwrap()
        .starts_with("*** Begin Patch"));
    assert_eq!(
        failures(&s),
        vec![
            ("call_4befd0350e414db4b0a2de69".to_string(), 1),
            ("call_caf09b486feb45f7a48886f6".to_string(), 1)
        ]
    );
    assert_eq!(count(&s, EventKind::Thinking), 2);
    // 6 assistant messages, one of them the compaction request's output (metadata
    // `compaction_output: true`), which is Meta, not dialogue.
    assert_eq!(count(&s, EventKind::Assistant), 5);
    assert_eq!(count(&s, EventKind::Compaction), 1);
    let comp = s
        .events
        .iter()
        .find(|e| e.kind == EventKind::Compaction)
        .unwrap();
    assert!(comp.text.contains("<summary>"));
    // `event_msg context_compacted` / `ContextCompaction` make no second compaction.
    let u = s.total_usage().unwrap();
    assert_eq!(
        (u.input, u.cache_read, u.output, u.reasoning, u.cache_write),
        (24648, 98583, 1042, 169, 0)
    );
    // 12 distinct requests (12 `token_usage_record`s), each usage on exactly one event.
    assert_eq!(s.events.iter().filter(|e| e.usage.is_some()).count(), 12);
    assert!(s.warnings.is_empty(), "{:?}", s.warnings);
    // task_started / task_complete are kept for turn status: 4 of each.
    let sub = |n: &str| {
        s.events
            .iter()
            .filter(|e| e.subtype.as_deref() == Some(n))
            .count()
    };
    assert_eq!((sub("task_started"), sub("task_complete")), (4, 4));
    assert_eq!(sub("environment_context"), 1);
}

#[test]
fn real_parent_of_a_subagent() {
    let s = parse(&real(
        "rollout-2026-11-30T14-52-36-01a22cf1-88a4-7de1-a508-335da749c9f9.jsonl",
    ));
    let h = &s.header;
    assert_eq!(h.kind, SessionKind::Exec);
    assert_eq!(h.parent, None);
    assert_eq!(
        texts(&s, EventKind::User),
        vec!["Please delegate counting the project files to a subagent."]
    );
    let tools: Vec<_> = s.events.iter().filter_map(|e| e.tool.clone()).collect();
    assert_eq!(
        tools,
        ["spawn_agent", "spawn_agent", "wait_agent", "wait_agent"]
    );
    assert_paired(&s);
    assert!(failures(&s).is_empty());
    // The subagent's FINAL_ANSWER arrives as a `response_item agent_message`: not a prompt.
    assert_eq!(
        s.events
            .iter()
            .filter(|e| e.subtype.as_deref() == Some("inter_agent_message"))
            .count(),
        1
    );
    assert_eq!(count(&s, EventKind::Thinking), 1);
    assert_eq!(count(&s, EventKind::Assistant), 1);
    let u = s.total_usage().unwrap();
    assert_eq!(
        (u.input, u.cache_read, u.output, u.reasoning),
        (7185, 28737, 266, 63)
    );
}

#[test]
fn real_subagent_rollout() {
    let s = parse(&real(
        "rollout-2026-11-30T14-52-36-01a22cf1-892d-7182-af0e-31b8d4237fb3.jsonl",
    ));
    let h = &s.header;
    // session_meta.id is the child; session_meta.session_id is the parent's (not the identity).
    assert_eq!(h.id, "01a22cf1-892d-7182-af0e-31b8d4237fb3");
    assert_eq!(h.kind, SessionKind::Subagent);
    assert_eq!(
        h.parent.as_deref(),
        Some("01a22cf1-88a4-7de1-a508-335da749c9f9")
    );
    assert_eq!(h.lineage.len(), 1);
    assert_eq!(h.lineage[0].kind, LineageKind::SubagentOf);
    assert_eq!(
        h.lineage[0].evidence,
        "session_meta.source.subagent.thread_spawn.parent_thread_id"
    );
    assert_eq!(h.agent_name.as_deref(), Some("Gauss"));
    assert_eq!(h.title.as_deref(), Some("/root/count_files"));
    assert_eq!(h.title_source, Some(TitleSource::Metadata));
    assert_eq!(h.cwd.as_deref(), Some("/home/dev/work/proj-codex"));
    // No human typed here (0 `UserMessage` items): the parent's NEW_TASK message is the
    // subagent's task prompt, a `User` with subtype `agent_task`.
    let users: Vec<_> = s
        .events
        .iter()
        .filter(|e| e.kind == EventKind::User)
        .collect();
    assert_eq!(users.len(), 1);
    assert_eq!(users[0].subtype.as_deref(), Some("agent_task"));
    assert!(
        !users[0].text.contains("Please count"),
        "encrypted_content is never decoded"
    );
    assert_eq!(count(&s, EventKind::ToolCall), 1);
    assert_eq!(count(&s, EventKind::ToolResult), 1);
    assert_paired(&s);
    let r = s
        .events
        .iter()
        .find(|e| e.kind == EventKind::ToolResult)
        .unwrap();
    assert_eq!(r.exit_code, Some(0));
    assert_eq!(count(&s, EventKind::Thinking), 1);
    let u = s.total_usage().unwrap();
    assert_eq!(
        (u.input, u.cache_read, u.output, u.reasoning),
        (4151, 16599, 181, 70)
    );
}

fn older(rel: &str) -> PathBuf {
    corpus().join("real-older").join(rel)
}

#[test]
fn typescript_era_session_without_compaction() {
    let s = parse(&older(
        "codex-0.1.2505291658/home/.codex/sessions/rollout-2026-11-30-418836f6-a5f6-43de-9650-b0fede8a3574.json",
    ));
    let h = &s.header;
    assert_eq!(h.id, "418836f6-a5f6-43de-9650-b0fede8a3574");
    assert_eq!(h.cwd, None, "the TypeScript era records no cwd");
    assert_eq!(h.kind, SessionKind::Main);
    assert!(h.models.is_empty());
    assert_eq!(
        h.created.map(|t| t.to_string()).as_deref(),
        Some("2026-11-30T15:34:53.9Z")
    );
    assert_eq!(
        texts(&s, EventKind::User),
        vec![
            "Please inspect this project and then create a notes file.",
            "Now modify the notes file so the first line says hello world, then show missing.txt.",
            "Please delegate counting the project files to a subagent.",
            "Make a plan and run a command that fails.",
        ]
    );
    assert_eq!(count(&s, EventKind::ToolCall), 8);
    assert_eq!(count(&s, EventKind::ToolResult), 8);
    assert_paired(&s);
    assert_eq!(
        failures(&s),
        vec![
            ("call_894ecb087e034500be80842e".to_string(), 1),
            ("call_bc9c37b46e9442a18118efef".to_string(), 1)
        ]
    );
    assert_eq!(count(&s, EventKind::Thinking), 3);
    assert_eq!(count(&s, EventKind::Assistant), 5);
    assert_eq!(count(&s, EventKind::Compaction), 0);
    assert_eq!(s.total_usage(), None, "no usage recorded in this era");
    // Each item points at its exact bytes in the document.
    let bytes = std::fs::read(&s.header.sources[0]).unwrap();
    let e = &s.events[0];
    let raw = &bytes[e.raw.offset as usize..(e.raw.offset + e.raw.len) as usize];
    assert!(raw.starts_with(b"{") && raw.ends_with(b"}"));
    assert_eq!(e.raw.line, 1);
}

#[test]
fn typescript_era_compact_leaves_a_summary_message() {
    let s = parse(&older(
        "codex-0.1.2505291658/home/.codex/sessions/rollout-2026-11-30-cfe1cd20-12ff-4528-b054-072fcba106db.json",
    ));
    assert_eq!(s.events[0].kind, EventKind::Compaction);
    assert!(s.events[0].text.contains("<summary>"));
    assert_eq!(s.events[0].locator.as_str(), "id:compact-1796052859648");
    assert_eq!(
        texts(&s, EventKind::User),
        vec!["Make a plan and run a command that fails."]
    );
    assert_eq!(count(&s, EventKind::ToolCall), 2);
    assert_paired(&s);
    assert_eq!(
        failures(&s),
        vec![("call_67077eddfd2145f8ad95c923".to_string(), 1)]
    );
    let call = s
        .events
        .iter()
        .find(|e| e.kind == EventKind::ToolCall)
        .unwrap();
    assert_eq!(call.tool.as_deref(), Some("local_shell"));
    assert_eq!(call.args.as_ref().unwrap()["command"][2], "echo planning");
    assert_eq!(
        s.header.title.as_deref(),
        Some("Make a plan and run a command that fails.")
    );
}

#[test]
fn bare_era_session() {
    let s = parse(&older(
        "codex-0.23.0/home/.codex/sessions/2026/11/30/rollout-2026-11-30T15-49-10-60e40a92-cf66-4f4c-82fd-dba660dd934f.jsonl",
    ));
    let h = &s.header;
    assert_eq!(h.id, "60e40a92-cf66-4f4c-82fd-dba660dd934f");
    // Only from the `Current working directory:` line of the environment context.
    assert_eq!(
        h.cwd.as_deref(),
        Some("/home/dev/older/work/proj-codex-0.23.0")
    );
    assert_eq!(h.git_branch.as_deref(), Some("master"));
    assert_eq!(
        h.git_commit.as_deref(),
        Some("dbe5294e08ce868bc0ca1db35b8dd8d0b92e48f3")
    );
    assert_eq!(h.kind, SessionKind::Main);
    assert_eq!(
        texts(&s, EventKind::User),
        vec![
            "Please inspect this project and then create a notes file.",
            "Now modify the notes file so the first line says hello world, then show missing.txt.",
            "Please delegate counting the project files to a subagent.",
            "Make a plan and run a command that fails.",
        ]
    );
    assert_eq!(
        s.events
            .iter()
            .filter(|e| e.subtype.as_deref() == Some("environment_context"))
            .count(),
        4
    );
    assert_eq!(count(&s, EventKind::ToolCall), 8);
    assert_eq!(count(&s, EventKind::ToolResult), 8);
    assert_paired(&s);
    assert_eq!(
        failures(&s),
        vec![
            ("call_c5977e0e595146359c505a4e".to_string(), 1),
            ("call_e7a912c817194cefa2edc74b".to_string(), 1)
        ]
    );
    assert_eq!(count(&s, EventKind::Thinking), 3);
    assert_eq!(count(&s, EventKind::Assistant), 5);
    assert_eq!(s.total_usage(), None);
    // No timestamps after line 1; the session time comes from line 1.
    assert!(s.events.iter().all(|e| e.time.is_none()));
    assert_eq!(
        h.created.map(|t| t.to_string()).as_deref(),
        Some("2026-11-30T15:49:10.115Z")
    );
    assert!(
        s.warnings.is_empty(),
        "32 state lines are known: {:?}",
        s.warnings
    );
}

#[test]
fn third_party_fixtures() {
    let tp = corpus().join("third-party/codex");
    // 0.53: `info: null` skipped, the error event is a System event.
    let s = parse(&tp.join("agent-sessions_codex_053_rate_limit.jsonl"));
    let u = s.total_usage().unwrap();
    assert_eq!(
        (u.input, u.cache_read, u.output),
        (12091 - 10880, 10880, 182)
    );
    assert_eq!(count(&s, EventKind::System), 1);
    // 0.106: the `user_message` mirror before the response item is not a second prompt.
    let s = parse(&tp.join("agent-sessions_large.jsonl"));
    assert_eq!(texts(&s, EventKind::User)[0], "Start");
    assert_eq!(count(&s, EventKind::User), 6);
    assert!(s
        .warnings
        .iter()
        .all(|w| w.kind == WarningKind::UnknownRecord));
    // 0.77: AGENTS.md and environment context are Meta; one prompt.
    let s = parse(&tp.join("simonw_sample_codex_session_v0.77.jsonl"));
    assert_eq!(count(&s, EventKind::User), 1);
    assert_eq!(s.events[0].subtype.as_deref(), Some("agents_md"));
    assert_eq!(s.header.models, vec!["gpt-5.2-codex"]);
}
