//! `scry push`: mirrors the local index into the team store as one machine's sessions.
//!
//! The local index is refreshed first (as `scry index` would), then every kept source (the
//! exclusions apply: [`scry_query::indexed::kept_files`]) and every archived session is
//! compared with what the store holds for this machine by its source fingerprint (S-Q3) and
//! whether it was redacted: only changed sessions are read from the index and sent, each in
//! one transaction (its old row and text rows deleted, the new ones written), so an
//! interrupted push leaves every session either as it was or whole. Sessions the store holds
//! for this machine that the local index no longer has (excluded, pruned) are removed.
//! Redaction applies on the way out unless `reveal`.

use std::collections::HashMap;
use std::time::Instant;

use postgres::Client;
use scry_model::{ErrorCode, Session};
use scry_query::catalog::Catalog;
use scry_query::{indexed, Context, QueryError, QueryResult};
use scry_source::SourceFile;
use serde::Serialize;

use crate::connect::db_error;
use crate::stored;

/// How to push.
#[derive(Debug, Clone, Default)]
pub struct PushOptions {
    /// The machine name the sessions are filed under.
    pub machine: String,
    /// Send raw text (no redaction).
    pub reveal: bool,
    /// Test hook: end the process (exit 101, no commit) in the middle of writing the session
    /// after this many were sent, as a crash or a kill would.
    pub abort_after: Option<usize>,
}

/// What a push did.
#[derive(Debug, Clone, Default, Serialize)]
pub struct PushReport {
    /// The machine pushed as.
    pub machine: String,
    /// The store (host and database).
    pub store: String,
    /// Sessions sent (new or changed).
    pub sent: usize,
    /// Sessions already in the store as they are.
    pub unchanged: usize,
    /// Sessions removed from the store (no longer in the local index, or excluded).
    pub removed: usize,
    /// Sources the local index holds no session for (their last parse failed).
    pub skipped: usize,
    /// Events sent.
    pub events: u64,
    /// Compressed bytes sent (session bodies).
    pub bytes: u64,
    /// Whether text was redacted on the way out.
    pub redacted: bool,
    /// Milliseconds the push took.
    pub elapsed_ms: u64,
}

/// The identity of a source in the store: `(path, key)`.
type SourceKey = (String, String);

fn source_key(f: &SourceFile) -> SourceKey {
    (
        f.path.to_string_lossy().into_owned(),
        f.key.clone().unwrap_or_default(),
    )
}

/// Pushes the local index of `ctx` to the team store at `url`.
pub fn push(ctx: &Context, url: &str, opts: &PushOptions) -> QueryResult<PushReport> {
    let start = Instant::now();
    if opts.machine.is_empty() || opts.machine.contains('/') {
        return Err(QueryError::usage(
            ErrorCode::InvalidQuery,
            format!(
                "invalid machine name {:?}: it must be non-empty and hold no '/'",
                opts.machine
            ),
        ));
    }
    let (mut client, target) = crate::connect(url)?;
    crate::schema::ensure(&mut client, &target)?;
    crate::schema::check_writable(&mut client, &target)?;
    let catalog = Catalog::discover(ctx, &[]);
    let mut store = indexed::open_local(ctx)?.ok_or_else(|| {
        QueryError::usage(
            ErrorCode::InvalidQuery,
            "scry push reads the local index: it cannot run with --no-index",
        )
    })?;
    indexed::refresh(ctx, &mut store, catalog.sources(), &catalog.files);
    let mut files = indexed::kept_files(&ctx.exclusions, &store, &catalog.files);
    let ex = &ctx.exclusions;
    for (_, f) in scry_query::archive::rows(&ctx.exclusions, &store) {
        files.push(f);
    }
    let mut held = held(&mut client, &opts.machine)?;
    let mut report = PushReport {
        machine: opts.machine.clone(),
        store: target.to_string(),
        redacted: !opts.reveal,
        ..PushReport::default()
    };
    let mut seen = std::collections::HashSet::new();
    for f in &files {
        let key = source_key(f);
        if !seen.insert(key.clone()) {
            continue;
        }
        let fingerprint = scry_query::fingerprint_text(&f.path);
        if held.remove(&key) == Some((fingerprint.clone(), !opts.reveal)) {
            report.unchanged += 1;
            continue;
        }
        let Ok(session) = store.session(f) else {
            report.skipped += 1;
            continue;
        };
        if session
            .header
            .cwd
            .as_deref()
            .is_some_and(|cwd| ex.project_of(cwd).is_some())
        {
            continue;
        }
        let mut session = Session {
            header: indexed::normalize(session.header),
            ..session
        };
        if !opts.reveal {
            session = stored::redacted(session)?;
        }
        let stored = Stored {
            machine: &opts.machine,
            key: &key,
            fingerprint: &fingerprint,
            size: f.size as i64,
            redacted: !opts.reveal,
        };
        let abort = opts.abort_after == Some(report.sent);
        report.bytes += write(&mut client, &stored, &session, abort)?;
        report.events += session.events.len() as u64;
        report.sent += 1;
    }
    for (path, key) in held.into_keys() {
        client
            .execute(
                "DELETE FROM scry_sessions WHERE machine = $1 AND path = $2 AND key = $3",
                &[&opts.machine, &path, &key],
            )
            .map_err(db_error("remove a session"))?;
        report.removed += 1;
    }
    report.elapsed_ms = start.elapsed().as_millis() as u64;
    Ok(report)
}

/// What the store holds for `machine`: fingerprint and redaction by source.
fn held(client: &mut Client, machine: &str) -> QueryResult<HashMap<SourceKey, (String, bool)>> {
    let rows = client
        .query(
            "SELECT path, key, fingerprint, redacted FROM scry_sessions WHERE machine = $1",
            &[&machine],
        )
        .map_err(db_error("read the machine's sessions"))?;
    Ok(rows
        .into_iter()
        .map(|r| ((r.get(0), r.get(1)), (r.get(2), r.get(3))))
        .collect())
}

/// Where and as what a session is written.
struct Stored<'a> {
    machine: &'a str,
    key: &'a SourceKey,
    fingerprint: &'a str,
    size: i64,
    redacted: bool,
}

/// Replaces the session of `at.key` in one transaction; returns the body's size.
fn write(client: &mut Client, at: &Stored<'_>, session: &Session, abort: bool) -> QueryResult<u64> {
    let (machine, key) = (at.machine, at.key);
    let h = &session.header;
    let body = stored::encode(&session.events, &session.warnings)?;
    let header = stored::header_text(h)?;
    let updated = h.updated.map(|t| t.as_millisecond());
    let events = session.events.len() as i32;
    let mut tx = client.transaction().map_err(db_error("begin a session"))?;
    tx.execute(
        "DELETE FROM scry_sessions WHERE machine = $1 AND path = $2 AND key = $3",
        &[&machine, &key.0, &key.1],
    )
    .map_err(db_error("replace a session"))?;
    let id: i64 = tx
        .query_one(
            "INSERT INTO scry_sessions(machine, path, key, provider, native, uri, fingerprint,
                 redacted, cwd, title, updated, size, events, header, body)
             VALUES($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)
             RETURNING id",
            &[
                &machine,
                &key.0,
                &key.1,
                &h.provider.as_str(),
                &h.id,
                &h.uri,
                &at.fingerprint,
                &at.redacted,
                &h.cwd,
                &h.title,
                &updated,
                &at.size,
                &events,
                &header,
                &body,
            ],
        )
        .map_err(db_error("write a session"))?
        .get(0);
    if abort {
        // The test hook: die with the transaction open, as `kill -9` would.
        std::process::exit(101);
    }
    let seqs: Vec<i32> = session.events.iter().map(|e| e.seq as i32).collect();
    let texts: Vec<String> = session.events.iter().map(stored::search_text).collect();
    tx.execute(
        "INSERT INTO scry_text(session, seq, text)
         SELECT $1, s, t FROM unnest($2::int4[], $3::text[]) AS u(s, t)",
        &[&id, &seqs, &texts],
    )
    .map_err(db_error("write a session's text"))?;
    tx.commit().map_err(db_error("commit a session"))?;
    Ok(body.len() as u64)
}
