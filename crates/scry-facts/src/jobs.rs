//! Background jobs (SPEC S-F4): tasks started to run detached, with a status taken from
//! receipts only — no receipt, `unknown` (P3).
//!
//! Recognised starts:
//! - any tool call with `run_in_background: true` (Claude `Bash`, `Agent`, …); its id is read
//!   from the result text `… with ID: <id>` (or `task_id` / `shell_id` / `bash_id` in the
//!   result's data);
//! - a result saying the call went on asynchronously (Claude `Agent`: `toolUseResult` with
//!   `isAsync: true` / `status: "async_launched"` and `agentId`);
//! - a Codex `exec_command` whose result says `Process running with session ID <n>`.
//!
//! Recognised receipts (the last one wins):
//! - results of `BashOutput` / `TaskOutput` (args `bash_id` / `task_id` / `shell_id` / `id`):
//!   `<status>running|completed|failed|killed</status>`, `<exit_code>n</exit_code>`;
//! - results of `KillShell` / `KillBash` / `TaskStop`: killed;
//! - any event whose text holds a `<task-notification>` with `<task-id>` and `<status>`;
//! - results of Codex `write_stdin` with the same `session_id`: `Process exited with code n`
//!   (0 → completed, else failed) or `Process running with session ID n` (running).

use std::sync::LazyLock;

use regex::Regex;
use scry_model::{Event, EventKind, Session};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::pairing::Pairs;
use crate::provenance::{Evidence, Origin, Provenance};
use crate::shell::command_of;
use crate::shell::tools::is_background;

/// A job's status, from receipts only.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum JobStatus {
    /// The last receipt says it was still running.
    Running,
    /// Completed (exit 0 where an exit code is given).
    Completed,
    /// Ended with a failure.
    Failed,
    /// Killed / stopped.
    Killed,
    /// No receipt: nothing proves how it ended.
    Unknown,
}

/// One background job.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Job {
    /// The job id the agent assigned, when recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// Tool that started it.
    pub tool: String,
    /// The command, for shell jobs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    /// Status from the last receipt.
    pub status: JobStatus,
    /// Exit code from a receipt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i64>,
    /// The last receipt's event.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub receipt: Option<Evidence>,
    /// The rule that read the receipt (`receipt:BashOutput`, `receipt:task-notification`, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub receipt_extractor: Option<String>,
    /// Turn it started in.
    pub turn: u32,
    /// Provenance of the start (`observed`, `tool:<name>`) and its evidence.
    #[serde(flatten)]
    pub origin: Origin,
}

fn re(p: &str) -> Option<Regex> {
    Regex::new(p).ok()
}

pub(crate) static BG_ID: LazyLock<Option<Regex>> =
    LazyLock::new(|| re(r"(?i)(?:with ID|task id|shell id|bash id)[:\s]+([A-Za-z0-9_\-]+)"));
pub(crate) static CODEX_RUNNING: LazyLock<Option<Regex>> =
    LazyLock::new(|| re(r"Process running with session ID (\d+)"));
pub(crate) static CODEX_EXITED: LazyLock<Option<Regex>> =
    LazyLock::new(|| re(r"Process exited with code (-?\d+)"));
pub(crate) static STATUS_TAG: LazyLock<Option<Regex>> =
    LazyLock::new(|| re(r"<status>\s*(\w+)\s*</status>"));
pub(crate) static EXIT_TAG: LazyLock<Option<Regex>> =
    LazyLock::new(|| re(r"<exit[_-]code>\s*(-?\d+)\s*</exit[_-]code>"));
pub(crate) static NOTIFY_ID: LazyLock<Option<Regex>> =
    LazyLock::new(|| re(r"<(?:task|shell|bash)[_-]id>\s*([^<\s]+)\s*</"));

pub(crate) fn cap1(r: &LazyLock<Option<Regex>>, text: &str) -> Option<String> {
    r.as_ref()?
        .captures(text)?
        .get(1)
        .map(|m| m.as_str().to_string())
}

pub(crate) fn status_word(s: &str) -> Option<JobStatus> {
    match s.to_ascii_lowercase().as_str() {
        "running" | "pending" | "in_progress" => Some(JobStatus::Running),
        "completed" | "complete" | "done" | "success" | "succeeded" | "finished" => {
            Some(JobStatus::Completed)
        }
        "failed" | "error" | "failure" => Some(JobStatus::Failed),
        "killed" | "stopped" | "cancelled" | "canceled" | "aborted" => Some(JobStatus::Killed),
        _ => None,
    }
}

struct Receipt {
    id: String,
    status: JobStatus,
    exit: Option<i64>,
    at: usize,
    extractor: String,
}

pub(crate) fn arg_id(args: Option<&Value>, keys: &[&str]) -> Option<String> {
    let a = args?;
    keys.iter().find_map(|k| match a.get(*k)? {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    })
}

fn receipts(events: &[Event], pairs: &Pairs) -> Vec<Receipt> {
    let mut out = Vec::new();
    for (i, e) in events.iter().enumerate() {
        if e.kind == EventKind::ToolResult {
            let call = pairs.call(i).and_then(|c| events.get(c));
            let tool = e
                .tool
                .clone()
                .or_else(|| call.and_then(|c| c.tool.clone()))
                .unwrap_or_default();
            let args = call.and_then(|c| c.args.as_ref());
            match tool.as_str() {
                "BashOutput" | "TaskOutput" => {
                    if let Some(id) = arg_id(args, &["bash_id", "task_id", "shell_id", "id"]) {
                        let status = cap1(&STATUS_TAG, &e.text).and_then(|s| status_word(&s));
                        let exit = cap1(&EXIT_TAG, &e.text).and_then(|s| s.parse().ok());
                        let status = status.or(match exit {
                            Some(0) => Some(JobStatus::Completed),
                            Some(_) => Some(JobStatus::Failed),
                            None => None,
                        });
                        if let Some(status) = status {
                            out.push(Receipt {
                                id,
                                status,
                                exit,
                                at: i,
                                extractor: format!("receipt:{tool}"),
                            });
                        }
                    }
                }
                "KillShell" | "KillBash" | "TaskStop" => {
                    if let Some(id) = arg_id(args, &["shell_id", "bash_id", "task_id", "id"]) {
                        if !e.is_failure() {
                            out.push(Receipt {
                                id,
                                status: JobStatus::Killed,
                                exit: None,
                                at: i,
                                extractor: format!("receipt:{tool}"),
                            });
                        }
                    }
                }
                "write_stdin" => {
                    if let Some(id) = arg_id(args, &["session_id"]) {
                        let exit: Option<i64> =
                            cap1(&CODEX_EXITED, &e.text).and_then(|s| s.parse().ok());
                        let status = match exit {
                            Some(0) => Some(JobStatus::Completed),
                            Some(_) => Some(JobStatus::Failed),
                            None => cap1(&CODEX_RUNNING, &e.text).map(|_| JobStatus::Running),
                        };
                        if let Some(status) = status {
                            out.push(Receipt {
                                id,
                                status,
                                exit,
                                at: i,
                                extractor: "receipt:write_stdin".into(),
                            });
                        }
                    }
                }
                _ => {}
            }
        }
        if e.text.contains("<task-notification>") {
            if let (Some(id), Some(status)) = (
                cap1(&NOTIFY_ID, &e.text),
                cap1(&STATUS_TAG, &e.text).and_then(|s| status_word(&s)),
            ) {
                out.push(Receipt {
                    id,
                    status,
                    exit: cap1(&EXIT_TAG, &e.text).and_then(|s| s.parse().ok()),
                    at: i,
                    extractor: "receipt:task-notification".into(),
                });
            }
        }
    }
    out
}

/// A result saying the call went on in the background (Claude `toolUseResult` with
/// `isAsync: true` / `status: async_launched`, in `data` or `data.result`): its agent / task id.
pub(crate) fn async_launch(r: &Event) -> Option<String> {
    let d = r.data.as_ref()?;
    let d = d.get("result").filter(|x| x.is_object()).unwrap_or(d);
    let launched = d.get("isAsync").and_then(Value::as_bool) == Some(true)
        || d.get("status").and_then(Value::as_str) == Some("async_launched");
    if !launched {
        return None;
    }
    Some(arg_id(Some(d), &["agentId", "taskId", "task_id", "id"]).unwrap_or_default())
}

/// The background jobs of `session`, in start order.
pub fn jobs(session: &Session) -> Vec<Job> {
    let events = &session.events;
    let pairs = Pairs::build(events);
    let receipts = receipts(events, &pairs);
    let mut out = Vec::new();
    for (i, e) in events.iter().enumerate() {
        if e.kind != EventKind::ToolCall {
            continue;
        }
        let tool = e.tool.clone().unwrap_or_default();
        let args = e.args.as_ref();
        let result = pairs.result(i).and_then(|r| events.get(r));
        let id = if args.is_some_and(is_background) {
            result
                .and_then(|r| {
                    cap1(&BG_ID, &r.text).or_else(|| {
                        arg_id(
                            r.data.as_ref(),
                            &["backgroundTaskId", "task_id", "shell_id", "bash_id"],
                        )
                    })
                })
                .or(Some(String::new()))
        } else if let Some(id) = result.and_then(async_launch) {
            Some(id)
        } else if tool == "exec_command" {
            result.and_then(|r| cap1(&CODEX_RUNNING, &r.text))
        } else {
            None
        };
        let Some(id) = id else { continue };
        let id = (!id.is_empty()).then_some(id);
        let last = id.as_ref().and_then(|id| {
            receipts
                .iter()
                .filter(|r| &r.id == id && r.at > i)
                .max_by_key(|r| r.at)
        });
        out.push(Job {
            command: args.and_then(command_of),
            status: last.map_or(JobStatus::Unknown, |r| r.status),
            exit_code: last.and_then(|r| r.exit),
            receipt: last.and_then(|r| events.get(r.at)).map(Evidence::of),
            receipt_extractor: last.map(|r| r.extractor.clone()),
            turn: e.turn,
            origin: Origin::new(Provenance::Observed, format!("tool:{tool}"), e),
            id,
            tool,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pairing::testkit::Script;
    use scry_model::{Header, ProviderId};
    use serde_json::json;

    #[test]
    fn statuses_from_receipts_only() {
        let mut s = Script::default();
        s.user("serve")
            .call(
                "Bash",
                "a",
                json!({"command": "npm run dev", "run_in_background": true}),
            )
            .result(
                "Bash",
                "a",
                "Command running in background with ID: bash_1",
                None,
                Some(false),
            )
            .call(
                "Bash",
                "b",
                json!({"command": "sleep 999", "run_in_background": true}),
            )
            .result(
                "Bash",
                "b",
                "Command running in background with ID: bash_2",
                None,
                Some(false),
            )
            .call("BashOutput", "c", json!({"bash_id": "bash_1"}))
            .result(
                "BashOutput",
                "c",
                "<status>completed</status>\n<exit_code>0</exit_code>",
                None,
                Some(false),
            )
            .call("exec_command", "d", json!({"cmd": "cargo build"}))
            .result(
                "exec_command",
                "d",
                "Process running with session ID 7",
                None,
                None,
            )
            .call("write_stdin", "e", json!({"session_id": 7, "chars": ""}))
            .result("write_stdin", "e", "Process exited with code 2", None, None)
            .call(
                "Bash",
                "f",
                json!({"command": "tail -f x", "run_in_background": true}),
            )
            .result(
                "Bash",
                "f",
                "Command running in background with ID: bash_3",
                None,
                Some(false),
            )
            .call("KillShell", "g", json!({"shell_id": "bash_3"}))
            .result(
                "KillShell",
                "g",
                "Successfully killed shell: bash_3",
                None,
                Some(false),
            );
        let mut sess = Session::new(Header::new(ProviderId::Claude, "x"));
        sess.events = s.events;
        let j = jobs(&sess);
        let got: Vec<(Option<&str>, JobStatus, Option<i64>)> = j
            .iter()
            .map(|j| (j.id.as_deref(), j.status, j.exit_code))
            .collect();
        assert_eq!(
            got,
            vec![
                (Some("bash_1"), JobStatus::Completed, Some(0)),
                (Some("bash_2"), JobStatus::Unknown, None),
                (Some("7"), JobStatus::Failed, Some(2)),
                (Some("bash_3"), JobStatus::Killed, None),
            ]
        );
        assert_eq!(
            j[0].receipt_extractor.as_deref(),
            Some("receipt:BashOutput")
        );
    }

    #[test]
    fn task_notification_is_a_receipt() {
        let mut s = Script::default();
        s.user("go")
            .call("Agent", "a", json!({"prompt": "count", "run_in_background": true}))
            .result("Agent", "a", "Async agent launched. task id: ag_9", None, Some(false))
            .kind(
                EventKind::Meta,
                Some("task_notification"),
                "<task-notification>\n<task-id>ag_9</task-id>\n<status>failed</status>\n</task-notification>",
            );
        let mut sess = Session::new(Header::new(ProviderId::Claude, "x"));
        sess.events = s.events;
        let j = jobs(&sess);
        assert_eq!(j.len(), 1);
        assert_eq!(j[0].status, JobStatus::Failed);
    }
}
