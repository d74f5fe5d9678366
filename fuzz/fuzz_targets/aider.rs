//! Aider provider: the input is a project's `.aider.chat.history.md`, found by the walk of the
//! directory scry runs in (the fake HOME here), every launch parsed, and `detect` on the file.
#![no_main]

use libfuzzer_sys::fuzz_target;
use scry_fuzz::{home, put, reset};
use scry_source::{Env, Source};

fuzz_target!(|data: &[u8]| {
    reset();
    let f = put("work/proj/.aider.chat.history.md", data);
    let src = scry_source_aider::AiderSource;
    let env = Env::with_home(home()).with_cwd(home());
    for file in src.discover(&env).files {
        let _ = src.scan_header(&file);
        if let Ok(s) = src.parse(&file) {
            let _ = serde_json::to_vec(&s.header);
        }
    }
    if let Some(file) = src.detect(&f) {
        let _ = src.parse(&file);
    }
});
