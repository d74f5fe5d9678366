//! Loading the corpus sessions with the landed providers (Claude Code, Codex).

use std::path::{Path, PathBuf};

use scry_model::Session;
use scry_source::{Env, Source};

/// `../shared/corpus` beside the repository.
pub fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus")
}

/// The providers whose crates have landed.
pub fn providers() -> Vec<Box<dyn Source>> {
    vec![
        Box::new(scry_source_claude::ClaudeSource),
        Box::new(scry_source_codex::CodexSource),
    ]
}

/// Every session the providers find in the homes of `real/` and `real-older/`, plus the
/// third-party Claude / Codex files they recognize. Paths with their parsed sessions.
pub fn all_sessions() -> Vec<(PathBuf, Session)> {
    let root = corpus();
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
    let mut out = Vec::new();
    for src in providers() {
        for home in &homes {
            let env = Env::with_home(home);
            let mut files = src.discover(&env).files;
            files.sort_by(|a, b| a.path.cmp(&b.path));
            for f in files {
                if let Ok(s) = src.parse(&f) {
                    out.push((f.path.clone(), s));
                }
            }
        }
        for dir in ["third-party/claude", "third-party/codex"] {
            let mut paths: Vec<PathBuf> = walk(&root.join(dir));
            paths.sort();
            for p in paths {
                if let Some(f) = src.detect(&p) {
                    if let Ok(s) = src.parse(&f) {
                        out.push((p, s));
                    }
                }
            }
        }
    }
    out
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
