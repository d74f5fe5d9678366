//! Commands, failures and files of the real Claude Code and Codex sessions, written down from
//! the raw files (python over the JSONL: `tool_use` / `function_call` / `custom_tool_call`
//! records and their results, see each test's comment), not from this crate's output.

use scry_facts::shell::WriteOp;
use scry_facts::{Facts, FileGroup, JobStatus, Outcome};

use super::sessions::session;

fn cmds(f: &Facts) -> Vec<(&str, Outcome, Option<i64>)> {
    f.commands
        .iter()
        .map(|c| (c.command.as_str(), c.outcome, c.exit_code))
        .collect()
}

fn files(f: &Facts) -> Vec<(&str, WriteOp, FileGroup, &str)> {
    f.files
        .writes
        .iter()
        .map(|w| {
            (
                w.display.as_str(),
                w.op,
                w.group,
                w.origin.extractor.as_str(),
            )
        })
        .collect()
}

/// claude 029942d1…jsonl. From the raw file: `tool_use` blocks with name Bash at lines 22, 49,
/// 109, 116 (`ls -la`, `cat missing.txt`, `echo planning`, `false`); their `tool_result`s at
/// lines 25, 50, 113, 117 have `is_error` false, true, false, true and no exit code field.
/// Write (line 29) and Edit (line 46) of /home/dev/work/proj-claude/notes.txt, both answered
/// without `is_error`. The Agent call (line 62) was answered `isAsync: true`, agentId
/// a9975201ec1be8441, and line 68 is its `<task-notification>` with `<status>completed`.
#[test]
fn real_claude_session() {
    let s = session("029942d1-8e5d-4155-96e8-b9fe03dadf8d.jsonl");
    let f = Facts::of(&s);
    assert_eq!(
        cmds(&f),
        vec![
            ("ls -la", Outcome::Succeeded, None),
            ("cat missing.txt", Outcome::Failed, None),
            ("echo planning", Outcome::Succeeded, None),
            ("false", Outcome::Failed, None),
        ]
    );
    let failed: Vec<Option<&str>> = f.failures.iter().map(|x| x.command.as_deref()).collect();
    assert_eq!(failed, vec![Some("cat missing.txt"), Some("false")]);
    assert!(f.failures.iter().all(|x| !x.fixed_later()));
    assert!(f.failures[0]
        .output
        .text
        .contains("No such file or directory"));
    assert_eq!(
        files(&f),
        vec![
            (
                "notes.txt",
                WriteOp::Write,
                FileGroup::Project,
                "tool:Write"
            ),
            ("notes.txt", WriteOp::Edit, FileGroup::Project, "tool:Edit"),
        ]
    );
    assert_eq!(f.files.files().len(), 1);
    assert_eq!(f.jobs.len(), 1);
    assert_eq!(f.jobs[0].id.as_deref(), Some("a9975201ec1be8441"));
    assert_eq!(f.jobs[0].status, JobStatus::Completed);
    assert_eq!(
        f.jobs[0].receipt_extractor.as_deref(),
        Some("receipt:task-notification")
    );
}

/// The Claude subagent file: one Bash `tool_use` (line 15, `ls -1 | wc -l`) answered with
/// `is_error: false` (line 16); nothing written.
#[test]
fn real_claude_subagent() {
    let s = session("agent-a9975201ec1be8441.jsonl");
    let f = Facts::of(&s);
    assert_eq!(cmds(&f), vec![("ls -1 | wc -l", Outcome::Succeeded, None)]);
    assert!(f.failures.is_empty());
    assert!(f.files.writes.is_empty());
}

/// codex rollout …805d…: `function_call exec_command` at lines 14, 34, 46, 61, 66 with `cmd`
/// `ls -la`, `cat notes.txt`, `cat missing.txt`, `echo planning`, `false`; their outputs
/// (lines 17, 37, 49, 64, 69) say `Process exited with code` 0, 0, 1, 0, 1.
/// `custom_tool_call apply_patch` at line 19 (`*** Add File: notes.txt`) and line 41
/// (`*** Update File: notes.txt`), both applied. cwd /home/dev/work/proj-codex.
#[test]
fn real_codex_session() {
    let s = session("01a22cf1-805d-7161-bbbc-a2414caa5633.jsonl");
    let f = Facts::of(&s);
    assert_eq!(
        cmds(&f),
        vec![
            ("ls -la", Outcome::Succeeded, Some(0)),
            ("cat notes.txt", Outcome::Succeeded, Some(0)),
            ("cat missing.txt", Outcome::Failed, Some(1)),
            ("echo planning", Outcome::Succeeded, Some(0)),
            ("false", Outcome::Failed, Some(1)),
        ]
    );
    let failed: Vec<(Option<&str>, Option<i64>)> = f
        .failures
        .iter()
        .map(|x| (x.command.as_deref(), x.exit_code))
        .collect();
    assert_eq!(
        failed,
        vec![(Some("cat missing.txt"), Some(1)), (Some("false"), Some(1))]
    );
    assert!(f.failures.iter().all(|x| !x.fixed_later()));
    assert_eq!(
        files(&f),
        vec![
            (
                "notes.txt",
                WriteOp::Create,
                FileGroup::Project,
                "tool:apply_patch"
            ),
            (
                "notes.txt",
                WriteOp::Edit,
                FileGroup::Project,
                "tool:apply_patch"
            ),
        ]
    );
    assert!(f.files.writes[0].path.ends_with("/proj-codex/notes.txt"));
    assert!(f.jobs.is_empty());
}

/// codex rollouts …88a4… (parent: `spawn_agent`, `wait_agent`, no shell) and …892d… (the
/// subagent: one `exec_command` `ls -1 | wc -l`, exit 0).
#[test]
fn real_codex_multi_agent_pair() {
    let parent = Facts::of(&session("01a22cf1-88a4-7de1-a508-335da749c9f9.jsonl"));
    assert!(parent.commands.is_empty());
    assert!(parent.failures.is_empty());
    let child = Facts::of(&session("01a22cf1-892d-7182-af0e-31b8d4237fb3.jsonl"));
    assert_eq!(
        cmds(&child),
        vec![("ls -1 | wc -l", Outcome::Succeeded, Some(0))]
    );
}

/// Surfaces of the real sessions. Claude: line 79 is the `system` `compact_boundary`, line 80
/// the `isCompactSummary` user line ("This session is being continued from a previous
/// conversation…"). Codex …805d…: line 82 is `compacted` ("Another language model started to
/// solve this problem…"). Everything model-visible before them is shadowed; the context pack
/// starts with the summary and holds the turn typed after it.
#[test]
fn real_surfaces_and_context_packs() {
    use scry_facts::{context_pack, surfaces};
    use scry_model::{EventKind, Surface};
    for (needle, summary_start) in [
        (
            "029942d1-8e5d-4155-96e8-b9fe03dadf8d.jsonl",
            "This session is being continued from a previous conversation",
        ),
        (
            "01a22cf1-805d-7161-bbbc-a2414caa5633.jsonl",
            "Another language model started to solve this problem",
        ),
    ] {
        let s = session(needle);
        let surf = surfaces(&s.events);
        let first_compaction = s
            .events
            .iter()
            .position(|e| e.kind == EventKind::Compaction)
            .unwrap_or_else(|| panic!("{needle}: a compaction"));
        assert!(surf[..first_compaction]
            .iter()
            .all(|x| *x != Surface::Current));
        assert_eq!(surf[first_compaction], Surface::Current);
        let pack = context_pack(&s, 100_000);
        assert!(!pack.truncated);
        let summary = pack
            .summary
            .unwrap_or_else(|| panic!("{needle}: a summary"));
        assert!(summary.text.starts_with(summary_start), "{needle}");
        assert!(
            pack.items.iter().any(|i| i.kind == EventKind::User),
            "{needle}"
        );
    }
}
