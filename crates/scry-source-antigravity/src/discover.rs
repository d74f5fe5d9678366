//! Where Antigravity sessions live.
//!
//! Two stores, each checked for both layouts:
//! - the IDE: `~/.gemini/antigravity/brain/<conversation uuid>/` holding artifacts (`task.md`,
//!   `implementation_plan.md`, `walkthrough.md`, …); its `conversations/<uuid>.pb` is
//!   protobuf (reportedly encrypted) and not read;
//! - the `agy` CLI: `~/.gemini/antigravity-cli/brain/<uuid>/.system_generated/logs/transcript.jsonl`
//!   plus `conversations/<uuid>.db` (SQLite).
//!
//! A brain directory with a transcript is read from the transcript; one with only artifacts is
//! read from its artifacts. The session id is the directory name.

use std::path::{Path, PathBuf};

use scry_model::{ProviderId, Warning, WarningKind};
use scry_source::{file_stat, Discovery, Env, Root, SourceFile};

/// The two Antigravity homes under `~/.gemini`.
pub const HOMES: [&str; 2] = ["antigravity", "antigravity-cli"];

/// Relative path of the transcript inside a brain directory.
pub const TRANSCRIPT: &str = ".system_generated/logs/transcript.jsonl";
/// The fuller transcript some versions write beside it (used only when the other is absent).
pub const TRANSCRIPT_FULL: &str = ".system_generated/logs/transcript_full.jsonl";

/// The roots: both homes.
pub fn roots(env: &Env) -> Vec<Root> {
    HOMES
        .iter()
        .map(|h| Root::new(env.home().join(".gemini").join(h), None))
        .collect()
}

/// Markdown artifacts directly in a brain directory, sorted.
pub fn artifacts(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.flatten()
                .map(|e| e.path())
                .filter(|p| p.is_file() && p.extension().is_some_and(|x| x == "md"))
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

/// The transcript of a brain directory, if any.
pub fn transcript(dir: &Path) -> Option<PathBuf> {
    [TRANSCRIPT, TRANSCRIPT_FULL]
        .iter()
        .map(|r| dir.join(r))
        .find(|p| p.is_file())
}

/// The home (`…/antigravity` or `…/antigravity-cli`) a brain directory belongs to.
pub fn home_of(brain_dir: &Path) -> Option<&Path> {
    brain_dir.parent()?.parent()
}

/// The conversations database for session `id` in either home, if present.
pub fn conversation_db(brain_dir: &Path, id: &str) -> Option<PathBuf> {
    let gemini = home_of(brain_dir)?.parent()?;
    HOMES
        .iter()
        .map(|h| {
            gemini
                .join(h)
                .join("conversations")
                .join(format!("{id}.db"))
        })
        .find(|p| p.is_file())
}

/// The source for a brain directory: the transcript, else the first artifact.
pub fn source_file(dir: &Path) -> Option<SourceFile> {
    let id = dir.file_name()?.to_str()?.to_string();
    let arts = artifacts(dir);
    let (primary, related): (PathBuf, Vec<PathBuf>) = match transcript(dir) {
        Some(t) => (t, arts),
        None => {
            let mut it = arts.into_iter();
            let first = it.next()?;
            (first, it.collect())
        }
    };
    let mut sf = SourceFile::new(ProviderId::Antigravity, id.clone(), primary);
    for p in &related {
        let (_, m) = file_stat(p);
        sf.mtime_ns = sf.mtime_ns.max(m);
    }
    sf.related = related;
    if let Some(db) = conversation_db(dir, &id) {
        sf.related.push(db);
    }
    Some(sf)
}

/// Walks `<home>/brain/*/` in both homes.
pub fn discover(env: &Env) -> Discovery {
    let mut d = Discovery {
        roots: roots(env),
        ..Discovery::default()
    };
    for root in d.roots.clone() {
        let brain = root.path.join("brain");
        if !brain.is_dir() {
            continue;
        }
        let mut dirs: Vec<PathBuf> = match std::fs::read_dir(&brain) {
            Ok(rd) => rd
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.is_dir())
                .collect(),
            Err(e) => {
                d.warnings.push(Warning::at(
                    WarningKind::Unreadable,
                    format!("cannot list directory: {e}"),
                    &brain,
                    None,
                ));
                continue;
            }
        };
        dirs.sort();
        d.files
            .extend(dirs.iter().filter_map(|dir| source_file(dir)));
    }
    d
}

/// The brain directory of a source file (the transcript sits three levels down).
pub fn brain_dir(file: &SourceFile) -> PathBuf {
    let p = &file.path;
    let is_transcript = p
        .file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.starts_with("transcript"));
    let up = if is_transcript {
        p.parent().and_then(Path::parent).and_then(Path::parent)
    } else {
        p.parent()
    };
    up.map(Path::to_path_buf).unwrap_or_default()
}
