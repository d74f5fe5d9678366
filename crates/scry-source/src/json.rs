//! Small accessors over `serde_json::Value` that providers use constantly.

use serde_json::Value;

/// `v[key]` as a string slice.
pub fn str_of<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

/// Walks a path of object keys: `path(v, &["payload", "info", "total"])`.
pub fn path<'a>(v: &'a Value, keys: &[&str]) -> Option<&'a Value> {
    let mut cur = v;
    for k in keys {
        cur = cur.get(*k)?;
    }
    Some(cur)
}

/// A non-negative integer field, accepting integers, floats and numeric strings.
pub fn u64_of(v: &Value, key: &str) -> Option<u64> {
    as_u64(v.get(key)?)
}

/// A value as a non-negative integer (integers, whole floats, numeric strings).
pub fn as_u64(v: &Value) -> Option<u64> {
    match v {
        Value::Number(n) => n
            .as_u64()
            .or_else(|| n.as_f64().filter(|f| *f >= 0.0).map(|f| f as u64)),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// A signed integer field.
pub fn i64_of(v: &Value, key: &str) -> Option<i64> {
    match v.get(key)? {
        Value::Number(n) => n.as_i64().or_else(|| n.as_f64().map(|f| f as i64)),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// If `v` is a string holding JSON, the decoded value; otherwise a clone of `v`.
pub fn decode_json_string(v: &Value) -> Value {
    if let Value::String(s) = v {
        let t = s.trim_start();
        if t.starts_with('{') || t.starts_with('[') {
            if let Ok(parsed) = serde_json::from_str::<Value>(s) {
                return parsed;
            }
        }
    }
    v.clone()
}

/// Concatenated text of a content value: a string, or an array of blocks whose `text` (or
/// `content` string) fields are joined with newlines.
pub fn text_of(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Array(items) => {
            let mut parts: Vec<String> = Vec::new();
            for item in items {
                match item {
                    Value::String(s) => parts.push(s.clone()),
                    Value::Object(_) => {
                        if let Some(t) = str_of(item, "text") {
                            parts.push(t.to_string());
                        } else if let Some(c) = item.get("content") {
                            let t = text_of(c);
                            if !t.is_empty() {
                                parts.push(t);
                            }
                        }
                    }
                    _ => {}
                }
            }
            parts.join("\n")
        }
        Value::Null => String::new(),
        other => other.to_string(),
    }
}
