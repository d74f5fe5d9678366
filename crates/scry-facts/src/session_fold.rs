//! Everything `digest`, `workspace` and `graph` read of one session, folded while its events
//! stream by (issue 17), so that none of them holds the session: the ledgers
//! ([`LedgerFold`]), the turn statuses (from a [`status_skeleton`] of each event, a few tens of
//! bytes), one [`TurnSummary`] per turn, the last answer, the reference candidates of the calls
//! that got a result, each event's time, and optionally the context pack ([`ContextFold`]).
//!
//! Each part equals what the whole-session function gives for the same events
//! ([`Facts::of`], [`turn_summaries`], [`reference_candidates`], [`context_pack`]); the corpus
//! tests check it on every session.
//!
//! [`turn_summaries`]: crate::turns::turn_summaries
//! [`reference_candidates`]: crate::graph::reference_candidates
//! [`context_pack`]: crate::surfaces::context_pack

use std::collections::HashMap;

use scry_model::{first_line, Event, EventKind, Header, Timestamp};
use serde_json::Value;

use crate::fold::LedgerFold;
use crate::graph::{call_candidates, ReferenceCandidate};
use crate::overview::{EventCounts, Facts};
use crate::pack_fold::ContextFold;
use crate::pairing::Pairs;
use crate::status::{status_skeleton, turn_statuses};
use crate::surfaces::ContextPack;
use crate::turns::{TurnSummary, LINE_CHARS};

/// One turn while it streams: what [`TurnSummary`] reads of its events.
#[derive(Debug)]
struct TurnAcc {
    number: u32,
    first: u32,
    last: u32,
    start: Option<Timestamp>,
    end: Option<Timestamp>,
    recorded: Option<u64>,
    tool_calls: usize,
    user: Option<String>,
    answer: Option<String>,
}

impl TurnAcc {
    fn new(e: &Event) -> TurnAcc {
        TurnAcc {
            number: e.turn,
            first: e.seq,
            last: e.seq,
            start: None,
            end: None,
            recorded: None,
            tool_calls: 0,
            user: None,
            answer: None,
        }
    }

    fn push(&mut self, e: &Event) {
        self.last = e.seq;
        if let Some(t) = e.time {
            self.start = Some(self.start.map_or(t, |s| s.min(t)));
            self.end = Some(self.end.map_or(t, |s| s.max(t)));
        }
        if self.recorded.is_none()
            && e.subtype
                .as_deref()
                .is_some_and(|s| s.eq_ignore_ascii_case("task_complete"))
        {
            self.recorded = e
                .data
                .as_ref()
                .and_then(|d| d.get("duration_ms"))
                .and_then(Value::as_u64);
        }
        match e.kind {
            EventKind::ToolCall => self.tool_calls += 1,
            EventKind::User if self.user.is_none() => {
                self.user = Some(first_line(&e.text, LINE_CHARS));
            }
            EventKind::Assistant if !e.text.trim().is_empty() => {
                self.answer = Some(first_line(&e.text, LINE_CHARS));
            }
            _ => {}
        }
    }
}

/// The facts of a session, folded one event at a time: [`SessionFold::push`] each event in
/// session order, then [`SessionFold::finish`] with the completed header.
#[derive(Default)]
pub struct SessionFold {
    ledgers: LedgerFold,
    skeletons: Vec<Event>,
    turns: Vec<TurnAcc>,
    final_answer: Option<String>,
    /// Reference candidates per call, by index into `skeletons`.
    calls: Vec<(usize, Vec<ReferenceCandidate>)>,
    pack: Option<ContextFold>,
}

/// What a [`SessionFold`] gives.
#[derive(Debug, Clone)]
pub struct FoldedSession {
    /// Events by kind, turns, tool calls (the card's counts).
    pub counts: EventCounts,
    /// Every fact, turn statuses included (equal to [`Facts::of`]).
    pub facts: Facts,
    /// Every turn, the preamble included when it has events (equal to `turn_summaries`).
    pub turns: Vec<TurnSummary>,
    /// The text of the last assistant event that is not blank.
    pub final_answer: Option<String>,
    /// The reference candidates of the calls that got a result, in call order.
    pub candidates: Vec<ReferenceCandidate>,
    /// Each event's time, by seq.
    pub times: Vec<Option<Timestamp>>,
    /// The context pack, when the fold was asked for one ([`SessionFold::with_pack`]).
    pub pack: Option<ContextPack>,
    /// Events folded.
    pub events: usize,
}

impl SessionFold {
    /// An empty fold.
    pub fn new() -> SessionFold {
        SessionFold::default()
    }

    /// An empty fold that also builds the context pack of `max_chars` characters.
    pub fn with_pack(max_chars: usize) -> SessionFold {
        SessionFold {
            pack: Some(ContextFold::new(max_chars)),
            ..SessionFold::default()
        }
    }

    /// Folds in the next event of the session.
    pub fn push(&mut self, e: Event) {
        self.ledgers.push(&e);
        if let Some(p) = &mut self.pack {
            p.push(&e);
        }
        if self.turns.last().is_none_or(|t| t.number != e.turn) {
            self.turns.push(TurnAcc::new(&e));
        }
        if let Some(t) = self.turns.last_mut() {
            t.push(&e);
        }
        if e.kind == EventKind::Assistant && !e.text.trim().is_empty() {
            self.final_answer = Some(e.text.clone());
        }
        if e.kind == EventKind::ToolCall {
            let c = call_candidates(&e);
            if !c.is_empty() {
                self.calls.push((self.skeletons.len(), c));
            }
        }
        self.skeletons.push(status_skeleton(e));
    }

    /// The folded facts of the session with `header`.
    pub fn finish(self, header: &Header) -> FoldedSession {
        let ledgers = self.ledgers.finish(header);
        let statuses = turn_statuses(&self.skeletons);
        let candidates = if self.calls.is_empty() {
            Vec::new()
        } else {
            let pairs = Pairs::build(&self.skeletons);
            self.calls
                .into_iter()
                .filter(|(i, _)| pairs.result(*i).is_some())
                .flat_map(|(_, c)| c)
                .collect()
        };
        let times = self.skeletons.iter().map(|e| e.time).collect();
        let events = self.skeletons.len();
        drop(self.skeletons);
        let facts = Facts {
            files: ledgers.files,
            commands: ledgers.commands,
            failures: ledgers.failures,
            jobs: ledgers.jobs,
            statuses,
            tokens: ledgers.tokens,
        };
        let mut writes: HashMap<u32, usize> = HashMap::new();
        for w in &facts.files.writes {
            *writes.entry(w.turn).or_default() += 1;
        }
        let mut commands: HashMap<u32, usize> = HashMap::new();
        for c in &facts.commands {
            *commands.entry(c.turn).or_default() += 1;
        }
        let mut failures: HashMap<u32, usize> = HashMap::new();
        for f in &facts.failures {
            *failures.entry(f.turn).or_default() += 1;
        }
        let mut status = HashMap::new();
        for s in &facts.statuses {
            status.entry(s.turn).or_insert(&s.marks);
        }
        let turns = self
            .turns
            .into_iter()
            .map(|t| {
                let n = t.number;
                let duration_ms = match (t.start, t.end) {
                    (Some(a), Some(b)) => {
                        u64::try_from(b.as_millisecond() - a.as_millisecond()).ok()
                    }
                    _ => None,
                };
                TurnSummary {
                    turn: n,
                    first_event: t.first + 1,
                    last_event: t.last + 1,
                    start: t.start,
                    end: t.end,
                    duration_ms,
                    recorded_duration_ms: t.recorded,
                    file_writes: writes.get(&n).copied().unwrap_or(0),
                    commands: commands.get(&n).copied().unwrap_or(0),
                    failures: failures.get(&n).copied().unwrap_or(0),
                    tool_calls: t.tool_calls,
                    user: t.user,
                    answer: t.answer,
                    status: status.get(&n).map(|m| (*m).clone()).unwrap_or_default(),
                }
            })
            .collect();
        FoldedSession {
            counts: ledgers.counts,
            facts,
            turns,
            final_answer: self.final_answer,
            candidates,
            times,
            pack: self.pack.map(ContextFold::finish),
            events,
        }
    }
}
