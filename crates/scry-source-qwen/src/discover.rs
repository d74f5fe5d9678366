//! Where Qwen Code keeps its chat logs, and how a path maps to a session (stat only).
//!
//! Layout (checked against Qwen Code 0.24.4; storage paths from its `Storage` class):
//! - the runtime base directory: `$QWEN_RUNTIME_DIR`, else `$QWEN_HOME`, else `~/.qwen`;
//! - `projects/<cwd with every non-alphanumeric character → ->/chats/<sessionId>.jsonl`: one
//!   file per session, appended to by `--continue` / `--resume`;
//! - `projects/<proj>/subagents/<parentSessionId>/agent-<agentId>.jsonl` (+
//!   `agent-<agentId>.meta.json`): a subagent's transcript. Its native id is the `agentId`
//!   (`<subagent type>-<tool call id>`), which the parent's `agent` tool call names.
//!
//! The project folder name is lossy (`/` and `.` both become `-`) and is never decoded: the cwd
//! comes from the records.

use std::path::{Path, PathBuf};

use scry_model::{ProviderId, SessionKind, Warning};
use scry_source::{entry_stat, Discovery, Env, Root, SourceFile};
use serde_json::Value;

/// Environment variables Qwen Code honours for its data, most specific first.
pub const ENV_VARS: [&str; 2] = ["QWEN_RUNTIME_DIR", "QWEN_HOME"];

/// The root: the first of [`ENV_VARS`] that is set, else `~/.qwen`.
pub fn roots(env: &Env) -> Vec<Root> {
    for var in ENV_VARS {
        if let Some(dir) = env.var(var) {
            return vec![Root::new(PathBuf::from(dir), Some(var))];
        }
    }
    vec![Root::new(env.home().join(".qwen"), None)]
}

/// Walks `projects/*/chats/` and `projects/*/subagents/*/` under the root.
pub fn discover(env: &Env) -> Discovery {
    let roots = roots(env);
    let mut out = Discovery {
        roots: roots.clone(),
        ..Discovery::default()
    };
    for root in roots.iter().filter(|r| r.exists) {
        let projects = root.path.join("projects");
        if !projects.is_dir() {
            continue;
        }
        for project in dirs_of(&projects, &mut out.warnings) {
            let chats = project.join("chats");
            if chats.is_dir() {
                for (path, stat) in jsonl_files(&chats, &mut out.warnings) {
                    if let Some(f) = classify_with(&path, stat) {
                        out.files.push(f);
                    }
                }
            }
            let subagents = project.join("subagents");
            if subagents.is_dir() {
                for parent in dirs_of(&subagents, &mut out.warnings) {
                    for (path, stat) in jsonl_files(&parent, &mut out.warnings) {
                        if let Some(f) = classify_with(&path, stat) {
                            out.files.push(f);
                        }
                    }
                }
            }
        }
    }
    out.files.sort_by(|a, b| a.path.cmp(&b.path));
    out
}

/// Subdirectories of `dir`, sorted (a link to a directory counts).
fn dirs_of(dir: &Path, warnings: &mut Vec<Warning>) -> Vec<PathBuf> {
    let Some(rd) = scry_source::list_dir(dir, warnings) else {
        return Vec::new();
    };
    let mut v: Vec<PathBuf> = rd
        .filter_map(Result::ok)
        .filter(|e| match e.file_type() {
            Ok(t) if !t.is_symlink() => t.is_dir(),
            _ => e.path().is_dir(),
        })
        .map(|e| e.path())
        .collect();
    v.sort();
    v
}

/// `*.jsonl` files of `dir` with their stat, sorted.
fn jsonl_files(dir: &Path, warnings: &mut Vec<Warning>) -> Vec<(PathBuf, (u64, i64))> {
    let Some(rd) = scry_source::list_dir(dir, warnings) else {
        return Vec::new();
    };
    let mut v: Vec<(PathBuf, (u64, i64))> = rd
        .filter_map(Result::ok)
        .filter_map(|e| {
            let p = e.path();
            let is_file = match e.file_type() {
                Ok(t) if !t.is_symlink() => t.is_file(),
                _ => p.is_file(),
            };
            (is_file && p.extension().is_some_and(|x| x == "jsonl")).then(|| (p, entry_stat(&e)))
        })
        .collect();
    v.sort();
    v
}

/// Maps a path in the layout to a session source, by path shape alone (`None` elsewhere).
pub fn classify(path: &Path) -> Option<SourceFile> {
    classify_with(path, scry_source::file_stat(path))
}

fn classify_with(path: &Path, stat: (u64, i64)) -> Option<SourceFile> {
    let name = path.file_name()?.to_str()?;
    let stem = name.strip_suffix(".jsonl")?;
    if stem.is_empty() {
        return None;
    }
    let dir = path.parent()?;
    let dir_name = dir.file_name()?.to_str();
    let grand = dir
        .parent()
        .and_then(Path::file_name)
        .and_then(|n| n.to_str());
    if dir_name == Some("chats") {
        return Some(SourceFile::with_stat(ProviderId::Qwen, stem, path, stat));
    }
    if grand == Some("subagents") {
        let agent = stem.strip_prefix("agent-").filter(|a| !a.is_empty())?;
        let mut f = SourceFile::with_stat(ProviderId::Qwen, agent, path, stat);
        f.kind = SessionKind::Subagent;
        f.parent = dir_name.filter(|p| !p.is_empty()).map(str::to_string);
        let meta = dir.join(format!("{stem}.meta.json"));
        if meta.is_file() {
            f.related.push(meta);
        }
        return Some(f);
    }
    None
}

/// Recognizes a path given directly: a `.jsonl` file whose first lines are Qwen Code records
/// (bounded sniff of 64 KB).
pub fn detect(path: &Path) -> Option<SourceFile> {
    if !path.is_file() || path.extension().is_none_or(|e| e != "jsonl") {
        return None;
    }
    let head = scry_source::jsonl::head(path, 64 * 1024)?;
    if !sniff(&head) {
        return None;
    }
    Some(classify(path).unwrap_or_else(|| {
        let stem = path
            .file_stem()
            .and_then(|s| s.to_str())
            .filter(|s| !s.is_empty())
            .unwrap_or("session");
        SourceFile::new(ProviderId::Qwen, stem, path)
    }))
}

/// True when one of the first complete lines is a Qwen Code record: a `uuid` / `sessionId`
/// envelope with a Gemini-shaped `message.parts` array, or a `system` record with a
/// `systemPayload`.
pub fn sniff(head: &[u8]) -> bool {
    head.split(|b| *b == b'\n')
        .take(40)
        .filter_map(|line| serde_json::from_slice::<Value>(line).ok())
        .any(|v| is_record(&v))
}

/// Whether `v` has the shape of a Qwen Code chat record.
pub fn is_record(v: &Value) -> bool {
    let envelope = v.get("uuid").is_some_and(Value::is_string)
        && v.get("sessionId").is_some_and(Value::is_string);
    if !envelope {
        return false;
    }
    let ty = v.get("type").and_then(Value::as_str).unwrap_or("");
    let parts = v
        .get("message")
        .and_then(|m| m.get("parts"))
        .is_some_and(Value::is_array);
    match ty {
        "user" | "assistant" | "tool_result" => parts,
        "system" => v.get("systemPayload").is_some_and(Value::is_object),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout() {
        let main = classify(Path::new("/h/.qwen/projects/-p/chats/abc.jsonl")).unwrap();
        assert_eq!((main.id.as_str(), main.kind), ("abc", SessionKind::Main));
        let sub = classify(Path::new(
            "/h/.qwen/projects/-p/subagents/abc/agent-general-purpose-call_1.jsonl",
        ))
        .unwrap();
        assert_eq!(sub.id, "general-purpose-call_1");
        assert_eq!(sub.kind, SessionKind::Subagent);
        assert_eq!(sub.parent.as_deref(), Some("abc"));
        assert!(classify(Path::new("/h/.qwen/projects/-p/other/abc.jsonl")).is_none());
        assert!(classify(Path::new("/h/.qwen/projects/-p/subagents/abc/x.jsonl")).is_none());
    }

    #[test]
    fn roots_follow_the_agents_variables() {
        let env = Env::with_home("/h");
        assert_eq!(roots(&env)[0].path, Path::new("/h/.qwen"));
        let env = Env::with_home("/h").var_set("QWEN_HOME", "/q");
        assert_eq!(roots(&env)[0].path, Path::new("/q"));
        assert_eq!(roots(&env)[0].env_var.as_deref(), Some("QWEN_HOME"));
        let env = env.var_set("QWEN_RUNTIME_DIR", "/r");
        assert_eq!(roots(&env)[0].path, Path::new("/r"));
    }

    #[test]
    fn sniff_tells_gemini_parts_from_claude_content() {
        let qwen = br#"{"uuid":"u","sessionId":"s","type":"user","message":{"role":"user","parts":[{"text":"hi"}]}}"#;
        let claude = br#"{"uuid":"u","sessionId":"s","type":"user","message":{"role":"user","content":"hi"}}"#;
        assert!(sniff(qwen));
        assert!(!sniff(claude));
    }
}
