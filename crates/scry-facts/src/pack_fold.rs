//! The context pack ([`crate::context_pack`]) folded while a session's events stream by (issue
//! 17): equal to `context_pack(session, max_chars)` for the same events, holding at most the
//! newest visible events whose texts add up to the budget (each cut to the budget) plus the
//! compaction group the surface starts with — never the session.
//!
//! Why it can forget: only the events from the start of the last shadowing compaction group on
//! are in the pack ([`crate::surfaces::surface_start`]), and the provider's own surface marks
//! decide which of those are visible (a later compaction shadows nothing after its own group).
//! The pack takes visible events newest first until the budget is spent, so an event with at
//! least `max_chars` characters of newer visible text after it can only be counted as omitted.

use std::collections::VecDeque;

use scry_model::{Event, EventKind, Surface};

use crate::provenance::Evidence;
use crate::surfaces::{shadows, ContextPack, PackItem};

/// What the pack keeps of one visible event.
#[derive(Debug, Clone)]
struct Kept {
    evidence: Evidence,
    kind: EventKind,
    tool: Option<String>,
    /// The first `max_chars` characters of its item text.
    text: String,
    /// Characters of the whole item text.
    chars: usize,
    /// Whether its event text is not blank (the summary rule).
    nonblank: bool,
}

impl Kept {
    fn of(e: &Event, max: usize) -> Kept {
        let owned;
        let text: &str = match (&e.kind, &e.args) {
            (EventKind::ToolCall, Some(a)) if !a.is_null() => {
                owned = a.to_string();
                &owned
            }
            _ => &e.text,
        };
        let chars = text.chars().count();
        let text = if chars <= max {
            text.to_string()
        } else {
            text.chars().take(max).collect()
        };
        Kept {
            evidence: Evidence::of(e),
            kind: e.kind,
            tool: e.tool.clone(),
            text,
            chars,
            nonblank: !e.text.trim().is_empty(),
        }
    }

    /// The pack item within `budget` characters, taking them from the budget.
    fn item(&self, budget: &mut usize, truncated: &mut bool) -> PackItem {
        let cut = self.chars > *budget;
        let text: String = if cut {
            self.text.chars().take(*budget).collect()
        } else {
            self.text.clone()
        };
        *budget -= text.chars().count();
        *truncated |= cut;
        PackItem {
            evidence: self.evidence.clone(),
            kind: self.kind,
            tool: self.tool.clone(),
            text,
            cut,
        }
    }
}

/// [`crate::context_pack`] one event at a time: [`ContextFold::push`] every event in session
/// order, then [`ContextFold::finish`].
#[derive(Debug)]
pub struct ContextFold {
    max: usize,
    /// Events seen.
    n: usize,
    /// Index where the current surface starts.
    start: usize,
    /// The run of consecutive compaction events ending at the latest event (index, and what
    /// the pack keeps of it when it is visible).
    run: Vec<(usize, Option<Kept>)>,
    /// Whether every visible event since `start` was a compaction (the summary group is open).
    group_open: bool,
    /// The group's last compaction with text, and its last one.
    summary_text: Option<Kept>,
    summary_last: Option<Kept>,
    /// The newest visible events after the group, oldest first.
    tail: VecDeque<Kept>,
    /// Characters of `tail`'s item texts.
    tail_chars: usize,
    /// Visible events after the group dropped from the front of `tail`.
    dropped: usize,
}

impl ContextFold {
    /// A fold for a pack of at most `max_chars` characters.
    pub fn new(max_chars: usize) -> ContextFold {
        ContextFold {
            max: max_chars,
            n: 0,
            start: 0,
            run: Vec::new(),
            group_open: true,
            summary_text: None,
            summary_last: None,
            tail: VecDeque::new(),
            tail_chars: 0,
            dropped: 0,
        }
    }

    /// Folds in the next event of the session.
    pub fn push(&mut self, e: &Event) {
        let i = self.n;
        self.n += 1;
        let visible = e.surface == Surface::Current && e.kind != EventKind::Thinking;
        let kept = visible.then(|| Kept::of(e, self.max));
        if e.kind != EventKind::Compaction {
            self.run.clear();
            if let Some(k) = kept {
                self.visible(k);
            }
            return;
        }
        self.run.push((i, kept.clone()));
        if shadows(e) {
            // The surface now starts at this compaction group: forget everything before it.
            self.start = self.run.first().map_or(i, |r| r.0);
            self.group_open = true;
            self.summary_text = None;
            self.summary_last = None;
            self.tail.clear();
            self.tail_chars = 0;
            self.dropped = 0;
            let run: Vec<Kept> = self.run.iter().filter_map(|r| r.1.clone()).collect();
            for k in run {
                self.visible(k);
            }
        } else if let Some(k) = kept {
            self.visible(k);
        }
    }

    fn visible(&mut self, k: Kept) {
        if self.group_open {
            if k.kind == EventKind::Compaction {
                if k.nonblank {
                    self.summary_text = Some(k.clone());
                }
                self.summary_last = Some(k);
                return;
            }
            self.group_open = false;
        }
        self.tail_chars += k.chars;
        self.tail.push_back(k);
        while let Some(front) = self.tail.front() {
            // Newer text after the front fills any budget: the front can only be omitted.
            if self.tail.len() > 1 && self.tail_chars - front.chars >= self.max {
                self.tail_chars -= front.chars;
                self.tail.pop_front();
                self.dropped += 1;
            } else {
                break;
            }
        }
    }

    /// The pack.
    pub fn finish(self) -> ContextPack {
        let mut budget = self.max;
        let mut truncated = false;
        let summary = self
            .summary_text
            .or(self.summary_last)
            .map(|k| k.item(&mut budget, &mut truncated));
        let mut items = Vec::new();
        let mut omitted = self.dropped;
        for k in self.tail.iter().rev() {
            if budget == 0 {
                omitted += 1;
                continue;
            }
            items.push(k.item(&mut budget, &mut truncated));
        }
        items.reverse();
        truncated |= omitted > 0;
        ContextPack {
            from_seq: u32::try_from(self.start).unwrap_or(u32::MAX),
            chars: self.max - budget,
            summary,
            items,
            omitted_events: omitted,
            truncated,
        }
    }
}
