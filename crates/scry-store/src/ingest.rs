//! Writing sessions: the index writer is an [`EventSink`], so a parse streams straight into the
//! open transaction and the store never holds more of a session than one block of events
//! (see [`crate::block`]).
//!
//! A whole parse is written under a new sid that no `sessions` row names yet (listed in
//! `pending`), so its sink may commit the transaction between blocks ([`Stage`]) without a
//! reader ever seeing part of it; the refresh then swaps it in with one short transaction
//! ([`retire`] the old sid, [`write_header`] the new one) and [`collect_garbage`] deletes the
//! retired rows in bounded steps.

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use rusqlite::{params, Connection, OptionalExtension};
use scry_model::{Event, Header, Warning};
use scry_source::{EventSink, ResumePoint};

use crate::block::{
    BlockBuf, Decoded, Record, Sealed, BLOCK_BYTES, GROUP_BLOCKS, GROUP_BYTES, GROUP_START,
};
use crate::codec::{
    aux_text_into, event_id, event_id_range, kind_to_i, session_doc_id, time_to_i, write_rest_json,
};
use crate::error::{Result, StoreError};

/// When a writer commits: after `time` in one transaction, or (a staged session) after
/// `blocks` blocks, whichever comes first.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limits {
    /// Longest time one transaction stays open while there is more to write.
    pub time: Duration,
    /// Blocks of a staged session per transaction.
    pub blocks: u64,
}

/// A session written under a sid no reader can reach yet: its sink commits the open transaction
/// (and begins the next) whenever [`Limits`] says so, so the write lock is never held long.
#[derive(Debug)]
pub(crate) struct Stage {
    pub limits: Limits,
    /// When the current transaction began.
    pub since: Instant,
    /// Blocks written in the current transaction.
    pub blocks: u64,
    /// Commits made while writing.
    pub commits: u64,
}

/// Seconds since the epoch (the heartbeat of a staged session).
pub(crate) fn now_secs() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
}

/// A new session id, never used before in this index (a counter in `meta`).
pub(crate) fn new_sid(tx: &Connection) -> Result<i64> {
    tx.prepare_cached(
        "INSERT INTO meta(key, value) VALUES('next_sid', 1)
         ON CONFLICT(key) DO UPDATE SET value = value + 1 RETURNING value",
    )
    .and_then(|mut st| st.query_row([], |r| r.get(0)))
    .map_err(StoreError::db("allocate session id"))
}

/// Streams one session's events and warnings into the `blocks`, `grams` and `warnings`
/// tables of an open transaction. [`IndexSink::finish`] writes the last, partly filled block.
pub(crate) struct IndexSink<'t> {
    tx: &'t Connection,
    sid: i64,
    next_warning: u64,
    block: BlockBuf,
    /// The candidate keys of the block being written (kept for its allocation).
    doc: Vec<u32>,
    /// Set for a staged session: commit between blocks.
    pub(crate) stage: Option<Stage>,
    /// The first write error; later events are dropped and the transaction is rolled back.
    pub(crate) error: Option<StoreError>,
    /// The last safe point the provider handed out.
    pub(crate) resume: Option<ResumePoint>,
    /// Events written.
    pub(crate) written: u64,
}

impl<'t> IndexSink<'t> {
    /// A sink for session `sid` whose first new warning gets number `next_warning`, continuing
    /// the partly filled block `block` (empty for a whole parse).
    pub(crate) fn new(tx: &'t Connection, sid: i64, next_warning: u64, block: BlockBuf) -> Self {
        IndexSink {
            tx,
            sid,
            next_warning,
            block,
            doc: Vec::new(),
            stage: None,
            error: None,
            resume: None,
            written: 0,
        }
    }

    fn write_event(&mut self, event: Event) -> Result<()> {
        let full = push_event(&mut self.block, event)?;
        self.written += 1;
        if full {
            self.flush(false)?;
        }
        Ok(())
    }

    /// Writes the buffered block, if any; `last`: the session ends with it (its group's
    /// document is written too, also when no block was buffered).
    fn flush(&mut self, last: bool) -> Result<()> {
        if self.block.count == 0 {
            if last {
                let mut doc = std::mem::take(&mut self.doc);
                if let Some(first) = self.block.close_group(&mut doc) {
                    self.put_doc(first, &doc)?;
                }
                self.doc = doc;
            }
            return Ok(());
        }
        let sealed = self.block.seal(std::mem::take(&mut self.doc), last);
        self.put_block(&sealed)?;
        self.doc = sealed.doc;
        Ok(())
    }

    /// Writes the candidate keys of the group of blocks starting at seq `first` (none when
    /// `doc` is empty).
    pub(crate) fn put_doc(&mut self, first: u32, doc: &[u32]) -> Result<()> {
        crate::gramq::insert(self.tx, event_id(self.sid, first), doc)
    }

    /// Writes one closed block (built here or by a parse thread) and the candidate keys of the
    /// group it closes, if any, then commits when a staged session's limits say so.
    pub(crate) fn put_block(&mut self, s: &Sealed) -> Result<()> {
        let id = event_id(self.sid, s.first);
        let mut st = self
            .tx
            .prepare_cached(
                "INSERT INTO blocks(id, last, kinds, bloom, data) VALUES(?1, ?2, ?3, ?4, ?5)",
            )
            .map_err(StoreError::db("prepare block insert"))?;
        st.execute(params![id, s.last, s.kinds, s.bloom, s.blob])
            .map_err(StoreError::db("insert block"))?;
        self.put_doc(s.doc_first, &s.doc)?;
        crate::ledger::insert(self.tx, self.sid, &s.requests)?;
        crate::ledger::insert_failures(self.tx, self.sid, &s.failures)?;
        self.maybe_commit()
    }

    /// For a staged session: commits the open transaction and begins the next one when the
    /// limits say so (its `pending` heartbeat updated first, so no one collects it meanwhile).
    fn maybe_commit(&mut self) -> Result<()> {
        let Some(stage) = self.stage.as_mut() else {
            return Ok(());
        };
        stage.blocks += 1;
        if stage.blocks < stage.limits.blocks && stage.since.elapsed() < stage.limits.time {
            return Ok(());
        }
        self.tx
            .execute(
                "UPDATE pending SET since = ?1 WHERE sid = ?2",
                params![now_secs(), self.sid],
            )
            .map_err(StoreError::db("staged session heartbeat"))?;
        crate::gramq::apply(self.tx)?;
        self.tx
            .execute_batch("COMMIT")
            .map_err(StoreError::db("commit staged blocks"))?;
        std::thread::sleep(crate::refresh::YIELD);
        self.tx
            .execute_batch("BEGIN IMMEDIATE")
            .map_err(StoreError::db("begin index transaction"))?;
        stage.since = Instant::now();
        stage.blocks = 0;
        stage.commits += 1;
        Ok(())
    }

    /// Writes what is still buffered; the first error of the whole parse, if any.
    pub(crate) fn finish(&mut self) -> Result<()> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        self.flush(true)
    }

    fn write_warning(&mut self, w: Warning) -> Result<()> {
        self.put_warning(&warning_body(&w)?)
    }

    /// Writes one warning, already encoded ([`warning_body`]), as the session's next.
    pub(crate) fn put_warning(&mut self, body: &str) -> Result<()> {
        let mut st = self
            .tx
            .prepare_cached("INSERT INTO warnings(sid, n, body) VALUES(?1, ?2, ?3)")
            .map_err(StoreError::db("prepare warning insert"))?;
        st.execute(params![self.sid, self.next_warning as i64, body])
            .map_err(StoreError::db("insert warning"))?;
        self.next_warning += 1;
        Ok(())
    }
}

/// The stored JSON of a warning.
pub(crate) fn warning_body(w: &Warning) -> Result<String> {
    serde_json::to_string(w)
        .map_err(|e| StoreError::IndexBuild(format!("cannot encode warning: {e}")))
}

/// Adds one event to `block` (its text and aux to the search section, the rest as JSON);
/// `true` when the block is now full and must be sealed.
pub(crate) fn push_event(block: &mut BlockBuf, mut event: Event) -> Result<bool> {
    if let Some(r) = crate::ledger::StoredRequest::of(&event) {
        block.requests.push(r);
    }
    if crate::ledger::is_failed_result(&event) {
        block.failures.push(event.seq);
    }
    let mut aux = std::mem::take(&mut block.aux);
    let has_aux = aux_text_into(&event, &mut aux);
    let text = std::mem::take(&mut event.text);
    let record = Record {
        seq: event.seq,
        kind: kind_to_i(event.kind),
        turn: event.turn,
        text: &text,
        aux: has_aux.then_some(aux.as_str()),
        rest: "",
    };
    let pushed = block.push_writing(&record, |out| write_rest_json(&mut event, out));
    block.aux = aux;
    pushed?;
    Ok(block.full())
}

impl EventSink for IndexSink<'_> {
    fn event(&mut self, event: Event) {
        if self.error.is_none() {
            if let Err(e) = self.write_event(event) {
                self.error = Some(e);
            }
        }
    }

    fn warning(&mut self, warning: Warning) {
        if self.error.is_none() {
            if let Err(e) = self.write_warning(warning) {
                self.error = Some(e);
            }
        }
    }

    fn wants_resume_points(&self) -> bool {
        true
    }

    fn resume_point(&mut self, point: ResumePoint) {
        self.resume = Some(point);
    }
}

/// Deletes a session's events from `from_seq` on and its warnings from number `from_warning` on
/// (everything with zeros). The block holding `from_seq` is split,
/// and a last block that is not full is reopened: its earlier events come back as a partly
/// filled block for the writer to continue, in the reopened group of its blocks.
pub(crate) fn delete_tail(
    tx: &Connection,
    sid: i64,
    from_seq: u32,
    from_warning: u64,
) -> Result<BlockBuf> {
    let (lo, hi) = event_id_range(sid);
    let at = event_id(sid, from_seq);
    let mut kept = BlockBuf::default();
    let mut del_from = at;
    if from_seq > 0 {
        let split: Option<(i64, u32, Vec<u8>)> = tx
            .query_row(
                "SELECT id, last, data FROM blocks WHERE id BETWEEN ?1 AND ?2
                 ORDER BY id DESC LIMIT 1",
                params![lo, at - 1],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .optional()
            .map_err(StoreError::db("read last block"))?;
        if let Some((id, last, data)) = split {
            // The block holding `from_seq` is split; a last block the session's end closed
            // before it was full is reopened too, so blocks (and their groups) continue as a
            // clean parse of the grown source builds them.
            let mut block = Decoded::default();
            let loaded = block.load(&data, true);
            if last >= from_seq && !loaded {
                return Err(StoreError::IndexBuild(format!(
                    "block {id} does not decode; re-index with --force"
                )));
            }
            if last >= from_seq || (loaded && block.raw_len() < BLOCK_BYTES) {
                for r in block.records() {
                    let r = r.map_err(|()| {
                        StoreError::IndexBuild(format!(
                            "block {id} is damaged; re-index with --force"
                        ))
                    })?;
                    if r.seq < from_seq {
                        kept.push(&r);
                    }
                }
                del_from = id;
            }
        }
    }
    if from_seq > 0 {
        // The last kept block's group stays open: its document is rewritten when the group
        // closes, covering the kept blocks' trigrams and the new ones.
        let last_kept = if del_from < at { del_from } else { at - 1 };
        reopen_group(tx, sid, del_from, last_kept, &mut kept)?;
    }
    // The deleted groups' candidate keys stay (a stale id only adds a candidate that no
    // block backs: see `crate::gramq`).
    tx.execute(
        "DELETE FROM blocks WHERE id BETWEEN ?1 AND ?2",
        params![del_from, hi],
    )
    .map_err(StoreError::db("delete blocks"))?;
    tx.execute(
        "DELETE FROM warnings WHERE sid = ?1 AND n >= ?2",
        params![sid, from_warning as i64],
    )
    .map_err(StoreError::db("delete warnings"))?;
    crate::ledger::delete_from(tx, sid, from_seq)?;
    tx.execute("DELETE FROM facts WHERE sid = ?1", [sid])
        .map_err(StoreError::db("delete facts"))?;
    tx.execute("DELETE FROM edges WHERE sid = ?1", [sid])
        .map_err(StoreError::db("delete edges"))?;
    Ok(kept)
}

/// Reopens, in `kept`, the group of the block `last_kept` (the last block a resume keeps) unless
/// that group was full: the trigrams of its blocks before `del_from`
/// (those that stay stored whole) are added to `kept`, and its block count and bytes carried, so
/// the group closes where a clean parse closes it.
fn reopen_group(
    tx: &Connection,
    sid: i64,
    del_from: i64,
    last_kept: i64,
    kept: &mut BlockBuf,
) -> Result<()> {
    let (lo, _) = event_id_range(sid);
    let start: Option<i64> = tx
        .prepare_cached(
            "SELECT id FROM blocks WHERE id BETWEEN ?1 AND ?2 AND kinds & ?3 != 0
             ORDER BY id DESC LIMIT 1",
        )
        .and_then(|mut st| {
            st.query_row(params![lo, last_kept, GROUP_START], |r| r.get(0))
                .optional()
        })
        .map_err(StoreError::db("read block group"))?;
    let Some(start) = start else {
        return Ok(());
    };
    let mut grams = crate::grams::GramSet::default();
    let (mut blocks, mut bytes) = (0u32, 0usize);
    {
        let mut st = tx
            .prepare_cached("SELECT id, data FROM blocks WHERE id >= ?1 AND id < ?2 ORDER BY id")
            .map_err(StoreError::db("read block group"))?;
        let mut rows = st
            .query(params![start, del_from])
            .map_err(StoreError::db("read block group"))?;
        let mut block = Decoded::default();
        while let Some(r) = rows.next().map_err(StoreError::db("read block group"))? {
            let id: i64 = r.get(0).map_err(StoreError::db("read block group"))?;
            let data = r.get_ref(1).map_err(StoreError::db("read block group"))?;
            if !block.load(data.as_blob().unwrap_or(&[]), true) {
                return Err(StoreError::IndexBuild(format!(
                    "block {id} does not decode; re-index with --force"
                )));
            }
            bytes += block.raw_len();
            blocks += 1;
            for r in block.records() {
                let r = r.map_err(|()| {
                    StoreError::IndexBuild(format!("block {id} is damaged; re-index with --force"))
                })?;
                grams.add(r.text);
                if let Some(a) = r.aux {
                    grams.add(a);
                }
            }
        }
    }
    if blocks >= GROUP_BLOCKS || bytes >= GROUP_BYTES {
        // Closed when full: the next block starts a group.
        return Ok(());
    }
    // The group's keys written so far stay under its id; its new keys are added when it closes.
    kept.grams.merge(&mut grams);
    kept.reopen_group((start & 0xFFFF_FFFF) as u32, blocks, bytes);
    Ok(())
}

/// Makes session `sid` unreachable (its `sessions` row goes now, in the
/// caller's transaction) and leaves its blocks, warnings, facts, edges and ledger rows to
/// [`collect_garbage`].
pub(crate) fn retire(tx: &Connection, sid: i64) -> Result<()> {
    tx.execute("DELETE FROM sessions WHERE sid = ?1", [sid])
        .map_err(StoreError::db("delete session"))?;
    tx.execute(
        "INSERT INTO pending(sid, since) VALUES(?1, 0)
         ON CONFLICT(sid) DO UPDATE SET since = 0",
        [sid],
    )
    .map_err(StoreError::db("retire session"))?;
    Ok(())
}

/// A staged session whose writer left no heartbeat for this long is taken for dead.
const STALE_SECS: i64 = 600;

/// Deletes the rows of retired sessions (and of staged ones whose writer died) in transactions
/// of at most `limits.time` each. Returns how many sessions were cleared.
pub(crate) fn collect_garbage(conn: &Connection, limits: Limits) -> Result<usize> {
    let mut cleared = 0;
    let mut first = true;
    loop {
        if !first {
            std::thread::sleep(crate::refresh::YIELD);
        }
        first = false;
        conn.execute_batch("BEGIN IMMEDIATE")
            .map_err(StoreError::db("begin cleanup"))?;
        let out = collect_some(conn, limits, &mut cleared);
        match out {
            Ok(more) => {
                conn.execute_batch("COMMIT")
                    .map_err(StoreError::db("commit cleanup"))?;
                if !more {
                    return Ok(cleared);
                }
            }
            Err(e) => {
                let _ = conn.execute_batch("ROLLBACK");
                return Err(e);
            }
        }
    }
}

/// One transaction's worth of [`collect_garbage`]; `true` when there is more to do.
fn collect_some(conn: &Connection, limits: Limits, cleared: &mut usize) -> Result<bool> {
    let since = Instant::now();
    let sids: Vec<i64> = {
        let mut st = conn
            .prepare_cached("SELECT sid FROM pending WHERE since < ?1 ORDER BY sid")
            .map_err(StoreError::db("list retired sessions"))?;
        let rows = st
            .query_map([now_secs() - STALE_SECS], |r| r.get(0))
            .map_err(StoreError::db("list retired sessions"))?;
        rows.collect::<rusqlite::Result<_>>()
            .map_err(StoreError::db("list retired sessions"))?
    };
    for sid in sids {
        let (lo, hi) = event_id_range(sid);
        loop {
            let ids: Vec<(i64, i64)> = {
                let mut st = conn
                    .prepare_cached(
                        "SELECT id, kinds FROM blocks WHERE id BETWEEN ?1 AND ?2 LIMIT 256",
                    )
                    .map_err(StoreError::db("list blocks"))?;
                let rows = st
                    .query_map(params![lo, hi], |r| Ok((r.get(0)?, r.get(1)?)))
                    .map_err(StoreError::db("list blocks"))?;
                rows.collect::<rusqlite::Result<_>>()
                    .map_err(StoreError::db("list blocks"))?
            };
            if ids.is_empty() {
                for table in [
                    "warnings",
                    "facts",
                    "edges",
                    "requests",
                    "usage_sums",
                    "failures",
                    "pending",
                ] {
                    conn.prepare_cached(&format!("DELETE FROM {table} WHERE sid = ?1"))
                        .and_then(|mut st| st.execute([sid]))
                        .map_err(StoreError::db("delete retired rows"))?;
                }
                crate::gramq::dead(conn, sid)?;
                *cleared += 1;
                break;
            }
            let mut blocks = conn
                .prepare_cached("DELETE FROM blocks WHERE id = ?1")
                .map_err(StoreError::db("prepare block delete"))?;
            for (id, _) in ids {
                blocks
                    .execute([id])
                    .map_err(StoreError::db("delete block"))?;
            }
            if since.elapsed() >= limits.time {
                return Ok(true);
            }
        }
    }
    Ok(false)
}

/// Writes (or replaces) the `sessions` row of `sid`, indexed from `file`, and its title /
/// artifact candidate keys, and recomputes its usage sums from its request rows
/// ([`crate::ledger::resum`]). Another session with the same uri (the same id in another file) is a
/// session of its own. What discovery knew of `file` is kept for `list`: its `cwd_hint`, and the
/// parent the session folds under (the header's, else discovery's, as `list` resolves it).
pub(crate) fn write_header(
    tx: &Connection,
    sid: i64,
    header: &Header,
    events: u32,
    live: bool,
    file: &scry_source::SourceFile,
) -> Result<()> {
    let json = serde_json::to_string(header)
        .map_err(|e| StoreError::IndexBuild(format!("cannot encode header: {e}")))?;
    let artifacts = (!header.artifacts.is_empty()).then(|| header.artifacts.join("\n"));
    tx.prepare_cached(
        "INSERT INTO sessions(sid, uri, provider, cwd, created, updated, kind, parent, live,
                              title, artifacts, events, header, recency, native, hint, fold)
         VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)
         ON CONFLICT(sid) DO UPDATE SET uri = excluded.uri, provider = excluded.provider,
             native = excluded.native,
             cwd = excluded.cwd, created = excluded.created, updated = excluded.updated,
             kind = excluded.kind, parent = excluded.parent, live = excluded.live,
             title = excluded.title, artifacts = excluded.artifacts, events = excluded.events,
             header = excluded.header, recency = excluded.recency, hint = excluded.hint,
             fold = excluded.fold",
    )
    .and_then(|mut st| {
        st.execute(params![
            sid,
            header.uri,
            header.provider.as_str(),
            header.cwd,
            header.created.map(time_to_i),
            header.updated.map(time_to_i),
            header.kind.as_str(),
            header.parent,
            live,
            header.title,
            artifacts,
            events,
            json,
            header.updated.map_or(i64::MIN, time_to_i),
            header.id,
            file.cwd_hint,
            header.parent.as_ref().or(file.parent.as_ref())
        ])
    })
    .map_err(StoreError::db("write session"))?;
    crate::ledger::resum(tx, sid)?;
    // Keys of an earlier title stay under the id (a candidate the title then does not match).
    let doc = crate::grams::keys_of(
        [header.title.as_deref(), artifacts.as_deref()]
            .into_iter()
            .flatten(),
    );
    crate::gramq::insert(tx, session_doc_id(sid), &doc)?;
    Ok(())
}
