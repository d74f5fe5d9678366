//! What `scry turn` reads: a turn number or range (`3`, `2-4`), and event numbers (`--event 7`,
//! `5-9`, `3,8,12`; 1-based display numbers `En`). Parsing errors and out-of-range values name
//! the offending value; event ranges are clipped to the session.

use scry_model::ErrorCode;

use crate::error::{QueryError, QueryResult};

/// At most this many events are read in full at once.
pub const MAX_EVENTS: usize = 50;

/// An inclusive range of numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    /// First (inclusive).
    pub start: u32,
    /// Last (inclusive).
    pub end: u32,
}

impl Span {
    /// Whether `n` is inside.
    pub fn contains(self, n: u32) -> bool {
        self.start <= n && n <= self.end
    }
}

fn window_err(msg: String) -> QueryError {
    QueryError::usage(ErrorCode::InvalidWindow, msg)
}

fn parse_span(s: &str, what: &str) -> QueryResult<Span> {
    let bad = || window_err(format!("invalid {what} '{s}': use N or A-B"));
    let num = |t: &str| t.trim().parse::<u32>().map_err(|_| bad());
    let span = match s.split_once('-') {
        Some((a, b)) => Span {
            start: num(a)?,
            end: num(b)?,
        },
        None => {
            let n = num(s)?;
            Span { start: n, end: n }
        }
    };
    if span.start > span.end {
        return Err(window_err(format!(
            "invalid {what} '{s}': {} is after {}",
            span.start, span.end
        )));
    }
    Ok(span)
}

/// Parses a turn selection `N` or `A-B` (0 is the preamble).
pub fn parse_turns(s: &str) -> QueryResult<Span> {
    parse_span(s, "turn range")
}

/// Parses `--event` (`K`, `A-B`, `A,B,C`, mixed); numbers are 1-based.
pub fn parse_events(s: &str) -> QueryResult<Vec<Span>> {
    let spans: Vec<Span> = s
        .split(',')
        .map(|p| parse_span(p.trim(), "event selection"))
        .collect::<QueryResult<_>>()?;
    if let Some(zero) = spans.iter().find(|sp| sp.start == 0) {
        return Err(window_err(format!(
            "invalid event selection '{s}': event numbers start at 1 (got {})",
            zero.start
        )));
    }
    Ok(spans)
}

/// Checks a turn selection against the session's highest turn; clips the end.
pub fn clip_turns(span: Span, max_turn: u32, has_preamble: bool) -> QueryResult<Span> {
    let lowest = if has_preamble { 0 } else { 1 };
    if span.start > max_turn || span.end < lowest {
        let what = if span.start == span.end {
            format!("turn {}", span.start)
        } else {
            format!("turns {}-{}", span.start, span.end)
        };
        return Err(window_err(format!(
            "{what} out of range: the session has {max_turn} turn{}",
            if max_turn == 1 { "" } else { "s" }
        )));
    }
    Ok(Span {
        start: span.start.max(lowest),
        end: span.end.min(max_turn),
    })
}

/// Resolves event spans against the session's event count into sorted, unique 0-based seqs.
/// Ranges are clipped; a single number or a range wholly outside the session is an error, and
/// so is a selection of more than [`MAX_EVENTS`] events.
pub fn clip_events(spans: &[Span], total: u32) -> QueryResult<Vec<u32>> {
    let mut seqs = Vec::new();
    for sp in spans {
        if sp.start > total {
            let what = if sp.start == sp.end {
                format!("event {}", sp.start)
            } else {
                format!("events {}-{}", sp.start, sp.end)
            };
            return Err(window_err(format!(
                "{what} out of range: the session has {total} event{}",
                if total == 1 { "" } else { "s" }
            )));
        }
        let end = sp.end.min(total);
        for n in sp.start..=end {
            seqs.push(n - 1);
            if seqs.len() > MAX_EVENTS * 4 {
                break;
            }
        }
    }
    seqs.sort_unstable();
    seqs.dedup();
    if seqs.len() > MAX_EVENTS {
        return Err(QueryError::usage(
            ErrorCode::InvalidPageSize,
            format!(
                "--event selects {} events; at most {MAX_EVENTS} can be read at once",
                seqs.len()
            ),
        ));
    }
    Ok(seqs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn turns_and_events() {
        assert_eq!(parse_turns("3").unwrap(), Span { start: 3, end: 3 });
        assert_eq!(parse_turns("2-4").unwrap(), Span { start: 2, end: 4 });
        assert!(parse_turns("5-2").is_err());
        assert!(parse_turns("x").is_err());
        let ev = parse_events("1,3-4,9").unwrap();
        assert!(clip_events(&ev, 5).is_err());
        assert_eq!(
            clip_events(&parse_events("2-99").unwrap(), 4).unwrap(),
            vec![1, 2, 3]
        );
        assert!(clip_events(&parse_events("1-60").unwrap(), 100).is_err());
        assert!(parse_events("0").is_err());
        assert_eq!(
            clip_turns(Span { start: 2, end: 9 }, 3, false).unwrap(),
            Span { start: 2, end: 3 }
        );
        assert!(clip_turns(Span { start: 4, end: 4 }, 3, true).is_err());
    }
}
