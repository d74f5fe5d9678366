//! pi provider: the input is a session under `~/.pi/agent/sessions/<slug>/`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use scry_fuzz::{drive, put, reset};

fuzz_target!(|data: &[u8]| {
    reset();
    let f = put(
        ".pi/agent/sessions/--home-u-proj--/2026-11-03T10-00-00-000Z_0b9c7e52-4f3a-4d8e-9a61-2c5b8f0d7e13.jsonl",
        data,
    );
    drive(&scry_source_pi::PiSource, &[f]);
});
