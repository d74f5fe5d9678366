//! Codex provider: the input is a rollout under `~/.codex/sessions/YYYY/MM/DD/` — JSON lines,
//! or the 0.1.x single JSON document (`.json`) when the input is one document.
#![no_main]

use libfuzzer_sys::fuzz_target;
use scry_fuzz::{drive, is_document, put, reset};

fuzz_target!(|data: &[u8]| {
    reset();
    let ext = if is_document(data) { "json" } else { "jsonl" };
    let f = put(
        &format!(
            ".codex/sessions/2026/11/03/rollout-2026-11-03T10-00-00-0b9c7e52-4f3a-4d8e-9a61-2c5b8f0d7e13.{ext}"
        ),
        data,
    );
    drive(&scry_source_codex::CodexSource, &[f]);
});
