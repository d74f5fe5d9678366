//! Codex quirks that need text inspection: which `user` messages are injected context rather
//! than human prompts, and what a tool output says about its exit code and duration.
//!
//! Checked against codex 0.1.2505291658 (TypeScript), 0.23.0 (bare era), 0.77 / 0.106 / 0.146
//! fixtures and 0.171.0 (real 2026 files).

use scry_source::json::{as_u64, i64_of, str_of, text_of};
use serde_json::Value;

/// The marker line after which 2025 builds put the human text inside a wrapped user message.
pub(crate) const MY_REQUEST_MARKER: &str = "## My request for Codex:";

/// Fixed prefixes of injected context, with the subtype they map to.
const INJECTED_PREFIXES: &[(&str, &str)] = &[
    ("<environment_context>", "environment_context"),
    ("<user_instructions>", "user_instructions"),
    ("# AGENTS.md instructions for", "agents_md"),
    ("<INSTRUCTIONS>", "agents_md"),
    ("<permissions instructions>", "permissions_instructions"),
    ("<collaboration_mode>", "collaboration_mode"),
    ("<multi_agent_mode>", "multi_agent_mode"),
    ("<apps_instructions>", "apps_instructions"),
    ("<skills_instructions>", "skills_instructions"),
    ("<turn_aborted>", "turn_aborted"),
    ("<user_shell_command>", "user_shell_command"),
    ("You are `/root`", "agent_instructions"),
    ("You are an agent in a team of agents", "agent_instructions"),
];

/// What a `user`-role message is.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum UserText {
    /// A human prompt.
    Prompt(String),
    /// Injected context, with its subtype.
    Injected(&'static str),
    /// 2025 shape: injected context, then the marker line, then the human request.
    Wrapped {
        /// The context before the marker.
        context: String,
        /// The human text after the marker.
        request: String,
    },
}

/// Classifies the text of a `user`-role message.
pub(crate) fn classify_user(text: &str) -> UserText {
    let t = text.trim_start();
    for (prefix, subtype) in INJECTED_PREFIXES {
        if t.starts_with(prefix) {
            return UserText::Injected(subtype);
        }
    }
    if let Some(pos) = text.find(MY_REQUEST_MARKER) {
        let request = text[pos + MY_REQUEST_MARKER.len()..].trim().to_string();
        let context = text[..pos].trim_end().to_string();
        return UserText::Wrapped { context, request };
    }
    if let Some(tag) = enclosing_tag(t) {
        return UserText::Injected(tag);
    }
    UserText::Prompt(text.to_string())
}

/// `<snake_case_tag>…</snake_case_tag>` around the whole text: the shape of every injected
/// block Codex writes. Only tags with an underscore count, so a prompt that is a bit of HTML
/// (`<div>…</div>`) stays a prompt.
fn enclosing_tag(t: &str) -> Option<&'static str> {
    let rest = t.strip_prefix('<')?;
    let end = rest.find('>')?;
    let tag = &rest[..end];
    let ok = tag.contains('_')
        && tag
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b == b'_' || b.is_ascii_digit());
    if ok && t.trim_end().ends_with(&format!("</{tag}>")) {
        Some("injected_context")
    } else {
        None
    }
}

/// The visible text of a message's `content` array: `input_text` / `output_text` / `text`
/// items joined with newlines. Encrypted items are skipped, never decoded.
pub(crate) fn content_text(content: Option<&Value>) -> String {
    let Some(Value::Array(items)) = content else {
        return content.map(text_of).unwrap_or_default();
    };
    let mut parts: Vec<&str> = Vec::new();
    for item in items {
        match item {
            Value::String(s) => parts.push(s),
            Value::Object(_) => {
                let kind = str_of(item, "type").unwrap_or("");
                if kind.contains("encrypted") || kind.contains("image") {
                    continue;
                }
                if let Some(t) = str_of(item, "text") {
                    parts.push(t);
                }
            }
            _ => {}
        }
    }
    parts.join("\n")
}

/// Number of image items in a message's `content` array.
pub(crate) fn image_count(content: Option<&Value>) -> usize {
    match content {
        Some(Value::Array(items)) => items
            .iter()
            .filter(|i| str_of(i, "type").is_some_and(|t| t.contains("image")))
            .count(),
        _ => 0,
    }
}

/// What a tool output says about the process.
#[derive(Debug, Default, Clone, PartialEq)]
pub(crate) struct OutputFacts {
    /// The output text (whole).
    pub text: String,
    /// Exit code when the output records one.
    pub exit_code: Option<i64>,
    /// Duration in milliseconds when recorded.
    pub duration_ms: Option<u64>,
    /// An explicit success flag (`success: false` → error).
    pub success: Option<bool>,
}

/// Reads a `*_output` payload's `output` field: a plain string (with `Exit code:` /
/// `Process exited with code` / `Wall time:` header lines), a JSON string
/// `{"output","metadata":{exit_code,duration_seconds}}`, an array of content items, or an
/// object `{content|text, success}`.
pub(crate) fn output_facts(output: Option<&Value>) -> OutputFacts {
    match output {
        None | Some(Value::Null) => OutputFacts::default(),
        Some(Value::String(s)) => string_output(s),
        Some(Value::Array(_)) => {
            let text = content_text(output);
            let mut f = header_facts(&text);
            f.text = text;
            f
        }
        Some(obj @ Value::Object(_)) => {
            if obj.get("metadata").is_some() {
                return json_output(obj);
            }
            let text = obj
                .get("content")
                .or_else(|| obj.get("text"))
                .or_else(|| obj.get("output"))
                .map(|c| match c {
                    Value::String(s) => s.clone(),
                    other => content_text(Some(other)),
                })
                .unwrap_or_else(|| obj.to_string());
            let mut f = header_facts(&text);
            f.text = text;
            f.success = obj.get("success").and_then(Value::as_bool);
            f
        }
        Some(other) => OutputFacts {
            text: other.to_string(),
            ..OutputFacts::default()
        },
    }
}

fn string_output(s: &str) -> OutputFacts {
    let t = s.trim_start();
    if t.starts_with('{') && t.contains("\"metadata\"") {
        if let Ok(v) = serde_json::from_str::<Value>(s) {
            if v.get("output").is_some() {
                return json_output(&v);
            }
        }
    }
    let mut f = header_facts(s);
    f.text = s.to_string();
    f
}

/// `{"output": "...", "metadata": {"exit_code": N, "duration_seconds": X}}`.
fn json_output(v: &Value) -> OutputFacts {
    let text = match v.get("output") {
        Some(Value::String(s)) => s.clone(),
        Some(other) => content_text(Some(other)),
        None => String::new(),
    };
    let meta = v.get("metadata").cloned().unwrap_or(Value::Null);
    OutputFacts {
        text,
        exit_code: i64_of(&meta, "exit_code"),
        duration_ms: meta
            .get("duration_seconds")
            .and_then(Value::as_f64)
            .filter(|s| s.is_finite() && *s >= 0.0)
            .map(|s| (s * 1000.0).round() as u64),
        success: v.get("success").and_then(Value::as_bool),
    }
}

/// Exit code and wall time from the header lines newer exec tools put before `Output:`.
fn header_facts(text: &str) -> OutputFacts {
    let mut f = OutputFacts::default();
    for line in text.lines().take(8) {
        let line = line.trim();
        if line == "Output:" {
            break;
        }
        if let Some(rest) = line
            .strip_prefix("Process exited with code ")
            .or_else(|| line.strip_prefix("Exit code: "))
        {
            f.exit_code = rest.trim().parse().ok();
        } else if let Some(rest) = line.strip_prefix("Wall time: ") {
            let num = rest.trim().trim_end_matches("seconds").trim();
            f.duration_ms = num
                .parse::<f64>()
                .ok()
                .filter(|s| s.is_finite() && *s >= 0.0)
                .map(|s| (s * 1000.0).round() as u64);
        }
    }
    f
}

/// A `duration` as Codex serializes a Rust `Duration` (`{"secs","nanos"}`), or a number of
/// milliseconds in a `duration_ms` field.
pub(crate) fn duration_ms(payload: &Value) -> Option<u64> {
    if let Some(d) = payload.get("duration") {
        if let (Some(secs), Some(nanos)) = (d.get("secs"), d.get("nanos")) {
            let s = as_u64(secs)?;
            let n = as_u64(nanos)?;
            return Some(s.saturating_mul(1000).saturating_add(n / 1_000_000));
        }
    }
    payload.get("duration_ms").and_then(as_u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn injected_context_is_recognized() {
        assert_eq!(
            classify_user("<environment_context>\n<cwd>/x</cwd>\n</environment_context>"),
            UserText::Injected("environment_context")
        );
        assert_eq!(
            classify_user("<some_new_block>hi</some_new_block>"),
            UserText::Injected("injected_context")
        );
        assert_eq!(
            classify_user("<div>hi</div>"),
            UserText::Prompt("<div>hi</div>".into())
        );
        match classify_user("ctx\n## My request for Codex:\nfix it\n") {
            UserText::Wrapped { context, request } => {
                assert_eq!(context, "ctx");
                assert_eq!(request, "fix it");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn output_shapes() {
        let f = output_facts(Some(&json!(
            "Chunk ID: 1\nWall time: 0.2500 seconds\nProcess exited with code 2\nOutput:\nx"
        )));
        assert_eq!((f.exit_code, f.duration_ms), (Some(2), Some(250)));
        let f = output_facts(Some(&json!(
            "{\"output\":\"hi\",\"metadata\":{\"exit_code\":1,\"duration_seconds\":1.5}}"
        )));
        assert_eq!(
            (f.text.as_str(), f.exit_code, f.duration_ms),
            ("hi", Some(1), Some(1500))
        );
        let f = output_facts(Some(&json!("{\"task_name\":\"/root/x\"}")));
        assert_eq!(f.exit_code, None);
        let f = output_facts(Some(&json!([{"type":"input_text","text":"a"}])));
        assert_eq!(f.text, "a");
    }
}
