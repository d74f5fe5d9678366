//! Continue CLI provider: the input is a session document under `~/.continue/sessions/`,
//! optionally followed (after 0xFF) by the `sessions.json` index.
#![no_main]

use libfuzzer_sys::fuzz_target;
use scry_fuzz::{drive, put, reset, split};

fuzz_target!(|data: &[u8]| {
    reset();
    let pieces = split(data, 2);
    let f = put(
        ".continue/sessions/433d4076-aa3d-4857-84c4-68d12b9d7cf0.json",
        pieces[0],
    );
    let mut files = vec![f];
    if let Some(index) = pieces.get(1) {
        files.push(put(".continue/sessions/sessions.json", index));
    }
    drive(&scry_source_continue::ContinueSource, &files);
});
