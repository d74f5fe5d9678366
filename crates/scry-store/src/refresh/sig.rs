//! Fingerprints of a source file beyond its stat: hashes of its head and of the bytes before a
//! resume point, and the signature of its side files (and a SQLite source's `-wal`).

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use scry_source::{file_stat, SourceFile};

use super::HEAD_BYTES;
use xxhash_rust::xxh3::Xxh3;

/// xxh3 of the bytes in `[start, end)` of `path` (fewer when the file is shorter), and how many
/// bytes were read.
fn hash_range(h: &mut Xxh3, file: &mut File, start: u64, end: u64) -> std::io::Result<u64> {
    file.seek(SeekFrom::Start(start))?;
    let mut left = end.saturating_sub(start);
    let mut buf = [0u8; 16 * 1024];
    let mut read = 0;
    while left > 0 {
        let want = usize::try_from(left.min(buf.len() as u64)).unwrap_or(buf.len());
        let n = file.read(&mut buf[..want])?;
        if n == 0 {
            break;
        }
        h.update(&buf[..n]);
        left -= n as u64;
        read += n as u64;
    }
    Ok(read)
}

/// xxh3 of the first 64 KB of `path`.
pub(super) fn head_hash(path: &Path, bytes: &mut u64) -> i64 {
    let mut h = Xxh3::new();
    if let Ok(mut f) = File::open(path) {
        if let Ok(n) = hash_range(&mut h, &mut f, 0, HEAD_BYTES) {
            *bytes += n;
        }
    }
    h.digest() as i64
}

/// The hash proving the bytes before `offset` are unchanged: xxh3 over the first
/// `min(64 KB, offset)` bytes and the 64 KB window ending at `offset`, plus `offset` itself.
/// `None` when the file is shorter than `offset` or unreadable.
pub(super) fn prefix_hash(path: &Path, offset: u64, bytes: &mut u64) -> Option<i64> {
    let mut f = File::open(path).ok()?;
    let mut h = Xxh3::new();
    h.update(&offset.to_le_bytes());
    let head_end = offset.min(HEAD_BYTES);
    let a = hash_range(&mut h, &mut f, 0, head_end).ok()?;
    let win_start = offset.saturating_sub(HEAD_BYTES).max(head_end);
    let b = hash_range(&mut h, &mut f, win_start, offset).ok()?;
    *bytes += a + b;
    (a + b == head_end + (offset - win_start)).then(|| h.digest() as i64)
}

/// A signature of the side files' paths, sizes and mtimes (stat only). For a SQLite source the
/// `-wal` file counts too: a WAL-mode database can change without touching the main file.
pub(super) fn related_signature(file: &SourceFile) -> i64 {
    side_signature(&file.path, file.key.is_some(), &file.related)
}

/// Whether the file name of `path` has a SQLite database's extension (`db`, `sqlite`,
/// `sqlite3`, `vscdb`), as [`Path::extension`] finds it, from the bytes: it runs for every
/// source of every refresh.
fn is_db_name(path: &Path) -> bool {
    let b = path.as_os_str().as_encoded_bytes();
    let name = &b[b.iter().rposition(|&c| c == b'/').map_or(0, |i| i + 1)..];
    match name.iter().rposition(|&c| c == b'.') {
        Some(i) if i > 0 => matches!(&name[i + 1..], b"db" | b"sqlite" | b"sqlite3" | b"vscdb"),
        _ => false,
    }
}

/// [`related_signature`] of the source at `path` (`keyed`: a session inside a multi-session
/// store) with side files `related`.
pub(crate) fn side_signature(path: &Path, keyed: bool, related: &[PathBuf]) -> i64 {
    let is_db = keyed || is_db_name(path);
    let wal = is_db.then(|| {
        let mut p = path.to_path_buf().into_os_string();
        p.push("-wal");
        PathBuf::from(p)
    });
    let related: Vec<&PathBuf> = related.iter().chain(wal.as_ref()).collect();
    if related.is_empty() {
        return 0;
    }
    let mut h = Xxh3::new();
    for p in related {
        let (size, mtime) = file_stat(p);
        h.update(p.as_os_str().as_encoded_bytes());
        h.update(&size.to_le_bytes());
        h.update(&mtime.to_le_bytes());
    }
    h.digest() as i64
}

#[cfg(test)]
mod tests {
    use super::is_db_name;
    use std::path::Path;

    #[test]
    fn db_names_are_those_whose_path_extension_names_sqlite() {
        for p in [
            "/a/b.db",
            "/a/state.vscdb",
            "x.sqlite3",
            "/a/b.sqlite",
            "/a/.db",
            "/a/b.db-wal",
            "/a/b.jsonl",
            "/a.db/b",
            "/a/b.",
            "/a/..",
            "db",
            "/a/b.DB",
            "/a/b.tar.db",
        ] {
            let by_path = Path::new(p)
                .extension()
                .and_then(|e| e.to_str())
                .is_some_and(|e| matches!(e, "db" | "sqlite" | "sqlite3" | "vscdb"));
            assert_eq!(is_db_name(Path::new(p)), by_path, "{p}");
        }
    }
}
