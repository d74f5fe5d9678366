//! Every Continue CLI 1.5.47 file of the real corpus (`real/home/.continue/sessions`): counts
//! taken from the raw documents (history items, prompts, tool calls, tool states), tokens
//! against the document's own `usage` totals (ccusage does not read Continue), the tool outcome
//! mapping (`cat missing.txt` errored with exit 1, `false` stored as `done` stays unknown),
//! times from `sessions.json` and the mtime, and the CJK prompt.

use std::path::PathBuf;

use scry_model::{EventKind, Session, TitleSource};
use scry_source::{Env, Source};
use scry_source_continue::ContinueSource;
use serde_json::Value;

fn home() -> PathBuf {
    scry_testkit::corpus().join("real/home")
}

fn sessions() -> Vec<(Value, Session)> {
    let d = ContinueSource.discover(&Env::with_home(home()));
    assert!(d.warnings.is_empty(), "{:?}", d.warnings);
    d.files
        .iter()
        .map(|f| {
            let raw: Value = serde_json::from_slice(&std::fs::read(&f.path).unwrap()).unwrap();
            (raw, ContinueSource.parse(f).unwrap())
        })
        .collect()
}

fn count(s: &Session, kind: EventKind) -> usize {
    s.events.iter().filter(|e| e.kind == kind).count()
}

#[test]
fn discovery_finds_every_document_but_the_index() {
    let d = ContinueSource.discover(&Env::with_home(home()));
    let on_disk = std::fs::read_dir(home().join(".continue/sessions"))
        .unwrap()
        .filter(|e| {
            let n = e.as_ref().unwrap().file_name();
            n != "sessions.json" && n.to_string_lossy().ends_with(".json")
        })
        .count();
    assert_eq!(on_disk, 2);
    assert_eq!(d.files.len(), on_disk);
    for f in &d.files {
        assert!(f.related[0].ends_with("sessions.json"));
        assert_eq!(ContinueSource.detect(&f.path).unwrap().id, f.id);
    }
    // `CONTINUE_GLOBAL_DIR` replaces `~/.continue`.
    let env = Env::with_home("/nowhere").var_set(
        "CONTINUE_GLOBAL_DIR",
        home().join(".continue").to_string_lossy(),
    );
    assert_eq!(ContinueSource.discover(&env).files.len(), on_disk);
    assert!(ContinueSource
        .detect(&home().join(".continue/sessions/sessions.json"))
        .is_none());
}

#[test]
fn counts_match_the_raw_documents() {
    let all = sessions();
    assert_eq!(all.len(), 2);
    for (raw, s) in &all {
        let history = raw["history"].as_array().unwrap();
        let role = |r: &str| history.iter().filter(|i| i["message"]["role"] == r).count();
        let calls: usize = history
            .iter()
            .map(|i| i["message"]["toolCalls"].as_array().map_or(0, |a| a.len()))
            .sum();
        let states: usize = history
            .iter()
            .map(|i| i["toolCallStates"].as_array().map_or(0, |a| a.len()))
            .sum();
        let texts = history
            .iter()
            .filter(|i| {
                i["message"]["role"] == "assistant"
                    && i["message"]["content"]
                        .as_str()
                        .is_some_and(|c| !c.trim().is_empty())
            })
            .count();
        assert_eq!(count(s, EventKind::User), role("user"), "{}", s.header.id);
        assert_eq!(s.turn_count() as usize, role("user"));
        assert_eq!(count(s, EventKind::ToolCall), calls);
        assert_eq!(count(s, EventKind::ToolResult), states);
        assert_eq!(count(s, EventKind::Assistant), texts);
        assert!(s.warnings.is_empty(), "{:?}", s.warnings);
        // Every result pairs with a call of the same tool.
        for r in s.events.iter().filter(|e| e.kind == EventKind::ToolResult) {
            let call = s
                .events
                .iter()
                .find(|c| c.kind == EventKind::ToolCall && c.call_id == r.call_id)
                .expect("paired call");
            assert_eq!(call.tool, r.tool);
        }
        assert_eq!(s.header.cwd.as_deref(), raw["workspaceDirectory"].as_str());
        assert_eq!(s.header.agent_version, None);
        assert_eq!(s.header.models, vec!["gpt-4.1".to_string()]);
        // The placeholder title is no title: the first prompt stands in.
        assert_eq!(s.header.title_source, Some(TitleSource::FirstPrompt));
    }
    let a = &all
        .iter()
        .find(|(raw, _)| raw["history"].as_array().unwrap().len() == 13)
        .expect("the three-prompt session")
        .1;
    assert_eq!(a.turn_count(), 3);
    assert_eq!(count(a, EventKind::ToolCall), 7);
}

#[test]
fn tokens_equal_the_documents_totals() {
    for (raw, s) in sessions() {
        let u = s.total_usage().expect("usage recorded");
        let prompt = raw["usage"]["promptTokens"].as_u64().unwrap();
        let completion = raw["usage"]["completionTokens"].as_u64().unwrap();
        assert_eq!(
            u.input + u.cache_read + u.cache_write,
            prompt,
            "{}",
            s.header.id
        );
        assert_eq!(u.output, completion);
        // Cached tokens from the per-message details (the top-level detail says 0).
        let cached: u64 = raw["history"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|i| {
                i["message"]["usage"]["prompt_tokens_details"]["cached_tokens"].as_u64()
            })
            .sum();
        assert_eq!(u.cache_read, cached);
        assert!(cached > 0);
        // One usage per model request (assistant item), never twice.
        let requests = raw["history"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|i| i["message"]["usage"].is_object())
            .count();
        assert_eq!(
            s.events.iter().filter(|e| e.usage.is_some()).count(),
            requests
        );
    }
}

#[test]
fn tool_outcomes_follow_the_states() {
    let all = sessions();
    let results: Vec<_> = all
        .iter()
        .flat_map(|(_, s)| s.events.iter())
        .filter(|e| e.kind == EventKind::ToolResult)
        .collect();
    let call_of = |cmd: &str| {
        all.iter()
            .flat_map(|(_, s)| s.events.iter())
            .find(|e| e.kind == EventKind::ToolCall && e.args.as_ref().unwrap()["command"] == cmd)
            .unwrap()
            .call_id
            .clone()
    };
    let result_of = |cmd: &str| {
        let id = call_of(cmd);
        *results.iter().find(|r| r.call_id == id).unwrap()
    };
    let missing = result_of("cat missing.txt");
    assert_eq!(missing.is_error, Some(true));
    assert_eq!(missing.exit_code, Some(1));
    assert!(missing.is_failure());
    assert!(missing.text.contains("No such file"));
    // `false` exits 1 but Continue stored it as done with no output: unknown, not success.
    let f = result_of("false");
    assert_eq!((f.is_error, f.exit_code), (None, None));
    assert_eq!(f.data.as_ref().unwrap()["status"], "done");
    let ls = result_of("ls -la");
    assert_eq!(ls.is_error, None);
    assert!(ls.text.contains("app.py"));
    // Non-shell tools that are done succeeded.
    let write = results
        .iter()
        .find(|r| r.tool.as_deref() == Some("Write"))
        .unwrap();
    assert_eq!(write.is_error, Some(false));
}

#[test]
fn times_come_from_the_index_and_the_last_rewrite() {
    let index: Value = serde_json::from_slice(
        &std::fs::read(home().join(".continue/sessions/sessions.json")).unwrap(),
    )
    .unwrap();
    for (_, s) in sessions() {
        let entry = index
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["sessionId"] == s.header.id.as_str())
            .unwrap();
        let ms: i64 = entry["dateCreated"].as_str().unwrap().parse().unwrap();
        assert_eq!(s.header.created.unwrap().as_millisecond(), ms);
        let mtime = std::fs::metadata(&s.header.sources[0])
            .unwrap()
            .modified()
            .unwrap();
        let mtime = jiff_ms(mtime);
        assert!(s.header.updated.unwrap().as_millisecond() >= ms);
        assert_eq!(s.header.updated.unwrap().as_millisecond(), mtime.max(ms));
    }
}

fn jiff_ms(t: std::time::SystemTime) -> i64 {
    t.duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as i64
}

#[test]
fn cjk_prompt_and_planted_key_are_read_verbatim() {
    let all = sessions();
    let (_, b) = all
        .iter()
        .find(|(_, s)| s.events.iter().any(|e| e.text.contains("跨会话检索")))
        .expect("the CJK session");
    let user = b.events.iter().find(|e| e.kind == EventKind::User).unwrap();
    assert!(user
        .text
        .starts_with("请帮我检查这个项目是否支持跨会话检索"));
    assert!(user.text.contains("sk-live-TESTSECRET123456"));
    assert!(b.header.title.as_deref().unwrap().contains("跨会话检索"));
}
