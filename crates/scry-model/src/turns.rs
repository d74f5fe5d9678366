//! Turn assignment (SPEC S-E1): a turn starts at each human prompt.

use serde::{Deserialize, Serialize};

use crate::{Event, EventKind};

/// The extent of one turn in a session's event list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct TurnSpan {
    /// 1-based turn number; 0 is the preamble before the first prompt.
    pub number: u32,
    /// First event seq (inclusive).
    pub start: u32,
    /// Last event seq (inclusive).
    pub end: u32,
}

/// Sets `turn` on every event: 0 before the first [`EventKind::User`] event, then 1, 2, … from
/// each `User` event on. Only `User` events (human prompts) start turns.
pub fn assign_turns(events: &mut [Event]) {
    let mut turn = 0;
    for e in events.iter_mut() {
        if e.kind == EventKind::User {
            turn += 1;
        }
        e.turn = turn;
    }
}

/// The turns of an event list (after [`assign_turns`]), preamble included when non-empty.
pub fn turn_spans(events: &[Event]) -> Vec<TurnSpan> {
    let mut spans: Vec<TurnSpan> = Vec::new();
    for e in events {
        match spans.last_mut() {
            Some(last) if last.number == e.turn => last.end = e.seq,
            _ => spans.push(TurnSpan {
                number: e.turn,
                start: e.seq,
                end: e.seq,
            }),
        }
    }
    spans
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Locator;

    fn ev(kind: EventKind, seq: u32) -> Event {
        let mut e = Event::new(kind, "x", Locator::record(u64::from(seq), b"x", None));
        e.seq = seq;
        e
    }

    #[test]
    fn meta_before_first_prompt_is_preamble_and_meta_inside_does_not_split() {
        let mut events = vec![
            ev(EventKind::Meta, 0),
            ev(EventKind::User, 1),
            ev(EventKind::Assistant, 2),
            ev(EventKind::Meta, 3),
            ev(EventKind::Compaction, 4),
            ev(EventKind::User, 5),
        ];
        assign_turns(&mut events);
        let turns: Vec<u32> = events.iter().map(|e| e.turn).collect();
        assert_eq!(turns, vec![0, 1, 1, 1, 1, 2]);
        let spans = turn_spans(&events);
        assert_eq!(spans.len(), 3);
        assert_eq!((spans[1].start, spans[1].end), (1, 4));
    }
}
