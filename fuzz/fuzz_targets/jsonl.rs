//! `scry_source::jsonl`: `parse_line` on the input as one line (complete and as a torn tail),
//! and `read` over the input as a stream of lines.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use scry_source::jsonl;

fuzz_target!(|data: &[u8]| {
    let path = Path::new("fuzz.jsonl");
    let mut warnings = Vec::new();
    let _ = jsonl::parse_line(data, path, 1, true, &mut warnings);
    let _ = jsonl::parse_line(data, path, 1, false, &mut warnings);
    warnings.clear();
    let mut records = 0u64;
    let stats = jsonl::read(data, path, 0, 0, &mut warnings, |r| {
        records += 1;
        assert!(r.line >= 1);
        assert!(r.offset as usize + r.raw.len() <= data.len());
    });
    assert_eq!(stats.records, records);
    assert!(stats.bytes as usize <= data.len());
});
