//! The index file is scry's own, and a damaged one is replaced, never patched (issue 15).
//!
//! - Ownership: an index is created with the SQLite application id [`APPLICATION_ID`] (set
//!   while the file is still in rollback-journal mode, so it is in the main file from the first
//!   write) and a `scry_index` row in `meta`. Before anything opens a file for writing,
//!   [`ownership`] looks at it without SQLite writing a byte: the 100-byte header read with
//!   plain file I/O, and for an application id of 0 the schema read through an
//!   `immutable=1` read-only connection (no `-wal` / `-shm` created, no lock taken). A file
//!   that is not SQLite, carries another application id, or lacks scry's `meta` table is
//!   refused ([`StoreError::NotAnIndex`]) and stays byte-identical; an index of a release
//!   before application ids (id 0, scry's `meta` with `schema_version` and `parser_version`)
//!   is adopted.
//! - Damage: [`is_corrupt`] recognises SQLite's corruption errors; [`StoreError::in_index`]
//!   names the file. [`inspect`] runs `PRAGMA quick_check` read-only (for `doctor` and
//!   `index --all`), and [`Store::rebuild`] builds a fresh index in a temporary file beside
//!   the damaged one and renames it over it. The sources rebuild everything (S-I1); what no
//!   source can give back — archived sessions and earlier revisions (S-I6, issue 20) — is read
//!   from the old file first, one session at a time, and written into the new one (a session
//!   on a damaged page is lost and counted in [`RefreshReport::carry_lost`]).

use std::io::Read;
use std::path::{Path, PathBuf};

use rusqlite::{Connection, ErrorCode, OpenFlags};
use scry_source::{Source, SourceFile};

use crate::error::{Result, StoreError};
use crate::refresh::{Progress, RefreshOptions, RefreshReport};
use crate::Store;

/// The SQLite application id of a scry index (`PRAGMA application_id`, bytes 68–71 of the
/// file header): the ASCII bytes `Scry`.
pub const APPLICATION_ID: i32 = 0x5363_7279;

/// The `meta` key marking a scry index (its value is [`APPLICATION_ID`]).
pub(crate) const MARKER_KEY: &str = "scry_index";

/// What is at the index location, judged without writing to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ownership {
    /// No file, or an empty one: scry creates its index there.
    New,
    /// A scry index (our application id).
    Ours,
    /// An index made before application ids: id 0 and scry's `meta` table.
    Legacy,
}

/// Judges the file at `path` (see the module doc). Never writes, never creates a side file.
pub(crate) fn ownership(path: &Path) -> Result<Ownership> {
    let refuse = |reason: &str| StoreError::NotAnIndex {
        path: path.to_path_buf(),
        reason: reason.to_string(),
    };
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Ownership::New),
        Err(e) => {
            return Err(StoreError::IndexBuild(format!(
                "cannot read {}: {e}",
                path.display()
            )))
        }
    };
    if !meta.is_file() {
        return Err(refuse("not a regular file"));
    }
    if meta.len() == 0 {
        return Ok(Ownership::New);
    }
    let mut header = Vec::with_capacity(100);
    std::fs::File::open(path)
        .and_then(|f| f.take(100).read_to_end(&mut header))
        .map_err(|e| StoreError::IndexBuild(format!("cannot read {}: {e}", path.display())))?;
    if header.len() < 100 || !header.starts_with(b"SQLite format 3\0") {
        return Err(refuse("not an SQLite database"));
    }
    let id = i32::from_be_bytes([header[68], header[69], header[70], header[71]]);
    if id == APPLICATION_ID {
        return Ok(Ownership::Ours);
    }
    if id != 0 {
        return Err(refuse(&format!(
            "an SQLite database with application id {id:#010x}, not scry's"
        )));
    }
    match legacy_tables(path) {
        Ok(true) => Ok(Ownership::Legacy),
        Ok(false) => Err(refuse("an SQLite database without scry's tables")),
        Err(e) => Err(refuse(&format!("an SQLite database scry cannot read: {e}"))),
    }
}

/// Whether the main file (WAL ignored) holds scry's `meta` table with its version rows.
fn legacy_tables(path: &Path) -> rusqlite::Result<bool> {
    let conn = Connection::open_with_flags(
        format!("file:{}?mode=ro&immutable=1", uri_path(path)),
        OpenFlags::SQLITE_OPEN_READ_ONLY
            | OpenFlags::SQLITE_OPEN_URI
            | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    let has_meta: i64 = conn.query_row(
        "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'meta'",
        [],
        |r| r.get(0),
    )?;
    if has_meta == 0 {
        return Ok(false);
    }
    let rows: i64 = conn
        .query_row(
            "SELECT count(*) FROM meta WHERE key IN ('schema_version', 'parser_version')
             AND typeof(value) = 'integer'",
            [],
            |r| r.get(0),
        )
        .unwrap_or(0);
    Ok(rows == 2)
}

/// `path` percent-encoded for a `file:` URI (every byte but unreserved ones and `/`).
fn uri_path(path: &Path) -> String {
    let mut out = String::new();
    for &b in path.as_os_str().as_encoded_bytes() {
        if b.is_ascii_alphanumeric() || b"/-._~".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Whether `e` says the database file is damaged: `SQLITE_CORRUPT` (any extended code),
/// `SQLITE_NOTADB`, or a "malformed" message (FTS5 reports damage of its own tables so).
pub(crate) fn is_corrupt(e: &rusqlite::Error) -> bool {
    match e {
        rusqlite::Error::SqliteFailure(f, msg) => {
            matches!(f.code, ErrorCode::DatabaseCorrupt | ErrorCode::NotADatabase)
                || msg.as_deref().is_some_and(|m| m.contains("malformed"))
        }
        other => other.to_string().contains("malformed"),
    }
}

/// Whether `e` is a lock held by another connection (after the busy timeout).
pub(crate) fn is_busy(e: &rusqlite::Error) -> bool {
    matches!(
        e,
        rusqlite::Error::SqliteFailure(f, _)
            if matches!(f.code, ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked)
    )
}

/// The state of the index file at a location, as `doctor` reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IndexHealth {
    /// No index yet (or an empty file).
    Missing,
    /// A scry index that passes `PRAGMA quick_check` (`legacy`: made before application ids;
    /// the next command adopts it).
    Healthy {
        /// Made by a release before application ids.
        legacy: bool,
    },
    /// A scry index SQLite reports damaged; the words are SQLite's.
    Damaged(String),
    /// Not a scry index: the reason (scry never writes to it).
    NotAnIndex(String),
}

/// Checks the index at `path` without writing to it: ownership first (see [`ownership`]),
/// then `PRAGMA quick_check` over a read-only connection (which reads every page: about as
/// long as reading the file).
pub fn inspect(path: &Path) -> IndexHealth {
    let legacy = match ownership(path) {
        Ok(Ownership::New) => return IndexHealth::Missing,
        Ok(o) => o == Ownership::Legacy,
        Err(StoreError::NotAnIndex { reason, .. }) => return IndexHealth::NotAnIndex(reason),
        Err(e) => return IndexHealth::Damaged(e.to_string()),
    };
    match quick_check(path) {
        Ok(None) => IndexHealth::Healthy { legacy },
        Ok(Some(problem)) => IndexHealth::Damaged(problem),
        Err(e) => IndexHealth::Damaged(e.to_string()),
    }
}

/// A read-only connection to the index at `path` for the `doctor` readers (`archive_at`,
/// `revisions_at`, `lease_at`: doctor never writes to the index), waiting up to 2 s for a
/// writer; `None` when it cannot be opened.
pub(crate) fn read_only(path: &Path) -> Option<Connection> {
    let conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .ok()?;
    conn.busy_timeout(std::time::Duration::from_secs(2)).ok()?;
    Some(conn)
}

/// `PRAGMA quick_check` over a read-only connection: `None` when it says ok, else its first
/// findings.
fn quick_check(path: &Path) -> rusqlite::Result<Option<String>> {
    let conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    conn.busy_timeout(std::time::Duration::from_secs(10))?;
    let mut st = conn.prepare("PRAGMA quick_check(3)")?;
    let rows: Vec<String> = st
        .query_map([], |r| r.get::<_, String>(0))?
        .collect::<rusqlite::Result<_>>()?;
    Ok(findings(&rows))
}

/// `None` for quick_check's "ok", else its findings on one line.
fn findings(rows: &[String]) -> Option<String> {
    if rows.len() == 1 && rows[0] == "ok" {
        return None;
    }
    let lines: Vec<&str> = rows
        .iter()
        .flat_map(|r| r.lines())
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("***"))
        .collect();
    Some(lines.join("; "))
}

/// `path` with `suffix` appended to its file name (`index.db` + `-wal`).
fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(suffix);
    PathBuf::from(s)
}

fn remove_if_present(path: &Path) -> std::io::Result<()> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

fn remove_database(path: &Path) {
    for p in [
        path.to_path_buf(),
        with_suffix(path, "-wal"),
        with_suffix(path, "-shm"),
        with_suffix(path, "-journal"),
    ] {
        let _ = remove_if_present(&p);
    }
}

impl Store {
    /// Builds a fresh index of `files` in a temporary file beside `path`, then swaps it in:
    /// the old `-wal` / `-shm` are removed and the new file is renamed over `path` (one atomic
    /// rename; the new file is checkpointed into rollback mode first, so no stale WAL can be
    /// paired with it). Only the archived sessions and earlier revisions are read from the old
    /// file (read-only, best effort: [`RefreshReport::carried`] / [`RefreshReport::carry_lost`]).
    /// Refuses (untouched) a file that is not a scry index. Returns the reopened store and what
    /// the refresh did.
    ///
    /// A process that still has the old file open keeps reading its own (unlinked) copy until
    /// it reopens.
    pub fn rebuild(
        path: &Path,
        sources: &[Box<dyn Source>],
        files: &[SourceFile],
        opts: &RefreshOptions,
        progress: &mut dyn FnMut(&Progress<'_>) -> bool,
    ) -> Result<(Store, RefreshReport)> {
        ownership(path)?;
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "index.db".into());
        // Unique per process and call: two threads of one server may rebuild at once.
        static REBUILDS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = REBUILDS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let temp = path.with_file_name(format!(".{name}.rebuild-{}-{n}", std::process::id()));
        remove_database(&temp);
        // What no source can rebuild, read before the old file goes (issue 20).
        let kept = crate::carry::carry_from_file(path);
        let built = (|| {
            let mut fresh = Store::open(&temp)?;
            let carried = kept.carried.len();
            crate::carry::carry_in(&fresh, kept.carried)?;
            let mut report = fresh.refresh(sources, files, opts, progress)?;
            report.carried = carried;
            report.carry_lost = kept.lost;
            fresh
                .conn
                .execute_batch("PRAGMA wal_checkpoint(TRUNCATE); PRAGMA journal_mode = DELETE;")
                .map_err(StoreError::db(format!("finish {}", temp.display())))?;
            drop(fresh);
            Ok(report)
        })();
        let report = match built {
            Ok(r) => r,
            Err(e) => {
                remove_database(&temp);
                return Err(e);
            }
        };
        let swap = remove_if_present(&with_suffix(path, "-wal"))
            .and_then(|()| remove_if_present(&with_suffix(path, "-shm")))
            .and_then(|()| std::fs::rename(&temp, path));
        if let Err(e) = swap {
            remove_database(&temp);
            return Err(StoreError::IndexBuild(format!(
                "cannot replace {}: {e}",
                path.display()
            )));
        }
        Ok((Store::open(path)?, report))
    }

    /// `PRAGMA quick_check` of this index: `None` when healthy, else SQLite's findings (an
    /// error that is itself corruption counts as a finding).
    pub fn quick_check(&self) -> Result<Option<String>> {
        // Every page is read once: through the page cache, not the map (whose pages would
        // stay resident: +1 GB of peak RSS after a cold index of `default`).
        let _unmapped = crate::refresh::Unmapped::new(&self.conn)?;
        let rows = (|| {
            let mut st = self.conn.prepare("PRAGMA quick_check(3)")?;
            let rows = st
                .query_map([], |r| r.get::<_, String>(0))?
                .collect::<rusqlite::Result<Vec<String>>>();
            rows
        })();
        match rows {
            Ok(rows) => Ok(findings(&rows)),
            Err(e) if is_corrupt(&e) => Ok(Some(e.to_string())),
            Err(e) => Err(StoreError::db(format!("check {}", self.path.display()))(e)),
        }
    }
}
