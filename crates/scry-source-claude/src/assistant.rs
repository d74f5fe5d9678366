//! Assistant records: one API response is written as several lines (one content block each)
//! sharing a `message.id`; every line repeats the usage, and only the last carries the final
//! `output_tokens`. The lines of the current message are buffered (with any event-bearing
//! record that interleaves them) until a line of another message or a `user` record arrives;
//! then the message's usage — the last line's, which has the final output count — is attached
//! to its last content-block event, once per `message.id` in the file.

use scry_model::{Event, EventKind, TokenUsage};
use scry_source::json::u64_of;
use scry_source::Emitter;
use serde_json::{json, Value};

use crate::checkpoint::IdSet;
use crate::header::hash;
use crate::parse::{put, At, Parser};

/// Most events held back behind one message before they are sent anyway.
const MAX_PENDING: usize = 4096;

/// The assistant message being assembled.
#[derive(Debug, Default)]
pub struct Pending {
    events: Vec<Event>,
    msg: Option<Msg>,
}

#[derive(Debug)]
struct Msg {
    key: Option<u64>,
    usage: Option<TokenUsage>,
    /// Of the usage's cache writes, those with a 1-hour lifetime (`cache_creation`'s
    /// `ephemeral_1h_input_tokens`): `scry usage` prices them apart.
    write_1h: u64,
    last: Option<usize>,
    copied: bool,
}

impl Pending {
    /// Queues `e` behind the open message, or sends it when none is open.
    pub fn push(&mut self, e: Event, counted: &mut IdSet, out: &mut Emitter<'_>) {
        if self.msg.is_none() {
            out.emit(e);
            return;
        }
        if self.events.len() >= MAX_PENDING {
            self.flush(counted, out);
            out.emit(e);
            return;
        }
        self.events.push(e);
    }

    /// Closes the open message: attaches its usage once, sends its events.
    pub fn flush(&mut self, counted: &mut IdSet, out: &mut Emitter<'_>) {
        if let Some(msg) = self.msg.take() {
            if let (Some(u), Some(i)) = (msg.usage, msg.last) {
                if let Some(e) = self.events.get_mut(i) {
                    if msg.copied {
                        put(e, "copied_usage", usage_json(&u));
                    } else if msg.key.is_none_or(|k| counted.insert(k)) {
                        e.usage = Some(u);
                        if msg.write_1h > 0 {
                            put(e, "cache_write_1h", json!(msg.write_1h));
                        }
                    }
                }
            }
        }
        for e in self.events.drain(..) {
            out.emit(e);
        }
    }

    /// True when no assistant message is open (nothing is held back): a safe point.
    pub fn is_idle(&self) -> bool {
        self.msg.is_none() && self.events.is_empty()
    }

    fn is_open(&self, key: Option<u64>) -> bool {
        key.is_some() && self.msg.as_ref().is_some_and(|m| m.key == key)
    }
}

fn usage_json(u: &TokenUsage) -> Value {
    json!({"input": u.input, "output": u.output, "cache_read": u.cache_read,
           "cache_write": u.cache_write, "reasoning": u.reasoning})
}

/// Normalized usage of a `message.usage` object (Claude's `input_tokens` already excludes cache
/// reads and writes; thinking tokens are part of `output_tokens` and reported as `reasoning`).
pub fn usage_of(u: &Value) -> Option<TokenUsage> {
    if !u.is_object() {
        return None;
    }
    Some(TokenUsage {
        input: u64_of(u, "input_tokens").unwrap_or(0),
        output: u64_of(u, "output_tokens").unwrap_or(0),
        cache_read: u64_of(u, "cache_read_input_tokens").unwrap_or(0),
        cache_write: u64_of(u, "cache_creation_input_tokens").unwrap_or(0),
        reasoning: u
            .get("output_tokens_details")
            .and_then(|d| u64_of(d, "thinking_tokens"))
            .unwrap_or(0),
    })
}

impl Parser<'_> {
    /// One `assistant` line.
    pub(crate) fn assistant(&mut self, v: &Value, at: &At<'_>, fresh: bool, out: &mut Emitter<'_>) {
        let msg = v.get("message").unwrap_or(&Value::Null);
        let id = msg
            .get("id")
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty());
        let key = id.map(hash);
        let raw_model = msg.get("model").and_then(Value::as_str);
        let synthetic = raw_model == Some("<synthetic>");
        let model = raw_model
            .filter(|m| !m.is_empty() && !synthetic)
            .map(str::to_string);
        if !self.pending.is_open(key) {
            self.pending.flush(&mut self.counted, out);
            self.pending.msg = Some(Msg {
                key,
                usage: None,
                write_1h: 0,
                last: None,
                copied: self.is_copied(at.line),
            });
        }
        let content = msg.get("content").unwrap_or(&Value::Null);
        let mut events: Vec<Event> = Vec::new();
        if v.get("isApiErrorMessage").and_then(Value::as_bool) == Some(true) {
            let mut e = self.event(
                EventKind::System,
                scry_source::json::text_of(content),
                v,
                at,
                Some(0),
                fresh,
            );
            e.subtype = Some("api_error".into());
            if let Some(err) = v.get("error").filter(|e| !e.is_null()) {
                put(&mut e, "error", err.clone());
            }
            events.push(e);
        } else {
            match content {
                Value::Array(blocks) => {
                    for (i, b) in blocks.iter().enumerate() {
                        let e = self.block_event(b, i, v, at, fresh);
                        events.push(e);
                    }
                }
                Value::Null => {}
                other => events.push(self.event(
                    EventKind::Assistant,
                    scry_source::json::text_of(other),
                    v,
                    at,
                    Some(0),
                    fresh,
                )),
            }
        }
        let has_usage = !synthetic && msg.get("usage").is_some_and(Value::is_object);
        let carrier_missing = self.pending.msg.as_ref().is_some_and(|m| m.last.is_none());
        if events.is_empty() && has_usage && carrier_missing {
            // A message without content blocks still made a request: keep its usage on an event.
            let mut e = self.event(EventKind::Meta, String::new(), v, at, Some(0), fresh);
            e.subtype = Some("empty_message".into());
            events.push(e);
        }
        for mut e in events {
            e.model.clone_from(&model);
            self.pending.events.push(e);
            if let Some(m) = self.pending.msg.as_mut() {
                m.last = Some(self.pending.events.len() - 1);
            }
        }
        if let Some(m) = self.pending.msg.as_mut() {
            if !synthetic {
                if let Some(u) = msg.get("usage").and_then(usage_of) {
                    m.usage = Some(u);
                    m.write_1h = msg
                        .pointer("/usage/cache_creation/ephemeral_1h_input_tokens")
                        .and_then(Value::as_u64)
                        .unwrap_or(0)
                        .min(u.cache_write);
                }
            }
        }
        if key.is_none() {
            // No message id: the line is its own message.
            self.pending.flush(&mut self.counted, out);
        }
    }

    fn block_event(&mut self, b: &Value, i: usize, v: &Value, at: &At<'_>, fresh: bool) -> Event {
        let ty = b.get("type").and_then(Value::as_str).unwrap_or("");
        let s = |k: &str| b.get(k).and_then(Value::as_str).unwrap_or("").to_string();
        match ty {
            "thinking" => self.event(EventKind::Thinking, s("thinking"), v, at, Some(i), fresh),
            "redacted_thinking" => {
                let mut e = self.event(EventKind::Thinking, String::new(), v, at, Some(i), fresh);
                put(&mut e, "redacted", Value::Bool(true));
                e
            }
            "text" => self.event(EventKind::Assistant, s("text"), v, at, Some(i), fresh),
            "tool_use" | "server_tool_use" | "mcp_tool_use" => {
                let mut e = self.event(EventKind::ToolCall, String::new(), v, at, Some(i), fresh);
                let name = s("name");
                let id = s("id");
                if !id.is_empty() {
                    self.register_call(&id, &name);
                    e.call_id = Some(id);
                }
                e.tool = (!name.is_empty()).then_some(name);
                e.args = b.get("input").map(scry_source::json::decode_json_string);
                if ty != "tool_use" {
                    e.subtype = Some(ty.to_string());
                }
                e
            }
            t if t.ends_with("_tool_result") => {
                let mut e = self.event(EventKind::ToolResult, String::new(), v, at, Some(i), fresh);
                e.subtype = Some(t.to_string());
                e.call_id = b
                    .get("tool_use_id")
                    .and_then(Value::as_str)
                    .map(str::to_string);
                e.text = crate::parse::result_text(b.get("content").unwrap_or(&Value::Null));
                e.tool = e
                    .call_id
                    .as_deref()
                    .and_then(|c| self.call_name(c))
                    .map(str::to_string);
                put(&mut e, "block", b.clone());
                e
            }
            _ => {
                let text = if b.is_string() {
                    scry_source::json::text_of(b)
                } else {
                    String::new()
                };
                let kind = if b.is_string() {
                    EventKind::Assistant
                } else {
                    EventKind::Meta
                };
                let mut e = self.event(kind, text, v, at, Some(i), fresh);
                if kind == EventKind::Meta {
                    e.subtype = Some(if ty.is_empty() {
                        "content_block".into()
                    } else {
                        ty.to_string()
                    });
                    put(&mut e, "block", b.clone());
                }
                e
            }
        }
    }
}
