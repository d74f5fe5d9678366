//! GitHub Copilot CLI provider: the input's pieces (split at 0xFF) are `events.jsonl` and
//! `workspace.yaml` of one session directory under `~/.copilot/session-state/` (the YAML
//! piece exercises the hand-written flat-key reader).
#![no_main]

use libfuzzer_sys::fuzz_target;
use scry_fuzz::{drive, put, reset, split};

const DIR: &str = ".copilot/session-state/0b9c7e52-4f3a-4d8e-9a61-2c5b8f0d7e13";

fuzz_target!(|data: &[u8]| {
    reset();
    let names = ["events.jsonl", "workspace.yaml"];
    let mut files = Vec::new();
    for (name, piece) in names.iter().zip(split(data, 2)) {
        files.push(put(&format!("{DIR}/{name}"), piece));
    }
    drive(&scry_source_copilot::CopilotSource, &files);
});
