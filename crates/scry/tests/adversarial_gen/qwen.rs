//! Adversarial Qwen Code files (issue 21), built from the corpus' real chat log in the agent's
//! layout next to a healthy copy: JSON nested 100,000 deep inside a record, records whose
//! fields have the wrong JSON types (parts as a string, `message: null`, token counts as
//! strings, a telemetry record without its event, a `functionResponse` naming no call), a torn
//! last line, a subagent whose `.meta.json` is not JSON, and a subagent directory holding a
//! directory named like a transcript. No panic, no hang, warnings naming the file and line,
//! and the healthy session stays whole.

use super::*;

const PROJ: &str = ".qwen/projects/-work-adv";
const REAL: &str = "4106c652-5ce3-4ae6-a2cd-65c5cd0e4ab1";

fn real_chat() -> PathBuf {
    corpus().join(format!(
        "real/home/.qwen/projects/-home-dev-new-work-proj-qwen/chats/{REAL}.jsonl"
    ))
}

/// One Qwen-shaped line of session `sid` with `rest` (a JSON object body without braces).
fn line(sid: &str, n: u32, rest: &str) -> String {
    format!(
        "{{\"uuid\":\"u{n}\",\"parentUuid\":null,\"sessionId\":\"{sid}\",\"timestamp\":\"2026-11-20T10:00:{n:02}Z\",\"cwd\":\"{CWD}\",\"version\":\"0.24.4\",{rest}}}"
    )
}

#[test]
fn qwen_damaged_records_and_layout() {
    let c = Case::new();
    c.copy_from_corpus(&real_chat(), &format!("{PROJ}/chats/{REAL}.jsonl"));
    let chats = c.home().join(PROJ).join("chats");
    // Wrong types everywhere, a deep line, a torn tail.
    let sid = "0e00a1e0-0000-4000-8000-000000000001";
    let body = [
        line(sid, 1, r#""type":"user","message":{"role":"user","parts":[{"text":"qwen odd prompt"}]}"#),
        line(sid, 2, r#""type":"user","message":{"role":"user","parts":5}"#),
        line(sid, 3, r#""type":"assistant","message":null,"usageMetadata":{"promptTokenCount":"12","candidatesTokenCount":[1]}"#),
        nested(100_000),
        line(sid, 5, &format!(r#""type":"assistant","message":{{"role":"model","parts":[{{"functionCall":{}}}]}}"#, nested(100_000))),
        line(sid, 6, r#""type":"tool_result","message":{"role":"user","parts":[{"functionResponse":{"id":"nowhere","response":{"error":{"x":1}}}}]},"toolCallResult":{"status":7,"resultDisplay":{"type":"shell_result","exitCode":"one"}}"#),
        line(sid, 7, r#""type":"system","subtype":"ui_telemetry","systemPayload":{}"#),
        line(sid, 8, r#""type":"system","subtype":"chat_compression","systemPayload":{"compressedHistory":"nope"}"#),
        line(sid, 9, r#""type":"mystery""#),
        "{\"uuid\":\"u10\",\"sessionId\":\"torn".to_string(),
    ]
    .join("\n");
    let damaged = chats.join(format!("{sid}.jsonl"));
    std::fs::write(&damaged, body).expect("write");
    // A subagent with a garbage meta file, and a directory named like a transcript.
    let subs = c.home().join(PROJ).join(format!("subagents/{REAL}"));
    std::fs::create_dir_all(subs.join("agent-dir-x.jsonl")).expect("mkdir");
    std::fs::write(subs.join("agent-t-call_9.meta.json"), b"\x00\xff{not json").expect("meta");
    std::fs::write(
        subs.join("agent-t-call_9.jsonl"),
        line(REAL, 1, r#""type":"user","isSidechain":true,"message":{"role":"user","parts":[{"text":"sub task"}]}"#) + "\n",
    )
    .expect("sub");

    let list = c.check_common();
    let all = uris(&list);
    for want in [
        format!("qwen:{REAL}"),
        format!("qwen:{sid}"),
        "qwen:t-call_9".to_string(),
    ] {
        assert!(all.contains(&want), "{want} not listed: {list}");
    }
    assert!(!all.iter().any(|u| u.contains("dir-x")), "{list}");
    // The damaged file: readable, its bad lines named.
    let show = c.scry(&["show", "--json", sid]);
    assert_eq!(show.out.code, 0, "{}", show.out.render());
    let w = assert_named(&[&show.out.stdout], &format!("{sid}.jsonl"), "qwen damage");
    let kinds: Vec<&str> = w.iter().filter_map(|w| w["kind"].as_str()).collect();
    for k in [
        "corrupt_record",
        "incomplete_tail",
        "unknown_record",
        "unpaired_result",
    ] {
        assert!(kinds.contains(&k), "{k} missing: {w:?}");
    }
    assert_eq!(
        show.out.json()["stats"]["events"]["user"],
        1,
        "{}",
        show.out.render()
    );
    // The subagent with the garbage meta: its parent from the path.
    let sub = c.scry(&["show", "--json", "qwen:t-call_9"]);
    assert_eq!(sub.out.code, 0, "{}", sub.out.render());
    assert!(sub.out.stdout.contains(REAL), "{}", sub.out.render());
    // The healthy copy is whole: 4 turns.
    let real = c.scry(&["show", "--json", REAL]);
    assert_eq!(real.out.code, 0, "{}", real.out.render());
    assert_eq!(
        real.out.json()["stats"]["turns"],
        4,
        "{}",
        real.out.render()
    );
    let found = c.scry(&["search", "--global", "--json", "qwen odd prompt"]);
    assert_eq!(found.out.code, 0, "{}", found.out.render());
    assert!(found.out.stdout.contains(sid), "{}", found.out.render());
}
