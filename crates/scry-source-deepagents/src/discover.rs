//! Where Deep Agents Code keeps its sessions and how they are listed.
//!
//! The database (deepagents-code 0.1.57 – 0.1.88, `sessions.py`): `DEEPAGENTS_SESSIONS_DB`
//! when set (`~/…` expanded), else `$DEEPAGENTS_HOME/.state/sessions.db` (DEEPAGENTS_HOME must
//! be absolute or start with `~/`; a relative or `~user` value is refused, like dcode itself
//! refuses it, with a discovery warning naming the value), else
//! `~/.deepagents/.state/sessions.db`.
//!
//! One [`SourceFile`] per root thread (`checkpoint_ns = ''`): `path` = the database, `key` =
//! the thread id. Every other namespace of a thread (a `task` subagent runs in
//! `tools:<task id>`) is a child session: kind [`SessionKind::Subagent`], `parent` = the root
//! thread id, `key` = `<thread id>/<namespace>`, id = the namespace's task id(s).

use std::io::Read;
use std::path::{Path, PathBuf};

use scry_langgraph::{threads, Db};
use scry_model::{ProviderId, SessionKind, Warning, WarningKind};
use scry_source::{Discovery, Env, Root, SourceFile};

/// Where the sessions database is, and which variable chose it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct DbLocation {
    /// The database path.
    pub path: PathBuf,
    /// The environment variable that chose it.
    pub env_var: Option<&'static str>,
}

fn expand_user(value: &str, env: &Env) -> PathBuf {
    if value == "~" {
        env.home().to_path_buf()
    } else if let Some(rest) = value.strip_prefix("~/") {
        env.home().join(rest.trim_start_matches('/'))
    } else {
        PathBuf::from(value)
    }
}

/// Resolves the database location. `Err` is a message naming the rejected `DEEPAGENTS_HOME`.
pub(crate) fn locate(env: &Env) -> Result<DbLocation, String> {
    if let Some(explicit) = env.var("DEEPAGENTS_SESSIONS_DB") {
        return Ok(DbLocation {
            path: expand_user(explicit, env),
            env_var: Some("DEEPAGENTS_SESSIONS_DB"),
        });
    }
    match env.var("DEEPAGENTS_HOME") {
        None => Ok(DbLocation {
            path: env.home().join(".deepagents/.state/sessions.db"),
            env_var: None,
        }),
        Some(v) if v == "~" || v.starts_with("~/") => Ok(DbLocation {
            path: expand_user(v, env).join(".state/sessions.db"),
            env_var: Some("DEEPAGENTS_HOME"),
        }),
        Some(v) if v.starts_with('~') => Err(format!(
            "DEEPAGENTS_HOME={v:?} is not supported: '~user' forms are refused; \
             use an absolute path or one beginning with '~/'"
        )),
        Some(v) if !Path::new(v).is_absolute() => Err(format!(
            "DEEPAGENTS_HOME={v:?} is a relative path and is refused; \
             use an absolute path or one beginning with '~/'"
        )),
        Some(v) => Ok(DbLocation {
            path: PathBuf::from(v).join(".state/sessions.db"),
            env_var: Some("DEEPAGENTS_HOME"),
        }),
    }
}

/// The roots: the database file (existing or not). A rejected `DEEPAGENTS_HOME` is listed as
/// given, marked as not existing.
pub(crate) fn roots(env: &Env) -> Vec<Root> {
    match locate(env) {
        Ok(loc) => vec![Root::new(loc.path, loc.env_var)],
        Err(_) => vec![Root {
            path: PathBuf::from(env.var("DEEPAGENTS_HOME").unwrap_or_default()),
            env_var: Some("DEEPAGENTS_HOME".into()),
            exists: false,
        }],
    }
}

/// The session key of a child namespace.
pub(crate) fn child_key(thread_id: &str, ns: &str) -> String {
    format!("{thread_id}/{ns}")
}

/// Splits a child key into thread id and namespace.
pub(crate) fn split_child_key(key: &str) -> Option<(&str, &str)> {
    key.rsplit_once('/')
        .filter(|(t, n)| !t.is_empty() && !n.is_empty())
}

/// The session id of a child namespace: its task id(s) without the node names
/// (`tools:eeada537-…` → `eeada537-…`; nested `a:x|b:y` → `x.y`).
pub fn child_id(ns: &str) -> String {
    let parts: Vec<&str> = ns
        .split('|')
        .map(|seg| seg.split_once(':').map_or(seg, |(_, id)| id))
        .filter(|s| !s.is_empty())
        .collect();
    if parts.is_empty() {
        ns.to_string()
    } else {
        parts.join(".")
    }
}

/// The sources of one database: every root thread (most recently updated first) followed
/// directly by its child namespaces.
pub(crate) fn list_db(path: &Path) -> Result<Vec<SourceFile>, String> {
    let db = Db::open(path).map_err(|e| e.to_string())?;
    let recent = threads::recent_threads(&db).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut out = Vec::new();
    for (thread_id, agg) in recent {
        let cwd = agg
            .cwd
            .as_ref()
            .and_then(|v| v.as_str())
            .map(str::to_string);
        let mut f = SourceFile::new(ProviderId::Deepagents, thread_id.clone(), path);
        f.key = Some(thread_id.clone());
        f.cwd_hint = cwd.clone();
        out.push(f);
        let children = threads::child_namespaces(&db, &thread_id)
            .map_err(|e| format!("{}: {e}", path.display()))?;
        for ns in children {
            let mut c = SourceFile::new(ProviderId::Deepagents, child_id(&ns), path);
            c.key = Some(child_key(&thread_id, &ns));
            c.kind = SessionKind::Subagent;
            c.parent = Some(thread_id.clone());
            c.cwd_hint = cwd.clone();
            out.push(c);
        }
    }
    Ok(out)
}

/// Lists every thread of the database.
pub(crate) fn discover(env: &Env) -> Discovery {
    let mut d = Discovery {
        roots: roots(env),
        ..Discovery::default()
    };
    let loc = match locate(env) {
        Ok(loc) => loc,
        Err(message) => {
            d.warnings.push(Warning::new(WarningKind::Other, message));
            return d;
        }
    };
    if !loc.path.is_file() {
        return d;
    }
    match list_db(&loc.path) {
        Ok(files) => d.files = files,
        Err(e) => d
            .warnings
            .push(Warning::at(WarningKind::Unreadable, e, &loc.path, None)),
    }
    d
}

/// True when `path` starts with the SQLite header.
fn is_sqlite(path: &Path) -> bool {
    let mut magic = [0u8; 16];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut magic))
        .is_ok()
        && &magic == b"SQLite format 3\0"
}

/// A path given directly: a LangGraph checkpoint database whose parent directory is `.state`
/// (Deep Agents' layout) or whose name is `sessions.db` — its most recently updated root thread.
pub(crate) fn detect(path: &Path) -> Option<SourceFile> {
    let named = path.file_name().is_some_and(|n| n == "sessions.db")
        || path
            .parent()
            .and_then(Path::file_name)
            .is_some_and(|n| n == ".state");
    if !named || !is_sqlite(path) {
        return None;
    }
    list_db(path)
        .ok()?
        .into_iter()
        .find(|f| f.kind == SessionKind::Main)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn location_rules() {
        let env = Env::with_home("/home/u");
        assert_eq!(
            locate(&env).unwrap().path,
            PathBuf::from("/home/u/.deepagents/.state/sessions.db")
        );
        let env = Env::with_home("/home/u").var_set("DEEPAGENTS_HOME", "~/da");
        assert_eq!(
            locate(&env).unwrap().path,
            PathBuf::from("/home/u/da/.state/sessions.db")
        );
        let env = Env::with_home("/home/u").var_set("DEEPAGENTS_HOME", "rel/dir");
        let err = locate(&env).unwrap_err();
        assert!(err.contains("\"rel/dir\""), "{err}");
        let env = Env::with_home("/home/u").var_set("DEEPAGENTS_HOME", "~bob/x");
        assert!(locate(&env).unwrap_err().contains("~bob/x"));
        let env = Env::with_home("/home/u")
            .var_set("DEEPAGENTS_HOME", "rel")
            .var_set("DEEPAGENTS_SESSIONS_DB", "~/x.db");
        assert_eq!(locate(&env).unwrap().path, PathBuf::from("/home/u/x.db"));
    }

    #[test]
    fn child_ids() {
        assert_eq!(child_id("tools:abc-1"), "abc-1");
        assert_eq!(child_id("tools:a|model:b"), "a.b");
        assert_eq!(
            split_child_key(&child_key("t-1", "tools:x")),
            Some(("t-1", "tools:x"))
        );
    }
}
