//! Plain-text helpers shared by every front end: UTC times, durations, truncation to a width,
//! thousands separators, the JSON form of a session header, and warnings. No terminal styling:
//! colour is the CLI's (`crates/scry`'s `render::Style`).

use std::collections::BTreeMap;

use scry_model::{Header, Timestamp, Warning};
use serde_json::{json, Value};

/// The width text output is laid out for.
pub const WIDTH: usize = 100;

/// `2026-11-30 14:52` (UTC), or `-` when unknown.
pub fn time(t: Option<Timestamp>) -> String {
    match t {
        Some(t) => t.strftime("%Y-%m-%d %H:%M").to_string(),
        None => "-".to_string(),
    }
}

/// A compact duration: `850ms`, `42s`, `3m12s`, `2h05m`, `3d04h`.
pub fn duration_ms(ms: u64) -> String {
    let s = ms / 1000;
    if ms < 1000 {
        format!("{ms}ms")
    } else if s < 60 {
        format!("{s}s")
    } else if s < 3600 {
        format!("{}m{:02}s", s / 60, s % 60)
    } else if s < 86_400 {
        format!("{}h{:02}m", s / 3600, (s % 3600) / 60)
    } else {
        format!("{}d{:02}h", s / 86_400, (s % 86_400) / 3600)
    }
}

/// Milliseconds between two times (0 when reversed).
pub fn span_ms(a: Option<Timestamp>, b: Option<Timestamp>) -> Option<u64> {
    let (a, b) = (a?, b?);
    let d = b.duration_since(a).as_millis();
    Some(u64::try_from(d).unwrap_or(0))
}

/// `1 call`, `3 calls`.
pub fn count(n: u64, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// `12,345`.
pub fn thousands(n: u64) -> String {
    let digits: Vec<char> = n.to_string().chars().collect();
    let mut out = String::new();
    for (i, chunk) in digits.rchunks(3).rev().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.extend(chunk);
    }
    out
}

/// One line (control characters and newlines flattened), cut to `max` characters with `…`.
pub fn clip(s: &str, max: usize) -> String {
    let flat: String = s
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let flat = flat.trim();
    if flat.chars().count() <= max {
        return flat.to_string();
    }
    let mut out: String = flat.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// Text for a terminal: line breaks and tabs kept, every other control character (ANSI
/// escapes included, which session text must never inject) shown as `\u{…}`.
pub fn safe_text(s: &str) -> String {
    let s = s.replace("\r\n", "\n");
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if c.is_control() && c != '\n' && c != '\t' {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}

/// Like [`clip`] but keeps the end (for paths): `…/src/app`.
pub fn clip_left(s: &str, max: usize) -> String {
    let s: String = s
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let n = s.chars().count();
    if n <= max {
        return s;
    }
    let tail: String = s.chars().skip(n - max.saturating_sub(1)).collect();
    format!("…{tail}")
}

/// Pads or clips to exactly `width` characters.
pub fn cell(s: &str, width: usize) -> String {
    let c = clip(s, width);
    let pad = width.saturating_sub(c.chars().count());
    format!("{c}{}", " ".repeat(pad))
}

/// The first `n` non-empty lines of `text`, each clipped to the layout width.
pub fn first_lines(text: &str, n: usize, width: usize) -> Vec<String> {
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let mut out: Vec<String> = lines.iter().take(n).map(|l| clip(l, width)).collect();
    if lines.len() > n {
        out.push(format!("… ({} more lines)", lines.len() - n));
    }
    out
}

/// The JSON form of a header: every field of [`Header`], with the contract fields always present
/// (`null` when unknown).
pub fn header_json(h: &Header) -> Value {
    let mut v = serde_json::to_value(h).unwrap_or_else(|_| json!({}));
    if let Value::Object(map) = &mut v {
        for key in ["cwd", "title", "created", "updated", "parent"] {
            map.entry(key).or_insert(Value::Null);
        }
    }
    v
}

/// Warnings as JSON values.
pub fn warnings_json(ws: &[Warning]) -> Value {
    Value::Array(
        ws.iter()
            .map(|w| serde_json::to_value(w).unwrap_or(Value::Null))
            .collect(),
    )
}

/// Warnings for people: grouped by kind with a count, then the first few located lines.
pub fn warnings_text(ws: &[Warning], shown: usize) -> Vec<String> {
    if ws.is_empty() {
        return Vec::new();
    }
    let mut by_kind: BTreeMap<&str, usize> = BTreeMap::new();
    for w in ws {
        *by_kind.entry(w.kind.as_str()).or_default() += 1;
    }
    let summary: Vec<String> = by_kind.iter().map(|(k, n)| format!("{k} {n}")).collect();
    let mut out = vec![format!(
        "{} warning{}: {}",
        ws.len(),
        if ws.len() == 1 { "" } else { "s" },
        summary.join(", ")
    )];
    for w in ws.iter().take(shown) {
        out.push(format!("  {}", clip(&w.to_string(), WIDTH - 2)));
    }
    if ws.len() > shown {
        out.push(format!("  … {} more (see --json)", ws.len() - shown));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats() {
        assert_eq!(thousands(1234567), "1,234,567");
        assert_eq!(thousands(12), "12");
        assert_eq!(duration_ms(192_000), "3m12s");
        assert_eq!(clip("abcdef", 4), "abc…");
        assert_eq!(clip_left("/a/b/c/d", 5), "…/c/d");
        assert_eq!(safe_text("a\x1b[31mb\r\nc\td"), "a\\u{1b}[31mb\nc\td");
        let t: Timestamp = "2026-11-30T14:52:34Z".parse().unwrap();
        assert_eq!(time(Some(t)), "2026-11-30 14:52");
    }
}
