//! Read-only (SPEC P1): parsing never creates, changes or locks anything beside the database —
//! neither in the corpus (a read-only directory in CI) nor on a WAL-mode copy in a directory
//! without write bits.

mod common;

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use scry_source::{Env, Source};
use scry_source_deepagents::DeepagentsSource;

fn listing(dir: &Path) -> Vec<(String, u64, std::time::SystemTime)> {
    let mut out: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| {
            let m = e.metadata().unwrap();
            (
                e.file_name().to_string_lossy().into_owned(),
                m.len(),
                m.modified().unwrap(),
            )
        })
        .collect();
    out.sort();
    out
}

#[test]
fn wal_copy_in_a_read_only_directory_stays_untouched() {
    let tmp = tempfile::tempdir().unwrap();
    let state = tmp.path().join(".deepagents/.state");
    std::fs::create_dir_all(&state).unwrap();
    let src = common::corpus().join("real/home/.deepagents/.state/sessions.db");
    let db = state.join("sessions.db");
    std::fs::copy(&src, &db).unwrap();
    let before_bytes = std::fs::read(&db).unwrap();
    std::fs::set_permissions(&db, std::fs::Permissions::from_mode(0o444)).unwrap();
    std::fs::set_permissions(&state, std::fs::Permissions::from_mode(0o555)).unwrap();
    let before = listing(&state);

    let env = Env::with_home(tmp.path());
    let d = DeepagentsSource.discover(&env);
    assert_eq!(d.files.len(), 2);
    for f in &d.files {
        let s = DeepagentsSource.parse(f).unwrap();
        assert!(!s.events.is_empty());
        DeepagentsSource.scan_header(f).unwrap();
    }

    assert_eq!(listing(&state), before, "no -wal / -shm / journal files");
    assert_eq!(std::fs::read(&db).unwrap(), before_bytes);
    std::fs::set_permissions(&state, std::fs::Permissions::from_mode(0o755)).unwrap();
}

#[test]
fn corpus_directories_are_not_touched() {
    for dir in [
        "real/home/.deepagents/.state",
        "langgraph/dcode/home/.deepagents/.state",
        "langgraph/langgraph",
    ] {
        let dir = common::corpus().join(dir);
        let before = listing(&dir);
        let db = dir.join("sessions.db");
        for f in common::sources_of(&db) {
            common::parse(&f);
        }
        assert_eq!(listing(&dir), before, "{}", dir.display());
    }
}
