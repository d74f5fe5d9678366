//! Deep Agents record mapping (`scry_source_deepagents::map::Mapper`), separated from the
//! SQLite store it normally reads: the input is decoded as a LangGraph value (first byte:
//! msgpack / json), turned into a message list (`to_messages`, or a single `Message`), and
//! every message is mapped to events through an `Emitter` — human / ai / tool / system
//! messages, tool-call pairing, usage, exit codes, unknown types. The second byte picks the
//! surface and whether messages carry a time.
#![no_main]

use std::path::PathBuf;

use libfuzzer_sys::fuzz_target;
use scry_fuzz::Count;
use scry_langgraph::{message, msgpack, Message};
use scry_model::{Surface, Timestamp};
use scry_source::Emitter;
use scry_source_deepagents::map::{exit_code, usage, Mapper, Placed};

fuzz_target!(|data: &[u8]| {
    let [kind, mode, blob @ ..] = data else {
        return;
    };
    let type_name = if kind % 2 == 0 { "msgpack" } else { "json" };
    let Ok(decoded) = msgpack::decode_typed(type_name, blob) else {
        return;
    };
    let v = &decoded.value;
    let messages = match message::to_messages(v) {
        Ok(m) => m,
        Err(_) => Message::from_value(v).into_iter().collect(),
    };
    let surface = match mode % 3 {
        0 => Surface::Current,
        1 => Surface::Shadowed,
        _ => Surface::LogOnly,
    };
    let time: Option<Timestamp> = if mode & 0x04 != 0 {
        "2026-11-20T10:00:00Z".parse().ok()
    } else {
        None
    };
    let model = (mode & 0x08 != 0).then(|| "anthropic:claude-test".to_string());
    let mut mapper = Mapper::new(PathBuf::from("/fuzz/sessions.db"), model);
    let mut sink = Count::default();
    let mut out = Emitter::new(&mut sink);
    for (index, msg) in messages.iter().enumerate() {
        let _ = usage(msg.field("usage_metadata"));
        let _ = exit_code(msg, msg.field("name").and_then(|n| n.as_str()));
        let p = Placed {
            index,
            msg,
            time,
            surface,
        };
        mapper.message(&p, &mut out);
    }
    mapper.finish(&mut out);
});
