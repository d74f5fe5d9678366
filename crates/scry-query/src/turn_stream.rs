//! A turn read of more than the events a read keeps ([`crate::read::KEEP_WEIGHT`]): the
//! session streamed a second time, each turn made into its units as it ends and paged at once,
//! only the turns the page shows kept (issue 17: `turn` of many turns, its HTTP twin
//! `/content` and the MCP `read`, flat in the selection's size). The answer equals the page of
//! every unit of the selection.

use std::collections::BTreeMap;

use scry_model::Warning;

use crate::error::QueryResult;
use crate::page::{self, Pos, Unit};
use crate::read::Paged;
use crate::selection;
use crate::session_read::Streamed;
use crate::turn_build::{self, TurnInfo};

/// A turn read streamed a second time: each turn of `turns` becomes its units
/// ([`turn_build::turn_units`], calls paired by `pairs`, made by the first read) as soon as it
/// ends, they go to the pager, and only the units of the turns with a part on the page are
/// kept, so memory is bounded by the page's turns, not the selection. The slices refer to the
/// kept units; the next position (the cursor) counts every unit of the selection. Every turn's
/// heading facts are kept.
pub(crate) fn streamed_turns(
    src: &dyn Streamed,
    turns: selection::Span,
    pairs: &turn_build::Pairs,
    start: Pos,
    max_chars: usize,
) -> QueryResult<(Vec<Unit>, BTreeMap<u32, TurnInfo>, Paged)> {
    struct Sink<'a> {
        turns: selection::Span,
        pairs: &'a turn_build::Pairs,
        pager: page::Pager,
        infos: BTreeMap<u32, TurnInfo>,
        /// The events of the turn being read.
        turn: Vec<scry_model::Event>,
        /// The units of the page's turns, and the selection's index of the first.
        kept: Vec<Unit>,
        first: Option<usize>,
        /// Units of the selection made so far.
        made: usize,
    }
    impl Sink<'_> {
        /// Makes the units of the turn read so far and pages them.
        fn end_turn(&mut self) {
            let Some(n) = self.turn.first().map(|e| e.turn) else {
                return;
            };
            let mut units = Vec::new();
            turn_build::turn_units(self.pairs, n, self.turn.iter(), &mut units);
            self.turn.clear();
            let mut shown = false;
            for u in &units {
                shown |= self.pager.push(u);
            }
            if shown {
                self.first.get_or_insert(self.made);
                self.kept.append(&mut units);
            }
            self.made += units.len();
        }
    }
    impl scry_source::EventSink for Sink<'_> {
        fn event(&mut self, e: scry_model::Event) {
            if !self.turns.contains(e.turn) {
                return;
            }
            turn_build::add_info(&mut self.infos, &e);
            if self.turn.last().is_some_and(|l| l.turn != e.turn) {
                self.end_turn();
            }
            if !self.pager.done() {
                self.turn.push(e);
            }
        }
        fn warning(&mut self, _: Warning) {}
    }
    let mut sink = Sink {
        turns,
        pairs,
        pager: page::Pager::new(start, max_chars),
        infos: BTreeMap::new(),
        turn: Vec::new(),
        kept: Vec::new(),
        first: None,
        made: 0,
    };
    src.stream(&mut sink)?;
    sink.end_turn();
    let first = sink.first.unwrap_or(0);
    let (mut slices, next) = sink.pager.finish();
    for sl in &mut slices {
        sl.unit -= first;
    }
    Ok((sink.kept, sink.infos, (slices, next)))
}

#[cfg(test)]
mod tests {
    use scry_model::{Event, EventKind, Header, Locator, ProviderId, Session};
    use serde_json::json;

    use crate::read::{read_bounded, ReadRequest, Selector};
    use crate::session_read::Stored;

    /// A session of `turns` turns: prompts, answers, thinking, calls with results in the same
    /// turn, a result one turn later, an orphan result, a call without result and a repeated
    /// call id, texts of varied lengths (multi-byte characters too).
    fn session(turns: u32) -> Session {
        let mut s = Session::new(Header::new(ProviderId::Claude, "streamed-turns"));
        let mut seq = 0u32;
        let mut push = |s: &mut Session, turn: u32, kind: EventKind, text: String| -> usize {
            let mut e = Event::new(kind, text, Locator(format!("id:{seq}")));
            e.seq = seq;
            e.turn = turn;
            seq += 1;
            s.events.push(e);
            s.events.len() - 1
        };
        for t in 1..=turns {
            let long = "é word ".repeat((t as usize * 37) % 60);
            push(&mut s, t, EventKind::User, format!("prompt {t} {long}"));
            push(&mut s, t, EventKind::Thinking, format!("thinking {t}"));
            for c in 0..(t % 4) {
                let i = push(&mut s, t, EventKind::ToolCall, String::new());
                let id = if t % 7 == 0 {
                    "dup".to_string()
                } else {
                    format!("c{t}.{c}")
                };
                s.events[i].tool = Some("Bash".into());
                s.events[i].call_id = Some(id.clone());
                s.events[i].args = Some(json!({"command": format!("ls {t} {c}")}));
                if c == 2 && t % 5 == 0 {
                    continue; // no result
                }
                let r = push(
                    &mut s,
                    t,
                    EventKind::ToolResult,
                    format!("out {t}.{c} {long}"),
                );
                s.events[r].call_id = Some(id);
                s.events[r].exit_code = Some(i64::from(c));
            }
            if t % 6 == 0 {
                // A result of the previous turn's first call, and one of no call at all.
                let r = push(&mut s, t, EventKind::ToolResult, format!("late {t}"));
                s.events[r].call_id = Some(format!("c{}.0", t - 1));
                let o = push(&mut s, t, EventKind::ToolResult, format!("orphan {t}"));
                s.events[o].call_id = Some(format!("none{t}"));
                s.events[o].is_error = Some(true);
            }
            push(
                &mut s,
                t,
                EventKind::Assistant,
                format!("answer {t} {long}"),
            );
        }
        s
    }

    /// Every page of `selection` (following the cursors): each page's JSON and units.
    fn pages(src: &Stored, selection: &str, max_chars: usize, limit: usize) -> Vec<String> {
        let mut out = Vec::new();
        let mut cursor = None;
        loop {
            let req = ReadRequest {
                id: "streamed-turns".into(),
                selector: Selector::Turns(selection.into()),
                raw: false,
                max_chars,
                cursor: cursor.take(),
            };
            let p = read_bounded(src, &req, limit).expect("read");
            let units: Vec<String> = p
                .slices
                .iter()
                .map(|s| p.units[s.unit].head.clone())
                .collect();
            out.push(format!("{}\n{units:?}", p.to_json()));
            match p.next_cursor {
                Some(c) => cursor = Some(c),
                None => break,
            }
            assert!(out.len() < 20_000, "pages end");
        }
        out
    }

    /// A turn read streamed (every event weighs more than the limit) pages exactly as the read
    /// that keeps every event: the same JSON, units and cursors, page after page.
    #[test]
    fn streamed_turn_pages_equal_the_kept_ones() {
        let src = Stored {
            session: session(24),
            fingerprint: 7,
            availability: Default::default(),
        };
        for selection in ["1-24", "3-17", "6", "0-1000", "23-70"] {
            for max_chars in [60, 700, 1_000_000] {
                let kept = pages(&src, selection, max_chars, usize::MAX);
                let streamed = pages(&src, selection, max_chars, 0);
                assert_eq!(kept, streamed, "{selection} at {max_chars}");
            }
        }
        // A turn out of range is refused alike.
        let req = ReadRequest {
            id: "streamed-turns".into(),
            selector: Selector::Turns("25".into()),
            raw: false,
            max_chars: 100,
            cursor: None,
        };
        assert!(read_bounded(&src, &req, 0).is_err());
        assert!(read_bounded(&src, &req, usize::MAX).is_err());
    }
}
