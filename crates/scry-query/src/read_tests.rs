//! Tests of [`crate::read`]: a turn read streamed ([`crate::turn_stream`]) pages as the read
//! that keeps every event.

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
