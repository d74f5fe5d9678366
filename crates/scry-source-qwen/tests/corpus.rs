//! Every Qwen Code 0.24.4 file of the shared corpus (`real/home/.qwen`), read end to end: the
//! expected counts are taken from the raw records by this test itself (JSON lines, counted by
//! `type` / parts), so they are independent of the provider's mapping.

use std::path::PathBuf;

use scry_model::{EventKind, Session, SessionKind, Surface, TitleSource};
use scry_source::{collect, Env, Source, SourceFile};
use scry_source_qwen::{ParseStats, QwenSource};
use serde_json::Value;

fn home() -> PathBuf {
    scry_testkit::corpus().join("real/home")
}

const MAIN: &str = "4106c652-5ce3-4ae6-a2cd-65c5cd0e4ab1";
const CJK: &str = "f8aa1e14-f598-4d91-a29c-07a02d84eaed";
const SUB: &str = "general-purpose-call_0831eabf344947feb914e450";

fn files() -> Vec<SourceFile> {
    QwenSource.discover(&Env::with_home(home())).files
}

fn file(id: &str) -> SourceFile {
    files()
        .into_iter()
        .find(|f| f.id == id)
        .unwrap_or_else(|| panic!("{id} not discovered"))
}

fn parse(id: &str) -> (Session, ParseStats) {
    let f = file(id);
    let mut stats = None;
    let s = collect(|out| {
        let (h, st) = QwenSource.parse_with_stats(&f, out)?;
        stats = Some(st);
        Ok(h)
    })
    .unwrap();
    (s, stats.unwrap())
}

fn raw(id: &str) -> Vec<Value> {
    std::fs::read_to_string(&file(id).path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn count(s: &Session, k: EventKind) -> usize {
    s.events.iter().filter(|e| e.kind == k).count()
}

fn parts(r: &Value) -> Vec<Value> {
    r["message"]["parts"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

/// Counts straight from the records: (user prompts, function calls, function responses,
/// thought parts, assistant records with text, compression records, telemetry records,
/// attribution snapshots).
fn raw_counts(records: &[Value]) -> [usize; 8] {
    let ty = |r: &Value| r["type"].as_str().unwrap_or("").to_string();
    let sub = |r: &Value| r["subtype"].as_str().unwrap_or("").to_string();
    let mut c = [0; 8];
    for r in records {
        let ps = parts(r);
        match ty(r).as_str() {
            "user" => c[0] += 1,
            "assistant" => {
                c[1] += ps
                    .iter()
                    .filter(|p| p.get("functionCall").is_some())
                    .count();
                c[3] += ps.iter().filter(|p| p["thought"] == true).count();
                c[4] += usize::from(
                    ps.iter()
                        .any(|p| p.get("text").is_some() && p.get("thought").is_none()),
                );
            }
            "tool_result" => {
                c[2] += ps
                    .iter()
                    .filter(|p| p.get("functionResponse").is_some())
                    .count()
            }
            "system" => match sub(r).as_str() {
                "chat_compression" => c[5] += 1,
                "ui_telemetry" => c[6] += 1,
                "attribution_snapshot" => c[7] += 1,
                other => panic!("new system subtype {other}"),
            },
            other => panic!("new record type {other}"),
        }
    }
    c
}

#[test]
fn discovery_finds_two_sessions_and_one_subagent() {
    let fs = files();
    let ids: Vec<(&str, SessionKind)> = fs.iter().map(|f| (f.id.as_str(), f.kind)).collect();
    assert_eq!(
        ids,
        [
            (MAIN, SessionKind::Main),
            (CJK, SessionKind::Main),
            (SUB, SessionKind::Subagent)
        ]
    );
    let sub = &fs[2];
    assert_eq!(sub.parent.as_deref(), Some(MAIN));
    assert!(sub.related[0].to_string_lossy().ends_with(".meta.json"));
}

#[test]
fn every_file_matches_its_raw_records() {
    for id in [MAIN, CJK, SUB] {
        let records = raw(id);
        let [users, calls, results, thoughts, texts, compactions, telemetry, snapshots] =
            raw_counts(&records);
        let (s, stats) = parse(id);
        assert!(s.warnings.is_empty(), "{id}: {:?}", s.warnings);
        assert_eq!(stats.records as usize, records.len(), "{id}");
        assert_eq!(count(&s, EventKind::User), users, "{id} users");
        assert_eq!(s.turn_count() as usize, users, "{id} turns");
        assert_eq!(count(&s, EventKind::ToolCall), calls, "{id} calls");
        assert_eq!(count(&s, EventKind::ToolResult), results, "{id} results");
        assert_eq!(count(&s, EventKind::Thinking), thoughts, "{id} thinking");
        assert_eq!(count(&s, EventKind::Assistant), texts, "{id} texts");
        assert_eq!(count(&s, EventKind::Compaction), compactions, "{id}");
        let tel: u64 = stats.telemetry.values().sum();
        assert_eq!(tel as usize, telemetry, "{id} telemetry counted");
        assert_eq!(
            stats
                .counted
                .get("attribution_snapshot")
                .copied()
                .unwrap_or(0) as usize,
            snapshots
        );
        // Every call is answered, by id.
        for c in s.events.iter().filter(|e| e.kind == EventKind::ToolCall) {
            assert!(
                s.events
                    .iter()
                    .any(|r| r.kind == EventKind::ToolResult && r.call_id == c.call_id),
                "{id}: {:?} unanswered",
                c.call_id
            );
        }
    }
}

#[test]
fn the_main_session_in_numbers() {
    // Session A: 56 records (`wc -l`), 4 typed prompts (`/compress` writes none), 25
    // `ui_telemetry` records (`grep -c ui_telemetry`: 16 api_response + 9 tool_call).
    let (s, stats) = parse(MAIN);
    assert_eq!(stats.records, 56);
    assert_eq!(s.turn_count(), 4);
    assert_eq!(stats.telemetry.get("qwen-code.api_response"), Some(&16));
    assert_eq!(stats.telemetry.get("qwen-code.tool_call"), Some(&9));
    let h = &s.header;
    assert_eq!(h.id, MAIN);
    assert_eq!(h.cwd.as_deref(), Some("/home/dev/new/work/proj-qwen"));
    assert_eq!(h.git_branch.as_deref(), Some("master"));
    assert_eq!(h.agent_version.as_deref(), Some("0.24.4"));
    assert_eq!(h.models, ["qwen3-coder-plus"]);
    assert_eq!(h.title_source, Some(TitleSource::FirstPrompt));
    assert_eq!(
        h.title.as_deref(),
        Some("Please inspect this project and then create a notes file.")
    );
    // The two failing commands: exit 1 and is_error, from `resultDisplay.exitCode`.
    let failed: Vec<(String, Option<i64>)> = s
        .events
        .iter()
        .filter(|e| e.kind == EventKind::ToolResult && e.is_error == Some(true))
        .map(|e| {
            let call = s
                .events
                .iter()
                .find(|c| c.kind == EventKind::ToolCall && c.call_id == e.call_id)
                .unwrap();
            (
                call.args.as_ref().unwrap()["command"]
                    .as_str()
                    .unwrap()
                    .to_string(),
                e.exit_code,
            )
        })
        .collect();
    assert_eq!(
        failed,
        [
            ("cat missing.txt".to_string(), Some(1)),
            ("false".to_string(), Some(1))
        ]
    );
    // A successful shell result has exit 0 and its telemetry duration.
    let ls = s
        .events
        .iter()
        .find(|e| e.kind == EventKind::ToolResult && e.text.starts_with("Command: ls -la"))
        .unwrap();
    assert_eq!(
        (ls.exit_code, ls.is_error, ls.duration_ms),
        (Some(0), Some(false), Some(1728))
    );
    // The compaction: its summary, and the two summary requests as log-only usage.
    let c = s
        .events
        .iter()
        .find(|e| e.kind == EventKind::Compaction)
        .unwrap();
    assert!(c.text.starts_with("<summary>"), "{}", c.text);
    assert_eq!(c.data.as_ref().unwrap()["info"]["triggerReason"], "manual");
    assert!(c.turn == 3);
    let req: Vec<_> = s
        .events
        .iter()
        .filter(|e| e.subtype.as_deref() == Some("compression_request"))
        .collect();
    assert_eq!(req.len(), 2);
    assert!(req
        .iter()
        .all(|e| e.surface == Surface::LogOnly && e.kind == EventKind::Meta));
    // The delegation names the subagent session.
    let agent = s
        .events
        .iter()
        .find(|e| e.kind == EventKind::ToolCall && e.tool.as_deref() == Some("agent"))
        .unwrap();
    assert_eq!(agent.data.as_ref().unwrap()["agentId"], SUB);
    let done = s
        .events
        .iter()
        .find(|e| e.kind == EventKind::ToolResult && e.tool.as_deref() == Some("agent"))
        .unwrap();
    assert_eq!(
        done.data.as_ref().unwrap()["subagent"]["terminateReason"],
        "GOAL"
    );
}

#[test]
fn the_subagent_links_to_its_parent() {
    let (s, _) = parse(SUB);
    let h = &s.header;
    assert_eq!(h.kind, SessionKind::Subagent);
    assert_eq!(h.parent.as_deref(), Some(MAIN));
    assert_eq!(h.agent_name.as_deref(), Some("general-purpose"));
    assert_eq!(h.title.as_deref(), Some("Count project files"));
    // Its one shell call: exit code from the output text (no `resultDisplay` here), duration
    // from `toolCallResult.durationMs`.
    let r = s
        .events
        .iter()
        .find(|e| e.kind == EventKind::ToolResult)
        .unwrap();
    assert_eq!((r.exit_code, r.duration_ms), (Some(0), Some(746)));
}

#[test]
fn the_cjk_session_keeps_prompt_and_key_verbatim() {
    let (s, _) = parse(CJK);
    let u = s.events.iter().find(|e| e.kind == EventKind::User).unwrap();
    assert!(u.text.contains("跨会话检索"));
    assert!(u.text.contains("sk-live-TESTSECRET123456"));
}

#[test]
fn detect_claims_every_corpus_file_and_parses_the_same() {
    for f in files() {
        let d = QwenSource.detect(&f.path).expect("detected");
        assert_eq!(d, f);
    }
}

#[test]
fn a_torn_last_line_is_a_warning_and_the_rest_is_read() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join(".qwen/projects/-p/chats");
    std::fs::create_dir_all(&dir).unwrap();
    let mut bytes = std::fs::read(file(CJK).path).unwrap();
    bytes.extend_from_slice(b"{\"uuid\":\"x\",\"type\":\"assis");
    std::fs::write(dir.join("s.jsonl"), bytes).unwrap();
    let d = QwenSource.discover(&Env::with_home(tmp.path()));
    let s = QwenSource.parse(&d.files[0]).unwrap();
    assert_eq!(s.header.id, CJK);
    assert_eq!(count(&s, EventKind::User), 1);
    assert_eq!(s.warnings.len(), 1);
    assert_eq!(s.warnings[0].kind, scry_model::WarningKind::IncompleteTail);
}

#[test]
fn a_subagent_file_given_outside_the_layout_is_still_the_subagent() {
    let tmp = tempfile::tempdir().unwrap();
    let copy = tmp.path().join("sub.jsonl");
    std::fs::copy(file(SUB).path, &copy).unwrap();
    let f = QwenSource.detect(&copy).expect("detected");
    let s = QwenSource.parse(&f).unwrap();
    assert_eq!(s.header.id, SUB);
    assert_eq!(s.header.kind, SessionKind::Subagent);
    assert_eq!(s.header.parent.as_deref(), Some(MAIN));
    assert_eq!(s.header.lineage[0].evidence, "sessionId");
}
