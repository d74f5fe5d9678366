//! The JSONL transcript (`core/session.py` `SessionRecorder`, seed 003 §1.1) → events.
//!
//! | record | event |
//! |---|---|
//! | `session_start` | `Meta` `session_start` (log-only); a later one in the same file (a resumed session merged in) → `Meta` `session_resumed` |
//! | `transcript_message` `role: user` | `User` (`[SYSTEM]`-prefixed → `Meta` `system_injected`) |
//! | `transcript_message` `role: assistant` | `reasoning_content` → `Thinking`, content → `Assistant`, one `ToolCall` per `tool_calls` entry; usage on the first |
//! | `transcript_message` `role: tool` | `ToolResult` paired by `tool_call_id` (`status: error` → `is_error`; `[exit code N]` trailer → exit code) |
//! | `transcript_message` `role: system` | `Meta` `system_prompt` |
//! | `compression` | `Compaction` (`summary`; `data.removed_count`, `data.kept_count`) |
//! | `approval_request` / `approval_decision` | `System` `approval_request` / `approval_decision` (log-only) |
//! | `session_end` | `Meta` `session_end` (log-only) |
//!
//! Message fields are read flat on the record or nested under `message`. Surfaces (S-Q2): a
//! compression keeps the last `kept_count` messages before it (else shadows the next
//! `removed_count`); every message before that point and every earlier compression is
//! `shadowed`. The file is read twice (once for the compression boundaries, once to emit), so
//! memory stays flat.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use scry_model::{Event, EventKind, Locator, RawRef, Surface, Warning, WarningKind};
use scry_source::json::{str_of, u64_of};
use scry_source::jsonl::{self, Record};
use scry_source::{Emitter, SourceError};
use serde_json::Value;

use crate::discover::field;

/// What the transcript told about the session.
#[derive(Debug, Default)]
pub struct Summary {
    /// `session_start` records: `(session id, thread id, cwd, model, version)`.
    pub starts: Vec<Start>,
    /// Number of `transcript_message` records.
    pub messages: usize,
    /// Tool call ids seen in assistant messages.
    pub call_ids: Vec<String>,
    /// Tool call ids answered by tool messages.
    pub result_ids: Vec<String>,
    /// Whether a `session_end` closes the file.
    pub ended: bool,
}

/// One `session_start` record.
#[derive(Debug, Default, Clone)]
pub struct Start {
    /// `sessionId`.
    pub session: Option<String>,
    /// `threadId`.
    pub thread: Option<String>,
    /// `cwd`.
    pub cwd: Option<String>,
    /// `model`.
    pub model: Option<String>,
    /// `version`.
    pub version: Option<String>,
    /// `resumedFrom`.
    pub resumed_from: Option<String>,
}

fn msg_field<'a>(rec: &'a Value, key: &str) -> Option<&'a Value> {
    rec.get("message")
        .and_then(|m| m.get(key))
        .or_else(|| rec.get(key))
}

fn msg_str<'a>(rec: &'a Value, key: &str) -> Option<&'a str> {
    msg_field(rec, key).and_then(Value::as_str)
}

/// First pass: the message ordinal below which messages are shadowed, and how many
/// compressions there are.
fn boundaries(path: &Path) -> Result<(usize, usize), SourceError> {
    let mut ignored = Vec::new();
    let mut messages = 0usize;
    let mut boundary = 0usize;
    let mut compressions = 0usize;
    jsonl::read_file(path, &mut ignored, |r: Record<'_>| {
        match str_of(&r.value, "type") {
            Some("transcript_message") => messages += 1,
            Some("compression") => {
                compressions += 1;
                let kept = u64_of(&r.value, "kept_count").and_then(|k| usize::try_from(k).ok());
                let removed =
                    u64_of(&r.value, "removed_count").and_then(|k| usize::try_from(k).ok());
                let b = match (kept, removed) {
                    (Some(k), _) => messages.saturating_sub(k),
                    (None, Some(rm)) => (boundary + rm).min(messages),
                    (None, None) => messages,
                };
                boundary = boundary.max(b);
            }
            _ => {}
        }
    })?;
    Ok((boundary, compressions))
}

/// Pairs results with calls and numbers parts.
struct State<'p> {
    path: &'p Path,
    boundary: usize,
    compressions: usize,
    seen_compressions: usize,
    ordinal: usize,
    model: Option<String>,
    calls: HashMap<String, String>,
    unknown: BTreeMap<String, (u64, u64)>,
    summary: Summary,
}

impl State<'_> {
    fn event(&self, r: &Record<'_>, kind: EventKind, text: String, part: usize) -> Event {
        let id = msg_str(&r.value, "id").filter(|s| !s.is_empty());
        let loc = match id {
            Some(id) => Locator::native(id, Some(part)),
            None => Locator::record(r.line, r.raw, Some(part)),
        };
        let time = r
            .value
            .get("timestamp")
            .and_then(scry_source::time::from_value);
        let mut e = Event::new(kind, text, loc).at(time);
        e.raw = RawRef {
            file: 0,
            offset: r.offset,
            len: r.raw.len() as u64,
            line: r.line,
        };
        e
    }

    fn record(&mut self, r: Record<'_>, out: &mut Emitter<'_>) {
        let kind = str_of(&r.value, "type").unwrap_or("").to_string();
        match kind.as_str() {
            "session_start" => self.start(&r, out),
            "transcript_message" => {
                let shadowed = self.ordinal < self.boundary;
                self.ordinal += 1;
                self.summary.messages += 1;
                let mut events = self.message(&r, out);
                if shadowed {
                    for e in &mut events {
                        e.surface = Surface::Shadowed;
                    }
                }
                for e in events {
                    out.emit(e);
                }
            }
            "compression" => {
                self.seen_compressions += 1;
                let summary = str_of(&r.value, "summary").unwrap_or_default().to_string();
                let mut e = self.event(&r, EventKind::Compaction, summary, 0);
                e.subtype = Some("compression".into());
                if self.seen_compressions < self.compressions {
                    e.surface = Surface::Shadowed;
                }
                let keep = |k: &str| r.value.get(k).cloned().unwrap_or(Value::Null);
                e.data = Some(serde_json::json!({
                    // Computed here from kept_count (S-Q2): shared surface rules leave it alone.
                    "surface_op": { "op": "compress", "kept_count": keep("kept_count") },
                    "removed_count": keep("removed_count"),
                    "kept_count": keep("kept_count"),
                    "tokens_before": keep("tokens_before"),
                    "tokens_after": keep("tokens_after"),
                }));
                out.emit(e);
            }
            "approval_request" | "approval_decision" => {
                let tool = str_of(&r.value, "tool");
                let call = str_of(&r.value, "tool_call_id");
                let text = if kind == "approval_request" {
                    let args = r
                        .value
                        .get("args")
                        .map(Value::to_string)
                        .unwrap_or_default();
                    format!(
                        "Approval requested: {} {args}",
                        tool.or_else(|| call.and_then(|c| self.calls.get(c).map(String::as_str)))
                            .unwrap_or("?")
                    )
                } else {
                    let decision = str_of(&r.value, "decision").unwrap_or("?");
                    match str_of(&r.value, "reason") {
                        Some(why) => format!("Approval {decision}: {why}"),
                        None => format!("Approval {decision}"),
                    }
                };
                let mut e = self.event(&r, EventKind::System, text, 0);
                e.subtype = Some(kind.clone());
                e.call_id = call.map(str::to_string);
                e.tool = tool
                    .map(str::to_string)
                    .or_else(|| call.and_then(|c| self.calls.get(c).cloned()));
                e.surface = Surface::LogOnly;
                e.data = Some(r.value.clone());
                out.emit(e);
            }
            "session_end" => {
                self.summary.ended = true;
                let reason = str_of(&r.value, "reason").unwrap_or("");
                let mut e = self.event(&r, EventKind::Meta, reason.to_string(), 0);
                e.subtype = Some("session_end".into());
                e.surface = Surface::LogOnly;
                out.emit(e);
            }
            other => {
                let slot = self.unknown.entry(other.to_string()).or_insert((0, r.line));
                slot.0 += 1;
            }
        }
    }

    fn start(&mut self, r: &Record<'_>, out: &mut Emitter<'_>) {
        let v = &r.value;
        let s = Start {
            session: field(v, &["sessionId", "session_id"]).map(str::to_string),
            thread: field(v, &["threadId", "thread_id"]).map(str::to_string),
            cwd: field(v, &["cwd"]).map(str::to_string),
            model: field(v, &["model"]).map(str::to_string),
            version: field(v, &["version"]).map(str::to_string),
            resumed_from: field(v, &["resumedFrom", "resumed_from"]).map(str::to_string),
        };
        if s.model.is_some() {
            self.model = s.model.clone();
        }
        let resumed = !self.summary.starts.is_empty();
        let text = match (&s.session, resumed) {
            (Some(id), true) => format!("Session {id} resumed"),
            (Some(id), false) => format!("Session {id} started"),
            (None, _) => "Session started".to_string(),
        };
        let mut e = self.event(r, EventKind::Meta, text, 0);
        e.subtype = Some(
            if resumed {
                "session_resumed"
            } else {
                "session_start"
            }
            .into(),
        );
        e.surface = Surface::LogOnly;
        e.data = Some(v.clone());
        out.emit(e);
        self.summary.starts.push(s);
    }

    fn message(&mut self, r: &Record<'_>, out: &mut Emitter<'_>) -> Vec<Event> {
        let v = &r.value;
        let role = msg_str(v, "role").unwrap_or("");
        let content = msg_field(v, "content").cloned().unwrap_or(Value::Null);
        let text = scry_source::json::text_of(&content);
        match role {
            "user" | "human" => {
                let mut e = self.event(r, EventKind::User, text, 0);
                if e.text.starts_with("[SYSTEM]") {
                    e.kind = EventKind::Meta;
                    e.subtype = Some("system_injected".into());
                }
                vec![e]
            }
            "assistant" | "ai" => self.assistant(r, &text),
            "tool" => vec![self.tool(r, text, out)],
            "system" => {
                let mut e = self.event(r, EventKind::Meta, text, 0);
                e.subtype = Some("system_prompt".into());
                vec![e]
            }
            other => {
                let slot = self
                    .unknown
                    .entry(format!("transcript_message role={other}"))
                    .or_insert((0, r.line));
                slot.0 += 1;
                let mut e = self.event(r, EventKind::Meta, text, 0);
                e.subtype = Some(format!("message_{other}"));
                vec![e]
            }
        }
    }

    fn assistant(&mut self, r: &Record<'_>, text: &str) -> Vec<Event> {
        let v = &r.value;
        let mut events = Vec::new();
        let mut part = 0usize;
        if let Some(t) = msg_str(v, "reasoning_content").filter(|s| !s.is_empty()) {
            events.push(self.event(r, EventKind::Thinking, t.to_string(), part));
            part += 1;
        }
        if !text.is_empty() {
            events.push(self.event(r, EventKind::Assistant, text.to_string(), part));
            part += 1;
        }
        for call in msg_field(v, "tool_calls")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or(&[])
        {
            let name = field(call, &["name"])
                .or_else(|| call.get("function").and_then(|f| field(f, &["name"])))
                .unwrap_or_default()
                .to_string();
            let args = call
                .get("args")
                .or_else(|| call.get("arguments"))
                .or_else(|| call.get("function").and_then(|f| f.get("arguments")))
                .map(scry_source::json::decode_json_string);
            let mut e = self.event(r, EventKind::ToolCall, String::new(), part);
            part += 1;
            e.tool = Some(name.clone());
            e.args = args;
            if let Some(id) = field(call, &["id"]) {
                e.call_id = Some(id.to_string());
                self.calls.insert(id.to_string(), name);
                self.summary.call_ids.push(id.to_string());
            }
            events.push(e);
        }
        if events.is_empty() {
            let mut e = self.event(r, EventKind::Assistant, String::new(), part);
            e.subtype = Some("empty_message".into());
            events.push(e);
        }
        let usage = msg_field(v, "usage")
            .or_else(|| msg_field(v, "usage_metadata"))
            .and_then(|u| scry_langgraph::value::parse_json(&u.to_string()).ok());
        let mut usage = scry_source_deepagents::map::usage(usage.as_ref());
        let model = msg_str(v, "model")
            .map(str::to_string)
            .or_else(|| self.model.clone());
        for e in &mut events {
            e.usage = usage.take();
            e.model = model.clone();
        }
        events
    }

    fn tool(&mut self, r: &Record<'_>, text: String, out: &mut Emitter<'_>) -> Event {
        let v = &r.value;
        let call_id = msg_str(v, "tool_call_id").map(str::to_string);
        let paired = call_id.as_ref().and_then(|c| self.calls.get(c)).cloned();
        let mut e = self.event(r, EventKind::ToolResult, text, 0);
        e.is_error = Some(msg_str(v, "status") == Some("error"));
        e.exit_code = msg_field(v, "exit_code")
            .and_then(Value::as_i64)
            .or_else(|| exit_trailer(&e.text));
        e.tool = paired
            .clone()
            .or_else(|| msg_str(v, "name").map(str::to_string));
        e.call_id = call_id.clone();
        if let Some(c) = &call_id {
            self.summary.result_ids.push(c.clone());
        }
        if paired.is_none() {
            e.data = Some(serde_json::json!({ "unconfirmed": true }));
            out.warn(Warning::at(
                WarningKind::UnpairedResult,
                format!(
                    "tool result {} matches no tool call",
                    call_id.as_deref().unwrap_or("without a call id")
                ),
                self.path,
                Some(r.line),
            ));
        }
        e
    }
}

/// MT-Agent's shell tool ends its output with `[exit code N]`.
pub fn exit_trailer(text: &str) -> Option<i64> {
    let last = text.lines().rev().map(str::trim).find(|l| !l.is_empty())?;
    last.strip_prefix("[exit code ")?
        .strip_suffix(']')?
        .trim()
        .parse()
        .ok()
}

/// Parses the transcript at `path`, emitting its events.
pub fn parse(path: &Path, out: &mut Emitter<'_>) -> Result<Summary, SourceError> {
    let (boundary, compressions) = boundaries(path)?;
    let mut state = State {
        path,
        boundary,
        compressions,
        seen_compressions: 0,
        ordinal: 0,
        model: None,
        calls: HashMap::new(),
        unknown: BTreeMap::new(),
        summary: Summary::default(),
    };
    let mut warnings = Vec::new();
    jsonl::read_file(path, &mut warnings, |r| state.record(r, out))?;
    for w in warnings {
        out.warn(w);
    }
    for (kind, (count, line)) in &state.unknown {
        out.warn(Warning::at(
            WarningKind::UnknownRecord,
            format!("{count} record(s) of unknown type '{kind}' skipped (first at line {line})"),
            path,
            Some(*line),
        ));
    }
    Ok(state.summary)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exit_trailers() {
        assert_eq!(exit_trailer("F.\n1 failed\n[exit code 1]\n"), Some(1));
        assert_eq!(exit_trailer("ok\n[exit code 0]"), Some(0));
        assert_eq!(exit_trailer("exit code 3"), None);
        assert_eq!(exit_trailer(""), None);
    }
}
