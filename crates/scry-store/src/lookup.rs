//! Small typed reads the query layer asks of the index, so its SQL stays here: the uri stored
//! for a source, the stored working directories (exclusions by project, the Aider cwd walk),
//! the data version a poller compares, and explicit read transactions spanning several reads.

use scry_model::ProviderId;

use crate::{Result, Store, StoreError};

/// A live indexed source of another provider with its stored session's working directory
/// ([`Store::each_live_cwd`]).
#[derive(Debug, Clone, Copy)]
pub struct SourceCwd<'a> {
    /// The source path as stored.
    pub path: &'a str,
    /// The session key inside a multi-session store (`""` for a file of its own).
    pub key: &'a str,
    /// Size at the last refresh (-1 when unknown).
    pub size: i64,
    /// Modification time (ns) at the last refresh (-1 when unknown).
    pub mtime_ns: i64,
    /// The stored session's working directory.
    pub cwd: Option<&'a str>,
}

impl Store {
    /// The uri of the session indexed from source `path` (with `key`, `""` for a file of its
    /// own), `None` when the index does not hold it.
    pub fn uri_at(&self, path: &str, key: &str) -> Result<Option<String>> {
        use rusqlite::OptionalExtension;
        self.conn
            .query_row(
                "SELECT s.uri FROM files f JOIN sessions s ON s.sid = f.sid
                 WHERE f.path = ?1 AND f.key = ?2",
                rusqlite::params![path, key],
                |r| r.get::<_, String>(0),
            )
            .optional()
            .map_err(|e| StoreError::db("look up a source")(e).in_index(self.path()))
    }

    /// `(path, key, cwd)` of every indexed source whose stored session has a working
    /// directory.
    pub fn source_cwds(&self) -> Result<Vec<(String, String, String)>> {
        let mut st = self
            .conn
            .prepare(
                "SELECT f.path, f.key, s.cwd FROM files f JOIN sessions s ON s.sid = f.sid
                 WHERE s.cwd IS NOT NULL",
            )
            .map_err(StoreError::db("read source cwds"))?;
        let rows = st
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .map_err(StoreError::db("read source cwds"))?;
        Ok(rows.flatten().collect())
    }

    /// `(provider, cwd)` of every distinct working directory of the live sessions of providers
    /// other than `except`.
    pub fn live_cwds(&self, except: ProviderId) -> Result<Vec<(String, String)>> {
        let mut st = self
            .conn
            .prepare(
                "SELECT DISTINCT provider, cwd FROM sessions \
                 WHERE live = 1 AND provider != ?1 AND cwd IS NOT NULL",
            )
            .map_err(StoreError::db("read live cwds"))?;
        let rows = st
            .query_map([except.as_str()], |r| Ok((r.get(0)?, r.get(1)?)))
            .map_err(StoreError::db("read live cwds"))?;
        Ok(rows.flatten().collect())
    }

    /// Hands `each` every live indexed source of providers other than `except`, ordered by
    /// (path, key), with its stat at the last refresh and its session's stored cwd; rows that
    /// cannot be read are skipped. Nothing is copied for a row `each` ignores.
    pub fn each_live_cwd(
        &self,
        except: ProviderId,
        each: &mut dyn FnMut(SourceCwd<'_>),
    ) -> Result<()> {
        let mut st = self
            .conn
            .prepare(
                "SELECT f.path, f.key, f.size, f.mtime_ns, s.cwd FROM files f \
                 JOIN sessions s ON s.sid = f.sid WHERE f.live = 1 AND f.provider != ?1 \
                 ORDER BY f.path, f.key",
            )
            .map_err(StoreError::db("read source cwds"))?;
        let mut rows = st
            .query([except.as_str()])
            .map_err(StoreError::db("read source cwds"))?;
        while let Ok(Some(row)) = rows.next() {
            let (Ok(path), Ok(key)) = (row.get_ref(0), row.get_ref(1)) else {
                continue;
            };
            let (Ok(path), Ok(key)) = (path.as_str(), key.as_str()) else {
                continue;
            };
            each(SourceCwd {
                path,
                key,
                size: row.get::<_, i64>(2).unwrap_or(-1),
                mtime_ns: row.get::<_, i64>(3).unwrap_or(-1),
                cwd: row
                    .get_ref(4)
                    .ok()
                    .and_then(|v| v.as_str_or_null().ok().flatten()),
            });
        }
        Ok(())
    }

    /// SQLite's `data_version` of this connection: it changes when another connection commits
    /// (a poller compares it to see whether to read again).
    pub fn data_version(&self) -> Result<i64> {
        self.conn
            .query_row("PRAGMA data_version", [], |r| r.get::<_, i64>(0))
            .map_err(StoreError::db("read data_version"))
    }

    /// Opens a read transaction when none is open, so the reads until [`Store::end_read`] see
    /// one commit; `Ok(true)` when it opened one.
    pub fn begin_read(&self) -> Result<bool> {
        if !self.conn.is_autocommit() {
            return Ok(false);
        }
        self.conn
            .execute_batch("BEGIN DEFERRED")
            .map_err(StoreError::db("begin read"))?;
        Ok(true)
    }

    /// Ends the open read transaction, if any (a read has nothing to keep; a failure means the
    /// connection is gone, which the next read says).
    pub fn end_read(&self) {
        if !self.conn.is_autocommit() {
            let _ = self.conn.execute_batch("COMMIT");
        }
    }
}
