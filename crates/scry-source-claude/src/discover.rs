//! Where Claude Code keeps its transcripts, and how a path maps to a session (stat only, except
//! for the bounded Warmup check on small old-layout `agent-*.jsonl` files).
//!
//! Layout (checked against Claude Code 1.0.71 and 2.1.332 homes in the corpus):
//! - `projects/<slug>/<id>.jsonl` — a main session; `<id>` is the native id.
//! - `projects/<slug>/<id>/subagents/agent-<agentId>.jsonl` (+ `agent-<agentId>.meta.json`) — a
//!   subagent of session `<id>`; also under `subagents/workflows/<wf>/`.
//! - `projects/<slug>/agent-<agentId>.jsonl` — the older subagent layout (≤ 2.0), beside the
//!   sessions; its parent is found from the lines' `sessionId` when the file is read.
//!
//! A subagent's native id is its `agentId` (the file stem without `agent-`): it is what the
//! parent's Agent/Task tool result names (`toolUseResult.agentId`), it is random (8 hex digits in
//! old releases, 17 in new ones) and it resolves like any id prefix.

use std::collections::HashSet;
use std::io::Read;
use std::path::{Path, PathBuf};

use scry_model::{ProviderId, SessionKind, Warning, WarningKind};
use scry_source::{Discovery, Env, Root, SourceFile};
use serde_json::Value;

/// The environment variable that overrides the config directory.
pub const ENV_VAR: &str = "CLAUDE_CONFIG_DIR";

/// Largest old-layout `agent-*.jsonl` file that is read to check for a Warmup sidechain.
pub const WARMUP_MAX_BYTES: u64 = 16 * 1024;

/// The roots: `$CLAUDE_CONFIG_DIR` alone when set, else `~/.claude` and `~/.config/claude`.
pub fn roots(env: &Env) -> Vec<Root> {
    if let Some(dir) = env.var(ENV_VAR) {
        return vec![Root::new(PathBuf::from(dir), Some(ENV_VAR))];
    }
    vec![
        Root::new(env.home().join(".claude"), None),
        Root::new(env.config_home().join("claude"), None),
    ]
}

/// Walks `projects/` under every existing root.
pub fn discover(env: &Env) -> Discovery {
    let roots = roots(env);
    let mut files = Vec::new();
    let mut warnings = Vec::new();
    let mut seen_dirs: HashSet<PathBuf> = HashSet::new();
    for root in roots.iter().filter(|r| r.exists) {
        let projects = root.path.join("projects");
        // Both default roots may be the same directory through a symlink: walk it once.
        let canon = projects.canonicalize().unwrap_or_else(|_| projects.clone());
        if !seen_dirs.insert(canon) || !projects.is_dir() {
            continue;
        }
        walk_projects(&projects, &mut files, &mut warnings);
    }
    files.sort_by(|a, b| a.path.cmp(&b.path));
    Discovery {
        roots,
        files,
        warnings,
    }
}

fn walk_projects(projects: &Path, files: &mut Vec<SourceFile>, warnings: &mut Vec<Warning>) {
    // projects/<slug>/<id>/subagents/workflows/<wf>/agent-x.jsonl is depth 6.
    let walker = walkdir::WalkDir::new(projects)
        .min_depth(2)
        .max_depth(6)
        .follow_links(true)
        .sort_by_file_name();
    for entry in walker {
        let entry = match entry {
            Ok(e) => e,
            Err(e) => {
                let path = e.path().map(Path::to_path_buf).unwrap_or_default();
                let what = if e.loop_ancestor().is_some() {
                    "symlink loop skipped".to_string()
                } else {
                    format!("unreadable directory entry: {e}")
                };
                warnings.push(Warning::at(WarningKind::Unreadable, what, path, None));
                continue;
            }
        };
        if !entry.file_type().is_file() {
            continue;
        }
        if let Some(f) = classify(entry.path()) {
            if f.kind == SessionKind::Subagent && f.parent.is_none() && is_warmup_file(&f.path) {
                continue;
            }
            files.push(f);
        }
    }
}

/// Maps a path inside a `projects/<slug>/` tree to a session source, by path shape alone.
/// `None` for files that are not transcripts (meta files, tool-results, memory, journals).
pub fn classify(path: &Path) -> Option<SourceFile> {
    let name = path.file_name()?.to_str()?;
    let stem = name.strip_suffix(".jsonl")?;
    if stem.is_empty() {
        return None;
    }
    let dir = path.parent()?;
    // The project folder's name is not needed as text (it may not be UTF-8): only its place.
    let has_dir_name = dir.file_name().is_some_and(|n| !n.is_empty());
    let grand = dir
        .parent()
        .and_then(Path::file_name)
        .and_then(|n| n.to_str());
    let new_layout = subagent_parent_dir(dir);
    let agent = stem
        .strip_prefix("agent-")
        .filter(|a| !a.is_empty() && (new_layout.is_some() || grand == Some("projects")));
    if let Some(agent) = agent {
        let mut f = SourceFile::new(ProviderId::Claude, agent, path);
        f.kind = SessionKind::Subagent;
        // New layout: <id>/subagents/agent-x.jsonl or <id>/subagents/workflows/<wf>/agent-x.jsonl.
        f.parent = new_layout;
        let meta = dir.join(format!("{stem}.meta.json"));
        if meta.is_file() {
            f.related.push(meta);
        }
        return Some(f);
    }
    // A main session sits directly in projects/<slug>/.
    if grand != Some("projects") || !has_dir_name {
        return None;
    }
    Some(SourceFile::new(ProviderId::Claude, stem, path))
}

/// `<proj>/<id>/subagents[/workflows/<wf>]` → `<id>`.
fn subagent_parent_dir(dir: &Path) -> Option<String> {
    let mut cur = dir;
    for _ in 0..3 {
        if cur.file_name().and_then(|n| n.to_str()) == Some("subagents") {
            return cur
                .parent()?
                .file_name()?
                .to_str()
                .map(str::to_string)
                .filter(|s| !s.is_empty());
        }
        cur = cur.parent()?;
    }
    None
}

/// Recognizes a path given directly: a `.jsonl` file whose first lines look like Claude Code
/// records (bounded sniff of 64 KB), or an empty file in the `projects/<slug>/` layout.
pub fn detect(path: &Path) -> Option<SourceFile> {
    if !path.is_file() || path.extension().is_none_or(|e| e != "jsonl") {
        return None;
    }
    let head = scry_source::jsonl::head(path, 64 * 1024)?;
    let in_layout = path
        .parent()
        .and_then(Path::parent)
        .and_then(Path::file_name)
        .is_some_and(|n| n == "projects")
        || path
            .ancestors()
            .any(|a| a.file_name().is_some_and(|n| n == "subagents"));
    let looks = sniff(&head);
    if !(looks || (head.iter().all(u8::is_ascii_whitespace) && in_layout)) {
        return None;
    }
    let mut f = classify(path).unwrap_or_else(|| {
        let stem = path
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or("session");
        SourceFile::new(ProviderId::Claude, stem, path)
    });
    if f.kind == SessionKind::Main && f.id.is_empty() {
        f.id = "session".into();
    }
    Some(f)
}

/// True when one of the first complete lines is a Claude Code record: a `user` / `assistant`
/// line with a `message.role`, a `summary` with `leafUuid`, or a Claude bookkeeping type with a
/// `sessionId` (lines with Qwen Code's `message.parts` / `systemPayload` do not count).
pub fn sniff(head: &[u8]) -> bool {
    for line in head.split(|b| *b == b'\n').take(40) {
        let Ok(v) = serde_json::from_slice::<Value>(line) else {
            continue;
        };
        // Qwen Code writes the same envelope with Gemini-shaped `message.parts` and
        // `systemPayload`; Claude Code never does.
        if v.get("message").and_then(|m| m.get("parts")).is_some()
            || v.get("systemPayload").is_some()
        {
            continue;
        }
        let ty = v.get("type").and_then(Value::as_str).unwrap_or("");
        let has_role = v
            .get("message")
            .and_then(|m| m.get("role"))
            .and_then(Value::as_str)
            .is_some();
        let has_session = v.get("sessionId").is_some() || v.get("uuid").is_some();
        match ty {
            "user" | "assistant" if has_role && has_session => return true,
            "summary" if v.get("leafUuid").is_some() => return true,
            "queue-operation"
            | "custom-title"
            | "ai-title"
            | "last-prompt"
            | "system"
            | "file-history-snapshot"
                if has_session || v.get("messageId").is_some() =>
            {
                return true
            }
            _ => {}
        }
    }
    false
}

/// True for an old-layout sidechain file that only holds the Warmup exchange Claude Code sends
/// when it starts (not a session of its own). Decided by reading the whole file when it is at
/// most [`WARMUP_MAX_BYTES`]: every record is a sidechain `user` / `assistant` record, the only
/// user record's text is `Warmup`, and no tool was called. Larger files are never Warmups.
pub fn is_warmup_file(path: &Path) -> bool {
    let size = std::fs::metadata(path).map(|m| m.len()).unwrap_or(u64::MAX);
    if size == 0 || size > WARMUP_MAX_BYTES {
        return false;
    }
    let mut buf = Vec::new();
    let Ok(file) = std::fs::File::open(path) else {
        return false;
    };
    if file.take(WARMUP_MAX_BYTES).read_to_end(&mut buf).is_err() {
        return false;
    }
    let mut users = 0;
    let mut warmup = false;
    for line in buf.split(|b| *b == b'\n') {
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let Ok(v) = serde_json::from_slice::<Value>(line) else {
            return false;
        };
        let content = v.get("message").and_then(|m| m.get("content"));
        match v.get("type").and_then(Value::as_str) {
            Some("user") => {
                users += 1;
                let text = content.map(scry_source::json::text_of).unwrap_or_default();
                warmup = text.trim() == "Warmup";
            }
            Some("assistant") => {
                let calls = content.and_then(Value::as_array).is_some_and(|a| {
                    a.iter()
                        .any(|b| b.get("type").and_then(Value::as_str) == Some("tool_use"))
                });
                if calls {
                    return false;
                }
            }
            _ => return false,
        }
    }
    users == 1 && warmup
}
