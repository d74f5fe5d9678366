//! Token totals (SPEC S-F7) from [`scry_model::Event::usage`]: per session, per turn, per model
//! and per UTC day. Providers attach one usage to one event per model request, so summing
//! never double counts. Where no event has usage, the total is `None` (unknown, not zero).

use std::collections::BTreeMap;

use scry_model::{Event, TokenUsage};
use serde::{Deserialize, Serialize};

/// Usage of one turn.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TurnTokens {
    /// Turn number (0 = preamble).
    pub turn: u32,
    /// Summed usage.
    pub usage: TokenUsage,
}

/// Usage of one model.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelTokens {
    /// Model name (`unknown` when the event names none).
    pub model: String,
    /// Summed usage.
    pub usage: TokenUsage,
}

/// Usage of one UTC day.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DayTokens {
    /// `YYYY-MM-DD` in UTC (`unknown` for events without a time).
    pub day: String,
    /// Summed usage.
    pub usage: TokenUsage,
}

/// Token totals of one session.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TokenReport {
    /// Session total; `None` when no event recorded usage.
    pub total: Option<TokenUsage>,
    /// Events that carried usage (≈ model requests).
    pub requests: usize,
    /// Per turn, turns with usage only, ascending.
    pub by_turn: Vec<TurnTokens>,
    /// Per model, by name.
    pub by_model: Vec<ModelTokens>,
    /// Per UTC day, ascending (`unknown` last).
    pub by_day: Vec<DayTokens>,
}

/// The token report of `events`.
pub fn tokens(events: &[Event]) -> TokenReport {
    let mut fold = TokenFold::default();
    for e in events {
        fold.push(e);
    }
    fold.finish()
}

/// [`tokens`] one event at a time: sums per turn, model and day while events stream by.
#[derive(Debug, Clone, Default)]
pub struct TokenFold {
    total: Option<TokenUsage>,
    requests: usize,
    by_turn: BTreeMap<u32, TokenUsage>,
    by_model: BTreeMap<String, TokenUsage>,
    by_day: BTreeMap<(bool, String), TokenUsage>,
}

impl TokenFold {
    /// Adds the usage of `e`, if it carries any.
    pub fn push(&mut self, e: &Event) {
        let Some(u) = e.usage else { return };
        self.requests += 1;
        *self.total.get_or_insert_with(TokenUsage::default) += u;
        *self.by_turn.entry(e.turn).or_default() += u;
        let model = e.model.clone().unwrap_or_else(|| "unknown".to_string());
        *self.by_model.entry(model).or_default() += u;
        let day = match e.time {
            Some(t) => (false, t.strftime("%Y-%m-%d").to_string()),
            None => (true, "unknown".to_string()),
        };
        *self.by_day.entry(day).or_default() += u;
    }

    /// The report of every event pushed.
    pub fn finish(self) -> TokenReport {
        TokenReport {
            total: self.total,
            requests: self.requests,
            by_turn: self
                .by_turn
                .into_iter()
                .map(|(turn, usage)| TurnTokens { turn, usage })
                .collect(),
            by_model: self
                .by_model
                .into_iter()
                .map(|(model, usage)| ModelTokens { model, usage })
                .collect(),
            by_day: self
                .by_day
                .into_iter()
                .map(|((_, day), usage)| DayTokens { day, usage })
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pairing::testkit::Script;

    fn u(input: u64, output: u64, cache_read: u64) -> TokenUsage {
        TokenUsage {
            input,
            output,
            cache_read,
            ..TokenUsage::default()
        }
    }

    #[test]
    fn unknown_without_usage() {
        let mut s = Script::default();
        s.user("a").assistant("b");
        let r = tokens(&s.events);
        assert_eq!(r.total, None);
        assert!(r.by_turn.is_empty());
    }

    #[test]
    fn totals_by_turn_model_and_utc_day() {
        let mut s = Script::default();
        s.user("a")
            .assistant("b")
            .user("c")
            .assistant("d")
            .assistant("e");
        let t1: scry_model::Timestamp = "2026-11-29T23:30:00+01:00".parse().unwrap_or_default();
        let t2: scry_model::Timestamp = "2026-11-30T00:30:00Z".parse().unwrap_or_default();
        let set = |e: &mut Event, us, m: &str, t| {
            e.usage = Some(us);
            e.model = Some(m.to_string());
            e.time = t;
        };
        set(&mut s.events[1], u(10, 5, 100), "m1", Some(t1));
        set(&mut s.events[3], u(1, 2, 3), "m2", Some(t2));
        set(&mut s.events[4], u(4, 4, 4), "m1", None);
        let r = tokens(&s.events);
        assert_eq!(r.total, Some(u(15, 11, 107)));
        assert_eq!(r.requests, 3);
        assert_eq!(r.by_turn.len(), 2);
        assert_eq!(r.by_turn[1].usage, u(5, 6, 7));
        assert_eq!(r.by_model[0].model, "m1");
        assert_eq!(r.by_model[0].usage, u(14, 9, 104));
        let days: Vec<&str> = r.by_day.iter().map(|d| d.day.as_str()).collect();
        assert_eq!(days, vec!["2026-11-29", "2026-11-30", "unknown"]);
    }
}
