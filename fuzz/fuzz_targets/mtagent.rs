//! MT-Agent provider (`MtagentSource`): the input is a transcript
//! `~/.mtagent/history/<hash>/session-<ts>-<id>.jsonl`. When the input's length is odd, the
//! fixture checkpoint database (`crates/scry-source-mtagent/fixtures`, thread ids
//! `thread-api-0001` …) is copied beside it, so fuzzed transcripts also run the checkpoint join
//! (pending approvals, interrupted calls, consistency warnings). The database itself is not
//! fuzzed (see README: SQLite's parser, not ours).
#![no_main]

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use scry_fuzz::{drive, put, reset};

const DIR: &str = ".mtagent/history/860cd9f2f12861b9";

/// The fixture checkpoint database's bytes (read once).
fn checkpoints() -> &'static [u8] {
    static DB: OnceLock<Vec<u8>> = OnceLock::new();
    DB.get_or_init(|| {
        let p: PathBuf = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../crates/scry-source-mtagent/fixtures/home")
            .join(DIR)
            .join("checkpoints.sqlite");
        std::fs::read(p).unwrap_or_default()
    })
}

fuzz_target!(|data: &[u8]| {
    reset();
    let f = put(&format!("{DIR}/session-20261122T140000-a9f1c2d3e4f5.jsonl"), data);
    if data.len() % 2 == 1 && !checkpoints().is_empty() {
        put(&format!("{DIR}/checkpoints.sqlite"), checkpoints());
    }
    drive(&scry_source_mtagent::MtagentSource, &[f]);
});
