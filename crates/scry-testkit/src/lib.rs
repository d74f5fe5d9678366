//! Test support shared by scry's crates (a dev-dependency only, never shipped):
//!
//! - corpus paths: [`corpus`] (the read-only shared test corpus) and [`shared`];
//! - [`law`]: the resume-law harness (SPEC S-I2) every resumable provider checks itself with;
//! - [`http`]: a small raw HTTP/1.1 client for the server tests (they need full control of the
//!   request: foreign `Host` headers, odd methods, no retries);
//! - [`events`]: sessions rendered as stable, readable text for event snapshots.

pub mod events;
pub mod http;
pub mod law;

use std::path::PathBuf;

/// `/work/shared` as seen from the workspace: the directory beside the repository that holds the
/// contract and the corpus (`../shared` relative to the workspace root).
pub fn shared() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared")
}

/// The shared test corpus (read-only; never copied into the repository).
pub fn corpus() -> PathBuf {
    shared().join("corpus")
}

/// The repository's `demo/` directory.
pub fn demo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../demo")
}
