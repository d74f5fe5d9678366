//! Shared helpers for the MT-Agent provider tests: the committed fixture home and loading.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

use scry_model::{EventKind, Session};
use scry_source::{Env, Source, SourceFile};
use scry_source_mtagent::MtagentSource;

/// `fixtures/home` (written by `fixtures/generate.py`).
pub fn home() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/home")
}

/// Every source under the fixture home.
pub fn files() -> Vec<SourceFile> {
    let d = MtagentSource.discover(&Env::with_home(home()));
    assert!(d.warnings.is_empty(), "{:?}", d.warnings);
    d.files
}

/// The parsed session `id`.
pub fn session(id: &str) -> Session {
    let files = files();
    let f = files
        .iter()
        .find(|f| f.id == id)
        .unwrap_or_else(|| panic!("no source {id}"));
    MtagentSource
        .parse(f)
        .unwrap_or_else(|e| panic!("{id}: {e}"))
}

/// Events of `kind`.
pub fn count(s: &Session, kind: EventKind) -> usize {
    s.events.iter().filter(|e| e.kind == kind).count()
}

/// Events with `subtype`.
pub fn with_subtype<'a>(s: &'a Session, subtype: &str) -> Vec<&'a scry_model::Event> {
    s.events
        .iter()
        .filter(|e| e.subtype.as_deref() == Some(subtype))
        .collect()
}
