//! Finding Gemini CLI session files and the project folder they belong to.
//!
//! Layout (`~/.gemini`, or `$GEMINI_CLI_HOME/.gemini`: the CLI's `homedir()` honours that
//! variable):
//! - `tmp/<projectDir>/chats/session-<YYYY-MM-DDTHH-MM>-<first 8 of id>.jsonl` (current) or
//!   `.json` (legacy whole document). When both exist for one name the `.jsonl` is the migrated
//!   copy and wins.
//! - `tmp/<projectDir>/chats/<parentSessionId>/<subagentId>.jsonl`: subagent sessions.
//! - `<projectDir>` is a slug with a `.project_root` marker (newer) or the sha256 of the project
//!   path (older); `~/.gemini/projects.json` maps paths to slugs.
//!
//! Discovery reads at most [`HEAD_BYTES`] of each top-level file, to learn the full session id
//! (file names carry only 8 characters of it) and whether a top-level file is a subagent
//! carrying its parent's id. Files of one session id are grouped into one source: the earliest
//! is primary, the others (a resume written to a later minute's file) are `related`.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use scry_model::{ProviderId, SessionKind, Warning, WarningKind};
use scry_source::{Discovery, Env, Root, SourceFile};
use serde_json::Value;

/// How much of a file's start discovery and detection read.
pub const HEAD_BYTES: usize = 4096;

/// The Gemini home (`$GEMINI_CLI_HOME/.gemini` or `~/.gemini`).
pub fn roots(env: &Env) -> Vec<Root> {
    match env.var("GEMINI_CLI_HOME") {
        Some(home) => vec![Root::new(
            Path::new(home).join(".gemini"),
            Some("GEMINI_CLI_HOME"),
        )],
        None => vec![Root::new(env.home().join(".gemini"), None)],
    }
}

/// What the first bytes of a session file say.
#[derive(Debug, Default, Clone)]
pub struct Head {
    /// `sessionId`.
    pub session_id: Option<String>,
    /// `kind` (`main` / `subagent`), when the first record has it.
    pub kind: Option<String>,
}

/// Reads the id and kind from the start of a `.jsonl` (first line) or `.json` (scan of the head).
pub fn read_head(path: &Path) -> Head {
    let Some(bytes) = scry_source::jsonl::head(path, HEAD_BYTES) else {
        return Head::default();
    };
    let text = String::from_utf8_lossy(&bytes);
    let first = text.lines().next().unwrap_or("");
    if let Ok(v) = serde_json::from_str::<Value>(first) {
        return Head {
            session_id: v.get("sessionId").and_then(Value::as_str).map(String::from),
            kind: v.get("kind").and_then(Value::as_str).map(String::from),
        };
    }
    // A pretty-printed legacy document: look for the keys near the top.
    Head {
        session_id: string_field(&text, "sessionId"),
        kind: string_field(&text, "kind"),
    }
}

/// The string value of `"key": "value"` in a JSON fragment (first occurrence).
fn string_field(text: &str, key: &str) -> Option<String> {
    let needle = format!("\"{key}\"");
    let at = text.find(&needle)?;
    let rest = text.get(at + needle.len()..)?.trim_start();
    let rest = rest.strip_prefix(':')?.trim_start();
    let rest = rest.strip_prefix('"')?;
    let end = rest.find('"')?;
    Some(rest.get(..end)?.to_string())
}

/// Finds every session under the roots.
pub fn discover(env: &Env) -> Discovery {
    let roots = roots(env);
    let mut out = Discovery::default();
    for root in &roots {
        if !root.exists {
            continue;
        }
        let projects = read_projects_json(&root.path);
        let tmp = root.path.join("tmp");
        let Ok(entries) = fs::read_dir(&tmp) else {
            continue;
        };
        let mut dirs: Vec<PathBuf> = entries
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.join("chats").is_dir())
            .collect();
        dirs.sort();
        for dir in dirs {
            let hint = project_root(&dir, &projects);
            scan_chats(&dir.join("chats"), hint.as_deref(), &mut out);
        }
    }
    out.roots = roots;
    out
}

/// The project path of a `tmp/<projectDir>` folder from `.project_root` or `projects.json`.
pub fn project_root(project_dir: &Path, projects: &BTreeMap<String, String>) -> Option<String> {
    if let Ok(text) = fs::read_to_string(project_dir.join(".project_root")) {
        let t = text.trim();
        if !t.is_empty() {
            return Some(t.to_string());
        }
    }
    let slug = project_dir.file_name()?.to_str()?;
    projects.get(slug).cloned()
}

/// `projects.json` as slug → path.
pub fn read_projects_json(gemini_home: &Path) -> BTreeMap<String, String> {
    let mut map = BTreeMap::new();
    let Ok(bytes) = fs::read(gemini_home.join("projects.json")) else {
        return map;
    };
    let Ok(v) = serde_json::from_slice::<Value>(&bytes) else {
        return map;
    };
    if let Some(obj) = v.get("projects").and_then(Value::as_object) {
        for (path, slug) in obj {
            if let Some(s) = slug.as_str() {
                map.insert(s.to_string(), path.clone());
            }
        }
    }
    map
}

/// A top-level session file with what its head says.
struct Found {
    path: PathBuf,
    head: Head,
}

/// Adds the sessions of one `chats/` folder.
fn scan_chats(chats: &Path, cwd_hint: Option<&str>, out: &mut Discovery) {
    let entries = match fs::read_dir(chats) {
        Ok(e) => e,
        Err(e) => {
            out.warnings.push(Warning::at(
                WarningKind::Unreadable,
                format!("cannot list directory: {e}"),
                chats,
                None,
            ));
            return;
        }
    };
    let mut files: BTreeMap<String, PathBuf> = BTreeMap::new();
    let mut subdirs: Vec<PathBuf> = Vec::new();
    for entry in entries.filter_map(Result::ok) {
        let path = entry.path();
        if path.is_dir() {
            subdirs.push(path);
            continue;
        }
        let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
            continue;
        };
        if !name.starts_with("session-") {
            continue;
        }
        if let Some(stem) = name.strip_suffix(".jsonl") {
            files.insert(stem.to_string(), path.clone());
        } else if let Some(stem) = name.strip_suffix(".json") {
            // The `.jsonl` of the same name is the migrated copy: it wins.
            files.entry(stem.to_string()).or_insert(path.clone());
        }
    }
    // Group main files by full session id, in file-name (= time) order.
    let mut groups: BTreeMap<String, Vec<Found>> = BTreeMap::new();
    for (stem, path) in files {
        let head = read_head(&path);
        if head.kind.as_deref() == Some("subagent") {
            // A subagent written beside its parent, carrying the parent's id.
            let mut f = SourceFile::new(ProviderId::Gemini, stem, &path);
            f.kind = SessionKind::Subagent;
            f.parent = head.session_id.clone();
            f.cwd_hint = cwd_hint.map(String::from);
            out.files.push(f);
            continue;
        }
        let id = head.session_id.clone().unwrap_or(stem);
        groups.entry(id).or_default().push(Found { path, head });
    }
    for (id, group) in groups {
        let mut iter = group.into_iter();
        let Some(first) = iter.next() else {
            continue;
        };
        let mut f = SourceFile::new(ProviderId::Gemini, id, &first.path);
        let _ = first.head;
        f.related = iter.map(|g| g.path).collect();
        f.cwd_hint = cwd_hint.map(String::from);
        out.files.push(f);
    }
    subdirs.sort();
    for dir in subdirs {
        let Some(parent) = dir.file_name().and_then(|n| n.to_str()).map(String::from) else {
            continue;
        };
        let Ok(entries) = fs::read_dir(&dir) else {
            out.warnings.push(Warning::at(
                WarningKind::Unreadable,
                "cannot list subagent directory",
                &dir,
                None,
            ));
            continue;
        };
        let mut subs: Vec<PathBuf> = entries
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
            .collect();
        subs.sort();
        for path in subs {
            let Some(stem) = path.file_stem().and_then(|s| s.to_str()).map(String::from) else {
                continue;
            };
            let mut f = SourceFile::new(ProviderId::Gemini, stem, &path);
            f.kind = SessionKind::Subagent;
            f.parent = Some(parent.clone());
            f.cwd_hint = cwd_hint.map(String::from);
            out.files.push(f);
        }
    }
}

/// Recognizes a Gemini session file given directly by path.
pub fn detect(path: &Path) -> Option<SourceFile> {
    let name = path.file_name()?.to_str()?;
    let stem = name
        .strip_suffix(".jsonl")
        .or_else(|| name.strip_suffix(".json"))?;
    let bytes = scry_source::jsonl::head(path, HEAD_BYTES)?;
    let text = String::from_utf8_lossy(&bytes);
    if !text.contains("\"sessionId\"") || !text.contains("\"projectHash\"") {
        return None;
    }
    let head = read_head(path);
    let parent_dir = path.parent()?;
    let in_subdir = parent_dir.file_name().and_then(|n| n.to_str()) != Some("chats")
        && parent_dir
            .parent()
            .and_then(|p| p.file_name())
            .and_then(|n| n.to_str())
            == Some("chats");
    let subagent = head.kind.as_deref() == Some("subagent") || in_subdir;
    let id = if subagent && (in_subdir || stem.starts_with("session-")) {
        stem.to_string()
    } else {
        head.session_id.clone().unwrap_or_else(|| stem.to_string())
    };
    let mut f = SourceFile::new(ProviderId::Gemini, id, path);
    if subagent {
        f.kind = SessionKind::Subagent;
        f.parent = if in_subdir {
            parent_dir.file_name()?.to_str().map(String::from)
        } else {
            head.session_id
        };
    }
    Some(f)
}

#[cfg(test)]
mod tests {
    use super::string_field;

    #[test]
    fn string_field_reads_pretty_json() {
        let t = "{\n  \"sessionId\": \"abc-1\",\n  \"kind\" : \"main\"";
        assert_eq!(string_field(t, "sessionId").as_deref(), Some("abc-1"));
        assert_eq!(string_field(t, "kind").as_deref(), Some("main"));
        assert_eq!(string_field(t, "nope"), None);
    }
}
