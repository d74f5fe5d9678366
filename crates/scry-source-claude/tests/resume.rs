//! Resuming (SPEC S-I2, issue #5): on every Claude Code file of the corpus and the demo home,
//! a prefix parsed with resume points and continued from its last point over the whole file
//! equals the full parse — events, warnings and header — at every line boundary (sampled on
//! long files), at torn cuts in the middle of lines, and chained cut after cut. Plus the cases
//! the state exists for: split assistant messages, call/result pairing across the point,
//! compaction, duplicated lines, titles, and bytes read.

mod common;

use std::io::Write;
use std::path::{Path, PathBuf};

use common::{corpus, jsonl_files, source_file};
use scry_model::EventKind;
use scry_source::{Source, SourceFile};
use scry_source_claude::ClaudeSource;
use scry_testkit::law;
use serde_json::json;

fn demo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../demo/home/.claude")
}

fn all_files() -> Vec<PathBuf> {
    let mut files = Vec::new();
    for dir in [
        corpus().join("third-party/claude"),
        corpus().join("real/home/.claude"),
        corpus().join("real-older/claude-1.0.71"),
        demo(),
    ] {
        files.extend(jsonl_files(&dir));
    }
    files
}

/// Cuts for a file: every line end (at most 80, spread), and torn cuts inside a few lines.
fn cuts(bytes: &[u8]) -> Vec<usize> {
    let ends = law::line_ends(bytes);
    let mut cuts = law::sample(&ends, 80);
    for w in law::sample(&ends, 6).windows(2) {
        let mid = (w[0] + w[1]) / 2;
        if !ends.contains(&mid) {
            cuts.push(mid);
        }
    }
    cuts.sort_unstable();
    cuts.dedup();
    cuts
}

#[test]
fn the_law_holds_on_every_corpus_and_demo_file() {
    let mut total = law::Tally::default();
    let mut files = 0;
    let mut without_points = Vec::new();
    for path in all_files() {
        let bytes = std::fs::read(&path).unwrap();
        let t = law::check(&ClaudeSource, &path, &|p| source_file(p), &cuts(&bytes), 3);
        // Claude always resumes from its own points: a refusal is a failure here.
        assert_eq!(t.refused, 0, "{}", path.display());
        files += 1;
        total.cuts += t.cuts;
        total.resumed += t.resumed;
        total.torn += t.torn;
        if t.resumed == 0 {
            without_points.push(path.file_name().unwrap().to_string_lossy().into_owned());
        }
    }
    eprintln!("{files} files, {total:?}, never resumable: {without_points:?}");
    // 14 corpus files (see corpus.rs) + 3 demo files.
    assert_eq!(files, 17);
    assert!(total.resumed > 100, "{total:?}");
    assert!(total.torn >= 17 * 3, "{total:?}");
    // Every file with an assistant line carrying a requestId resumes somewhere (all real
    // files but the 1.0.71 one made of two `summary` lines). Files without any requestId
    // never do: the copied-prefix rule stays open (the fixtures and the demo sessions).
    for p in all_files() {
        let text = std::fs::read_to_string(&p).unwrap();
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        let has_request = text.lines().any(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap_or_default();
            v["type"] == "assistant" && v["requestId"].as_str().is_some_and(|r| !r.is_empty())
        });
        assert_eq!(!without_points.contains(&name), has_request, "{name}");
    }
}

// ---- synthetic files for the state that crosses lines ----------------------------------

const SID: &str = "5b1e2c3d-0000-4000-8000-00000000abcd";

fn env(ty: &str, uuid: &str, ts: u32) -> serde_json::Value {
    json!({
        "type": ty, "uuid": uuid, "parentUuid": null, "sessionId": SID,
        "cwd": "/home/t/proj", "version": "2.1.332", "gitBranch": "main",
        "isSidechain": false, "userType": "external",
        "timestamp": format!("2026-11-20T10:{:02}:{:02}.000Z", ts / 60, ts % 60),
    })
}

fn prompt(uuid: &str, ts: u32, text: &str) -> String {
    let mut v = env("user", uuid, ts);
    v["message"] = json!({"role": "user", "content": text});
    format!("{v}\n")
}

fn block(uuid: &str, ts: u32, msg: &str, req: &str, b: serde_json::Value, out: u64) -> String {
    let mut v = env("assistant", uuid, ts);
    v["requestId"] = json!(req);
    v["message"] = json!({
        "id": msg, "type": "message", "role": "assistant", "model": "claude-opus-4-5",
        "content": [b], "stop_reason": null,
        "usage": {"input_tokens": 10, "output_tokens": out, "cache_read_input_tokens": 100,
                  "cache_creation_input_tokens": 5},
    });
    format!("{v}\n")
}

fn result(uuid: &str, ts: u32, call: &str, text: &str) -> String {
    let mut v = env("user", uuid, ts);
    v["message"] = json!({"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": call, "content": text}]});
    v["toolUseResult"] = json!({"stdout": text, "stderr": "", "interrupted": false});
    format!("{v}\n")
}

fn system(uuid: &str, ts: u32, sub: &str) -> String {
    let mut v = env("system", uuid, ts);
    v["subtype"] = json!(sub);
    v["content"] = json!(if sub == "compact_boundary" {
        "Conversation compacted"
    } else {
        ""
    });
    if sub == "turn_duration" {
        v["durationMs"] = json!(1200);
    }
    format!("{v}\n")
}

fn compact_summary(uuid: &str, ts: u32) -> String {
    let mut v = env("user", uuid, ts);
    v["isCompactSummary"] = json!(true);
    v["message"] = json!({"role": "user", "content": "This session is being continued…"});
    format!("{v}\n")
}

/// A session exercising every piece of carried state, line by line.
fn tricky() -> String {
    let mut s = String::new();
    s += "{\"type\":\"summary\",\"summary\":\"Old summary\",\"leafUuid\":\"u-09\"}\n";
    s += &prompt("u-01", 1, "first prompt");
    // One response split over three lines (usage repeated, output grows).
    s += &block(
        "u-02",
        2,
        "msg_1",
        "req_1",
        json!({"type":"thinking","thinking":"hmm","signature":"x"}),
        3,
    );
    s += &block(
        "u-03",
        3,
        "msg_1",
        "req_1",
        json!({"type":"text","text":"Let me look."}),
        9,
    );
    s += "{\"type\":\"progress\",\"data\":{\"type\":\"bash_progress\"}}\n";
    s += &block(
        "u-04",
        4,
        "msg_1",
        "req_1",
        json!({"type":"tool_use","id":"toolu_A","name":"Bash","input":{"command":"ls"}}),
        20,
    );
    s += &result("u-05", 5, "toolu_A", "a\nb");
    // A call whose result comes much later (after other safe points).
    s += &block(
        "u-06",
        6,
        "msg_2",
        "req_2",
        json!({"type":"tool_use","id":"toolu_B","name":"Read","input":{"file_path":"/x"}}),
        7,
    );
    s += &system("u-07", 7, "stop_hook_summary");
    s += &result("u-08", 8, "toolu_X", "unpaired");
    s += &prompt("u-09", 9, "second prompt");
    s += &result("u-10", 10, "toolu_B", "late result");
    // The same message id again (copied / duplicated lines): its usage is not counted twice.
    s += &block(
        "u-11",
        11,
        "msg_1",
        "req_1",
        json!({"type":"text","text":"Let me look."}),
        9,
    );
    // A duplicated line (same uuid): a record locator the second time.
    s += &prompt("u-09", 9, "second prompt");
    s += &system("u-12", 12, "compact_boundary");
    s += "{\"type\":\"ai-title\",\"aiTitle\":\"Tricky session\",\"sessionId\":\"5b1e2c3d-0000-4000-8000-00000000abcd\"}\n";
    s += &compact_summary("u-13", 13);
    s += "{\"type\":\"mystery-record\",\"x\":1}\n";
    s += "{not json\n";
    s += &prompt("u-14", 14, "third prompt");
    s += &block(
        "u-15",
        15,
        "msg_3",
        "req_3",
        json!({"type":"text","text":"Done."}),
        4,
    );
    s += &system("u-16", 16, "turn_duration");
    s += "{\"type\":\"custom-title\",\"customTitle\":\"Renamed\",\"sessionId\":\"5b1e2c3d-0000-4000-8000-00000000abcd\"}\n";
    s += &block(
        "u-17",
        17,
        "msg_3",
        "req_3",
        json!({"type":"text","text":"(one more block)"}),
        6,
    );
    s
}

fn project(tmp: &Path) -> PathBuf {
    let dir = tmp.join(".claude/projects/-home-t-proj");
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(format!("{SID}.jsonl"))
}

fn make(p: &Path) -> SourceFile {
    source_file(p)
}

#[test]
fn split_messages_pairing_compaction_titles_and_duplicates_resume_exactly() {
    let tmp = tempfile::tempdir().unwrap();
    let path = project(tmp.path());
    let text = tricky();
    std::fs::write(&path, &text).unwrap();
    let bytes = text.as_bytes();
    let mut cuts: Vec<usize> = law::line_ends(bytes);
    // A torn cut inside every line.
    let mut prev = 0;
    for e in law::line_ends(bytes) {
        cuts.push((prev + e) / 2);
        prev = e;
    }
    cuts.sort_unstable();
    let t = law::check(&ClaudeSource, &path, &make, &cuts, 3);
    assert_eq!(t.cuts, cuts.len());
    assert_eq!(t.refused, 0);
    assert!(t.resumed >= 10, "{t:?}");
    // The whole session once more, with the facts the state must carry visible in it.
    let s = ClaudeSource.parse(&make(&path)).unwrap();
    assert_eq!(s.header.title.as_deref(), Some("Renamed"));
    let calls: Vec<_> = s
        .events
        .iter()
        .filter(|e| e.kind == EventKind::ToolResult)
        .map(|e| e.tool.clone())
        .collect();
    assert_eq!(calls, [Some("Bash".into()), None, Some("Read".into())]);
    let with_usage = s.events.iter().filter(|e| e.usage.is_some()).count();
    assert_eq!(with_usage, 3, "msg_1, msg_2, msg_3 once each");
}

/// The last point of a full parse, through the provider.
fn last_point(file: &SourceFile) -> scry_source::ResumePoint {
    law::full(&ClaudeSource, file)
        .point
        .expect("a resume point")
}

#[test]
fn a_resume_reads_only_from_the_point_and_the_point_sits_before_the_open_answer() {
    let tmp = tempfile::tempdir().unwrap();
    let path = project(tmp.path());
    let mut text = String::new();
    let big = "x".repeat(200_000);
    for i in 0..20u32 {
        text += &prompt(&format!("p-{i}"), i, &format!("prompt {i}"));
        text += &block(
            &format!("a-{i}"),
            i,
            &format!("msg_{i}"),
            &format!("req_{i}"),
            json!({"type":"tool_use","id":format!("toolu_{i}"),"name":"Bash","input":{"command":"cat big"}}),
            5,
        );
        text += &result(&format!("r-{i}"), i, &format!("toolu_{i}"), &big);
        text += &block(
            &format!("b-{i}"),
            i,
            &format!("msg_{i}b"),
            &format!("req_{i}b"),
            json!({"type":"text","text":"done"}),
            5,
        );
    }
    std::fs::write(&path, &text).unwrap();
    let file = make(&path);
    let before = scry_source::jsonl::thread_bytes_read();
    let indexed = law::full(&ClaudeSource, &file);
    let full_read = scry_source::jsonl::thread_bytes_read() - before;
    assert!(full_read >= text.len() as u64);
    let p = indexed.point.clone().unwrap();
    // The file ends with an answer still open: the point is just before it.
    let last_answer = (text[..text.len() - 1].rfind('\n').unwrap() + 1) as u64;
    assert_eq!(p.offset, last_answer);
    assert_eq!(p, last_point(&file));
    let extra = prompt("p-new", 59, "one more prompt");
    std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap()
        .write_all(extra.as_bytes())
        .unwrap();
    let before = scry_source::jsonl::thread_bytes_read();
    let got = law::resume(&ClaudeSource, &file, &indexed);
    assert!(!got.refused);
    let read = scry_source::jsonl::thread_bytes_read() - before;
    let grown = (text.len() + extra.len()) as u64;
    assert_eq!(read, grown - p.offset, "only the bytes after the point");
    assert!(read < 2_000, "{read}");
    let want = ClaudeSource.parse(&file).unwrap();
    law::assert_session_eq(&got.session, &want, "appended prompt");
    // The new point is after the new prompt (the end of the file).
    assert_eq!(got.point.unwrap().offset, grown);
}

#[test]
fn files_without_request_ids_offer_no_point() {
    // Third-party gateways write no requestId: whether lines are copied history stays open.
    let tmp = tempfile::tempdir().unwrap();
    let path = project(tmp.path());
    let line = block(
        "a",
        1,
        "msg_a",
        "req_a",
        json!({"type":"text","text":"hi"}),
        1,
    )
    .replace(",\"requestId\":\"req_a\"", "");
    std::fs::write(
        &path,
        prompt("p", 0, "hello") + &line + &prompt("q", 2, "again"),
    )
    .unwrap();
    assert!(law::full(&ClaudeSource, &make(&path)).point.is_none());
}

#[test]
fn a_damaged_or_foreign_state_is_refused_not_misread() {
    let tmp = tempfile::tempdir().unwrap();
    let path = project(tmp.path());
    std::fs::write(&path, tricky()).unwrap();
    let file = make(&path);
    let mut p = last_point(&file);
    for bad in [json!(null), json!({"v": 99}), json!({"line": "x"})] {
        p.state = bad;
        let mut sink = law::Keep::default();
        let mut out = scry_source::Emitter::resumed(&mut sink, &p.emitter);
        assert!(ClaudeSource.parse_into_from(&file, &p, &mut out).is_err());
    }
}
