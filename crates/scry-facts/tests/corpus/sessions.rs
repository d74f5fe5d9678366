//! Loading the corpus sessions with the providers of the registry.

use std::path::{Path, PathBuf};

use scry_model::{ProviderId, Session};
use scry_source::{Env, Source};

/// `../shared/corpus` beside the repository.
pub use scry_testkit::corpus;

/// Every provider in the registry.
pub fn providers() -> Vec<Box<dyn Source>> {
    scry_sources::registry()
}

/// Homes laid out like a user's home directory: `real/home`, `real-older/*/home`, and the
/// Deep Agents home under `langgraph/dcode`.
fn homes(root: &Path) -> Vec<PathBuf> {
    let mut homes = vec![root.join("real/home")];
    if let Ok(rd) = std::fs::read_dir(root.join("real-older")) {
        let mut older: Vec<PathBuf> = rd
            .filter_map(Result::ok)
            .map(|e| e.path().join("home"))
            .filter(|p| p.is_dir())
            .collect();
        older.sort();
        homes.extend(older);
    }
    homes.push(root.join("langgraph/dcode/home"));
    homes
}

/// Every session the providers of `only` (all when empty) find in the corpus homes, plus the
/// third-party files they recognize: paths with their parsed sessions.
pub fn sessions_of(only: &[ProviderId]) -> Vec<(PathBuf, Session)> {
    let root = corpus();
    let mut third: Vec<PathBuf> = walk(&root.join("third-party"));
    third.sort();
    let mut out = Vec::new();
    for src in providers() {
        if !only.is_empty() && !only.contains(&src.id()) {
            continue;
        }
        for home in homes(&root) {
            let env = Env::with_home(&home);
            let mut files = src.discover(&env).files;
            files.sort_by(|a, b| a.path.cmp(&b.path));
            for f in files {
                if let Ok(s) = src.parse(&f) {
                    out.push((f.path.clone(), s));
                }
            }
        }
        for p in &third {
            if let Some(f) = src.detect(p) {
                if let Ok(s) = src.parse(&f) {
                    out.push((p.clone(), s));
                }
            }
        }
    }
    out
}

/// The Claude Code and Codex sessions (the providers the written-down tests cover).
pub fn all_sessions() -> Vec<(PathBuf, Session)> {
    sessions_of(&[ProviderId::Claude, ProviderId::Codex])
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(rd) = std::fs::read_dir(dir) else {
        return out;
    };
    for e in rd.filter_map(Result::ok) {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

/// The session parsed from the file whose name contains `needle`.
pub fn session(needle: &str) -> Session {
    let mut found: Vec<Session> = all_sessions()
        .into_iter()
        .filter(|(p, _)| p.to_string_lossy().contains(needle))
        .map(|(_, s)| s)
        .collect();
    assert_eq!(found.len(), 1, "exactly one session file matches {needle}");
    found.remove(0)
}
