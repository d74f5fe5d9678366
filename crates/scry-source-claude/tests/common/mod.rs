//! Helpers shared by the integration tests: corpus paths, parsing a path, counting events.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

use scry_model::{EventKind, Session, TokenUsage};
use scry_source::{Source, SourceFile};
use scry_source_claude::ClaudeSource;

/// `../shared/corpus` beside the repository.
pub use scry_testkit::corpus;

/// The real 2.1.332 project directory.
pub fn real_project() -> PathBuf {
    corpus().join("real/home/.claude/projects/-home-dev-work-proj-claude")
}

/// The real 1.0.71 project directory.
pub fn older_project() -> PathBuf {
    corpus().join(
        "real-older/claude-1.0.71/home/.claude/projects/-home-dev-older-work-proj-claude-1-0-71",
    )
}

/// The session source for a path, as discovery / detect would build it.
pub fn source_file(path: &Path) -> SourceFile {
    scry_source_claude::discover::classify(path)
        .or_else(|| ClaudeSource.detect(path))
        .unwrap_or_else(|| panic!("not recognized: {}", path.display()))
}

/// Parses a file.
pub fn parse(path: &Path) -> Session {
    ClaudeSource
        .parse(&source_file(path))
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Number of events of `kind`.
pub fn count(s: &Session, kind: EventKind) -> usize {
    s.events.iter().filter(|e| e.kind == kind).count()
}

/// Sum of usage (zero when none).
pub fn usage(s: &Session) -> TokenUsage {
    s.total_usage().unwrap_or_default()
}

/// Sum of `data.copied_usage` over the copied events.
pub fn copied_usage(s: &Session) -> TokenUsage {
    let mut t = TokenUsage::default();
    for e in &s.events {
        if let Some(u) = e.data.as_ref().and_then(|d| d.get("copied_usage")) {
            let f = |k: &str| u.get(k).and_then(serde_json::Value::as_u64).unwrap_or(0);
            t += TokenUsage {
                input: f("input"),
                output: f("output"),
                cache_read: f("cache_read"),
                cache_write: f("cache_write"),
                reasoning: f("reasoning"),
            };
        }
    }
    t
}

/// Every `*.jsonl` under `dir`, sorted.
pub fn jsonl_files(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file() && e.path().extension().is_some_and(|x| x == "jsonl"))
        .map(|e| e.path().to_path_buf())
        .collect();
    out.sort();
    out
}
