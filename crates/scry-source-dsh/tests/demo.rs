//! The synthetic demo session under `demo/home/.dsh/` (embedded by `scry --demo`).
//!
//! The file is generated here: `SCRY_WRITE_DEMO=1 cargo test -p scry-source-dsh --test demo`
//! rewrites it (one zstd frame per append batch, like dsh itself); without the variable the test
//! only checks that the committed file reads as intended.

use std::io::Write;
use std::path::{Path, PathBuf};

use scry_model::{EventKind, Surface};
use scry_source::{Env, Source};
use scry_source_dsh::DshSource;
use serde_json::{json, Value};

const ID: &str = "session-7d3f2a10-5b8e-4c61-9a2f-0e4b6c8d1f23";
/// 2026-11-12T09:14:00Z in epoch milliseconds.
const T0: i64 = 1_794_474_840_000;

fn demo_home() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../demo/home")
}

fn frame(lines: &[Value]) -> Vec<u8> {
    let mut text = String::new();
    for l in lines {
        text.push_str(&l.to_string());
        text.push('\n');
    }
    let mut enc = zstd::stream::write::Encoder::new(Vec::new(), 19).unwrap();
    enc.include_checksum(true).unwrap();
    enc.write_all(text.as_bytes()).unwrap();
    enc.finish().unwrap()
}

fn rec(ty: &str, seq: u64, dt: i64, data: Value) -> Value {
    json!({"type": ty, "seq": seq, "time": T0 + dt, "data": data})
}

fn visible(mut v: Value) -> Value {
    v["surfaceOp"] = json!("append");
    v
}

fn model_src() -> Value {
    json!({"kind":"model","provider":"deepseek-official","model":"deepseek-v4-flash"})
}

fn batches() -> Vec<Vec<Value>> {
    let ctx = "Current runtime context.\n\nCurrent DSH file policy: workspace-write under \"/home/demo/projects/webapp\".";
    vec![
        vec![
            json!({"type":"session","version":0,"id":ID,"createdAt":T0,"cwd":"/home/demo/projects/webapp","delegationDepth":0}),
        ],
        vec![
            rec("sandbox/mode", 0, 3, json!({"mode":"workspace-write"})),
            rec("turn/start", 1, 5, json!({"turn":1})),
            visible(rec(
                "user/message",
                2,
                40,
                json!({"id":"5e0c1d7a-0001-4d6f-8b1e-2a3c4d5e6f70","role":"user","content":[{"type":"text","text":"The login form test is failing. Find out why and fix it."}],"source":{"kind":"user"}}),
            )),
            visible(rec(
                "user/message",
                3,
                41,
                json!({"id":"5e0c1d7a-0002-4d6f-8b1e-2a3c4d5e6f70","role":"user","content":[{"type":"text","text":ctx}],"source":{"kind":"plugin","plugin":"@deepseek-ai/dsh-system-prompt","form":"snapshot"}}),
            )),
            rec(
                "session/title",
                4,
                42,
                json!({"title":"The login form test is","source":{"kind":"fallback"}}),
            ),
            rec(
                "request/header",
                5,
                43,
                json!({"header":{"config":{"provider":"deepseek-official","model":"deepseek-v4-flash"}}}),
            ),
        ],
        vec![
            visible(rec(
                "assistant/message",
                6,
                2_400,
                json!({"turn":1,"step":1,"message":{"id":"9a1b2c3d-0001-4e5f-8a6b-7c8d9e0f1a2b","role":"assistant","content":[
                {"type":"reasoning","text":"Run the test suite first to see the actual failure."},
                {"type":"tool-call","id":"call_demo_01","name":"bash","arguments":"{\"command\": \"npm test -- login\", \"description\": \"Run the login tests\"}"}],
                "source":model_src()},"usage":{"inputTokens":6120,"outputTokens":64,"cacheReadTokens":0,"reasoningTokens":14}}),
            )),
            rec(
                "tool/call",
                7,
                2_401,
                json!({"turn":1,"step":1,"callId":"call_demo_01","name":"bash","arguments":"{\"command\": \"npm test -- login\", \"description\": \"Run the login tests\"}"}),
            ),
            visible(rec(
                "tool/result",
                8,
                5_900,
                json!({"turn":1,"step":1,"message":{"id":"7f6e5d4c-0001-4b3a-9c8d-1e2f3a4b5c6d","role":"user","source":{"kind":"tool","callId":"call_demo_01"},"content":[
                {"type":"tool-result","toolCallId":"call_demo_01","content":[{"type":"text","text":"FAIL src/login.test.ts\n  ✕ rejects an empty password (12 ms)\n    Expected: \"Password is required\"\n    Received: undefined\n[exit code: 1]"}],"isError":false}]}}),
            )),
        ],
        vec![
            visible(rec(
                "assistant/message",
                9,
                8_100,
                json!({"turn":1,"step":2,"message":{"id":"9a1b2c3d-0002-4e5f-8a6b-7c8d9e0f1a2b","role":"assistant","content":[
                {"type":"reasoning","text":"validate() returns early when the email is empty but never checks the password."},
                {"type":"tool-call","id":"call_demo_02","name":"edit","arguments":"{\"file_path\": \"/home/demo/projects/webapp/src/login.ts\", \"old_string\": \"  return errors;\", \"new_string\": \"  if (!form.password) errors.password = 'Password is required';\\n  return errors;\"}"}],
                "source":model_src()},"usage":{"inputTokens":1210,"outputTokens":88,"cacheReadTokens":5900,"reasoningTokens":21}}),
            )),
            rec(
                "tool/call",
                10,
                8_101,
                json!({"turn":1,"step":2,"callId":"call_demo_02","name":"edit","arguments":"{}"}),
            ),
            visible(rec(
                "tool/result",
                11,
                8_140,
                json!({"turn":1,"step":2,"message":{"id":"7f6e5d4c-0002-4b3a-9c8d-1e2f3a4b5c6d","role":"user","source":{"kind":"tool","callId":"call_demo_02"},"content":[
                {"type":"tool-result","toolCallId":"call_demo_02","content":[{"type":"text","text":"Edited src/login.ts (1 replacement)."}],"isError":false}]}}),
            )),
            visible(rec(
                "assistant/message",
                12,
                9_500,
                json!({"turn":1,"step":3,"message":{"id":"9a1b2c3d-0003-4e5f-8a6b-7c8d9e0f1a2b","role":"assistant","content":[
                {"type":"tool-call","id":"call_demo_03","name":"bash","arguments":"{\"command\": \"npm test -- login\"}"}],
                "source":model_src()},"usage":{"inputTokens":1330,"outputTokens":30,"cacheReadTokens":6000,"reasoningTokens":0}}),
            )),
            rec(
                "tool/call",
                13,
                9_501,
                json!({"turn":1,"step":3,"callId":"call_demo_03","name":"bash","arguments":"{\"command\": \"npm test -- login\"}"}),
            ),
            visible(rec(
                "tool/result",
                14,
                12_800,
                json!({"turn":1,"step":3,"message":{"id":"7f6e5d4c-0003-4b3a-9c8d-1e2f3a4b5c6d","role":"user","source":{"kind":"tool","callId":"call_demo_03"},"content":[
                {"type":"tool-result","toolCallId":"call_demo_03","content":[{"type":"text","text":"PASS src/login.test.ts\n  ✓ rejects an empty password (9 ms)\n  ✓ accepts valid credentials (4 ms)\n[exit code: 0]"}],"isError":false}]}}),
            )),
            visible(rec(
                "assistant/message",
                15,
                14_000,
                json!({"turn":1,"step":4,"message":{"id":"9a1b2c3d-0004-4e5f-8a6b-7c8d9e0f1a2b","role":"assistant","content":[
                {"type":"text","text":"Fixed: `validate()` in `src/login.ts` never checked the password. It now reports \"Password is required\", and both login tests pass."}],
                "source":model_src()},"usage":{"inputTokens":1400,"outputTokens":41,"cacheReadTokens":6100,"reasoningTokens":0}}),
            )),
            rec(
                "session/title",
                16,
                14_010,
                json!({"title":"Fix the login form validation","source":{"kind":"provider","provider":"session-title-first-prompt-llm"}}),
            ),
            rec(
                "turn/end",
                17,
                14_020,
                json!({"turn":1,"reason":{"kind":"completed"}}),
            ),
        ],
        vec![
            rec("turn/start", 18, 95_000, json!({"turn":2})),
            visible(rec(
                "user/message",
                19,
                95_010,
                json!({"id":"5e0c1d7a-0003-4d6f-8b1e-2a3c4d5e6f70","role":"user","content":[{"type":"text","text":"Also run the linter on that file."}],"source":{"kind":"user"}}),
            )),
            visible(rec(
                "assistant/message",
                20,
                96_500,
                json!({"turn":2,"step":1,"message":{"id":"9a1b2c3d-0005-4e5f-8a6b-7c8d9e0f1a2b","role":"assistant","content":[
                {"type":"tool-call","id":"call_demo_04","name":"bash","arguments":"{\"command\": \"npx eslint src/login.ts\"}"}],
                "source":model_src()},"usage":{"inputTokens":1450,"outputTokens":27,"cacheReadTokens":6200,"reasoningTokens":0}}),
            )),
            rec(
                "tool/call",
                21,
                96_501,
                json!({"turn":2,"step":1,"callId":"call_demo_04","name":"bash","arguments":"{}"}),
            ),
            visible(rec(
                "tool/result",
                22,
                99_200,
                json!({"turn":2,"step":1,"message":{"id":"7f6e5d4c-0004-4b3a-9c8d-1e2f3a4b5c6d","role":"user","source":{"kind":"tool","callId":"call_demo_04"},"content":[
                {"type":"tool-result","toolCallId":"call_demo_04","content":[{"type":"text","text":"src/login.ts\n  14:7  error  'unused' is assigned a value but never used  no-unused-vars\n\n✖ 1 problem (1 error, 0 warnings)\n[exit code: 1]"}],"isError":false}]}}),
            )),
            visible(rec(
                "assistant/message",
                23,
                101_000,
                json!({"turn":2,"step":2,"message":{"id":"9a1b2c3d-0006-4e5f-8a6b-7c8d9e0f1a2b","role":"assistant","content":[
                {"type":"text","text":"ESLint reports one error: an unused variable `unused` on line 14 of `src/login.ts`. Want me to remove it?"}],
                "source":model_src()},"usage":{"inputTokens":1520,"outputTokens":35,"cacheReadTokens":6300,"reasoningTokens":0}}),
            )),
            rec(
                "turn/end",
                24,
                101_010,
                json!({"turn":2,"reason":{"kind":"completed"}}),
            ),
        ],
    ]
}

#[test]
fn demo_session_reads_as_intended() {
    let dir = demo_home()
        .join(".dsh/sessions/-home-demo-projects-webapp")
        .join(ID);
    let path = dir.join("session.jsonl.zstd");
    if std::env::var_os("SCRY_WRITE_DEMO").is_some() {
        std::fs::create_dir_all(&dir).unwrap();
        let bytes: Vec<u8> = batches().iter().flat_map(|b| frame(b)).collect();
        std::fs::write(&path, bytes).unwrap();
    }
    let env = Env::with_home(demo_home());
    let d = DshSource.discover(&env);
    assert_eq!(d.files.len(), 1);
    let s = DshSource.parse(&d.files[0]).unwrap();
    assert!(s.warnings.is_empty(), "{:?}", s.warnings);
    assert_eq!(s.header.id, ID);
    assert_eq!(
        s.header.title.as_deref(),
        Some("Fix the login form validation")
    );
    assert_eq!(s.turn_count(), 2);
    let calls = s
        .events
        .iter()
        .filter(|e| e.kind == EventKind::ToolCall)
        .count();
    assert_eq!(calls, 4);
    let failures = s.events.iter().filter(|e| e.is_failure()).count();
    assert_eq!(failures, 2);
    assert!(s.events.iter().all(|e| e.surface != Surface::Shadowed));
    // Several frames, all read.
    let raw = std::fs::read(&path).unwrap();
    let magic = [0x28u8, 0xb5, 0x2f, 0xfd];
    assert_eq!(raw.windows(4).filter(|w| *w == magic).count(), 5);
    assert!(raw.len() < 20 * 1024);
}
