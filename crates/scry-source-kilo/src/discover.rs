//! Where Kilo CLI keeps sessions and how they are listed.
//!
//! Root: `$XDG_DATA_HOME/kilo`, else `~/.local/share/kilo` (Kilo's `Global.Path.data`). In it
//! (Kilo's `Database.path()`):
//! - `kilo.db` (the `latest` / `beta` / `prod` channels), or `kilo-<channel>.db` for other
//!   channels, or a pre-rename `opencode-<channel>.db` Kilo still opens when the `kilo-` one is
//!   absent;
//! - `$KILO_DB` when set: an absolute path, or one relative to the data directory
//!   (`:memory:` stores nothing).
//!
//! One [`SourceFile`] per session: `path` = the database, `key` = the session id, and
//! `storage/session_diff/<id>.json` in `related` when it exists.

use std::fs;
use std::path::{Path, PathBuf};

use scry_model::{Warning, WarningKind};
use scry_source::{Discovery, Env, Root, SourceFile};
use scry_source_opencode::sqlstore;

use crate::KILO;

/// Kilo's data directory.
pub(crate) fn data_dir(env: &Env) -> PathBuf {
    env.data_home().join("kilo")
}

/// The database named by `$KILO_DB`, resolved like Kilo does.
fn env_db(env: &Env) -> Option<PathBuf> {
    scry_source_opencode::db_override(env, "KILO_DB", &data_dir(env))
}

/// Roots: `$KILO_DB` first when set, then the data directory.
pub(crate) fn roots(env: &Env) -> Vec<Root> {
    scry_source_opencode::db_roots(env, "KILO_DB", data_dir(env))
}

/// `kilo.db`, `kilo-<channel>.db` or `opencode-<channel>.db` (not `-wal` / `-shm`).
fn is_db_name(name: &str) -> bool {
    let channel = |prefix: &str| {
        name.strip_prefix(prefix)
            .and_then(|r| r.strip_suffix(".db"))
            .is_some_and(|c| !c.is_empty())
    };
    name == "kilo.db" || channel("kilo-") || channel("opencode-")
}

/// The session databases, override first, without duplicates.
fn databases(env: &Env) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = env_db(env).filter(|p| p.is_file()).into_iter().collect();
    let mut found: Vec<PathBuf> = fs::read_dir(data_dir(env))
        .map(|rd| {
            rd.flatten()
                .filter(|e| e.file_name().to_str().is_some_and(is_db_name))
                .map(|e| e.path())
                .filter(|p| p.is_file())
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

/// The session-diff file of session `id` beside database `db`, when it exists.
fn diff_file(db: &Path, id: &str) -> Option<PathBuf> {
    let f = db
        .parent()?
        .join("storage")
        .join("session_diff")
        .join(format!("{id}.json"));
    f.is_file().then_some(f)
}

/// Lists every session of every database.
pub(crate) fn discover(env: &Env) -> Discovery {
    let mut d = Discovery {
        roots: roots(env),
        ..Discovery::default()
    };
    for path in databases(env) {
        match sqlstore::list(&path, KILO) {
            Ok(files) => {
                for mut f in files {
                    if d.files.iter().any(|g| g.id == f.id) {
                        d.warnings.push(Warning::at(
                            WarningKind::Inconsistent,
                            format!("session {} is in more than one database; read once", f.id),
                            &path,
                            None,
                        ));
                        continue;
                    }
                    f.related.extend(diff_file(&path, &f.id));
                    d.files.push(f);
                }
            }
            Err(e) => d.warnings.push(Warning::at(
                WarningKind::Unreadable,
                e.to_string(),
                &path,
                None,
            )),
        }
    }
    d
}

/// A Kilo database given directly (named like one: `kilo.db`, `kilo-<channel>.db`): its most
/// recently updated top-level session. OpenCode's reader claims other OpenCode-shaped files.
pub(crate) fn detect(path: &Path) -> Option<SourceFile> {
    let name = path.file_name()?.to_str()?;
    if !(name == "kilo.db" || name.starts_with("kilo-") && name.ends_with(".db")) {
        return None;
    }
    let mut f = sqlstore::detect(path, KILO)?;
    f.related.extend(diff_file(path, &f.id));
    Some(f)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn database_names() {
        for ok in ["kilo.db", "kilo-beta-x.db", "opencode-dev.db"] {
            assert!(is_db_name(ok), "{ok}");
        }
        for no in [
            "kilo.db-wal",
            "kilo.db-shm",
            "kilo-.db",
            "opencode.db",
            "x.db",
        ] {
            assert!(!is_db_name(no), "{no}");
        }
    }

    #[test]
    fn kilo_db_override_resolves_like_kilo() {
        let env = Env::with_home("/h");
        assert_eq!(env_db(&env), None);
        let abs = env.clone().var_set("KILO_DB", "/x/k.db");
        assert_eq!(env_db(&abs), Some(PathBuf::from("/x/k.db")));
        let rel = env.clone().var_set("KILO_DB", "k.db");
        assert_eq!(
            env_db(&rel),
            Some(PathBuf::from("/h/.local/share/kilo/k.db"))
        );
        assert_eq!(env_db(&env.var_set("KILO_DB", ":memory:")), None);
        assert_eq!(roots(&abs).len(), 2);
    }
}
