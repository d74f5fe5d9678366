//! LangGraph value decoding (`scry_langgraph::msgpack::decode_typed`) and what the inspector
//! does with a decoded value: messages, updates, JSON and Python renderings. The first byte
//! picks the serialization type; the rest is the blob.
#![no_main]

use libfuzzer_sys::fuzz_target;
use scry_langgraph::{message, msgpack, pyjson, reconstruct, Message};

fuzz_target!(|data: &[u8]| {
    let Some((&kind, blob)) = data.split_first() else {
        return;
    };
    let type_name = match kind % 4 {
        0 | 1 => "msgpack",
        2 => "json",
        _ => "bytes",
    };
    let Ok(decoded) = msgpack::decode_typed(type_name, blob) else {
        return;
    };
    let v = &decoded.value;
    let _ = v.to_json();
    let _ = pyjson::dumps(v);
    let _ = pyjson::repr(v);
    let _ = pyjson::py_str(v);
    let _ = reconstruct::opaque_labels(v);
    if let Some(m) = Message::from_value(v) {
        let _ = m.to_json();
        let _ = m.text();
        let _ = m.reasoning();
    }
    if let Ok(update) = message::classify_update(v) {
        let mut list = Vec::new();
        let _ = message::apply(&mut list, update);
    }
    let _ = message::to_messages(v);
});
