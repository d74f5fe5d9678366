//! Where Grok Build sessions live.
//!
//! `$GROK_HOME` (else `~/.grok`) `/sessions/<percent-encoded cwd>/<session uuid>/` holding
//! `chat_history.jsonl` + `summary.json` and optional side files (`events.jsonl`,
//! `rewind_points.jsonl`, `updates.jsonl`); subagents live in `<session>/subagents/<id>/` with the
//! same file set. The cwd directory name is per-byte RFC 3986 percent-encoding of the cwd, so it
//! decodes losslessly into [`SourceFile::cwd_hint`] without opening anything; when the encoded
//! name would exceed 255 bytes Grok writes the plain cwd to a `.cwd` file in that directory.

use std::path::{Path, PathBuf};

use scry_model::{ProviderId, SessionKind, Warning, WarningKind};
use scry_source::{file_stat, Discovery, Env, Root, SourceFile};

/// The environment variable that overrides the Grok home.
pub const ENV_VAR: &str = "GROK_HOME";

/// Side files read together with `chat_history.jsonl`, in this order after it.
pub const SIDE_FILES: [&str; 4] = [
    "summary.json",
    "events.jsonl",
    "rewind_points.jsonl",
    "updates.jsonl",
];

/// The Grok home for `env`.
pub fn root(env: &Env) -> Root {
    match env.var(ENV_VAR) {
        Some(dir) => Root::new(PathBuf::from(dir), Some(ENV_VAR)),
        None => Root::new(env.home().join(".grok"), None),
    }
}

/// Decodes a percent-encoded cwd directory name; `None` when the bytes are not UTF-8.
pub fn decode_cwd_name(name: &str) -> Option<String> {
    percent_encoding::percent_decode_str(name)
        .decode_utf8()
        .ok()
        .map(|c| c.into_owned())
}

/// The cwd a group directory stands for: its `.cwd` file when present, else its decoded name.
pub fn group_cwd(group: &Path) -> Option<String> {
    let dot = group.join(".cwd");
    if let Ok(meta) = std::fs::metadata(&dot) {
        if meta.is_file() && meta.len() <= 64 * 1024 {
            if let Ok(text) = std::fs::read_to_string(&dot) {
                let t = text.trim_end_matches(['\n', '\r']);
                if !t.is_empty() {
                    return Some(t.to_string());
                }
            }
        }
    }
    decode_cwd_name(group.file_name()?.to_str()?)
}

/// True when `dir` holds a Grok session.
pub fn is_session_dir(dir: &Path) -> bool {
    ["chat_history.jsonl", "summary.json", "updates.jsonl"]
        .iter()
        .any(|f| dir.join(f).is_file())
}

/// The source of the session in `dir`: primary file `chat_history.jsonl`, else `updates.jsonl`
/// (read as the fallback event source), else `summary.json`.
pub fn source_file(dir: &Path, cwd_hint: Option<String>) -> SourceFile {
    let id = dir
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default()
        .to_string();
    let primary = ["chat_history.jsonl", "updates.jsonl"]
        .iter()
        .map(|f| dir.join(f))
        .find(|p| p.is_file())
        .unwrap_or_else(|| dir.join("summary.json"));
    let mut sf = SourceFile::new(ProviderId::Grok, id, primary.clone());
    for side in SIDE_FILES {
        let p = dir.join(side);
        if p != primary && p.is_file() {
            // The newest of the files read dates the session (and tells an index it changed:
            // times and tokens come from the side files).
            let (_, m) = file_stat(&p);
            sf.mtime_ns = sf.mtime_ns.max(m);
            sf.related.push(p);
        }
    }
    sf.cwd_hint = cwd_hint;
    if let Some(parent_dir) = dir.parent() {
        if parent_dir.file_name().and_then(|n| n.to_str()) == Some("subagents") {
            sf.kind = SessionKind::Subagent;
            sf.parent = parent_dir
                .parent()
                .and_then(|p| p.file_name())
                .and_then(|n| n.to_str())
                .map(str::to_string);
        }
    }
    sf
}

fn list_dirs(dir: &Path, warnings: &mut Vec<Warning>) -> Vec<PathBuf> {
    match std::fs::read_dir(dir) {
        Ok(rd) => {
            let mut v: Vec<PathBuf> = rd
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.is_dir())
                .collect();
            v.sort();
            v
        }
        Err(e) => {
            warnings.push(Warning::at(
                WarningKind::Unreadable,
                format!("cannot list directory: {e}"),
                dir,
                None,
            ));
            Vec::new()
        }
    }
}

/// Walks `<root>/sessions/<cwd>/<uuid>/` and `…/<uuid>/subagents/<id>/`.
pub fn discover(env: &Env) -> Discovery {
    let root = root(env);
    let mut d = Discovery {
        roots: vec![root.clone()],
        ..Discovery::default()
    };
    let sessions = root.path.join("sessions");
    if !sessions.is_dir() {
        return d;
    }
    let mut warnings = Vec::new();
    for group in list_dirs(&sessions, &mut warnings) {
        let cwd = group_cwd(&group);
        for dir in list_dirs(&group, &mut warnings) {
            if !is_session_dir(&dir) {
                continue;
            }
            d.files.push(source_file(&dir, cwd.clone()));
            let subs = dir.join("subagents");
            if subs.is_dir() {
                for sub in list_dirs(&subs, &mut warnings) {
                    if is_session_dir(&sub) {
                        d.files.push(source_file(&sub, cwd.clone()));
                    }
                }
            }
        }
    }
    d.warnings = warnings;
    d
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cwd_names_decode_losslessly() {
        assert_eq!(
            decode_cwd_name("%2Ftmp%2Fas-agent-lab%2Fgrok%2Fproject").as_deref(),
            Some("/tmp/as-agent-lab/grok/project")
        );
        // A literal '-' and '%' survive (unlike lossy slugs).
        assert_eq!(
            decode_cwd_name("%2Fa-b%2F100%25%20x%E4%BC%9A").as_deref(),
            Some("/a-b/100% x会")
        );
        assert_eq!(decode_cwd_name("%FF"), None);
    }
}
