//! Turn status with evidence (SPEC S-F5). Several marks may apply to one turn.
//!
//! | mark | rule |
//! |---|---|
//! | `completed` | a native task-complete record for the turn, or the turn's last dialogue event is assistant text and the next turn is not a nudge |
//! | `unfinished` | a task-started record without a matching task-complete (×N = how many) |
//! | `nudged` | the following turn(s) are only a push to go on (`continue`, `继续`, `go on`, …), ×N consecutive |
//! | `interrupted` | a tool call in the turn without a result, or a task-aborted record |
//! | `no_response` | no assistant text in the turn |
//! | `failed_tail` | the turn's last tool result is a failure ([`Event::is_failure`]) and no assistant text follows it |
//!
//! Task lifecycle records: providers emit them as `Meta` / `System` events; this module reads
//! the event's `subtype` (or `data.type` when there is no subtype), normalized to lower case:
//! `task_started` / `turn_started` start a task, `task_complete` / `task_completed` /
//! `turn_complete` / `turn_completed` end it, `turn_aborted` / `task_aborted` abort it. The
//! task id is read from `data.turn_id` / `data.turnId` / `data.task_id` when present; starts
//! and ends are matched by id, else counted per turn. A start record logged just before the
//! prompt it belongs to (Codex writes `task_started` a few seconds before the user message)
//! is attributed to the turn that begins after it, as long as no model output lies between.

use std::collections::{BTreeMap, HashMap, HashSet};

use scry_model::{Event, EventKind, TurnSpan};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::pairing::Pairs;
use crate::provenance::Evidence;

/// One status label.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TurnState {
    /// The turn was wrapped up.
    Completed,
    /// A task started and never completed.
    Unfinished,
    /// The user had to push the agent on.
    Nudged,
    /// A tool call never got its result, or the task was aborted.
    Interrupted,
    /// No assistant text.
    NoResponse,
    /// Ends on a failing tool result with no assistant text after it.
    FailedTail,
}

/// One mark with its evidence.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StatusMark {
    /// The label.
    pub state: TurnState,
    /// ×N for `nudged` (consecutive nudge turns) and `unfinished` (open tasks).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count: Option<u32>,
    /// Why, in one line.
    pub detail: String,
    /// Events that prove it.
    pub evidence: Vec<Evidence>,
}

/// The marks of one turn.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TurnStatus {
    /// Turn number (1-based).
    pub turn: u32,
    /// Every mark that applies, in [`TurnState`] order.
    pub marks: Vec<StatusMark>,
}

impl TurnStatus {
    /// True when `state` applies.
    pub fn has(&self, state: TurnState) -> bool {
        self.marks.iter().any(|m| m.state == state)
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Life {
    Start,
    End,
    Abort,
}

fn lifecycle(e: &Event) -> Option<Life> {
    if !matches!(e.kind, EventKind::Meta | EventKind::System) {
        return None;
    }
    let name = e
        .subtype
        .clone()
        .or_else(|| {
            e.data
                .as_ref()
                .and_then(|d| d.get("type"))
                .and_then(Value::as_str)
                .map(str::to_string)
        })?
        .to_ascii_lowercase();
    match name.as_str() {
        "task_started" | "turn_started" => Some(Life::Start),
        "task_complete" | "task_completed" | "turn_complete" | "turn_completed" => Some(Life::End),
        "turn_aborted" | "task_aborted" => Some(Life::Abort),
        _ => None,
    }
}

fn task_id(e: &Event) -> Option<String> {
    let d = e.data.as_ref()?;
    ["turn_id", "turnId", "task_id", "taskId"]
        .iter()
        .find_map(|k| d.get(*k).and_then(Value::as_str).map(str::to_string))
}

/// True when a prompt only asks the agent to go on.
pub fn is_nudge(prompt: &str) -> bool {
    let t: String = prompt
        .trim()
        .trim_matches(|c: char| {
            c.is_ascii_punctuation() || "。！，～…".contains(c) || c.is_whitespace()
        })
        .to_lowercase();
    if t.is_empty() {
        return false;
    }
    const EXACT: &[&str] = &[
        "continue",
        "go on",
        "keep going",
        "go ahead",
        "proceed",
        "carry on",
        "resume",
        "next",
        "please continue",
        "continue please",
        "ok continue",
        "okay continue",
        "yes continue",
        "继续",
        "继续吧",
        "请继续",
        "接着",
        "接着做",
        "继续执行",
        "继续做",
        "go",
        "continua",
        "weiter",
        "続けて",
    ];
    if EXACT.contains(&t.as_str()) {
        return true;
    }
    // Typos and cut-offs of "continue" (`contin`, `conitnue` is not matched).
    t.len() >= 4 && "continue".starts_with(t.as_str())
}

fn is_output(e: &Event) -> bool {
    matches!(
        e.kind,
        EventKind::Assistant | EventKind::Thinking | EventKind::ToolCall | EventKind::ToolResult
    )
}

/// The part of `e` the turn statuses read ([`turn_statuses`]): kind, turn, seq, locator, call
/// id, exit code and error flag; a prompt's text only when it is a nudge; a lifecycle record's
/// task keys. Everything else (text, arguments, output, usage) is dropped, so holding every
/// event of a 300 MB session costs a few tens of bytes per event, not the session.
pub fn status_skeleton(mut e: Event) -> Event {
    if !(e.kind == EventKind::User && is_nudge(&e.text)) {
        e.text = String::new();
    }
    e.args = None;
    e.tool = None;
    e.usage = None;
    e.model = None;
    e.data = match e.kind {
        EventKind::Meta | EventKind::System => e.data.take().map(|d| {
            let mut keep = serde_json::Map::new();
            for k in ["type", "turn_id", "turnId", "task_id", "taskId"] {
                if let Some(v) = d.get(k) {
                    keep.insert(k.to_string(), v.clone());
                }
            }
            Value::Object(keep)
        }),
        _ => None,
    };
    if !matches!(e.kind, EventKind::Meta | EventKind::System) {
        e.subtype = None;
    }
    e
}

/// The status of every turn (turn 0, the preamble, excluded).
pub fn turn_statuses(events: &[Event]) -> Vec<TurnStatus> {
    let spans: Vec<TurnSpan> = scry_model::turn_spans(events)
        .into_iter()
        .filter(|s| s.number > 0)
        .collect();
    let pairs = Pairs::build(events);

    // Lifecycle records, attributed to turns. `next_user[i]` = index of the first User event
    // after `i` when no model output lies between (one backward pass, O(n)).
    let mut next_user: Vec<Option<usize>> = vec![None; events.len()];
    let mut pending: Option<usize> = None;
    for (i, e) in events.iter().enumerate().rev() {
        if let Some(slot) = next_user.get_mut(i) {
            *slot = pending;
        }
        if e.kind == EventKind::User {
            pending = Some(i);
        } else if is_output(e) {
            pending = None;
        }
    }
    let mut starts: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
    let mut ends: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
    let mut aborts: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
    let mut ended_ids: HashSet<String> = HashSet::new();
    for (i, e) in events.iter().enumerate() {
        let Some(l) = lifecycle(e) else { continue };
        let mut turn = e.turn;
        if l == Life::Start {
            if let Some(u) = next_user
                .get(i)
                .copied()
                .flatten()
                .and_then(|u| events.get(u))
            {
                turn = u.turn;
            }
        } else if let Some(id) = task_id(e) {
            ended_ids.insert(id);
        }
        let map = match l {
            Life::Start => &mut starts,
            Life::End => &mut ends,
            Life::Abort => &mut aborts,
        };
        map.entry(turn).or_default().push(i);
    }
    let in_turn = |map: &BTreeMap<u32, Vec<usize>>, turn: u32| -> Vec<&Event> {
        map.get(&turn)
            .map(|v| v.iter().filter_map(|i| events.get(*i)).collect())
            .unwrap_or_default()
    };
    let span_start: HashMap<u32, usize> =
        spans.iter().map(|s| (s.number, s.start as usize)).collect();
    let prompt_of = |turn: u32| -> Option<&Event> {
        span_start
            .get(&turn)
            .and_then(|i| events.get(*i))
            .filter(|e| e.kind == EventKind::User)
    };

    let mut out = Vec::new();
    for span in &spans {
        let (a, b) = (span.start as usize, span.end as usize);
        let evs: Vec<(usize, &Event)> = events
            .get(a..=b)
            .unwrap_or(&[])
            .iter()
            .enumerate()
            .map(|(k, e)| (a + k, e))
            .collect();
        let mut marks = Vec::new();

        // Nudges: consecutive following turns that only say "continue".
        let mut nudges = Vec::new();
        let mut t = span.number + 1;
        while let Some(p) = prompt_of(t).filter(|p| is_nudge(&p.text)) {
            nudges.push(p);
            t += 1;
        }

        // Completed.
        let native_end = in_turn(&ends, span.number);
        let last_dialogue = evs
            .iter()
            .rev()
            .map(|(_, e)| *e)
            .find(|e| is_output(e) || e.kind == EventKind::User);
        if let Some(end) = native_end.first() {
            marks.push(StatusMark {
                state: TurnState::Completed,
                count: None,
                detail: "the provider recorded the task's completion".into(),
                evidence: vec![Evidence::of(end)],
            });
        } else if let Some(last) = last_dialogue.filter(|e| e.kind == EventKind::Assistant) {
            if nudges.is_empty() {
                marks.push(StatusMark {
                    state: TurnState::Completed,
                    count: None,
                    detail: "ends on assistant text and the next turn is not a nudge".into(),
                    evidence: vec![Evidence::of(last)],
                });
            }
        }

        // Unfinished.
        let turn_starts = in_turn(&starts, span.number);
        let turn_ends = in_turn(&ends, span.number);
        let turn_aborts = in_turn(&aborts, span.number);
        let open: Vec<&Event> = turn_starts
            .iter()
            .copied()
            .filter(|s| task_id(s).is_some_and(|id| !ended_ids.contains(&id)))
            .collect();
        let anonymous_starts = turn_starts.iter().filter(|e| task_id(e).is_none()).count();
        let anonymous_ends = turn_ends
            .iter()
            .chain(turn_aborts.iter())
            .filter(|e| task_id(e).is_none())
            .count();
        let open_count = open.len() + anonymous_starts.saturating_sub(anonymous_ends);
        if open_count > 0 {
            let mut ev: Vec<Evidence> = open.iter().map(|e| Evidence::of(e)).collect();
            if ev.is_empty() {
                ev.extend(turn_starts.iter().map(|e| Evidence::of(e)));
            }
            marks.push(StatusMark {
                state: TurnState::Unfinished,
                count: Some(u32::try_from(open_count).unwrap_or(u32::MAX)),
                detail: "task started without a matching completion".into(),
                evidence: ev,
            });
        }

        // Nudged.
        if let Some(first) = nudges.first() {
            marks.push(StatusMark {
                state: TurnState::Nudged,
                count: Some(u32::try_from(nudges.len()).unwrap_or(u32::MAX)),
                detail: format!("the next turn only says {:?}", first.text.trim()),
                evidence: nudges.iter().map(|e| Evidence::of(e)).collect(),
            });
        }

        // Interrupted.
        let mut cut: Vec<Evidence> = evs
            .iter()
            .filter(|(i, e)| e.kind == EventKind::ToolCall && pairs.result(*i).is_none())
            .map(|(_, e)| Evidence::of(e))
            .collect();
        cut.extend(turn_aborts.iter().map(|e| Evidence::of(e)));
        if !cut.is_empty() {
            marks.push(StatusMark {
                state: TurnState::Interrupted,
                count: None,
                detail: "a tool call has no result, or the task was aborted".into(),
                evidence: cut,
            });
        }

        // No response.
        if !evs.iter().any(|(_, e)| e.kind == EventKind::Assistant) {
            let prompt = evs.first().map(|(_, e)| Evidence::of(e));
            marks.push(StatusMark {
                state: TurnState::NoResponse,
                count: None,
                detail: "no assistant text in the turn".into(),
                evidence: prompt.into_iter().collect(),
            });
        }

        // Failed tail.
        if let Some((pos, last_result)) = evs
            .iter()
            .enumerate()
            .rev()
            .find(|(_, (_, e))| e.kind == EventKind::ToolResult)
        {
            let after_text = evs
                .iter()
                .skip(pos + 1)
                .any(|(_, e)| e.kind == EventKind::Assistant);
            if last_result.1.is_failure() && !after_text {
                marks.push(StatusMark {
                    state: TurnState::FailedTail,
                    count: None,
                    detail: match last_result.1.exit_code {
                        Some(c) => format!("ends on a failing tool result (exit {c})"),
                        None => "ends on a tool result flagged as an error".into(),
                    },
                    evidence: vec![Evidence::of(last_result.1)],
                });
            }
        }

        marks.sort_by_key(|m| m.state);
        out.push(TurnStatus {
            turn: span.number,
            marks,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pairing::testkit::Script;
    use serde_json::json;

    fn states(s: &Script) -> Vec<Vec<TurnState>> {
        turn_statuses(&s.events)
            .into_iter()
            .map(|t| t.marks.into_iter().map(|m| m.state).collect())
            .collect()
    }

    #[test]
    fn nudges_in_english_and_chinese() {
        for p in [
            "continue",
            "Continue.",
            "继续",
            "继续。",
            "go on",
            "contin",
            "keep going!",
        ] {
            assert!(is_nudge(p), "{p}");
        }
        for p in [
            "continue with the tests and fix the bug",
            "con",
            "fix it",
            "",
        ] {
            assert!(!is_nudge(p), "{p}");
        }
    }

    #[test]
    fn completed_nudged_and_counts() {
        let mut s = Script::default();
        s.user("build the thing")
            .assistant("working on it")
            .user("contin")
            .assistant("still going")
            .user("继续")
            .assistant("done");
        let st = turn_statuses(&s.events);
        assert_eq!(st[0].marks[0].state, TurnState::Nudged);
        assert_eq!(st[0].marks[0].count, Some(2));
        assert_eq!(st[0].marks[0].evidence.len(), 2);
        assert_eq!(states(&s)[1], vec![TurnState::Nudged]);
        assert_eq!(states(&s)[2], vec![TurnState::Completed]);
    }

    #[test]
    fn interrupted_no_response_failed_tail() {
        let mut s = Script::default();
        s.user("run it")
            .call("Bash", "a", json!({"command": "sleep 100"}))
            .user("run tests")
            .bash("b", "cargo test", Some(101), "FAILED")
            .user("again")
            .bash("c", "cargo test", Some(1), "FAILED")
            .assistant("the tests fail because …");
        assert_eq!(
            states(&s),
            vec![
                vec![TurnState::Interrupted, TurnState::NoResponse],
                vec![TurnState::NoResponse, TurnState::FailedTail],
                vec![TurnState::Completed],
            ]
        );
    }

    #[test]
    fn task_lifecycle_unfinished_and_native_complete() {
        let mut s = Script::default();
        s.meta("task_started", Some(json!({"turn_id": "t1"})))
            .user("first")
            .assistant("ok")
            .meta("task_complete", Some(json!({"turn_id": "t1"})))
            .meta("task_started", Some(json!({"turn_id": "t2"})))
            .user("second")
            .call("exec_command", "x", json!({"cmd": "ls"}))
            .result("exec_command", "x", "", Some(0), None)
            .meta("task_started", Some(json!({"turn_id": "t3"})))
            .user("third")
            .meta("turn_aborted", Some(json!({"turn_id": "t3"})));
        let st = turn_statuses(&s.events);
        assert_eq!(st[0].marks[0].state, TurnState::Completed);
        assert_eq!(st[0].marks[0].evidence[0].handle(), "E4·T1");
        let second: Vec<TurnState> = st[1].marks.iter().map(|m| m.state).collect();
        assert_eq!(second, vec![TurnState::Unfinished, TurnState::NoResponse]);
        assert_eq!(st[1].marks[0].count, Some(1));
        let third: Vec<TurnState> = st[2].marks.iter().map(|m| m.state).collect();
        assert_eq!(third, vec![TurnState::Interrupted, TurnState::NoResponse]);
    }
}
