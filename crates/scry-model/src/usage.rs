//! Token usage with one normalized meaning across providers.

use std::ops::AddAssign;

use serde::{Deserialize, Serialize};

/// Token counts of one model request (or a sum of several).
///
/// Normalized semantics (SPEC S-F7): `input` never includes cache reads or cache writes;
/// `cache_read` and `cache_write` are separate; `output` includes `reasoning` when the provider
/// bills reasoning as output (Codex, Claude), and `reasoning` is reported on its own as well.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TokenUsage {
    /// Fresh (uncached) input tokens.
    pub input: u64,
    /// Output tokens (including reasoning where the provider counts it as output).
    pub output: u64,
    /// Input tokens served from the prompt cache.
    pub cache_read: u64,
    /// Input tokens written to the prompt cache.
    pub cache_write: u64,
    /// Reasoning tokens (a subset of `output` for Codex; reported separately).
    pub reasoning: u64,
}

impl TokenUsage {
    /// True when every counter is zero.
    pub fn is_zero(&self) -> bool {
        *self == TokenUsage::default()
    }

    /// Input + cache read + cache write + output: everything the request moved.
    pub fn total(&self) -> u64 {
        self.input + self.cache_read + self.cache_write + self.output
    }
}

impl AddAssign for TokenUsage {
    fn add_assign(&mut self, rhs: Self) {
        self.input += rhs.input;
        self.output += rhs.output;
        self.cache_read += rhs.cache_read;
        self.cache_write += rhs.cache_write;
        self.reasoning += rhs.reasoning;
    }
}

impl std::iter::Sum for TokenUsage {
    fn sum<I: Iterator<Item = Self>>(iter: I) -> Self {
        let mut total = TokenUsage::default();
        for u in iter {
            total += u;
        }
        total
    }
}
