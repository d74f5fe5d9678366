//! Opening a LangGraph `SqliteSaver` database read-only and reading its rows
//! (langgraph-checkpoint-sqlite 3.1.2 schema: `checkpoints`, `writes` with or without
//! `writes.task_path`).
//!
//! The database is opened through [`scry_source::sqlite::open_snapshot`]: without a live
//! `-wal`, in place with `mode=ro&immutable=1` (SQLite creates no `-wal` / `-shm` beside it and
//! takes no lock, even in a read-only directory); with one, through a private copy of the
//! database and its `-wal` in a temporary directory, so rows not yet checkpointed are read
//! while the agent's three files stay untouched and no `-shm` appears. When that copy cannot be
//! made, the database is read in place without the WAL's rows and [`Db::open_notes`] says so.

use std::path::{Path, PathBuf};

use rusqlite::{Connection, OptionalExtension};
use scry_source::sqlite::{open_snapshot, Snapshot};

/// Why a database could not be opened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OpenError {
    /// The path is not a file.
    NotFound(PathBuf),
    /// SQLite refused it (not a database, corrupt, unreadable).
    Sqlite(PathBuf, String),
    /// A database without the `checkpoints` / `writes` tables; the missing names, sorted.
    Unsupported(Vec<String>),
}

impl std::fmt::Display for OpenError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OpenError::NotFound(p) => write!(f, "Sessions database not found: {}", p.display()),
            OpenError::Sqlite(p, e) => {
                write!(f, "Cannot read sessions database {}: {e}", p.display())
            }
            OpenError::Unsupported(missing) => write!(
                f,
                "Not a supported sessions database; missing tables: {}",
                missing.join(", ")
            ),
        }
    }
}

impl std::error::Error for OpenError {}

/// One row of `checkpoints` (the blob undecoded).
#[derive(Debug, Clone)]
pub struct CheckpointRow {
    /// `checkpoint_id` (time-ordered uuid6; sorts chronologically).
    pub checkpoint_id: String,
    /// `parent_checkpoint_id`.
    pub parent_checkpoint_id: Option<String>,
    /// Serialization type (`msgpack`).
    pub type_name: Option<String>,
    /// The serialized checkpoint.
    pub blob: Option<Vec<u8>>,
    /// The raw metadata column (UTF-8 JSON).
    pub metadata: Option<Vec<u8>>,
}

/// One row of `writes` (the value undecoded).
#[derive(Debug, Clone)]
pub struct WriteRow {
    /// The checkpoint the write is anchored on (the step *after* it produced it).
    pub checkpoint_id: String,
    /// The task that wrote it.
    pub task_id: String,
    /// `task_path` ('' when the column does not exist).
    pub task_path: String,
    /// Position within the task's writes (negative for special channels).
    pub idx: i64,
    /// Channel name.
    pub channel: String,
    /// Serialization type.
    pub type_name: Option<String>,
    /// Serialized value.
    pub value: Option<Vec<u8>>,
}

/// A read-only LangGraph checkpoint database.
pub struct Db {
    conn: Snapshot,
    path: PathBuf,
    has_task_path: bool,
    notes: Vec<String>,
}

impl Db {
    /// Opens `path` read-only ([`scry_source::sqlite::open_snapshot`]: in place and immutable,
    /// or through a private copy of the database and its live `-wal`) and checks for the
    /// `checkpoints` and `writes` tables.
    pub fn open(path: &Path) -> Result<Db, OpenError> {
        let resolved = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        if !resolved.is_file() {
            return Err(OpenError::NotFound(resolved));
        }
        let conn =
            open_snapshot(&resolved).map_err(|e| OpenError::Sqlite(resolved.clone(), e.message))?;
        let notes: Vec<String> = conn.wal_note().map(str::to_string).into_iter().collect();
        let sqlite_err = |e: rusqlite::Error| OpenError::Sqlite(resolved.clone(), e.to_string());
        let tables: Vec<String> = {
            let mut stmt = conn
                .prepare("SELECT name FROM sqlite_master WHERE type = 'table'")
                .map_err(sqlite_err)?;
            let rows = stmt
                .query_map([], |r| r.get::<_, String>(0))
                .map_err(sqlite_err)?;
            rows.collect::<Result<_, _>>().map_err(sqlite_err)?
        };
        let missing: Vec<String> = ["checkpoints", "writes"]
            .into_iter()
            .filter(|t| !tables.iter().any(|x| x == t))
            .map(str::to_string)
            .collect();
        if !missing.is_empty() {
            return Err(OpenError::Unsupported(missing));
        }
        let has_task_path = conn
            .prepare("SELECT 1 FROM pragma_table_info('writes') WHERE name = 'task_path'")
            .and_then(|mut s| s.exists([]))
            .map_err(sqlite_err)?;
        Ok(Db {
            conn,
            path: resolved,
            has_task_path,
            notes,
        })
    }

    /// True when rows of a live `-wal` were read (through a private copy of the database).
    pub fn read_wal(&self) -> bool {
        self.conn.read_wal()
    }

    /// The resolved path of the database.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// True when `writes` has the `task_path` column.
    pub fn has_task_path(&self) -> bool {
        self.has_task_path
    }

    /// Notes about how the database was opened (e.g. an unreadable live WAL).
    pub fn open_notes(&self) -> &[String] {
        &self.notes
    }

    /// The underlying connection (read-only).
    pub fn connection(&self) -> &Connection {
        self.conn.conn()
    }

    /// The newest checkpoint of `thread_id` in namespace `ns`.
    pub fn latest_checkpoint(
        &self,
        thread_id: &str,
        ns: &str,
    ) -> rusqlite::Result<Option<CheckpointRow>> {
        self.conn
            .query_row(
                "SELECT checkpoint_id, parent_checkpoint_id, type, checkpoint, metadata FROM checkpoints \
                 WHERE thread_id = ?1 AND checkpoint_ns = ?2 ORDER BY checkpoint_id DESC LIMIT 1",
                (thread_id, ns),
                checkpoint_row,
            )
            .optional()
    }

    /// One checkpoint by id.
    pub fn checkpoint(
        &self,
        thread_id: &str,
        ns: &str,
        id: &str,
    ) -> rusqlite::Result<Option<CheckpointRow>> {
        self.conn
            .query_row(
                "SELECT checkpoint_id, parent_checkpoint_id, type, checkpoint, metadata FROM checkpoints \
                 WHERE thread_id = ?1 AND checkpoint_ns = ?2 AND checkpoint_id = ?3",
                (thread_id, ns, id),
                checkpoint_row,
            )
            .optional()
    }

    /// Ids, parents and metadata of every checkpoint of a thread namespace, oldest first
    /// (blobs not loaded).
    pub fn checkpoint_index(
        &self,
        thread_id: &str,
        ns: &str,
    ) -> rusqlite::Result<Vec<CheckpointRow>> {
        let mut stmt = self.conn.prepare(
            "SELECT checkpoint_id, parent_checkpoint_id, type, NULL, metadata FROM checkpoints \
             WHERE thread_id = ?1 AND checkpoint_ns = ?2 ORDER BY checkpoint_id",
        )?;
        let rows = stmt.query_map((thread_id, ns), checkpoint_row)?;
        rows.collect()
    }

    /// The writes anchored on one checkpoint to `channel` (all channels when `None`), in
    /// LangGraph's application order: `task_path`, `task_id`, `idx`.
    pub fn writes(
        &self,
        thread_id: &str,
        ns: &str,
        checkpoint_id: &str,
        channel: Option<&str>,
    ) -> rusqlite::Result<Vec<WriteRow>> {
        let task_path = if self.has_task_path {
            "task_path"
        } else {
            "''"
        };
        let sql = format!(
            "SELECT checkpoint_id, task_id, {task_path}, idx, channel, type, value FROM writes \
             WHERE thread_id = ?1 AND checkpoint_ns = ?2 AND checkpoint_id = ?3 \
             AND (?4 IS NULL OR channel = ?4) ORDER BY {task_path}, task_id, idx"
        );
        let mut stmt = self.conn.prepare(&sql)?;
        let rows = stmt.query_map((thread_id, ns, checkpoint_id, channel), write_row)?;
        rows.collect()
    }

    /// Every write of a thread namespace to `channel`, ordered by checkpoint, task path, task, idx.
    pub fn all_writes(
        &self,
        thread_id: &str,
        ns: &str,
        channel: &str,
    ) -> rusqlite::Result<Vec<WriteRow>> {
        let task_path = if self.has_task_path {
            "task_path"
        } else {
            "''"
        };
        let sql = format!(
            "SELECT checkpoint_id, task_id, {task_path}, idx, channel, type, value FROM writes \
             WHERE thread_id = ?1 AND checkpoint_ns = ?2 AND channel = ?3 \
             ORDER BY checkpoint_id, {task_path}, task_id, idx"
        );
        let mut stmt = self.conn.prepare(&sql)?;
        let rows = stmt.query_map((thread_id, ns, channel), write_row)?;
        rows.collect()
    }
}

fn blob(r: &rusqlite::Row<'_>, i: usize) -> rusqlite::Result<Option<Vec<u8>>> {
    use rusqlite::types::ValueRef;
    Ok(match r.get_ref(i)? {
        ValueRef::Blob(b) => Some(b.to_vec()),
        ValueRef::Text(t) => Some(t.to_vec()),
        _ => None,
    })
}

fn text(r: &rusqlite::Row<'_>, i: usize) -> rusqlite::Result<Option<String>> {
    use rusqlite::types::ValueRef;
    Ok(match r.get_ref(i)? {
        ValueRef::Text(t) | ValueRef::Blob(t) => Some(String::from_utf8_lossy(t).into_owned()),
        ValueRef::Integer(n) => Some(n.to_string()),
        _ => None,
    })
}

fn checkpoint_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<CheckpointRow> {
    Ok(CheckpointRow {
        checkpoint_id: text(r, 0)?.unwrap_or_default(),
        parent_checkpoint_id: text(r, 1)?,
        type_name: text(r, 2)?,
        blob: blob(r, 3)?,
        metadata: blob(r, 4)?,
    })
}

fn write_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<WriteRow> {
    Ok(WriteRow {
        checkpoint_id: text(r, 0)?.unwrap_or_default(),
        task_id: text(r, 1)?.unwrap_or_default(),
        task_path: text(r, 2)?.unwrap_or_default(),
        idx: r.get::<_, Option<i64>>(3)?.unwrap_or(0),
        channel: text(r, 4)?.unwrap_or_default(),
        type_name: text(r, 5)?,
        value: blob(r, 6)?,
    })
}
