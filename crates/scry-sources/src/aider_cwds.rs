//! The Aider part of discovery that depends on the other providers' sessions: Aider keeps its
//! chat history in the project directory (`.aider.chat.history.md`), so every directory
//! another agent's session names as its working directory is a place to look (issue 21).
//!
//! Kept apart from [`crate::discover_excluding`] on purpose: the working directories come from
//! session headers (a discovery-time `cwd_hint`, the index's stored headers, or header scans),
//! which the caller collects the way its mode allows; a caller that must stay cheap (a command
//! answered under a watcher's lease) can read them from the index or skip this step.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use scry_model::ProviderId;
use scry_source::{Discovery, SourceFile};

use crate::Exclusions;

/// The Aider sessions found directly in the directories `cwds` (absolute paths; one stat of
/// `<dir>/.aider.chat.history.md` each, no walk), leaving out histories already in `found`
/// (what [`crate::discover_excluding`] returned) and files `exclusions` drop. Empty when Aider
/// is excluded.
pub fn aider_in_cwds<'a>(
    cwds: impl IntoIterator<Item = &'a str>,
    found: &[SourceFile],
    exclusions: &Exclusions,
) -> Discovery {
    if exclusions.excludes_provider(ProviderId::Aider) {
        return Discovery::default();
    }
    let known: BTreeSet<PathBuf> = found
        .iter()
        .filter(|f| f.provider == ProviderId::Aider)
        .map(|f| f.path.clone())
        .collect();
    let dirs: BTreeSet<&Path> = cwds
        .into_iter()
        .map(Path::new)
        .filter(|p| p.is_absolute())
        .collect();
    let mut out = scry_source_aider::in_dirs(dirs, &known);
    let files = std::mem::take(&mut out.files);
    out.files = exclusions.partition(files).0;
    out
}
