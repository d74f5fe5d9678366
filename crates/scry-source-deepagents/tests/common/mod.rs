//! Shared helpers for the Deep Agents provider tests: corpus paths and session loading.

#![allow(dead_code)]

use std::path::Path;

use scry_model::{EventKind, Session};
use scry_source::{Env, Source, SourceFile};
use scry_source_deepagents::DeepagentsSource;

/// `../shared/corpus` beside the repository.
#[allow(unused_imports)]
pub use scry_testkit::corpus;

/// Every source discovered in `env`.
pub fn discover(env: &Env) -> Vec<SourceFile> {
    let d = DeepagentsSource.discover(env);
    assert!(d.warnings.is_empty(), "{:?}", d.warnings);
    d.files
}

/// Every source of the database at `db`.
pub fn sources_of(db: &Path) -> Vec<SourceFile> {
    discover(
        &Env::with_home("/nonexistent")
            .var_set("DEEPAGENTS_SESSIONS_DB", db.to_string_lossy().into_owned()),
    )
}

/// Parses one source.
pub fn parse(f: &SourceFile) -> Session {
    DeepagentsSource
        .parse(f)
        .unwrap_or_else(|e| panic!("{}: {e}", f.id))
}

/// Events of `kind`.
pub fn count(s: &Session, kind: EventKind) -> usize {
    s.events.iter().filter(|e| e.kind == kind).count()
}

/// The session with id `id` (parsed).
pub fn session(files: &[SourceFile], id: &str) -> Session {
    let f = files
        .iter()
        .find(|f| f.id == id)
        .unwrap_or_else(|| panic!("no source {id}"));
    parse(f)
}
