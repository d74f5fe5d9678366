//! Appending to real-format sessions (issue #5, SPEC S-I2): a ≈50 MB Claude Code session and a
//! Codex rollout written by the test in the agents' on-disk formats (many turns, tool calls,
//! big tool outputs), indexed through the registry's real providers. One appended line is
//! parsed from the provider's last resume point only — the bytes the provider reads (counted by
//! `scry_source::jsonl::thread_bytes_read`, the refresh runs on this thread) are the new bytes
//! plus the re-read of the answer still open at the point — and the session read back equals a
//! full parse. Truncation forces a full re-parse; an mtime touch parses nothing.

use std::fs::OpenOptions;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

use scry_model::ProviderId;
use scry_source::jsonl::thread_bytes_read;
use scry_source::{Env, ResumePoint, Source, SourceFile};
use scry_store::{RefreshOptions, RefreshReport, Store};
use serde_json::{json, Value};

use crate::corpus::as_parsed;

fn provider(sources: &[Box<dyn Source>], id: ProviderId) -> &dyn Source {
    scry_sources::source_for(sources, id).expect("provider registered")
}

fn files(src: &dyn Source, home: &Path) -> Vec<SourceFile> {
    src.discover(&Env::with_home(home)).files
}

fn refresh(store: &mut Store, sources: &[Box<dyn Source>], files: &[SourceFile]) -> RefreshReport {
    let opts = RefreshOptions {
        complete_for: files.iter().map(|f| f.provider).collect(),
        ..Default::default()
    };
    store.refresh(sources, files, &opts, &mut |_| true).unwrap()
}

/// The resume point the index keeps for the only file indexed.
fn stored_point(store: &Store) -> ResumePoint {
    let json: String = rusqlite::Connection::open(store.path())
        .unwrap()
        .query_row("SELECT resume FROM files", [], |r| r.get(0))
        .unwrap();
    serde_json::from_str(&json).unwrap()
}

fn append(path: &Path, text: &str) {
    OpenOptions::new()
        .append(true)
        .open(path)
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
}

fn assert_equal_to_parse(store: &Store, src: &dyn Source, file: &SourceFile) {
    let direct = src.parse(file).unwrap();
    let indexed = as_parsed(store.session(&direct.header.uri).unwrap());
    assert_eq!(indexed.header, direct.header);
    assert_eq!(indexed.warnings, direct.warnings);
    assert_eq!(indexed.events.len(), direct.events.len());
    assert_eq!(indexed, direct);
}

/// Append one line, refresh, check what was read; then touch, then truncate.
fn append_touch_truncate(home: &Path, path: &Path, id: ProviderId, extra: &str, max_reread: u64) {
    let sources = scry_sources::registry();
    let src = provider(&sources, id);
    let mut store = Store::open(&home.join("index.db")).unwrap();
    let size = std::fs::metadata(path).unwrap().len();

    let before = thread_bytes_read();
    let t = Instant::now();
    let r = refresh(&mut store, &sources, &files(src, home));
    let cold = t.elapsed();
    assert_eq!((r.parsed, r.resumed), (1, 0), "{r:?}");
    assert!(thread_bytes_read() - before >= size);
    let point = stored_point(&store);
    let reread = size - point.offset;
    assert!(reread <= max_reread, "point {} of {size}", point.offset);

    // One appended line: resumed, reading only from the point.
    append(path, extra);
    let before = thread_bytes_read();
    let t = Instant::now();
    let r = refresh(&mut store, &sources, &files(src, home));
    let warm = t.elapsed();
    let read = thread_bytes_read() - before;
    assert_eq!((r.resumed, r.parsed, r.unchanged), (1, 0, 0), "{r:?}");
    assert_eq!(read, reread + extra.len() as u64, "{r:?}");
    // The store itself hashed the head and the windows before the old and new points.
    assert!(r.bytes_hashed <= 6 * 64 * 1024, "{r:?}");
    eprintln!(
        "{id}: {size} B file, cold index {cold:?}; one appended line ({} B): resumed in \
         {warm:?}, provider read {read} B (re-read {reread} B before the point), store hashed {} B",
        extra.len(),
        r.bytes_hashed
    );
    let file = files(src, home).remove(0);
    assert_equal_to_parse(&store, src, &file);
    // The resumed session's candidate documents are those of a clean build (its last group
    // reopened, the block the resume split rebuilt).
    {
        let clean_db = home.join("clean.db");
        let mut clean = Store::open(&clean_db).unwrap();
        refresh(&mut clean, &sources, &files(src, home));
        let strip = |(pairs, starts): (Vec<(i64, u32)>, Vec<i64>)| {
            let mut pairs: Vec<(i64, u32)> = pairs
                .into_iter()
                .map(|(d, t)| (d & 0xFFFF_FFFF, t))
                .collect();
            pairs.sort();
            let starts: Vec<i64> = starts.into_iter().map(|id| id & 0xFFFF_FFFF).collect();
            (pairs, starts)
        };
        let (a, b) = (
            strip(crate::groups::candidate_rows(store.path())),
            strip(crate::groups::candidate_rows(&clean_db)),
        );
        assert_eq!(a.1, b.1, "{id}: group starts differ from a clean build");
        assert!(
            a.0 == b.0,
            "{id}: candidate documents differ from a clean build"
        );
        drop(clean);
        std::fs::remove_file(&clean_db).unwrap();
    }
    // The appended line closed what was open: the new point is the end of the file.
    let p = stored_point(&store);
    assert_eq!(p.offset, size + extra.len() as u64);
    assert_eq!(
        p.emitter.events as usize,
        src.parse(&file).unwrap().events.len()
    );

    // Touching the mtime only: fingerprint, nothing parsed or read by the provider.
    let f = OpenOptions::new().write(true).open(path).unwrap();
    f.set_modified(SystemTime::now() + Duration::from_secs(5))
        .unwrap();
    drop(f);
    let before = thread_bytes_read();
    let r = refresh(&mut store, &sources, &files(src, home));
    assert_eq!(
        (r.unchanged, r.hashed, r.parsed, r.resumed),
        (1, 1, 0, 0),
        "{r:?}"
    );
    assert_eq!(thread_bytes_read(), before);

    // Truncation (a rewrite): parsed whole, equal to the parse of what is left.
    let f = OpenOptions::new().write(true).open(path).unwrap();
    f.set_len(size / 2).unwrap();
    drop(f);
    let before = thread_bytes_read();
    let r = refresh(&mut store, &sources, &files(src, home));
    assert_eq!((r.parsed, r.resumed), (1, 0), "{r:?}");
    assert!(thread_bytes_read() - before >= size / 2);
    let file = files(src, home).remove(0);
    assert_equal_to_parse(&store, src, &file);
}

// ---- Claude Code -------------------------------------------------------------------------

const SID: &str = "6d2f0a11-3c4b-4e5f-8a9b-0c1d2e3f4a5b";

fn ts(i: u64) -> String {
    let t = jiff::Timestamp::from_second(1_795_000_000 + i as i64).unwrap();
    format!("{t:.3}")
}

fn claude_env(ty: &str, i: u64, k: &str) -> Value {
    json!({
        "parentUuid": null, "isSidechain": false, "userType": "external",
        "cwd": "/home/t/big", "sessionId": SID, "version": "2.1.332", "gitBranch": "main",
        "type": ty, "uuid": format!("{i:08x}-{k}-4000-8000-000000000000"),
        "timestamp": ts(i),
    })
}

fn claude_prompt(i: u64, text: &str) -> String {
    let mut v = claude_env("user", i, "0001");
    v["message"] = json!({"role": "user", "content": text});
    v["promptId"] = json!(format!("p{i}"));
    format!("{v}\n")
}

fn claude_block(i: u64, k: &str, msg: &str, block: Value, out: u64) -> String {
    let mut v = claude_env("assistant", i, k);
    v["requestId"] = json!(format!("req_{msg}"));
    v["message"] = json!({
        "model": "claude-opus-4-5", "id": msg, "type": "message", "role": "assistant",
        "content": [block], "stop_reason": null, "stop_sequence": null,
        "usage": {"input_tokens": 12, "cache_creation_input_tokens": 300,
                  "cache_read_input_tokens": 20_000, "output_tokens": out,
                  "service_tier": "standard"},
    });
    format!("{v}\n")
}

/// One turn: a prompt; thinking, text and a Bash call split over three lines of one message; a
/// big tool result; the final answer (a second message) and a turn_duration record.
fn claude_turn(w: &mut impl Write, i: u64, output: &str) {
    let n = i * 10;
    let msg = format!("msg_{i:06}a");
    let call = format!("toolu_{i:06}");
    let mut s = claude_prompt(
        n,
        &format!("Turn {i}: run the build and tell me what failed"),
    );
    s += &claude_block(
        n + 1,
        "0002",
        &msg,
        json!({"type": "thinking",
        "thinking": "I should run the build first.", "signature": "c2ln"}),
        8,
    );
    s += &claude_block(
        n + 2,
        "0003",
        &msg,
        json!({"type": "text", "text": "Running it."}),
        20,
    );
    s += &claude_block(
        n + 3,
        "0004",
        &msg,
        json!({"type": "tool_use", "id": call,
        "name": "Bash", "input": {"command": "cargo build 2>&1", "description": "Build"}}),
        61,
    );
    let mut r = claude_env("user", n + 4, "0005");
    r["message"] = json!({"role": "user", "content": [{"tool_use_id": call,
        "type": "tool_result", "content": output, "is_error": i.is_multiple_of(7)}]});
    r["toolUseResult"] = json!({"stdout": output, "stderr": "", "interrupted": false,
        "isImage": false});
    r["sourceToolAssistantUUID"] = json!(format!("{:08x}-0004-4000-8000-000000000000", n + 3));
    s += &format!("{r}\n");
    s += &claude_block(
        n + 5,
        "0006",
        &format!("msg_{i:06}b"),
        json!({"type": "text",
        "text": format!("The build of turn {i} finished; 3 warnings, no errors.")}),
        35,
    );
    let mut d = claude_env("system", n + 6, "0007");
    d["subtype"] = json!("turn_duration");
    d["durationMs"] = json!(5400);
    d["isMeta"] = json!(false);
    s += &format!("{d}\n");
    w.write_all(s.as_bytes()).unwrap();
}

fn write_claude(home: &Path, target: u64) -> PathBuf {
    let dir = home.join(".claude/projects/-home-t-big");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{SID}.jsonl"));
    let mut w = BufWriter::new(std::fs::File::create(&path).unwrap());
    let line = "   Compiling crate-with-a-long-name v0.1.0 (/home/t/big/crates/x)\n";
    let output = line.repeat(45_000 / line.len());
    let mut i = 0;
    let mut written = 0;
    while written < target {
        claude_turn(&mut w, i, &format!("{i}\n{output}"));
        // The output is recorded twice (tool_result content and toolUseResult.stdout).
        written += 2 * output.len() as u64 + 4_600;
        i += 1;
    }
    w.flush().unwrap();
    path
}

#[test]
fn a_line_appended_to_a_50mb_claude_session_is_resumed_reading_only_new_bytes() {
    let tmp = tempfile::tempdir().unwrap();
    let path = write_claude(tmp.path(), 50_000_000);
    let size = std::fs::metadata(&path).unwrap().len();
    assert!(size >= 50_000_000, "{size}");
    // The session ends with its final answer still open (nothing closes it yet): the point
    // sits before that answer, and the resume re-reads it and the turn_duration after it.
    append_touch_truncate(
        tmp.path(),
        &path,
        ProviderId::Claude,
        &claude_prompt(99_999_990, "one more prompt"),
        2_048,
    );
}

// ---- Codex ---------------------------------------------------------------------------------

const CODEX_ID: &str = "019b0000-0000-7000-8000-00000000c0de";

fn codex_line(i: u64, ty: &str, payload: Value) -> String {
    format!(
        "{}\n",
        json!({"timestamp": ts(i), "type": ty, "payload": payload})
    )
}

fn write_codex(home: &Path, turns: u64) -> PathBuf {
    let dir = home.join(".codex/sessions/2026/11/20");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("rollout-2026-11-20T10-00-00-{CODEX_ID}.jsonl"));
    let mut w = BufWriter::new(std::fs::File::create(&path).unwrap());
    let meta = json!({"id": CODEX_ID, "timestamp": ts(0), "cwd": "/home/t/big",
        "originator": "codex_cli_rs", "cli_version": "0.171.0", "source": "cli",
        "git": {"branch": "main", "commit_hash": "abc"}});
    w.write_all(codex_line(0, "session_meta", meta).as_bytes())
        .unwrap();
    let out = "test result: ok. 12 passed; 0 failed\n".repeat(800);
    for t in 0..turns {
        let n = t * 10 + 1;
        let call = format!("call_{t}");
        let usage = |k: u64| {
            json!({"input_tokens": 9000 * k, "cached_input_tokens": 8000 * k,
            "output_tokens": 300 * k, "reasoning_output_tokens": 100 * k,
            "total_tokens": 9300 * k})
        };
        let lines = [
            codex_line(
                n,
                "event_msg",
                json!({"type": "task_started", "turn_id": format!("t{t}")}),
            ),
            codex_line(
                n,
                "turn_context",
                json!({"turn_id": format!("t{t}"), "cwd": "/home/t/big",
                "model": "gpt-5.1-codex"}),
            ),
            codex_line(
                n,
                "response_item",
                json!({"type": "message", "role": "user",
                "content": [{"type": "input_text", "text": format!("run the tests ({t})")}]}),
            ),
            codex_line(
                n + 1,
                "response_item",
                json!({"type": "reasoning",
                "summary": [{"type": "summary_text", "text": "Run cargo test."}]}),
            ),
            codex_line(
                n + 1,
                "response_item",
                json!({"type": "function_call",
                "name": "exec_command", "arguments": "{\"cmd\":\"cargo test\"}", "call_id": call}),
            ),
            codex_line(
                n + 2,
                "event_msg",
                json!({"type": "exec_command_end", "call_id": call,
                "exit_code": 0, "duration": {"secs": 3, "nanos": 0}, "status": "completed"}),
            ),
            codex_line(
                n + 2,
                "response_item",
                json!({"type": "function_call_output",
                "call_id": call, "output": format!("{t}\n{out}")}),
            ),
            codex_line(
                n + 3,
                "event_msg",
                json!({"type": "token_count", "info": {
                "total_token_usage": usage(2 * t + 1), "last_token_usage": usage(1)}}),
            ),
            codex_line(
                n + 3,
                "response_item",
                json!({"type": "message", "role": "assistant",
                "content": [{"type": "output_text", "text": "All tests pass."}]}),
            ),
            codex_line(
                n + 4,
                "event_msg",
                json!({"type": "token_count", "info": {
                "total_token_usage": usage(2 * t + 2), "last_token_usage": usage(1)}}),
            ),
            codex_line(
                n + 4,
                "event_msg",
                json!({"type": "token_count", "info": {
                "total_token_usage": usage(2 * t + 2), "last_token_usage": usage(1)}}),
            ),
            codex_line(
                n + 5,
                "event_msg",
                json!({"type": "task_complete",
                "turn_id": format!("t{t}")}),
            ),
        ];
        for l in lines {
            w.write_all(l.as_bytes()).unwrap();
        }
    }
    w.flush().unwrap();
    path
}

#[test]
fn a_line_appended_to_a_codex_rollout_is_resumed_reading_only_new_bytes() {
    let tmp = tempfile::tempdir().unwrap();
    let path = write_codex(tmp.path(), 400);
    let size = std::fs::metadata(&path).unwrap().len();
    assert!(size >= 10_000_000, "{size}");
    // A rollout at rest ends on task_complete, a safe point: nothing is re-read.
    let extra = codex_line(
        99_999,
        "event_msg",
        json!({"type": "task_started", "turn_id": "tx"}),
    );
    append_touch_truncate(tmp.path(), &path, ProviderId::Codex, &extra, 0);
}
