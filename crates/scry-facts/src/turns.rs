//! The per-turn summary of `turns <id>` (SPEC S-C3): time, duration, event range, files /
//! commands / failures counted from the same ledgers as everything else, what the user said,
//! what the agent answered (first lines), and the turn's status marks (S-F5).

use scry_model::{first_line, EventKind, Session, Timestamp, TurnSpan};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::overview::Facts;
use crate::status::StatusMark;

/// One turn, summarized.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TurnSummary {
    /// Turn number (0 = the preamble before the first prompt).
    pub turn: u32,
    /// First event (1-based `E<n>`).
    pub first_event: u32,
    /// Last event (1-based).
    pub last_event: u32,
    /// Earliest event time in the turn.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start: Option<Timestamp>,
    /// Latest event time in the turn.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end: Option<Timestamp>,
    /// `end - start` in milliseconds, when both are known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
    /// The duration the provider recorded for the turn's task (`task_complete.duration_ms`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recorded_duration_ms: Option<u64>,
    /// Write events (files ledger rows) in the turn.
    pub file_writes: usize,
    /// Shell commands in the turn.
    pub commands: usize,
    /// Failures (errors ledger rows) in the turn.
    pub failures: usize,
    /// Tool calls in the turn.
    pub tool_calls: usize,
    /// First line of the prompt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user: Option<String>,
    /// First line of the last assistant text of the turn.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer: Option<String>,
    /// Status marks (empty for the preamble).
    pub status: Vec<StatusMark>,
}

/// Characters kept of the prompt / answer line.
pub const LINE_CHARS: usize = 160;

/// Every turn of `session` (the preamble included when it has events), from `facts`.
pub fn turn_summaries(session: &Session, facts: &Facts) -> Vec<TurnSummary> {
    let events = &session.events;
    let spans: Vec<TurnSpan> = scry_model::turn_spans(events);
    let mut out = Vec::with_capacity(spans.len());
    for span in spans {
        let evs = events
            .get(span.start as usize..=span.end as usize)
            .unwrap_or(&[]);
        let start = evs.iter().filter_map(|e| e.time).min();
        let end = evs.iter().filter_map(|e| e.time).max();
        let duration_ms = match (start, end) {
            (Some(a), Some(b)) => u64::try_from(b.as_millisecond() - a.as_millisecond()).ok(),
            _ => None,
        };
        let recorded_duration_ms = evs
            .iter()
            .filter(|e| {
                e.subtype
                    .as_deref()
                    .is_some_and(|s| s.eq_ignore_ascii_case("task_complete"))
            })
            .find_map(|e| e.data.as_ref()?.get("duration_ms").and_then(Value::as_u64));
        let n = span.number;
        out.push(TurnSummary {
            turn: n,
            first_event: span.start + 1,
            last_event: span.end + 1,
            start,
            end,
            duration_ms,
            recorded_duration_ms,
            file_writes: facts.files.writes.iter().filter(|w| w.turn == n).count(),
            commands: facts.commands.iter().filter(|c| c.turn == n).count(),
            failures: facts.failures.iter().filter(|f| f.turn == n).count(),
            tool_calls: evs.iter().filter(|e| e.kind == EventKind::ToolCall).count(),
            user: evs
                .iter()
                .find(|e| e.kind == EventKind::User)
                .map(|e| first_line(&e.text, LINE_CHARS)),
            answer: evs
                .iter()
                .rev()
                .find(|e| e.kind == EventKind::Assistant && !e.text.trim().is_empty())
                .map(|e| first_line(&e.text, LINE_CHARS)),
            status: facts
                .statuses
                .iter()
                .find(|t| t.turn == n)
                .map(|t| t.marks.clone())
                .unwrap_or_default(),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pairing::testkit::Script;
    use crate::status::TurnState;
    use scry_model::{Header, ProviderId};
    use serde_json::json;

    #[test]
    fn summaries_count_from_the_ledgers() {
        let mut s = Script::default();
        s.meta("environment_context", None)
            .user("make notes\nmore detail")
            .call("Write", "w", json!({"file_path": "/p/n.md"}))
            .result("Write", "w", "ok", None, Some(false))
            .bash("b", "false", Some(1), "")
            .assistant("Wrote the notes.\nDetails…")
            .meta("task_complete", Some(json!({"duration_ms": 1234})))
            .user("继续");
        let t0: Timestamp = "2026-11-30T10:00:00Z".parse().unwrap_or_default();
        let t1: Timestamp = "2026-11-30T10:00:05Z".parse().unwrap_or_default();
        s.events[1].time = Some(t0);
        s.events[6].time = Some(t1);
        let mut h = Header::new(ProviderId::Claude, "x");
        h.cwd = Some("/p".into());
        let mut sess = Session::new(h);
        sess.events = s.events;
        let facts = Facts::of(&sess);
        let t = turn_summaries(&sess, &facts);
        assert_eq!(t.len(), 3);
        assert_eq!((t[0].turn, t[0].first_event, t[0].last_event), (0, 1, 1));
        let one = &t[1];
        assert_eq!((one.first_event, one.last_event), (2, 8));
        assert_eq!(one.duration_ms, Some(5000));
        assert_eq!(one.recorded_duration_ms, Some(1234));
        assert_eq!(
            (one.file_writes, one.commands, one.failures, one.tool_calls),
            (1, 1, 1, 2)
        );
        assert_eq!(one.user.as_deref(), Some("make notes"));
        assert_eq!(one.answer.as_deref(), Some("Wrote the notes."));
        assert!(one.status.iter().any(|m| m.state == TurnState::Completed));
        assert_eq!(t[2].user.as_deref(), Some("继续"));
    }
}
