//! The nothing-changed refresh without reading the index's rows (issue 16): a refresh that saw
//! every given file and every indexed source in one transaction, and left no indexed source
//! unchecked, stores a digest of what it was given (each file's provider, path, key, size,
//! mtime and side-file signature, the parser version and the options) with the index's write
//! generation (`meta.list_gen`, bumped by triggers on every write to `files` / `sessions`, of
//! any build: [`crate::listcache`]). A later refresh given the same files with the same
//! digest, while the generation is unchanged, would find every file unchanged and no source to
//! mark: it returns at once, without the bulk read of every row.
//!
//! What the generation does not see: an older build's writer updating only a file's stored
//! mtime (a `touch` with the same head); the skip then leaves that row's mtime as it was, which
//! changes nothing read.

use rusqlite::{params, Connection, OptionalExtension};
use scry_source::SourceFile;
use xxhash_rust::xxh3::Xxh3;

use super::RefreshOptions;
use crate::error::{Result, StoreError};
use crate::schema::PARSER_VERSION;

/// The digest of a refresh of `files` (with their side-file signatures `sigs`) under `opts`.
pub(super) fn digest(files: &[SourceFile], sigs: &[i64], opts: &RefreshOptions) -> i64 {
    let mut h = Xxh3::new();
    h.update(&PARSER_VERSION.to_le_bytes());
    h.update(&[u8::from(opts.force), u8::from(opts.complete_all)]);
    for p in &opts.complete_for {
        h.update(p.as_str().as_bytes());
        h.update(&[0]);
    }
    h.update(&(files.len() as u64).to_le_bytes());
    for (f, sig) in files.iter().zip(sigs) {
        h.update(f.provider.as_str().as_bytes());
        h.update(&[0]);
        h.update(f.path.as_os_str().as_encoded_bytes());
        h.update(&[0]);
        h.update(f.key.as_deref().unwrap_or("").as_bytes());
        h.update(&[0]);
        h.update(&f.size.to_le_bytes());
        h.update(&f.mtime_ns.to_le_bytes());
        h.update(&sig.to_le_bytes());
    }
    h.digest() as i64
}

/// Whether the last stored refresh had digest `digest` and nothing was written since.
pub(super) fn unchanged(conn: &Connection, digest: i64) -> bool {
    let read = conn
        .query_row(
            "SELECT (SELECT value FROM meta WHERE key = 'refresh_digest'), \
                    (SELECT value FROM meta WHERE key = 'refresh_gen'), \
                    (SELECT value FROM meta WHERE key = 'list_gen')",
            [],
            |r| {
                Ok((
                    r.get::<_, Option<i64>>(0)?,
                    r.get::<_, Option<i64>>(1)?,
                    r.get::<_, Option<i64>>(2)?,
                ))
            },
        )
        .optional();
    matches!(read, Ok(Some((Some(d), Some(g), Some(now)))) if d == digest && g == now)
}

/// Stores `digest` with the generation as this transaction leaves it (called inside the
/// refresh's one transaction, after its own writes). Never cleared: a later write bumps the
/// generation, and without one the index is as this refresh left it.
pub(super) fn store(conn: &Connection, digest: i64) -> Result<()> {
    let fail = || StoreError::db("store refresh digest");
    conn.execute(
        "INSERT OR REPLACE INTO meta(key, value) VALUES('refresh_digest', ?1)",
        params![digest],
    )
    .map_err(fail())?;
    conn.execute(
        "INSERT OR REPLACE INTO meta(key, value) \
         SELECT 'refresh_gen', value FROM meta WHERE key = 'list_gen'",
        [],
    )
    .map_err(fail())?;
    Ok(())
}
