//! The ledgers of one session folded while its events stream by (SPEC P6), for readers that
//! must not hold the session (`show` of a 300 MB transcript): the files, commands, errors and
//! jobs ledgers, the token report and the card's event counts, equal to what [`Facts::of`] and
//! [`EventCounts::of`] give for the same events.
//!
//! What is kept: the calls still waiting for their result, the results that came before their
//! call (the receipt-first fallback), one compact record per successful call (the "fixed
//! later?" check: its index, action key and evidence), the latest receipt per job id, the
//! card's counters and the ledger rows themselves — never an event, its text or its arguments.
//!
//! Pairing is [`crate::pairing::Pairs::build`]'s, done online: a result goes to the earliest
//! call with its id still waiting (which is that call's first later untaken result), and a call
//! still waiting at the end takes the first untaken earlier result with its id.
//!
//! [`Facts::of`]: crate::overview::Facts::of

mod parts;

use std::collections::{HashMap, HashSet, VecDeque};

use scry_model::{Event, EventKind, Header};
use serde_json::Value;
use xxhash_rust::xxh3::xxh3_128;

use crate::commands::{CommandRow, Outcome};
use crate::errors::Failure;
use crate::file_tools::{changes_writes, is_file_tool, path_of, tool_writes, ToolWrite};
use crate::files::{change_item_label, write_row, FileWrite, FilesLedger};
use crate::jobs::{arg_id, cap1, status_word, Job, JobStatus, EXIT_TAG, NOTIFY_ID, STATUS_TAG};
use crate::overview::{git_commit, EventCounts};
use crate::provenance::{Evidence, Origin, Provenance};
use crate::shell::tools::is_background;
use crate::shell::{command_of, cwd_of, is_shell_tool, shell_writes, ssh_host};
use crate::text::excerpt;
use crate::tokens::{TokenFold, TokenReport};
use parts::{
    action_key, ActionKey, Call, CallSnap, FailureSlot, JobStart, RawWrite, Receipt, Res, Want,
    WANT_ALL,
};

static NULL: Value = Value::Null;

/// Every ledger of one session but the turn statuses, from [`LedgerFold::finish`].
#[derive(Debug, Clone)]
pub struct Ledgers {
    /// Turns, events by kind, tool calls, the first prompt.
    pub counts: EventCounts,
    /// Files ledger.
    pub files: FilesLedger,
    /// Commands ledger.
    pub commands: Vec<CommandRow>,
    /// Errors ledger.
    pub failures: Vec<Failure>,
    /// Background jobs.
    pub jobs: Vec<Job>,
    /// Token totals.
    pub tokens: TokenReport,
}

/// The ledgers of a session, folded one event at a time: [`LedgerFold::push`] each event in
/// session order, then [`LedgerFold::finish`] with the completed header.
#[derive(Default)]
pub struct LedgerFold {
    n: usize,
    counts: EventCounts,
    tokens: TokenFold,
    pending: HashMap<String, VecDeque<Call>>,
    orphans: HashMap<String, VecDeque<Res>>,
    root_hint: Option<String>,
    commands: Vec<CommandRow>,
    failures: Vec<FailureSlot>,
    successes: Vec<(usize, ActionKey, Evidence)>,
    /// Card-only: the latest successful call per action key (all the fixed-later count needs).
    latest_success: HashMap<ActionKey, (usize, Evidence)>,
    writes: Vec<RawWrite>,
    calls_with_writes: HashSet<String>,
    jobs: Vec<JobStart>,
    receipts: HashMap<String, Receipt>,
    /// Keep only what the card needs ([`LedgerFold::for_card`]).
    card_only: bool,
}

impl LedgerFold {
    /// An empty fold.
    pub fn new() -> LedgerFold {
        LedgerFold::default()
    }

    /// A fold that keeps only what [`overview_of`] reads, so memory grows with the number of
    /// ledger rows, not with what the tools printed: a command row answered by its result keeps
    /// its outcome, turn and origin, and its command and stdout only where the card reads them
    /// (a successful command; a successful `git commit`'s stdout, where the card finds its sha);
    /// failure outputs are left empty; a failure's `fixed_by` is the latest matching success
    /// rather than the first. Its [`Ledgers`] give the same card as [`LedgerFold::new`]'s, but
    /// their `commands` and `failures` rows are not the ledgers'.
    ///
    /// [`overview_of`]: crate::overview::overview_of
    pub fn for_card() -> LedgerFold {
        LedgerFold {
            card_only: true,
            ..LedgerFold::default()
        }
    }

    /// Folds in the next event of the session.
    pub fn push(&mut self, e: &Event) {
        let idx = self.n;
        self.n += 1;
        self.counts.push(e);
        self.tokens.push(e);
        if e.text.contains("<task-notification>") {
            if let (Some(id), Some(status)) = (
                cap1(&NOTIFY_ID, &e.text),
                cap1(&STATUS_TAG, &e.text).and_then(|s| status_word(&s)),
            ) {
                let exit = cap1(&EXIT_TAG, &e.text).and_then(|s| s.parse().ok());
                let extractor = "receipt:task-notification".to_string();
                self.receipt(id, (idx, 1), status, exit, extractor, Evidence::of(e));
            }
        }
        match e.kind {
            EventKind::ToolCall => self.call(idx, e),
            EventKind::ToolResult => {
                self.change_item(idx, e);
                self.result(idx, e);
            }
            _ => self.change_item(idx, e),
        }
    }

    fn call(&mut self, idx: usize, e: &Event) {
        let args = e.args.as_ref().unwrap_or(&NULL);
        let tool = e.tool.clone();
        let command = command_of(args);
        let cwd = cwd_of(args);
        let shell = tool.as_deref().is_some_and(is_shell_tool);
        if shell && self.root_hint.is_none() {
            self.root_hint = cwd.clone().filter(|c| c.starts_with('/'));
        }
        let ev = Evidence::of(e);
        let row = match (&tool, &command) {
            (Some(t), Some(c)) if shell => {
                self.commands.push(CommandRow {
                    host: ssh_host(c),
                    command: c.clone(),
                    tool: t.clone(),
                    cwd: cwd.clone(),
                    exit_code: None,
                    outcome: Outcome::NoResult,
                    duration_ms: None,
                    background: is_background(args),
                    stdout: None,
                    stderr: None,
                    turn: e.turn,
                    result: None,
                    origin: Origin {
                        provenance: Provenance::Observed,
                        extractor: format!("tool:{t}"),
                        evidence: ev.clone(),
                    },
                });
                Some(self.commands.len() - 1)
            }
            _ => None,
        };
        let path = path_of(args);
        let call = Call {
            idx,
            turn: e.turn,
            id: e.call_id.clone(),
            background: is_background(args),
            args: if path.is_none() {
                xxh3_128(args.to_string().as_bytes())
            } else {
                0
            },
            path,
            writes: tool
                .as_deref()
                .filter(|t| is_file_tool(t))
                .map(|t| tool_writes(t, args).unwrap_or_default()),
            receipt_ids: [
                arg_id(e.args.as_ref(), &["bash_id", "task_id", "shell_id", "id"]),
                arg_id(e.args.as_ref(), &["shell_id", "bash_id", "task_id", "id"]),
                arg_id(e.args.as_ref(), &["session_id"]),
            ],
            ev,
            tool,
            command,
            cwd,
            row,
        };
        match call.id.clone() {
            Some(id) => self.pending.entry(id).or_default().push_back(call),
            None => self.resolve(call, None),
        }
    }

    fn result(&mut self, idx: usize, e: &Event) {
        let failure_row = e.is_failure().then(|| {
            let stderr = crate::errors::stderr_of(e);
            let output = if self.card_only {
                ""
            } else {
                stderr.unwrap_or(&e.text)
            };
            self.failures.push(FailureSlot {
                result_tool: e.tool.clone(),
                exit_code: e.exit_code,
                is_error: e.is_error,
                output: excerpt(output, 300, 700),
                turn: e.turn,
                ev: Evidence::of(e),
                call: None,
            });
            self.failures.len() - 1
        });
        let Some(id) = e.call_id.as_deref() else {
            return;
        };
        let call = match self.pending.get_mut(id) {
            Some(queue) => {
                let call = queue.pop_front();
                if queue.is_empty() {
                    self.pending.remove(id);
                }
                call
            }
            None => None,
        };
        match call {
            Some(call) => {
                let rtool = e.tool.as_deref().or(call.tool.as_deref()).unwrap_or("");
                let want = Want {
                    output: call.row.is_some(),
                    changes: call.writes.is_some(),
                    background: call.background,
                    codex: call.tool.as_deref() == Some("exec_command") || rtool == "write_stdin",
                    tags: matches!(rtool, "BashOutput" | "TaskOutput"),
                };
                let res = Res::of(idx, e, want, failure_row);
                self.resolve(call, Some(res));
            }
            None => {
                let res = Res::of(idx, e, WANT_ALL, failure_row);
                self.orphans
                    .entry(id.to_string())
                    .or_default()
                    .push_back(res);
            }
        }
    }

    /// A provider-recorded change item (`FileChange`, `patch_apply_end`); whether a tool call
    /// already accounts for it is decided at the end.
    fn change_item(&mut self, idx: usize, e: &Event) {
        let Some(label) = change_item_label(e) else {
            return;
        };
        if e.kind == EventKind::ToolResult && e.is_failure() {
            return;
        }
        let Some(changes) = e.data.as_ref().and_then(|d| d.get("changes")) else {
            return;
        };
        let extractor = format!("item:{label}");
        let ev = Evidence::of(e);
        for w in changes_writes(changes) {
            self.writes.push(RawWrite {
                order: (ev.event, 1, idx, self.writes.len()),
                write: w,
                host: None,
                dir: None,
                tool: e.tool.clone().unwrap_or_default(),
                origin: Origin {
                    provenance: Provenance::Observed,
                    extractor: extractor.clone(),
                    evidence: ev.clone(),
                },
                turn: e.turn,
                change_of: e.call_id.clone(),
            });
        }
    }

    fn receipt(
        &mut self,
        id: String,
        at: (usize, u8),
        status: JobStatus,
        exit: Option<i64>,
        extractor: String,
        ev: Evidence,
    ) {
        let newer = self.receipts.get(&id).is_none_or(|r| r.at < at);
        if newer {
            let r = Receipt {
                at,
                status,
                exit,
                extractor,
                ev,
            };
            self.receipts.insert(id, r);
        }
    }

    /// Everything a call and its result (if any) contribute to the ledgers.
    fn resolve(&mut self, mut call: Call, mut res: Option<Res>) {
        if let Some(r) = &res {
            if let Some(slot) = r.failure_row.and_then(|k| self.failures.get_mut(k)) {
                slot.call = Some(CallSnap {
                    idx: call.idx,
                    ev: call.ev.clone(),
                    tool: call.tool.clone(),
                    command: call.command.clone(),
                    path: call.path.clone(),
                    args: call.args,
                });
            }
            if r.outcome == Outcome::Succeeded {
                let tool = call.tool.as_deref().unwrap_or("");
                let key = action_key(
                    tool,
                    call.command.as_deref(),
                    call.path.as_deref(),
                    call.args,
                );
                if self.card_only {
                    let slot = self
                        .latest_success
                        .entry(key)
                        .or_insert((call.idx, call.ev.clone()));
                    if slot.0 < call.idx {
                        *slot = (call.idx, call.ev.clone());
                    }
                } else {
                    self.successes.push((call.idx, key, call.ev.clone()));
                }
            }
        }
        if let (Some(slot), Some(r)) = (call.row.and_then(|k| self.commands.get_mut(k)), &mut res) {
            slot.cwd = call.cwd.clone().or_else(|| r.data_cwd.take());
            slot.exit_code = r.exit_code;
            slot.outcome = r.outcome;
            slot.duration_ms = r.duration_ms;
            slot.stdout = r.stdout.take();
            slot.stderr = r.stderr.take();
            slot.result = Some(r.ev.clone());
            let commit =
                || slot.outcome == Outcome::Succeeded && git_commit(&slot.command).is_some();
            if self.card_only && !commit() {
                slot.stdout = None;
            }
            if self.card_only {
                // Nothing else of the row is read by the card but its command when it succeeded
                // (the last successful command, commits).
                slot.stderr = None;
                slot.result = None;
                slot.cwd = None;
                slot.host = None;
                if slot.outcome != Outcome::Succeeded {
                    slot.command = String::new();
                }
            }
        }
        if let Some(r) = &mut res {
            self.writes_of(&mut call, r);
            self.receipt_of(&call, r);
        }
        self.job_of(&call, res.as_ref());
    }

    /// Files ledger rows of a call with a result.
    fn writes_of(&mut self, call: &mut Call, r: &mut Res) {
        let Some(tool) = call.tool.clone() else {
            return;
        };
        let file_writes = call.writes.take();
        let call = &*call;
        let push = |fold: &mut LedgerFold, w: ToolWrite, host, prov, extractor: &str| {
            fold.writes.push(RawWrite {
                order: (call.ev.event, 0, call.idx, fold.writes.len()),
                write: w,
                host,
                dir: call.cwd.clone(),
                tool: tool.clone(),
                origin: Origin {
                    provenance: prov,
                    extractor: extractor.to_string(),
                    evidence: call.ev.clone(),
                },
                turn: call.turn,
                change_of: None,
            });
        };
        if let Some(ws) = file_writes {
            if r.failure {
                return;
            }
            let (ws, extractor) = match (ws.is_empty(), r.changes.take()) {
                // The arguments were unreadable: the result's own change record may say more.
                (true, Some(ch)) => (ch, "item:FileChange".to_string()),
                _ => (ws, format!("tool:{tool}")),
            };
            if !ws.is_empty() {
                if let Some(id) = &call.id {
                    self.calls_with_writes.insert(id.clone());
                }
            }
            for w in ws {
                push(self, w, None, Provenance::Observed, &extractor);
            }
        } else if is_shell_tool(&tool) {
            let Some(cmd) = call.command.as_deref() else {
                return;
            };
            let sws = shell_writes(cmd);
            if !sws.is_empty() {
                if let Some(id) = &call.id {
                    self.calls_with_writes.insert(id.clone());
                }
            }
            for sw in sws {
                if sw.needs_success && r.failure {
                    continue;
                }
                let w = ToolWrite {
                    path: sw.path,
                    op: sw.op,
                };
                push(self, w, sw.host, Provenance::Derived, sw.extractor);
            }
        }
    }

    /// A receipt read from a result of `BashOutput`, `KillShell`, `write_stdin` and the like.
    fn receipt_of(&mut self, call: &Call, r: &Res) {
        let tool = r.tool.as_deref().or(call.tool.as_deref()).unwrap_or("");
        let [output_id, kill_id, stdin_id] = &call.receipt_ids;
        let (id, status, exit, extractor) = match tool {
            "BashOutput" | "TaskOutput" => {
                let status = r.tag_status.or(match r.tag_exit {
                    Some(0) => Some(JobStatus::Completed),
                    Some(_) => Some(JobStatus::Failed),
                    None => None,
                });
                (output_id, status, r.tag_exit, format!("receipt:{tool}"))
            }
            "KillShell" | "KillBash" | "TaskStop" if !r.failure => (
                kill_id,
                Some(JobStatus::Killed),
                None,
                format!("receipt:{tool}"),
            ),
            "write_stdin" => {
                let status = match r.codex_exited {
                    Some(0) => Some(JobStatus::Completed),
                    Some(_) => Some(JobStatus::Failed),
                    None => r.codex_running.as_ref().map(|_| JobStatus::Running),
                };
                (
                    stdin_id,
                    status,
                    r.codex_exited,
                    "receipt:write_stdin".to_string(),
                )
            }
            _ => return,
        };
        if let (Some(id), Some(status)) = (id.clone(), status) {
            self.receipt(id, (r.idx, 0), status, exit, extractor, r.ev.clone());
        }
    }

    /// A background job started by this call, if it is one.
    fn job_of(&mut self, call: &Call, r: Option<&Res>) {
        let tool = call.tool.clone().unwrap_or_default();
        let id = if call.background {
            Some(r.and_then(|r| r.bg_id.clone()).unwrap_or_default())
        } else if let Some(id) = r.and_then(|r| r.async_id.clone()) {
            Some(id)
        } else if tool == "exec_command" {
            r.and_then(|r| r.codex_running.clone())
        } else {
            None
        };
        let Some(id) = id else { return };
        self.jobs.push(JobStart {
            idx: call.idx,
            id: (!id.is_empty()).then_some(id),
            command: call.command.clone(),
            turn: call.turn,
            origin: Origin {
                provenance: Provenance::Observed,
                extractor: format!("tool:{tool}"),
                evidence: call.ev.clone(),
            },
            tool,
        });
    }

    /// The ledgers of every event pushed; `header` is the session's completed header (its cwd
    /// is the project root the files are grouped by).
    pub fn finish(mut self, header: &Header) -> Ledgers {
        // Calls still waiting take the first untaken earlier result with their id.
        let mut waiting: Vec<Call> = std::mem::take(&mut self.pending)
            .into_values()
            .flatten()
            .collect();
        waiting.sort_by_key(|c| c.idx);
        for call in waiting {
            let res = call
                .id
                .as_deref()
                .and_then(|id| self.orphans.get_mut(id))
                .and_then(VecDeque::pop_front);
            self.resolve(call, res);
        }
        let root = header
            .cwd
            .clone()
            .filter(|c| !c.is_empty())
            .or(self.root_hint.take());
        let files = self.files(root.as_deref());
        let failures = self.failures();
        let jobs = self.jobs();
        Ledgers {
            counts: self.counts,
            files,
            commands: self.commands,
            failures,
            jobs,
            tokens: self.tokens.finish(),
        }
    }

    fn files(&mut self, cwd: Option<&str>) -> FilesLedger {
        let mut raw = std::mem::take(&mut self.writes);
        let with_writes = &self.calls_with_writes;
        raw.retain(|w| {
            w.change_of
                .as_deref()
                .is_none_or(|id| !with_writes.contains(id))
        });
        raw.sort_by_key(|w| w.order);
        let writes: Vec<FileWrite> = raw
            .into_iter()
            .map(|w| {
                write_row(
                    &w.write,
                    w.host.as_deref(),
                    w.dir.as_deref(),
                    cwd,
                    &w.tool,
                    w.origin,
                    w.turn,
                )
            })
            .collect();
        FilesLedger { writes }
    }

    fn failures(&mut self) -> Vec<Failure> {
        let mut successes = std::mem::take(&mut self.successes);
        successes.sort_by_key(|s| s.0);
        let mut by_key: HashMap<ActionKey, Vec<(usize, Evidence)>> = HashMap::new();
        for (idx, key, ev) in successes {
            by_key.entry(key).or_default().push((idx, ev));
        }
        std::mem::take(&mut self.failures)
            .into_iter()
            .map(|f| {
                let tool = f
                    .result_tool
                    .clone()
                    .or_else(|| f.call.as_ref().and_then(|c| c.tool.clone()))
                    .unwrap_or_default();
                let fixed_by = f.call.as_ref().and_then(|c| {
                    let key = action_key(&tool, c.command.as_deref(), c.path.as_deref(), c.args);
                    if self.card_only {
                        // Whether any later success exists (the card counts, never shows, it).
                        let (si, ev) = self.latest_success.get(&key)?;
                        return (*si > c.idx).then(|| ev.clone());
                    }
                    let list = by_key.get(&key)?;
                    let at = list.partition_point(|(si, _)| *si <= c.idx);
                    list.get(at).map(|(_, ev)| ev.clone())
                });
                Failure {
                    command: f
                        .call
                        .as_ref()
                        .filter(|_| is_shell_tool(&tool))
                        .and_then(|c| c.command.clone()),
                    exit_code: f.exit_code,
                    is_error: f.is_error,
                    output: f.output,
                    turn: f.turn,
                    call: f.call.map(|c| c.ev),
                    fixed_by,
                    origin: Origin {
                        provenance: Provenance::Observed,
                        extractor: format!("tool:{tool}"),
                        evidence: f.ev,
                    },
                    tool,
                }
            })
            .collect()
    }

    fn jobs(&mut self) -> Vec<Job> {
        let mut starts = std::mem::take(&mut self.jobs);
        starts.sort_by_key(|j| j.idx);
        starts
            .into_iter()
            .map(|j| {
                let last =
                    j.id.as_ref()
                        .and_then(|id| self.receipts.get(id))
                        .filter(|r| r.at.0 > j.idx);
                Job {
                    command: j.command,
                    status: last.map_or(JobStatus::Unknown, |r| r.status),
                    exit_code: last.and_then(|r| r.exit),
                    receipt: last.map(|r| r.ev.clone()),
                    receipt_extractor: last.map(|r| r.extractor.clone()),
                    turn: j.turn,
                    origin: j.origin,
                    id: j.id,
                    tool: j.tool,
                }
            })
            .collect()
    }
}

impl crate::overview::Facts {
    /// The ledgers of `fold` with `statuses` (which [`LedgerFold`] does not compute).
    pub fn from_ledgers(l: Ledgers, statuses: Vec<crate::status::TurnStatus>) -> Self {
        crate::overview::Facts {
            files: l.files,
            commands: l.commands,
            failures: l.failures,
            jobs: l.jobs,
            statuses,
            tokens: l.tokens,
        }
    }
}
