//! Where DeepSeek Harness sessions live and which file of a session directory is read.
//!
//! Layout: `$DSH_HOME` (else `~/.dsh`) `/sessions/<cwd-slug>/<session dir>/session[.v<N>].jsonl[.zstd]`.
//! Main sessions live in `session-<uuid>` directories; subagent sessions (dsh 0.1.0-rc.8) in a
//! directory named by the bare uuid. The slug is a lossy encoding of the cwd (`-` stands for both
//! `/` and a literal `-`), so it is never decoded: the cwd comes from the header record.
//!
//! A directory can hold an old-format file beside a migrated one: the highest `vN` wins (a file
//! without `.vN` counts as version 0), then the newest mtime, then the compressed one.

use std::path::{Path, PathBuf};

use scry_model::{ProviderId, SessionKind, Warning, WarningKind};
use scry_source::{file_stat, Discovery, Env, Root, SourceFile};

/// The environment variable that overrides the DSH home.
pub const ENV_VAR: &str = "DSH_HOME";

/// The DSH home directory for `env`.
pub fn root(env: &Env) -> Root {
    match env.var(ENV_VAR) {
        Some(dir) => Root::new(PathBuf::from(dir), Some(ENV_VAR)),
        None => Root::new(env.home().join(".dsh"), None),
    }
}

/// The version number of a session file name (`session.jsonl` → 0, `session.v3.jsonl.zstd` →
/// 3); `None` when the name is not a session file.
pub fn session_file_version(name: &str) -> Option<u32> {
    let rest = name.strip_prefix("session")?;
    let rest = rest
        .strip_suffix(".zstd")
        .or_else(|| rest.strip_suffix(".zst"))
        .unwrap_or(rest);
    let rest = rest.strip_suffix(".jsonl")?;
    if rest.is_empty() {
        return Some(0);
    }
    let digits = rest.strip_prefix(".v")?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// Picks the file to read in a session directory: highest version, then newest mtime, then
/// compressed over plain. `None` when the directory holds no session file.
pub fn pick_session_file(dir: &Path) -> Option<PathBuf> {
    let entries = std::fs::read_dir(dir).ok()?;
    let mut best: Option<(u32, i64, bool, PathBuf)> = None;
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        let Some(version) = session_file_version(name) else {
            continue;
        };
        let path = entry.path();
        if !path.is_file() {
            continue;
        }
        let (_, mtime) = file_stat(&path);
        let compressed = crate::zframes::is_compressed(&path);
        let key = (version, mtime, compressed);
        if best.as_ref().is_none_or(|(v, m, c, _)| key > (*v, *m, *c)) {
            best = Some((version, mtime, compressed, path));
        }
    }
    best.map(|(_, _, _, p)| p)
}

/// A [`SourceFile`] for the session directory `dir` (its primary file `file`).
pub fn source_file(dir: &Path, file: PathBuf) -> SourceFile {
    let dir_name = dir
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default()
        .to_string();
    let mut sf = SourceFile::new(ProviderId::Dsh, dir_name.clone(), file);
    // dsh 0.1.0-rc.8 names main-session directories `session-<uuid>` and subagent-session
    // directories by the bare uuid; the header record (origin / parentSession) decides for sure.
    if !dir_name.starts_with("session-") {
        sf.kind = SessionKind::Subagent;
    }
    sf
}

/// Walks `<root>/sessions/*/*/` for session files.
pub fn discover(env: &Env) -> Discovery {
    let root = root(env);
    let mut discovery = Discovery {
        roots: vec![root.clone()],
        ..Discovery::default()
    };
    let sessions = root.path.join("sessions");
    if !sessions.is_dir() {
        return discovery;
    }
    let slugs = match std::fs::read_dir(&sessions) {
        Ok(rd) => rd,
        Err(e) => {
            discovery.warnings.push(Warning::at(
                WarningKind::Unreadable,
                format!("cannot list directory: {e}"),
                &sessions,
                None,
            ));
            return discovery;
        }
    };
    let mut slug_dirs: Vec<PathBuf> = slugs
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    slug_dirs.sort();
    for slug in slug_dirs {
        let entries = match std::fs::read_dir(&slug) {
            Ok(rd) => rd,
            Err(e) => {
                discovery.warnings.push(Warning::at(
                    WarningKind::Unreadable,
                    format!("cannot list directory: {e}"),
                    &slug,
                    None,
                ));
                continue;
            }
        };
        let mut dirs: Vec<PathBuf> = entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.is_dir())
            .collect();
        dirs.sort();
        for dir in dirs {
            if let Some(file) = pick_session_file(&dir) {
                discovery.files.push(source_file(&dir, file));
            }
        }
    }
    discovery
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_from_names() {
        assert_eq!(session_file_version("session.jsonl"), Some(0));
        assert_eq!(session_file_version("session.jsonl.zstd"), Some(0));
        assert_eq!(session_file_version("session.v3.jsonl.zstd"), Some(3));
        assert_eq!(session_file_version("session.v12.jsonl"), Some(12));
        assert_eq!(session_file_version("session.vx.jsonl"), None);
        assert_eq!(session_file_version("session.json"), None);
        assert_eq!(session_file_version("notes.jsonl"), None);
    }
}
