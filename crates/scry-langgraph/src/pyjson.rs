//! Rendering a [`Value`] exactly like Python's `json.dumps(value, ensure_ascii=False)` (and
//! `repr` / `str` for the places the inspector stringifies values) —
//! one line with `", "` / `": "` separators, or pretty with `indent=2` — so that the inspector's
//! output (and its truncation of rendered tool arguments, measured in code points) matches
//! `inspect_sessions.py` byte for byte.

use crate::value::Value;

/// `json.dumps(value, ensure_ascii=False, default=str)` on one line.
pub fn dumps(value: &Value) -> String {
    let mut out = String::new();
    write_value(&mut out, value, None, 0);
    out
}

/// `json.dumps(value, indent=2, ensure_ascii=False, default=str)`.
pub fn dumps_pretty(value: &Value) -> String {
    let mut out = String::new();
    write_value(&mut out, value, Some(2), 0);
    out
}

/// Python's `repr(float)` as `json` prints it (`NaN`, `Infinity` for non-finite values).
pub fn float_repr(f: f64) -> String {
    if f.is_nan() {
        return "NaN".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "Infinity" } else { "-Infinity" }.into();
    }
    let abs = f.abs();
    if abs != 0.0 && !(1e-4..1e16).contains(&abs) {
        // Rust gives e.g. `1e20` / `1.5e-7`; Python gives `1e+20` / `1.5e-07`.
        let s = format!("{f:e}");
        let (mantissa, exp) = s.split_once('e').unwrap_or((&s, "0"));
        let (sign, digits) = match exp.strip_prefix('-') {
            Some(d) => ('-', d),
            None => ('+', exp),
        };
        return format!("{mantissa}e{sign}{digits:0>2}");
    }
    format!("{f:?}")
}

fn write_str(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{08}' => out.push_str("\\b"),
            '\u{0c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

fn newline(out: &mut String, indent: Option<usize>, level: usize) {
    if let Some(n) = indent {
        out.push('\n');
        out.extend(std::iter::repeat_n(' ', n * level));
    }
}

fn write_seq<'a>(
    out: &mut String,
    items: impl ExactSizeIterator<Item = (Option<&'a str>, &'a Value)>,
    open: char,
    close: char,
    indent: Option<usize>,
    level: usize,
) {
    if items.len() == 0 {
        out.push(open);
        out.push(close);
        return;
    }
    out.push(open);
    for (i, (key, value)) in items.enumerate() {
        if i > 0 {
            out.push(',');
            if indent.is_none() {
                out.push(' ');
            }
        }
        newline(out, indent, level + 1);
        if let Some(k) = key {
            write_str(out, k);
            out.push_str(": ");
        }
        write_value(out, value, indent, level + 1);
    }
    newline(out, indent, level);
    out.push(close);
}

fn write_value(out: &mut String, value: &Value, indent: Option<usize>, level: usize) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Int(i) => out.push_str(&i.to_string()),
        Value::UInt(u) => out.push_str(&u.to_string()),
        Value::Float(f) => out.push_str(&float_repr(*f)),
        Value::Str(s) => write_str(out, s),
        Value::Bytes(b) => write_str(out, &format!("b'{}'", String::from_utf8_lossy(b))),
        Value::Array(a) => write_seq(out, a.iter().map(|v| (None, v)), '[', ']', indent, level),
        Value::Map(m) => write_seq(
            out,
            m.iter().map(|(k, v)| (Some(k.as_str()), v)),
            '{',
            '}',
            indent,
            level,
        ),
        Value::DeltaSnapshot(v) => write_value(out, v, indent, level),
        Value::Object(o) => {
            // `default=str` would print the object's Python `str()`; the closest faithful
            // rendering without executing anything is its class and fields.
            let mut entries = vec![
                ("_module".to_string(), Value::Str(o.module.clone())),
                ("_class".to_string(), Value::Str(o.class.clone())),
            ];
            if !o.args.is_empty() {
                entries.push(("args".to_string(), Value::Array(o.args.clone())));
            }
            entries.extend(o.kwargs.iter().cloned());
            write_value(out, &Value::Map(entries), indent, level);
        }
        Value::Opaque { label, len } => write_str(out, &format!("<{label}: {len} bytes>")),
    }
}

/// Python's `repr(value)` for plain values (`None`, `True`, `'text'`, `[1, 'a']`,
/// `{'k': 1}`); objects and opaque values render as `<module.Class ...>` placeholders.
pub fn repr(value: &Value) -> String {
    let mut out = String::new();
    write_repr(&mut out, value);
    out
}

/// Python's `str(value)`: a string as is, anything else as [`repr`].
pub fn py_str(value: &Value) -> String {
    match value {
        Value::Str(s) => s.clone(),
        other => repr(other),
    }
}

fn repr_str(out: &mut String, s: &str) {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                out.push_str(&format!("\\x{:02x}", c as u32))
            }
            c => out.push(c),
        }
    }
    out.push(quote);
}

fn write_repr(out: &mut String, value: &Value) {
    match value {
        Value::Null => out.push_str("None"),
        Value::Bool(b) => out.push_str(if *b { "True" } else { "False" }),
        Value::Int(i) => out.push_str(&i.to_string()),
        Value::UInt(u) => out.push_str(&u.to_string()),
        Value::Float(f) if f.is_nan() => out.push_str("nan"),
        Value::Float(f) if f.is_infinite() => out.push_str(if *f > 0.0 { "inf" } else { "-inf" }),
        Value::Float(f) => out.push_str(&float_repr(*f)),
        Value::Str(s) => repr_str(out, s),
        Value::Bytes(b) => {
            out.push('b');
            repr_str(out, &String::from_utf8_lossy(b));
        }
        Value::Array(a) => {
            out.push('[');
            for (i, v) in a.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_repr(out, v);
            }
            out.push(']');
        }
        Value::Map(m) => {
            out.push('{');
            for (i, (k, v)) in m.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                repr_str(out, k);
                out.push_str(": ");
                write_repr(out, v);
            }
            out.push('}');
        }
        Value::DeltaSnapshot(v) => write_repr(out, v),
        Value::Object(o) => out.push_str(&format!("<{}.{} object>", o.module, o.class)),
        Value::Opaque { label, len } => out.push_str(&format!("<{label}: {len} bytes>")),
    }
}

/// Number of Unicode code points (Python's `len(str)`).
pub fn char_len(s: &str) -> usize {
    s.chars().count()
}

/// Python's `s[:n]` on code points.
pub fn char_prefix(s: &str, n: usize) -> &str {
    match s.char_indices().nth(n) {
        Some((i, _)) => &s[..i],
        None => s,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_like_python() {
        let v = Value::Map(vec![
            ("b".into(), Value::Str("x\n\"é\u{1}".into())),
            (
                "a".into(),
                Value::Array(vec![Value::Int(1), Value::Float(1.0), Value::Null]),
            ),
            ("e".into(), Value::Map(vec![])),
        ]);
        assert_eq!(
            dumps(&v),
            r#"{"b": "x\n\"é\u0001", "a": [1, 1.0, null], "e": {}}"#
        );
        assert_eq!(
            dumps_pretty(&v),
            "{\n  \"b\": \"x\\n\\\"é\\u0001\",\n  \"a\": [\n    1,\n    1.0,\n    null\n  ],\n  \"e\": {}\n}"
        );
        assert_eq!(float_repr(1e20), "1e+20");
        assert_eq!(float_repr(1.5e-7), "1.5e-07");
        assert_eq!(float_repr(0.25), "0.25");
        assert_eq!(char_prefix("héllo", 2), "hé");
        let r = Value::Array(vec![
            Value::Null,
            Value::Bool(true),
            Value::Str("it's".into()),
            Value::Map(vec![("k".into(), Value::Str("v\n".into()))]),
        ]);
        assert_eq!(repr(&r), r#"[None, True, "it's", {'k': 'v\n'}]"#);
    }
}
