//! DeepSeek Harness provider and its zstd frame walker: an input that starts with the zstd
//! magic is written as-is to `session.jsonl.zstd` (truncated / corrupt frames); any other input
//! is compressed line by line into consecutive frames (multi-frame files as dsh writes them),
//! or, for odd lengths, written as a plain `session.jsonl`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use scry_fuzz::{drive, put, reset};

const DIR: &str = ".dsh/sessions/--home-u-proj--/session-0b9c7e52-4f3a-4d8e-9a61-2c5b8f0d7e13";

fuzz_target!(|data: &[u8]| {
    reset();
    let f = if data.starts_with(&[0x28, 0xB5, 0x2F, 0xFD]) {
        put(&format!("{DIR}/session.jsonl.zstd"), data)
    } else if data.len() % 2 == 1 {
        put(&format!("{DIR}/session.jsonl"), data)
    } else {
        let mut out = Vec::new();
        for chunk in data.split_inclusive(|b| *b == b'\n') {
            match zstd::bulk::compress(chunk, 1) {
                Ok(frame) => out.extend_from_slice(&frame),
                Err(_) => return,
            }
        }
        put(&format!("{DIR}/session.jsonl.zstd"), &out)
    };
    drive(&scry_source_dsh::DshSource, &[f]);
});
