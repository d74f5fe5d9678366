//! `list`'s total / hidden counts kept between commands (issue 16): each is a `count(*)` over
//! every listed session, O(n) however small the page. They are stored per query (the counting
//! SQL and its parameters, hashed) with the **write generation** they were counted at, and a
//! later `list` of the same query reads them back while the generation is unchanged: O(1).
//!
//! The generation is `meta.list_gen`, bumped by triggers on every row written to `files`
//! (the columns a count reads) or `sessions`, by any writer of any build, inside the writer's
//! own transaction. A reader takes the generation in the same read snapshot as the page, so a
//! stored count is used only for exactly the rows it was counted over. Added without a schema
//! bump ([`DDL`] runs on open when missing, like the archive table): a bump would rebuild the
//! index.
//!
//! The same generation keeps one more answer that is O(n) to compute and O(1) to keep: the
//! Aider cwd lookup's summary of every live source ([`crate::Store::live_cwds_of`]), in
//! `lookup_cache` as JSON.
//!
//! Counts with `--since` are not stored (the instant moves with every command). Storing is a
//! small write after the read transaction, skipped when another writer holds the lock (never
//! waited for) and only for the current generation's rows (older ones are deleted with it).

use std::cell::RefCell;
use std::time::Duration;

use rusqlite::{params, OptionalExtension};
use xxhash_rust::xxh3::Xxh3;

use crate::error::{Result, StoreError};
use crate::Store;

/// The cache table and the generation triggers (`IF NOT EXISTS`: run on every layout check).
pub(crate) const DDL: &str = "
CREATE TABLE IF NOT EXISTS list_counts(
    key INTEGER PRIMARY KEY,
    gen INTEGER NOT NULL,
    total INTEGER NOT NULL,
    hidden INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS lookup_cache(
    key INTEGER PRIMARY KEY,
    gen INTEGER NOT NULL,
    body BLOB NOT NULL
);
INSERT OR IGNORE INTO meta(key, value) VALUES('list_gen', 0);
CREATE TRIGGER IF NOT EXISTS list_gen_files_insert AFTER INSERT ON files
    BEGIN UPDATE meta SET value = value + 1 WHERE key = 'list_gen'; END;
CREATE TRIGGER IF NOT EXISTS list_gen_files_update
    AFTER UPDATE OF path, key, provider, live, error, sid ON files
    BEGIN UPDATE meta SET value = value + 1 WHERE key = 'list_gen'; END;
CREATE TRIGGER IF NOT EXISTS list_gen_files_delete AFTER DELETE ON files
    BEGIN UPDATE meta SET value = value + 1 WHERE key = 'list_gen'; END;
CREATE TRIGGER IF NOT EXISTS list_gen_sessions_insert AFTER INSERT ON sessions
    BEGIN UPDATE meta SET value = value + 1 WHERE key = 'list_gen'; END;
CREATE TRIGGER IF NOT EXISTS list_gen_sessions_update AFTER UPDATE ON sessions
    BEGIN UPDATE meta SET value = value + 1 WHERE key = 'list_gen'; END;
CREATE TRIGGER IF NOT EXISTS list_gen_sessions_delete AFTER DELETE ON sessions
    BEGIN UPDATE meta SET value = value + 1 WHERE key = 'list_gen'; END;
";

/// The `sqlite_master` names [`DDL`] creates (the layout check counts them).
pub(crate) const NAMES: [&str; 8] = [
    "list_counts",
    "lookup_cache",
    "list_gen_files_insert",
    "list_gen_files_update",
    "list_gen_files_delete",
    "list_gen_sessions_insert",
    "list_gen_sessions_update",
    "list_gen_sessions_delete",
];

/// Counts read in a snapshot, not stored yet: (key, generation, total, hidden).
pub(crate) type Pending = RefCell<Vec<(i64, i64, i64, i64)>>;

/// The cache key of a counting query: its SQL text and parameters.
pub(crate) fn key(text: &str, params: &[rusqlite::types::Value]) -> i64 {
    let mut h = Xxh3::new();
    h.update(text.as_bytes());
    for p in params {
        h.update(format!("{p:?}").as_bytes());
        h.update(&[0]);
    }
    h.digest() as i64
}

fn fail(context: &'static str) -> impl Fn(rusqlite::Error) -> StoreError {
    move |source| StoreError::Persistence {
        context: context.into(),
        source,
    }
}

impl Store {
    /// The current write generation (`meta.list_gen`; -1 when the index has none).
    fn generation(&self) -> Result<i64> {
        let gen: Option<i64> = self
            .conn
            .prepare_cached("SELECT value FROM meta WHERE key = 'list_gen'")
            .and_then(|mut st| st.query_row([], |r| r.get(0)).optional())
            .map_err(fail("read the write generation"))?;
        Ok(gen.unwrap_or(-1))
    }

    /// The current write generation and the counts stored for `key` at it, if any. Call in the
    /// read snapshot the page is read in.
    pub(crate) fn cached_counts(&self, key: i64) -> Result<(i64, Option<(usize, usize)>)> {
        let gen = self.generation()?;
        if gen < 0 {
            return Ok((gen, None));
        }
        let hit: Option<(i64, i64)> = self
            .conn
            .prepare_cached("SELECT total, hidden FROM list_counts WHERE key = ?1 AND gen = ?2")
            .and_then(|mut st| {
                st.query_row(params![key, gen], |r| Ok((r.get(0)?, r.get(1)?)))
                    .optional()
            })
            .map_err(fail("read stored list counts"))?;
        let size = |n: i64| usize::try_from(n).unwrap_or(0);
        Ok((gen, hit.map(|(t, h)| (size(t), size(h)))))
    }

    /// `count` (the counting of `key`'s query) read back from the store when counted at the
    /// current generation, else run and kept for [`Store::save_list_counts`]. Call in the read
    /// snapshot the page is read in.
    pub(crate) fn counted(
        &self,
        key: i64,
        count: impl FnOnce() -> Result<(usize, usize)>,
    ) -> Result<(usize, usize)> {
        let (gen, hit) = self.cached_counts(key)?;
        if let Some(counts) = hit {
            return Ok(counts);
        }
        let (total, hidden) = count()?;
        let n = |v: usize| i64::try_from(v).unwrap_or(i64::MAX);
        self.pending_counts
            .borrow_mut()
            .push((key, gen, n(total), n(hidden)));
        Ok((total, hidden))
    }

    /// Stores the counts [`Store::list_counts`] computed in a read snapshot now that it has
    /// ended: one short write, skipped when another writer holds the lock (never waited for)
    /// or when this process is inside a transaction.
    pub fn save_list_counts(&self) {
        let pending = self.pending_counts.take();
        let Some(&(_, gen, _, _)) = pending.first() else {
            return;
        };
        self.short_write(gen, |conn| {
            conn.prepare_cached(
                "DELETE FROM list_counts
                 WHERE gen <> (SELECT value FROM meta WHERE key = 'list_gen')",
            )?
            .execute([])?;
            let mut st = conn.prepare_cached(
                "INSERT OR REPLACE INTO list_counts(key, gen, total, hidden)
                 SELECT ?1, ?2, ?3, ?4 FROM meta WHERE key = 'list_gen' AND value = ?2",
            )?;
            for (key, gen, total, hidden) in &pending {
                st.execute(params![key, gen, total, hidden])?;
            }
            Ok(())
        });
    }

    /// The answer stored under `key` in `lookup_cache` at the current write generation, with
    /// that generation (-1 when the index has none). Call in the read snapshot the answer
    /// would otherwise be computed in.
    pub(crate) fn cached_lookup<T: serde::de::DeserializeOwned>(
        &self,
        key: i64,
    ) -> Result<(i64, Option<T>)> {
        let gen = self.generation()?;
        if gen < 0 {
            return Ok((gen, None));
        }
        let body: Option<Vec<u8>> = self
            .conn
            .prepare_cached("SELECT body FROM lookup_cache WHERE key = ?1 AND gen = ?2")
            .and_then(|mut st| st.query_row(params![key, gen], |r| r.get(0)).optional())
            .map_err(fail("read a stored lookup"))?;
        Ok((gen, body.and_then(|b| serde_json::from_slice(&b).ok())))
    }

    /// Keeps `value`, computed in a read snapshot at generation `gen` that has ended, under
    /// `key` in `lookup_cache` (a short write like [`Store::save_list_counts`]; stored only
    /// while the generation is still `gen`).
    pub(crate) fn save_lookup<T: serde::Serialize>(&self, key: i64, gen: i64, value: &T) {
        let Ok(body) = serde_json::to_vec(value) else {
            return;
        };
        self.short_write(gen, |conn| {
            conn.prepare_cached(
                "DELETE FROM lookup_cache
                 WHERE gen <> (SELECT value FROM meta WHERE key = 'list_gen')",
            )?
            .execute([])?;
            conn.prepare_cached(
                "INSERT OR REPLACE INTO lookup_cache(key, gen, body)
                 SELECT ?1, ?2, ?3 FROM meta WHERE key = 'list_gen' AND value = ?2",
            )?
            .execute(params![key, gen, body])?;
            Ok(())
        });
    }

    /// Runs `write` in one short write transaction: skipped when `gen` is unknown, when this
    /// process is inside a transaction, or when another writer holds the lock (never waited
    /// for); a failure rolls it back and is dropped (the stored answers are only a cache).
    fn short_write(
        &self,
        gen: i64,
        write: impl FnOnce(&rusqlite::Connection) -> rusqlite::Result<()>,
    ) {
        if gen < 0 || !self.conn.is_autocommit() {
            return;
        }
        if self.conn.busy_timeout(Duration::ZERO).is_err() {
            return;
        }
        let _ = self
            .conn
            .execute_batch("BEGIN IMMEDIATE")
            .and_then(|()| match write(&self.conn) {
                Ok(()) => self.conn.execute_batch("COMMIT"),
                Err(e) => {
                    let _ = self.conn.execute_batch("ROLLBACK");
                    Err(e)
                }
            });
        let _ = self.conn.busy_timeout(self.busy_wait.get());
    }
}
