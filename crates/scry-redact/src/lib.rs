//! Secret redaction for everything scry shows or exports (SPEC P7, S-R3).
//!
//! [`redact`] finds secrets in a text and replaces each with `[redacted:<kind>]`;
//! [`redact_json`] does the same for every string of a `serde_json::Value` (tool arguments),
//! and also redacts the whole value of a secret-named field (`"api_key": "…"`).
//! [`redact_json_with_ids`] is the rule for documents that carry identifiers beside session
//! text (scry's `--json` answers): every string at every depth is still scanned, and only the
//! high-entropy finding is waived for a value of identifier shape under an identifier key.
//!
//! Detectors (see [`Kind`]): provider key prefixes (OpenAI, DeepSeek, Anthropic, Google,
//! GitHub, GitLab, Slack, Stripe, AWS, npm, Hugging Face, PyPI, xAI, Groq, and more as
//! [`Kind::ApiKey`]), lower-case `sk-` keys, AWS secret keys by context, bearer
//! and basic authorization, JWTs, PEM/PGP private key blocks, passwords in URLs, secret query
//! parameters, `.env` / YAML / JSON assignments to secret-named variables, and high-entropy
//! strings. All patterns run on the `regex` crate (finite automata, no backtracking) and the
//! entropy test is one byte scan, so time is linear in the input; a 10 MB text is handled in
//! bounded time (see `tests/large.rs`).
//!
//! Overlapping findings are merged into one span named by the most specific detector, so
//! `OPENAI_API_KEY=sk-proj-…` becomes `OPENAI_API_KEY=[redacted:openai_key]`.

mod entropy;
mod ids;
mod kind;
mod rules;

use std::borrow::Cow;
use std::ops::Range;

use serde_json::Value;

pub use kind::Kind;

/// Keys whose string values are identifiers, paths, times or cursors in scry's JSON answers
/// (serve, MCP, export), the `id_keys` every front end passes to [`redact_json_with_ids`]. They
/// are scanned like every other string (a tool argument named `code`, `to` or `id` is session
/// text); only a value of identifier shape under one of them keeps the parts that merely look
/// random (a cursor or a path must not turn into `[redacted:high_entropy]`).
pub const ANSWER_ID_KEYS: &[&str] = &[
    "uri",
    "id",
    "ref",
    "locator",
    "call_id",
    "next_cursor",
    "cursor",
    "fingerprint",
    "sources",
    "source",
    "path",
    "file",
    "cwd",
    "parent",
    "candidates",
    "provider",
    "kind",
    "subtype",
    "field",
    "created",
    "updated",
    "time",
    "end_time",
    "model",
    "models",
    "root",
    "ancestors",
    "descendants",
    "unresolved_parent",
    "to",
    "from",
    "code",
    "index",
    "git_commit",
    "git_branch",
    "artifacts",
    "agent_version",
    "handle",
];
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
    redact_json_with_ids(value, &[])
}

/// [`redact_json`] for a document whose fields named in `id_keys` hold identifiers (uris,
/// ids, paths, cursors, times), at any depth; an array under such a key holds identifiers too.
///
/// Every string is scanned wherever it is — an identifier key is never a hiding place: a
/// provider key, bearer token, JWT, private key, password in a URL, … is redacted in it as in
/// any text. The one exception: a string under an identifier key that has an identifier
/// shape (hex / uuid, RFC 3339 time, scry cursor, rooted path) keeps the parts that only
/// *look* random (the high-entropy detector), so a cursor or a path stays usable. A tool
/// argument that happens to be named `id`, `to` or `path` but holds a random token is text.
pub fn redact_json_with_ids(value: &mut Value, id_keys: &[&str]) -> Vec<JsonFinding> {
    let mut out = Vec::new();
    let mut pointer = String::new();
    walk(value, &mut pointer, Field::Text, id_keys, &mut out);
    out
}

/// What the field holding a value is, by its key.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Field {
    /// Session text (or unknown): every finding counts.
    Text,
    /// A secret-named field (`api_key`): its value goes whole.
    Secret,
    /// An identifier field: high-entropy findings are waived for identifier shapes.
    Id,
}

fn walk(
    value: &mut Value,
    pointer: &mut String,
    field: Field,
    id_keys: &[&str],
    out: &mut Vec<JsonFinding>,
) {
    match value {
        Value::String(s) => {
            let mut findings = find(s);
            if field == Field::Id && ids::is_identifier(s) {
                findings.retain(|f| f.kind != Kind::HighEntropy);
            }
            let whole = field == Field::Secret && findings.is_empty() && field_value_is_secret(s);
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
            // The elements of an identifier list (`sources`, `models`) are identifiers; those
            // of a secret-named list (`"api_key": [...]`) are secrets.
            let inner = field;
            for (i, item) in items.iter_mut().enumerate() {
                let len = pointer.len();
                pointer.push('/');
                pointer.push_str(&i.to_string());
                walk(item, pointer, inner, id_keys, out);
                pointer.truncate(len);
            }
        }
        Value::Object(map) => {
            let rules = Rules::get();
            for (key, item) in map.iter_mut() {
                let field = if rules.is_secret_name(key) {
                    Field::Secret
                } else if id_keys.contains(&key.as_str()) {
                    Field::Id
                } else {
                    Field::Text
                };
                let len = pointer.len();
                pointer.push('/');
                pointer.push_str(&key.replace('~', "~0").replace('/', "~1"));
                walk(item, pointer, field, id_keys, out);
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
        let f = redact_json_with_ids(&mut v, &["uri", "id"]);
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
    fn identifier_keys_are_scanned_at_every_depth() {
        let cursor = format!(
            "c1{}",
            "x9Qm2ZtLw8Rv4KpN7sYb3H".repeat(3).get(..54).unwrap_or("")
        );
        let random = "x9Qm2ZtLw8Rv4KpN7sYb3HcJ6dFg1Ae5";
        let mut v = serde_json::json!({
            "next_cursor": cursor,
            "sources": ["/tmp/x9Qm2ZtLw8Rv4KpN7sYb3HcJ6dFg1Ae5/s.jsonl"],
            "args": {
                "code": "openai.api_key='sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z'",
                "to": "ghp_aB3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6",
                "path": "/tmp/AKIAIOSFODNN7EXAMPLE/creds",
                "id": random,
                "cwd": "/work/x9Qm2ZtLw8Rv4KpN7sYb3HcJ6dFg1Ae5",
            },
        });
        let keys = ["next_cursor", "sources", "code", "to", "path", "id", "cwd"];
        let f = redact_json_with_ids(&mut v, &keys);
        let pointers: Vec<&str> = f.iter().map(|f| f.pointer.as_str()).collect();
        assert_eq!(
            pointers,
            ["/args/code", "/args/id", "/args/path", "/args/to"],
            "{f:?}"
        );
        assert_eq!(v["next_cursor"], cursor);
        assert_eq!(
            v["sources"][0],
            "/tmp/x9Qm2ZtLw8Rv4KpN7sYb3HcJ6dFg1Ae5/s.jsonl"
        );
        assert_eq!(v["args"]["cwd"], "/work/x9Qm2ZtLw8Rv4KpN7sYb3HcJ6dFg1Ae5");
        assert_eq!(v["args"]["code"], "openai.api_key='[redacted:openai_key]'");
        assert_eq!(v["args"]["to"], "[redacted:github_token]");
        assert_eq!(v["args"]["path"], "/tmp/[redacted:aws_access_key_id]/creds");
        assert_eq!(v["args"]["id"], "[redacted:high_entropy]");
    }

    #[test]
    fn secret_named_lists() {
        let mut v =
            serde_json::json!({"api_key": ["abc123def456", "ghi789jkl012"], "n": ["abc123def456"]});
        let f = redact_json(&mut v);
        assert_eq!(f.len(), 2, "{f:?}");
        assert_eq!(v["api_key"][1], "[redacted:secret_assignment]");
        assert_eq!(v["n"][0], "abc123def456");
    }

    #[test]
    fn lower_case_keys() {
        assert_eq!(
            r("key sk-live-abc123def456ghi789jkl here"),
            "key [redacted:api_key] here"
        );
        assert_eq!(
            r("DEEPSEEK sk-0123456789abcdef0123456789abcdef."),
            "DEEPSEEK [redacted:deepseek_key]."
        );
        assert_eq!(
            r("pip install sk-learn-2024-release"),
            "pip install sk-learn-2024-release"
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
