//! Multi-frame zstd sessions built here with the `zstd` crate: a torn final frame, a corrupt
//! middle frame, a `.v2` beside a `.v3`, and damaged input that must not panic.

use std::io::Write;
use std::path::{Path, PathBuf};

use scry_model::{EventKind, Surface, WarningKind};
use scry_source::{Env, Source, SourceFile};
use scry_source_dsh::DshSource;
use serde_json::{json, Value};

/// One zstd frame holding `lines` (each followed by a newline), with a content checksum.
fn frame(lines: &[Value]) -> Vec<u8> {
    let mut text = String::new();
    for l in lines {
        text.push_str(&l.to_string());
        text.push('\n');
    }
    let mut enc = zstd::stream::write::Encoder::new(Vec::new(), 3).unwrap();
    enc.include_checksum(true).unwrap();
    enc.write_all(text.as_bytes()).unwrap();
    enc.finish().unwrap()
}

fn header(id: &str, created: i64) -> Value {
    json!({"type":"session","version":0,"id":id,"createdAt":created,"cwd":"/home/demo/projects/api","delegationDepth":0})
}

fn user(seq: u64, t: i64, id: &str, text: &str) -> Value {
    json!({"type":"user/message","seq":seq,"time":t,"data":{"id":id,"role":"user","content":[{"type":"text","text":text}],"source":{"kind":"user"}},"surfaceOp":"append"})
}

fn answer(seq: u64, t: i64, id: &str, text: &str, input: u64) -> Value {
    json!({"type":"assistant/message","seq":seq,"time":t,"data":{"turn":1,"step":1,"message":{"id":id,"role":"assistant",
        "content":[{"type":"text","text":text}],"source":{"kind":"model","provider":"p","model":"m1"}},
        "usage":{"inputTokens":input,"outputTokens":5,"cacheReadTokens":0,"reasoningTokens":0}},"surfaceOp":"append"})
}

fn call_and_result(seq: u64, t: i64, call: &str) -> Vec<Value> {
    vec![
        json!({"type":"assistant/message","seq":seq,"time":t,"data":{"turn":1,"step":2,"message":{"id":format!("m-{call}"),"role":"assistant",
            "content":[{"type":"tool-call","id":call,"name":"bash","arguments":"{\"command\":\"ls\"}"}],"source":{"kind":"model","model":"m1"}},
            "usage":{"inputTokens":100,"outputTokens":9}},"surfaceOp":"append"}),
        json!({"type":"tool/call","seq":seq+1,"time":t+1,"data":{"callId":call,"name":"bash","arguments":"{\"command\":\"ls\"}"}}),
        json!({"type":"tool/result","seq":seq+2,"time":t+40,"data":{"message":{"id":format!("r-{call}"),"role":"user","source":{"kind":"tool","callId":call},
            "content":[{"type":"tool-result","toolCallId":call,"content":[{"type":"text","text":"a.txt\nb.txt"}],"isError":false}]}},"surfaceOp":"append"}),
    ]
}

fn session_dir(root: &Path, dir: &str) -> PathBuf {
    let d = root
        .join(".dsh/sessions/-home-demo-projects-api/")
        .join(dir);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn parse(path: &Path) -> scry_model::Session {
    let f = SourceFile::new(scry_model::ProviderId::Dsh, "t", path);
    DshSource.parse(&f).unwrap()
}

#[test]
fn torn_final_frame_drops_only_that_frame() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = session_dir(tmp.path(), "session-00000000-0000-4000-8000-000000000001");
    let mut bytes = frame(&[header(
        "session-00000000-0000-4000-8000-000000000001",
        1_000,
    )]);
    bytes.extend(frame(&[
        user(0, 1_001, "u1", "list the files"),
        answer(1, 1_002, "a1", "Looking.", 50),
    ]));
    bytes.extend(frame(&call_and_result(2, 1_003, "c1")));
    let last = frame(&[answer(
        5,
        1_100,
        "a2",
        "There are two files, a.txt and b.txt.",
        70,
    )]);
    // Tear the last frame in several places: inside its header, its block, its checksum.
    for cut in [2, 6, last.len() / 2, last.len() - 2] {
        let mut file = bytes.clone();
        file.extend(&last[..cut]);
        let path = dir.join("session.jsonl.zstd");
        std::fs::write(&path, &file).unwrap();
        let s = parse(&path);
        let corrupt: Vec<_> = s
            .warnings
            .iter()
            .filter(|w| w.kind == WarningKind::CorruptFrame)
            .collect();
        assert_eq!(corrupt.len(), 1, "cut {cut}: {:?}", s.warnings);
        assert_eq!(s.warnings.len(), 1, "cut {cut}: {:?}", s.warnings);
        assert!(
            corrupt[0].message.contains("3 earlier frame(s)"),
            "{}",
            corrupt[0].message
        );
        let kinds: Vec<EventKind> = s.events.iter().map(|e| e.kind).collect();
        assert_eq!(
            kinds,
            vec![
                EventKind::User,
                EventKind::Assistant,
                EventKind::ToolCall,
                EventKind::ToolResult
            ],
            "cut {cut}"
        );
        assert_eq!(s.header.id, "session-00000000-0000-4000-8000-000000000001");
        assert_eq!(s.total_usage().unwrap().input, 150);
        // The tool result was paired; its duration runs from tool/call (t+1) to the result (t+40).
        let r = &s.events[3];
        assert_eq!((r.tool.as_deref(), r.duration_ms), (Some("bash"), Some(39)));
    }
    // Whole file: five events, no warnings.
    let mut file = bytes.clone();
    file.extend(&last);
    let path = dir.join("session.jsonl.zstd");
    std::fs::write(&path, &file).unwrap();
    let s = parse(&path);
    assert!(s.warnings.is_empty(), "{:?}", s.warnings);
    assert_eq!(s.events.len(), 5);
    assert_eq!(s.events[4].text, "There are two files, a.txt and b.txt.");
}

#[test]
fn corrupt_middle_frame_is_skipped_and_reading_continues() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = session_dir(tmp.path(), "session-00000000-0000-4000-8000-000000000002");
    let mut file = frame(&[header("s2", 1_000)]);
    file.extend(frame(&[user(0, 1_001, "u1", "count the files")]));
    let mut middle = frame(&call_and_result(1, 1_002, "c1"));
    // Flip a byte inside the last block's payload (just before the 4-byte checksum).
    let at = middle.len() - 6;
    middle[at] ^= 0x5a;
    file.extend(middle);
    file.extend(frame(&[answer(9, 1_200, "a2", "Two files.", 70)]));
    let path = dir.join("session.jsonl.zstd");
    std::fs::write(&path, &file).unwrap();
    let s = parse(&path);
    let corrupt: Vec<_> = s
        .warnings
        .iter()
        .filter(|w| w.kind == WarningKind::CorruptFrame)
        .collect();
    assert_eq!(corrupt.len(), 1, "{:?}", s.warnings);
    assert_eq!(s.warnings.len(), 1, "{:?}", s.warnings);
    let kinds: Vec<EventKind> = s.events.iter().map(|e| e.kind).collect();
    assert_eq!(kinds, vec![EventKind::User, EventKind::Assistant]);
    assert_eq!(s.events[1].text, "Two files.");
}

#[test]
fn highest_version_wins_then_newest_mtime() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = session_dir(tmp.path(), "session-00000000-0000-4000-8000-000000000003");
    let v3 = frame(&[header("session-v3", 1_000), user(0, 1_001, "u", "from v3")]);
    std::fs::write(dir.join("session.v3.jsonl.zstd"), v3).unwrap();
    // Written later (newer mtime) but older format versions: must lose.
    std::thread::sleep(std::time::Duration::from_millis(20));
    let v2 = frame(&[header("session-v2", 1_000), user(0, 1_001, "u", "from v2")]);
    std::fs::write(dir.join("session.v2.jsonl.zstd"), v2).unwrap();
    std::fs::write(
        dir.join("session.jsonl"),
        format!("{}\n", header("session-v0", 1_000)),
    )
    .unwrap();
    let env = Env::with_home(tmp.path());
    let d = DshSource.discover(&env);
    assert_eq!(d.files.len(), 1);
    assert!(d.files[0].path.ends_with("session.v3.jsonl.zstd"));
    let s = DshSource.parse(&d.files[0]).unwrap();
    assert_eq!(s.header.id, "session-v3");
    assert_eq!(s.events[0].text, "from v3");
    // Same version twice: the newer mtime wins.
    std::thread::sleep(std::time::Duration::from_millis(20));
    std::fs::write(
        dir.join("session.v3.jsonl"),
        format!("{}\n", header("session-v3-plain-newer", 1_000)),
    )
    .unwrap();
    let d = DshSource.discover(&env);
    assert!(d.files[0].path.ends_with("session.v3.jsonl"));
}

#[test]
fn fork_seed_history_is_copied_and_not_counted() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = session_dir(tmp.path(), "session-00000000-0000-4000-8000-000000000004");
    let mut h = header("session-fork", 5_000);
    h["isSeeded"] = json!(true);
    h["parentSession"] = json!("session-parent");
    let lines = vec![
        h,
        user(0, 1_000, "u0", "old prompt"),
        answer(1, 1_001, "a0", "old answer", 1_000),
        json!({"type":"session/end-seed","seq":2,"time":5_000,"data":{}}),
        user(3, 5_001, "u1", "new prompt"),
        answer(4, 5_002, "a1", "new answer", 30),
    ];
    let path = dir.join("session.jsonl.zstd");
    std::fs::write(&path, frame(&lines)).unwrap();
    let s = parse(&path);
    assert!(s.warnings.is_empty(), "{:?}", s.warnings);
    assert_eq!(s.header.kind, scry_model::SessionKind::Fork);
    assert_eq!(s.header.parent.as_deref(), Some("session-parent"));
    assert_eq!(
        s.total_usage().unwrap().input,
        30,
        "seed usage is not counted"
    );
    let copied: Vec<bool> = s
        .events
        .iter()
        .map(|e| e.data.as_ref().is_some_and(|d| d["copied"] == json!(true)))
        .collect();
    assert_eq!(copied, vec![true, true, false, false]);
}

#[test]
fn damaged_and_foreign_input_never_panics() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = session_dir(tmp.path(), "session-x");
    let cases: Vec<Vec<u8>> = vec![
        Vec::new(),
        b"not zstd at all".to_vec(),
        vec![0x28, 0xb5, 0x2f, 0xfd],
        vec![0x28, 0xb5, 0x2f, 0xfd, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff],
        {
            let mut v = frame(&[header("s", 1)]);
            v.extend([0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x00, 0xff, 0xff, 0xff]);
            v
        },
    ];
    for (i, bytes) in cases.iter().enumerate() {
        let path = dir.join("session.jsonl.zstd");
        std::fs::write(&path, bytes).unwrap();
        let s = parse(&path);
        assert!(s.events.is_empty(), "case {i}");
        let h = DshSource
            .scan_header(&SourceFile::new(scry_model::ProviderId::Dsh, "t", &path))
            .unwrap();
        assert!(!h.id.is_empty());
    }
    // Unknown record types are counted once per type, with the first line.
    let lines = vec![
        header("s", 1),
        json!({"type":"future/thing","seq":0,"time":2,"data":{}}),
        json!({"type":"future/thing","seq":1,"time":3,"data":{}}),
        json!({"type":"tool/result","seq":2,"time":4,"data":{"message":{"id":"r","content":[{"type":"tool-result","toolCallId":"nope","content":[{"type":"text","text":"?"}]}]}},"surfaceOp":"append"}),
    ];
    let path = dir.join("session.jsonl.zstd");
    std::fs::write(&path, frame(&lines)).unwrap();
    let s = parse(&path);
    let unknown: Vec<_> = s
        .warnings
        .iter()
        .filter(|w| w.kind == WarningKind::UnknownRecord)
        .collect();
    assert_eq!(unknown.len(), 1);
    assert!(unknown[0].message.contains("2 record(s)") && unknown[0].line == Some(2));
    let unpaired: Vec<_> = s
        .warnings
        .iter()
        .filter(|w| w.kind == WarningKind::UnpairedResult)
        .collect();
    assert_eq!(unpaired.len(), 1);
    assert_eq!(
        s.events[0].data.as_ref().unwrap()["unconfirmed"],
        json!(true)
    );
    assert_eq!(s.events[0].surface, Surface::Current);
}

#[test]
fn a_step_without_its_message_is_rebuilt_from_chunks() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = session_dir(tmp.path(), "session-y");
    let lines = vec![
        header("s", 1),
        user(0, 2, "u", "hi"),
        json!({"type":"assistant/chunk","seq":1,"time":3,"data":{"turn":1,"step":1,"chunk":{"type":"block-start","index":0,"blockType":"reasoning"}}}),
        json!({"type":"assistant/chunk","seq":2,"time":3,"data":{"turn":1,"step":1,"chunk":{"type":"reasoning-delta","index":0,"text":"think"}}}),
        json!({"type":"text-chunks","seq0":3,"time0":4,"data":{"turn":1,"step":1,"index":1,"dt":[0,0],"texts":["Hel","lo"]}}),
        json!({"type":"assistant/chunk","seq":5,"time":5,"data":{"turn":1,"step":1,"chunk":{"type":"usage","usage":{"inputTokens":11,"outputTokens":2}}}}),
    ];
    let path = dir.join("session.jsonl.zstd");
    std::fs::write(&path, frame(&lines)).unwrap();
    let s = parse(&path);
    let shape: Vec<(EventKind, &str)> =
        s.events.iter().map(|e| (e.kind, e.text.as_str())).collect();
    assert_eq!(
        shape,
        vec![
            (EventKind::User, "hi"),
            (EventKind::Thinking, "think"),
            (EventKind::Assistant, "Hello")
        ]
    );
    assert_eq!(s.events[2].usage.unwrap().input, 11);
    assert_eq!(s.events[2].data.as_ref().unwrap()["partial"], json!(true));
}

/// A session of `turns` turns, one zstd frame per turn, each turn ≈ 2 KB decoded.
fn big_session(turns: u64) -> Vec<u8> {
    let mut file = frame(&[
        header("session-big", 1_000),
        json!({"type":"session/title","seq":0,"time":1_001,"data":{"title":"A long session","source":{"kind":"provider"}}}),
    ]);
    let pad = "x".repeat(1_500);
    for t in 0..turns {
        let s = 1 + t * 10;
        let mut batch = vec![user(
            s,
            2_000 + t as i64,
            &format!("u{t}"),
            &format!("prompt {t} {pad}"),
        )];
        batch.push(answer(s + 1, 2_000 + t as i64, &format!("a{t}"), "ok", 10));
        file.extend(frame(&batch));
    }
    file
}

#[test]
fn header_scan_reads_only_a_prefix_of_a_big_session() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = session_dir(tmp.path(), "session-big");
    let path = dir.join("session.jsonl.zstd");
    std::fs::write(&path, big_session(200)).unwrap();
    let f = SourceFile::new(scry_model::ProviderId::Dsh, "session-big", &path);
    let h = DshSource.scan_header(&f).unwrap();
    assert_eq!(h.id, "session-big");
    assert_eq!(h.title.as_deref(), Some("A long session"));
    assert_eq!(h.cwd.as_deref(), Some("/home/demo/projects/api"));
    // The prefix did not reach the end: `updated` falls back to the file's mtime, which is
    // later than any event time in the file (1970 epoch milliseconds here).
    assert!(h.updated.unwrap().as_second() > 1_000_000);
    let s = DshSource.parse(&f).unwrap();
    assert_eq!(s.turn_count(), 200);
    assert_eq!(s.total_usage().unwrap().input, 2_000);
}

/// Throughput and memory on a large generated session. Run with
/// `cargo test -p scry-source-dsh --release --test own_fixtures -- --ignored --nocapture measure`.
#[test]
#[ignore]
fn measure_large_session() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = session_dir(tmp.path(), "session-big");
    let path = dir.join("session.jsonl.zstd");
    let turns = 20_000;
    std::fs::write(&path, big_session(turns)).unwrap();
    let compressed = std::fs::metadata(&path).unwrap().len();
    let f = SourceFile::new(scry_model::ProviderId::Dsh, "session-big", &path);
    struct Count(u64);
    impl scry_source::EventSink for Count {
        fn event(&mut self, _: scry_model::Event) {
            self.0 += 1;
        }
        fn warning(&mut self, _: scry_model::Warning) {}
    }
    let start = std::time::Instant::now();
    let mut sink = Count(0);
    let mut out = scry_source::Emitter::new(&mut sink);
    DshSource.parse_into(&f, &mut out).unwrap();
    let parse = start.elapsed();
    let start = std::time::Instant::now();
    DshSource.scan_header(&f).unwrap();
    let scan = start.elapsed();
    eprintln!(
        "{turns} frames, {compressed} bytes compressed, ~{} MB decoded: {} events, parse {parse:?}, header scan {scan:?}",
        turns * 1_800 / 1_000_000,
        sink.0
    );
}
