//! Qwen Code provider: the input is a chat log under `~/.qwen/projects/<proj>/chats/`; odd-length
//! inputs are a subagent transcript (with a `.meta.json` beside it) instead.
#![no_main]

use libfuzzer_sys::fuzz_target;
use scry_fuzz::{drive, put, reset};

fuzz_target!(|data: &[u8]| {
    reset();
    let f = if data.len() % 2 == 1 {
        put(
            ".qwen/projects/-home-u-proj/subagents/4106c652-5ce3-4ae6-a2cd-65c5cd0e4ab1/agent-general-purpose-call_1.meta.json",
            br#"{"agentType":"general-purpose","description":"Count files","parentSessionId":"4106c652-5ce3-4ae6-a2cd-65c5cd0e4ab1"}"#,
        );
        put(
            ".qwen/projects/-home-u-proj/subagents/4106c652-5ce3-4ae6-a2cd-65c5cd0e4ab1/agent-general-purpose-call_1.jsonl",
            data,
        )
    } else {
        put(
            ".qwen/projects/-home-u-proj/chats/4106c652-5ce3-4ae6-a2cd-65c5cd0e4ab1.jsonl",
            data,
        )
    };
    drive(&scry_source_qwen::QwenSource, &[f]);
});
