//! The inspector's message records and turn splitting (`_message_record`, `_turns` of
//! `inspect_sessions.py`, deepagents-code 0.1.57): role normalization, content flattening,
//! truncation in code points with a trailing `…`, rendered tool-call arguments, and the
//! `[SYSTEM]` preamble rule.

use crate::message::{content_text, Message};
use crate::pyjson::{char_len, char_prefix, dumps, py_str};
use crate::value::Value;

fn s(v: &str) -> Value {
    Value::Str(v.to_string())
}

fn opt(v: Option<&str>) -> Value {
    v.map_or(Value::Null, s)
}

/// `human` → `user`, `ai` → `assistant`; other types unchanged.
pub fn role(m: &Message) -> String {
    match m.kind() {
        "human" => "user".into(),
        "ai" => "assistant".into(),
        other => other.into(),
    }
}

/// Python's `text[:limit] + "…"` when longer than `limit` code points.
pub fn truncate(text: &str, limit: usize) -> (String, bool) {
    if char_len(text) <= limit {
        (text.to_string(), false)
    } else {
        (format!("{}…", char_prefix(text, limit)), true)
    }
}

fn bounded(value: &Value, limit: usize) -> (Value, bool) {
    let rendered = dumps(value);
    if char_len(&rendered) <= limit {
        (value.clone(), false)
    } else {
        (
            Value::Str(format!("{}…", char_prefix(&rendered, limit))),
            true,
        )
    }
}

/// One message record. Pushes a warning for non-list `tool_calls`.
pub fn record(index: usize, m: &Message, max_content: usize, warnings: &mut Vec<String>) -> Value {
    let text = content_text(m.content());
    let (bounded_text, truncated) = truncate(&text, max_content);
    let mut rec = vec![
        ("index".to_string(), Value::Int(index as i64)),
        ("role".to_string(), s(&role(m))),
        (
            "name".to_string(),
            m.field("name").cloned().unwrap_or(Value::Null),
        ),
        (
            "id".to_string(),
            m.field("id").cloned().unwrap_or(Value::Null),
        ),
        ("content".to_string(), Value::Str(bounded_text)),
        (
            "content_chars".to_string(),
            Value::Int(char_len(&text) as i64),
        ),
        ("content_truncated".to_string(), Value::Bool(truncated)),
    ];
    match m.tool_calls() {
        Some(Value::Array(calls)) if !calls.is_empty() => {
            let rendered = calls
                .iter()
                .map(|call| match call {
                    Value::Map(_) => {
                        let (args, args_truncated) =
                            bounded(call.get("args").unwrap_or(&Value::Null), max_content);
                        Value::Map(vec![
                            (
                                "name".into(),
                                call.get("name").cloned().unwrap_or(Value::Null),
                            ),
                            ("id".into(), call.get("id").cloned().unwrap_or(Value::Null)),
                            ("args".into(), args),
                            ("args_truncated".into(), Value::Bool(args_truncated)),
                        ])
                    }
                    other => Value::Map(vec![("value".into(), Value::Str(py_str(other)))]),
                })
                .collect();
            rec.push(("tool_calls".into(), Value::Array(rendered)));
        }
        Some(Value::Array(_)) | None => {}
        Some(other) if other.truthy() => {
            rec.push(("tool_calls_malformed".into(), Value::Str(py_str(other))));
            warnings.push(format!(
                "Message {index} had non-list tool_calls; preserved as raw text."
            ));
        }
        Some(_) => {}
    }
    if let Some(id) = m.field("tool_call_id").filter(|v| v.truthy()) {
        rec.push(("tool_call_id".into(), id.clone()));
    }
    if let Some(status) = m.field("status").filter(|v| v.truthy()) {
        rec.push(("status".into(), status.clone()));
    }
    Value::Map(rec)
}

/// True for a message that starts a turn: a human message whose text does not start with
/// `[SYSTEM]`.
pub fn is_turn_start(m: &Message) -> bool {
    matches!(role(m).as_str(), "user" | "human") && !m.text().starts_with("[SYSTEM]")
}

/// Splits into `(turns, preamble)`. With no turn start, everything is preamble.
pub fn turns(
    messages: &[Message],
    max_content: usize,
    warnings: &mut Vec<String>,
) -> (Vec<Value>, Vec<Value>) {
    let starts: Vec<usize> = messages
        .iter()
        .enumerate()
        .filter(|(_, m)| is_turn_start(m))
        .map(|(i, _)| i)
        .collect();
    let first = starts.first().copied().unwrap_or(messages.len());
    let preamble = messages[..first]
        .iter()
        .enumerate()
        .map(|(i, m)| record(i, m, max_content, warnings))
        .collect();
    let mut out = Vec::new();
    for (n, &start) in starts.iter().enumerate() {
        let end = starts.get(n + 1).copied().unwrap_or(messages.len());
        let records = (start..end)
            .filter_map(|i| messages.get(i).map(|m| record(i, m, max_content, warnings)))
            .collect();
        out.push(Value::Map(vec![
            ("number".into(), Value::Int(n as i64 + 1)),
            ("start_message_index".into(), Value::Int(start as i64)),
            ("end_message_index".into(), Value::Int(end as i64 - 1)),
            ("messages".into(), Value::Array(records)),
        ]));
    }
    (out, preamble)
}

/// A field of a metadata map, or `null`.
pub fn meta_field(meta: &Value, key: &str) -> Value {
    meta.get(key).cloned().unwrap_or(Value::Null)
}

/// `Some(str)` as a string value, `None` as null.
pub fn opt_str(v: Option<&str>) -> Value {
    opt(v)
}
