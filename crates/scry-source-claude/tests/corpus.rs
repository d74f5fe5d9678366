//! The provider on every Claude Code file of the corpus: nothing panics, and each real session
//! gives the numbers written down from its raw file.
//!
//! How the expected numbers were obtained (independently of this crate): a short Python script
//! over the raw JSONL (`json.loads` per line) counting
//! - prompts: `user` records with a string or text-block content, no `tool_result` block, not
//!   `isMeta` / `isCompactSummary`, no `origin.kind` other than human, no text starting with a
//!   harness wrapper (`<command-name>`, `<local-command-stdout>`, `<local-command-caveat>`,
//!   `Caveat: …`, `<system-reminder>`, `<task-notification>`, `[Request interrupted…`), and not a
//!   sidechain line inside a main file;
//! - calls / results / thinking: `tool_use` / `tool_result` / `thinking` blocks;
//! - compactions: `system` `compact_boundary` records plus `isCompactSummary` user records;
//! - tokens: assistant lines grouped by `message.id`, the last line's `usage` per id, summed;
//!   for 1.0.71 files the ids of the copied prefix (assistant lines without `requestId` up to the
//!   last one before the first line with a `requestId`) are left out.
//!
//! Titles and cwds were read off the files with `grep`.

mod common;

use common::*;
use scry_model::{EventKind, LineageKind, SessionKind, TitleSource, TokenUsage, WarningKind};
use scry_source::Source;
use scry_source_claude::ClaudeSource;

#[test]
fn every_corpus_file_parses_without_panic() {
    let dirs = [
        corpus().join("third-party/claude"),
        corpus().join("real/home/.claude"),
        corpus().join("real-older/claude-1.0.71"),
    ];
    let mut files = 0;
    let mut warnings = 0;
    for dir in dirs {
        for path in jsonl_files(&dir) {
            let s = parse(&path);
            files += 1;
            warnings += s.warnings.len();
            for (i, e) in s.events.iter().enumerate() {
                assert_eq!(e.seq as usize, i);
            }
            // The header scan agrees with the full parse on the identity fields.
            let h = ClaudeSource.scan_header(&source_file(&path)).expect("scan");
            assert_eq!(h.id, s.header.id, "{}", path.display());
            assert_eq!(h.cwd, s.header.cwd, "{}", path.display());
            assert_eq!(h.title, s.header.title, "{}", path.display());
            assert_eq!(h.title_source, s.header.title_source, "{}", path.display());
            assert_eq!(h.kind, s.header.kind, "{}", path.display());
            assert_eq!(h.parent, s.header.parent, "{}", path.display());
            // The cwd probe (Aider's project directories) reads up to the first cwd only.
            let probed = ClaudeSource.probe_cwd(&source_file(&path));
            assert_eq!(probed, s.header.cwd, "{}", path.display());
        }
    }
    // 7 third-party + 2 real + 5 older files.
    assert_eq!(files, 14);
    // Warnings seen: third-party only (unknown `tool_use`/`tool_result` record types, records
    // without type, results without a call id). The real files are warning-free.
    assert!(warnings > 0);
}

#[test]
fn real_files_have_no_warnings() {
    for path in jsonl_files(&corpus().join("real/home/.claude"))
        .into_iter()
        .chain(jsonl_files(&corpus().join("real-older/claude-1.0.71")))
    {
        let s = parse(&path);
        assert!(
            s.warnings.is_empty(),
            "{}: {:?}",
            path.display(),
            s.warnings
        );
    }
}

struct Expect {
    file: &'static str,
    prompts: usize,
    calls: usize,
    results: usize,
    thinking: usize,
    compaction: usize,
    title: Option<&'static str>,
    cwd: Option<&'static str>,
    tokens: TokenUsage,
}

fn tokens(input: u64, output: u64, cache_read: u64, cache_write: u64) -> TokenUsage {
    TokenUsage {
        input,
        output,
        cache_read,
        cache_write,
        reasoning: 0,
    }
}

fn check(dir: &std::path::Path, x: &Expect) {
    let s = parse(&dir.join(x.file));
    let f = x.file;
    assert_eq!(count(&s, EventKind::User), x.prompts, "{f} prompts");
    assert_eq!(count(&s, EventKind::ToolCall), x.calls, "{f} calls");
    assert_eq!(count(&s, EventKind::ToolResult), x.results, "{f} results");
    assert_eq!(count(&s, EventKind::Thinking), x.thinking, "{f} thinking");
    assert_eq!(
        count(&s, EventKind::Compaction),
        x.compaction,
        "{f} compactions"
    );
    assert_eq!(s.header.title.as_deref(), x.title, "{f} title");
    assert_eq!(s.header.cwd.as_deref(), x.cwd, "{f} cwd");
    assert_eq!(usage(&s), x.tokens, "{f} tokens");
    // Every result is paired with a call of this file.
    for e in s.events.iter().filter(|e| e.kind == EventKind::ToolResult) {
        assert!(e.tool.is_some(), "{f}: unpaired {:?}", e.call_id);
        assert!(e.data.as_ref().and_then(|d| d.get("unconfirmed")).is_none());
    }
    // Exactly one event carries each message's usage.
    let with_usage = s.events.iter().filter(|e| e.usage.is_some()).count();
    let tool_calls_and_texts = s
        .events
        .iter()
        .filter(|e| e.usage.is_some() && e.model.is_some())
        .count();
    assert_eq!(with_usage, tool_calls_and_texts);
}

const FIRST: &str = "Please inspect this project and then create a notes file.";

#[test]
fn real_main_session() {
    let x = Expect {
        file: "029942d1-8e5d-4155-96e8-b9fe03dadf8d.jsonl",
        prompts: 4,
        calls: 8,
        results: 8,
        thinking: 3,
        compaction: 2,
        title: Some(FIRST),
        cwd: Some("/home/dev/work/proj-claude"),
        tokens: tokens(8730, 652, 148183, 17427),
    };
    check(&real_project(), &x);
    let s = parse(&real_project().join(x.file));
    assert_eq!(s.header.title_source, Some(TitleSource::FirstPrompt));
    assert_eq!(s.header.git_branch.as_deref(), Some("master"));
    assert_eq!(s.header.agent_version.as_deref(), Some("2.1.332"));
    assert_eq!(s.header.models, vec!["claude-opus-5-5".to_string()]);
    // 13 usage-bearing messages: 17 assistant lines with 13 distinct message ids (python).
    assert_eq!(s.events.iter().filter(|e| e.usage.is_some()).count(), 13);
    // Two failing Bash calls, flagged by the agent (no exit code recorded structurally).
    let failed: Vec<_> = s.events.iter().filter(|e| e.is_failure()).collect();
    assert_eq!(failed.len(), 2);
    assert!(failed
        .iter()
        .all(|e| e.tool.as_deref() == Some("Bash") && e.exit_code.is_none()));
    // The compaction pair, in order, and the /compact wrappers are not prompts.
    let comp: Vec<_> = s
        .events
        .iter()
        .filter(|e| e.kind == EventKind::Compaction)
        .collect();
    assert_eq!(comp[0].subtype.as_deref(), Some("compact_boundary"));
    assert_eq!(comp[1].subtype.as_deref(), Some("compact_summary"));
    assert!(comp[0].data.as_ref().unwrap()["compactMetadata"]["preTokens"] == 14398);
    let subtypes: Vec<_> = s
        .events
        .iter()
        .filter_map(|e| e.subtype.as_deref())
        .collect();
    for want in ["command", "caveat", "local_command", "task_notification"] {
        assert!(subtypes.contains(&want), "{want}");
    }
    // Structured Agent result names the subagent.
    let agent = s
        .events
        .iter()
        .find(|e| e.kind == EventKind::ToolResult && e.tool.as_deref() == Some("Agent"))
        .unwrap();
    assert_eq!(
        agent.data.as_ref().unwrap()["result"]["agentId"],
        "a9975201ec1be8441"
    );
    assert_eq!(s.turn_count(), 4);
}

#[test]
fn real_subagent_session() {
    let dir = real_project().join("029942d1-8e5d-4155-96e8-b9fe03dadf8d/subagents");
    let x = Expect {
        file: "agent-a9975201ec1be8441.jsonl",
        prompts: 1,
        calls: 1,
        results: 1,
        thinking: 1,
        compaction: 0,
        // No title record: the .meta.json description names the task.
        title: Some("Count project files"),
        cwd: Some("/home/dev/work/proj-claude"),
        tokens: tokens(772, 121, 13090, 1539),
    };
    check(&dir, &x);
    let s = parse(&dir.join(x.file));
    assert_eq!(s.header.id, "a9975201ec1be8441");
    assert_eq!(s.header.kind, SessionKind::Subagent);
    assert_eq!(
        s.header.parent.as_deref(),
        Some("029942d1-8e5d-4155-96e8-b9fe03dadf8d")
    );
    assert_eq!(s.header.lineage[0].kind, LineageKind::SubagentOf);
    assert_eq!(s.header.agent_name.as_deref(), Some("general-purpose"));
    assert_eq!(s.header.title_source, Some(TitleSource::Metadata));
    assert_eq!(s.header.sources.len(), 2, "meta.json is a related source");
}

#[test]
fn older_first_run() {
    check(
        &older_project(),
        &Expect {
            file: "99a6b38a-d635-4047-9774-b27df29d37b9.jsonl",
            prompts: 1,
            calls: 2,
            results: 2,
            thinking: 1,
            compaction: 0,
            title: Some(FIRST),
            cwd: Some("/home/dev/older/work/proj-claude-1.0.71"),
            tokens: tokens(2839, 186, 24349, 15500),
        },
    );
}

#[test]
fn older_resume_with_summary_and_copied_history() {
    let x = Expect {
        file: "11e384b6-52f2-4cce-bfa4-03eddaa774ff.jsonl",
        prompts: 2,
        calls: 5,
        results: 5,
        thinking: 2,
        compaction: 0,
        // The summary's leafUuid points into 99a6b38a, not this file: not this file's title.
        title: Some(FIRST),
        cwd: Some("/home/dev/older/work/proj-claude-1.0.71"),
        tokens: tokens(2943, 229, 49955, 5875),
    };
    check(&older_project(), &x);
    let s = parse(&older_project().join(x.file));
    let r = &s.header.lineage[0];
    assert_eq!(r.kind, LineageKind::ResumedFrom);
    assert_eq!(r.target, "99a6b38a-d635-4047-9774-b27df29d37b9");
    assert_eq!(r.evidence, "summary.leafUuid");
    // Lines 2–9 are the copy of run 1 (8 records → 8 events), all marked.
    let copied = s
        .events
        .iter()
        .filter(|e| e.data.as_ref().is_some_and(|d| d.get("copied").is_some()))
        .count();
    assert_eq!(copied, 8);
    // The copies' usage is exactly run 1's total (kept aside, not counted).
    assert_eq!(copied_usage(&s), tokens(2839, 186, 24349, 15500));
    // The failing `cat` is flagged; its structured result is the error string.
    let cat = s.events.iter().find(|e| e.is_failure()).unwrap();
    assert_eq!(
        cat.data.as_ref().unwrap()["result"],
        "Error: cat: missing.txt: No such file or directory"
    );
}

#[test]
fn older_resume_with_inline_sidechain() {
    let x = Expect {
        file: "355f223c-22fe-4e50-b72d-5a34fc88f56e.jsonl",
        // Copied prompts of runs 1 and 2 still are prompts (marked copied), plus run 3's.
        prompts: 3,
        calls: 7,
        results: 7,
        thinking: 4,
        compaction: 0,
        title: Some(FIRST),
        cwd: Some("/home/dev/older/work/proj-claude-1.0.71"),
        tokens: tokens(3069, 262, 34535, 13359),
    };
    check(&older_project(), &x);
    let s = parse(&older_project().join(x.file));
    assert_eq!(
        s.header.lineage[0].target,
        "11e384b6-52f2-4cce-bfa4-03eddaa774ff"
    );
    assert_eq!(s.header.lineage[0].evidence, "message.id");
    // 5 inline sidechain lines → 5 events, the task prompt is not a human prompt.
    let side: Vec<_> = s
        .events
        .iter()
        .filter(|e| {
            e.data
                .as_ref()
                .is_some_and(|d| d.get("sidechain").is_some())
        })
        .collect();
    assert_eq!(side.len(), 5);
    assert_eq!(side[0].subtype.as_deref(), Some("sidechain_prompt"));
    assert_eq!(
        copied_usage(&s),
        tokens(2943 + 2839, 229 + 186, 49955 + 24349, 5875 + 15500)
    );
}

#[test]
fn older_summary_only_file() {
    let s = parse(&older_project().join("5e84d485-c51b-4c74-988f-8aba3bc73097.jsonl"));
    assert_eq!(count(&s, EventKind::User), 0);
    assert!(s.total_usage().is_none());
    assert_eq!(
        s.header.title, None,
        "the summaries describe 355f223c, not this file"
    );
    assert_eq!(
        s.header.lineage[0].target,
        "355f223c-22fe-4e50-b72d-5a34fc88f56e"
    );
    assert!(s.warnings.is_empty());
}

#[test]
fn older_compaction_without_boundary() {
    let x = Expect {
        file: "99edd212-5f9a-41ba-b1f8-ae69e2aae44a.jsonl",
        prompts: 1,
        calls: 2,
        results: 2,
        thinking: 0,
        compaction: 1,
        title: Some("Make a plan and run a command that fails."),
        cwd: Some("/home/dev/older/work/proj-claude-1.0.71"),
        tokens: tokens(2893, 122, 24734, 15833),
    };
    check(&older_project(), &x);
    let s = parse(&older_project().join(x.file));
    let c = &s.events[0];
    assert_eq!(c.kind, EventKind::Compaction);
    assert_eq!(c.data.as_ref().unwrap()["without_boundary"], true);
    assert!(c.text.starts_with("This session is being continued"));
    // Caveat, /compact and its stdout sit in the preamble, not in a turn.
    assert!(s.events[..4].iter().all(|e| e.turn == 0));
    assert!(
        s.header.lineage.is_empty(),
        "no field names the compacted session"
    );
}

#[test]
fn older_totals_never_double_count_copies() {
    // Summed over the five files, each message id is counted once: the sum equals the sum of
    // the per-run totals of the python count (runs 1, 2, 3, 5).
    let total: TokenUsage = jsonl_files(&older_project())
        .iter()
        .map(|p| usage(&parse(p)))
        .sum();
    assert_eq!(
        total,
        tokens(
            2839 + 2943 + 3069 + 2893,
            186 + 229 + 262 + 122,
            24349 + 49955 + 34535 + 24734,
            15500 + 5875 + 13359 + 15833
        )
    );
}

#[test]
fn third_party_titles_and_unknowns() {
    let dir = corpus().join("third-party/claude");
    let s = parse(&dir.join("agent-sessions_small_many-record-types.jsonl"));
    // Latest custom-title wins over ai-title and summary.
    assert_eq!(s.header.title.as_deref(), Some("Stage0 small fixture"));
    assert_eq!(s.header.title_source, Some(TitleSource::Custom));
    assert_eq!(s.header.agent_name.as_deref(), Some("Claude Code"));
    let s = parse(&dir.join("agent-sessions_schema_drift.jsonl"));
    let unknown: Vec<_> = s
        .warnings
        .iter()
        .filter(|w| w.kind == WarningKind::UnknownRecord)
        .collect();
    assert_eq!(
        unknown.len(),
        2,
        "one warning per unknown type: tool_use, tool_result"
    );
    let s = parse(&dir.join("claude-code-log_edge_cases_2025-06.jsonl"));
    assert_eq!(
        s.header.title_source,
        Some(TitleSource::Summary),
        "leafUuid edge_011 is in the file"
    );
}

#[test]
fn real_bookkeeping_records_are_counted() {
    // Record types per `type` (and attachment.type) from the raw file with python's Counter.
    let path = real_project().join("029942d1-8e5d-4155-96e8-b9fe03dadf8d.jsonl");
    let mut sink = scry_source::CollectSink::default();
    let mut out = scry_source::Emitter::new(&mut sink);
    let (_, stats) = ClaudeSource
        .parse_with_stats(&source_file(&path), &mut out)
        .unwrap();
    let want = [
        ("api-request", 13),
        ("api-request-blob", 9),
        ("api-request-shape", 2),
        ("atis-latch", 7),
        ("attachment:prompt_snapshot", 4),
        ("cost-state", 5),
        ("last-prompt", 8),
        ("queue-operation", 12),
        ("tools-used", 6),
    ];
    let got: Vec<(&str, u64)> = stats
        .counted
        .iter()
        .map(|(k, v)| (k.as_str(), *v))
        .collect();
    assert_eq!(got, want);
    assert!(stats.unknown.is_empty());
    assert_eq!(stats.records, 124, "every line of the file");
}
