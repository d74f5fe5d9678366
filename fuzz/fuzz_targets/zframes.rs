//! The zstd frame walker on its own (`scry_source_dsh::zframes::FrameReader`) and the
//! streaming `.zst` reader of `scry_source::jsonl`: the input bytes are the compressed file
//! (truncated, corrupt, skippable and garbage frames). The first byte picks the in-memory
//! frame limit, so small limits drive the streaming path for big frames. When zstd itself
//! decodes the whole input cleanly, the walker must give the same bytes with no warning.
#![no_main]

use std::io::Read;
use std::path::Path;

use libfuzzer_sys::fuzz_target;
use scry_fuzz::put;
use scry_source::jsonl;
use scry_source_dsh::zframes::FrameReader;

/// Decoded bytes read at most (a 128 KiB input can expand a lot).
const CAP: u64 = 32 * 1024 * 1024;

fn walk(data: &[u8], limit: u64) -> (Vec<u8>, usize, bool) {
    let mut r = FrameReader::new(data, Path::new("fuzz.jsonl.zstd")).with_limit(limit);
    let mut out = Vec::new();
    let ok = (&mut r).take(CAP).read_to_end(&mut out).is_ok();
    (out, r.take_warnings().len(), ok)
}

fuzz_target!(|data: &[u8]| {
    let Some((&b, rest)) = data.split_first() else {
        return;
    };
    let limit = 16u64 << (b % 24);
    let (walked, warnings, ok) = walk(rest, limit);

    // Reference: the zstd crate's own multi-frame decoder, capped the same way.
    let mut reference = Vec::new();
    let clean = match zstd::stream::read::Decoder::new(rest) {
        Ok(d) => d.take(CAP).read_to_end(&mut reference).is_ok(),
        Err(_) => false,
    };
    if clean && !rest.is_empty() && (reference.len() as u64) < CAP && (walked.len() as u64) < CAP {
        assert!(ok, "walker failed on input zstd decodes");
        assert_eq!(warnings, 0, "walker warned on input zstd decodes");
        assert!(walked == reference, "walker and zstd disagree");
    }

    // The streaming reader scry uses for `.zst` JSONL files.
    let f = put("zframes/fuzz.jsonl.zst", rest);
    if let Ok(reader) = jsonl::open(&f) {
        let mut w = Vec::new();
        let mut n = 0u64;
        let _ = jsonl::read(reader.take(CAP), &f, 0, 0, &mut w, |_| n += 1);
    }
});
