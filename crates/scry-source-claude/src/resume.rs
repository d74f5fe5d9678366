//! Copied history in files written by `--resume` in older releases (seen in 1.0.71), and the
//! session such a file resumed.
//!
//! Claude Code 1.0.x starts a **new file** on every `--resume` and copies the conversation so
//! far into it: new `uuid`s, this file's `sessionId`, the same `message.id`s, and **no
//! `requestId`** on the copied assistant lines (every assistant line a release of that era
//! writes live carries the `requestId` of its API response). The rule, from that evidence:
//!
//! > The copied prefix of a file ends at the last assistant line without `requestId` that comes
//! > before the file's first assistant line with a `requestId`. When no assistant line of the
//! > file has a `requestId` (third-party gateways, synthetic fixtures), nothing is copied.
//!
//! `<synthetic>` assistant lines (API errors) are ignored by the rule. Events from the copied
//! prefix keep their place in the session but are marked `data.copied = true` and carry no
//! usage (the original file already counted it; the copied figures stay in
//! `data.copied_usage`). The session resumed is found by looking in the sibling files of the
//! same project directory for the evidence: the `summary.leafUuid` a resumed file starts with
//! (the original line with that `uuid`), or the last copied `message.id` on a line that has a
//! `requestId` (where that message was written live).

use std::path::{Path, PathBuf};

use memchr::memmem;
use scry_source::lines::LineReader;
use serde_json::Value;

/// The copied prefix of a file.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct CopiedPrefix {
    /// 1-based line of the last copied assistant line; conversation lines up to it are copies.
    pub through_line: u64,
    /// `message.id` of that line.
    pub last_message_id: Option<String>,
}

fn str_at<'a>(v: &'a Value, keys: &[&str]) -> Option<&'a str> {
    scry_source::json::path(v, keys).and_then(Value::as_str)
}

/// Finds the copied prefix of `path` by the rule in the module doc. Reads only until the first
/// assistant line with a `requestId` (for current files, the first assistant line).
pub fn copied_prefix(path: &Path) -> Option<CopiedPrefix> {
    copied_prefix_decided(path).0
}

/// [`copied_prefix`], and the line of the first assistant line with a `requestId` — where the
/// rule's answer became final. Before that line, appending to the file can still change the
/// answer (and with it how every earlier line is read), so no resume point may lie there.
pub fn copied_prefix_decided(path: &Path) -> (Option<CopiedPrefix>, Option<u64>) {
    let Ok(reader) = scry_source::jsonl::open(path) else {
        return (None, None);
    };
    let mut lines = LineReader::new(reader);
    let finder = memmem::Finder::new(b"\"assistant\"");
    let mut last: Option<CopiedPrefix> = None;
    while let Ok(Some(line)) = lines.next_line() {
        if finder.find(line.bytes).is_none() {
            continue;
        }
        let Ok(v) = serde_json::from_slice::<Value>(line.bytes) else {
            continue;
        };
        if str_at(&v, &["type"]) != Some("assistant") {
            continue;
        }
        if str_at(&v, &["message", "model"]) == Some("<synthetic>") {
            continue;
        }
        let has_request = str_at(&v, &["requestId"]).is_some_and(|r| !r.is_empty());
        if has_request {
            return (last, Some(line.number));
        }
        last = Some(CopiedPrefix {
            through_line: line.number,
            last_message_id: str_at(&v, &["message", "id"]).map(str::to_string),
        });
    }
    (None, None)
}

/// What to look for in a sibling file.
#[derive(Debug, Clone, Copy)]
pub enum Evidence<'a> {
    /// A record whose `uuid` is this (a `summary.leafUuid`).
    Uuid(&'a str),
    /// An assistant line with this `message.id` and a `requestId` (written live).
    LiveMessage(&'a str),
}

/// The id (file stem) of the sibling session in `path`'s directory that holds the evidence.
/// Old-layout `agent-*.jsonl` files are not candidates. Files are tried in name order.
pub fn find_sibling(path: &Path, evidence: Evidence<'_>) -> Option<String> {
    let dir = path.parent()?;
    let mut candidates: Vec<PathBuf> = std::fs::read_dir(dir)
        .ok()?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            p != path
                && p.extension().is_some_and(|e| e == "jsonl")
                && !p
                    .file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with("agent-"))
                && p.is_file()
        })
        .collect();
    candidates.sort();
    let needle = match evidence {
        Evidence::Uuid(s) | Evidence::LiveMessage(s) => format!("\"{s}\""),
    };
    let finder = memmem::Finder::new(needle.as_bytes());
    for cand in candidates {
        if file_holds(&cand, &finder, evidence) {
            return cand.file_stem()?.to_str().map(str::to_string);
        }
    }
    None
}

fn file_holds(path: &Path, finder: &memmem::Finder<'_>, evidence: Evidence<'_>) -> bool {
    let Ok(reader) = scry_source::jsonl::open(path) else {
        return false;
    };
    let mut lines = LineReader::new(reader);
    while let Ok(Some(line)) = lines.next_line() {
        if finder.find(line.bytes).is_none() {
            continue;
        }
        let Ok(v) = serde_json::from_slice::<Value>(line.bytes) else {
            continue;
        };
        let hit = match evidence {
            Evidence::Uuid(u) => str_at(&v, &["uuid"]) == Some(u),
            Evidence::LiveMessage(m) => {
                str_at(&v, &["type"]) == Some("assistant")
                    && str_at(&v, &["message", "id"]) == Some(m)
                    && str_at(&v, &["requestId"]).is_some_and(|r| !r.is_empty())
            }
        };
        if hit {
            return true;
        }
    }
    false
}
