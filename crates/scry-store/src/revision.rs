//! Revisions (SPEC S-I6, issue 20): a source rewritten shorter or truncated is indexed as it
//! is now, and the session as it was before stays readable as an earlier **revision**, so
//! nothing indexed is ever silently lost.
//!
//! When a refresh re-parses a source whole and swaps the new session in, it compares the old
//! session's events with the new one's ([`common_prefix`]: identical blocks first, then event by
//! event). When the new session keeps every old event in the same order (an append, or a
//! rewrite that changed nothing indexed) the old session is retired as before. Otherwise
//! [`keep`] moves the old session's row from `sessions` to `revisions` instead of retiring it:
//! its event blocks, their search documents, warnings and facts stay under the old sid, and no
//! list, count or search of current sessions sees it (they all read `sessions`).
//!
//! `revisions(sid, path, key, replaced_at, common, uri, updated, events, header)`: one row per
//! earlier revision, named by its source (`path`, `key`, as `files` names it: not by `fid`, so a
//! schema change can carry them before any file row exists) — revision `n` of a source is its
//! `n`-th newest row (1 = the one replaced last). `common` is how many leading events it shares
//! with the session that replaced it: search reports only hits from there on (the events the
//! newer content no longer has), marked superseded. The table is created on opening an index
//! made before it existed (no schema bump, as for `archived`).
//!
//! `index --prune` removes revisions ([`Store::prune_revisions`], with `--older-than` on
//! `replaced_at` and `--dry-run`); removing an archived session's source removes its revisions
//! too.

use rusqlite::{params, Connection, OptionalExtension};
use scry_model::Timestamp;
use xxhash_rust::xxh3::Xxh3;

use crate::block::Decoded;
use crate::codec::{event_id, event_id_range};
use crate::error::{Result, StoreError};
use crate::Store;

/// Created with the schema and on opening an index made before it existed.
pub(crate) const DDL: &str = "CREATE TABLE IF NOT EXISTS revisions(
        sid INTEGER PRIMARY KEY,
        path TEXT NOT NULL,
        key TEXT NOT NULL,
        replaced_at INTEGER NOT NULL,
        common INTEGER NOT NULL,
        uri TEXT NOT NULL,
        updated INTEGER,
        events INTEGER NOT NULL,
        header TEXT NOT NULL
    );
    CREATE INDEX IF NOT EXISTS revisions_source ON revisions(path, key, sid);";

/// One earlier revision of a session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RevisionRow {
    /// 1 = the most recent earlier revision, 2 = the one before, …
    pub n: u32,
    /// The stored session's row id.
    pub sid: i64,
    /// The source file.
    pub path: String,
    /// Its key inside a multi-session store (`""` for a single-session file).
    pub key: String,
    /// When a refresh replaced it.
    pub replaced_at: Option<Timestamp>,
    /// Its events.
    pub events: u32,
    /// Leading events it shares with the session that replaced it.
    pub common: u32,
    /// Bytes of its stored event blocks (compressed).
    pub bytes: u64,
}

/// What the revisions hold (`doctor`; its JSON is `doctor --json`'s `revisions`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct RevisionStats {
    /// Earlier revisions.
    pub revisions: u64,
    /// Their stored events.
    pub events: u64,
    /// Bytes of their stored event blocks (compressed).
    pub bytes: u64,
}

/// A hash of one stored event (everything a block keeps of it).
fn record_hash(r: &crate::block::Record<'_>) -> u64 {
    let mut h = Xxh3::new();
    h.update(&r.seq.to_le_bytes());
    h.update(&r.kind.to_le_bytes());
    h.update(&r.turn.to_le_bytes());
    h.update(&(r.text.len() as u64).to_le_bytes());
    h.update(r.text.as_bytes());
    match r.aux {
        Some(a) => {
            h.update(&[1]);
            h.update(&(a.len() as u64).to_le_bytes());
            h.update(a.as_bytes());
        }
        None => h.update(&[0]),
    }
    h.update(r.rest.as_bytes());
    h.digest()
}

/// Calls `f` with each stored event of `sid` from seq `from` on, in order, until it returns
/// `false`.
fn each_from(
    conn: &Connection,
    sid: i64,
    from: u32,
    f: &mut dyn FnMut(&crate::block::Record<'_>) -> bool,
) -> Result<()> {
    let (lo, hi) = event_id_range(sid);
    let start: Option<i64> = conn
        .prepare_cached("SELECT max(id) FROM blocks WHERE id BETWEEN ?1 AND ?2")
        .and_then(|mut st| st.query_row(params![lo, event_id(sid, from)], |r| r.get(0)))
        .map_err(StoreError::db("read events"))?;
    let mut st = conn
        .prepare_cached("SELECT id, data FROM blocks WHERE id BETWEEN ?1 AND ?2 ORDER BY id")
        .map_err(StoreError::db("read events"))?;
    let mut rows = st
        .query(params![start.unwrap_or(lo), hi])
        .map_err(StoreError::db("read events"))?;
    let mut block = Decoded::default();
    while let Some(r) = rows.next().map_err(StoreError::db("read events"))? {
        let id: i64 = r.get(0).map_err(StoreError::db("read events"))?;
        let damaged =
            || StoreError::IndexBuild(format!("block {id} is damaged; re-index with --force"));
        let data = r.get_ref(1).map_err(StoreError::db("read events"))?;
        if !block.load(data.as_blob().unwrap_or(&[]), true) {
            return Err(damaged());
        }
        for rec in block.records() {
            let rec = rec.map_err(|()| damaged())?;
            if rec.seq >= from && !f(&rec) {
                return Ok(());
            }
        }
    }
    Ok(())
}

/// How many leading events the stored sessions `old` and `new` share (equal in every stored
/// field). Blocks that start at the same seq and are byte-identical are skipped without
/// decoding; from the first that differs, events are compared one by one.
pub(crate) fn common_prefix(conn: &Connection, old: i64, new: i64) -> Result<u32> {
    let mut at = 0u32;
    {
        let mut st = conn
            .prepare_cached("SELECT last, data FROM blocks WHERE id = ?1")
            .map_err(StoreError::db("compare revisions"))?;
        loop {
            let a: Option<(u32, Vec<u8>)> = st
                .query_row([event_id(old, at)], |r| Ok((r.get(0)?, r.get(1)?)))
                .optional()
                .map_err(StoreError::db("compare revisions"))?;
            let Some((last, data)) = a else { break };
            let b: Option<(u32, Vec<u8>)> = st
                .query_row([event_id(new, at)], |r| Ok((r.get(0)?, r.get(1)?)))
                .optional()
                .map_err(StoreError::db("compare revisions"))?;
            if b.as_ref() != Some(&(last, data)) || last == u32::MAX {
                break;
            }
            at = last + 1;
        }
    }
    let mut old_hashes = Vec::new();
    each_from(conn, old, at, &mut |r| {
        old_hashes.push(record_hash(r));
        true
    })?;
    let mut same = 0usize;
    each_from(conn, new, at, &mut |r| {
        if same < old_hashes.len() && old_hashes[same] == record_hash(r) {
            same += 1;
            true
        } else {
            false
        }
    })?;
    Ok(at.saturating_add(u32::try_from(same).unwrap_or(u32::MAX)))
}

/// Replaces session `old` (indexed from `path`, `key`, holding `old_events` events) by the
/// staged session `new`: keeps `old` as an earlier revision when `new` lost or changed any of
/// its events, else retires it. Runs in the swap's transaction.
pub(crate) fn replace(tx: &Connection, old: i64, new: i64, path: &str, key: &str) -> Result<()> {
    let old_events: Option<u32> = tx
        .prepare_cached("SELECT events FROM sessions WHERE sid = ?1")
        .and_then(|mut st| st.query_row([old], |r| r.get(0)).optional())
        .map_err(StoreError::db("read session"))?;
    let Some(old_events) = old_events else {
        return crate::ingest::retire(tx, old);
    };
    let common = if old_events == 0 {
        0
    } else {
        common_prefix(tx, old, new)?
    };
    if common >= old_events {
        return crate::ingest::retire(tx, old);
    }
    tx.prepare_cached(
        "INSERT INTO revisions(sid, path, key, replaced_at, common, uri, updated, events, header)
         SELECT sid, ?2, ?3, ?4, ?5, uri, updated, events, header FROM sessions WHERE sid = ?1",
    )
    .and_then(|mut st| st.execute(params![old, path, key, crate::now_ms(), common]))
    .map_err(StoreError::db("keep revision"))?;
    tx.prepare_cached("DELETE FROM sessions WHERE sid = ?1")
        .and_then(|mut st| st.execute([old]))
        .map_err(StoreError::db("keep revision"))?;
    Ok(())
}

/// Retires every revision of (`path`, `key`) (the source's record is being removed).
pub(crate) fn drop_all(tx: &Connection, path: &str, key: &str) -> Result<()> {
    let sids: Vec<i64> = tx
        .prepare_cached("SELECT sid FROM revisions WHERE path = ?1 AND key = ?2")
        .and_then(|mut st| {
            st.query_map(params![path, key], |r| r.get(0))?
                .collect::<rusqlite::Result<_>>()
        })
        .map_err(StoreError::db("list revisions"))?;
    for sid in sids {
        drop_one(tx, sid)?;
    }
    Ok(())
}

/// Makes revision `sid` unreachable; its rows go to the garbage collector.
fn drop_one(tx: &Connection, sid: i64) -> Result<()> {
    tx.prepare_cached("DELETE FROM revisions WHERE sid = ?1")
        .and_then(|mut st| st.execute([sid]))
        .map_err(StoreError::db("delete revision"))?;
    tx.prepare_cached(
        "INSERT INTO pending(sid, since) VALUES(?1, 0) ON CONFLICT(sid) DO UPDATE SET since = 0",
    )
    .and_then(|mut st| st.execute([sid]))
    .map_err(StoreError::db("retire revision"))?;
    Ok(())
}

fn ms_time(ms: i64) -> Option<Timestamp> {
    Timestamp::from_millisecond(ms).ok()
}

/// The sid, uri, header JSON and event count of revision `n` (1 = newest) of a source.
pub(crate) fn nth(
    conn: &Connection,
    path: &str,
    key: &str,
    n: u32,
) -> Result<Option<(i64, String, String, u32)>> {
    if n == 0 {
        return Ok(None);
    }
    conn.prepare_cached(
        "SELECT sid, uri, header, events FROM revisions WHERE path = ?1 AND key = ?2
         ORDER BY sid DESC LIMIT 1 OFFSET ?3",
    )
    .and_then(|mut st| {
        st.query_row(params![path, key, i64::from(n) - 1], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
        })
        .optional()
    })
    .map_err(StoreError::db("read revision"))
}

/// Bytes of the stored blocks of `sid`.
fn block_bytes(conn: &Connection, sid: i64) -> Result<u64> {
    let (lo, hi) = event_id_range(sid);
    let n: i64 = conn
        .prepare_cached(
            "SELECT coalesce(sum(length(data)), 0) FROM blocks WHERE id BETWEEN ?1 AND ?2",
        )
        .and_then(|mut st| st.query_row(params![lo, hi], |r| r.get(0)))
        .map_err(StoreError::db("measure revision"))?;
    Ok(u64::try_from(n).unwrap_or(0))
}

/// Every revision, numbered per source (1 = newest), sources in path order.
fn all_rows(conn: &Connection, only: Option<(&str, &str)>) -> Result<Vec<RevisionRow>> {
    let sql = "SELECT sid, path, key, replaced_at, events, common FROM revisions
               WHERE ?1 IS NULL OR (path = ?1 AND key = ?2)
               ORDER BY path, key, sid DESC";
    let rows: Vec<(i64, String, String, i64, u32, u32)> = conn
        .prepare_cached(sql)
        .and_then(|mut st| {
            st.query_map(params![only.map(|o| o.0), only.map_or("", |o| o.1)], |r| {
                Ok((
                    r.get(0)?,
                    r.get(1)?,
                    r.get(2)?,
                    r.get(3)?,
                    r.get(4)?,
                    r.get(5)?,
                ))
            })?
            .collect::<rusqlite::Result<_>>()
        })
        .map_err(StoreError::db("list revisions"))?;
    let mut out: Vec<RevisionRow> = Vec::with_capacity(rows.len());
    for (sid, path, key, at, events, common) in rows {
        let n = match out.last() {
            Some(p) if p.path == path && p.key == key => p.n + 1,
            _ => 1,
        };
        out.push(RevisionRow {
            n,
            sid,
            bytes: block_bytes(conn, sid)?,
            path,
            key,
            replaced_at: ms_time(at),
            events,
            common,
        });
    }
    Ok(out)
}

/// [`Store::revision_stats`] over any connection (a read-only one of an index made before the
/// table existed counts none).
pub(crate) fn stats_of(conn: &Connection) -> Result<RevisionStats> {
    let exists: i64 = conn
        .query_row(
            "SELECT count(*) FROM sqlite_master WHERE name = 'revisions'",
            [],
            |r| r.get(0),
        )
        .map_err(StoreError::db("read schema"))?;
    let mut s = RevisionStats::default();
    if exists == 0 {
        return Ok(s);
    }
    for r in all_rows(conn, None)? {
        s.revisions += 1;
        s.events += u64::from(r.events);
        s.bytes += r.bytes;
    }
    Ok(s)
}

/// The revisions of the index at `path`, read over a read-only connection (`doctor`); `None`
/// when it cannot be read.
pub fn revisions_at(path: &std::path::Path) -> Option<RevisionStats> {
    let conn = crate::integrity::read_only(path)?;
    stats_of(&conn).ok()
}

/// Revision sids with what search needs of each: `(current sid of its source, n, common)`.
pub(crate) type RevScope = std::collections::HashMap<i64, (i64, u32, u32)>;

/// The revisions of the sources whose current session is in `current` (every source's when
/// `None`), for search.
pub(crate) fn scope_of(
    conn: &Connection,
    current: Option<&std::collections::HashSet<i64>>,
) -> Result<RevScope> {
    let rows: Vec<(i64, u32, i64, String, String)> = conn
        .prepare_cached(
            "SELECT r.sid, r.common, f.sid, r.path, r.key FROM revisions r
             JOIN files f ON f.path = r.path AND f.key = r.key
             WHERE f.sid IS NOT NULL ORDER BY r.path, r.key, r.sid DESC",
        )
        .and_then(|mut st| {
            st.query_map([], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
            })?
            .collect::<rusqlite::Result<_>>()
        })
        .map_err(StoreError::db("list revisions"))?;
    let mut out = RevScope::new();
    let mut prev: Option<(String, String, u32)> = None;
    for (sid, common, cur, path, key) in rows {
        let n = match &prev {
            Some((p, k, n)) if *p == path && *k == key => n + 1,
            _ => 1,
        };
        prev = Some((path, key, n));
        if current.is_none_or(|c| c.contains(&cur)) {
            out.insert(sid, (cur, n, common));
        }
    }
    Ok(out)
}

impl Store {
    /// The earlier revisions of the session indexed from (`path`, `key`), newest first
    /// (`n` = 1, 2, …).
    pub fn revisions(&self, path: &str, key: &str) -> Result<Vec<RevisionRow>> {
        all_rows(&self.conn, Some((path, key)))
    }

    /// Every earlier revision in the index, per source newest first.
    pub fn all_revisions(&self) -> Result<Vec<RevisionRow>> {
        all_rows(&self.conn, None)
    }

    /// How many earlier revisions the index holds, their events and their size.
    pub fn revision_stats(&self) -> Result<RevisionStats> {
        stats_of(&self.conn)
    }

    /// Removes the earlier revisions replaced before `older_than` (all when `None`) with their
    /// events, search documents and facts; with `dry_run`, only says which. Returns them.
    pub fn prune_revisions(
        &mut self,
        older_than: Option<Timestamp>,
        dry_run: bool,
    ) -> Result<Vec<RevisionRow>> {
        let chosen: Vec<RevisionRow> = self
            .all_revisions()?
            .into_iter()
            .filter(|r| older_than.is_none_or(|t| r.replaced_at.is_none_or(|d| d < t)))
            .collect();
        if dry_run || chosen.is_empty() {
            return Ok(chosen);
        }
        crate::refresh::poll_when_busy(&self.conn, self.busy_wait.get())?;
        let guard = crate::refresh::TxGuard::begin(&self.conn)?;
        for r in &chosen {
            drop_one(&self.conn, r.sid)?;
        }
        guard.commit()?;
        crate::refresh::collect_removed(&self.conn)?;
        Ok(chosen)
    }
}
