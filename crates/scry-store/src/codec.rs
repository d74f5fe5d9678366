//! How model values map to columns: kinds and surfaces as small integers, times as nanoseconds,
//! the searchable `aux` text of tool events, and an event split into its whole `text` plus the
//! rest as JSON (so the event reads back deep-equal, S-I4).

use scry_model::{Event, EventKind, Timestamp};

use crate::error::{Result, StoreError};

/// The integer stored for an event kind (its position in [`EventKind::ALL`]).
pub(crate) fn kind_to_i(kind: EventKind) -> i64 {
    EventKind::ALL
        .iter()
        .position(|k| *k == kind)
        .map_or(0, |p| p as i64)
}

/// The event kind for a stored integer.
pub(crate) fn kind_from_i(i: i64) -> Option<EventKind> {
    usize::try_from(i)
        .ok()
        .and_then(|i| EventKind::ALL.get(i).copied())
}

/// A timestamp as nanoseconds since the epoch, clamped to the `i64` range (years 1678–2262).
pub(crate) fn time_to_i(t: Timestamp) -> i64 {
    let ns = t.as_nanosecond();
    i64::try_from(ns).unwrap_or(if ns < 0 { i64::MIN } else { i64::MAX })
}

/// The row id of an event: the session id in the high 32 bits, `seq` in the low ones.
pub(crate) fn event_id(sid: i64, seq: u32) -> i64 {
    (sid << 32) | i64::from(seq)
}

/// The FTS row id holding a session's title and artifact paths (one past any event seq).
pub(crate) fn session_doc_id(sid: i64) -> i64 {
    (sid << 32) | 0xFFFF_FFFF
}

/// First and last row id of a session's events.
pub(crate) fn event_id_range(sid: i64) -> (i64, i64) {
    (sid << 32, (sid << 32) | 0xFFFF_FFFE)
}

/// The searchable text of a tool event beyond its `text`: the tool name, a newline, then every
/// leaf value of the arguments (strings as they are, numbers and booleans as JSON), one per
/// line, in document order. Keys are not searched. `None` for other events.
pub fn aux_text(event: &Event) -> Option<String> {
    let mut out = String::new();
    aux_text_into(event, &mut out).then_some(out)
}

/// [`aux_text`] into `out` (cleared first); `false` (and `out` empty) for an event without.
pub(crate) fn aux_text_into(event: &Event, out: &mut String) -> bool {
    out.clear();
    if !matches!(event.kind, EventKind::ToolCall | EventKind::ToolResult) {
        return false;
    }
    out.push_str(event.tool.as_deref().unwrap_or_default());
    out.push('\n');
    if let Some(args) = &event.args {
        let mut first = true;
        push_leaves(args, out, &mut first);
    }
    true
}

fn push_leaves(v: &serde_json::Value, out: &mut String, first: &mut bool) {
    use serde_json::Value;
    let mut leaf = |s: &str, out: &mut String| {
        if !*first {
            out.push('\n');
        }
        *first = false;
        out.push_str(s);
    };
    match v {
        Value::Null => {}
        Value::Bool(b) => leaf(if *b { "true" } else { "false" }, out),
        Value::Number(n) => leaf(&n.to_string(), out),
        Value::String(s) => leaf(s, out),
        Value::Array(a) => a.iter().for_each(|x| push_leaves(x, out, first)),
        Value::Object(o) => o.values().for_each(|x| push_leaves(x, out, first)),
    }
}

/// Splits `aux` into the tool name and the argument text.
pub(crate) fn split_aux(aux: &str) -> (&str, &str) {
    aux.split_once('\n').unwrap_or((aux, ""))
}

/// The event without its text, as JSON appended to `out` (the text is stored on its own).
pub(crate) fn write_rest_json(event: &mut Event, out: &mut Vec<u8>) -> Result<()> {
    let text = std::mem::take(&mut event.text);
    let r = serde_json::to_writer(&mut *out, &*event)
        .map_err(|e| StoreError::IndexBuild(format!("cannot encode event {}: {e}", event.seq)));
    event.text = text;
    r
}

/// Rebuilds an event from its stored text and JSON rest.
pub(crate) fn event_from(uri: &str, text: String, rest: &str) -> Result<Event> {
    let mut e: Event = serde_json::from_str(rest).map_err(|err| StoreError::CorruptSession {
        uri: uri.to_string(),
        message: format!("event row does not decode: {err}"),
    })?;
    e.text = text;
    Ok(e)
}
