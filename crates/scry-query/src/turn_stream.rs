//! A turn read of more than the events a read keeps ([`crate::read::KEEP_WEIGHT`]): the
//! session streamed a second time, each turn made into its units as it ends and paged at once,
//! only the turns the page shows kept (issue 17: `turn` of many turns, its HTTP twin
//! `/content` and the MCP `read`, flat in the selection's size). The answer equals the page of
//! every unit of the selection.

use std::collections::BTreeMap;

use scry_model::Warning;

use crate::error::QueryResult;
use crate::page::{self, Paged, Pos, Unit};
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
