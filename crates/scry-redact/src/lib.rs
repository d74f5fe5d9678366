//! Secret redaction for everything scry shows or exports (SPEC P7, S-R3).
//!
//! [`redact`] finds secrets in a text and replaces each with `[redacted:<kind>]`;
//! [`redact_json`] does the same for every string of a `serde_json::Value` (tool arguments),
//! and also redacts the whole value of a secret-named field (`"api_key": "…"`).
//!
//! Detectors (see [`Kind`]): provider key prefixes (OpenAI, Anthropic, Google, GitHub, GitLab,
//! Slack, Stripe, AWS, npm, Hugging Face, PyPI, xAI, Groq), AWS secret keys by context, bearer
//! and basic authorization, JWTs, PEM/PGP private key blocks, passwords in URLs, secret query
//! parameters, `.env` / YAML / JSON assignments to secret-named variables, and high-entropy
//! strings. All patterns run on the `regex` crate (finite automata, no backtracking) and the
//! entropy test is one byte scan, so time is linear in the input; a 10 MB text is handled in
//! bounded time (see `tests/large.rs`).
//!
//! Overlapping findings are merged into one span named by the most specific detector, so
//! `OPENAI_API_KEY=sk-proj-…` becomes `OPENAI_API_KEY=[redacted:openai_key]`.

mod entropy;
mod kind;
mod rules;

use std::borrow::Cow;
use std::ops::Range;

use serde_json::Value;

pub use kind::Kind;
use rules::{Hit, Rules};

/// One redacted span of a text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// What the span was recognized as.
    pub kind: Kind,
    /// Byte range in the input text (always on `char` boundaries).
    pub range: Range<usize>,
}

/// One redacted span inside a JSON value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsonFinding {
    /// JSON pointer (RFC 6901) of the string that held it.
    pub pointer: String,
    /// The span, as a byte range of the original string.
    pub finding: Finding,
}

/// The marker that replaces a secret of `kind`.
pub fn marker(kind: Kind) -> String {
    format!("[redacted:{}]", kind.as_str())
}

/// Finds the secrets in `text`: sorted, non-overlapping spans.
pub fn find(text: &str) -> Vec<Finding> {
    let mut hits = Vec::new();
    Rules::get().scan(text, &mut hits);
    let mut ranges = Vec::new();
    entropy::scan(text, &mut ranges);
    hits.extend(ranges.into_iter().map(|range| Hit {
        kind: Kind::HighEntropy,
        range,
    }));
    merge(hits)
}

/// Replaces every secret in `text` with `[redacted:<kind>]`. Borrows when nothing was found.
pub fn redact(text: &str) -> (Cow<'_, str>, Vec<Finding>) {
    let findings = find(text);
    if findings.is_empty() {
        return (Cow::Borrowed(text), findings);
    }
    (Cow::Owned(apply(text, &findings)), findings)
}

/// `text` with `findings` (sorted, non-overlapping, on char boundaries) replaced by markers.
fn apply(text: &str, findings: &[Finding]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for f in findings {
        if let Some(keep) = text.get(at..f.range.start) {
            out.push_str(keep);
        }
        out.push_str(&marker(f.kind));
        at = f.range.end;
    }
    if let Some(rest) = text.get(at..) {
        out.push_str(rest);
    }
    out
}

/// Sorts hits and merges overlapping ones; the merged span takes the kind of highest
/// precedence (see [`Kind`]).
fn merge(mut hits: Vec<Hit>) -> Vec<Finding> {
    hits.sort_by(|a, b| {
        a.range
            .start
            .cmp(&b.range.start)
            .then(b.range.end.cmp(&a.range.end))
    });
    let mut out: Vec<Finding> = Vec::with_capacity(hits.len());
    for hit in hits {
        match out.last_mut() {
            Some(last) if hit.range.start < last.range.end => {
                last.range.end = last.range.end.max(hit.range.end);
                if hit.kind.precedence() > last.kind.precedence() {
                    last.kind = hit.kind;
                }
            }
            _ => out.push(Finding {
                kind: hit.kind,
                range: hit.range,
            }),
        }
    }
    out
}

/// Redacts every string in `value` in place (object keys are kept), and replaces the whole
/// string value of a secret-named field (`"api_key"`, `"OPENAI_API_KEY"`, `"password"`, …)
/// unless it is empty or a placeholder. Returns what was redacted, by JSON pointer. Recursion
/// depth follows the value's depth, which `serde_json` caps at 128 when parsing.
pub fn redact_json(value: &mut Value) -> Vec<JsonFinding> {
    redact_json_except(value, &[])
}

/// [`redact_json`], leaving alone the values of object fields named in `keep` (at any depth):
/// identifiers, paths, times and cursors that must stay as they are (a uuid must not become
/// `[redacted:high_entropy]`). Secret-named fields are still redacted whole everywhere else.
pub fn redact_json_except(value: &mut Value, keep: &[&str]) -> Vec<JsonFinding> {
    let mut out = Vec::new();
    let mut pointer = String::new();
    walk(value, &mut pointer, false, keep, &mut out);
    out
}

fn walk(
    value: &mut Value,
    pointer: &mut String,
    secret_field: bool,
    keep: &[&str],
    out: &mut Vec<JsonFinding>,
) {
    match value {
        Value::String(s) => {
            let findings = find(s);
            let whole = secret_field && findings.is_empty() && field_value_is_secret(s);
            if whole {
                out.push(JsonFinding {
                    pointer: pointer.clone(),
                    finding: Finding {
                        kind: Kind::SecretAssignment,
                        range: 0..s.len(),
                    },
                });
                *s = marker(Kind::SecretAssignment);
            } else if !findings.is_empty() {
                let redacted = apply(s, &findings);
                out.extend(findings.into_iter().map(|finding| JsonFinding {
                    pointer: pointer.clone(),
                    finding,
                }));
                *s = redacted;
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter_mut().enumerate() {
                let len = pointer.len();
                pointer.push('/');
                pointer.push_str(&i.to_string());
                walk(item, pointer, false, keep, out);
                pointer.truncate(len);
            }
        }
        Value::Object(map) => {
            let rules = Rules::get();
            for (key, item) in map.iter_mut() {
                if keep.contains(&key.as_str()) {
                    continue;
                }
                let len = pointer.len();
                pointer.push('/');
                pointer.push_str(&key.replace('~', "~0").replace('/', "~1"));
                walk(item, pointer, rules.is_secret_name(key), keep, out);
                pointer.truncate(len);
            }
        }
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}

/// Whether the string value of a secret-named field is worth redacting whole.
fn field_value_is_secret(s: &str) -> bool {
    let t = s.trim();
    t.len() >= 6 && !t.contains(char::is_whitespace) && !rules_placeholder(t)
}

fn rules_placeholder(t: &str) -> bool {
    // Same judgement as for `NAME="value"` in text: run the assignment rule on a synthetic
    // quoted assignment and see whether it keeps the value.
    let probe = format!("SECRET_KEY=\"{t}\"");
    let mut hits = Vec::new();
    Rules::get().scan(&probe, &mut hits);
    !hits.iter().any(|h| h.kind == Kind::SecretAssignment)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(s: &str) -> String {
        redact(s).0.into_owned()
    }

    #[test]
    fn nothing_found_borrows() {
        let (out, f) = redact("plain text");
        assert!(matches!(out, Cow::Borrowed(_)));
        assert!(f.is_empty());
    }

    #[test]
    fn assignment_keeps_the_name() {
        assert_eq!(
            r("export OPENAI_API_KEY=sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z"),
            "export OPENAI_API_KEY=[redacted:openai_key]"
        );
        assert_eq!(
            r("DB_PASSWORD=hunter22"),
            "DB_PASSWORD=[redacted:secret_assignment]"
        );
    }

    #[test]
    fn json_keeps_named_fields_and_still_redacts_secret_fields() {
        let uuid = "4f1c2a9e-7b3d-4c8e-9a21-5d6e7f809a1b";
        let mut v = serde_json::json!({
            "uri": format!("claude:{uuid}"),
            "events": [{"id": uuid, "args": {"api_key": "abc123def456", "cmd": "ls"}}],
        });
        let f = redact_json_except(&mut v, &["uri", "id"]);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].pointer, "/events/0/args/api_key");
        assert_eq!(v["uri"], format!("claude:{uuid}"));
        assert_eq!(v["events"][0]["id"], uuid);
        assert_eq!(v["events"][0]["args"]["cmd"], "ls");
        assert_eq!(
            v["events"][0]["args"]["api_key"],
            "[redacted:secret_assignment]"
        );
    }

    #[test]
    fn json_field() {
        let mut v = serde_json::json!({"headers": {"x-api-key": "abc123def456"}, "n": 3});
        let f = redact_json(&mut v);
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].pointer, "/headers/x-api-key");
        assert_eq!(v["headers"]["x-api-key"], "[redacted:secret_assignment]");
    }
}
