//! cursor-agent's `store.db` (`~/.cursor/chats/<hash>/<agentId>/store.db`), read-only.
//!
//! Tables: `meta(key, value)` where a value is hex-encoded JSON (`{agentId, name, mode,
//! createdAt (ms), lastUsedModel, latestRootBlobId}`), and `blobs(id, data)`, content-addressed.
//! Blobs that are JSON messages (`{role, content}`) are decoded (in rowid order, i.e. insertion
//! order); the others (binary tree nodes) are counted in one warning. The only sample we have
//! (third-party `cursor-agent_store.db`) holds meta and no blobs.
//!
//! The database is opened with `mode=ro&immutable=1`: no lock, no `-wal` / `-shm` files, safe
//! on a read-only directory. Meta keys that look like credentials are never decoded.

use std::path::Path;

use rusqlite::{Connection, OpenFlags};
use scry_model::{RawRef, Timestamp, Warning, WarningKind};
use scry_source::json::str_of;
use scry_source::{time, Emitter, SourceError};
use serde_json::Value;

use crate::transcript::{Mapper, Seed};

/// What `meta` says about the chat.
#[derive(Debug, Default, Clone)]
pub struct StoreMeta {
    /// `agentId`.
    pub agent_id: Option<String>,
    /// `name` (the chat's title).
    pub name: Option<String>,
    /// `createdAt`.
    pub created: Option<Timestamp>,
    /// `lastUsedModel`.
    pub model: Option<String>,
}

/// Opens `path` read-only without touching it.
pub fn open(path: &Path) -> Result<Connection, SourceError> {
    // Byte-wise, so a path that is not UTF-8 is opened exactly (SQLite decodes %XX to bytes).
    let mut uri = String::from("file:");
    for &b in path.as_os_str().as_encoded_bytes() {
        match b {
            b'%' | b'?' | b'#' | b' ' | 0..=0x1f | 0x7f.. => {
                uri.push_str(&format!("%{b:02x}"));
            }
            b => uri.push(char::from(b)),
        }
    }
    uri.push_str("?mode=ro&immutable=1");
    Connection::open_with_flags(
        &uri,
        OpenFlags::SQLITE_OPEN_READ_ONLY
            | OpenFlags::SQLITE_OPEN_URI
            | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(|e| SourceError::format(path, format!("cannot open the chat store ({e})")))
}

/// A meta key that may hold a credential: never decoded.
fn is_secret_key(key: &str) -> bool {
    let k = key.to_ascii_lowercase();
    [
        "auth",
        "token",
        "secret",
        "apikey",
        "api_key",
        "password",
        "encryptionkey",
    ]
    .iter()
    .any(|s| k.contains(s))
}

/// Decodes a meta value: hex of JSON, or plain JSON.
fn decode_meta(value: &[u8]) -> Option<Value> {
    let text = std::str::from_utf8(value).ok()?.trim();
    if let Ok(v) = serde_json::from_str::<Value>(text) {
        if v.is_object() {
            return Some(v);
        }
    }
    if text.len() % 2 != 0 || !text.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let bytes: Vec<u8> = (0..text.len())
        .step_by(2)
        .filter_map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok())
        .collect();
    serde_json::from_slice(&bytes).ok()
}

/// Reads `meta`.
pub fn read_meta(conn: &Connection, path: &Path, warnings: &mut Vec<Warning>) -> StoreMeta {
    let mut meta = StoreMeta::default();
    let rows: Vec<(String, Vec<u8>)> = match conn
        .prepare("SELECT key, CAST(value AS BLOB) FROM meta")
        .and_then(|mut st| {
            st.query_map([], |r| {
                Ok((r.get::<_, String>(0)?, r.get::<_, Vec<u8>>(1)?))
            })?
            .collect()
        }) {
        Ok(rows) => rows,
        Err(e) => {
            warnings.push(Warning::at(
                WarningKind::Unreadable,
                format!("cannot read table meta ({e})"),
                path,
                None,
            ));
            return meta;
        }
    };
    for (key, value) in rows {
        if is_secret_key(&key) {
            continue;
        }
        let Some(v) = decode_meta(&value) else {
            warnings.push(Warning::at(
                WarningKind::CorruptRecord,
                format!("meta value of key '{key}' is neither hex JSON nor JSON"),
                path,
                None,
            ));
            continue;
        };
        let s = |k: &str| str_of(&v, k).map(String::from);
        meta.agent_id = meta.agent_id.or(s("agentId"));
        meta.name = meta.name.or(s("name")).filter(|n| !n.trim().is_empty());
        meta.model = meta.model.or(s("lastUsedModel"));
        meta.created = meta
            .created
            .or_else(|| v.get("createdAt").and_then(time::from_value));
    }
    meta
}

/// Emits events for the JSON message blobs; counts the rest in one warning.
pub fn emit_blobs(
    conn: &Connection,
    path: &Path,
    file: u32,
    out: &mut Emitter<'_>,
) -> Vec<Warning> {
    let mut warnings = Vec::new();
    let mut mapper = Mapper::new(path.to_path_buf());
    let (mut messages, mut other_json, mut binary, mut binary_bytes) = (0u64, 0u64, 0u64, 0u64);
    let res = conn
        .prepare("SELECT rowid, id, CAST(data AS BLOB) FROM blobs ORDER BY rowid")
        .and_then(|mut st| {
            let mut rows = st.query([])?;
            while let Some(row) = rows.next()? {
                let rowid: i64 = row.get(0)?;
                let id: String = row.get(1)?;
                let data: Vec<u8> = row.get::<_, Option<Vec<u8>>>(2)?.unwrap_or_default();
                let first = data.iter().find(|b| !b.is_ascii_whitespace()).copied();
                let json = match first {
                    Some(b'{') | Some(b'[') => serde_json::from_slice::<Value>(&data).ok(),
                    _ => None,
                };
                match json {
                    Some(v) if v.get("role").is_some() => {
                        messages += 1;
                        let raw = RawRef {
                            file,
                            offset: 0,
                            len: data.len() as u64,
                            line: rowid.max(0) as u64,
                        };
                        mapper.record(&v, Seed::Blob(&id), raw, out);
                    }
                    Some(_) => other_json += 1,
                    None => {
                        binary += 1;
                        binary_bytes += data.len() as u64;
                    }
                }
            }
            Ok(())
        });
    if let Err(e) = res {
        warnings.push(Warning::at(
            WarningKind::Unreadable,
            format!("cannot read table blobs ({e})"),
            path,
            None,
        ));
    }
    warnings.extend(mapper.finish(out));
    if other_json + binary > 0 {
        warnings.push(Warning::at(
            WarningKind::Other,
            format!(
                "{messages} blob(s) decoded as messages; {other_json} other JSON blob(s) and \
                 {binary} binary blob(s) ({binary_bytes} bytes, the store's tree nodes) not decoded"
            ),
            path,
            None,
        ));
    }
    warnings
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meta_values_decode_from_hex_and_secrets_are_skipped() {
        let v = decode_meta(b"7b2261223a317d").unwrap();
        assert_eq!(v["a"], 1);
        assert!(decode_meta(b"zz").is_none());
        assert!(is_secret_key("cursorAuth/accessToken"));
        assert!(!is_secret_key("0"));
    }
}
