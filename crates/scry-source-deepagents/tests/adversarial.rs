//! Bad input gets a clear error or a warning, never a panic: a rejected `DEEPAGENTS_HOME`, a
//! file that is not a database, a database without LangGraph tables, a thread that is gone,
//! undecodable blobs.

mod common;

use scry_source::{Env, Source, SourceFile};
use scry_source_deepagents::DeepagentsSource;

#[test]
fn relative_and_tilde_user_homes_are_refused_with_a_warning() {
    for value in ["relative/dir", "~bob/agents"] {
        let env = Env::with_home("/home/u").var_set("DEEPAGENTS_HOME", value);
        let d = DeepagentsSource.discover(&env);
        assert!(d.files.is_empty());
        assert_eq!(d.warnings.len(), 1);
        assert!(d.warnings[0].message.contains(value), "{}", d.warnings[0]);
        assert_eq!(d.roots.len(), 1);
        assert!(!d.roots[0].exists);
    }
}

#[test]
fn missing_database_is_no_error() {
    let d = DeepagentsSource.discover(&Env::with_home("/nonexistent-home"));
    assert!(d.files.is_empty() && d.warnings.is_empty());
    assert_eq!(
        d.roots[0].path,
        std::path::PathBuf::from("/nonexistent-home/.deepagents/.state/sessions.db")
    );
}

#[test]
fn not_a_database_and_foreign_database() {
    let tmp = tempfile::tempdir().unwrap();
    let junk = tmp.path().join("sessions.db");
    std::fs::write(&junk, b"not sqlite at all").unwrap();
    let env = Env::with_home("/x").var_set("DEEPAGENTS_SESSIONS_DB", junk.to_string_lossy());
    let d = DeepagentsSource.discover(&env);
    assert!(d.files.is_empty());
    assert_eq!(d.warnings.len(), 1);
    assert!(DeepagentsSource.detect(&junk).is_none());

    let other = tmp.path().join("other.db");
    let conn = rusqlite::Connection::open(&other).unwrap();
    conn.execute_batch("CREATE TABLE t(x)").unwrap();
    drop(conn);
    let env = Env::with_home("/x").var_set("DEEPAGENTS_SESSIONS_DB", other.to_string_lossy());
    let d = DeepagentsSource.discover(&env);
    assert!(d.warnings[0]
        .message
        .contains("Not a supported sessions database"));
    let f = SourceFile::new(scry_model::ProviderId::Deepagents, "t", &other);
    assert!(DeepagentsSource.parse(&f).is_err());
}

#[test]
fn unknown_thread_is_not_found() {
    let db = common::corpus().join("langgraph/langgraph/sessions.db");
    let mut f = SourceFile::new(scry_model::ProviderId::Deepagents, "nope", &db);
    f.key = Some("nope".into());
    let err = DeepagentsSource.parse(&f).unwrap_err();
    assert!(err.to_string().contains("nope"), "{err}");
}

#[test]
fn undecodable_blobs_become_warnings() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("sessions.db");
    std::fs::copy(
        common::corpus().join("langgraph/langgraph/sessions.db"),
        &db,
    )
    .unwrap();
    let conn = rusqlite::Connection::open(&db).unwrap();
    // Corrupt every messages write and every checkpoint blob of one thread.
    conn.execute_batch(
        "UPDATE writes SET value = x'c1c1c1' WHERE thread_id = '019b0000-0000-7000-8000-00000000000a' AND channel = 'messages';
         UPDATE checkpoints SET checkpoint = x'dd' WHERE thread_id = '019b0000-0000-7000-8000-00000000000a';
         UPDATE checkpoints SET metadata = x'ff00' WHERE thread_id = '019b0000-0000-7000-8000-00000000000d';",
    )
    .unwrap();
    drop(conn);
    for f in common::sources_of(&db) {
        let s = DeepagentsSource.parse(&f).unwrap();
        if f.id == "019b0000-0000-7000-8000-00000000000a" {
            assert!(!s.warnings.is_empty());
        }
    }
    assert!(DeepagentsSource.detect(&db).is_some());
}
