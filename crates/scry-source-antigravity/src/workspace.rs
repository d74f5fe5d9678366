//! The workspace (cwd) of an Antigravity session. The transcript has no cwd field, so it comes
//! from, in order:
//!
//! 1. the conversations database `conversations/<id>.db` (SQLite, opened read-only with
//!    `mode=ro&immutable=1`): a metadata blob (`trajectory_metadata_blob`, or any BLOB column
//!    whose name contains `metadata`) is a protobuf message whose field 1.1 is the open folder
//!    as a `file://` URI (1.2 the outer workspace root) — decoded with the small wire-format walk
//!    below, no protobuf dependency; source `conversations_db`;
//! 2. absolute paths in tool arguments: walking up from each to the nearest directory holding
//!    `.git` on this machine (source `derived:git_root`);
//! 3. the most frequent `Cwd` argument of the command tool (`derived:command_cwd`);
//! 4. the longest common directory of those paths (`derived:common_dir`).
//!
//! Everything after 1 is an inference and says so: the reader emits one Meta `workspace` event
//! in the preamble with `data.source` and the evidence paths.

use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};

use serde_json::Value;

/// Where a workspace came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Workspace {
    /// The directory.
    pub cwd: String,
    /// `conversations_db`, `derived:git_root`, `derived:command_cwd` or `derived:common_dir`.
    pub source: &'static str,
    /// The paths that led to it (at most a few).
    pub evidence: Vec<String>,
}

/// Reads a protobuf varint at `*pos`.
fn varint(buf: &[u8], pos: &mut usize) -> Option<u64> {
    let mut v: u64 = 0;
    for shift in (0..64).step_by(7) {
        let b = *buf.get(*pos)?;
        *pos += 1;
        v |= u64::from(b & 0x7f) << shift;
        if b & 0x80 == 0 {
            return Some(v);
        }
    }
    None
}

/// The bytes of the first length-delimited field `field` of the message `buf`.
pub fn proto_field(buf: &[u8], field: u64) -> Option<&[u8]> {
    let mut pos = 0;
    while pos < buf.len() {
        let key = varint(buf, &mut pos)?;
        let (num, wire) = (key >> 3, key & 7);
        match wire {
            0 => {
                varint(buf, &mut pos)?;
            }
            1 => pos = pos.checked_add(8)?,
            2 => {
                let len = usize::try_from(varint(buf, &mut pos)?).ok()?;
                let end = pos.checked_add(len)?;
                let bytes = buf.get(pos..end)?;
                if num == field {
                    return Some(bytes);
                }
                pos = end;
            }
            5 => pos = pos.checked_add(4)?,
            _ => return None,
        }
    }
    None
}

/// A path from a `file://` URI (percent-decoded); plain absolute paths pass through.
pub fn path_of_uri(s: &str) -> Option<String> {
    let rest = s.strip_prefix("file://").unwrap_or(s);
    let decoded = percent_encoding::percent_decode_str(rest)
        .decode_utf8()
        .ok()?;
    decoded.starts_with('/').then(|| decoded.into_owned())
}

/// The folder recorded in a trajectory metadata blob (field 1.1, else 1.2).
pub fn folder_from_metadata(blob: &[u8]) -> Option<String> {
    let outer = proto_field(blob, 1)?;
    [1, 2].iter().find_map(|f| {
        let s = std::str::from_utf8(proto_field(outer, *f)?).ok()?;
        path_of_uri(s)
    })
}

/// Characters escaped in the path of a SQLite `file:` URI.
const URI_ESCAPES: &percent_encoding::AsciiSet = &percent_encoding::CONTROLS
    .add(b' ')
    .add(b'?')
    .add(b'#')
    .add(b'%');

/// Reads the workspace from a conversations database; `None` when unreadable or absent.
pub fn from_db(db: &Path) -> Option<Workspace> {
    use rusqlite::{Connection, OpenFlags};
    // Byte-wise, so a path that is not UTF-8 is opened exactly (SQLite decodes %XX to bytes).
    let escaped: String =
        percent_encoding::percent_encode(db.as_os_str().as_encoded_bytes(), URI_ESCAPES)
            .to_string();
    let uri = format!("file:{escaped}?mode=ro&immutable=1");
    let conn = Connection::open_with_flags(
        uri,
        OpenFlags::SQLITE_OPEN_READ_ONLY
            | OpenFlags::SQLITE_OPEN_URI
            | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .ok()?;
    let tables: Vec<String> = conn
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table'")
        .ok()?
        .query_map([], |r| r.get::<_, String>(0))
        .ok()?
        .flatten()
        .collect();
    for table in tables {
        let quoted = table.replace('"', "\"\"");
        let cols: Vec<String> = match conn.prepare(&format!("PRAGMA table_info(\"{quoted}\")")) {
            Ok(mut st) => st
                .query_map([], |r| r.get::<_, String>(1))
                .map(|rows| rows.flatten().collect())
                .unwrap_or_default(),
            Err(_) => continue,
        };
        for col in cols
            .iter()
            .filter(|c| c.to_ascii_lowercase().contains("metadata"))
        {
            let qc = col.replace('"', "\"\"");
            let Ok(mut st) = conn.prepare(&format!("SELECT \"{qc}\" FROM \"{quoted}\" LIMIT 64"))
            else {
                continue;
            };
            let Ok(rows) = st.query_map([], |r| r.get::<_, Option<Vec<u8>>>(0)) else {
                continue;
            };
            for blob in rows.flatten().flatten() {
                if let Some(cwd) = folder_from_metadata(&blob) {
                    return Some(Workspace {
                        cwd,
                        source: "conversations_db",
                        evidence: vec![format!("{}:{table}.{col}", db.display())],
                    });
                }
            }
        }
    }
    None
}

/// Collects absolute paths (and `Cwd` values) from decoded tool arguments.
#[derive(Debug, Default)]
pub struct PathEvidence {
    /// Absolute paths seen, in order, deduplicated (at most [`PathEvidence::MAX`]).
    pub paths: Vec<String>,
    /// `Cwd` argument values with their counts.
    pub cwds: BTreeMap<String, u64>,
}

impl PathEvidence {
    /// How many paths are kept.
    pub const MAX: usize = 512;

    /// Adds the paths found in one call's arguments.
    pub fn add_args(&mut self, args: &Value) {
        let Value::Object(map) = args else { return };
        for (k, v) in map {
            let Some(s) = v.as_str() else { continue };
            let Some(p) = path_of_uri(s.trim()) else {
                continue;
            };
            if p.contains('\n') {
                continue;
            }
            if k.eq_ignore_ascii_case("cwd") {
                *self.cwds.entry(p.clone()).or_default() += 1;
            }
            if self.paths.len() < Self::MAX && !self.paths.contains(&p) {
                self.paths.push(p);
            }
        }
    }

    /// The workspace these paths point at, if any.
    pub fn derive(&self) -> Option<Workspace> {
        for p in &self.paths {
            let mut cur = Some(Path::new(p));
            while let Some(dir) = cur {
                if dir.join(".git").exists() {
                    return Some(Workspace {
                        cwd: dir.display().to_string(),
                        source: "derived:git_root",
                        evidence: vec![p.clone()],
                    });
                }
                cur = dir.parent();
            }
        }
        // The most frequent `Cwd` (ties: the first in path order).
        if let Some((cwd, _)) = self
            .cwds
            .iter()
            .max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0)))
        {
            return Some(Workspace {
                cwd: cwd.clone(),
                source: "derived:command_cwd",
                evidence: vec![cwd.clone()],
            });
        }
        let common = common_dir(&self.paths)?;
        Some(Workspace {
            cwd: common,
            source: "derived:common_dir",
            evidence: self.paths.iter().take(5).cloned().collect(),
        })
    }
}

/// The longest common directory of absolute paths (a lone file path gives its parent).
pub fn common_dir(paths: &[String]) -> Option<String> {
    let first = paths.first()?;
    let comps = |p: &str| -> Vec<String> {
        Path::new(p)
            .components()
            .filter_map(|c| match c {
                Component::Normal(s) => Some(s.to_string_lossy().into_owned()),
                _ => None,
            })
            .collect()
    };
    let mut common = comps(first);
    if paths.len() == 1 {
        common.pop();
    }
    for p in paths.iter().skip(1) {
        let c = comps(p);
        let n = common
            .iter()
            .zip(c.iter())
            .take_while(|(a, b)| a == b)
            .count();
        common.truncate(n);
    }
    if common.is_empty() {
        return None;
    }
    let mut out = PathBuf::from("/");
    for c in common {
        out.push(c);
    }
    Some(out.display().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn enc_len(field: u8, bytes: &[u8]) -> Vec<u8> {
        let mut v = vec![(field << 3) | 2, bytes.len() as u8];
        v.extend_from_slice(bytes);
        v
    }

    #[test]
    fn metadata_blob_field_1_1() {
        let inner = [
            enc_len(1, b"file:///home/demo/my%20app"),
            enc_len(4, b"main"),
        ]
        .concat();
        let blob = [vec![0x08, 0x96, 0x01], enc_len(1, &inner)].concat();
        assert_eq!(
            folder_from_metadata(&blob).as_deref(),
            Some("/home/demo/my app")
        );
        assert_eq!(folder_from_metadata(&[0xff, 0xff]), None);
        assert_eq!(folder_from_metadata(&[]), None);
    }

    #[test]
    fn common_directory() {
        let p = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            common_dir(&p(&["/a/b/c.txt", "/a/b/d/e.txt"])).as_deref(),
            Some("/a/b")
        );
        assert_eq!(common_dir(&p(&["/a/b/c.txt"])).as_deref(), Some("/a/b"));
        assert_eq!(common_dir(&p(&["/x/1", "/y/2"])), None);
    }
}
