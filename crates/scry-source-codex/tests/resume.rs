//! Resuming (SPEC S-I2, issue #5): on every plain Codex rollout of the corpus and the demo home,
//! a prefix parsed with resume points and continued from its last point over the whole file
//! equals the full parse — events, warnings and header — at every line boundary (sampled on
//! long files), at torn cuts, and chained cut after cut. Plus synthetic rollouts for the state
//! that crosses the point: repeated token totals, receipts before and after their result,
//! pairing, `session_meta` / `turn_context` facts, a fork's copied parent history, mirrors.

use std::io::Write;
use std::path::{Path, PathBuf};

use scry_model::EventKind;
use scry_source::{Source, SourceFile};
use scry_source_codex::CodexSource;
use scry_testkit::{corpus, law};
use serde_json::{json, Value};

fn jsonl_under(dir: &Path, out: &mut Vec<PathBuf>) {
    if let Ok(rd) = std::fs::read_dir(dir) {
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                jsonl_under(&p, out);
            } else if p.extension().is_some_and(|x| x == "jsonl")
                && p.file_name().is_some_and(|n| n != "session_index.jsonl")
            {
                out.push(p);
            }
        }
    }
}

fn all_files() -> Vec<PathBuf> {
    let mut files = Vec::new();
    for dir in [
        corpus().join("real/home/.codex"),
        corpus().join("real-older/codex-0.23.0"),
        corpus().join("third-party/codex"),
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../demo/home/.codex"),
    ] {
        let mut found = Vec::new();
        jsonl_under(&dir, &mut found);
        found.sort();
        // Loose fixtures count only when the provider recognizes them (as `scry show` would).
        files.extend(
            found
                .into_iter()
                .filter(|p| CodexSource.detect(p).is_some()),
        );
    }
    files
}

fn make(p: &Path) -> SourceFile {
    CodexSource
        .detect(p)
        .unwrap_or_else(|| panic!("not detected: {}", p.display()))
}

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
fn the_law_holds_on_every_corpus_and_demo_rollout() {
    let mut total = law::Tally::default();
    let mut files = 0;
    let mut never = Vec::new();
    for path in all_files() {
        let bytes = std::fs::read(&path).unwrap();
        let t = law::check(&CodexSource, &path, &make, &cuts(&bytes), 5);
        // Codex always resumes from its own points: a refusal is a failure here.
        assert_eq!(t.refused, 0, "{}", path.display());
        files += 1;
        total.cuts += t.cuts;
        total.resumed += t.resumed;
        total.torn += t.torn;
        if t.resumed == 0 {
            never.push(path.file_name().unwrap().to_string_lossy().into_owned());
        }
    }
    eprintln!("{files} files, {total:?}, never resumable: {never:?}");
    // 4 real (0.171.0 ×3, 0.23.0) + 4 detected third-party + 2 demo rollouts. Never
    // resumable: the 0.23.0 bare-era file and a 0.53 fixture, both short and without a
    // `"response_item"` in their head (the mirror decision stays open below 512 KB).
    assert_eq!(files, 10);
    assert!(total.resumed > 50, "{total:?}");
    assert!(total.torn >= 10 * 3, "{total:?}");
    // The three 0.171.0 rollouts name a response_item early: they resume.
    for p in all_files() {
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        if p.to_string_lossy().contains("/real/home/") {
            assert!(!never.contains(&name), "{name} never resumed");
        }
    }
}

// ---- synthetic rollouts ----------------------------------------------------------------

fn line(ts: u32, ty: &str, payload: Value) -> String {
    let v = json!({
        "timestamp": format!("2026-11-20T10:{:02}:{:02}.000Z", ts / 60, ts % 60),
        "type": ty,
        "payload": payload,
    });
    format!("{v}\n")
}

const ME: &str = "019a0000-0000-7000-8000-000000000001";
const PARENT: &str = "019a0000-0000-7000-8000-0000000000aa";

fn meta(ts: u32, id: &str, fork: Option<&str>) -> String {
    let mut p = json!({"id": id, "timestamp": "2026-11-20T10:00:00.000Z", "cwd": "/home/t/proj",
        "originator": "codex_cli_rs", "cli_version": "0.171.0", "source": "cli",
        "git": {"branch": "main", "commit_hash": "abc123"}});
    if let Some(f) = fork {
        p["forked_from_id"] = json!(f);
    }
    line(ts, "session_meta", p)
}

fn turn_context(ts: u32, model: &str, cwd: &str) -> String {
    line(
        ts,
        "turn_context",
        json!({"turn_id": "t", "cwd": cwd, "model": model}),
    )
}

fn user(ts: u32, text: &str) -> String {
    line(
        ts,
        "response_item",
        json!({"type": "message", "role": "user",
        "content": [{"type": "input_text", "text": text}]}),
    )
}

fn say(ts: u32, text: &str) -> String {
    line(
        ts,
        "response_item",
        json!({"type": "message", "role": "assistant",
        "content": [{"type": "output_text", "text": text}]}),
    )
}

fn call(ts: u32, id: &str, cmd: &str) -> String {
    line(
        ts,
        "response_item",
        json!({"type": "function_call", "name": "exec_command",
        "arguments": json!({"cmd": cmd}).to_string(), "call_id": id}),
    )
}

fn output(ts: u32, id: &str, text: &str) -> String {
    line(
        ts,
        "response_item",
        json!({"type": "function_call_output", "call_id": id,
        "output": text}),
    )
}

fn exec_end(ts: u32, id: &str, code: i64) -> String {
    line(
        ts,
        "event_msg",
        json!({"type": "exec_command_end", "call_id": id,
        "exit_code": code, "duration": {"secs": 1, "nanos": 0}, "status": "completed"}),
    )
}

fn tokens(ts: u32, total: u64) -> String {
    let u = |n: u64| {
        json!({"input_tokens": n, "cached_input_tokens": n / 2,
        "output_tokens": n / 10, "reasoning_output_tokens": 0, "total_tokens": n + n / 10})
    };
    line(
        ts,
        "event_msg",
        json!({"type": "token_count",
        "info": {"total_token_usage": u(total), "last_token_usage": u(100)}}),
    )
}

fn task(ts: u32, kind: &str) -> String {
    line(ts, "event_msg", json!({"type": kind, "turn_id": "t"}))
}

fn tricky() -> String {
    let mut s = meta(0, ME, Some(PARENT));
    // The parent's copied head, written in one burst.
    s += &meta(0, PARENT, None);
    s += &user(0, "parent prompt");
    s += &say(0, "parent answer");
    s += &tokens(0, 500);
    // The child's own turns.
    s += &task(5, "task_started");
    s += &turn_context(5, "gpt-5.1-codex", "/home/t/proj/sub");
    s += &user(5, "child prompt");
    s += &call(6, "call_1", "ls");
    s += &output(7, "call_1", "a\nb");
    s += &exec_end(7, "call_1", 0);
    s += &tokens(8, 1000);
    // A call answered after the point; its receipt comes first.
    s += &call(9, "call_2", "false");
    s += &tokens(10, 1200);
    s += &exec_end(11, "call_2", 1);
    s += &tokens(11, 1200); // repeated total: skipped
    s += &output(12, "call_2", "failed");
    s += &output(12, "call_zz", "nobody asked");
    s += &say(13, "done");
    s += &tokens(13, 1400);
    s += &line(
        14,
        "event_msg",
        json!({"type": "thread_name_updated", "thread_name": "Renamed"}),
    );
    s += &line(14, "mystery", json!({}));
    s += "{broken\n";
    s += &task(15, "task_complete");
    s += &turn_context(16, "gpt-5.2-codex", "/home/t/proj/other");
    s += &user(16, "second prompt");
    s += &say(17, "ok");
    s += &tokens(17, 1600);
    s
}

fn rollout_path(tmp: &Path) -> PathBuf {
    let dir = tmp.join(".codex/sessions/2026/11/20");
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(format!("rollout-2026-11-20T10-00-00-{ME}.jsonl"))
}

/// Pads a rollout's head past the mirror sniff with a large first response item, so safe
/// points exist in a small synthetic file too.
fn padded(body: &str) -> String {
    let mut lines = body.lines();
    let first = lines.next().unwrap();
    let mut s = format!("{first}\n");
    s += &line(
        0,
        "response_item",
        json!({"type": "message", "role": "developer",
        "content": [{"type": "input_text", "text": "x".repeat(600_000)}]}),
    );
    for l in lines {
        s += l;
        s += "\n";
    }
    s
}

#[test]
fn tokens_receipts_pairing_forks_and_titles_resume_exactly() {
    let tmp = tempfile::tempdir().unwrap();
    let path = rollout_path(tmp.path());
    let text = padded(&tricky());
    std::fs::write(&path, &text).unwrap();
    let bytes = text.as_bytes();
    let mut cuts: Vec<usize> = law::line_ends(bytes);
    let mut prev = 0;
    for e in law::line_ends(bytes) {
        cuts.push((prev + e) / 2);
        prev = e;
    }
    cuts.sort_unstable();
    let t = law::check(&CodexSource, &path, &make, &cuts, 5);
    assert_eq!(t.refused, 0);
    assert!(t.resumed >= 8, "{t:?}");
    let s = CodexSource.parse(&make(&path)).unwrap();
    assert_eq!(s.header.title.as_deref(), Some("Renamed"));
    assert_eq!(s.header.cwd.as_deref(), Some("/home/t/proj"));
    let results: Vec<_> = s
        .events
        .iter()
        .filter(|e| e.kind == EventKind::ToolResult)
        .map(|e| (e.tool.clone(), e.exit_code))
        .collect();
    assert_eq!(
        results,
        [
            (Some("exec_command".into()), Some(0)),
            (Some("exec_command".into()), Some(1)),
            (None, None)
        ]
    );
    // Usage: 1000, 1200, 1400, 1600 totals → four requests (the copied 500 and the repeated
    // 1200 count nothing).
    assert_eq!(s.events.iter().filter(|e| e.usage.is_some()).count(), 4);
}

#[test]
fn a_small_rollout_without_response_items_offers_no_point() {
    // Mirrors or not depends on the first 512 KB: a short file could still change its mind.
    let tmp = tempfile::tempdir().unwrap();
    let path = rollout_path(tmp.path());
    let text = meta(0, ME, None)
        + &line(
            1,
            "event_msg",
            json!({"type": "user_message", "message": "hi"}),
        )
        + &task(2, "task_complete");
    std::fs::write(&path, text).unwrap();
    assert!(law::full(&CodexSource, &make(&path)).point.is_none());
    // With a response_item in the head, the first safe point after it counts.
    std::fs::write(&path, tricky()).unwrap();
    assert!(law::full(&CodexSource, &make(&path)).point.is_some());
}

#[test]
fn a_resume_reads_only_the_bytes_after_the_point() {
    let tmp = tempfile::tempdir().unwrap();
    let path = rollout_path(tmp.path());
    let mut text = meta(0, ME, None) + &turn_context(0, "gpt-5.1-codex", "/home/t/proj");
    let big = "y".repeat(100_000);
    for i in 0..30u32 {
        text += &task(i, "task_started");
        text += &user(i, &format!("prompt {i}"));
        text += &call(i, &format!("c{i}"), "cat");
        text += &output(i, &format!("c{i}"), &big);
        text += &say(i, "ok");
        text += &tokens(i, 1000 * (u64::from(i) + 1));
        text += &task(i, "task_complete");
    }
    std::fs::write(&path, &text).unwrap();
    let file = make(&path);
    let indexed = law::full(&CodexSource, &file);
    let p = indexed.point.clone().unwrap();
    assert_eq!(
        p.offset,
        text.len() as u64,
        "a rollout at rest ends on a safe point"
    );
    let extra = task(40, "task_started") + &user(40, "one more");
    std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap()
        .write_all(extra.as_bytes())
        .unwrap();
    let before = scry_source::jsonl::thread_bytes_read();
    let got = law::resume(&CodexSource, &file, &indexed);
    assert!(!got.refused);
    let read = scry_source::jsonl::thread_bytes_read() - before;
    assert_eq!(read, extra.len() as u64);
    let want = CodexSource.parse(&file).unwrap();
    law::assert_session_eq(&got.session, &want, "appended turn");
}

#[test]
fn a_damaged_state_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let path = rollout_path(tmp.path());
    std::fs::write(&path, tricky()).unwrap();
    let file = make(&path);
    let mut p = law::full(&CodexSource, &file).point.unwrap();
    for bad in [json!(null), json!({"v": 99}), json!({"native": 3})] {
        p.state = bad;
        let mut sink = law::Keep::default();
        let mut out = scry_source::Emitter::resumed(&mut sink, &p.emitter);
        assert!(CodexSource.parse_into_from(&file, &p, &mut out).is_err());
    }
}
