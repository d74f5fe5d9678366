//! Grok Build provider: the input's pieces (split at 0xFF) are `chat_history.jsonl`,
//! `summary.json` and `updates.jsonl` of one session directory under `~/.grok/sessions/`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use scry_fuzz::{drive, put, reset, split};

const DIR: &str = ".grok/sessions/%2Fhome%2Fu%2Fproj/0b9c7e52-4f3a-4d8e-9a61-2c5b8f0d7e13";

fuzz_target!(|data: &[u8]| {
    reset();
    let names = ["chat_history.jsonl", "summary.json", "updates.jsonl"];
    let mut files = Vec::new();
    for (name, piece) in names.iter().zip(split(data, 3)) {
        files.push(put(&format!("{DIR}/{name}"), piece));
    }
    drive(&scry_source_grok::GrokSource, &files);
});
