//! Read-only access to agents' SQLite stores, including the rows still sitting in a live
//! write-ahead log (`-wal`), without writing anything next to the agent's files.
//!
//! [`open_snapshot`] picks one of two ways:
//! - **no `-wal`** (or an empty one): the database is opened `file:…?mode=ro&immutable=1` in
//!   place. SQLite then takes no lock and creates no `-wal` / `-shm` / journal, which also works
//!   in a directory without write bits (SPEC P1). This is the fast path.
//! - **a non-empty `-wal`**: the database and its `-wal` (never the `-shm`, which is only an
//!   index SQLite rebuilds from the WAL) are copied into a private directory (mode 0700) under
//!   the system temporary directory; the copy is opened read-write there so SQLite replays the
//!   WAL, converted to a plain rollback-journal database (`journal_mode=DELETE` checkpoints the
//!   WAL into it), and then opened `immutable=1` like the fast path. A write in progress while
//!   copying is detected by statting both files before and after; the copy is retried (three
//!   tries, then the last copy is used). Frames after the WAL's last commit are ignored by
//!   SQLite, as a reader of the live database would ignore them.
//!
//! The copy is shared: a process-wide cache keeps one prepared copy per database (up to
//! [`CACHE_MAX`]) for as long as the database's and its WAL's size and mtime stay the same, so
//! listing and then parsing N sessions of one store copies it once, not 2N times. A copy is
//! deleted when it is replaced or evicted and no open [`Snapshot`] uses it any more. Copies a
//! process left behind when it exited (the cache is never dropped) are deleted by the next
//! process that makes a copy: their directory names carry the pid, and on Linux a directory
//! whose pid is no longer running is removed.
//!
//! When the copy cannot be made (no space, unreadable WAL) the database is read in place with
//! `immutable=1` and [`Snapshot::wal_note`] says what was not read, so it is never silent.

use std::collections::VecDeque;
use std::ffi::OsString;
use std::fs;
use std::io;
use std::ops::Deref;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Once};

use percent_encoding::{percent_encode, AsciiSet, CONTROLS};
use rusqlite::{Connection, OpenFlags};

use crate::source::file_stat;

/// How many prepared copies the process-wide cache keeps at most.
pub const CACHE_MAX: usize = 4;

/// Prefix of the private directories copies are made in (`scry-sqlite-<pid>-<n>`).
const DIR_PREFIX: &str = "scry-sqlite-";

/// Characters that must be escaped in the path of an SQLite `file:` URI.
const URI_PATH: &AsciiSet = &CONTROLS
    .add(b' ')
    .add(b'%')
    .add(b'?')
    .add(b'#')
    .add(b'"')
    .add(b'<')
    .add(b'>');

/// `path` with `suffix` appended to its file name (`kilo.db` → `kilo.db-wal`).
pub fn side_file(path: &Path, suffix: &str) -> PathBuf {
    let mut s: OsString = path.as_os_str().to_owned();
    s.push(suffix);
    PathBuf::from(s)
}

/// True when `path` has a non-empty `-wal` beside it (rows SQLite has not checkpointed yet).
pub fn has_wal(path: &Path) -> bool {
    fs::metadata(side_file(path, "-wal")).is_ok_and(|m| m.len() > 0)
}

/// The `file:` URI opening `path` read-only and immutable (byte-exact for non-UTF-8 paths:
/// SQLite decodes `%XX` to bytes).
pub fn immutable_uri(path: &Path) -> String {
    format!(
        "file:{}?mode=ro&immutable=1",
        percent_encode(path.as_os_str().as_encoded_bytes(), URI_PATH)
    )
}

/// Why a database could not be opened at all.
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct OpenError {
    /// What went wrong (SQLite's or the file system's words).
    pub message: String,
}

/// An open, read-only view of an SQLite store: a [`Connection`] (it derefs to one) on the
/// database itself or on a private, WAL-replayed copy of it.
#[derive(Debug)]
pub struct Snapshot {
    conn: Connection,
    copy: Option<Arc<CopyDir>>,
    note: Option<String>,
}

impl Snapshot {
    /// True when the rows of a live `-wal` were read (through a private copy).
    pub fn read_wal(&self) -> bool {
        self.copy.is_some()
    }

    /// Set when a non-empty `-wal` exists but could not be read: says what is missing and why.
    pub fn wal_note(&self) -> Option<&str> {
        self.note.as_deref()
    }

    /// The connection.
    pub fn conn(&self) -> &Connection {
        &self.conn
    }
}

impl Deref for Snapshot {
    type Target = Connection;

    fn deref(&self) -> &Connection {
        &self.conn
    }
}

/// Opens `path` read-only with what its `-wal` holds (see the module doc). Nothing is written,
/// locked or created beside `path`.
pub fn open_snapshot(path: &Path) -> Result<Snapshot, OpenError> {
    if !has_wal(path) {
        return Ok(Snapshot {
            conn: open_immutable(path)?,
            copy: None,
            note: None,
        });
    }
    match cached_copy(path) {
        Ok(copy) => {
            let conn = open_immutable(&copy.db)?;
            Ok(Snapshot {
                conn,
                copy: Some(copy),
                note: None,
            })
        }
        Err(e) => {
            let wal = side_file(path, "-wal");
            let note = format!(
                "{} could not be read through a private copy ({e}); rows not yet checkpointed \
                 into the database are missing",
                wal.display()
            );
            Ok(Snapshot {
                conn: open_immutable(path)?,
                copy: None,
                note: Some(note),
            })
        }
    }
}

/// Opens `path` in place, read-only and immutable.
pub fn open_immutable(path: &Path) -> Result<Connection, OpenError> {
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY
        | OpenFlags::SQLITE_OPEN_URI
        | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    Connection::open_with_flags(immutable_uri(path), flags).map_err(|e| OpenError {
        message: e.to_string(),
    })
}

/// Size and mtime of the database and of its `-wal`: what a prepared copy was made from.
type Fingerprint = ((u64, i64), (u64, i64));

fn fingerprint(path: &Path) -> Fingerprint {
    (file_stat(path), file_stat(&side_file(path, "-wal")))
}

/// A private directory holding one prepared copy; deleted when the last user drops it.
#[derive(Debug)]
struct CopyDir {
    dir: PathBuf,
    db: PathBuf,
}

impl Drop for CopyDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.dir);
    }
}

/// One cache entry: the database (as given), what it looked like, its prepared copy.
type Entry = (PathBuf, Fingerprint, Arc<CopyDir>);

static CACHE: Mutex<VecDeque<Entry>> = Mutex::new(VecDeque::new());
static COUNTER: AtomicU64 = AtomicU64::new(0);
static SWEEP: Once = Once::new();

/// The prepared copy of `path` for its current fingerprint, made when there is none.
fn cached_copy(path: &Path) -> io::Result<Arc<CopyDir>> {
    let fp = fingerprint(path);
    let mut cache = CACHE.lock().unwrap_or_else(|p| p.into_inner());
    if let Some((_, _, copy)) = cache.iter().find(|(p, f, _)| p == path && *f == fp) {
        return Ok(Arc::clone(copy));
    }
    SWEEP.call_once(sweep_dead);
    let copy = Arc::new(make_copy(path)?);
    cache.retain(|(p, _, _)| p != path);
    // The fingerprint recorded is the one before copying: a change during the copy makes the
    // next open copy again.
    cache.push_back((path.to_path_buf(), fp, Arc::clone(&copy)));
    while cache.len() > CACHE_MAX {
        cache.pop_front();
    }
    Ok(copy)
}

/// Copies `path` and its `-wal` into a new private directory and replays the WAL there.
fn make_copy(path: &Path) -> io::Result<CopyDir> {
    let dir = private_dir()?;
    let copy = CopyDir {
        db: dir.join("store.db"),
        dir,
    };
    let wal = side_file(path, "-wal");
    let copy_wal = side_file(&copy.db, "-wal");
    for attempt in 0..3 {
        let before = fingerprint(path);
        fs::copy(path, &copy.db)?;
        fs::copy(&wal, &copy_wal)?;
        if fingerprint(path) == before || attempt == 2 {
            break;
        }
    }
    for f in [&copy.db, &copy_wal] {
        make_writable(f)?;
    }
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = Connection::open_with_flags(&copy.db, flags).map_err(io::Error::other)?;
    // Replays the WAL and folds it into the copy; the copy then needs no side files.
    let mode: String = conn
        .query_row("PRAGMA journal_mode=DELETE", [], |r| r.get(0))
        .map_err(io::Error::other)?;
    drop(conn);
    if !mode.eq_ignore_ascii_case("delete") {
        return Err(io::Error::other(format!(
            "the copy stayed in journal mode '{mode}'"
        )));
    }
    Ok(copy)
}

/// A new directory `scry-sqlite-<pid>-<n>` under the temporary directory, readable only by us.
fn private_dir() -> io::Result<PathBuf> {
    let base = std::env::temp_dir();
    loop {
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let dir = base.join(format!("{DIR_PREFIX}{}-{n}", std::process::id()));
        let mut b = fs::DirBuilder::new();
        #[cfg(unix)]
        {
            use std::os::unix::fs::DirBuilderExt;
            b.mode(0o700);
        }
        match b.create(&dir) {
            Ok(()) => return Ok(dir),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
}

/// A copy keeps the source's permission bits: a read-only source gives a read-only copy,
/// which SQLite could not replay the WAL into.
fn make_writable(path: &Path) -> io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(path, fs::Permissions::from_mode(0o600))
    }
    #[cfg(not(unix))]
    {
        let mut p = fs::metadata(path)?.permissions();
        #[allow(clippy::permissions_set_readonly_false)]
        p.set_readonly(false);
        fs::set_permissions(path, p)
    }
}

/// Removes copies left by processes that are no longer running (Linux: `/proc/<pid>`).
fn sweep_dead() {
    if !Path::new("/proc/self").exists() {
        return;
    }
    let me = std::process::id();
    let Ok(rd) = fs::read_dir(std::env::temp_dir()) else {
        return;
    };
    for e in rd.flatten() {
        let name = e.file_name();
        let Some(rest) = name.to_str().and_then(|n| n.strip_prefix(DIR_PREFIX)) else {
            continue;
        };
        let Some(pid) = rest.split('-').next().and_then(|p| p.parse::<u32>().ok()) else {
            continue;
        };
        if pid != me && !Path::new(&format!("/proc/{pid}")).exists() {
            let _ = fs::remove_dir_all(e.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A WAL-mode database in `dir` with `n` rows committed only to its `-wal` (the writer
    /// connection is returned so the WAL stays un-checkpointed).
    fn wal_db(dir: &Path, n: i64) -> (PathBuf, Connection) {
        let path = dir.join("s.db");
        let w = Connection::open(&path).unwrap();
        w.execute_batch("PRAGMA journal_mode=WAL; PRAGMA wal_autocheckpoint=0; CREATE TABLE t(x);")
            .unwrap();
        w.execute_batch("PRAGMA wal_checkpoint(TRUNCATE);").unwrap();
        for i in 0..n {
            w.execute("INSERT INTO t VALUES (?1)", [i]).unwrap();
        }
        (path, w)
    }

    fn listing(dir: &Path) -> Vec<(String, u64, i64)> {
        let mut v: Vec<_> = fs::read_dir(dir)
            .unwrap()
            .flatten()
            .map(|e| {
                let (s, m) = file_stat(&e.path());
                (e.file_name().to_string_lossy().into_owned(), s, m)
            })
            .collect();
        v.sort();
        v
    }

    #[test]
    fn wal_rows_are_read_from_a_private_copy_and_nothing_changes_beside_the_store() {
        let tmp = tempfile::tempdir().unwrap();
        let (path, writer) = wal_db(tmp.path(), 5);
        assert!(has_wal(&path));
        let before = listing(tmp.path());
        let count = |c: &Connection| -> i64 {
            c.query_row("SELECT count(*) FROM t", [], |r| r.get(0))
                .unwrap()
        };
        // In place and immutable, the WAL's rows are invisible.
        assert_eq!(count(&open_immutable(&path).unwrap()), 0);
        let snap = open_snapshot(&path).unwrap();
        assert!(snap.read_wal() && snap.wal_note().is_none());
        assert_eq!(count(&snap), 5);
        assert_eq!(
            listing(tmp.path()),
            before,
            "files beside the store unchanged"
        );
        // A second open reuses the copy; a write makes the next open copy again.
        let again = open_snapshot(&path).unwrap();
        assert!(Arc::ptr_eq(
            snap.copy.as_ref().unwrap(),
            again.copy.as_ref().unwrap()
        ));
        let dir = snap.copy.as_ref().unwrap().dir.clone();
        writer.execute("INSERT INTO t VALUES (99)", []).unwrap();
        let after = open_snapshot(&path).unwrap();
        assert_eq!(count(&after), 6);
        assert!(!Arc::ptr_eq(
            snap.copy.as_ref().unwrap(),
            after.copy.as_ref().unwrap()
        ));
        assert!(dir.is_dir(), "kept while a snapshot uses it");
        drop((snap, again));
        assert!(
            !dir.exists(),
            "the replaced copy is deleted with its last user"
        );
        let copy_dir = after.copy.as_ref().unwrap().dir.clone();
        assert_eq!(
            listing(&copy_dir)
                .into_iter()
                .map(|e| e.0)
                .collect::<Vec<_>>(),
            ["store.db"],
            "the copy needs no side files"
        );
    }

    #[test]
    fn without_a_wal_the_store_is_opened_in_place() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("p.db");
        Connection::open(&path)
            .unwrap()
            .execute_batch("CREATE TABLE t(x); INSERT INTO t VALUES (1);")
            .unwrap();
        let before = listing(tmp.path());
        let snap = open_snapshot(&path).unwrap();
        assert!(!snap.read_wal());
        let n: i64 = snap
            .query_row("SELECT count(*) FROM t", [], |r| r.get(0))
            .unwrap();
        assert_eq!(n, 1);
        assert_eq!(listing(tmp.path()), before);
        assert!(open_snapshot(&tmp.path().join("nope.db")).is_err());
    }

    #[test]
    fn side_file_appends_to_the_name() {
        assert_eq!(
            side_file(Path::new("/a/kilo.db"), "-wal"),
            Path::new("/a/kilo.db-wal")
        );
        assert!(immutable_uri(Path::new("/a b/x?.db")).starts_with("file:/a%20b/x%3F.db?mode=ro"));
    }
}
