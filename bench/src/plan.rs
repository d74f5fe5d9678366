//! Profiles and the per-session plan: which provider, how many bytes, when, where. Sizes are
//! log-normal, rescaled so the profile's total is met, plus a few named giant sessions.

use crate::rng::Rng;
use crate::text::PROJECTS;

/// A corpus size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Profile {
    /// For tests: a few dozen small sessions (≈ 1.5 MB).
    Tiny,
    /// ≈ 500 sessions, ≈ 100 MB.
    Small,
    /// ≈ 20,000 sessions, ≈ 4 GB.
    Default,
    /// `Default` plus one 1 GB Claude session.
    Large,
}

impl Profile {
    /// Parses `tiny|small|default|large`.
    pub fn parse(s: &str) -> Option<Profile> {
        match s {
            "tiny" => Some(Profile::Tiny),
            "small" => Some(Profile::Small),
            "default" => Some(Profile::Default),
            "large" => Some(Profile::Large),
            _ => None,
        }
    }

    /// The profile's name.
    pub fn name(self) -> &'static str {
        match self {
            Profile::Tiny => "tiny",
            Profile::Small => "small",
            Profile::Default => "default",
            Profile::Large => "large",
        }
    }

    /// (main sessions, total bytes, giant session sizes).
    fn shape(self) -> (usize, u64, Vec<u64>) {
        const MB: u64 = 1 << 20;
        match self {
            Profile::Tiny => (24, 3 * MB / 2, vec![]),
            Profile::Small => (500, 100 * MB, vec![20 * MB]),
            Profile::Default => (20_000, 4096 * MB, vec![300 * MB, 180 * MB, 120 * MB]),
            Profile::Large => (
                20_001,
                5120 * MB,
                vec![1024 * MB, 300 * MB, 180 * MB, 120 * MB],
            ),
        }
    }
}

/// Agents the generator writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Provider {
    /// Claude Code.
    Claude,
    /// OpenAI Codex CLI.
    Codex,
    /// Gemini CLI.
    Gemini,
    /// pi coding agent.
    Pi,
}

impl Provider {
    /// Lowercase name (as scry spells provider ids).
    pub fn name(self) -> &'static str {
        match self {
            Provider::Claude => "claude",
            Provider::Codex => "codex",
            Provider::Gemini => "gemini",
            Provider::Pi => "pi",
        }
    }
}

/// One main session to write.
#[derive(Clone, Debug)]
pub struct SessionPlan {
    /// Position in the plan (also the seed salt).
    pub index: usize,
    /// Which agent.
    pub provider: Provider,
    /// Target size of the primary file in bytes (subagent files come out of it).
    pub budget: u64,
    /// Start time, ms since the epoch.
    pub start_ms: i64,
    /// Project name; the cwd is `/home/dev/src/<project>`.
    pub project: &'static str,
    /// Probability that a prompt is Chinese.
    pub zh: f64,
    /// Whether the selective marker is planted here.
    pub marker: bool,
}

impl SessionPlan {
    /// The working directory.
    pub fn cwd(&self) -> String {
        format!("/home/dev/src/{}", self.project)
    }
}

/// 2026-06-01T00:00:00Z in ms.
const SPAN_START_MS: i64 = 1_780_272_000_000;
/// Six months of sessions.
const SPAN_MS: i64 = 180 * 86_400_000;

/// The deterministic plan for `profile` and `seed`.
pub fn plan(profile: Profile, seed: u64) -> Vec<SessionPlan> {
    let (n, total, giants) = profile.shape();
    let mut rng = Rng::new(seed ^ 0x5eed_b3c4);
    let small_n = n.saturating_sub(giants.len());
    let giant_sum: u64 = giants.iter().sum();
    let mut sizes: Vec<f64> = (0..small_n).map(|_| rng.lognormal(60_000.0, 1.5)).collect();
    let sum: f64 = sizes.iter().sum();
    let scale = (total.saturating_sub(giant_sum)) as f64 / sum.max(1.0);
    for s in &mut sizes {
        *s = (*s * scale).clamp(3_000.0, 80.0 * 1_048_576.0);
    }
    // Markers: a handful of sessions, spread out.
    let marker_every = (n / 4).max(1);
    let mut out = Vec::with_capacity(n);
    for (i, size) in sizes.iter().enumerate() {
        let roll = rng.f64();
        // The first four cover every provider, so even the tiny profile has each of them.
        let provider = if i < 4 {
            [
                Provider::Claude,
                Provider::Codex,
                Provider::Gemini,
                Provider::Pi,
            ][i]
        } else if roll < 0.62 {
            Provider::Claude
        } else if roll < 0.92 {
            Provider::Codex
        } else if roll < 0.96 {
            Provider::Gemini
        } else {
            Provider::Pi
        };
        let budget = match provider {
            Provider::Gemini | Provider::Pi => (*size as u64).min(2 << 20),
            _ => *size as u64,
        };
        out.push(SessionPlan {
            index: 0,
            provider,
            budget,
            start_ms: SPAN_START_MS + (rng.f64() * SPAN_MS as f64) as i64,
            project: rng.pick::<&str>(PROJECTS),
            zh: if rng.chance(0.2) { 0.8 } else { 0.04 },
            marker: i % marker_every == marker_every / 2,
        });
    }
    for (g, size) in giants.iter().enumerate() {
        out.push(SessionPlan {
            index: 0,
            provider: if g % 2 == 0 {
                Provider::Claude
            } else {
                Provider::Codex
            },
            budget: *size,
            start_ms: SPAN_START_MS + SPAN_MS - (g as i64 + 2) * 86_400_000,
            project: PROJECTS[g % PROJECTS.len()],
            zh: 0.1,
            marker: false,
        });
    }
    out.sort_by_key(|p| p.start_ms);
    for (i, p) in out.iter_mut().enumerate() {
        p.index = i;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_profile_totals() {
        let p = plan(Profile::Small, 1);
        assert_eq!(p.len(), 500);
        let total: u64 = p.iter().map(|s| s.budget).sum();
        assert!(total > 80 << 20 && total < 120 << 20, "{total}");
        assert!(p.iter().filter(|s| s.marker).count() >= 3);
    }
}
