//! The records [`super::LedgerFold`] keeps instead of events: what a pending call, an early
//! result, a failure, a write, a job start and a receipt contribute to the ledgers, and the
//! fixed-later action key.

use scry_model::Event;
use serde_json::Value;
use xxhash_rust::xxh3::xxh3_128;

use crate::commands::{Outcome, HEAD, TAIL};
use crate::errors::PREFIX_WORDS;
use crate::file_tools::{changes_writes, ToolWrite};
use crate::jobs::{
    arg_id, async_launch, cap1, status_word, JobStatus, BG_ID, CODEX_EXITED, CODEX_RUNNING,
    EXIT_TAG, STATUS_TAG,
};
use crate::provenance::{Evidence, Origin};
use crate::shell::is_shell_tool;
use crate::text::{command_prefix, excerpt, Excerpt};

/// "The same action" for the fixed-later check: the errors ledger's key string
/// (`shell\u{1}<first words>`, `<tool>\u{1}<path>` or `<tool>\u{1}<args JSON>`) as its head and
/// a 128-bit hash of its tail, so a call's arguments are not kept.
pub(super) type ActionKey = (String, u128);

pub(super) fn action_key(
    tool: &str,
    command: Option<&str>,
    path: Option<&str>,
    args: u128,
) -> ActionKey {
    if is_shell_tool(tool) {
        if let Some(c) = command {
            let prefix = command_prefix(c, PREFIX_WORDS);
            return ("shell".to_string(), xxh3_128(prefix.as_bytes()));
        }
    }
    match path {
        Some(p) => (tool.to_string(), xxh3_128(p.as_bytes())),
        None => (tool.to_string(), args),
    }
}

/// What the ledgers need of a tool call, read when it streams by.
pub(super) struct Call {
    pub(super) idx: usize,
    pub(super) ev: Evidence,
    pub(super) turn: u32,
    pub(super) id: Option<String>,
    pub(super) tool: Option<String>,
    pub(super) command: Option<String>,
    pub(super) cwd: Option<String>,
    pub(super) background: bool,
    pub(super) path: Option<String>,
    /// Hash of the arguments' JSON when they name no path (the action key's tail).
    pub(super) args: u128,
    /// [`crate::file_tools::tool_writes`] for a file tool.
    pub(super) writes: Option<Vec<ToolWrite>>,
    /// Job ids named by the arguments, for `BashOutput`-, `KillShell`- and `write_stdin`-like
    /// receipts.
    pub(super) receipt_ids: [Option<String>; 3],
    /// The commands ledger row, for a shell command.
    pub(super) row: Option<usize>,
}

/// The call side of a failure, kept with its row.
pub(super) struct CallSnap {
    pub(super) idx: usize,
    pub(super) ev: Evidence,
    pub(super) tool: Option<String>,
    pub(super) command: Option<String>,
    pub(super) path: Option<String>,
    pub(super) args: u128,
}

/// Which result fields the paired call needs (all of them while the call is unknown).
#[derive(Clone, Copy)]
pub(super) struct Want {
    pub(super) output: bool,
    pub(super) changes: bool,
    pub(super) background: bool,
    pub(super) codex: bool,
    pub(super) tags: bool,
}

pub(super) const WANT_ALL: Want = Want {
    output: true,
    changes: true,
    background: true,
    codex: true,
    tags: true,
};

/// What the ledgers need of a tool result.
pub(super) struct Res {
    pub(super) idx: usize,
    pub(super) ev: Evidence,
    pub(super) tool: Option<String>,
    pub(super) exit_code: Option<i64>,
    pub(super) duration_ms: Option<u64>,
    pub(super) failure: bool,
    pub(super) outcome: Outcome,
    pub(super) stdout: Option<Excerpt>,
    pub(super) stderr: Option<Excerpt>,
    pub(super) data_cwd: Option<String>,
    pub(super) changes: Option<Vec<ToolWrite>>,
    pub(super) bg_id: Option<String>,
    pub(super) async_id: Option<String>,
    pub(super) codex_running: Option<String>,
    pub(super) codex_exited: Option<i64>,
    pub(super) tag_status: Option<JobStatus>,
    pub(super) tag_exit: Option<i64>,
    /// Its row in the errors ledger, when it failed.
    pub(super) failure_row: Option<usize>,
}

impl Res {
    pub(super) fn of(idx: usize, e: &Event, want: Want, failure_row: Option<usize>) -> Res {
        let data = e.data.as_ref();
        // Structured output sits in `data` or, for Claude's `toolUseResult`, in `data.result`.
        let field = |k: &str| {
            data.and_then(|d| d.get(k).or_else(|| d.get("result").and_then(|r| r.get(k))))
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
        };
        let (stdout, stderr, data_cwd) = if want.output {
            let text = Some(e.text.as_str()).filter(|t| !t.is_empty());
            (
                field("stdout").or(text).map(|s| excerpt(s, HEAD, TAIL)),
                field("stderr").map(|s| excerpt(s, HEAD, TAIL)),
                field("cwd").map(str::to_string),
            )
        } else {
            (None, None, None)
        };
        let capture = |on: bool, re| if on { cap1(re, &e.text) } else { None };
        Res {
            idx,
            ev: Evidence::of(e),
            tool: e.tool.clone(),
            exit_code: e.exit_code,
            duration_ms: e.duration_ms,
            failure: e.is_failure(),
            outcome: Outcome::of(Some(e)),
            stdout,
            stderr,
            data_cwd,
            changes: if want.changes {
                data.and_then(|d| d.get("changes")).map(changes_writes)
            } else {
                None
            },
            bg_id: if want.background {
                cap1(&BG_ID, &e.text).or_else(|| {
                    arg_id(
                        data,
                        &["backgroundTaskId", "task_id", "shell_id", "bash_id"],
                    )
                })
            } else {
                None
            },
            async_id: async_launch(e),
            codex_running: capture(want.codex, &CODEX_RUNNING),
            codex_exited: capture(want.codex, &CODEX_EXITED).and_then(|s| s.parse().ok()),
            tag_status: capture(want.tags, &STATUS_TAG).and_then(|s| status_word(&s)),
            tag_exit: capture(want.tags, &EXIT_TAG).and_then(|s| s.parse().ok()),
            failure_row,
        }
    }
}

/// An errors ledger row waiting for its call and the fixed-later check.
pub(super) struct FailureSlot {
    pub(super) result_tool: Option<String>,
    pub(super) exit_code: Option<i64>,
    pub(super) is_error: Option<bool>,
    pub(super) output: Excerpt,
    pub(super) turn: u32,
    pub(super) ev: Evidence,
    pub(super) call: Option<CallSnap>,
}

/// A files ledger row before the project root is known.
pub(super) struct RawWrite {
    /// Sort key: the evidence event, call rows before change items, the event's index, then
    /// arrival (the whole-session ledger's stable sort by evidence event).
    pub(super) order: (u32, u8, usize, usize),
    pub(super) write: ToolWrite,
    pub(super) host: Option<String>,
    pub(super) dir: Option<String>,
    pub(super) tool: String,
    pub(super) origin: Origin,
    pub(super) turn: u32,
    /// For a change item: the call id that, when a call with that id wrote files, drops it.
    pub(super) change_of: Option<String>,
}

/// A job start waiting for its receipts.
pub(super) struct JobStart {
    pub(super) idx: usize,
    pub(super) id: Option<String>,
    pub(super) tool: String,
    pub(super) command: Option<String>,
    pub(super) turn: u32,
    pub(super) origin: Origin,
}

/// The latest receipt of one job id.
pub(super) struct Receipt {
    pub(super) at: (usize, u8),
    pub(super) status: JobStatus,
    pub(super) exit: Option<i64>,
    pub(super) extractor: String,
    pub(super) ev: Evidence,
}
