//! The team store's tables and their version (issue 22).
//!
//! [`SCHEMA_VERSION`] is kept in `scry_meta`; [`ensure`] (the pusher) creates the tables in an
//! empty database and runs the migrations from the stored version up, in one transaction;
//! [`check`] (the readers) only reads the version, so readers need no more than `SELECT`.
//!
//! Tables:
//! - `scry_meta(key, value)`: `schema_version`.
//! - `scry_sessions`: one row per pushed source of one machine (`machine`, `path`, `key` is the
//!   identity, as a source is in the local index), with what the local index knew: provider,
//!   native id, uri, the header (JSON), the columns `list` sorts and filters by, the source
//!   `fingerprint` (S-Q3) and `size` the row was pushed from and whether it was `redacted`; `body` is the
//!   session's events and warnings as zstd-compressed JSON ([`crate::stored`]).
//! - `scry_text`: one row per event with its searchable text (the event's text and its tool
//!   name and arguments), with a `pg_trgm` GIN index: search asks it for candidate sessions,
//!   then scry's own matcher verifies them (the same engine as the local search).
//!
//! A session is replaced whole: its row and its text rows are deleted and written again in one
//! transaction, so a reader never sees half a session.

use postgres::Client;
use scry_model::ErrorCode;
use scry_query::QueryError;

use crate::connect::{db_error, Target};

/// Version of the team store's layout.
pub const SCHEMA_VERSION: i64 = 1;

const V1: &str = "
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE TABLE scry_sessions(
    id BIGSERIAL PRIMARY KEY,
    machine TEXT NOT NULL,
    path TEXT NOT NULL,
    key TEXT NOT NULL DEFAULT '',
    provider TEXT NOT NULL,
    native TEXT NOT NULL,
    uri TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    redacted BOOLEAN NOT NULL,
    cwd TEXT,
    title TEXT,
    updated BIGINT,
    size BIGINT NOT NULL,
    events INTEGER NOT NULL,
    header TEXT NOT NULL,
    body BYTEA NOT NULL,
    pushed_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    UNIQUE(machine, path, key)
);
CREATE INDEX scry_sessions_uri ON scry_sessions(uri);
CREATE INDEX scry_sessions_native ON scry_sessions(native);
CREATE INDEX scry_sessions_updated ON scry_sessions(updated DESC);
CREATE TABLE scry_text(
    session BIGINT NOT NULL REFERENCES scry_sessions(id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    text TEXT NOT NULL,
    PRIMARY KEY(session, seq)
);
CREATE INDEX scry_text_trgm ON scry_text USING gin (text gin_trgm_ops);
CREATE INDEX scry_sessions_title_trgm ON scry_sessions USING gin (coalesce(title, '') gin_trgm_ops);
";

/// The migrations, in order: entry `i` brings version `i` to `i + 1`.
const MIGRATIONS: &[&str] = &[V1];

fn stored_version(client: &mut Client) -> Result<Option<i64>, QueryError> {
    let has_meta: bool = client
        .query_one("SELECT to_regclass('scry_meta') IS NOT NULL", &[])
        .map_err(db_error("read the schema"))?
        .get(0);
    if !has_meta {
        return Ok(None);
    }
    let row = client
        .query_opt(
            "SELECT value FROM scry_meta WHERE key = 'schema_version'",
            &[],
        )
        .map_err(db_error("read the schema version"))?;
    Ok(row.map(|r| r.get(0)))
}

fn newer(target: &Target, v: i64) -> QueryError {
    QueryError::new(
        ErrorCode::PersistenceFailure,
        format!(
            "the team store ({target}) has schema version {v}, newer than this scry's \
             {SCHEMA_VERSION}: upgrade scry"
        ),
    )
}

/// Creates or migrates the tables to [`SCHEMA_VERSION`] (the pusher's step).
pub fn ensure(client: &mut Client, target: &Target) -> Result<(), QueryError> {
    let current = stored_version(client)?.unwrap_or(0);
    if current == SCHEMA_VERSION {
        return Ok(());
    }
    if current > SCHEMA_VERSION {
        return Err(newer(target, current));
    }
    let mut tx = client
        .transaction()
        .map_err(db_error("begin the schema migration"))?;
    // One migrator at a time: a second pusher waits here, then finds the work done.
    tx.batch_execute("SELECT pg_advisory_xact_lock(7262013)")
        .map_err(db_error("lock the schema"))?;
    tx.batch_execute(
        "CREATE TABLE IF NOT EXISTS scry_meta(key TEXT PRIMARY KEY, value BIGINT NOT NULL)",
    )
    .map_err(db_error("create scry_meta"))?;
    let now: i64 = tx
        .query_opt(
            "SELECT value FROM scry_meta WHERE key = 'schema_version'",
            &[],
        )
        .map_err(db_error("read the schema version"))?
        .map(|r| r.get(0))
        .unwrap_or(0);
    for (i, step) in MIGRATIONS.iter().enumerate().skip(now.max(0) as usize) {
        tx.batch_execute(step)
            .map_err(db_error(&format!("migrate to schema version {}", i + 1)))?;
    }
    tx.execute(
        "INSERT INTO scry_meta(key, value) VALUES('schema_version', $1)
         ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        &[&SCHEMA_VERSION],
    )
    .map_err(db_error("write the schema version"))?;
    tx.commit().map_err(db_error("commit the schema"))?;
    Ok(())
}

/// Checks that the connected role may write sessions (the pusher's step, before it reads the
/// local index): a read-only role gets one line naming it and what push needs, exit 1.
pub fn check_writable(client: &mut Client, target: &Target) -> Result<(), QueryError> {
    let row = client
        .query_one(
            "SELECT current_user::text,
                 has_table_privilege('scry_sessions', 'INSERT')
                 AND has_table_privilege('scry_sessions', 'DELETE')
                 AND has_table_privilege('scry_text', 'INSERT')
                 AND has_sequence_privilege('scry_sessions_id_seq', 'USAGE')",
            &[],
        )
        .map_err(db_error("read the role's privileges"))?;
    let (role, writable): (String, bool) = (row.get(0), row.get(1));
    if writable {
        return Ok(());
    }
    Err(QueryError::new(
        ErrorCode::PersistenceFailure,
        format!(
            "the role {role:?} may only read the team store ({target}): push needs INSERT and \
             DELETE on scry_sessions, INSERT on scry_text and USAGE on scry_sessions_id_seq"
        ),
    ))
}

/// Checks that the store holds scry's tables at this build's version (the readers' step).
pub fn check(client: &mut Client, target: &Target) -> Result<(), QueryError> {
    match stored_version(client)? {
        Some(v) if v == SCHEMA_VERSION => Ok(()),
        Some(v) if v > SCHEMA_VERSION => Err(newer(target, v)),
        Some(v) => Err(QueryError::new(
            ErrorCode::PersistenceFailure,
            format!(
                "the team store ({target}) has schema version {v}, older than this scry's \
                 {SCHEMA_VERSION}: run `scry push` once to migrate it"
            ),
        )),
        None => Err(QueryError::new(
            ErrorCode::PersistenceFailure,
            format!("no scry team store in {target}: run `scry push` first"),
        )),
    }
}
