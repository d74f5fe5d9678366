//! The Aider 0.86.2 chat history of the real corpus (`real/home/new/work/proj-aider`): one
//! session per launch (three, the second restored from the first), counts taken from the raw
//! lines (launch headers, prompts, `/run` lines, SEARCH/REPLACE blocks), edits as file writes
//! with their `Applied edit` results, no tokens, the CJK prompt; and the bounded discovery walk.

use std::path::PathBuf;

use scry_model::{EventKind, LineageKind, Session};
use scry_source::{Env, Source};
use scry_source_aider::{AiderSource, HISTORY_FILE};

fn home() -> PathBuf {
    scry_testkit::corpus().join("real/home")
}

fn history() -> PathBuf {
    home().join("new/work/proj-aider").join(HISTORY_FILE)
}

fn sessions() -> Vec<Session> {
    let d = AiderSource.discover(&Env::with_home("/nowhere").with_cwd(home()));
    assert!(d.warnings.is_empty(), "{:?}", d.warnings);
    d.files
        .iter()
        .map(|f| AiderSource.parse(f).unwrap())
        .collect()
}

/// The raw lines of each launch (header line excluded).
fn raw_launches() -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(history()).unwrap();
    let mut out: Vec<Vec<String>> = Vec::new();
    for l in text.lines() {
        if l.starts_with("# aider chat started at ") {
            out.push(Vec::new());
        } else if let Some(cur) = out.last_mut() {
            cur.push(l.to_string());
        }
    }
    out
}

fn count(s: &Session, kind: EventKind) -> usize {
    s.events.iter().filter(|e| e.kind == kind).count()
}

#[test]
fn one_session_per_launch_with_counts_from_the_lines() {
    let raw = raw_launches();
    let all = sessions();
    assert_eq!(raw.len(), 3);
    assert_eq!(all.len(), raw.len());
    for (lines, s) in raw.iter().zip(&all) {
        let prompts = lines
            .iter()
            .filter(|l| l.starts_with("#### ") && !l[5..].starts_with('/'))
            .count();
        let runs = lines.iter().filter(|l| l.starts_with("#### /run ")).count();
        let edits = lines
            .iter()
            .filter(|l| l.trim() == "<<<<<<< SEARCH")
            .count();
        let applied = lines
            .iter()
            .filter(|l| l.starts_with("> Applied edit to "))
            .count();
        assert_eq!(count(s, EventKind::User), prompts, "{}", s.header.id);
        assert_eq!(s.turn_count() as usize, prompts);
        assert_eq!(count(s, EventKind::ToolCall), runs + edits);
        assert_eq!(count(s, EventKind::ToolResult), runs + applied);
        assert_eq!(s.header.agent_version.as_deref(), Some("0.86.2"));
        assert_eq!(s.header.models, vec!["openai/mock-coder".to_string()]);
        assert!(s
            .header
            .cwd
            .as_deref()
            .unwrap()
            .ends_with("new/work/proj-aider"));
        assert!(s.header.id.ends_with("-proj-aider"), "{}", s.header.id);
        // Aider records no exact tokens: nothing is counted.
        assert_eq!(s.total_usage(), None);
        assert!(s.warnings.is_empty(), "{:?}", s.warnings);
        assert_eq!(s.events[0].subtype.as_deref(), Some("launch"));
    }
    assert_eq!(all[0].header.id, "20261201-221342-proj-aider");
    // Launch 2 restored launch 1's chat: its own session, linked back.
    assert!(all[0].header.lineage.is_empty());
    let l = &all[1].header.lineage;
    assert_eq!(l.len(), 1);
    assert_eq!(l[0].kind, LineageKind::ResumedFrom);
    assert_eq!(l[0].target, all[0].header.id);
    assert!(all[2].header.lineage.is_empty());
    // Times: launch headers (read as UTC here when TZ is unset), the last up to the mtime.
    assert!(all[0].header.created < all[1].header.created);
    assert!(all[1].header.created < all[2].header.created);
}

#[test]
fn edits_are_file_writes_with_results() {
    let all = sessions();
    let calls: Vec<_> = all
        .iter()
        .flat_map(|s| s.events.iter())
        .filter(|e| e.kind == EventKind::ToolCall && e.subtype.as_deref() == Some("search_replace"))
        .collect();
    assert_eq!(calls.len(), 2);
    assert_eq!(calls[0].tool.as_deref(), Some("write"));
    assert_eq!(calls[0].args.as_ref().unwrap()["path"], "notes.txt");
    assert_eq!(
        calls[0].args.as_ref().unwrap()["replace"],
        "hello\nsecond line\n"
    );
    assert_eq!(calls[1].tool.as_deref(), Some("edit"));
    assert_eq!(calls[1].args.as_ref().unwrap()["search"], "hello\n");
    for c in &calls {
        let r = all
            .iter()
            .flat_map(|s| s.events.iter())
            .find(|e| e.kind == EventKind::ToolResult && e.call_id == c.call_id)
            .expect("applied");
        assert_eq!(r.is_error, Some(false));
        assert_eq!(r.text, "Applied edit to notes.txt");
    }
    // `/run cat missing.txt`: a shell call whose exit status aider does not write.
    let run = all[1]
        .events
        .iter()
        .find(|e| e.kind == EventKind::ToolCall && e.tool.as_deref() == Some("shell"))
        .unwrap();
    assert_eq!(run.args.as_ref().unwrap()["command"], "cat missing.txt");
    let out = all[1]
        .events
        .iter()
        .find(|e| e.kind == EventKind::ToolResult && e.call_id == run.call_id)
        .unwrap();
    assert_eq!((out.is_error, out.exit_code), (None, None));
    assert!(out.text.contains("Added 1 line of output"));
}

#[test]
fn cjk_prompt_and_detect() {
    let all = sessions();
    let s = &all[2];
    let user = s.events.iter().find(|e| e.kind == EventKind::User).unwrap();
    assert!(user
        .text
        .starts_with("请帮我检查这个项目是否支持跨会话检索"));
    assert!(user.text.contains("sk-live-TESTSECRET123456"));
    assert!(s.header.title.as_deref().unwrap().contains("跨会话检索"));
    // `.aider.input.history` recorded this prompt (`--message`) 8.252916 s after the launch
    // header (both local times, so the difference holds in any zone); the answer inherits it.
    let launch = s.header.created.unwrap();
    assert_eq!(user.time_source, scry_model::TimeSource::Event);
    assert_eq!(
        user.time.unwrap().as_microsecond() - launch.as_microsecond(),
        8_252_916
    );
    let answer = s
        .events
        .iter()
        .find(|e| e.kind == EventKind::Assistant)
        .unwrap();
    assert_eq!(answer.time, user.time);
    assert_eq!(answer.time_source, scry_model::TimeSource::Derived);
    // Piped prompts are not in the input history: the launch's time stands.
    let first = all[0]
        .events
        .iter()
        .find(|e| e.kind == EventKind::User)
        .unwrap();
    assert_eq!(first.time_source, scry_model::TimeSource::Session);
    assert_eq!(first.time, all[0].header.created);
    // A path given directly: its last launch.
    let f = AiderSource.detect(&history()).unwrap();
    assert_eq!(f.id, s.header.id);
    assert!(AiderSource
        .detect(&home().join("new/work/proj-aider/git-log.txt"))
        .is_none());
}

#[test]
fn discovery_walk_is_bounded_and_skips_dependencies() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    let body = "\n# aider chat started at 2026-11-01 10:00:00\n\n#### hi  \n\nhello\n";
    let put = |rel: &str| {
        let p = t.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, body).unwrap();
    };
    put("a/.aider.chat.history.md");
    put("a/b/c/d/e/f/.aider.chat.history.md"); // depth 5: found
    put("a/b/c/d/e/f/g/.aider.chat.history.md"); // depth 6: too deep
    put("node_modules/x/.aider.chat.history.md");
    put(".hidden/.aider.chat.history.md");
    put("target/.aider.chat.history.md");
    put("elsewhere/p/.aider.chat.history.md");
    let found = |env: &Env| {
        let mut v: Vec<String> = AiderSource
            .discover(env)
            .files
            .iter()
            .map(|f| {
                f.path
                    .strip_prefix(t.canonicalize().unwrap())
                    .unwrap()
                    .display()
                    .to_string()
            })
            .collect();
        v.sort();
        v
    };
    let env = Env::with_home("/nowhere").with_cwd(t.join("a"));
    assert_eq!(
        found(&env),
        vec![
            "a/.aider.chat.history.md",
            "a/b/c/d/e/f/.aider.chat.history.md"
        ]
    );
    // Configured roots and the file named by AIDER_CHAT_HISTORY_FILE; overlaps counted once.
    let env = Env::with_home("/nowhere")
        .with_cwd(t.join("a"))
        .with_project_dirs([t.join("a"), t.join("elsewhere")])
        .var_set(
            "AIDER_CHAT_HISTORY_FILE",
            t.join("target/.aider.chat.history.md").to_string_lossy(),
        );
    assert_eq!(
        found(&env),
        vec![
            "a/.aider.chat.history.md",
            "a/b/c/d/e/f/.aider.chat.history.md",
            "elsewhere/p/.aider.chat.history.md",
            "target/.aider.chat.history.md"
        ]
    );
    // No cwd (a built environment, the demo of another home): nothing is walked.
    assert!(AiderSource.discover(&Env::with_home(t)).files.is_empty());
}
