//! The archive (SPEC S-I6, issue 20): sessions whose source vanished stay in the index,
//! `live: false`, readable and searchable until an explicit prune. This module lists them
//! (with when the refresh found the source gone and how much of the index they hold), counts
//! them for `doctor`, and prunes them (`index --prune [--older-than] [--dry-run]`) in bounded
//! steps.
//!
//! When a refresh marks a source vanished it also records the time in the `archived` table
//! (`sid`, `gone` in ms since the epoch); a source that comes back drops its row. The table is
//! created on opening an index made before it existed (no schema bump, so an index built by an
//! older scry keeps its archived sessions: S-I1's rebuild on a schema change would drop them).
//! Sessions archived by such an older scry have no `gone` time: their `last_seen` (the source's
//! mtime when it was last indexed) stands in for it.

use rusqlite::{params, Connection};
use scry_model::{ProviderId, SessionKind, Timestamp};

use crate::error::{Result, StoreError};
use crate::ingest::retire;
use crate::read::kind_of;
use crate::Store;

/// Created with the schema and on opening an index made before it existed.
/// `files_gone`: the sources marked gone, so listing the archive reads those rows only (a scan
/// of the 20k-row covering index took ~2 ms warm, ~165 ms cold; the partial index ~0.01 ms).
pub(crate) const DDL: &str =
    "CREATE TABLE IF NOT EXISTS archived(sid INTEGER PRIMARY KEY, gone INTEGER NOT NULL);
     CREATE INDEX IF NOT EXISTS files_gone ON files(sid) WHERE live = 0;";

/// Records that the source of `sid` was found gone now (kept when already recorded).
pub(crate) fn mark_gone(tx: &Connection, sid: Option<i64>) -> Result<()> {
    if let Some(sid) = sid {
        tx.prepare_cached("INSERT OR IGNORE INTO archived(sid, gone) VALUES(?1, ?2)")
            .and_then(|mut st| st.execute(params![sid, crate::now_ms()]))
            .map_err(StoreError::db("record vanished"))?;
    }
    Ok(())
}

/// Forgets the gone time of `sid` (its source came back).
pub(crate) fn mark_back(tx: &Connection, sid: Option<i64>) -> Result<()> {
    if let Some(sid) = sid {
        tx.prepare_cached("DELETE FROM archived WHERE sid = ?1")
            .and_then(|mut st| st.execute([sid]))
            .map_err(StoreError::db("record revived"))?;
    }
    Ok(())
}

/// One archived session: a `sessions` row with `live = 0` and the `files` row it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArchivedRow {
    /// The stored session's row id.
    pub sid: i64,
    /// The source file (gone).
    pub path: String,
    /// Its key inside a multi-session store (`""` for a single-session file).
    pub key: String,
    /// The provider.
    pub provider: ProviderId,
    /// The provider's session id.
    pub id: String,
    /// `provider:id`.
    pub uri: String,
    /// The working directory.
    pub cwd: Option<String>,
    /// What discovery knew of the working directory (`cwd_hint`).
    pub hint: Option<String>,
    /// Last update.
    pub updated: Option<Timestamp>,
    /// The session's kind.
    pub kind: SessionKind,
    /// The parent the session folds under (the header's, else discovery's).
    pub parent: Option<String>,
    /// Stored events.
    pub events: u32,
    /// The source's size when it was last indexed.
    pub source_bytes: u64,
    /// The source's mtime when it was last indexed: the last time it is known to have existed.
    pub last_seen: Option<Timestamp>,
    /// When a refresh found the source gone (`None`: archived by an older scry).
    pub gone: Option<Timestamp>,
}

impl ArchivedRow {
    /// When the source was found gone, else when it was last seen.
    pub fn deleted(&self) -> Option<Timestamp> {
        self.gone.or(self.last_seen)
    }
}

/// What the archive holds (`doctor`; its JSON is `doctor --json`'s `archive`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct ArchiveStats {
    /// Archived sessions.
    pub sessions: u64,
    /// Their stored events.
    pub events: u64,
    /// Bytes of their stored event blocks (compressed).
    pub bytes: u64,
    /// Their sources' sizes when last indexed.
    pub source_bytes: u64,
}

fn ms_time(ms: i64) -> Option<Timestamp> {
    Timestamp::from_millisecond(ms).ok()
}

fn ns_time(ns: i64) -> Option<Timestamp> {
    Timestamp::from_nanosecond(i128::from(ns)).ok()
}

const SELECT: &str = "SELECT s.sid, f.path, f.key, s.provider, s.native, s.uri, s.cwd, s.hint,
        s.updated, s.kind, s.fold, s.events, f.size, f.mtime_ns, a.gone
     FROM files f JOIN sessions s ON s.sid = f.sid
     LEFT JOIN archived a ON a.sid = s.sid
     WHERE f.live = 0 AND s.live = 0";

/// [`Store::archive_stats`] over any connection (also a read-only one of an index made before
/// the `archived` table existed).
fn stats_of(conn: &Connection) -> Result<ArchiveStats> {
    let fail = |e| StoreError::db("measure archived sessions")(e);
    let rows: Vec<(i64, u32, i64)> = conn
        .prepare(
            "SELECT s.sid, s.events, f.size FROM files f JOIN sessions s ON s.sid = f.sid
             WHERE f.live = 0 AND s.live = 0",
        )
        .and_then(|mut st| {
            st.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
                .collect()
        })
        .map_err(fail)?;
    let mut blocks = conn
        .prepare("SELECT coalesce(sum(length(data)), 0) FROM blocks WHERE id BETWEEN ?1 AND ?2")
        .map_err(fail)?;
    let mut stats = ArchiveStats::default();
    for (sid, events, size) in rows {
        let (lo, hi) = crate::codec::event_id_range(sid);
        let bytes: i64 = blocks
            .query_row(params![lo, hi], |r| r.get(0))
            .map_err(fail)?;
        stats.sessions += 1;
        stats.events += u64::from(events);
        stats.bytes += u64::try_from(bytes).unwrap_or(0);
        stats.source_bytes += u64::try_from(size).unwrap_or(0);
    }
    Ok(stats)
}

/// The archive of the index at `path`, read over a read-only connection (`doctor` never
/// writes to the index); `None` when it cannot be read.
pub fn archive_at(path: &std::path::Path) -> Option<ArchiveStats> {
    let conn = crate::integrity::read_only(path)?;
    stats_of(&conn).ok()
}

fn row_of(r: &rusqlite::Row<'_>) -> rusqlite::Result<Option<ArchivedRow>> {
    let provider: String = r.get(3)?;
    let kind: String = r.get(9)?;
    let (Ok(provider), Some(kind)) = (provider.parse::<ProviderId>(), kind_of(&kind)) else {
        return Ok(None);
    };
    let mtime: i64 = r.get(13)?;
    Ok(Some(ArchivedRow {
        sid: r.get(0)?,
        path: r.get(1)?,
        key: r.get(2)?,
        provider,
        id: r.get(4)?,
        uri: r.get(5)?,
        cwd: r.get(6)?,
        hint: r.get(7)?,
        updated: r.get::<_, Option<i64>>(8)?.and_then(ns_time),
        kind,
        parent: r.get(10)?,
        events: r.get(11)?,
        source_bytes: u64::try_from(r.get::<_, i64>(12)?).unwrap_or(0),
        last_seen: (mtime > 0).then(|| ns_time(mtime)).flatten(),
        gone: r.get::<_, Option<i64>>(14)?.and_then(ms_time),
    }))
}

impl Store {
    /// Every archived session (source gone, rows kept), oldest gone first. Rows whose provider
    /// or kind this build does not know are left out.
    pub fn archived(&self) -> Result<Vec<ArchivedRow>> {
        let mut st = self
            .conn
            .prepare_cached(&format!(
                "{SELECT} ORDER BY coalesce(a.gone, f.mtime_ns / 1000000), s.sid"
            ))
            .map_err(StoreError::db("list archived sessions"))?;
        let rows = st
            .query_map([], row_of)
            .map_err(StoreError::db("list archived sessions"))?;
        let mut out = Vec::new();
        for row in rows {
            out.extend(row.map_err(StoreError::db("list archived sessions"))?);
        }
        Ok(out)
    }

    /// The archived session indexed from (`path`, `key`), if that source is archived.
    pub fn archived_source(&self, path: &str, key: &str) -> Result<Option<ArchivedRow>> {
        let mut st = self
            .conn
            .prepare_cached(&format!("{SELECT} AND f.path = ?1 AND f.key = ?2"))
            .map_err(StoreError::db("read archived session"))?;
        let mut rows = st
            .query_map(params![path, key], row_of)
            .map_err(StoreError::db("read archived session"))?;
        match rows.next() {
            Some(r) => r.map_err(StoreError::db("read archived session")),
            None => Ok(None),
        }
    }

    /// How many archived sessions the index holds, their events and their size.
    pub fn archive_stats(&self) -> Result<ArchiveStats> {
        stats_of(&self.conn)
    }

    /// Removes the archived sessions found gone before `older_than` (all when `None`), with
    /// their file records, events, search documents and facts; with `dry_run`, only says which.
    /// The rows go in one short transaction; their blocks afterwards in bounded steps (as a
    /// refresh clears replaced sessions). Returns the sessions removed (or that would be).
    pub fn prune_archived(
        &mut self,
        older_than: Option<Timestamp>,
        dry_run: bool,
    ) -> Result<Vec<ArchivedRow>> {
        let chosen: Vec<ArchivedRow> = self
            .archived()?
            .into_iter()
            .filter(|r| older_than.is_none_or(|t| r.deleted().is_none_or(|d| d < t)))
            .collect();
        if dry_run || chosen.is_empty() {
            return Ok(chosen);
        }
        crate::refresh::poll_when_busy(&self.conn, self.busy_wait.get())?;
        let guard = crate::refresh::TxGuard::begin(&self.conn)?;
        for row in &chosen {
            // Still archived (a refresh between the read and this write may have revived it).
            let still: i64 = self
                .conn
                .query_row(
                    "SELECT count(*) FROM sessions WHERE sid = ?1 AND live = 0",
                    [row.sid],
                    |r| r.get(0),
                )
                .map_err(StoreError::db("check archived session"))?;
            if still == 0 {
                continue;
            }
            retire(&self.conn, row.sid)?;
            crate::revision::drop_all(&self.conn, &row.path, &row.key)?;
            self.conn
                .execute("DELETE FROM files WHERE sid = ?1 AND live = 0", [row.sid])
                .map_err(StoreError::db("delete file"))?;
            mark_back(&self.conn, Some(row.sid))?;
        }
        guard.commit()?;
        crate::refresh::collect_removed(&self.conn)?;
        Ok(chosen)
    }
}
