//! Gemini CLI provider: the input is a chat under `~/.gemini/tmp/<project>/chats/` — JSON
//! lines (0.40+), or the legacy whole-file JSON when the input is one document.
#![no_main]

use libfuzzer_sys::fuzz_target;
use scry_fuzz::{drive, is_document, put, reset};

fuzz_target!(|data: &[u8]| {
    reset();
    let ext = if is_document(data) { "json" } else { "jsonl" };
    let f = put(
        &format!(".gemini/tmp/proj/chats/session-2026-11-03T10-00-0b9c7e52.{ext}"),
        data,
    );
    drive(&scry_source_gemini::GeminiSource, &[f]);
});
