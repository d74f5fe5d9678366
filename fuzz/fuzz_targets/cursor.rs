//! Cursor CLI provider, agent transcripts: the input is
//! `~/.cursor/projects/<p>/agent-transcripts/<id>/<id>.jsonl` (the `store.db` SQLite stores are
//! not fuzzed here: SQLite's own parser is not ours).
#![no_main]

use libfuzzer_sys::fuzz_target;
use scry_fuzz::{drive, put, reset};

fuzz_target!(|data: &[u8]| {
    reset();
    let f = put(
        ".cursor/projects/home-u-proj/agent-transcripts/0b9c7e52-4f3a-4d8e-9a61-2c5b8f0d7e13/0b9c7e52-4f3a-4d8e-9a61-2c5b8f0d7e13.jsonl",
        data,
    );
    drive(&scry_source_cursor::CursorSource, &[f]);
});
