//! The errors ledger (SPEC S-F4): every tool result that is a failure by the one definition,
//! [`scry_model::Event::is_failure`] (exit code ≠ 0, or no exit code and the provider's error
//! flag). Each shows an excerpt of its output and whether it was fixed later: for a shell
//! command, a later command with the same first two words succeeded; for another tool, a later
//! call of the same tool on the same path (or with the same arguments) succeeded.

use scry_model::{Event, EventKind, Session};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::commands::Outcome;
use crate::file_tools::path_of;
use crate::pairing::Pairs;
use crate::provenance::{Evidence, Origin, Provenance};
use crate::shell::{command_of, is_shell_tool};
use crate::text::{command_prefix, excerpt, Excerpt};

/// Words of a command compared to decide "the same command".
pub const PREFIX_WORDS: usize = 2;

/// One failure.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Failure {
    /// Tool name.
    pub tool: String,
    /// The command, for shell tools.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    /// Exit code when recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i64>,
    /// The provider's error flag.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
    /// stderr (when kept apart) or the output.
    pub output: Excerpt,
    /// Turn of the result.
    pub turn: u32,
    /// The call, when paired.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call: Option<Evidence>,
    /// The later successful call that fixed it, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fixed_by: Option<Evidence>,
    /// Provenance (`observed`, `tool:<name>`) with the result's evidence.
    #[serde(flatten)]
    pub origin: Origin,
}

impl Failure {
    /// True when a later matching call succeeded.
    pub fn fixed_later(&self) -> bool {
        self.fixed_by.is_some()
    }
}

/// What identifies "the same action" for the fixed-later check.
fn action_key(tool: &str, args: Option<&Value>) -> String {
    let args = args.cloned().unwrap_or(Value::Null);
    if is_shell_tool(tool) {
        if let Some(c) = command_of(&args) {
            return format!("shell\u{1}{}", command_prefix(&c, PREFIX_WORDS));
        }
    }
    match path_of(&args) {
        Some(p) => format!("{tool}\u{1}{p}"),
        None => format!("{tool}\u{1}{args}"),
    }
}

/// The failures of `session`, in session order.
pub fn failures(session: &Session) -> Vec<Failure> {
    let events = &session.events;
    let pairs = Pairs::build(events);
    // Successful calls, by key, in order: (call index, call evidence).
    let mut successes: Vec<(usize, String)> = Vec::new();
    for (i, e) in events.iter().enumerate() {
        if e.kind == EventKind::ToolCall {
            let r = pairs.result(i).and_then(|r| events.get(r));
            if Outcome::of(r) == Outcome::Succeeded {
                successes.push((
                    i,
                    action_key(e.tool.as_deref().unwrap_or(""), e.args.as_ref()),
                ));
            }
        }
    }
    let mut out = Vec::new();
    for (ri, r) in events.iter().enumerate() {
        if r.kind != EventKind::ToolResult || !r.is_failure() {
            continue;
        }
        let call_i = pairs.call(ri);
        let call = call_i.and_then(|c| events.get(c));
        let tool = r
            .tool
            .clone()
            .or_else(|| call.and_then(|c| c.tool.clone()))
            .unwrap_or_default();
        let command = call
            .filter(|_| is_shell_tool(&tool))
            .and_then(|c| c.args.as_ref())
            .and_then(command_of);
        let fixed_by = call_i.and_then(|ci| {
            let key = action_key(&tool, call.and_then(|c| c.args.as_ref()));
            successes
                .iter()
                .find(|(si, k)| *si > ci && *k == key)
                .and_then(|(si, _)| events.get(*si))
                .map(Evidence::of)
        });
        let stderr = stderr_of(r);
        out.push(Failure {
            command,
            exit_code: r.exit_code,
            is_error: r.is_error,
            output: excerpt(stderr.unwrap_or(&r.text), 300, 700),
            turn: r.turn,
            call: call.map(Evidence::of),
            fixed_by,
            origin: Origin::new(Provenance::Observed, format!("tool:{tool}"), r),
            tool,
        });
    }
    out
}

/// The non-blank stderr a tool result recorded (`data.stderr` or `data.result.stderr`).
pub(crate) fn stderr_of(r: &Event) -> Option<&str> {
    r.data
        .as_ref()
        .and_then(|d| {
            d.get("stderr")
                .or_else(|| d.get("result").and_then(|x| x.get("stderr")))
        })
        .and_then(Value::as_str)
        .filter(|s| !s.trim().is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pairing::testkit::Script;
    use scry_model::{Header, ProviderId};
    use serde_json::json;

    #[test]
    fn failures_with_fixed_later() {
        let mut s = Script::default();
        s.user("build")
            .bash("b1", "cargo build --release", Some(101), "error[E0425]")
            .bash("b2", "cat missing.txt", None, "No such file")
            .call("Edit", "e1", json!({"file_path": "a.rs"}))
            .result("Edit", "e1", "not found", None, Some(true))
            .bash("b3", "cargo build", Some(0), "ok")
            .bash("b4", "ls", Some(0), "");
        // b2 has no exit code and no error flag (Script sets none for None exit) → not a failure.
        let mut sess = Session::new(Header::new(ProviderId::Claude, "x"));
        sess.events = s.events;
        let f = failures(&sess);
        assert_eq!(f.len(), 2);
        assert_eq!(f[0].command.as_deref(), Some("cargo build --release"));
        assert_eq!(f[0].exit_code, Some(101));
        assert_eq!(
            f[0].fixed_by.as_ref().map(Evidence::handle),
            Some("E8·T1".into())
        );
        assert_eq!(f[1].tool, "Edit");
        assert!(!f[1].fixed_later());
        assert_eq!(f[1].output.text, "not found");
    }
}
