//! Shared test helpers: corpus paths.
#![allow(dead_code)]

pub mod fixture;

use std::path::PathBuf;

/// `../shared/corpus` beside the repository.
pub use scry_testkit::corpus;

/// The hand-built LangGraph database.
pub fn langgraph_db() -> PathBuf {
    corpus().join("langgraph/langgraph/sessions.db")
}

/// The Deep Agents Code 0.1.57 database.
pub fn dcode_db() -> PathBuf {
    corpus().join("langgraph/dcode/home/.deepagents/.state/sessions.db")
}

/// The real deepagents-code 0.1.88 database (WAL mode, read-only directory).
pub fn real_db() -> PathBuf {
    corpus().join("real/home/.deepagents/.state/sessions.db")
}
