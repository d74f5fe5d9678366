//! Deep Agents' long-term memory: the `AGENTS.md` layers (seed 001 §2.1, deepagents-code
//! `agent.py` / `project_utils.py`) a thread's agent loads into its system prompt.
//!
//! - user level: `<deepagents home>/<agent>/AGENTS.md`;
//! - project level: `<project root>/.deepagents/AGENTS.md`, `<project root>/AGENTS.md` and
//!   `<project root>/.deepagents/agents/<agent>/AGENTS.md`.
//!
//! The best evidence is the thread's own `memory_contents` channel (MemoryMiddleware, deepagents
//! ≥ 0.7): path → the content the model was given. Those paths are listed first; the layer
//! paths above are added when they exist on disk. The recorded content is shown with HTML
//! comments stripped (MemoryMiddleware's `_strip_html_comments` runs before injection, so the
//! model never saw them).

use std::path::{Path, PathBuf};

use scry_langgraph::Value;

/// One memory file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemoryFile {
    /// Its path.
    pub path: String,
    /// The content recorded in `memory_contents` (comments stripped), if recorded.
    pub content: Option<String>,
    /// Whether the path exists on this machine now.
    pub exists: bool,
}

/// Removes `<!-- … -->` comments (an unterminated one runs to the end, as a non-greedy
/// `<!--.*?-->` would leave it: kept as is).
pub fn strip_html_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("<!--") {
        let Some(len) = rest[start + 4..].find("-->") else {
            break;
        };
        out.push_str(&rest[..start]);
        rest = &rest[start + 4 + len + 3..];
    }
    out.push_str(rest);
    out
}

/// The memory files of a thread: recorded ones first, then existing layer files.
pub fn files(
    recorded: Option<&Value>,
    home: Option<&Path>,
    agent: Option<&str>,
    project: Option<&str>,
) -> Vec<MemoryFile> {
    let mut out: Vec<MemoryFile> = Vec::new();
    if let Some(map) = recorded.and_then(Value::as_map) {
        for (path, content) in map {
            let content = match content {
                Value::Str(s) => Some(strip_html_comments(s)),
                _ => None,
            };
            out.push(MemoryFile {
                exists: Path::new(path).is_file(),
                path: path.clone(),
                content,
            });
        }
    }
    let mut candidates: Vec<PathBuf> = Vec::new();
    if let (Some(home), Some(agent)) = (home, agent) {
        candidates.push(home.join(agent).join("AGENTS.md"));
    }
    if let Some(project) = project.map(Path::new) {
        candidates.push(project.join(".deepagents/AGENTS.md"));
        candidates.push(project.join("AGENTS.md"));
        if let Some(agent) = agent {
            candidates.push(
                project
                    .join(".deepagents/agents")
                    .join(agent)
                    .join("AGENTS.md"),
            );
        }
    }
    for c in candidates {
        let text = c.to_string_lossy().into_owned();
        if c.is_file() && !out.iter().any(|m| m.path == text) {
            out.push(MemoryFile {
                path: text,
                content: None,
                exists: true,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_are_stripped() {
        assert_eq!(
            strip_html_comments("a<!-- deepagents:onboarding-name:start -->b<!-- x\ny -->c"),
            "abc"
        );
        assert_eq!(strip_html_comments("keep <!-- open"), "keep <!-- open");
        assert_eq!(strip_html_comments("多<!--x-->字"), "多字");
    }
}
