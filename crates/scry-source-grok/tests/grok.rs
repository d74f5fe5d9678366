//! The Grok Build reader against the third-party fixtures (corpus `third-party/grok`) and
//! against side-file fixtures written here (events.jsonl, rewind_points.jsonl, updates.jsonl —
//! no public sample of those exists; their shapes follow formats.md §4.1).
//!
//! Expected counts for the corpus files were taken from the raw `chat_history.jsonl` with a
//! python one-off (json.loads per line; a `user` item with `prompt_index` and no
//! `synthetic_reason` is a prompt; assistant text = non-empty `content`; calls =
//! `len(tool_calls)`): main session — system 1, injected user 1, prompts 2, reasoning 2,
//! assistant text 1, tool calls 2 (+1 backend web search), tool results 2; subagent — system 1,
//! prompt 1, assistant text 2, tool calls 1, tool results 1.

use std::path::{Path, PathBuf};

use scry_model::{EventKind, LineageKind, Session, SessionKind, TimeSource, TitleSource};
use scry_source::{Env, Source, SourceFile};
use scry_source_grok::GrokSource;
use serde_json::json;

fn corpus() -> PathBuf {
    scry_testkit::corpus().join("third-party/grok")
}

fn count(s: &Session, kind: EventKind) -> usize {
    s.events.iter().filter(|e| e.kind == kind).count()
}

#[test]
fn third_party_main_session() {
    let env = Env::with_home("/nonexistent").var_set("GROK_HOME", corpus().display().to_string());
    let d = GrokSource.discover(&env);
    assert_eq!(d.files.len(), 1);
    let f = &d.files[0];
    assert_eq!(f.id, "019f6851-7ec4-7ef0-97d3-03f3eee38755");
    assert_eq!(
        f.cwd_hint.as_deref(),
        Some("/tmp/as-agent-lab/grok/project")
    );
    assert!(f.path.ends_with("chat_history.jsonl"));
    assert_eq!(f.related.len(), 1, "summary.json");
    let s = GrokSource.parse(f).unwrap();
    assert!(s.warnings.is_empty(), "{:?}", s.warnings);
    assert_eq!(count(&s, EventKind::User), 2);
    assert_eq!(count(&s, EventKind::Meta), 2);
    assert_eq!(count(&s, EventKind::Thinking), 2);
    assert_eq!(count(&s, EventKind::Assistant), 1);
    assert_eq!(count(&s, EventKind::ToolCall), 3);
    assert_eq!(count(&s, EventKind::ToolResult), 3);
    let env_ctx = s
        .events
        .iter()
        .find(|e| e.kind == EventKind::Meta && e.subtype.as_deref() == Some("environment_context"));
    assert!(env_ctx.is_some());
    // Every result is paired and carries its call's tool name.
    let tools: Vec<&str> = s
        .events
        .iter()
        .filter(|e| e.kind == EventKind::ToolResult)
        .filter_map(|e| e.tool.as_deref())
        .collect();
    assert_eq!(tools, vec!["read_file", "web_search", "run_terminal_cmd"]);
    let read = s
        .events
        .iter()
        .find(|e| e.kind == EventKind::ToolCall && e.tool.as_deref() == Some("read_file"))
        .unwrap();
    assert_eq!(
        read.args.as_ref().unwrap()["target_file"],
        "/tmp/as-agent-lab/grok/project/hello.py"
    );
    assert_eq!(read.model.as_deref(), Some("grok-4.5"));
    let second = s
        .events
        .iter()
        .filter(|e| e.kind == EventKind::User)
        .nth(1)
        .unwrap();
    assert_eq!(second.text, "Here is a screenshot for reference.");
    assert_eq!(second.data.as_ref().unwrap()["images"], json!(1));
    // Header from summary.json.
    let h = &s.header;
    assert_eq!(h.id, "019f6851-7ec4-7ef0-97d3-03f3eee38755");
    assert_eq!(h.cwd.as_deref(), Some("/tmp/as-agent-lab/grok/project"));
    assert_eq!(
        h.title.as_deref(),
        Some("Read hello.py and summarize what it prints")
    );
    assert_eq!(h.title_source, Some(TitleSource::Generated));
    assert_eq!(h.git_branch.as_deref(), Some("main"));
    assert_eq!(h.models, vec!["grok-4.5".to_string()]);
    assert_eq!(
        h.created.unwrap().to_string(),
        "2026-07-31T10:13:27.574131Z"
    );
    assert_eq!(h.updated.unwrap().to_string(), "2026-07-31T10:15:02.11894Z");
    assert_eq!(h.kind, SessionKind::Main);
    // No side files: no times, no tokens (unknown, not zero).
    assert!(s
        .events
        .iter()
        .all(|e| e.time.is_none() && e.time_source == TimeSource::None));
    assert!(s.total_usage().is_none());
    assert_eq!(s.turn_count(), 2);
    // The header scan reads only summary.json and agrees.
    let scanned = GrokSource.scan_header(f).unwrap();
    assert_eq!(
        (
            scanned.id.as_str(),
            scanned.title.as_deref(),
            scanned.cwd.as_deref()
        ),
        (h.id.as_str(), h.title.as_deref(), h.cwd.as_deref())
    );
}

#[test]
fn third_party_subagent() {
    let path = corpus().join("subagent/chat_history.jsonl");
    let f = GrokSource.detect(&path).expect("detected");
    let s = GrokSource.parse(&f).unwrap();
    assert!(s.warnings.is_empty(), "{:?}", s.warnings);
    assert_eq!(s.header.kind, SessionKind::Subagent);
    assert_eq!(s.header.agent_name.as_deref(), Some("explore"));
    assert_eq!(count(&s, EventKind::User), 1);
    assert_eq!(count(&s, EventKind::Assistant), 2);
    assert_eq!(count(&s, EventKind::ToolCall), 1);
    assert_eq!(count(&s, EventKind::ToolResult), 1);
    assert_eq!(count(&s, EventKind::Meta), 1);
}

fn write(path: &Path, lines: &[serde_json::Value]) {
    let mut s = String::new();
    for l in lines {
        s.push_str(&l.to_string());
        s.push('\n');
    }
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, s).unwrap();
}

const SID: &str = "019f9a00-0000-7000-8000-00000000aaaa";
const SUB: &str = "019f9a00-0000-7000-8000-00000000bbbb";

/// A session with all three side files, plus a subagent.
fn fixture(root: &Path) -> PathBuf {
    let dir = root
        .join("sessions/%2Fhome%2Fdemo%2Fprojects%2Fapi-server")
        .join(SID);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("summary.json"),
        json!({"info":{"id":SID,"cwd":"/home/demo/projects/api-server"},"generated_title":"Fix the failing test",
               "created_at":"2026-11-12T10:00:00.000000000Z","updated_at":"2026-11-12T10:06:00.000000000Z",
               "current_model_id":"grok-4.5","head_branch":"main","head_commit":"abc123"}).to_string(),
    )
    .unwrap();
    write(
        &dir.join("chat_history.jsonl"),
        &[
            json!({"type":"system","content":"You are Grok."}),
            json!({"type":"user","content":[{"type":"text","text":"<user_info>OS: linux</user_info>"}],"synthetic_reason":"environment_context"}),
            json!({"type":"user","content":[{"type":"text","text":"<user_query>\nrun the tests\n</user_query>"}],"prompt_index":0}),
            json!({"type":"reasoning","id":"rs_1","summary":[{"type":"summary_text","text":"Run pytest first."}],"status":"completed"}),
            json!({"type":"assistant","content":"Running the test suite.","tool_calls":[{"id":"call-1","name":"run_terminal_cmd","arguments":"{\"command\":\"pytest -q\"}"}],"model_id":"grok-4.5"}),
            json!({"type":"tool_result","tool_call_id":"call-1","content":"1 failed, 3 passed"}),
            json!({"type":"assistant","content":"One test fails: test_login.","tool_calls":[],"model_id":"grok-4.5"}),
            json!({"type":"user","content":[{"type":"text","text":"<user_query>fix it</user_query>"}],"prompt_index":1}),
            json!({"type":"assistant","content":"Unmatched text here.","tool_calls":[{"id":"call-2","name":"search_replace","arguments":"{\"file_path\":\"app.py\"}"}],"model_id":"grok-4.5"}),
            json!({"type":"tool_result","tool_call_id":"call-2","content":"ok"}),
        ],
    );
    write(
        &dir.join("rewind_points.jsonl"),
        &[
            json!({"prompt_index":0,"created_at":"2026-11-12T10:00:00Z"}),
            json!({"prompt_index":1,"created_at":"2026-11-12T10:05:00Z"}),
        ],
    );
    write(
        &dir.join("events.jsonl"),
        &[
            json!({"type":"turn_started","timestamp":"2026-11-12T10:00:00Z","prompt_index":0}),
            json!({"type":"tool_started","timestamp":"2026-11-12T10:00:05Z","tool_call_id":"call-1"}),
            json!({"type":"tool_completed","timestamp":"2026-11-12T10:00:07.500Z","tool_call_id":"call-1","outcome":"failure"}),
            json!({"type":"turn_completed","timestamp":"2026-11-12T10:00:09Z","prompt_index":0,
               "usage":{"input_tokens":1200,"cached_tokens":1000,"output_tokens":80,"reasoning_tokens":20,"costUsdTicks":1234}}),
            json!({"type":"tool_started","timestamp":"2026-11-12T10:05:03Z","tool_call_id":"call-2"}),
            json!({"type":"tool_completed","timestamp":"2026-11-12T10:05:03.040Z","tool_call_id":"call-2","duration_ms":40,"outcome":"success"}),
        ],
    );
    let up = |kind: &str, text: &str, ms: i64| {
        json!({"timestamp": ms / 1000, "method":"session/update","params":{"sessionId":SID,
            "update":{"sessionUpdate":kind,"content":{"type":"text","text":text}},"_meta":{"agentTimestampMs":ms}}})
    };
    // 2026-11-12T10:00:01Z = 1794477601000 ms.
    write(
        &dir.join("updates.jsonl"),
        &[
            up("user_message_chunk", "run the tests", 1_794_477_600_000),
            up("agent_thought_chunk", "Run pytest ", 1_794_477_601_000),
            up("agent_thought_chunk", "first.", 1_794_477_601_100),
            up("agent_message_chunk", "Running the ", 1_794_477_602_000),
            up("agent_message_chunk", "test suite.", 1_794_477_602_050),
            json!({"timestamp":1_794_477_605u64,"method":"session/update","params":{"update":{"sessionUpdate":"tool_call","toolCallId":"call-1","title":"run_terminal_cmd","status":"pending"}}}),
            json!({"timestamp":1_794_477_607u64,"method":"session/update","params":{"update":{"sessionUpdate":"tool_call_update","toolCallId":"call-1","status":"completed","content":[{"type":"content","content":{"type":"text","text":"Running the test suite."}}]}}}),
            up("agent_message_chunk", "One test fails: ", 1_794_477_608_000),
            up("agent_message_chunk", "test_login.", 1_794_477_608_010),
        ],
    );
    // A subagent without parent_session_id: the parent comes from the path.
    let sub = dir.join("subagents").join(SUB);
    std::fs::create_dir_all(&sub).unwrap();
    std::fs::write(
        sub.join("summary.json"),
        json!({"info":{"id":SUB,"cwd":"/home/demo/projects/api-server"},"session_kind":"subagent"})
            .to_string(),
    )
    .unwrap();
    write(
        &sub.join("chat_history.jsonl"),
        &[
            json!({"type":"user","content":[{"type":"text","text":"find login tests"}],"prompt_index":0}),
        ],
    );
    // A cwd too long to encode: the plain path is in `.cwd`.
    let long = root.join("sessions/long-name-hash");
    std::fs::create_dir_all(long.join("019f9a00-0000-7000-8000-00000000cccc")).unwrap();
    std::fs::write(long.join(".cwd"), "/home/demo/a/very/long/path\n").unwrap();
    std::fs::write(
        long.join("019f9a00-0000-7000-8000-00000000cccc/summary.json"),
        "{}",
    )
    .unwrap();
    dir
}

#[test]
fn side_files_give_times_outcomes_and_tokens() {
    let tmp = tempfile::tempdir().unwrap();
    fixture(tmp.path());
    let env = Env::with_home(tmp.path()).var_set("GROK_HOME", tmp.path().display().to_string());
    let d = GrokSource.discover(&env);
    assert!(d.warnings.is_empty(), "{:?}", d.warnings);
    let ids: Vec<&str> = d.files.iter().map(|f| f.id.as_str()).collect();
    assert_eq!(ids, vec![SID, SUB, "019f9a00-0000-7000-8000-00000000cccc"]);
    assert_eq!(
        d.files[0].cwd_hint.as_deref(),
        Some("/home/demo/projects/api-server")
    );
    assert_eq!(d.files[0].related.len(), 4);
    assert_eq!(
        d.files[2].cwd_hint.as_deref(),
        Some("/home/demo/a/very/long/path")
    );

    let s = GrokSource.parse(&d.files[0]).unwrap();
    assert!(s.warnings.is_empty(), "{:?}", s.warnings);
    let by_text = |t: &str| {
        s.events
            .iter()
            .find(|e| e.text == t)
            .unwrap_or_else(|| panic!("no event {t:?}"))
    };
    let ts = |e: &scry_model::Event| e.time.map(|t| t.to_string());

    // Prompts: rewind_points.jsonl by prompt index; the <user_query> wrapper is removed.
    let p0 = by_text("run the tests");
    assert_eq!(
        (p0.kind, ts(p0).as_deref(), p0.time_source),
        (
            EventKind::User,
            Some("2026-11-12T10:00:00Z"),
            TimeSource::Derived
        )
    );
    assert_eq!(
        ts(by_text("fix it")).as_deref(),
        Some("2026-11-12T10:05:00Z")
    );
    // Thinking and assistant text: updates.jsonl by text (chunks coalesced).
    assert_eq!(
        ts(by_text("Run pytest first.")).as_deref(),
        Some("2026-11-12T10:00:01Z")
    );
    assert_eq!(
        ts(by_text("Running the test suite.")).as_deref(),
        Some("2026-11-12T10:00:02Z")
    );
    assert_eq!(
        ts(by_text("One test fails: test_login.")).as_deref(),
        Some("2026-11-12T10:00:08Z")
    );
    // No text match: no time at all (never guessed by position).
    let unmatched = by_text("Unmatched text here.");
    assert_eq!(
        (unmatched.time, unmatched.time_source),
        (None, TimeSource::None)
    );

    // Tools: events.jsonl by call id.
    let c1 = s
        .events
        .iter()
        .find(|e| e.kind == EventKind::ToolCall && e.call_id.as_deref() == Some("call-1"))
        .unwrap();
    assert_eq!(ts(c1).as_deref(), Some("2026-11-12T10:00:05Z"));
    let r1 = s
        .events
        .iter()
        .find(|e| e.kind == EventKind::ToolResult && e.call_id.as_deref() == Some("call-1"))
        .unwrap();
    assert_eq!(
        (r1.duration_ms, r1.is_error, r1.exit_code),
        (Some(2500), Some(true), None)
    );
    assert_eq!(r1.data.as_ref().unwrap()["outcome"], "failure");
    assert_eq!(ts(r1).as_deref(), Some("2026-11-12T10:00:07.5Z"));
    let r2 = s
        .events
        .iter()
        .find(|e| e.kind == EventKind::ToolResult && e.call_id.as_deref() == Some("call-2"))
        .unwrap();
    assert_eq!(
        (r2.duration_ms, r2.is_error, r2.tool.as_deref()),
        (Some(40), Some(false), Some("search_replace"))
    );

    // Tokens: turn 1's turn_completed usage on its last assistant event (cached ⊂ input);
    // turn 2 recorded none → no usage.
    let with_usage: Vec<_> = s.events.iter().filter(|e| e.usage.is_some()).collect();
    assert_eq!(with_usage.len(), 1);
    assert_eq!(with_usage[0].text, "One test fails: test_login.");
    let u = with_usage[0].usage.unwrap();
    assert_eq!(
        (u.input, u.cache_read, u.output, u.reasoning),
        (200, 1000, 80, 20)
    );
    assert_eq!(
        with_usage[0].data.as_ref().unwrap()["turnUsage"]["costUsdTicks"],
        json!(1234)
    );
    assert_eq!(s.turn_count(), 2);
    assert_eq!(s.header.git_commit.as_deref(), Some("abc123"));

    // The subagent is a child session of the enclosing one.
    // Its summary.json has no title: the header scan falls back to the first prompt.
    let scanned = GrokSource.scan_header(&d.files[1]).unwrap();
    assert_eq!(scanned.title.as_deref(), Some("find login tests"));
    assert_eq!(scanned.title_source, Some(TitleSource::FirstPrompt));
    let sub = GrokSource.parse(&d.files[1]).unwrap();
    assert_eq!(sub.header.kind, SessionKind::Subagent);
    assert_eq!(sub.header.parent.as_deref(), Some(SID));
    assert_eq!(sub.header.lineage[0].kind, LineageKind::SubagentOf);
    // A compacted session says that its earlier turns are not in chat_history.jsonl.
    let cp = d.files[0]
        .path
        .parent()
        .unwrap()
        .join("compaction_checkpoints");
    std::fs::create_dir_all(&cp).unwrap();
    std::fs::write(cp.join("0001.jsonl"), "{}\n").unwrap();
    let compacted = GrokSource.parse(&d.files[0]).unwrap();
    assert_eq!(compacted.warnings.len(), 1);
    assert!(compacted.warnings[0]
        .message
        .contains("1 pre-compaction checkpoint"));
    // A summary-only session parses to an empty event list; its cwd comes from `.cwd`.
    let only = GrokSource.parse(&d.files[2]).unwrap();
    assert!(only.events.is_empty());
    assert_eq!(
        only.header.cwd.as_deref(),
        Some("/home/demo/a/very/long/path")
    );
}

#[test]
fn damaged_chat_history_and_unknown_items() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("sessions/%2Fx").join(SID);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("chat_history.jsonl"),
        "{\"type\":\"user\",\"content\":\"hi\",\"prompt_index\":0}\n{oops\n{\"type\":\"future_item\"}\n{\"type\":\"future_item\"}\n{\"type\":\"tool_result\",\"tool_call_id\":\"nope\",\"content\":\"x\"}\n{\"type\":\"assistant\",\"content\":\"torn",
    )
    .unwrap();
    std::fs::write(dir.join("events.jsonl"), "not json\n").unwrap();
    let f = SourceFile::new(
        scry_model::ProviderId::Grok,
        SID,
        dir.join("chat_history.jsonl"),
    );
    let s = GrokSource.parse(&f).unwrap();
    let kinds: Vec<&str> = s.warnings.iter().map(|w| w.kind.as_str()).collect();
    assert!(kinds.contains(&"corrupt_record"));
    assert!(kinds.contains(&"incomplete_tail"));
    assert!(kinds.contains(&"unknown_record"));
    assert!(kinds.contains(&"unpaired_result"));
    assert_eq!(
        s.warnings
            .iter()
            .filter(|w| w.kind.as_str() == "unknown_record")
            .count(),
        1
    );
    assert_eq!(count(&s, EventKind::User), 1);
    assert_eq!(count(&s, EventKind::ToolResult), 1);
}

#[test]
fn demo_session_reads_as_intended() {
    let home = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../demo/home");
    let d = GrokSource.discover(&Env::with_home(&home));
    assert_eq!(d.files.len(), 1);
    let s = GrokSource.parse(&d.files[0]).unwrap();
    assert!(s.warnings.is_empty(), "{:?}", s.warnings);
    assert_eq!(
        s.header.cwd.as_deref(),
        Some("/home/demo/projects/cli-tool")
    );
    assert_eq!(s.turn_count(), 2);
    assert_eq!(count(&s, EventKind::ToolCall), 6);
    assert_eq!(s.events.iter().filter(|e| e.is_failure()).count(), 1);
    assert_eq!(s.events.iter().filter(|e| e.usage.is_some()).count(), 2);
    assert!(s
        .events
        .iter()
        .filter(|e| e.kind == EventKind::User)
        .all(|e| e.time.is_some()));
}

#[test]
fn updates_jsonl_is_the_fallback_without_chat_history() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("sessions/%2Fhome%2Fdemo%2Fx").join(SID);
    std::fs::create_dir_all(&dir).unwrap();
    let ms = 1_794_477_600_000i64;
    let up = |u: serde_json::Value, t: i64| {
        json!({"timestamp": t / 1000, "method":"session/update",
        "params":{"sessionId":SID,"update":u,"_meta":{"agentTimestampMs":t}}})
    };
    write(
        &dir.join("updates.jsonl"),
        &[
            up(
                json!({"sessionUpdate":"user_message_chunk","content":{"type":"text","text":"list files"}}),
                ms,
            ),
            up(
                json!({"sessionUpdate":"agent_thought_chunk","content":{"type":"text","text":"use ls"}}),
                ms + 1_000,
            ),
            up(
                json!({"sessionUpdate":"tool_call","toolCallId":"t1","title":"run_terminal_cmd","kind":"execute","status":"pending","rawInput":{"command":"ls"}}),
                ms + 2_000,
            ),
            up(
                json!({"sessionUpdate":"tool_call_update","toolCallId":"t1","status":"in_progress","content":[{"type":"content","content":{"type":"text","text":"a.txt"}}]}),
                ms + 2_100,
            ),
            up(
                json!({"sessionUpdate":"tool_call_update","toolCallId":"t1","status":"completed","content":[{"type":"content","content":{"type":"text","text":"a.txt\nb.txt"}}]}),
                ms + 2_200,
            ),
            up(
                json!({"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"Two "}}),
                ms + 3_000,
            ),
            up(
                json!({"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"files."}}),
                ms + 3_010,
            ),
            up(
                json!({"sessionUpdate":"hook_execution","hook":"x"}),
                ms + 3_100,
            ),
        ],
    );
    let env = Env::with_home("/nonexistent").var_set("GROK_HOME", tmp.path().display().to_string());
    let d = GrokSource.discover(&env);
    assert_eq!(d.files.len(), 1);
    assert!(d.files[0].path.ends_with("updates.jsonl"));
    let s = GrokSource.parse(&d.files[0]).unwrap();
    let shape: Vec<(EventKind, &str)> =
        s.events.iter().map(|e| (e.kind, e.text.as_str())).collect();
    assert_eq!(
        shape,
        vec![
            (EventKind::User, "list files"),
            (EventKind::Thinking, "use ls"),
            (EventKind::ToolCall, ""),
            (EventKind::ToolResult, "a.txt\nb.txt"),
            (EventKind::Assistant, "Two files."),
        ]
    );
    assert_eq!(s.events[3].tool.as_deref(), Some("run_terminal_cmd"));
    assert_eq!(s.events[3].is_error, Some(false));
    assert_eq!(s.events[4].time_source, TimeSource::Event);
    assert_eq!(s.warnings.len(), 1, "{:?}", s.warnings);
    assert!(s.warnings[0].message.contains("hook_execution"));
    assert_eq!(s.header.cwd.as_deref(), Some("/home/demo/x"));
}
