//! Finding Codex rollouts (directory walks and stat only) and reading thread names from
//! `session_index.jsonl`.
//!
//! Layout under `$CODEX_HOME` (default `~/.codex`):
//! - `sessions/YYYY/MM/DD/rollout-<ts>-<uuid>.jsonl` and `.jsonl.zst` (the plain file wins
//!   when both exist);
//! - `archived_sessions/rollout-*.jsonl[.zst]` (flat);
//! - `sessions/rollout-<date>-<uuid>.json` (TypeScript era);
//! - `session_index.jsonl`: `{id, thread_name, updated_at}` lines, appended on every rename.

use std::collections::HashSet;
use std::fs;
use std::io::BufReader;
use std::path::{Path, PathBuf};

use scry_model::{ProviderId, Warning, WarningKind};
use scry_source::lines::LineReader;
use scry_source::{entry_stat, SourceFile};
use serde_json::Value;

/// Name of the thread-name index in the Codex home.
pub(crate) const SESSION_INDEX: &str = "session_index.jsonl";

/// The rollout formats a file name announces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FileFormat {
    /// `.jsonl` or `.jsonl.zst` (bare or wrapped era).
    Lines,
    /// `.json` (TypeScript era document).
    Document,
}

/// The format of a rollout file name, `None` when the name is not a rollout.
pub(crate) fn format_of(name: &str) -> Option<FileFormat> {
    if name.ends_with(".jsonl") || name.ends_with(".jsonl.zst") {
        Some(FileFormat::Lines)
    } else if name.ends_with(".json") {
        Some(FileFormat::Document)
    } else {
        None
    }
}

/// The session id a rollout file name carries: the trailing UUID, else the stem after
/// `rollout-`.
pub(crate) fn id_from_name(name: &str) -> String {
    let stem = name
        .strip_suffix(".jsonl.zst")
        .or_else(|| name.strip_suffix(".jsonl"))
        .or_else(|| name.strip_suffix(".json"))
        .unwrap_or(name);
    if stem.len() >= 36 {
        if let Some(tail) = stem.get(stem.len() - 36..) {
            if is_uuid(tail) {
                return tail.to_string();
            }
        }
    }
    stem.strip_prefix("rollout-").unwrap_or(stem).to_string()
}

fn is_uuid(s: &str) -> bool {
    s.len() == 36
        && s.bytes().enumerate().all(|(i, b)| match i {
            8 | 13 | 18 | 23 => b == b'-',
            _ => b.is_ascii_hexdigit(),
        })
}

/// The Codex home a rollout path lives in: the parent of its `sessions` / `archived_sessions`
/// ancestor.
pub(crate) fn home_of(path: &Path) -> Option<PathBuf> {
    path.ancestors()
        .skip(1)
        .find(|a| {
            a.file_name()
                .is_some_and(|n| n == "sessions" || n == "archived_sessions")
        })
        .and_then(Path::parent)
        .map(Path::to_path_buf)
}

/// Walks `home` for rollouts. Unreadable directories become warnings.
pub(crate) fn walk(home: &Path, files: &mut Vec<SourceFile>, warnings: &mut Vec<Warning>) {
    let index = home.join(SESSION_INDEX);
    let related: Vec<PathBuf> = if index.is_file() {
        vec![index]
    } else {
        Vec::new()
    };
    let sessions = home.join("sessions");
    if sessions.is_dir() {
        collect_dir(&sessions, 3, &related, files, warnings);
    }
    let archived = home.join("archived_sessions");
    if archived.is_dir() {
        collect_dir(&archived, 0, &related, files, warnings);
    }
}

/// Collects rollouts in `dir`, descending `depth` more directory levels.
fn collect_dir(
    dir: &Path,
    depth: u32,
    related: &[PathBuf],
    files: &mut Vec<SourceFile>,
    warnings: &mut Vec<Warning>,
) {
    let entries = match fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) => {
            warnings.push(Warning::at(
                WarningKind::Unreadable,
                format!("cannot list directory: {e}"),
                dir,
                None,
            ));
            return;
        }
    };
    // A rollout is stat'ed here, relative to the open directory (not again by path).
    let mut names: Vec<(String, PathBuf, bool, (u64, i64))> = Vec::new();
    for entry in entries.flatten() {
        let path = entry.path();
        let is_dir = entry.file_type().map(|t| t.is_dir()).unwrap_or(false);
        if let Some(name) = path.file_name().and_then(|n| n.to_str()) {
            let stat = if !is_dir && name.starts_with("rollout-") {
                entry_stat(&entry)
            } else {
                (0, 0)
            };
            names.push((name.to_string(), path.clone(), is_dir, stat));
        }
    }
    names.sort();
    let plain: HashSet<&str> = names
        .iter()
        .filter(|(n, _, d, _)| !d && n.ends_with(".jsonl"))
        .map(|(n, _, _, _)| n.as_str())
        .collect();
    for (name, path, is_dir, stat) in &names {
        if *is_dir {
            if depth > 0 {
                collect_dir(path, depth - 1, related, files, warnings);
            }
            continue;
        }
        if !name.starts_with("rollout-") || format_of(name).is_none() {
            continue;
        }
        if let Some(base) = name.strip_suffix(".zst") {
            if plain.contains(base) {
                continue;
            }
        }
        let mut f =
            SourceFile::with_stat(ProviderId::Codex, id_from_name(name), path.clone(), *stat);
        f.related = related.to_vec();
        files.push(f);
    }
}

/// Every `thread_name` recorded for `id` in the index at `index`, oldest first. Lines that do
/// not mention the id are not parsed.
pub(crate) fn thread_names(index: &Path, id: &str) -> Vec<String> {
    let mut names = Vec::new();
    let Ok(file) = fs::File::open(index) else {
        return names;
    };
    let mut lines = LineReader::new(BufReader::new(file));
    let needle = id.as_bytes();
    if needle.is_empty() {
        return names;
    }
    while let Ok(Some(line)) = lines.next_line() {
        if !line.bytes.windows(needle.len()).any(|w| w == needle) {
            continue;
        }
        let Ok(v) = serde_json::from_slice::<Value>(line.bytes) else {
            continue;
        };
        let matches = v
            .get("id")
            .or_else(|| v.get("thread_id"))
            .and_then(Value::as_str)
            == Some(id);
        if let Some(name) = v
            .get("thread_name")
            .and_then(Value::as_str)
            .filter(|n| matches && !n.trim().is_empty())
        {
            names.push(name.to_string());
        }
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_from_names() {
        assert_eq!(
            id_from_name("rollout-2026-11-30T14-52-34-01a22cf1-805d-7161-bbbc-a2414caa5633.jsonl"),
            "01a22cf1-805d-7161-bbbc-a2414caa5633"
        );
        assert_eq!(
            id_from_name("rollout-2026-11-30-cfe1cd20-12ff-4528-b054-072fcba106db.json"),
            "cfe1cd20-12ff-4528-b054-072fcba106db"
        );
        assert_eq!(id_from_name("rollout-x.jsonl.zst"), "x");
        assert_eq!(
            home_of(Path::new("/h/.codex/sessions/2026/11/30/rollout-a.jsonl")),
            Some(PathBuf::from("/h/.codex"))
        );
    }
}
