//! Every provider in one list ([`registry`]), discovery across all of them ([`discover_all`]),
//! and session id resolution ([`resolve`], SPEC S-E3).
//!
//! Adding an agent touches its own crate, one line in [`registry`], and fixtures.
//!
//! Source health ([`doctor()`], module [`mod@doctor`]) and leaving sources out ([`Exclusions`],
//! from the config file ([`config`]) and flags) live here too, since they run over every
//! provider.

mod aider_cwds;
pub mod config;
pub mod doctor;
pub mod exclude;
mod resolve;

use scry_model::ProviderId;
use scry_source::{Discovery, Env, Source};

pub use aider_cwds::aider_in_cwds;
pub use config::ConfigError;
pub use doctor::{doctor, render_text, DoctorReport};
pub use exclude::{discover_excluding, ExcludeFlags, Excluded, Exclusions};
pub use resolve::{looks_like_path, resolve, resolve_id, Candidate, ResolveError, MIN_PREFIX};

/// Every provider scry supports, in display order.
pub fn registry() -> Vec<Box<dyn Source>> {
    vec![
        Box::new(scry_source_claude::ClaudeSource),
        Box::new(scry_source_codex::CodexSource),
        Box::new(scry_source_gemini::GeminiSource),
        Box::new(scry_source_antigravity::AntigravitySource),
        Box::new(scry_source_grok::GrokSource),
        Box::new(scry_source_dsh::DshSource),
        Box::new(scry_source_opencode::OpencodeSource),
        Box::new(scry_source_kilo::KiloSource),
        Box::new(scry_source_pi::PiSource),
        Box::new(scry_source_cursor::CursorSource),
        Box::new(scry_source_deepagents::DeepagentsSource),
        Box::new(scry_source_mtagent::MtagentSource),
        Box::new(scry_source_copilot::CopilotSource),
        Box::new(scry_source_qwen::QwenSource),
        Box::new(scry_source_continue::ContinueSource),
        Box::new(scry_source_aider::AiderSource),
    ]
}

/// Discovery results of one provider.
#[derive(Debug)]
pub struct ProviderDiscovery {
    /// The provider.
    pub provider: ProviderId,
    /// What it found.
    pub discovery: Discovery,
}

/// Runs discovery for every provider in `sources` (all of them when `only` is empty).
pub fn discover_all(
    sources: &[Box<dyn Source>],
    env: &Env,
    only: &[ProviderId],
) -> Vec<ProviderDiscovery> {
    sources
        .iter()
        .filter(|s| only.is_empty() || only.contains(&s.id()))
        .map(|s| ProviderDiscovery {
            provider: s.id(),
            discovery: s.discover(env),
        })
        .collect()
}

/// The provider implementation for `id`, if registered.
pub fn source_for(sources: &[Box<dyn Source>], id: ProviderId) -> Option<&dyn Source> {
    sources.iter().find(|s| s.id() == id).map(|b| b.as_ref())
}
