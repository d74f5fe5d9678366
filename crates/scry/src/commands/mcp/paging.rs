//! Bounding an MCP answer: every tool result is the CLI's own `--json` value, redacted
//! (S-R3), then cut to a character budget. The main list of the result (sessions, turns, hits,
//! ledger rows, …) is paged by items with a continuation cursor; strings longer than what still
//! fits are cut with a visible marker. Nothing is dropped silently (P4): the `page` object says
//! what was shown, what was left, and how to continue.
//!
//! A generic cursor is `g.<offset>.<fingerprint>`: the fingerprint is a hash of the whole
//! (redacted) result, so a cursor is refused (`INVALID_CURSOR`) once the session changed.
//! A native cursor (`n.<cli cursor>`) carries the CLI's own cursor for `read`, whose pages the
//! CLI cuts itself.

use serde_json::{json, Map, Value};

/// The smallest budget a caller may ask for (the envelope alone needs a few hundred characters).
pub const MIN_BUDGET: usize = 2_000;
/// The largest budget a caller may ask for.
pub const MAX_BUDGET: usize = 200_000;

/// A decoded continuation cursor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cursor {
    /// Item offset into the main list of a result with this fingerprint.
    Generic {
        /// First item of the page.
        offset: usize,
        /// Hash of the whole result the offset refers to.
        fingerprint: u64,
    },
    /// The CLI's own cursor (for `read`).
    Native(String),
}

impl Cursor {
    /// Parses a cursor string; `None` when it is not one of ours.
    pub fn parse(s: &str) -> Option<Cursor> {
        if let Some(rest) = s.strip_prefix("n.") {
            return (!rest.is_empty()).then(|| Cursor::Native(rest.to_string()));
        }
        let rest = s.strip_prefix("g.")?;
        let (offset, fp) = rest.split_once('.')?;
        Some(Cursor::Generic {
            offset: offset.parse().ok()?,
            fingerprint: u64::from_str_radix(fp, 16).ok()?,
        })
    }

    /// The string form handed to the caller.
    pub fn encode(&self) -> String {
        match self {
            Cursor::Generic {
                offset,
                fingerprint,
            } => format!("g.{offset}.{fingerprint:016x}"),
            Cursor::Native(c) => format!("n.{c}"),
        }
    }
}

/// Hash of a value's compact serialization.
pub fn fingerprint(v: &Value) -> u64 {
    xxhash_rust::xxh3::xxh3_64(v.to_string().as_bytes())
}

/// Characters of `v` serialized compactly (what the caller receives as text).
pub fn chars(v: &Value) -> usize {
    v.to_string().chars().count()
}

/// The key of the result's main list: the top-level array with the most items (ties: the
/// first in key order); `warnings` only when nothing else is a list.
pub fn main_list(v: &Value) -> Option<String> {
    let map = v.as_object()?;
    let mut best: Option<(&String, usize)> = None;
    for (k, item) in map {
        let Some(a) = item.as_array() else { continue };
        if k == "warnings" {
            continue;
        }
        if best.is_none_or(|(_, n)| a.len() > n) {
            best = Some((k, a.len()));
        }
    }
    best.map(|(k, _)| k.clone())
}

/// What the pager decided.
#[derive(Debug)]
pub struct Paged {
    /// The bounded result.
    pub value: Value,
    /// The `page` object: list key, range, total, truncation and the next cursor.
    pub page: Value,
}

/// Cuts `full` to `budget` characters, starting the main list at `offset`. `overhead` is what
/// the envelope around the result will add.
pub fn page(full: &Value, offset: usize, budget: usize, overhead: usize) -> Paged {
    let fp = fingerprint(full);
    let room = budget.saturating_sub(overhead);
    let Some(key) = main_list(full) else {
        let (value, cut) = fit_strings(full.clone(), room);
        let page = json!({ "truncated": cut, "strings_cut": cut, "next_cursor": Value::Null });
        return Paged { value, page };
    };
    // The list is read in place and the rest copied without it: the result is not held twice.
    let items: &[Value] = full
        .get(&key)
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice);
    let total = items.len();
    let from = offset.min(total);
    let mut base = match full {
        Value::Object(m) => Value::Object(
            m.iter()
                .map(|(k, v)| {
                    let v = if *k == key {
                        Value::Array(Vec::new())
                    } else {
                        v.clone()
                    };
                    (k.clone(), v)
                })
                .collect(),
        ),
        other => other.clone(),
    };
    // Room for the page object itself.
    let page_room = 200 + key.len();
    let mut base_len = chars(&base) + page_room;
    let mut strings_cut = false;
    if base_len > room / 2 {
        // Keep the list's room: the session header shrinks to what identifies it.
        compact_session(&mut base);
        base_len = chars(&base) + page_room;
    }
    if base_len > room {
        // The part around the list is too big by itself: cut its long strings first.
        let (b, cut) = fit_strings(base, room.saturating_sub(room / 3).max(200));
        base = b;
        strings_cut |= cut;
        base_len = chars(&base) + page_room;
    }
    let mut shown: Vec<Value> = Vec::new();
    let mut used = base_len;
    for item in items.iter().skip(from) {
        let n = chars(item) + 1;
        if used + n > room {
            break;
        }
        used += n;
        shown.push(item.clone());
    }
    if shown.is_empty() && from < total {
        // One item larger than the page: show it with its long strings cut.
        let (one, _) = fit_strings(items[from].clone(), room.saturating_sub(base_len).max(100));
        shown.push(one);
        strings_cut = true;
    }
    let to = from + shown.len();
    let next = (to < total).then(|| {
        Cursor::Generic {
            offset: to,
            fingerprint: fp,
        }
        .encode()
    });
    if let Some(m) = base.as_object_mut() {
        m.insert(key.clone(), Value::Array(shown));
    }
    let page = json!({
        "list": key,
        "from": from,
        "to": to,
        "total": total,
        "truncated": next.is_some() || strings_cut,
        "strings_cut": strings_cut,
        "next_cursor": next,
    });
    Paged { value: base, page }
}

/// Replaces a result's `session` header by the fields that identify and cite it (uri, id,
/// provider, title, cwd, kind, updated), marked `"compacted": true`.
pub fn compact_session(v: &mut Value) {
    let Some(Value::Object(h)) = v.get_mut("session") else {
        return;
    };
    let mut keep = Map::new();
    for k in ["uri", "id", "provider", "title", "cwd", "kind", "updated"] {
        if let Some(x) = h.get(k) {
            keep.insert(k.to_string(), x.clone());
        }
    }
    keep.insert("compacted".into(), json!(true));
    *h = keep;
}

/// Cuts the longest strings of `v` until its serialization fits `room` characters; returns
/// whether anything was cut. Each cut string ends with `…[cut: N more characters]`.
pub fn fit_strings(mut v: Value, room: usize) -> (Value, bool) {
    if chars(&v) <= room {
        return (v, false);
    }
    let mut limit = 4_000usize;
    loop {
        cut_strings(&mut v, limit);
        if chars(&v) <= room || limit <= 40 {
            break;
        }
        limit /= 2;
    }
    if chars(&v) > room {
        // Still too big (very many small values): drop trailing array items, saying so.
        drop_tail(&mut v, room);
    }
    (v, true)
}

fn cut_strings(v: &mut Value, limit: usize) {
    match v {
        Value::String(s) => {
            let n = s.chars().count();
            if n > limit + 40 {
                let kept: String = s.chars().take(limit).collect();
                *s = format!("{kept}…[cut: {} more characters]", n - limit);
            }
        }
        Value::Array(a) => a.iter_mut().for_each(|x| cut_strings(x, limit)),
        Value::Object(m) => m.values_mut().for_each(|x| cut_strings(x, limit)),
        _ => {}
    }
}

fn drop_tail(v: &mut Value, room: usize) {
    let Some(m) = v.as_object_mut() else {
        *v = json!({ "cut": "result too large for the budget; ask for a larger max_chars" });
        return;
    };
    let keys: Vec<String> = m.keys().cloned().collect();
    for k in keys {
        let dropped = match m.get_mut(&k).and_then(Value::as_array_mut) {
            Some(a) if a.len() > 1 => {
                let n = a.len() - 1;
                a.truncate(1);
                n
            }
            _ => continue,
        };
        m.insert(
            format!("{k}_cut"),
            json!(format!("{dropped} more items left out for the budget")),
        );
        if chars(&Value::Object(m.clone())) <= room {
            return;
        }
    }
    if chars(&Value::Object(m.clone())) > room {
        let mut keep = Map::new();
        for k in ["session", "error"] {
            if let Some(x) = m.get(k) {
                keep.insert(k.to_string(), x.clone());
            }
        }
        keep.insert(
            "cut".into(),
            json!("result too large for the budget; ask for a larger max_chars"),
        );
        *m = keep;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursor_round_trip() {
        let c = Cursor::Generic {
            offset: 12,
            fingerprint: 0xabc,
        };
        assert_eq!(Cursor::parse(&c.encode()), Some(c));
        let n = Cursor::Native("abc.def".into());
        assert_eq!(Cursor::parse(&n.encode()), Some(n));
        assert_eq!(Cursor::parse("x.1.2"), None);
        assert_eq!(Cursor::parse("g.one.2"), None);
    }

    #[test]
    fn pages_the_longest_list_within_budget() {
        let rows: Vec<Value> = (0..100)
            .map(|i| json!({"n": i, "text": "x".repeat(50)}))
            .collect();
        let full = json!({"session": {"uri": "claude:abc"}, "rows": rows, "warnings": []});
        let p = page(&full, 0, 2_000, 100);
        assert!(chars(&p.value) + chars(&p.page) + 100 <= 2_000);
        let to = p.page["to"].as_u64().unwrap_or(0);
        assert!(to > 5 && to < 100);
        let next = p.page["next_cursor"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        let Some(Cursor::Generic { offset, .. }) = Cursor::parse(&next) else {
            panic!("no cursor")
        };
        let p2 = page(&full, offset, 2_000, 100);
        assert_eq!(p2.page["from"].as_u64(), Some(to));
        assert_eq!(p2.value["rows"][0]["n"].as_u64(), Some(to));
    }

    #[test]
    fn one_huge_item_is_cut_visibly() {
        let full = json!({"rows": [{"text": "y".repeat(10_000)}]});
        let p = page(&full, 0, 1_500, 100);
        assert!(chars(&p.value) <= 1_500);
        assert_eq!(p.page["strings_cut"], json!(true));
        assert!(p.value.to_string().contains("[cut: "));
    }
}
