//! OpenCode provider, legacy JSON storage: the input's pieces (split at 0xFF) are the session
//! file, then alternately a message file and a part file of the message before it, under
//! `~/.local/share/opencode/storage/{session,message,part}/`. File names follow the `id`
//! fields when they are plain names, so seeds built from real storage keep their links.
#![no_main]

use libfuzzer_sys::fuzz_target;
use scry_fuzz::{drive, json_id, put, reset, split};

const STORAGE: &str = ".local/share/opencode/storage";

fuzz_target!(|data: &[u8]| {
    reset();
    let pieces = split(data, 16);
    let Some(session) = pieces.first() else {
        return;
    };
    let sid = json_id(session, "id", "ses_fuzz");
    let f = put(&format!("{STORAGE}/session/proj_fuzz/{sid}.json"), session);
    let mut msg = String::from("msg_0");
    for (i, piece) in pieces.iter().enumerate().skip(1) {
        if i % 2 == 1 {
            msg = json_id(piece, "id", &format!("msg_{i}"));
            put(&format!("{STORAGE}/message/{sid}/{msg}.json"), piece);
        } else {
            let part = json_id(piece, "id", &format!("prt_{i}"));
            put(&format!("{STORAGE}/part/{msg}/{part}.json"), piece);
        }
    }
    drive(&scry_source_opencode::OpencodeSource, &[f]);
});
