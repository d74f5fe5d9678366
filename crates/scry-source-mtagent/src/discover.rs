//! Where MT-Agent keeps sessions (seed 003 §1): `~/.mtagent/history/<project-hash>/` holds
//! one `session-<timestamp>-<session-id>.jsonl` per session (a resumed session is merged into
//! one file, named after the newest session) and the project's LangGraph checkpoint database
//! `checkpoints.sqlite`.
//!
//! One [`SourceFile`] per transcript (`related` = the directory's `checkpoints.sqlite` when it
//! exists). A checkpoint thread that no transcript names (the transcript was never flushed)
//! is listed too, as its own session: `path` = the database, `key` = the thread id. Discovery
//! reads at most the first 64 KB of each transcript (its `session_start` records) to learn
//! which threads are taken.

use std::collections::HashSet;
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};

use scry_langgraph::{threads, Db};
use scry_model::{ProviderId, Warning, WarningKind};
use scry_source::json::str_of;
use scry_source::{Discovery, Env, Root, SourceFile};
use serde_json::Value;

/// The checkpoint database's file name.
pub const CHECKPOINTS: &str = "checkpoints.sqlite";

/// How much of a transcript discovery and detection read.
const HEAD: u64 = 64 * 1024;

/// `~/.mtagent/history`.
pub(crate) fn history_dir(env: &Env) -> PathBuf {
    env.home().join(".mtagent").join("history")
}

/// `session-<ts>-<id>.jsonl` → `<id>` (everything after the timestamp).
pub fn session_id_from_name(name: &str) -> Option<&str> {
    let rest = name.strip_prefix("session-")?.strip_suffix(".jsonl")?;
    let (_, id) = rest.split_once('-')?;
    (!id.is_empty()).then_some(id)
}

/// What the head of a transcript says: `(session id, thread ids, cwd)` from its
/// `session_start` records (`sessionId` / `session_id`, `threadId` / `thread_id`).
pub(crate) fn head(path: &Path) -> Option<(Option<String>, Vec<String>, Option<String>)> {
    let mut buf = Vec::new();
    fs::File::open(path)
        .ok()?
        .take(HEAD)
        .read_to_end(&mut buf)
        .ok()?;
    let mut session = None;
    let mut threads_seen = Vec::new();
    let mut cwd = None;
    let mut any = false;
    for line in buf.split(|b| *b == b'\n') {
        let Ok(v) = serde_json::from_slice::<Value>(line) else {
            continue;
        };
        if str_of(&v, "type") != Some("session_start") {
            continue;
        }
        any = true;
        if let Some(s) = field(&v, &["sessionId", "session_id"]) {
            session = Some(s.to_string());
        }
        if let Some(t) = field(&v, &["threadId", "thread_id"]) {
            if !threads_seen.iter().any(|x| x == t) {
                threads_seen.push(t.to_string());
            }
        }
        if cwd.is_none() {
            cwd = field(&v, &["cwd"]).map(str::to_string);
        }
    }
    any.then_some((session, threads_seen, cwd))
}

/// The first non-empty string among `keys`.
pub(crate) fn field<'a>(v: &'a Value, keys: &[&str]) -> Option<&'a str> {
    keys.iter()
        .find_map(|k| str_of(v, k))
        .filter(|s| !s.is_empty())
}

fn sorted_entries(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = fs::read_dir(dir)
        .map(|rd| rd.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    out.sort();
    out
}

/// A transcript as a source (no file read beyond its head).
pub(crate) fn transcript_source(path: &Path) -> Option<SourceFile> {
    let name = path.file_name()?.to_str()?;
    let id = session_id_from_name(name)?.to_string();
    let mut f = SourceFile::new(ProviderId::Mtagent, id, path);
    if let Some(dir) = path.parent() {
        let db = dir.join(CHECKPOINTS);
        if db.is_file() {
            f.related.push(db);
        }
    }
    Some(f)
}

/// Every session under `~/.mtagent/history`.
pub(crate) fn discover(env: &Env) -> Discovery {
    let root = history_dir(env);
    let mut d = Discovery {
        roots: vec![Root::new(root.clone(), None)],
        ..Discovery::default()
    };
    for project in sorted_entries(&root).into_iter().filter(|p| p.is_dir()) {
        let mut taken: HashSet<String> = HashSet::new();
        let mut cwd = None;
        for path in sorted_entries(&project) {
            let Some(mut f) = transcript_source(&path) else {
                continue;
            };
            if let Some((_, threads_named, c)) = head(&path) {
                taken.extend(threads_named);
                f.cwd_hint = c.clone();
                cwd = cwd.or(c);
            }
            d.files.push(f);
        }
        let db = project.join(CHECKPOINTS);
        if !db.is_file() {
            continue;
        }
        match orphan_threads(&db, &taken) {
            Ok(list) => {
                for thread in list {
                    let mut f = SourceFile::new(ProviderId::Mtagent, thread.clone(), &db);
                    f.key = Some(thread);
                    f.cwd_hint = cwd.clone();
                    d.files.push(f);
                }
            }
            Err(e) => d
                .warnings
                .push(Warning::at(WarningKind::Unreadable, e, &db, None)),
        }
    }
    d
}

/// Root threads of `db` that no transcript names.
fn orphan_threads(db: &Path, taken: &HashSet<String>) -> Result<Vec<String>, String> {
    let db = Db::open(db).map_err(|e| e.to_string())?;
    let list = threads::aggregates(&db, "").map_err(|e| e.to_string())?;
    Ok(list.into_keys().filter(|t| !taken.contains(t)).collect())
}

/// A path given directly: a `session-*.jsonl` whose head holds a `session_start` record.
pub(crate) fn detect(path: &Path) -> Option<SourceFile> {
    head(path)?;
    let mut f = transcript_source(path)?;
    f.cwd_hint = head(path).and_then(|h| h.2);
    Some(f)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(
            session_id_from_name("session-20261121T100000-5e55a0b2d0e1.jsonl"),
            Some("5e55a0b2d0e1")
        );
        assert_eq!(
            session_id_from_name("session-1732000000-3f1c-uuid-like.jsonl"),
            Some("3f1c-uuid-like")
        );
        assert_eq!(session_id_from_name("session-x.jsonl"), None);
        assert_eq!(session_id_from_name("notes.jsonl"), None);
    }
}
