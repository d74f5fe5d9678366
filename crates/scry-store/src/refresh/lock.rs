//! Lock etiquette of the index writers: short transactions begun with `BEGIN IMMEDIATE` and
//! rolled back when dropped, a pause between two transactions of one writer, and a busy
//! handler that polls often enough to get in during another writer's pause; a bulk refresh
//! reads without the memory map ([`Unmapped`]).

use std::cell::Cell;
use std::time::Duration;

use rusqlite::Connection;

use crate::error::{Result, StoreError};

/// Pause between two transactions of one writer, so a waiting writer gets the lock (SQLite's
/// locks are not fair: a writer that begins again at once can starve the others).
pub(crate) const YIELD: Duration = Duration::from_millis(10);

thread_local! {
    /// Longest a writer on this thread waits for the lock before giving up: the store's busy
    /// timeout, set by [`poll_when_busy`] (SQLite calls the handler on the thread that runs the
    /// statement, and a busy handler is a plain function).
    static BUSY_WAIT: Cell<Duration> = const { Cell::new(Duration::from_secs(10)) };
}

/// A busy handler polling every millisecond or two (SQLite's default backs off to 100 ms
/// between tries, and would miss the [`YIELD`] gaps of another writer) for [`BUSY_WAIT`].
pub(crate) fn busy_poll(attempt: i32) -> bool {
    const STEP: Duration = Duration::from_millis(2);
    let tries = BUSY_WAIT.with(Cell::get).as_millis() / STEP.as_millis();
    if u128::try_from(attempt).unwrap_or(0) >= tries {
        return false;
    }
    std::thread::sleep(STEP);
    true
}

/// Makes `conn` wait for the write lock with [`busy_poll`], up to `wait` (the store's busy
/// timeout: `scry index` sets a short one to say early that it waits).
pub(crate) fn poll_when_busy(conn: &Connection, wait: Duration) -> Result<()> {
    BUSY_WAIT.with(|w| w.set(wait));
    conn.busy_handler(Some(busy_poll))
        .map_err(StoreError::db("configure busy handler"))
}

/// An open write transaction on a connection, rolled back when dropped uncommitted (an early
/// return on an error). Plain SQL rather than `rusqlite::Transaction`, because a staged session's
/// sink commits and begins again on the same connection.
pub(crate) struct TxGuard<'c>(&'c Connection);

impl<'c> TxGuard<'c> {
    pub(crate) fn begin(conn: &'c Connection) -> Result<Self> {
        conn.execute_batch("BEGIN IMMEDIATE")
            .map_err(StoreError::db("begin index transaction"))?;
        Ok(TxGuard(conn))
    }

    pub(crate) fn commit(self) -> Result<()> {
        crate::gramq::apply(self.0)?;
        self.0
            .execute_batch("COMMIT")
            .map_err(StoreError::db("commit index batch"))
    }
}

impl Drop for TxGuard<'_> {
    fn drop(&mut self) {
        if !self.0.is_autocommit() {
            crate::gramq::discard();
            let _ = self.0.execute_batch("ROLLBACK");
        }
    }
}

/// A connection without memory-mapped reads while a bulk refresh or a whole-file check runs
/// (issue 17): the merges of the candidate index read hundreds of MB of runs once, the check
/// every page, and mapped pages count in the process's resident memory (1.2 GB after a cold
/// `default`); reads go through SQLite's page cache instead. The usual map is restored on
/// drop.
pub(crate) struct Unmapped<'c>(&'c rusqlite::Connection);

impl<'c> Unmapped<'c> {
    pub(crate) fn new(conn: &'c rusqlite::Connection) -> Result<Self> {
        conn.execute_batch("PRAGMA mmap_size = 0")
            .map_err(StoreError::db("configure the refresh"))?;
        Ok(Unmapped(conn))
    }
}

impl Drop for Unmapped<'_> {
    fn drop(&mut self) {
        // Only a cost when it fails: reads stay unmapped.
        let _ = self.0.execute_batch(crate::MMAP_PRAGMA);
    }
}
