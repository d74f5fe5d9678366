//! The writer's side of the candidate index ([`crate::postings`], schema 12, issue 17): one
//! transaction's (trigram key, document) pairs are queued per thread, flat, and applied just
//! before it commits (a refresh's `TxGuard::commit`, a staged session's intermediate commits,
//! around a resume's savepoint, `carry_in`): sorted by key once (a stable radix sort: the
//! documents mostly arrive in id order, so most keys' ids need no sort of their own), then
//! written as one new *run* of packs (several keys' lists per row, [`crate::postings`]),
//! appended at the end of the `grams` table. [`discard`] on every rollback. The writes are
//! inside their transaction, so crash safety is the transaction's.
//!
//! Runs are merged as in a log-structured tree: a run's level grows with its bytes (a level
//! spans a factor [`FANOUT`]); once a level holds [`FANOUT`] runs, they become one run (read
//! a few packs at a time from each and merged by key, so memory stays bounded). A query then reads a key's row
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
use crate::postings::{code, decode, dir_push, encode, pack_id, unpack, PACK};

/// Queued pairs above this many are applied at once (8 bytes each and as many for the sort:
/// 64 MB).
const MAX_PAIRS: usize = 4 << 20;
/// Runs of one level merged together; a level's runs are below `LEVEL0 * FANOUT^level` bytes.
pub(crate) const FANOUT: usize = 8;
/// Encoded bytes of the largest level-0 run.
const LEVEL0: i64 = 64 << 10;
/// A merge reads about this many bytes of packs from each run at a time,
const MERGE_CHUNK: usize = 256 << 10;
/// and at most this many packs.
const MERGE_PACKS: i64 = 64;
/// Keys are below this ([`crate::grams`]): the radix sort's three passes of 10 bits.
const KEYS: u32 = 1 << 30;

#[derive(Default)]
struct Queue {
    /// The codes of the documents queued, in arrival order.
    docs: Vec<u64>,
    /// `key << 32 | index in docs`.
    pairs: Vec<u64>,
    /// The radix sort's other buffer.
    scratch: Vec<u64>,
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
        let doc = q.docs.len() as u64;
        q.docs.push(c);
        q.pairs
            .extend(keys.iter().map(|&k| u64::from(k) << 32 | doc));
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

/// Sorts `pairs` (`key << 32 | n`) by key, stably (pairs of one key keep their order):
/// three counting passes of 10 bits when every key is below [`KEYS`], else the standard
/// library's stable sort.
fn sort_by_key(pairs: &mut Vec<u64>, scratch: &mut Vec<u64>) {
    if pairs.iter().any(|p| p >> 32 >= u64::from(KEYS)) {
        pairs.sort_by_key(|p| p >> 32);
        return;
    }
    scratch.clear();
    scratch.resize(pairs.len(), 0);
    for shift in [32, 42, 52] {
        let mut count = [0usize; 1 << 10];
        for p in pairs.iter() {
            count[(p >> shift) as usize & 1023] += 1;
        }
        if count.contains(&pairs.len()) {
            continue;
        }
        let mut at = 0;
        for c in &mut count {
            (at, *c) = (at + *c, at);
        }
        for &p in pairs.iter() {
            let b = (p >> shift) as usize & 1023;
            scratch[count[b]] = p;
            count[b] += 1;
        }
        std::mem::swap(pairs, scratch);
    }
}

/// A run being written: its packs, one row each.
struct RunOut<'c> {
    run: i64,
    ins: rusqlite::CachedStatement<'c>,
    /// The pack being filled: its first and last key, directory and lists.
    first: u32,
    last: u32,
    dir: Vec<u8>,
    ids: Vec<u8>,
    /// Bytes of the packs written.
    total: i64,
}

impl<'c> RunOut<'c> {
    fn new(conn: &'c Connection) -> Result<Self> {
        let run = new_run(conn)?;
        let ins = conn
            .prepare_cached("INSERT INTO grams(id, dir, ids) VALUES(?1, ?2, ?3)")
            .map_err(StoreError::db("prepare candidate insert"))?;
        Ok(RunOut {
            run,
            ins,
            first: 0,
            last: 0,
            dir: Vec::new(),
            ids: Vec::with_capacity(PACK * 2),
            total: 0,
        })
    }

    /// Adds key `key`'s run list `list` (keys in increasing order).
    fn push(&mut self, key: u32, list: &[u8]) -> Result<()> {
        if !self.dir.is_empty() && self.ids.len() + list.len() > PACK {
            self.flush()?;
        }
        if self.dir.is_empty() {
            (self.first, self.last) = (key, key);
        }
        dir_push(&mut self.dir, key - self.last, list.len());
        self.last = key;
        self.ids.extend_from_slice(list);
        Ok(())
    }

    fn flush(&mut self) -> Result<()> {
        if self.dir.is_empty() {
            return Ok(());
        }
        self.ins
            .execute(params![pack_id(self.run, self.first), self.dir, self.ids])
            .map_err(StoreError::db("insert candidates"))?;
        self.total += (self.dir.len() + self.ids.len()) as i64;
        self.dir.clear();
        self.ids.clear();
        Ok(())
    }

    /// Writes the last pack and records the run's level; returns the run.
    fn finish(mut self, conn: &Connection) -> Result<i64> {
        self.flush()?;
        end_run(conn, self.run, self.total)?;
        Ok(self.run)
    }
}

/// Writes the queued pairs as one new run in the open transaction of `conn`, then merges
/// whatever levels are full.
pub(crate) fn apply(conn: &Connection) -> Result<()> {
    let (docs, mut pairs, mut scratch) = QUEUE.with(|q| {
        let mut q = q.borrow_mut();
        (
            std::mem::take(&mut q.docs),
            std::mem::take(&mut q.pairs),
            std::mem::take(&mut q.scratch),
        )
    });
    if pairs.is_empty() {
        return Ok(());
    }
    sort_by_key(&mut pairs, &mut scratch);
    let mut out = RunOut::new(conn)?;
    let (mut codes, mut buf) = (Vec::new(), Vec::new());
    for same in pairs.chunk_by(|a, b| a >> 32 == b >> 32) {
        codes.clear();
        codes.extend(same.iter().map(|&p| docs[p as u32 as usize]));
        // Documents arrive in id order but for a session's own document (written after its
        // groups) and resumed groups.
        if !codes.is_sorted() {
            codes.sort_unstable();
        }
        codes.dedup();
        buf.clear();
        encode(codes.iter().copied(), &mut buf);
        out.push((same[0] >> 32) as u32, &buf)?;
    }
    out.finish(conn)?;
    // Keep the allocations for the next transaction.
    pairs.clear();
    scratch.clear();
    let mut docs = docs;
    docs.clear();
    QUEUE.with(|q| {
        let mut q = q.borrow_mut();
        if q.docs.capacity() < docs.capacity() && q.docs.is_empty() {
            q.docs = docs;
        }
        if q.pairs.capacity() < pairs.capacity() && q.pairs.is_empty() {
            q.pairs = pairs;
        }
        if q.scratch.capacity() < scratch.capacity() {
            q.scratch = scratch;
        }
    });
    merge_full_levels(conn)
}

/// Forgets the queued pairs (their transaction rolled back).
pub(crate) fn discard() {
    QUEUE.with(|q| {
        let mut q = q.borrow_mut();
        q.pairs.clear();
        q.docs.clear();
    });
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

/// One run of a merge, read a few packs at a time.
struct RunIn {
    run: i64,
    /// The id of the last pack read.
    after: i64,
    /// The lists of the packs read, and (key, range in `arena`) of each, in key order.
    arena: Vec<u8>,
    lists: Vec<(u32, usize, usize)>,
    /// The next of `lists`.
    at: usize,
    done: bool,
}

impl RunIn {
    fn new(run: i64) -> Self {
        RunIn {
            run,
            after: pack_id(run, 0) - 1,
            arena: Vec::new(),
            lists: Vec::new(),
            at: 0,
            done: false,
        }
    }

    /// The next key and its list, reading the next packs when needed.
    fn head(
        &mut self,
        read: &mut rusqlite::CachedStatement<'_>,
    ) -> Result<Option<(u32, usize, usize)>> {
        if self.at == self.lists.len() && !self.done {
            self.arena.clear();
            self.lists.clear();
            self.at = 0;
            let mut q = read
                .query(params![self.after, pack_id(self.run + 1, 0), MERGE_PACKS])
                .map_err(StoreError::db("read candidate runs"))?;
            let mut packs = 0;
            while self.arena.len() < MERGE_CHUNK {
                let Some(row) = q.next().map_err(StoreError::db("read candidate runs"))? else {
                    // The run's end, unless the limit stopped the read.
                    self.done = packs < MERGE_PACKS;
                    break;
                };
                packs += 1;
                let id: i64 = row.get(0).map_err(StoreError::db("read candidate runs"))?;
                let dir = row
                    .get_ref(1)
                    .map_err(StoreError::db("read candidate runs"))?;
                let dir = dir.as_blob().map_err(|_| damaged())?;
                let ids = row
                    .get_ref(2)
                    .map_err(StoreError::db("read candidate runs"))?;
                let ids = ids.as_blob().map_err(|_| damaged())?;
                let len = unpack(id as u32, dir, self.arena.len(), &mut self.lists)
                    .map_err(|_| damaged())?;
                if len != ids.len() {
                    return Err(damaged());
                }
                self.arena.extend_from_slice(ids);
                self.after = id;
            }
        }
        Ok(self.lists.get(self.at).copied())
    }
}

/// Merges the runs `set` into one new run, dropping the ids of dead sessions: a merge by key
/// of the runs' packs, the lists of one key concatenated in run order (sorted again only when
/// that is out of order).
pub(crate) fn merge(conn: &Connection, set: &[i64]) -> Result<()> {
    let dead = dead_sids(conn)?;
    let is_dead = |c: u64| {
        let sid = (c >> 32) as usize;
        dead.get(sid / 64)
            .is_some_and(|w| w & (1 << (sid % 64)) != 0)
    };
    let mut read = conn
        .prepare_cached(
            "SELECT id, dir, ids FROM grams WHERE id > ?1 AND id < ?2 ORDER BY id LIMIT ?3",
        )
        .map_err(StoreError::db("read candidate runs"))?;
    let mut ins: Vec<RunIn> = set.iter().map(|&r| RunIn::new(r)).collect();
    let mut out = RunOut::new(conn)?;
    let (mut codes, mut buf) = (Vec::<u64>::new(), Vec::new());
    loop {
        let mut key = None;
        for r in &mut ins {
            if let Some((k, _, _)) = r.head(&mut read)? {
                key = Some(key.map_or(k, |m: u32| m.min(k)));
            }
        }
        let Some(key) = key else { break };
        let holders = ins
            .iter()
            .filter(|r| r.lists.get(r.at).is_some_and(|l| l.0 == key))
            .count();
        if holders == 1 && dead.is_empty() {
            // One run holds the key: its list as it is.
            let r = ins
                .iter_mut()
                .find(|r| r.lists.get(r.at).is_some_and(|l| l.0 == key))
                .expect("a holder");
            let (_, a, b) = r.lists[r.at];
            out.push(key, &r.arena[a..b])?;
            r.at += 1;
            continue;
        }
        codes.clear();
        for r in &mut ins {
            if let Some(&(k, a, b)) = r.lists.get(r.at) {
                if k == key {
                    decode(&r.arena[a..b], &mut codes).map_err(|_| damaged())?;
                    r.at += 1;
                }
            }
        }
        if !codes.is_sorted() {
            // Sorted runs, one per merged run: the stable sort merges them.
            codes.sort();
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
        out.push(key, &buf)?;
    }
    drop(read);
    let mut del = conn
        .prepare_cached("DELETE FROM grams WHERE id >= ?1 AND id < ?2")
        .map_err(StoreError::db("delete merged runs"))?;
    let mut del_run = conn
        .prepare_cached("DELETE FROM gram_runs WHERE run = ?1")
        .map_err(StoreError::db("delete merged runs"))?;
    for &r in set {
        del.execute([pack_id(r, 0), pack_id(r + 1, 0)])
            .map_err(StoreError::db("delete merged runs"))?;
        del_run
            .execute([r])
            .map_err(StoreError::db("delete merged runs"))?;
    }
    drop((del, del_run));
    out.finish(conn)?;
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

    /// Every (key, document id) pair of the runs, and the number of packs.
    fn pairs_of(conn: &Connection) -> (Vec<(u32, i64)>, usize) {
        let mut st = conn.prepare("SELECT id, dir, ids FROM grams").unwrap();
        let mut rows = st.query([]).unwrap();
        let (mut kc, mut packs) = (Vec::new(), 0);
        while let Some(r) = rows.next().unwrap() {
            let (id, dir, ids): (i64, Vec<u8>, Vec<u8>) =
                (r.get(0).unwrap(), r.get(1).unwrap(), r.get(2).unwrap());
            crate::postings::pack_pairs(id, &dir, &ids, &mut kc).unwrap();
            packs += 1;
        }
        let mut out: Vec<(u32, i64)> = kc
            .into_iter()
            .map(|(k, c)| (k, crate::postings::id_of(c)))
            .collect();
        out.sort_unstable();
        (out, packs)
    }

    #[test]
    fn runs_of_many_packs_merge_into_one_with_every_pair() {
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch(
            "CREATE TABLE grams(id INTEGER PRIMARY KEY, dir BLOB NOT NULL, ids BLOB NOT NULL);
             CREATE TABLE gram_runs(run INTEGER PRIMARY KEY AUTOINCREMENT,
                                    level INTEGER NOT NULL, bytes INTEGER NOT NULL);
             CREATE TABLE gram_dead(sid INTEGER PRIMARY KEY, at INTEGER NOT NULL);
             CREATE TABLE sessions(sid INTEGER PRIMARY KEY);",
        )
        .unwrap();
        // Two runs of 300 keys of about 1 KB of list each (more packs than one read takes);
        // the second run's session documents sort before its groups.
        let keys: Vec<u32> = (0..300u32).map(|k| k * 3_000_017 % KEYS).collect();
        let mut want = Vec::new();
        for half in 0..2i64 {
            for d in 0..600i64 {
                let sid = half * 600 + d + 1;
                let id = if half == 1 && d % 7 == 0 {
                    sid << 32 | 0xFFFF_FFFF
                } else {
                    sid << 32 | (d % 5)
                };
                insert(&conn, id, &keys).unwrap();
                want.extend(keys.iter().map(|&k| (k, id)));
            }
            apply(&conn).unwrap();
        }
        want.sort_unstable();
        let runs = list_runs(&conn).unwrap();
        assert_eq!(runs.len(), 2);
        let (before, packs) = pairs_of(&conn);
        assert_eq!(before, want);
        assert!(packs > 2 * MERGE_PACKS as usize, "{packs} packs");
        merge(&conn, &runs.iter().map(|r| r.0).collect::<Vec<_>>()).unwrap();
        assert_eq!(list_runs(&conn).unwrap().len(), 1);
        let (after, _) = pairs_of(&conn);
        assert_eq!(after, want);
        // The query reads every key's list from the packs.
        let got = crate::postings::candidates(&conn, &[vec![keys[0], keys[299]]]).unwrap();
        let mut ids: Vec<i64> = want
            .iter()
            .filter(|p| p.0 == keys[0])
            .map(|p| p.1)
            .collect();
        ids.sort_unstable();
        assert_eq!(got, ids);
        assert!(crate::postings::candidates(&conn, &[vec![7]])
            .unwrap()
            .is_empty());
    }

    #[test]
    fn the_radix_sort_is_stable_by_key() {
        let pair = |k: u64, n: u64| k << 32 | n;
        let mut pairs: Vec<u64> = (0..5000u64)
            .map(|i| pair((i * 7919) % 1013 * 1_048_573 % u64::from(KEYS), 5000 - i))
            .collect();
        let mut want = pairs.clone();
        want.sort_by_key(|p| p >> 32);
        assert!(want.windows(2).any(|w| w[0] > w[1]), "a test of stability");
        let mut scratch = Vec::new();
        sort_by_key(&mut pairs, &mut scratch);
        assert_eq!(pairs, want);
        // A key past the radix passes: the fallback.
        let big = u64::from(u32::MAX);
        let mut odd = vec![pair(big, 1), pair(3, 2), pair(big, 0), pair(3, 1)];
        sort_by_key(&mut odd, &mut scratch);
        assert_eq!(odd, [pair(3, 2), pair(3, 1), pair(big, 1), pair(big, 0)]);
    }
}
