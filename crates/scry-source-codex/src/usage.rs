//! Codex token accounting (`event_msg token_count`), normalized to scry's semantics.
//!
//! Codex counts `cached_input_tokens` (and, since 2026, `cache_write_input_tokens`) inside
//! `input_tokens`, and `reasoning_output_tokens` inside `output_tokens` (`total_tokens =
//! input_tokens + output_tokens` holds in every file we have). Normalized:
//! `input = input_tokens − cached − cache_write`, `cache_read = cached`,
//! `cache_write = cache_write_input_tokens`, `output = output_tokens`,
//! `reasoning = reasoning_output_tokens`.
//!
//! One usage per model request: `info.last_token_usage` when present, else the delta of
//! `info.total_token_usage` against the previous total. `info: null` (rate-limit only) is
//! skipped, and so is a `token_count` whose total equals the previous one (Codex re-emits the
//! last count at turn start and after compaction). Very early 2025 builds put the counters on
//! the payload itself; consecutive identical ones are skipped.
//!
//! `token_usage_record` lines (0.17x) repeat the same per-request numbers keyed by
//! `response_id`; they are not used, so nothing is counted twice.

use scry_model::TokenUsage;
use scry_source::json::u64_of;
use serde_json::Value;

/// The raw Codex counters of one usage object.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) struct Raw {
    input: u64,
    cached: u64,
    cache_write: u64,
    output: u64,
    reasoning: u64,
}

impl Raw {
    /// Reads a usage object; `None` when it has no `input_tokens` / `output_tokens`.
    pub(crate) fn read(v: &Value) -> Option<Raw> {
        let input = u64_of(v, "input_tokens");
        let output = u64_of(v, "output_tokens");
        if input.is_none() && output.is_none() {
            return None;
        }
        Some(Raw {
            input: input.unwrap_or(0),
            cached: u64_of(v, "cached_input_tokens")
                .or_else(|| u64_of(v, "cache_read_input_tokens"))
                .unwrap_or(0),
            cache_write: u64_of(v, "cache_write_input_tokens").unwrap_or(0),
            output: output.unwrap_or(0),
            reasoning: u64_of(v, "reasoning_output_tokens").unwrap_or(0),
        })
    }

    fn minus(self, prev: Raw) -> Raw {
        Raw {
            input: self.input.saturating_sub(prev.input),
            cached: self.cached.saturating_sub(prev.cached),
            cache_write: self.cache_write.saturating_sub(prev.cache_write),
            output: self.output.saturating_sub(prev.output),
            reasoning: self.reasoning.saturating_sub(prev.reasoning),
        }
    }

    /// Converts to scry's normalized usage.
    pub(crate) fn normalize(self) -> TokenUsage {
        TokenUsage {
            input: self
                .input
                .saturating_sub(self.cached)
                .saturating_sub(self.cache_write),
            output: self.output,
            cache_read: self.cached,
            cache_write: self.cache_write,
            reasoning: self.reasoning,
        }
    }
}

/// Follows the running totals of one rollout and turns each `token_count` into at most one
/// request usage.
#[derive(Debug, Default, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub(crate) struct Tracker {
    prev_total: Option<Raw>,
    prev_flat: Option<Raw>,
}

impl Tracker {
    /// The usage of the request a `token_count` payload closes, or `None` when it must be
    /// skipped (null info, duplicate total, all zeros).
    pub(crate) fn take(&mut self, payload: &Value) -> Option<TokenUsage> {
        let usage = match payload.get("info") {
            Some(Value::Null) => return None,
            Some(info) => {
                let total = info.get("total_token_usage").and_then(Raw::read);
                let last = info.get("last_token_usage").and_then(Raw::read);
                if let Some(t) = total {
                    if self.prev_total == Some(t) {
                        return None;
                    }
                }
                let usage = match (last, total) {
                    (Some(l), _) => Some(l),
                    (None, Some(t)) => Some(t.minus(self.prev_total.unwrap_or_default())),
                    (None, None) => None,
                };
                if total.is_some() {
                    self.prev_total = total;
                }
                usage?
            }
            None => {
                let flat = Raw::read(payload)?;
                if self.prev_flat == Some(flat) {
                    return None;
                }
                self.prev_flat = Some(flat);
                flat
            }
        };
        let n = usage.normalize();
        (!n.is_zero()).then_some(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn last_usage_duplicates_and_null_info() {
        let mut t = Tracker::default();
        let a = json!({"info":{"total_token_usage":{"input_tokens":100,"cached_input_tokens":80,"output_tokens":10,"reasoning_output_tokens":4},
            "last_token_usage":{"input_tokens":100,"cached_input_tokens":80,"output_tokens":10,"reasoning_output_tokens":4}}});
        let u = t.take(&a).unwrap();
        assert_eq!(
            (u.input, u.cache_read, u.output, u.reasoning),
            (20, 80, 10, 4)
        );
        assert_eq!(t.take(&a), None, "repeated total");
        assert_eq!(t.take(&json!({"info":null})), None);
        let b = json!({"info":{"total_token_usage":{"input_tokens":150,"cached_input_tokens":100,"output_tokens":15}}});
        let u = t.take(&b).unwrap();
        assert_eq!((u.input, u.cache_read, u.output), (30, 20, 5));
        let flat = json!({"type":"token_count","input_tokens":7,"output_tokens":3});
        assert_eq!(t.take(&flat).unwrap().input, 7);
        assert_eq!(t.take(&flat), None);
    }
}
