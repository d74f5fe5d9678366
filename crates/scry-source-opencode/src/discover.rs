//! Where OpenCode keeps sessions and how they are listed.
//!
//! Root: `$XDG_DATA_HOME/opencode`, else `~/.local/share/opencode` (OpenCode's `Global.Path.data`,
//! from `xdg-basedir`). In it:
//! - `opencode.db`, or `opencode-<channel>.db` for builds from other release channels;
//! - `$OPENCODE_DB` when set: OpenCode's own override (an absolute path, or a path relative to
//!   the data directory; `:memory:` means nothing is stored);
//! - the legacy JSON tree `storage/session/<projectID>/<sessionID>.json` (+ `storage/message/`,
//!   `storage/part/`).
//!
//! One [`SourceFile`] per session. A session in a database has `path` = the database and
//! `key` = its id; a JSON-only session has `path` = its session file. A session present in both
//! is listed once, from the database (SQLite wins), with the JSON copy in `related`.

use std::collections::HashMap;
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};

use scry_model::{ProviderId, SessionKind, Warning, WarningKind};
use scry_source::json::str_of;
use scry_source::{Discovery, Env, Root, SourceFile};
use serde_json::Value;

use crate::db;
use crate::storage;
use crate::OPENCODE;

/// How much of a session JSON file discovery reads.
const HEAD: u64 = 64 * 1024;

/// OpenCode's data directory.
pub(crate) fn data_dir(env: &Env) -> PathBuf {
    env.data_home().join("opencode")
}

/// The database named by `$OPENCODE_DB`, resolved like OpenCode does.
pub(crate) fn env_db(env: &Env) -> Option<PathBuf> {
    db_override(env, "OPENCODE_DB", &data_dir(env))
}

/// The database an environment variable `var` names, resolved as OpenCode (and its fork Kilo)
/// do: empty or `:memory:` is none, a relative path is under `data_dir`.
pub fn db_override(env: &Env, var: &str, data_dir: &Path) -> Option<PathBuf> {
    let v = env.var(var)?.trim();
    if v.is_empty() || v == ":memory:" {
        return None;
    }
    let p = PathBuf::from(v);
    Some(if p.is_absolute() { p } else { data_dir.join(p) })
}

/// Roots of an OpenCode-layout store: the database `var` names first when set, then
/// `data_dir` (marked as coming from `$XDG_DATA_HOME` when that is set).
pub fn db_roots(env: &Env, var: &'static str, data_dir: PathBuf) -> Vec<Root> {
    let mut roots = Vec::new();
    if let Some(db) = db_override(env, var, &data_dir) {
        roots.push(Root::new(db, Some(var)));
    }
    let xdg = env.var("XDG_DATA_HOME").map(|_| "XDG_DATA_HOME");
    roots.push(Root::new(data_dir, xdg));
    roots
}

/// Roots: `$OPENCODE_DB` first when set, then the data directory.
pub(crate) fn roots(env: &Env) -> Vec<Root> {
    db_roots(env, "OPENCODE_DB", data_dir(env))
}

/// The session databases under the roots, override first, without duplicates.
fn databases(env: &Env) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    if let Some(db) = env_db(env).filter(|p| p.is_file()) {
        out.push(db);
    }
    let dir = data_dir(env);
    let mut found: Vec<PathBuf> = fs::read_dir(&dir)
        .map(|rd| {
            rd.flatten()
                .map(|e| e.path())
                .filter(|p| {
                    p.file_name()
                        .and_then(|n| n.to_str())
                        .is_some_and(is_db_name)
                        && p.is_file()
                })
                .collect()
        })
        .unwrap_or_default();
    found.sort();
    for p in found {
        if !out.contains(&p) {
            out.push(p);
        }
    }
    out
}

/// `opencode.db` or `opencode-<channel>.db` (not the `-wal` / `-shm` companions).
fn is_db_name(name: &str) -> bool {
    name == "opencode.db"
        || name
            .strip_prefix("opencode-")
            .and_then(|r| r.strip_suffix(".db"))
            .is_some_and(|c| !c.is_empty())
}

/// Lists every session in every store.
pub(crate) fn discover(env: &Env) -> Discovery {
    let mut d = Discovery {
        roots: roots(env),
        ..Discovery::default()
    };
    let mut by_id: HashMap<String, usize> = HashMap::new();
    for path in databases(env) {
        let rows = match db::list_sessions(&path, OPENCODE) {
            Ok(rows) => rows,
            Err(e) => {
                d.warnings.push(Warning::at(
                    WarningKind::Unreadable,
                    e.to_string(),
                    &path,
                    None,
                ));
                continue;
            }
        };
        for row in rows {
            if let Some(&i) = by_id.get(&row.id) {
                let first = d.files.get(i).map(|f| f.path.display().to_string());
                d.warnings.push(Warning::at(
                    WarningKind::Inconsistent,
                    format!(
                        "session {} is also in {}; read from there",
                        row.id,
                        first.unwrap_or_default()
                    ),
                    &path,
                    None,
                ));
                continue;
            }
            let mut f = SourceFile::new(ProviderId::Opencode, row.id.clone(), &path);
            f.key = Some(row.id.clone());
            if let Some(p) = row.parent {
                f.kind = SessionKind::Subagent;
                f.parent = Some(p);
            }
            f.cwd_hint = row.directory;
            by_id.insert(row.id, d.files.len());
            d.files.push(f);
        }
    }
    let sessions = data_dir(env).join("storage").join("session");
    let mut projects: Vec<PathBuf> = fs::read_dir(&sessions)
        .map(|rd| {
            rd.flatten()
                .map(|e| e.path())
                .filter(|p| p.is_dir())
                .collect()
        })
        .unwrap_or_default();
    projects.sort();
    for project in projects {
        let mut files: Vec<PathBuf> = fs::read_dir(&project)
            .map(|rd| {
                rd.flatten()
                    .map(|e| e.path())
                    .filter(|p| p.extension().is_some_and(|x| x == "json") && p.is_file())
                    .collect()
            })
            .unwrap_or_default();
        files.sort();
        for file in files {
            let Some(f) = json_session(&file) else {
                d.warnings.push(Warning::at(
                    WarningKind::CorruptRecord,
                    "not an OpenCode session record; skipped",
                    &file,
                    None,
                ));
                continue;
            };
            match by_id.get(&f.id) {
                Some(&i) => {
                    if let Some(existing) = d.files.get_mut(i) {
                        existing.related.push(file);
                    }
                }
                None => {
                    by_id.insert(f.id.clone(), d.files.len());
                    d.files.push(f);
                }
            }
        }
    }
    d
}

/// A session JSON file as a [`SourceFile`], reading at most its first 64 KB.
pub(crate) fn json_session(file: &Path) -> Option<SourceFile> {
    let mut head = Vec::new();
    fs::File::open(file)
        .ok()?
        .take(HEAD)
        .read_to_end(&mut head)
        .ok()?;
    let v: Value = serde_json::from_slice(&head).ok()?;
    if v.get("role").is_some() || v.get("messageID").is_some() || v.get("type").is_some() {
        return None;
    }
    if v.get("directory").is_none() && v.get("projectID").is_none() {
        return None;
    }
    let stem = file.file_stem()?.to_string_lossy().into_owned();
    let id = str_of(&v, "id").map(str::to_string).unwrap_or(stem);
    let mut f = SourceFile::new(ProviderId::Opencode, id, file);
    if let Some(p) = str_of(&v, "parentID").filter(|p| !p.is_empty()) {
        f.kind = SessionKind::Subagent;
        f.parent = Some(p.to_string());
    }
    f.cwd_hint = str_of(&v, "directory")
        .filter(|d| !d.is_empty())
        .map(str::to_string);
    Some(f)
}

/// Recognizes a path given directly: an OpenCode database (its most recently updated
/// top-level session) or a session JSON file inside a `storage/session/` tree.
pub(crate) fn detect(path: &Path) -> Option<SourceFile> {
    if is_sqlite(path) && !is_kilo_name(path) {
        let row = db::latest_root_session(path, OPENCODE)?;
        let mut f = SourceFile::new(ProviderId::Opencode, row.id.clone(), path);
        f.key = Some(row.id);
        f.cwd_hint = row.directory;
        return Some(f);
    }
    if path.extension().is_some_and(|x| x == "json") && storage::storage_root(path).is_some() {
        return json_session(path);
    }
    None
}

/// `kilo.db` / `kilo-<channel>.db`: Kilo CLI's database, same layout, read by the Kilo provider.
fn is_kilo_name(path: &Path) -> bool {
    path.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n == "kilo.db" || n.starts_with("kilo-") && n.ends_with(".db"))
}

/// True when `path` starts with the SQLite header.
pub(crate) fn is_sqlite(path: &Path) -> bool {
    let mut magic = [0u8; 16];
    fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut magic))
        .is_ok()
        && &magic == b"SQLite format 3\0"
}
