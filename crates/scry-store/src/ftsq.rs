//! The candidate index's writes of one transaction, queued and applied just before it commits
//! (issue 17). FTS5 flushes its in-memory terms to a new segment at every savepoint, and SQLite
//! opens a statement savepoint for every statement that may abort inside a transaction (an
//! upsert, an `UPDATE` of an indexed table): written as they came, a cold index flushed a tiny
//! segment per session or per block, and merging those segments was most of the writer's
//! time. Queued, one transaction's documents reach FTS5 together and make one segment.
//!
//! The queue belongs to the thread (the connection's writer). [`apply`] runs before every
//! commit of a refresh (and before a resume's savepoint ends, so a rollback to it undoes
//! them); [`discard`] on every rollback. A write applied early is still inside its
//! transaction, so crash safety is that of the direct writes.

use std::cell::RefCell;

use rusqlite::{params, Connection};

use crate::error::{Result, StoreError};

/// Queued documents above this many bytes are applied at once (memory stays bounded).
const MAX_BYTES: usize = 32 << 20;

#[derive(Default)]
struct Queue {
    /// (rowid, document to insert, or `None`: delete the row), in order.
    ops: Vec<(i64, Option<String>)>,
    bytes: usize,
}

thread_local! {
    static QUEUE: RefCell<Queue> = RefCell::new(Queue::default());
}

/// Queues the insert of document `doc` under `rowid` (nothing for an empty document).
pub(crate) fn insert(conn: &Connection, rowid: i64, doc: &str) -> Result<()> {
    if doc.is_empty() {
        return Ok(());
    }
    let full = QUEUE.with(|q| {
        let mut q = q.borrow_mut();
        q.bytes += doc.len();
        q.ops.push((rowid, Some(doc.to_owned())));
        q.bytes >= MAX_BYTES
    });
    if full {
        apply(conn)?;
    }
    Ok(())
}

/// Queues the delete of the document `rowid`.
pub(crate) fn delete(rowid: i64) {
    QUEUE.with(|q| q.borrow_mut().ops.push((rowid, None)));
}

/// Applies the queued writes, in order, in the open transaction of `conn`.
pub(crate) fn apply(conn: &Connection) -> Result<()> {
    let ops = QUEUE.with(|q| {
        let mut q = q.borrow_mut();
        q.bytes = 0;
        std::mem::take(&mut q.ops)
    });
    if ops.is_empty() {
        return Ok(());
    }
    let mut ins = conn
        .prepare_cached("INSERT INTO events_fts(rowid, doc) VALUES(?1, ?2)")
        .map_err(StoreError::db("prepare fts insert"))?;
    let mut del = conn
        .prepare_cached("DELETE FROM events_fts WHERE rowid = ?1")
        .map_err(StoreError::db("prepare fts delete"))?;
    for (rowid, doc) in ops {
        match doc {
            Some(doc) => ins
                .execute(params![rowid, doc])
                .map_err(StoreError::db("insert fts row"))?,
            None => del
                .execute([rowid])
                .map_err(StoreError::db("delete fts row"))?,
        };
    }
    Ok(())
}

/// Forgets the queued writes (their transaction rolled back).
pub(crate) fn discard() {
    QUEUE.with(|q| {
        let mut q = q.borrow_mut();
        q.ops.clear();
        q.bytes = 0;
    });
}
