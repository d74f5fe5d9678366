//! Restoring tool outputs that Claude Code (2.1.2+) saved to `tool-results/` side files.
//!
//! A large tool result is recorded as a preview:
//! `<persisted-output>\nOutput too large (34.3KB). Full output saved to: <abs path>/tool-results/<name>\n\nPreview (first 2KB):\n…\n</persisted-output>`.
//! The recorded path is absolute on the machine that wrote it (possibly Windows), so only its
//! file name is used: the file is looked up in this session's own directory
//! (`projects/<slug>/<session id>/tool-results/<name>`; for a subagent, its parent session's).

use std::path::{Path, PathBuf};

const OPEN: &str = "<persisted-output>";
const SAVED: &str = "Full output saved to:";

/// The file name a `<persisted-output>` preview points at, if `text` is such a preview.
pub fn saved_name(text: &str) -> Option<&str> {
    let t = text.trim_start();
    if !t.starts_with(OPEN) {
        return None;
    }
    let after = &t[t.find(SAVED)? + SAVED.len()..];
    let line = after.lines().next()?.trim();
    let name = line.rsplit(['/', '\\']).next()?.trim();
    (!name.is_empty() && name != "." && name != "..").then_some(name)
}

/// Directories that may hold this session's `tool-results/`: the session's own directory
/// (`<file stem>/` beside a main file), and for subagent files the parent session directory.
pub fn candidate_dirs(source: &Path, parent: Option<&str>) -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    let Some(dir) = source.parent() else {
        return dirs;
    };
    if let Some(stem) = source.file_stem() {
        dirs.push(dir.join(stem).join("tool-results"));
    }
    // <proj>/<id>/subagents[/workflows/<wf>]/agent-x.jsonl → <proj>/<id>/tool-results
    for anc in dir.ancestors().take(4) {
        if anc.file_name().is_some_and(|n| n == "subagents") {
            if let Some(session_dir) = anc.parent() {
                dirs.push(session_dir.join("tool-results"));
            }
            break;
        }
    }
    // Old layout: <proj>/agent-x.jsonl whose parent session is <proj>/<parent>.jsonl.
    if let Some(p) = parent {
        dirs.push(dir.join(p).join("tool-results"));
    }
    dirs
}

/// Reads the saved output named `name` from the first candidate directory holding it.
pub fn restore(name: &str, dirs: &[PathBuf]) -> Option<(String, PathBuf)> {
    for d in dirs {
        let p = d.join(name);
        if let Ok(bytes) = std::fs::read(&p) {
            let text = match String::from_utf8(bytes) {
                Ok(s) => s,
                Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
            };
            return Some((text, p));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_from_unix_and_windows_paths() {
        let unix = "<persisted-output>\nOutput too large (34.3KB). Full output saved to: /home/u/.claude/projects/p/s/tool-results/toolu_1.txt\n\nPreview (first 2KB):\nabc\n</persisted-output>";
        assert_eq!(saved_name(unix), Some("toolu_1.txt"));
        let win = "<persisted-output>\nOutput too large (1KB). Full output saved to: C:\\Users\\u\\.claude\\projects\\p\\s\\tool-results\\toolu_2.txt\n\nPreview";
        assert_eq!(saved_name(win), Some("toolu_2.txt"));
        assert_eq!(saved_name("plain output"), None);
    }
}
