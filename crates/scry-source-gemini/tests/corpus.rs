//! The Gemini reader on the shared corpus: every file parses, and per-file expectations.
//!
//! Expected numbers were computed from the raw files with a separate Python script (not with
//! this parser): for `.jsonl`, the last record written for each `id` in first-seen order (lines
//! with a string `id`); for `.json`, `messages[]`. Prompts = `user` messages with text parts,
//! not `<session_context>…`, not `/compress`, not the 0.22.4 "Your task is … <objective>"
//! delegation prompt; thinking = `len(thoughts)`; calls = `len(toolCalls)`; tokens summed over
//! `tokens` as input − cached + tool, output + thoughts, cached, thoughts; exit codes = shell
//! outputs containing a line `Exit Code: N`.

use std::path::Path;

use scry_model::{EventKind, Session, SessionKind, Surface, TitleSource};
use scry_source::{Env, Source};
use scry_source_gemini::GeminiSource;
use scry_testkit::corpus;

fn count(s: &Session, kind: EventKind) -> usize {
    s.events.iter().filter(|e| e.kind == kind).count()
}

fn parse_home(home: &str) -> Vec<Session> {
    let env = Env::with_home(corpus().join(home));
    let d = GeminiSource.discover(&env);
    d.files
        .iter()
        .map(|f| GeminiSource.parse(f).expect("parses"))
        .collect()
}

fn assert_pairing(s: &Session) {
    for r in s.events.iter().filter(|e| e.kind == EventKind::ToolResult) {
        let id = r.call_id.as_deref().expect("result has a call id");
        let call = s
            .events
            .iter()
            .find(|c| c.kind == EventKind::ToolCall && c.call_id.as_deref() == Some(id))
            .expect("result is paired");
        assert!(call.seq < r.seq);
        assert_eq!(call.tool, r.tool);
    }
}

#[test]
fn every_corpus_file_parses() {
    let mut n = 0;
    for home in ["real/home", "real-older/gemini-0.22.4/home"] {
        for s in parse_home(home) {
            assert!(!s.events.is_empty(), "{}", s.header.id);
            assert!(s.warnings.is_empty(), "{:?}", s.warnings);
            n += 1;
        }
    }
    for f in std::fs::read_dir(corpus().join("third-party/gemini")).unwrap() {
        let path = f.unwrap().path();
        let file = GeminiSource.detect(&path).expect("detected");
        let s = GeminiSource.parse(&file).expect("parses");
        assert!(!s.events.is_empty());
        n += 1;
    }
    assert_eq!(n, 6);
}

#[test]
fn real_0_61_main_session() {
    let sessions = parse_home("real/home");
    assert_eq!(
        sessions.len(),
        2,
        "main + subagent, never the subagent as main"
    );
    let s = sessions
        .iter()
        .find(|s| s.header.kind == SessionKind::Main)
        .unwrap();
    let h = &s.header;
    assert_eq!(h.id, "0794b9b3-30eb-4330-a6a4-cdbf774d74b6");
    // projects.json maps /home/dev/work/proj-gemini to the folder name proj-gemini.
    assert_eq!(h.cwd.as_deref(), Some("/home/dev/work/proj-gemini"));
    assert_eq!(h.title_source, Some(TitleSource::FirstPrompt));
    assert_eq!(
        h.title.as_deref(),
        Some("Please inspect this project and then create a notes file.")
    );
    assert_eq!(h.models, ["gemini-3.8-flash"]);
    // First metadata line startTime; last message timestamp (line 77).
    assert_eq!(h.created.unwrap().to_string(), "2026-11-30T14:52:39.867Z");
    assert_eq!(h.updated.unwrap().to_string(), "2026-11-30T14:52:50.197Z");

    assert_eq!(count(s, EventKind::User), 4);
    assert_eq!(s.turn_count(), 4);
    assert_eq!(count(s, EventKind::Thinking), 3);
    assert_eq!(count(s, EventKind::ToolCall), 8);
    assert_eq!(
        count(s, EventKind::ToolResult),
        8,
        "duplicated results skipped"
    );
    assert_eq!(count(s, EventKind::Assistant), 6);
    assert_pairing(s);
    // `cat missing.txt` and `false`: "Exit Code: 1"; successful 0.61.0 outputs carry none.
    let exits: Vec<Option<i64>> = s
        .events
        .iter()
        .filter(|e| {
            e.kind == EventKind::ToolResult && e.tool.as_deref() == Some("run_shell_command")
        })
        .map(|e| e.exit_code)
        .collect();
    assert_eq!(exits, [None, Some(1), None, Some(1)]);
    assert_eq!(s.events.iter().filter(|e| e.is_failure()).count(), 2);

    let meta: Vec<_> = s
        .events
        .iter()
        .filter(|e| e.kind == EventKind::Meta)
        .map(|e| e.subtype.as_deref().unwrap_or(""))
        .collect();
    assert_eq!(meta, ["session_context", "command"]);
    // `/compress` is absent from the final `$set.messages` list (line 64): not current.
    let compress = s.events.iter().find(|e| e.text == "/compress").unwrap();
    assert_eq!(compress.surface, Surface::Shadowed);

    let u = s.total_usage().unwrap();
    assert_eq!(u.input, 91403);
    assert_eq!(u.output, 519);
    assert_eq!(u.cache_read, 78442);
    assert_eq!(u.reasoning, 64);
    assert_eq!(u.cache_write, 0);
    // 13 distinct gemini message ids carry `tokens` → 13 events carry usage.
    assert_eq!(s.events.iter().filter(|e| e.usage.is_some()).count(), 13);

    let invoke = s
        .events
        .iter()
        .find(|e| e.tool.as_deref() == Some("invoke_agent") && e.kind == EventKind::ToolCall)
        .unwrap();
    assert_eq!(
        invoke.data.as_ref().unwrap()["agentId"],
        "7dab970e-a3e7-4999-8322-6a363109c03f"
    );
    assert_eq!(invoke.args.as_ref().unwrap()["agent_name"], "generalist");
    for e in &s.events {
        assert!(e.locator.as_str().starts_with("id:"));
        assert!(e.time.is_some());
    }
}

#[test]
fn real_0_61_subagent_is_linked_not_main() {
    let sessions = parse_home("real/home");
    let s = sessions
        .iter()
        .find(|s| s.header.kind == SessionKind::Subagent)
        .unwrap();
    let h = &s.header;
    assert_eq!(h.id, "7dab970e-a3e7-4999-8322-6a363109c03f");
    assert_eq!(
        h.parent.as_deref(),
        Some("0794b9b3-30eb-4330-a6a4-cdbf774d74b6")
    );
    assert_eq!(h.lineage.len(), 1);
    // `directories` in its metadata line and projects.json agree.
    assert_eq!(h.cwd.as_deref(), Some("/home/dev/work/proj-gemini"));
    // Its `summary` is the task result, so the title is the task prompt.
    assert_eq!(h.title_source, Some(TitleSource::FirstPrompt));
    assert_eq!(count(s, EventKind::User), 1);
    assert_eq!(count(s, EventKind::Thinking), 1);
    assert_eq!(count(s, EventKind::ToolCall), 2);
    assert_eq!(count(s, EventKind::ToolResult), 2);
    assert_pairing(s);
    let u = s.total_usage().unwrap();
    assert_eq!(
        (u.input, u.output, u.cache_read, u.reasoning),
        (15617, 107, 9438, 18)
    );
}

#[test]
fn older_0_22_4_legacy_document() {
    let sessions = parse_home("real-older/gemini-0.22.4/home");
    assert_eq!(sessions.len(), 1);
    let s = &sessions[0];
    let h = &s.header;
    assert_eq!(h.id, "354cf7c7-212e-4324-8c7d-2f71d60b3ca3");
    // sha256("/home/dev/older/work/proj-gemini-0.22.4") is the folder name (checked with
    // sha256sum); the path comes from write_file's file_path.
    assert_eq!(
        h.cwd.as_deref(),
        Some("/home/dev/older/work/proj-gemini-0.22.4")
    );
    assert_eq!(h.title.as_deref(), Some("Mock reply."));
    assert_eq!(h.title_source, Some(TitleSource::Summary));
    assert_eq!(h.models, ["gemini-2.5-flash"]);
    assert_eq!(count(s, EventKind::User), 4);
    assert_eq!(count(s, EventKind::Thinking), 3);
    assert_eq!(count(s, EventKind::ToolCall), 8);
    assert_eq!(count(s, EventKind::ToolResult), 8);
    assert_eq!(count(s, EventKind::Assistant), 5);
    assert_pairing(s);
    // The delegation prompt stored as a user message is not a human prompt.
    let meta: Vec<_> = s
        .events
        .iter()
        .filter(|e| e.kind == EventKind::Meta)
        .map(|e| e.subtype.as_deref().unwrap_or(""))
        .collect();
    assert_eq!(meta, ["subagent_prompt"]);
    // `/compress` left one empty info message.
    let sys: Vec<_> = s
        .events
        .iter()
        .filter(|e| e.kind == EventKind::System)
        .collect();
    assert_eq!(sys.len(), 1);
    assert_eq!(sys[0].text, "");
    // One record (2233efa3) holds replace + run_shell_command of two model turns.
    let in_one: Vec<_> = s
        .events
        .iter()
        .filter(|e| e.kind == EventKind::ToolCall && e.locator.as_str().starts_with("id:2233efa3"))
        .map(|e| e.tool.clone().unwrap())
        .collect();
    assert_eq!(in_one, ["replace", "run_shell_command"]);
    let exits: Vec<Option<i64>> = s
        .events
        .iter()
        .filter(|e| {
            e.kind == EventKind::ToolResult && e.tool.as_deref() == Some("run_shell_command")
        })
        .map(|e| e.exit_code)
        .collect();
    assert_eq!(exits, [Some(0), Some(1), Some(1)]);
    let u = s.total_usage().unwrap();
    assert_eq!(
        (u.input, u.output, u.cache_read, u.reasoning),
        (52059, 444, 37754, 64)
    );
    // Raw references point into the document at each message's own bytes.
    let bytes = std::fs::read(&h.sources[0]).unwrap();
    let first = &s.events[0];
    let start = first.raw.offset as usize;
    let slice = &bytes[start..start + first.raw.len as usize];
    let v: serde_json::Value = serde_json::from_slice(slice).unwrap();
    assert_eq!(v["id"], "11c2a8e3-0e73-4a21-8db6-8675bc64c0dd");
}

#[test]
fn third_party_fixtures() {
    let dir = corpus().join("third-party/gemini");
    let parse = |name: &str| {
        let f = GeminiSource.detect(&dir.join(name)).unwrap();
        GeminiSource.parse(&f).unwrap()
    };
    let s = parse("agent-sessions_jsonl_v040.jsonl");
    assert_eq!(s.header.id, "gemini_stage0_jsonl");
    assert_eq!(count(&s, EventKind::User), 1);
    assert_eq!(count(&s, EventKind::ToolCall), 1);
    assert_eq!(count(&s, EventKind::ToolResult), 1);
    assert_eq!(count(&s, EventKind::Assistant), 1);
    let u = s.total_usage().unwrap();
    assert_eq!((u.input, u.output, u.cache_read), (12422, 228, 11502));

    let s = parse("agent-sessions_small_legacy.json");
    assert_eq!(count(&s, EventKind::User), 1);
    assert_eq!(count(&s, EventKind::Thinking), 1);
    assert_eq!(count(&s, EventKind::Assistant), 1);

    let s = parse("agent-sessions_large_legacy.json");
    assert_eq!(count(&s, EventKind::User), 2);
    assert_eq!(count(&s, EventKind::ToolCall), 2);
    assert_eq!(count(&s, EventKind::ToolResult), 2);
    // Two `type: "model"` messages with `parts`.
    assert_eq!(count(&s, EventKind::Assistant), 2);
    assert_eq!(count(&s, EventKind::System), 1);
    // This fixture's outputs hold a literal backslash-n, not a newline, before "Exit Code":
    // no line carries an exit code, so none is claimed.
    assert!(s.events.iter().all(|e| e.exit_code.is_none()));
}

#[test]
fn demo_session_parses() {
    // demo/home is synthetic (written for `scry --demo`): 2 prompts, 4 calls, 1 failing test run.
    let home = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../demo/home");
    let d = GeminiSource.discover(&Env::with_home(home));
    assert_eq!(d.files.len(), 1);
    let s = GeminiSource.parse(&d.files[0]).unwrap();
    assert!(s.warnings.is_empty(), "{:?}", s.warnings);
    assert_eq!(s.header.cwd.as_deref(), Some("/home/demo/projects/webapp"));
    assert_eq!(
        s.header.title.as_deref(),
        Some("Reject empty emails on the signup form")
    );
    assert_eq!(count(&s, EventKind::User), 2);
    assert_eq!(count(&s, EventKind::ToolCall), 5);
    assert_eq!(count(&s, EventKind::ToolResult), 5);
    assert_eq!(s.events.iter().filter(|e| e.is_failure()).count(), 1);
    assert_pairing(&s);
}
