//! The export's reading in two passes, so a document of any session is written while its events
//! stream and memory stays bounded by the calls still waiting for their results, not by the
//! session (SPEC P6; a 300 MB transcript exports in tens of MB).
//!
//! Pass one ([`Plan::read`]) keeps only the completed header, the warnings, the turn numbers in
//! order, the event count and, per tool-call id, how many results carry it. Pass two
//! ([`Grouper`]) groups events the way the document shows them: a call with every result of its
//! id (results that come before their call wait for it; a call waits for its results, and so do
//! the pieces after it, which is a few events in practice), a result whose id no call has as an
//! orphan, every other event as text.

use std::collections::{HashMap, HashSet, VecDeque};

use scry_model::{Event, EventKind, Header, Warning};

use crate::error::CliResult;
use crate::session_read::{FnSink, Opened};

/// What the first pass learns.
pub struct Plan {
    /// The completed header.
    pub header: Header,
    /// The read warnings.
    pub warnings: Vec<Warning>,
    /// Turn numbers, one per run of events with the same turn, in order.
    pub turns: Vec<u32>,
    /// Every event.
    pub events: usize,
    /// Per tool-call id: how many results carry it.
    results: HashMap<String, usize>,
}

impl Plan {
    /// Streams the session once, keeping only the plan.
    pub fn read(opened: &Opened) -> CliResult<Plan> {
        let mut warnings = Vec::new();
        let mut turns: Vec<u32> = Vec::new();
        let mut events = 0usize;
        let mut calls: HashSet<String> = HashSet::new();
        let mut results: HashMap<String, usize> = HashMap::new();
        let header = {
            let mut sink = FnSink {
                on_event: |e: Event| {
                    events += 1;
                    if turns.last() != Some(&e.turn) {
                        turns.push(e.turn);
                    }
                    match (e.kind, e.call_id) {
                        (EventKind::ToolCall, Some(id)) => {
                            calls.insert(id);
                        }
                        (EventKind::ToolResult, Some(id)) => {
                            *results.entry(id).or_default() += 1;
                        }
                        _ => {}
                    }
                },
                on_warning: |w: Warning| warnings.push(w),
            };
            opened.stream(&mut sink)?
        };
        // Only the ids some call has: the others' results are orphans.
        let mut paired: HashMap<String, usize> = calls.into_iter().map(|id| (id, 0)).collect();
        for (id, n) in results {
            if let Some(slot) = paired.get_mut(&id) {
                *slot = n;
            }
        }
        Ok(Plan {
            header,
            warnings,
            turns,
            events,
            results: paired,
        })
    }
}

/// What the document shows, in order.
pub enum Piece {
    /// A new turn begins (every run of events with the same turn number, as pass one counts).
    Turn(u32),
    /// A user / assistant / system / compaction / meta / thinking event.
    Text(Event),
    /// A tool call and every result with its id (the first call with an id takes them all).
    Call(Event, Vec<Event>),
    /// A result whose id no call has.
    Orphan(Event),
}

enum Slot {
    Ready(Piece),
    Waiting {
        call: Event,
        results: Vec<Event>,
        need: usize,
    },
}

/// Pass two: turns events into [`Piece`]s in document order.
pub struct Grouper {
    /// Results per paired id (taken by the first call with the id).
    need: HashMap<String, usize>,
    /// Ids whose first call was seen.
    called: HashSet<String>,
    /// Paired results met before their call.
    early: HashMap<String, Vec<Event>>,
    /// The call waiting for more results, per id: its absolute slot number.
    open: HashMap<String, usize>,
    queue: VecDeque<Slot>,
    /// Absolute number of `queue`'s first slot.
    base: usize,
    turn: Option<u32>,
}

impl Grouper {
    /// A grouper for the session `plan` describes.
    pub fn new(plan: &mut Plan) -> Grouper {
        Grouper {
            need: std::mem::take(&mut plan.results),
            called: HashSet::new(),
            early: HashMap::new(),
            open: HashMap::new(),
            queue: VecDeque::new(),
            base: 0,
            turn: None,
        }
    }

    /// Takes the next event; hands every piece that is complete to `out`, in order.
    pub fn push(&mut self, e: Event, out: &mut dyn FnMut(Piece)) {
        if self.turn != Some(e.turn) {
            self.turn = Some(e.turn);
            self.queue.push_back(Slot::Ready(Piece::Turn(e.turn)));
        }
        let paired = e
            .call_id
            .as_deref()
            .and_then(|id| self.need.get(id).copied());
        match e.kind {
            EventKind::ToolCall => {
                let first = e
                    .call_id
                    .as_deref()
                    .is_some_and(|id| paired.is_some() && !self.called.contains(id));
                if !first {
                    self.queue
                        .push_back(Slot::Ready(Piece::Call(e, Vec::new())));
                } else {
                    let id = e.call_id.clone().unwrap_or_default();
                    let results = self.early.remove(&id).unwrap_or_default();
                    let need = paired.unwrap_or(0);
                    self.called.insert(id.clone());
                    if results.len() >= need {
                        self.queue.push_back(Slot::Ready(Piece::Call(e, results)));
                    } else {
                        self.open.insert(id, self.base + self.queue.len());
                        self.queue.push_back(Slot::Waiting {
                            call: e,
                            results,
                            need,
                        });
                    }
                }
            }
            EventKind::ToolResult if paired.is_some() => {
                let id = e.call_id.clone().unwrap_or_default();
                match self.open.get(&id).copied() {
                    Some(at) => {
                        if let Some(slot) = self.queue.get_mut(at - self.base) {
                            let done = match slot {
                                Slot::Waiting { results, need, .. } => {
                                    results.push(e);
                                    results.len() >= *need
                                }
                                Slot::Ready(_) => false,
                            };
                            if done {
                                self.open.remove(&id);
                                ready(slot);
                            }
                        }
                    }
                    // Its call is still to come, or already took every result it was told of.
                    None if !self.called.contains(&id) => {
                        self.early.entry(id).or_default().push(e);
                    }
                    None => {}
                }
            }
            EventKind::ToolResult => self.queue.push_back(Slot::Ready(Piece::Orphan(e))),
            _ => self.queue.push_back(Slot::Ready(Piece::Text(e))),
        }
        self.drain(out, false);
    }

    /// Hands out whatever is left (calls still short of results go with what they have).
    pub fn finish(mut self, out: &mut dyn FnMut(Piece)) {
        self.drain(out, true);
    }

    fn drain(&mut self, out: &mut dyn FnMut(Piece), all: bool) {
        while let Some(front) = self.queue.front_mut() {
            if all {
                ready(front);
            }
            if matches!(front, Slot::Waiting { .. }) {
                break;
            }
            self.base += 1;
            if let Some(Slot::Ready(p)) = self.queue.pop_front() {
                out(p);
            }
        }
    }
}

/// Turns a waiting slot into a ready call with the results it has.
fn ready(slot: &mut Slot) {
    if matches!(slot, Slot::Waiting { .. }) {
        if let Slot::Waiting { call, results, .. } =
            std::mem::replace(slot, Slot::Ready(Piece::Turn(0)))
        {
            *slot = Slot::Ready(Piece::Call(call, results));
        }
    }
}
