//! How model values map to columns: kinds and surfaces as small integers, times as nanoseconds,
//! the searchable `aux` text of tool events, and an event split into its whole `text` plus the
//! rest as JSON (so the event reads back deep-equal, S-I4).

use scry_model::{Event, EventKind, Surface, Timestamp};

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

/// The integer stored for a surface.
pub(crate) fn surface_to_i(s: Surface) -> i64 {
    match s {
        Surface::Current => 0,
        Surface::Shadowed => 1,
        Surface::LogOnly => 2,
    }
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
    if !matches!(event.kind, EventKind::ToolCall | EventKind::ToolResult) {
        return None;
    }
    let mut out = event.tool.clone().unwrap_or_default();
    out.push('\n');
    if let Some(args) = &event.args {
        let mut first = true;
        push_leaves(args, &mut out, &mut first);
    }
    Some(out)
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

/// The event without its text, as JSON (`text` is stored in its own column).
pub(crate) fn rest_json(event: &mut Event) -> Result<(String, String)> {
    let text = std::mem::take(&mut event.text);
    let rest = serde_json::to_string(&*event)
        .map_err(|e| StoreError::IndexBuild(format!("cannot encode event {}: {e}", event.seq)));
    event.text = text;
    Ok((std::mem::take(&mut event.text), rest?))
}

thread_local! {
    static COMPRESSOR: std::cell::RefCell<Option<zstd::bulk::Compressor<'static>>> =
        std::cell::RefCell::new(zstd::bulk::Compressor::new(1).ok());
    static DECOMPRESSOR: std::cell::RefCell<Option<zstd::bulk::Decompressor<'static>>> =
        std::cell::RefCell::new(zstd::bulk::Decompressor::new().ok());
}

/// Bodies at least this long are stored zstd-compressed.
const COMPRESS_FROM: usize = 192;

/// The stored body of an event: a tag byte (0 = raw; 1 = zstd, followed by the raw length as
/// u32 LE), then — compressed or not — the text's length (u32 LE), the text's bytes and the rest
/// of the event as JSON. Text is kept
/// byte for byte (NUL included); compression keeps the index below the corpus size.
pub(crate) fn encode_body(text: &str, rest: &str) -> Vec<u8> {
    let len = u32::try_from(text.len()).unwrap_or(u32::MAX);
    let mut raw = Vec::with_capacity(5 + text.len() + rest.len());
    raw.push(0);
    raw.extend_from_slice(&len.to_le_bytes());
    raw.extend_from_slice(text.as_bytes());
    raw.extend_from_slice(rest.as_bytes());
    if raw.len() >= COMPRESS_FROM {
        let n = u32::try_from(raw.len() - 1).unwrap_or(u32::MAX);
        let z = COMPRESSOR.with(|c| c.borrow_mut().as_mut().map(|c| c.compress(&raw[1..])));
        if let Some(Ok(z)) = z {
            if z.len() + 5 < raw.len() {
                let mut out = Vec::with_capacity(z.len() + 5);
                out.push(1);
                out.extend_from_slice(&n.to_le_bytes());
                out.extend_from_slice(&z);
                return out;
            }
        }
    }
    raw
}

/// Splits a stored body into text and rest JSON; `None` when it is damaged.
pub(crate) fn decode_body(body: &[u8]) -> Option<(String, String)> {
    let (&tag, data) = body.split_first()?;
    let owned;
    let data: &[u8] = match tag {
        0 => data,
        1 => {
            let n = u32::from_le_bytes(data.get(..4)?.try_into().ok()?) as usize;
            owned = DECOMPRESSOR
                .with(|d| {
                    d.borrow_mut()
                        .as_mut()
                        .map(|d| d.decompress(data.get(4..).unwrap_or(&[]), n))
                })?
                .ok()?;
            &owned
        }
        _ => return None,
    };
    let len = usize::try_from(u32::from_le_bytes(data.get(..4)?.try_into().ok()?)).ok()?;
    let text = data.get(4..4 + len)?;
    let rest = data.get(4 + len..)?;
    Some((
        String::from_utf8(text.to_vec()).ok()?,
        String::from_utf8(rest.to_vec()).ok()?,
    ))
}

/// The text of a stored body (for scans); empty when damaged.
pub(crate) fn body_text(body: &[u8]) -> String {
    let Some((&tag, data)) = body.split_first() else {
        return String::new();
    };
    if tag == 0 {
        let text = data
            .get(..4)
            .and_then(|l| l.try_into().ok())
            .map(|l: [u8; 4]| u32::from_le_bytes(l) as usize)
            .and_then(|n| data.get(4..4 + n));
        return text
            .and_then(|t| std::str::from_utf8(t).ok())
            .unwrap_or("")
            .to_string();
    }
    decode_body(body).map(|(t, _)| t).unwrap_or_default()
}

/// Rebuilds an event from a stored body.
pub(crate) fn event_from_body(uri: &str, body: &[u8]) -> Result<Event> {
    let (text, rest) = decode_body(body).ok_or_else(|| StoreError::CorruptSession {
        uri: uri.to_string(),
        message: "event body does not decode".into(),
    })?;
    event_from(uri, text, &rest)
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
