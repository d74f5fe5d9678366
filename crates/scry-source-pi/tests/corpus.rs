//! The pi reader on the shared corpus and on hand-written v3 / v1 fixtures.
//!
//! Expected numbers were computed from the raw files with a separate Python script (not with
//! this parser): prompts = `message` entries with role `user`; thinking / text / tool calls =
//! assistant content blocks by `type`; results = role `toolResult` (errors = `isError`); usage
//! summed over assistant `usage` (the script also checked `totalTokens` = input + output +
//! cacheRead + cacheWrite on every record, so pi's counts are additive); exit codes = results
//! whose text ends with `Command exited with code 1`.

use std::fs;
use std::path::Path;

use scry_model::{EventKind, Session, SessionKind, Surface, TitleSource, WarningKind};
use scry_source::{Env, Source};
use scry_source_pi::PiSource;
use scry_testkit::corpus;

fn count(s: &Session, kind: EventKind) -> usize {
    s.events.iter().filter(|e| e.kind == kind).count()
}

fn assert_pairing(s: &Session) {
    for r in s.events.iter().filter(|e| e.kind == EventKind::ToolResult) {
        let id = r.call_id.as_deref().unwrap();
        let call = s
            .events
            .iter()
            .find(|c| c.kind == EventKind::ToolCall && c.call_id.as_deref() == Some(id))
            .expect("paired");
        assert!(call.seq < r.seq);
        assert_eq!(call.tool, r.tool);
    }
}

#[test]
fn real_0_73_1_session() {
    let d = PiSource.discover(&Env::with_home(corpus().join("real/home")));
    assert_eq!(d.files.len(), 1);
    assert_eq!(d.files[0].id, "01a22d30-ecda-727d-b78c-ef0f21e58dab");
    let s = PiSource.parse(&d.files[0]).unwrap();
    assert!(s.warnings.is_empty(), "{:?}", s.warnings);
    let h = &s.header;
    assert_eq!(h.id, "01a22d30-ecda-727d-b78c-ef0f21e58dab");
    assert_eq!(h.cwd.as_deref(), Some("/home/dev/more/work/proj-pi"));
    assert_eq!(h.kind, SessionKind::Main);
    assert_eq!(h.title_source, Some(TitleSource::FirstPrompt));
    assert_eq!(h.models, ["claude-sonnet-4-5"]);
    assert_eq!(h.created.unwrap().to_string(), "2026-11-30T16:01:50.811Z");
    assert_eq!(h.updated.unwrap().to_string(), "2026-11-30T16:01:58.525Z");
    assert_eq!(count(&s, EventKind::User), 4);
    assert_eq!(count(&s, EventKind::Thinking), 3);
    assert_eq!(count(&s, EventKind::Assistant), 5);
    assert_eq!(count(&s, EventKind::ToolCall), 8);
    assert_eq!(count(&s, EventKind::ToolResult), 8);
    assert_eq!(count(&s, EventKind::Compaction), 1);
    assert_eq!(count(&s, EventKind::Meta), 2);
    assert_pairing(&s);
    let failed: Vec<_> = s.events.iter().filter(|e| e.is_failure()).collect();
    assert_eq!(failed.len(), 2);
    assert!(failed
        .iter()
        .all(|e| e.exit_code == Some(1) && e.is_error == Some(true)));
    let u = s.total_usage().unwrap();
    assert_eq!(
        (u.input, u.output, u.cache_read, u.cache_write),
        (1357, 553, 20411, 3703)
    );
    // 12 assistant messages, one usage each.
    assert_eq!(s.events.iter().filter(|e| e.usage.is_some()).count(), 12);
    let c = s
        .events
        .iter()
        .find(|e| e.kind == EventKind::Compaction)
        .unwrap();
    assert!(c.text.starts_with("<analysis>"));
    assert_eq!(c.data.as_ref().unwrap()["firstKeptEntryId"], "bd3c442d");
    assert!(s.events.iter().all(|e| e.surface == Surface::Current));
    assert!(s
        .events
        .iter()
        .all(|e| e.locator.as_str().starts_with("id:")));
}

#[test]
fn third_party_v3_fixture() {
    let f = PiSource
        .detect(&corpus().join("third-party/pi/agent-sessions_small_v3.jsonl"))
        .unwrap();
    let s = PiSource.parse(&f).unwrap();
    assert!(s.warnings.is_empty());
    assert_eq!(
        s.header.cwd.as_deref(),
        Some("/tmp/as-agent-fixture/project")
    );
    assert_eq!(count(&s, EventKind::User), 2);
    assert_eq!(count(&s, EventKind::Assistant), 2);
    assert_eq!(count(&s, EventKind::Compaction), 2);
    let u = s.total_usage().unwrap();
    assert_eq!((u.input, u.output), (24, 14));
}

fn write_session(lines: &[&str]) -> (tempfile::TempDir, Session) {
    let home = tempfile::tempdir().unwrap();
    let dir = home.path().join("agent/sessions/--home-demo-p--");
    fs::create_dir_all(&dir).unwrap();
    let mut text = lines.join("\n");
    text.push('\n');
    fs::write(
        dir.join("2026-11-04T10-00-00-000Z_7d0c7b2e-1111-4222-8333-444455556666.jsonl"),
        text,
    )
    .unwrap();
    let env = Env::with_home("/nonexistent").var_set(
        "PI_CODING_AGENT_DIR",
        home.path().join("agent").to_string_lossy(),
    );
    let d = PiSource.discover(&env);
    assert_eq!(d.roots[0].env_var.as_deref(), Some("PI_CODING_AGENT_DIR"));
    assert_eq!(d.files.len(), 1);
    let s = PiSource.parse(&d.files[0]).unwrap();
    (home, s)
}

const HEAD: &str = r#"{"type":"session","version":3,"id":"7d0c7b2e-1111-4222-8333-444455556666","timestamp":"2026-11-04T10:00:00.000Z","cwd":"/home/demo/p","parentSession":"/x/--p--/2026-11-01T09-00-00-000Z_0a0b0c0d-aaaa-4bbb-8ccc-dddddddddddd.jsonl"}"#;

#[test]
fn abandoned_branch_is_shadowed_and_tree_entries_map() {
    let (_home, s) = write_session(&[
        HEAD,
        r#"{"type":"message","id":"u1","parentId":null,"timestamp":"2026-11-04T10:00:01.000Z","message":{"role":"user","content":"first"}}"#,
        r#"{"type":"message","id":"a1","parentId":"u1","timestamp":"2026-11-04T10:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"attempt A"}],"model":"m","usage":{"input":5,"output":2,"cacheRead":1,"cacheWrite":0}}}"#,
        r#"{"type":"branch_summary","id":"b1","parentId":"u1","timestamp":"2026-11-04T10:00:03.000Z","fromId":"a1","summary":"A did not work"}"#,
        r#"{"type":"message","id":"a2","parentId":"b1","timestamp":"2026-11-04T10:00:04.000Z","message":{"role":"bashExecution","command":"make","output":"error","exitCode":2,"cancelled":false,"truncated":false}}"#,
        r#"{"type":"session_info","id":"i1","parentId":"a2","timestamp":"2026-11-04T10:00:05.000Z","name":"Fix the build"}"#,
        r#"{"type":"label","id":"l1","parentId":"i1","timestamp":"2026-11-04T10:00:06.000Z","targetId":"u1","label":"start"}"#,
        r#"{"type":"hologram","id":"h1","parentId":"l1","timestamp":"2026-11-04T10:00:07.000Z"}"#,
        r#"{"type":"hologram","id":"h2","parentId":"h1","timestamp":"2026-11-04T10:00:08.000Z"}"#,
        r#"{"type":"message","id":"r9","parentId":"h2","timestamp":"2026-11-04T10:00:09.000Z","message":{"role":"toolResult","toolCallId":"ghost","toolName":"read","content":[{"type":"text","text":"x"}],"isError":false}}"#,
    ]);
    let h = &s.header;
    assert_eq!(h.kind, SessionKind::Fork);
    assert_eq!(
        h.parent.as_deref(),
        Some("0a0b0c0d-aaaa-4bbb-8ccc-dddddddddddd")
    );
    assert_eq!(h.title.as_deref(), Some("Fix the build"));
    assert_eq!(h.title_source, Some(TitleSource::Custom));
    let a = s.events.iter().find(|e| e.text == "attempt A").unwrap();
    assert_eq!(a.surface, Surface::Shadowed, "a1 is off the active path");
    let b = s
        .events
        .iter()
        .find(|e| e.text == "A did not work")
        .unwrap();
    assert_eq!((b.kind, b.surface), (EventKind::Meta, Surface::Current));
    let bash: Vec<_> = s
        .events
        .iter()
        .filter(|e| e.tool.as_deref() == Some("bash"))
        .collect();
    assert_eq!(bash.len(), 2);
    assert_eq!(bash[1].exit_code, Some(2));
    assert_eq!(bash[1].is_error, Some(true));
    let ghost = s
        .events
        .iter()
        .find(|e| e.call_id.as_deref() == Some("ghost"))
        .unwrap();
    assert_eq!(ghost.data.as_ref().unwrap()["unconfirmed"], true);
    let kinds: Vec<_> = s.warnings.iter().map(|w| w.kind).collect();
    assert_eq!(
        kinds
            .iter()
            .filter(|k| **k == WarningKind::UnknownRecord)
            .count(),
        1
    );
    assert_eq!(
        kinds
            .iter()
            .filter(|k| **k == WarningKind::UnpairedResult)
            .count(),
        1
    );
}

#[test]
fn v1_session_without_ids_uses_record_locators() {
    let (_home, s) = write_session(&[
        r#"{"type":"session","id":"7d0c7b2e-1111-4222-8333-444455556666","timestamp":"2024-12-03T14:00:00.000Z","cwd":"/home/demo/p","provider":"anthropic","modelId":"claude-sonnet-4-5","thinkingLevel":"off"}"#,
        r#"{"type":"message","timestamp":"2024-12-03T14:00:01.000Z","message":{"role":"user","content":"Hello","timestamp":1733234401000}}"#,
        r#"{"type":"message","timestamp":"2024-12-03T14:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"Hi!"}],"provider":"anthropic","model":"claude-sonnet-4-5","usage":{"input":3,"output":2,"cacheRead":0,"cacheWrite":0},"stopReason":"stop"}}"#,
    ]);
    assert_eq!(s.header.models, ["claude-sonnet-4-5"]);
    assert_eq!(s.events.len(), 2);
    assert!(s.events.iter().all(|e| e.locator.as_str().starts_with('r')));
    assert!(s.events.iter().all(|e| e.surface == Surface::Current));
}

#[test]
fn torn_tail_and_corrupt_middle_line() {
    let (_home, s) = write_session(&[
        HEAD,
        r#"{"type":"message","id":"u1","parentId":null,"timestamp":"2026-11-04T10:00:01.000Z","message":{"role":"user","content":"first"}}"#,
        "{broken",
        r#"{"type":"message","id":"a1","parentId":"u1","timestamp":"2026-11-04T10:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"ok"}]}}"#,
    ]);
    assert_eq!(s.events.len(), 2);
    assert_eq!(s.warnings.len(), 1);
    assert_eq!(s.warnings[0].kind, WarningKind::CorruptRecord);
    assert_eq!(s.warnings[0].line, Some(3));

    let home = tempfile::tempdir().unwrap();
    let path = home.path().join("2026-11-04T10-00-00-000Z_x.jsonl");
    fs::write(
        &path,
        format!("{HEAD}\n{{\"type\":\"message\",\"id\":\"u1\",\"parentId\":null,\"message\":{{\"role\":\"us"),
    )
    .unwrap();
    let f = PiSource.detect(&path).unwrap();
    let s = PiSource.parse(&f).unwrap();
    assert!(s.events.is_empty());
    assert_eq!(s.warnings[0].kind, WarningKind::IncompleteTail);
}

#[test]
fn demo_session_parses() {
    // demo/home is synthetic (written for `scry --demo`).
    let home = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../demo/home");
    let d = PiSource.discover(&Env::with_home(home));
    assert_eq!(d.files.len(), 1);
    let s = PiSource.parse(&d.files[0]).unwrap();
    assert!(s.warnings.is_empty(), "{:?}", s.warnings);
    assert_eq!(
        s.header.cwd.as_deref(),
        Some("/home/demo/projects/cli-tool")
    );
    assert_eq!(count(&s, EventKind::User), 2);
    assert_eq!(s.events.iter().filter(|e| e.is_failure()).count(), 1);
    assert_pairing(&s);
}

#[test]
fn odd_shapes_never_panic() {
    let (_home, s) = write_session(&[
        HEAD,
        r#"{"type":"message","id":"m1","parentId":"m1","message":{"role":"assistant","content":[null,{"type":"toolCall"},{"type":"image"}],"usage":"x"}}"#,
        r#"{"type":"message","id":"m2","parentId":"zz","message":{"role":"toolResult","content":7,"isError":"no"}}"#,
        r#"{"type":"message","id":5,"message":null}"#,
        r#"{"type":"compaction","summary":null,"usage":{"input":"12"}}"#,
        r#"{"type":"session","id":"second header"}"#,
        r#"[1,2]"#,
        r#"{"type":"message","id":"m3","parentId":"m2","message":{"role":"bashExecution","exitCode":"1"}}"#,
    ]);
    assert!(!s.events.is_empty());
    // m2's parent is missing: the branch cannot be told, so nothing is shadowed.
    assert!(s.events.iter().all(|e| e.surface != Surface::Shadowed));
}

#[test]
fn dsh_look_alike_headers_are_not_detected() {
    // DeepSeek Harness also starts with {"type":"session",…,"cwd"}: never claimed as pi.
    let dsh = corpus().join("third-party/dsh");
    for f in fs::read_dir(dsh).unwrap() {
        assert!(PiSource.detect(&f.unwrap().path()).is_none());
    }
}

/// `probe_cwd` (one header line, used to find Aider histories in other agents' cwds) says what
/// the full parse says for every corpus session, and nothing for a file whose first line is
/// not the `session` record.
#[test]
fn probe_cwd_agrees_with_the_parse() {
    let mut seen = 0;
    for home in ["real/home", "third-party"] {
        let env = Env::with_home(corpus().join(home));
        for file in PiSource.discover(&env).files {
            let parsed = PiSource.scan_header(&file).map(|h| h.cwd).ok().flatten();
            let probed = PiSource.probe_cwd(&file);
            assert!(
                probed.is_none() || probed == parsed,
                "{}",
                file.path.display()
            );
            seen += usize::from(probed.is_some());
        }
    }
    assert!(seen >= 1, "the corpus has pi sessions with a header line");
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("2026-11-30T16-01-50-811Z_x.jsonl");
    fs::write(
        &path,
        "{\"type\":\"model_change\",\"id\":\"a\"}\n{\"type\":\"session\",\"cwd\":\"/x\"}\n",
    )
    .unwrap();
    let file = scry_source::SourceFile::new(scry_model::ProviderId::Pi, "x", &path);
    assert_eq!(PiSource.probe_cwd(&file), None);
    fs::write(&path, "{\"type\":\"session\",\"cwd\":\"/x\"}").unwrap();
    let file = scry_source::SourceFile::new(scry_model::ProviderId::Pi, "x", &path);
    assert_eq!(PiSource.probe_cwd(&file), None, "no complete line yet");
}
