//! Antigravity provider: the input's first piece (split at 0xFF) is the brain directory's
//! `.system_generated/logs/transcript.jsonl`, the next ones markdown artifacts beside it.
#![no_main]

use libfuzzer_sys::fuzz_target;
use scry_fuzz::{drive, put, reset, split};

const BRAIN: &str = ".gemini/antigravity/brain/0b9c7e52-4f3a-4d8e-9a61-2c5b8f0d7e13";

fuzz_target!(|data: &[u8]| {
    reset();
    let pieces = split(data, 4);
    let mut files = Vec::new();
    for (i, piece) in pieces.iter().enumerate() {
        if i == 0 {
            files.push(put(
                &format!("{BRAIN}/.system_generated/logs/transcript.jsonl"),
                piece,
            ));
        } else {
            files.push(put(&format!("{BRAIN}/artifact_{i}.md"), piece));
        }
    }
    drive(&scry_source_antigravity::AntigravitySource, &files);
});
