//! The writer's side of the candidate index ([`crate::postings`], schema 12, issue 17): one
//! transaction's (trigram key, document) pairs are queued per thread, flat, and applied just
//! before it commits (a refresh's `TxGuard::commit`, a staged session's intermediate commits,
//! around a resume's savepoint, `carry_in`): sorted once, then written as one new *run*, one row
//! per touched key, appended at the end of the `grams` table. [`discard`] on every rollback.
//! The writes are inside their transaction, so crash safety is the transaction's.
//!
//! Runs are merged as in a log-structured tree: a run's level grows with its bytes (a level
//! spans a factor [`FANOUT`]); once a level holds [`FANOUT`] runs, they become one run (read
//! and written a key range at a time, so memory stays bounded). A query then reads a key's row
//! from a few dozen runs at most, and each id is rewritten once per level.
//!
//! Deletes are not written: a document id whose group was deleted or rewritten stays in the
//! lists, which can only add a candidate (every reader checks a candidate against the live
//! `blocks` and `sessions` rows; the regex decides matches), and a rewritten group's new keys
//! are added under its id. Sessions whose rows [`crate::ingest::collect_garbage`] deleted are
//! listed in `gram_dead` with the newest run then; merges drop their ids, and a `gram_dead` row
//! goes once every run that may hold its ids is merged away. When the dead sessions pass a
//! quarter of the live ones, every run is merged into one, so garbage stays bounded.

use std::cell::RefCell;

use rusqlite::{params, Connection};

use crate::error::{Result, StoreError};
use crate::postings::{code, decode, encode};

/// Queued pairs above this many are applied at once (16 bytes each: 64 MB).
const MAX_PAIRS: usize = 4 << 20;
/// Runs of one level merged together; a level's runs are below `LEVEL0 * FANOUT^level` bytes.
pub(crate) const FANOUT: usize = 8;
/// Encoded bytes of the largest level-0 run.
const LEVEL0: i64 = 64 << 10;
/// A merge reads about this many bytes of rows per key range.
const MERGE_CHUNK: usize = 8 << 20;
/// Keys are below this ([`crate::grams`]).
const KEYS: u32 = 1 << 30;

#[derive(Default)]
struct Queue {
    /// (key, code of the document id).
    pairs: Vec<(u32, u64)>,
}

thread_local! {
    static QUEUE: RefCell<Queue> = RefCell::new(Queue::default());
}

/// Queues the keys `keys` of document `id` (nothing for none).
pub(crate) fn insert(conn: &Connection, id: i64, keys: &[u32]) -> Result<()> {
    if keys.is_empty() {
        return Ok(());
    }
    let c = code(id);
    let full = QUEUE.with(|q| {
        let mut q = q.borrow_mut();
        q.pairs.extend(keys.iter().map(|&k| (k, c)));
        q.pairs.len() >= MAX_PAIRS
    });
    if full {
        apply(conn)?;
    }
    Ok(())
}

/// The level of a run of `bytes` encoded bytes.
fn level_of(bytes: i64) -> i64 {
    let (mut level, mut limit) = (0, LEVEL0);
    while bytes >= limit && level < 32 {
        level += 1;
        limit = limit.saturating_mul(FANOUT as i64);
    }
    level
}

/// Writes the queued pairs as one new run in the open transaction of `conn`, then merges
/// whatever levels are full.
pub(crate) fn apply(conn: &Connection) -> Result<()> {
    let mut pairs = QUEUE.with(|q| std::mem::take(&mut q.borrow_mut().pairs));
    if pairs.is_empty() {
        return Ok(());
    }
    pairs.sort_unstable();
    pairs.dedup();
    let run = new_run(conn)?;
    let mut ins = conn
        .prepare_cached("INSERT INTO grams(run, key, ids) VALUES(?1, ?2, ?3)")
        .map_err(StoreError::db("prepare candidate insert"))?;
    let (mut buf, mut total) = (Vec::new(), 0i64);
    for same in pairs.chunk_by(|a, b| a.0 == b.0) {
        buf.clear();
        encode(same.iter().map(|p| p.1), &mut buf);
        total += buf.len() as i64;
        ins.execute(params![run, same[0].0, buf])
            .map_err(StoreError::db("insert candidates"))?;
    }
    drop(ins);
    end_run(conn, run, total)?;
    // Keep the allocation for the next transaction.
    pairs.clear();
    QUEUE.with(|q| {
        let mut q = q.borrow_mut();
        if q.pairs.capacity() < pairs.capacity() && q.pairs.is_empty() {
            q.pairs = pairs;
        }
    });
    merge_full_levels(conn)
}

/// Forgets the queued pairs (their transaction rolled back).
pub(crate) fn discard() {
    QUEUE.with(|q| q.borrow_mut().pairs.clear());
}

fn new_run(conn: &Connection) -> Result<i64> {
    conn.prepare_cached("INSERT INTO gram_runs(level, bytes) VALUES(-1, 0) RETURNING run")
        .and_then(|mut st| st.query_row([], |r| r.get(0)))
        .map_err(StoreError::db("new candidate run"))
}

fn end_run(conn: &Connection, run: i64, bytes: i64) -> Result<()> {
    conn.prepare_cached("UPDATE gram_runs SET level = ?2, bytes = ?3 WHERE run = ?1")
        .and_then(|mut st| st.execute(params![run, level_of(bytes), bytes]))
        .map_err(StoreError::db("end candidate run"))?;
    Ok(())
}

/// Records that session `sid`'s rows are gone (its ids may be dropped by later merges).
pub(crate) fn dead(conn: &Connection, sid: i64) -> Result<()> {
    conn.prepare_cached(
        "INSERT OR REPLACE INTO gram_dead(sid, at)
         VALUES(?1, (SELECT coalesce(max(run), 0) FROM gram_runs))",
    )
    .and_then(|mut st| st.execute([sid]))
    .map_err(StoreError::db("record dead session"))?;
    Ok(())
}

/// Merges every level that holds [`FANOUT`] runs (lowest first, as often as needed), or every
/// run when the dead sessions pass a quarter of the live ones.
fn merge_full_levels(conn: &Connection) -> Result<()> {
    let (dead, live): (i64, i64) = conn
        .prepare_cached("SELECT (SELECT count(*) FROM gram_dead), (SELECT count(*) FROM sessions)")
        .and_then(|mut st| st.query_row([], |r| Ok((r.get(0)?, r.get(1)?))))
        .map_err(StoreError::db("count dead sessions"))?;
    let runs = list_runs(conn)?;
    if dead > 64 && dead * 4 > live && runs.len() > 1 {
        let all: Vec<i64> = runs.iter().map(|r| r.0).collect();
        return merge(conn, &all);
    }
    loop {
        let runs = list_runs(conn)?;
        let mut full = None;
        for same in runs.chunk_by(|a, b| a.1 == b.1) {
            if same.len() >= FANOUT {
                full = Some(same.iter().map(|r| r.0).collect::<Vec<_>>());
                break;
            }
        }
        match full {
            Some(set) => merge(conn, &set)?,
            None => return Ok(()),
        }
    }
}

/// (run, level) of every finished run, by level then run.
fn list_runs(conn: &Connection) -> Result<Vec<(i64, i64)>> {
    let mut st = conn
        .prepare_cached("SELECT run, level FROM gram_runs WHERE level >= 0 ORDER BY level, run")
        .map_err(StoreError::db("list candidate runs"))?;
    let rows = st
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .map_err(StoreError::db("list candidate runs"))?;
    rows.collect::<rusqlite::Result<_>>()
        .map_err(StoreError::db("list candidate runs"))
}

/// The sids of `gram_dead`, as a bitmap by sid.
fn dead_sids(conn: &Connection) -> Result<Vec<u64>> {
    let mut st = conn
        .prepare_cached("SELECT sid FROM gram_dead")
        .map_err(StoreError::db("read dead sessions"))?;
    let rows = st
        .query_map([], |r| r.get::<_, i64>(0))
        .map_err(StoreError::db("read dead sessions"))?;
    let mut bits = Vec::new();
    for sid in rows {
        let sid = sid.map_err(StoreError::db("read dead sessions"))?;
        let Ok(sid) = usize::try_from(sid) else {
            continue;
        };
        if bits.len() <= sid / 64 {
            bits.resize(sid / 64 + 1, 0u64);
        }
        bits[sid / 64] |= 1 << (sid % 64);
    }
    Ok(bits)
}

fn damaged() -> StoreError {
    StoreError::IndexBuild("the candidate index is damaged; re-index with --force".into())
}

/// Merges the runs `set` into one new run, dropping the ids of dead sessions.
pub(crate) fn merge(conn: &Connection, set: &[i64]) -> Result<()> {
    let dead = dead_sids(conn)?;
    let is_dead = |c: u64| {
        let sid = (c >> 32) as usize;
        dead.get(sid / 64)
            .is_some_and(|w| w & (1 << (sid % 64)) != 0)
    };
    let run = new_run(conn)?;
    let mut read = conn
        .prepare_cached("SELECT key, ids FROM grams WHERE run = ?1 AND key >= ?2 AND key < ?3")
        .map_err(StoreError::db("read candidate runs"))?;
    let mut ins = conn
        .prepare_cached("INSERT INTO grams(run, key, ids) VALUES(?1, ?2, ?3)")
        .map_err(StoreError::db("prepare candidate insert"))?;
    // Rows of one key range: (key, index of the run in `set`, range of `arena`).
    let mut rows: Vec<(u32, usize, usize, usize)> = Vec::new();
    let mut arena: Vec<u8> = Vec::new();
    let (mut codes, mut buf) = (Vec::<u64>::new(), Vec::new());
    let (mut lo, mut width, mut total) = (0u32, 1u32 << 16, 0i64);
    while lo < KEYS {
        let hi = lo.saturating_add(width).min(KEYS);
        rows.clear();
        arena.clear();
        for (i, &r) in set.iter().enumerate() {
            let mut q = read
                .query(params![r, lo, hi])
                .map_err(StoreError::db("read candidate runs"))?;
            while let Some(row) = q.next().map_err(StoreError::db("read candidate runs"))? {
                let key: u32 = row.get(0).map_err(StoreError::db("read candidate runs"))?;
                let ids = row
                    .get_ref(1)
                    .map_err(StoreError::db("read candidate runs"))?;
                let ids = ids.as_blob().map_err(|_| damaged())?;
                rows.push((key, i, arena.len(), arena.len() + ids.len()));
                arena.extend_from_slice(ids);
            }
        }
        rows.sort_unstable();
        for same in rows.chunk_by(|a, b| a.0 == b.0) {
            codes.clear();
            for &(_, _, a, b) in same {
                decode(&arena[a..b], &mut codes).map_err(|_| damaged())?;
            }
            if !codes.is_sorted() {
                codes.sort_unstable();
            }
            codes.dedup();
            if !dead.is_empty() {
                codes.retain(|&c| !is_dead(c));
            }
            if codes.is_empty() {
                continue;
            }
            buf.clear();
            encode(codes.iter().copied(), &mut buf);
            total += buf.len() as i64;
            ins.execute(params![run, same[0].0, buf])
                .map_err(StoreError::db("insert candidates"))?;
        }
        if arena.len() > MERGE_CHUNK && width > 1 {
            width /= 2;
        } else if arena.len() < MERGE_CHUNK / 4 && width < KEYS / 2 {
            width *= 2;
        }
        lo = hi;
    }
    drop((read, ins));
    let mut del = conn
        .prepare_cached("DELETE FROM grams WHERE run = ?1")
        .map_err(StoreError::db("delete merged runs"))?;
    let mut del_run = conn
        .prepare_cached("DELETE FROM gram_runs WHERE run = ?1")
        .map_err(StoreError::db("delete merged runs"))?;
    for &r in set {
        del.execute([r])
            .map_err(StoreError::db("delete merged runs"))?;
        del_run
            .execute([r])
            .map_err(StoreError::db("delete merged runs"))?;
    }
    end_run(conn, run, total)?;
    conn.prepare_cached(
        "DELETE FROM gram_dead WHERE at < (SELECT coalesce(min(run), 1 << 62) FROM gram_runs)",
    )
    .and_then(|mut st| st.execute([]))
    .map_err(StoreError::db("forget dead sessions"))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_grow_by_the_fanout() {
        assert_eq!(level_of(0), 0);
        assert_eq!(level_of(LEVEL0 - 1), 0);
        assert_eq!(level_of(LEVEL0), 1);
        assert_eq!(level_of(LEVEL0 * FANOUT as i64), 2);
        assert!(level_of(i64::MAX) < 64);
    }
}
