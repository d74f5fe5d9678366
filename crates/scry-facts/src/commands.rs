//! The commands ledger (SPEC S-F2): one row per shell tool call, paired with its result by
//! call id. Exit code and duration come only from the result (unknown stays `None`); the
//! `ssh` host is derived from the parsed command.

use scry_model::{Event, EventKind, Session};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::pairing::Pairs;
use crate::provenance::{Evidence, Origin, Provenance};
use crate::shell::{command_of, cwd_of, is_shell_tool, ssh_host};
use crate::text::{excerpt, Excerpt};

/// How a command ended, from its result only.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// Exit code 0, or no exit code but the provider's error flag is explicitly false.
    Succeeded,
    /// [`Event::is_failure`]: exit code ≠ 0, or no exit code and the error flag set.
    Failed,
    /// A result with neither an exit code nor an error flag.
    Unknown,
    /// No result was recorded (interrupted, or still running when the log ends).
    NoResult,
}

impl Outcome {
    /// The outcome of a result event (`None` = no result).
    pub fn of(result: Option<&Event>) -> Outcome {
        match result {
            None => Outcome::NoResult,
            Some(r) if r.is_failure() => Outcome::Failed,
            Some(r) if r.exit_code == Some(0) || r.is_error == Some(false) => Outcome::Succeeded,
            Some(_) => Outcome::Unknown,
        }
    }
}

/// One shell command.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CommandRow {
    /// The command string as the agent recorded it.
    pub command: String,
    /// The tool that ran it.
    pub tool: String,
    /// Working directory named in the call's arguments (or the result's receipt).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    /// Remote host (`ssh host …`, `scp … host:…`), derived.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
    /// Exit code from the result; `None` when not recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i64>,
    /// How it ended.
    pub outcome: Outcome,
    /// Duration from the result.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
    /// Asked to run in the background.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub background: bool,
    /// Output excerpt (the result text, or its structured `stdout`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stdout: Option<Excerpt>,
    /// Structured `stderr` when the provider keeps it apart.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stderr: Option<Excerpt>,
    /// Turn of the call.
    pub turn: u32,
    /// The result event.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Evidence>,
    /// Provenance (`observed`, `tool:<name>`) and the call's evidence.
    #[serde(flatten)]
    pub origin: Origin,
}

impl CommandRow {
    /// True when the command failed ([`Event::is_failure`] of its result).
    pub fn failed(&self) -> bool {
        self.outcome == Outcome::Failed
    }
}

/// The filters of `commands <id> [--failed] [--turn n] [--host h]` (S-C6); all must match.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CommandFilter {
    /// Only failed commands.
    pub failed: bool,
    /// Only this turn.
    pub turn: Option<u32>,
    /// Only commands run on this host (`user@host` accepted; compared without the user).
    pub host: Option<String>,
}

impl CommandFilter {
    /// True when `row` passes.
    pub fn matches(&self, row: &CommandRow) -> bool {
        let host = self
            .host
            .as_deref()
            .map(|h| h.rsplit('@').next().unwrap_or(h));
        (!self.failed || row.failed())
            && self.turn.is_none_or(|t| row.turn == t)
            && host.is_none_or(|h| row.host.as_deref() == Some(h))
    }

    /// The rows of `rows` that pass, in order.
    pub fn apply<'a>(&self, rows: &'a [CommandRow]) -> Vec<&'a CommandRow> {
        rows.iter().filter(|r| self.matches(r)).collect()
    }
}

/// Excerpt sizes: head and tail characters kept.
pub(crate) const HEAD: usize = 300;
pub(crate) const TAIL: usize = 700;

/// The commands ledger of `session`, in call order.
pub fn commands(session: &Session) -> Vec<CommandRow> {
    let events = &session.events;
    let pairs = Pairs::build(events);
    let mut out = Vec::new();
    for (i, e) in events.iter().enumerate() {
        if e.kind != EventKind::ToolCall {
            continue;
        }
        let Some(tool) = e.tool.as_deref().filter(|t| is_shell_tool(t)) else {
            continue;
        };
        let args = e.args.clone().unwrap_or(Value::Null);
        let Some(command) = command_of(&args) else {
            continue;
        };
        let result = pairs.result(i).and_then(|r| events.get(r));
        let data = result.and_then(|r| r.data.as_ref());
        // Structured output sits in `data` or, for Claude's `toolUseResult`, in `data.result`.
        let field = |k: &str| {
            data.and_then(|d| d.get(k).or_else(|| d.get("result").and_then(|r| r.get(k))))
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
        };
        let stdout = field("stdout")
            .or_else(|| result.map(|r| r.text.as_str()).filter(|t| !t.is_empty()))
            .map(|s| excerpt(s, HEAD, TAIL));
        let stderr = field("stderr").map(|s| excerpt(s, HEAD, TAIL));
        let cwd = cwd_of(&args).or_else(|| field("cwd").map(str::to_string));
        out.push(CommandRow {
            host: ssh_host(&command),
            command,
            tool: tool.to_string(),
            cwd,
            exit_code: result.and_then(|r| r.exit_code),
            outcome: Outcome::of(result),
            duration_ms: result.and_then(|r| r.duration_ms),
            background: crate::shell::tools::is_background(&args),
            stdout,
            stderr,
            turn: e.turn,
            result: result.map(Evidence::of),
            origin: Origin::new(Provenance::Observed, format!("tool:{tool}"), e),
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
    fn rows_with_exit_cwd_host_and_unknowns() {
        let mut s = Script::default();
        s.user("go")
            .call(
                "exec_command",
                "c1",
                json!({"cmd": ["bash", "-lc", "make"], "workdir": "/p"}),
            )
            .result("exec_command", "c1", "ok", Some(0), None)
            .call(
                "Bash",
                "c2",
                json!({"command": "ssh -p 22 deploy@web1 'systemctl restart app'"}),
            )
            .result("Bash", "c2", "boom", None, Some(true))
            .call("shell", "c3", json!({"command": ["ls", "-la"]}))
            .result("shell", "c3", "files", None, None)
            .call("Bash", "c4", json!({"command": "sleep 100"}));
        if let Some(e) = s.events.get_mut(2) {
            e.duration_ms = Some(1500);
        }
        let mut sess = Session::new(Header::new(ProviderId::Codex, "x"));
        sess.events = s.events;
        let rows = commands(&sess);
        assert_eq!(rows.len(), 4);
        assert_eq!(rows[0].command, "make");
        assert_eq!(rows[0].cwd.as_deref(), Some("/p"));
        assert_eq!(
            (rows[0].exit_code, rows[0].outcome),
            (Some(0), Outcome::Succeeded)
        );
        assert_eq!(rows[0].duration_ms, Some(1500));
        assert_eq!(rows[1].host.as_deref(), Some("web1"));
        assert_eq!(
            (rows[1].exit_code, rows[1].outcome),
            (None, Outcome::Failed)
        );
        assert_eq!(rows[2].command, "ls -la");
        assert_eq!(
            (rows[2].exit_code, rows[2].outcome),
            (None, Outcome::Unknown)
        );
        assert_eq!(rows[3].outcome, Outcome::NoResult);
        assert_eq!(rows[1].origin.extractor, "tool:Bash");
        assert_eq!(
            rows[1].result.as_ref().map(|r| r.handle()),
            Some("E5·T1".into())
        );
        let failed = CommandFilter {
            failed: true,
            ..CommandFilter::default()
        };
        assert_eq!(failed.apply(&rows).len(), 1);
        let web1 = CommandFilter {
            host: Some("root@web1".into()),
            turn: Some(1),
            ..CommandFilter::default()
        };
        assert_eq!(web1.apply(&rows).len(), 1);
        let t2 = CommandFilter {
            turn: Some(2),
            ..CommandFilter::default()
        };
        assert!(t2.apply(&rows).is_empty());
    }
}
