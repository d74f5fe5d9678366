//! Claude Code provider: the input is a session file under `~/.claude/projects/<slug>/`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use scry_fuzz::{drive, put, reset};

fuzz_target!(|data: &[u8]| {
    reset();
    let f = put(
        ".claude/projects/-home-u-proj/0b9c7e52-4f3a-4d8e-9a61-2c5b8f0d7e13.jsonl",
        data,
    );
    drive(&scry_source_claude::ClaudeSource, &[f]);
});
