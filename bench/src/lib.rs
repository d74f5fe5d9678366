//! scry-bench: a deterministic generator of benchmark corpora laid out as a HOME directory, with
//! sessions in each agent's real on-disk layout (docs/formats.md; shapes checked against the
//! files under corpus/real/home written by Claude Code 2.1.332, Codex 0.171.0, Gemini CLI 0.61.0
//! and pi 0.73.1). `run.py` beside this crate measures scry and its peers on such a corpus.
//!
//! Everything is written streaming (one JSON line at a time), so a 1 GB session costs no more
//! memory than its largest line. The same seed and profile give byte-identical files and mtimes.

pub mod claude;
pub mod codex;
pub mod manifest;
pub mod others;
pub mod plan;
pub mod rng;
pub mod text;
pub mod write;

use std::io;
use std::path::Path;

pub use manifest::{Manifest, SessionEntry, Tokens};
pub use plan::{Profile, Provider};

/// Generates the corpus for `profile` and `seed` into `out` (a HOME-shaped directory, created if
/// needed) and returns what was written. The manifest is also saved as `out/.scry-bench/manifest.json`.
pub fn generate(profile: Profile, seed: u64, out: &Path) -> io::Result<Manifest> {
    let plans = plan::plan(profile, seed);
    let mut manifest = Manifest::new(profile, seed);
    let root = rng::Rng::new(seed);
    for p in &plans {
        let mut r = root.fork(p.index as u64 + 1);
        let entries = match p.provider {
            Provider::Claude => claude::write_session(out, p, &mut r)?,
            Provider::Codex => codex::write_session(out, p, &mut r, &manifest)?,
            Provider::Gemini => others::write_gemini(out, p, &mut r)?,
            Provider::Pi => others::write_pi(out, p, &mut r)?,
        };
        manifest.sessions.extend(entries);
    }
    others::write_gemini_projects(out, &plans)?;
    manifest.save(out)?;
    Ok(manifest)
}
