//! Discovery, roots, detection and side files, on homes built in a tempdir and on the corpus.

mod common;

use std::path::Path;

use common::*;
use scry_model::{EventKind, SessionKind, WarningKind};
use scry_source::{Env, Source};
use scry_source_claude::ClaudeSource;

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn line(v: serde_json::Value) -> String {
    let mut s = v.to_string();
    s.push('\n');
    s
}

#[test]
fn real_home_discovery() {
    let env = Env::with_home(corpus().join("real/home"));
    let d = ClaudeSource.discover(&env);
    assert!(d.warnings.is_empty(), "{:?}", d.warnings);
    assert_eq!(d.files.len(), 2);
    let main = d
        .files
        .iter()
        .find(|f| f.kind == SessionKind::Main)
        .unwrap();
    assert_eq!(main.id, "029942d1-8e5d-4155-96e8-b9fe03dadf8d");
    let sub = d
        .files
        .iter()
        .find(|f| f.kind == SessionKind::Subagent)
        .unwrap();
    assert_eq!(sub.id, "a9975201ec1be8441");
    assert_eq!(sub.parent.as_deref(), Some(main.id.as_str()));
    assert!(sub.related[0].ends_with("agent-a9975201ec1be8441.meta.json"));
    // Two default roots, ~/.config/claude absent.
    assert_eq!(d.roots.len(), 2);
    assert!(d.roots[0].exists && !d.roots[1].exists);
}

#[test]
fn config_dir_override_is_the_only_root() {
    let home = tempfile::tempdir().unwrap();
    let env = Env::with_home(home.path()).var_set(
        "CLAUDE_CONFIG_DIR",
        corpus()
            .join("real-older/claude-1.0.71/home/.claude")
            .to_string_lossy(),
    );
    let d = ClaudeSource.discover(&env);
    assert_eq!(d.roots.len(), 1);
    assert_eq!(d.roots[0].env_var.as_deref(), Some("CLAUDE_CONFIG_DIR"));
    // Five sessions; the 0-byte-free todos/ tree is not a transcript.
    assert_eq!(d.files.len(), 5);
    assert!(d.files.iter().all(|f| f.kind == SessionKind::Main));
}

#[test]
fn both_default_roots_and_old_layout_subagents() {
    let home = tempfile::tempdir().unwrap();
    let a = home.path().join(".claude/projects/-w");
    let b = home.path().join(".config/claude/projects/-v");
    let sid = "5e551011-0000-4000-8000-000000000001";
    write(
        &a.join(format!("{sid}.jsonl")),
        &line(
            serde_json::json!({"type":"user","uuid":"u1","sessionId":sid,"cwd":"/w","message":{"role":"user","content":"hello"}}),
        ),
    );
    // A real old-layout sidechain: parent from its lines' sessionId.
    write(
        &a.join("agent-1234abcd.jsonl"),
        &(line(
            serde_json::json!({"type":"user","uuid":"s1","sessionId":sid,"isSidechain":true,"cwd":"/w","message":{"role":"user","content":"count files"}}),
        ) + &line(
            serde_json::json!({"type":"assistant","uuid":"s2","sessionId":sid,"isSidechain":true,"message":{"id":"m1","role":"assistant","model":"x","content":[{"type":"text","text":"3"}]}}),
        )),
    );
    // A Warmup sidechain: not a session.
    write(
        &a.join("agent-99999999.jsonl"),
        &line(
            serde_json::json!({"type":"user","uuid":"w1","sessionId":sid,"isSidechain":true,"message":{"role":"user","content":"Warmup"}}),
        ),
    );
    // An empty session in the second root.
    write(&b.join("0e000000-0000-4000-8000-000000000002.jsonl"), "");
    let d = ClaudeSource.discover(&Env::with_home(home.path()));
    let ids: Vec<&str> = d.files.iter().map(|f| f.id.as_str()).collect();
    assert_eq!(ids.len(), 3, "{ids:?}");
    assert!(!ids.contains(&"99999999"));
    let old = d.files.iter().find(|f| f.id == "1234abcd").unwrap();
    assert_eq!(old.kind, SessionKind::Subagent);
    let h = ClaudeSource.scan_header(old).unwrap();
    assert_eq!(h.parent.as_deref(), Some(sid));
    let s = ClaudeSource.parse(old).unwrap();
    assert_eq!(s.header.parent.as_deref(), Some(sid));
    assert_eq!(
        s.events[0].kind,
        EventKind::User,
        "a subagent's task prompt starts its turn"
    );
    let empty = d.files.iter().find(|f| f.id.starts_with("0e00")).unwrap();
    assert!(ClaudeSource.parse(empty).unwrap().events.is_empty());
}

#[cfg(unix)]
#[test]
fn symlink_loop_is_a_warning() {
    let home = tempfile::tempdir().unwrap();
    let proj = home.path().join(".claude/projects/-w");
    std::fs::create_dir_all(&proj).unwrap();
    std::os::unix::fs::symlink(home.path().join(".claude/projects"), proj.join("loop")).unwrap();
    let d = ClaudeSource.discover(&Env::with_home(home.path()));
    assert!(d.warnings.iter().any(|w| w.kind == WarningKind::Unreadable));
}

#[test]
fn detect_recognizes_claude_files_only() {
    let f = real_project().join("029942d1-8e5d-4155-96e8-b9fe03dadf8d.jsonl");
    assert_eq!(
        ClaudeSource.detect(&f).unwrap().id,
        "029942d1-8e5d-4155-96e8-b9fe03dadf8d"
    );
    let codex = corpus().join("third-party/codex/agent-sessions_large.jsonl");
    if codex.exists() {
        assert!(ClaudeSource.detect(&codex).is_none());
    }
    let dir = tempfile::tempdir().unwrap();
    let other = dir.path().join("x.jsonl");
    write(&other, "{\"type\":\"session\",\"id\":\"1\"}\n");
    assert!(ClaudeSource.detect(&other).is_none());
}

fn persisted_session(root: &Path, with_file: bool) -> std::path::PathBuf {
    let proj = root.join("projects/-w");
    let sid = "7e570000-0000-4000-8000-000000000003";
    let preview = "<persisted-output>\nOutput too large (60.1KB). Full output saved to: C:\\Users\\x\\.claude\\projects\\-w\\7e57\\tool-results\\toolu_big.txt\n\nPreview (first 2KB):\nline 1\n...\n</persisted-output>";
    let text = line(
        serde_json::json!({"type":"assistant","uuid":"a1","message":{"id":"m1","role":"assistant","model":"x","content":[{"type":"tool_use","id":"toolu_big","name":"Bash","input":{"command":"seq 100000"}}]}}),
    ) + &line(
        serde_json::json!({"type":"user","uuid":"u1","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_big","content":preview}]}}),
    );
    let path = proj.join(format!("{sid}.jsonl"));
    write(&path, &text);
    if with_file {
        write(
            &proj.join(sid).join("tool-results/toolu_big.txt"),
            "line 1\nline 2\nthe whole output\n",
        );
    }
    path
}

#[test]
fn persisted_output_is_restored_from_tool_results() {
    let dir = tempfile::tempdir().unwrap();
    let s = parse(&persisted_session(dir.path(), true));
    let r = s
        .events
        .iter()
        .find(|e| e.kind == EventKind::ToolResult)
        .unwrap();
    assert_eq!(r.text, "line 1\nline 2\nthe whole output\n");
    let from = r.data.as_ref().unwrap()["restored_from"].as_str().unwrap();
    assert!(from.ends_with("tool-results/toolu_big.txt"));
    assert!(s.warnings.is_empty());
}

#[test]
fn missing_side_file_keeps_the_preview() {
    let dir = tempfile::tempdir().unwrap();
    let s = parse(&persisted_session(dir.path(), false));
    let r = s
        .events
        .iter()
        .find(|e| e.kind == EventKind::ToolResult)
        .unwrap();
    assert!(r.text.starts_with("<persisted-output>"));
    assert_eq!(s.warnings.len(), 1);
    assert_eq!(s.warnings[0].kind, WarningKind::MissingSideFile);
}

#[test]
fn demo_home_reads_cleanly() {
    let home = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../demo/home");
    let d = ClaudeSource.discover(&Env::with_home(&home));
    assert_eq!(d.files.len(), 3, "two sessions and one subagent");
    for f in &d.files {
        let s = ClaudeSource.parse(f).unwrap();
        assert!(
            s.warnings.is_empty(),
            "{}: {:?}",
            f.path.display(),
            s.warnings
        );
        assert!(s
            .events
            .iter()
            .filter(|e| e.kind == EventKind::ToolResult)
            .all(|e| e.tool.is_some()));
        assert!(s
            .header
            .cwd
            .as_deref()
            .is_some_and(|c| c.starts_with("/home/demo/projects/")));
    }
    let web = d
        .files
        .iter()
        .find(|f| f.id.starts_with("4f1c2a9e"))
        .unwrap();
    let s = ClaudeSource.parse(web).unwrap();
    assert_eq!(
        s.events
            .iter()
            .filter(|e| e.kind == EventKind::Compaction)
            .count(),
        2
    );
    assert_eq!(s.events.iter().filter(|e| e.is_failure()).count(), 1);
    assert_eq!(s.turn_count(), 3);
}
