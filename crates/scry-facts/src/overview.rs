//! The overview stats card (SPEC S-C2) as one struct, computed from the ledgers so every
//! number agrees with its ledger: `files.write_events == files ledger rows == writes.len()`,
//! `failures == errors ledger rows`, and the file groups add up.

use std::collections::BTreeMap;
use std::sync::LazyLock;

use regex::Regex;
use scry_model::{Event, EventKind, Header, Session, TokenUsage};
use serde::{Deserialize, Serialize};

use crate::commands::{commands, CommandRow, Outcome};
use crate::errors::{failures, Failure};
use crate::files::{files_ledger, FileWrite, FilesLedger, GroupCounts};
use crate::fold::Ledgers;
use crate::jobs::{jobs, Job, JobStatus};
use crate::provenance::Evidence;
use crate::shell::analyze;
use crate::status::{turn_statuses, TurnStatus};
use crate::tokens::{tokens, TokenReport};

/// Every fact of one session, computed once.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Facts {
    /// Files ledger.
    pub files: FilesLedger,
    /// Commands ledger.
    pub commands: Vec<CommandRow>,
    /// Errors ledger.
    pub failures: Vec<Failure>,
    /// Background jobs.
    pub jobs: Vec<Job>,
    /// Turn statuses.
    pub statuses: Vec<TurnStatus>,
    /// Token totals.
    pub tokens: TokenReport,
}

impl Facts {
    /// Computes every fact of `session`.
    pub fn of(session: &Session) -> Facts {
        Facts {
            files: files_ledger(session),
            commands: commands(session),
            failures: failures(session),
            jobs: jobs(session),
            statuses: turn_statuses(&session.events),
            tokens: tokens(&session.events),
        }
    }
}

/// File counts of the card.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileStats {
    /// Distinct files written.
    pub files_changed: usize,
    /// Write events (a file written three times counts three).
    pub write_events: usize,
    /// Write events per group.
    pub events_by_group: GroupCounts,
    /// Distinct files per group.
    pub files_by_group: GroupCounts,
    /// Write events that are observed.
    pub observed: usize,
    /// Write events that are derived.
    pub derived: usize,
}

/// Background job counts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct JobStats {
    /// All jobs.
    pub total: usize,
    /// Completed.
    pub completed: usize,
    /// Failed.
    pub failed: usize,
    /// Killed.
    pub killed: usize,
    /// Still running at the last receipt.
    pub running: usize,
    /// Without a receipt.
    pub unknown: usize,
}

/// A `git commit` that succeeded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Commit {
    /// The command.
    pub command: String,
    /// `-m` message when given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Short sha from git's `[branch sha] message` echo.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sha: Option<String>,
    /// The call.
    pub evidence: Evidence,
}

/// A final-state anchor: the last successful command.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CommandAnchor {
    /// The command.
    pub command: String,
    /// The call.
    pub evidence: Evidence,
}

/// The overview card.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Overview {
    /// Session uri.
    pub uri: String,
    /// Turns (human prompts).
    pub turns: u32,
    /// All events.
    pub events: usize,
    /// Events per kind (every kind listed, zero included).
    pub events_by_kind: BTreeMap<String, usize>,
    /// Tool calls.
    pub tool_calls: usize,
    /// Failures (== errors ledger rows).
    pub failures: usize,
    /// Failures fixed by a later matching success.
    pub failures_fixed: usize,
    /// Files.
    pub files: FileStats,
    /// Shell commands (== commands ledger rows).
    pub commands: usize,
    /// Shell commands that failed.
    pub commands_failed: usize,
    /// Successful `git commit`s.
    pub commits: Vec<Commit>,
    /// Artifacts beside the transcript.
    pub artifacts: Vec<String>,
    /// Background jobs.
    pub jobs: JobStats,
    /// Token totals (`None` = unknown).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens: Option<TokenUsage>,
    /// The goal: the first human prompt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_prompt: Option<String>,
    /// Title now.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Every title, oldest first.
    pub title_history: Vec<String>,
    /// The last command that succeeded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_successful_command: Option<CommandAnchor>,
    /// The last files written (distinct, most recent first, at most 5).
    pub last_files_written: Vec<FileWrite>,
    /// Every write event (== files ledger rows).
    pub writes: Vec<FileWrite>,
    /// Where the full record lives.
    pub sources: Vec<String>,
}

static COMMIT_ECHO: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"\[[^\]\s]+(?: \([^)]*\))? ([0-9a-f]{7,40})\]").ok());

/// `git [-C dir] [-c k=v] commit …` in `command`: the `-m` message when there is one.
pub(crate) fn git_commit(command: &str) -> Option<Option<String>> {
    if !command.contains("commit") {
        return None;
    }
    for inv in analyze(command) {
        if inv.program() != "git" {
            continue;
        }
        let args = inv.args();
        let mut i = 0;
        while let Some(a) = args.get(i) {
            match a.as_str() {
                "-C" | "-c" | "--git-dir" | "--work-tree" => i += 2,
                s if s.starts_with('-') => i += 1,
                _ => break,
            }
        }
        if args.get(i).map(String::as_str) != Some("commit") {
            continue;
        }
        let rest = args.get(i + 1..).unwrap_or(&[]);
        let msg = rest
            .iter()
            .position(|a| a == "-m" || a == "--message")
            .and_then(|p| rest.get(p + 1))
            .cloned()
            .or_else(|| {
                rest.iter()
                    .find_map(|a| a.strip_prefix("--message=").map(str::to_string))
            });
        return Some(msg);
    }
    None
}

/// What the card counts over the events themselves, gathered one event at a time.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EventCounts {
    /// Highest turn number.
    pub turns: u32,
    /// All events.
    pub events: usize,
    /// Events per kind (kinds seen only).
    pub by_kind: BTreeMap<EventKind, usize>,
    /// Tool calls.
    pub tool_calls: usize,
    /// The text of the first human prompt.
    pub first_prompt: Option<String>,
}

impl EventCounts {
    /// Counts `e`.
    pub fn push(&mut self, e: &Event) {
        self.turns = self.turns.max(e.turn);
        self.events += 1;
        *self.by_kind.entry(e.kind).or_default() += 1;
        if e.kind == EventKind::ToolCall {
            self.tool_calls += 1;
        }
        if self.first_prompt.is_none() && e.kind == EventKind::User {
            self.first_prompt = Some(e.text.clone());
        }
    }

    /// The counts of `events`.
    pub fn of(events: &[Event]) -> EventCounts {
        let mut c = EventCounts::default();
        for e in events {
            c.push(e);
        }
        c
    }
}

/// The overview of `session` from precomputed `facts`.
pub fn overview_from(session: &Session, facts: &Facts) -> Overview {
    let parts = Parts {
        counts: &EventCounts::of(&session.events),
        files: &facts.files,
        commands: &facts.commands,
        failures: &facts.failures,
        jobs: &facts.jobs,
        tokens: facts.tokens.total,
    };
    card(&session.header, parts)
}

/// The overview of a session from its header and the ledgers folded while its events streamed
/// by ([`crate::fold::LedgerFold`]); equal to [`overview_from`] of the same events.
pub fn overview_of(header: &Header, ledgers: &Ledgers) -> Overview {
    let parts = Parts {
        counts: &ledgers.counts,
        files: &ledgers.files,
        commands: &ledgers.commands,
        failures: &ledgers.failures,
        jobs: &ledgers.jobs,
        tokens: ledgers.tokens.total,
    };
    card(header, parts)
}

/// The overview of a session from its header, the event counts and the facts folded while
/// its events streamed by ([`crate::session_fold::SessionFold`]); equal to [`overview_from`] of
/// the same events.
pub fn overview_counted(header: &Header, counts: &EventCounts, facts: &Facts) -> Overview {
    let parts = Parts {
        counts,
        files: &facts.files,
        commands: &facts.commands,
        failures: &facts.failures,
        jobs: &facts.jobs,
        tokens: facts.tokens.total,
    };
    card(header, parts)
}

/// What the card is computed from.
struct Parts<'a> {
    counts: &'a EventCounts,
    files: &'a FilesLedger,
    commands: &'a [CommandRow],
    failures: &'a [Failure],
    jobs: &'a [Job],
    tokens: Option<TokenUsage>,
}

fn card(h: &Header, p: Parts<'_>) -> Overview {
    let mut by_kind: BTreeMap<String, usize> = EventKind::ALL
        .iter()
        .map(|k| (k.as_str().to_string(), 0))
        .collect();
    for (k, n) in &p.counts.by_kind {
        *by_kind.entry(k.as_str().to_string()).or_default() += n;
    }
    let facts = &p;
    let (observed, derived) = facts.files.by_provenance();
    let files = FileStats {
        files_changed: facts.files.files().len(),
        write_events: facts.files.writes.len(),
        events_by_group: facts.files.write_counts(),
        files_by_group: facts.files.file_counts(),
        observed,
        derived,
    };
    let commits = facts
        .commands
        .iter()
        .filter(|c| c.outcome == Outcome::Succeeded)
        .filter_map(|c| {
            let message = git_commit(&c.command)?;
            let sha = c.stdout.as_ref().and_then(|o| {
                COMMIT_ECHO
                    .as_ref()?
                    .captures(&o.text)?
                    .get(1)
                    .map(|m| m.as_str().to_string())
            });
            Some(Commit {
                command: c.command.clone(),
                message,
                sha,
                evidence: c.origin.evidence.clone(),
            })
        })
        .collect();
    let mut jobs = JobStats {
        total: facts.jobs.len(),
        ..JobStats::default()
    };
    for j in facts.jobs {
        match j.status {
            JobStatus::Completed => jobs.completed += 1,
            JobStatus::Failed => jobs.failed += 1,
            JobStatus::Killed => jobs.killed += 1,
            JobStatus::Running => jobs.running += 1,
            JobStatus::Unknown => jobs.unknown += 1,
        }
    }
    let mut last_files: Vec<FileWrite> = Vec::new();
    for w in facts.files.writes.iter().rev() {
        if last_files.len() >= 5 {
            break;
        }
        if !last_files
            .iter()
            .any(|x| x.path == w.path && x.host == w.host)
        {
            last_files.push(w.clone());
        }
    }
    Overview {
        uri: h.uri.clone(),
        turns: p.counts.turns,
        events: p.counts.events,
        events_by_kind: by_kind,
        tool_calls: p.counts.tool_calls,
        failures: facts.failures.len(),
        failures_fixed: facts.failures.iter().filter(|f| f.fixed_later()).count(),
        files,
        commands: facts.commands.len(),
        commands_failed: facts.commands.iter().filter(|c| c.failed()).count(),
        commits,
        artifacts: h.artifacts.clone(),
        jobs,
        tokens: p.tokens,
        first_prompt: p.counts.first_prompt.clone(),
        title: h.title.clone(),
        title_history: h.titles.clone(),
        last_successful_command: facts
            .commands
            .iter()
            .rev()
            .find(|c| c.outcome == Outcome::Succeeded)
            .map(|c| CommandAnchor {
                command: c.command.clone(),
                evidence: c.origin.evidence.clone(),
            }),
        last_files_written: last_files,
        writes: facts.files.writes.clone(),
        sources: h.sources.iter().map(|p| p.display().to_string()).collect(),
    }
}

/// The overview of `session`.
pub fn overview(session: &Session) -> Overview {
    overview_from(session, &Facts::of(session))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pairing::testkit::Script;
    use scry_model::{Header, ProviderId};
    use serde_json::json;

    #[test]
    fn card_agrees_with_ledgers() {
        let mut s = Script::default();
        s.user("ship it")
            .call("Write", "w", json!({"file_path": "/p/a.rs"}))
            .result("Write", "w", "ok", None, Some(false))
            .bash("b", "cargo test > test.log", Some(1), "fail")
            .bash(
                "c",
                "git add -A && git commit -m 'fix: x'",
                Some(0),
                "[main 1a2b3c4] fix: x\n 1 file changed",
            )
            .bash("d", "echo hi > /tmp/x.txt", Some(0), "")
            .call("Edit", "e", json!({"file_path": "/p/a.rs"}))
            .result("Edit", "e", "ok", None, Some(false))
            .assistant("done");
        let mut h = Header::new(ProviderId::Claude, "x");
        h.cwd = Some("/p".into());
        h.titles = vec!["t1".into(), "t2".into()];
        let mut sess = Session::new(h);
        sess.events = s.events;
        let o = overview(&sess);
        let ledger = files_ledger(&sess);
        assert_eq!(o.files.write_events, ledger.writes.len());
        assert_eq!(o.writes.len(), ledger.writes.len());
        assert_eq!(o.files.write_events, 4);
        assert_eq!(o.files.files_changed, 3);
        assert!(o.files.events_by_group.adds_up());
        assert!(o.files.files_by_group.adds_up());
        assert_eq!(
            (
                o.files.events_by_group.project,
                o.files.events_by_group.runtime,
                o.files.events_by_group.log
            ),
            (2, 1, 1)
        );
        assert_eq!(o.failures, failures(&sess).len());
        assert_eq!(o.failures, 1);
        assert_eq!(o.commands, 3);
        assert_eq!(o.commits.len(), 1);
        assert_eq!(o.commits[0].message.as_deref(), Some("fix: x"));
        assert_eq!(o.commits[0].sha.as_deref(), Some("1a2b3c4"));
        assert_eq!(
            o.last_successful_command
                .as_ref()
                .map(|c| c.command.as_str()),
            Some("echo hi > /tmp/x.txt")
        );
        assert_eq!(o.last_files_written[0].display, "a.rs");
        assert_eq!(o.first_prompt.as_deref(), Some("ship it"));
        assert_eq!(o.events_by_kind.get("tool_call"), Some(&5));
        assert_eq!(o.events_by_kind.get("compaction"), Some(&0));
        assert_eq!(o.tokens, None);
        assert_eq!(o.title_history.len(), 2);
    }
}
