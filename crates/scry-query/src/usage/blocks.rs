//! 5-hour billing blocks as Claude plans count them (and as ccusage's `blocks` report draws
//! them): a block starts at the hour of its first request and lasts five hours; the next
//! request after the block's end, or after a gap of five hours, starts a new block. The block
//! holding now (its end not passed, its last request less than five hours ago) is *active*: its
//! burn rate is its cost and tokens over the time from its first to its last request, and its
//! projection is that rate carried to the block's end.

use jiff::{SignedDuration, Timestamp};
use serde::Serialize;

/// Length of one block.
pub const BLOCK: SignedDuration = SignedDuration::from_hours(5);

/// One block's span; the requests it holds are `requests[first..end]` of the sorted input.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Span {
    /// Start (the first request's hour, UTC).
    pub start: Timestamp,
    /// Start + 5 hours.
    pub end: Timestamp,
    /// The first request.
    pub first_request: Timestamp,
    /// The last request.
    pub last_request: Timestamp,
    /// Whether it holds now.
    pub active: bool,
    /// Index of the first request in the sorted input.
    #[serde(skip)]
    pub from: usize,
    /// One past the last request.
    #[serde(skip)]
    pub to: usize,
}

/// The blocks of `times` (ascending).
pub fn spans(times: &[Timestamp], now: Timestamp) -> Vec<Span> {
    let mut out: Vec<Span> = Vec::new();
    for (i, &t) in times.iter().enumerate() {
        let extend = out
            .last()
            .is_some_and(|b| t < b.end && t.duration_since(b.last_request) < BLOCK);
        if extend {
            let b = out.last_mut().expect("a block");
            b.last_request = t;
            b.to = i + 1;
        } else {
            let start = floor_hour(t);
            out.push(Span {
                start,
                end: start.checked_add(BLOCK).unwrap_or(start),
                first_request: t,
                last_request: t,
                active: false,
                from: i,
                to: i + 1,
            });
        }
    }
    if let Some(b) = out.last_mut() {
        b.active = now < b.end && now.duration_since(b.last_request) < BLOCK;
    }
    out
}

/// `t` rounded down to its hour (UTC).
pub fn floor_hour(t: Timestamp) -> Timestamp {
    let s = t.as_second();
    Timestamp::from_second(s - s.rem_euclid(3600)).unwrap_or(t)
}

/// The active block's burn rate and projection.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Burn {
    /// Tokens per minute between its first and last request.
    pub tokens_per_minute: f64,
    /// USD per hour likewise.
    pub cost_per_hour: f64,
    /// Minutes left in the block.
    pub minutes_left: i64,
    /// Tokens at the block's end at this rate.
    pub projected_tokens: u64,
    /// USD at the block's end at this rate.
    pub projected_cost_usd: f64,
}

/// The burn of an active block with `tokens` and `cost` so far.
pub fn burn(span: &Span, tokens: u64, cost: f64, now: Timestamp) -> Burn {
    // At least a minute: a block of one request has no duration of its own.
    let minutes = (span
        .last_request
        .duration_since(span.first_request)
        .as_secs_f64()
        / 60.0)
        .max(1.0);
    let tokens_per_minute = tokens as f64 / minutes;
    let cost_per_hour = cost / minutes * 60.0;
    let left = span.end.duration_since(now).as_secs_f64().max(0.0) / 60.0;
    Burn {
        tokens_per_minute,
        cost_per_hour,
        minutes_left: left.round() as i64,
        projected_tokens: tokens + (tokens_per_minute * left).round() as u64,
        projected_cost_usd: cost + cost_per_hour / 60.0 * left,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ts(s: &str) -> Timestamp {
        s.parse().unwrap()
    }

    #[test]
    fn blocks_start_on_the_hour_and_split_on_end_or_gap() {
        let t = [
            ts("2026-12-01T10:17:00Z"),
            ts("2026-12-01T14:59:00Z"), // inside 10:00–15:00
            ts("2026-12-01T15:01:00Z"), // past the end: new block at 15:00
            ts("2026-12-01T21:00:00Z"), // gap > 5 h: new block at 21:00
        ];
        let b = spans(&t, ts("2026-12-01T22:00:00Z"));
        assert_eq!(b.len(), 3);
        assert_eq!(b[0].start, ts("2026-12-01T10:00:00Z"));
        assert_eq!((b[0].from, b[0].to), (0, 2));
        assert_eq!(b[1].start, ts("2026-12-01T15:00:00Z"));
        assert_eq!(b[2].start, ts("2026-12-01T21:00:00Z"));
        assert!(b[2].active && !b[1].active);
        let over = spans(&t, ts("2026-12-02T03:00:00Z"));
        assert!(!over[2].active);
    }

    #[test]
    fn burn_rate_and_projection() {
        let t = [ts("2026-12-01T10:00:00Z"), ts("2026-12-01T11:00:00Z")];
        let b = spans(&t, ts("2026-12-01T12:00:00Z"));
        let r = burn(&b[0], 6000, 3.0, ts("2026-12-01T12:00:00Z"));
        assert!((r.tokens_per_minute - 100.0).abs() < 1e-9);
        assert!((r.cost_per_hour - 3.0).abs() < 1e-9);
        assert_eq!(r.minutes_left, 180);
        assert_eq!(r.projected_tokens, 6000 + 18_000);
        assert!((r.projected_cost_usd - 12.0).abs() < 1e-9);
    }
}
