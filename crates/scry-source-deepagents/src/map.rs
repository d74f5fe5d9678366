//! LangChain messages (as LangGraph rebuilt them) → scry events.
//!
//! | message | events |
//! |---|---|
//! | `system` | `Meta` `system_prompt` |
//! | `human` | `User`; `[SYSTEM]`-prefixed → `Meta` `system_injected`; `lc_source: summarization` → `Compaction` `summary_message` |
//! | `ai` | per content block: `thinking` / `reasoning` → `Thinking`, `text` → `Assistant`; then one `ToolCall` per `tool_calls` entry (and per `invalid_tool_calls` entry, `data.invalid`); usage on the first of them (an AI message with nothing else → an empty `Assistant` `empty_message` carrying the usage) |
//! | `tool` | `ToolResult` paired by `tool_call_id`; `status: error` → `is_error`; exit code from `artifact.exit_code`, else from the `execute` tool's own trailer (`[Command failed with exit code N]`, `Exit code: N`) |
//! | anything else | `Meta` `message_<type>` + one `UnknownRecord` warning per type |
//!
//! Usage (LangChain `usage_metadata`, checked against langchain-anthropic output in
//! deepagents-code 0.1.88): `input_tokens` is the sum of every input kind, so the normalized
//! `input` = `input_tokens` − `input_token_details.cache_read` − `cache_creation`;
//! `cache_creation` → `cache_write`; `output_token_details.reasoning` → `reasoning`.

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

use scry_langgraph::{Message, Value};
use scry_model::{
    Event, EventKind, Locator, RawRef, Surface, TimeSource, Timestamp, TokenUsage, Warning,
    WarningKind,
};
use scry_source::Emitter;

/// Normalizes LangChain `usage_metadata`. `None` when absent or not a map.
pub fn usage(meta: Option<&Value>) -> Option<TokenUsage> {
    let meta = meta?;
    meta.as_map()?;
    let num = |v: Option<&Value>| {
        v.and_then(Value::as_i64)
            .map(|n| u64::try_from(n).unwrap_or(0))
    };
    let input_total = num(meta.get("input_tokens"));
    let output = num(meta.get("output_tokens"));
    if input_total.is_none() && output.is_none() {
        return None;
    }
    let details = meta.get("input_token_details");
    let cache_read = num(details.and_then(|d| d.get("cache_read"))).unwrap_or(0);
    let cache_write = num(details.and_then(|d| d.get("cache_creation"))).unwrap_or(0);
    let reasoning = num(meta
        .get("output_token_details")
        .and_then(|d| d.get("reasoning")))
    .unwrap_or(0);
    Some(TokenUsage {
        input: input_total
            .unwrap_or(0)
            .saturating_sub(cache_read)
            .saturating_sub(cache_write),
        output: output.unwrap_or(0),
        cache_read,
        cache_write,
        reasoning,
    })
}

/// The exit code a shell tool recorded: `artifact.exit_code`, else the trailer Deep Agents'
/// `execute` tool appends (`[Command failed with exit code N]` /
/// `[Command succeeded with exit code N]`, or a line `Exit code: N`).
pub fn exit_code(msg: &Message, tool: Option<&str>) -> Option<i64> {
    if let Some(code) = msg
        .field("artifact")
        .and_then(|a| a.get("exit_code"))
        .and_then(Value::as_i64)
    {
        return Some(code);
    }
    if tool != Some("execute") {
        return None;
    }
    let text = msg.text();
    for line in text.lines().rev() {
        let line = line.trim();
        let bracketed = line
            .strip_prefix("[Command failed with exit code ")
            .or_else(|| line.strip_prefix("[Command succeeded with exit code "))
            .and_then(|r| r.strip_suffix(']'));
        if let Some(n) = bracketed.and_then(|n| n.trim().parse().ok()) {
            return Some(n);
        }
        if let Some(n) = line
            .strip_prefix("Exit code: ")
            .and_then(|n| n.trim().parse().ok())
        {
            return Some(n);
        }
    }
    None
}

/// Everything the mapper needs about one message besides the message.
pub struct Placed<'a> {
    /// 0-based index in the rebuilt list.
    pub index: usize,
    /// The message.
    pub msg: &'a Message,
    /// When it first appeared (checkpoint time).
    pub time: Option<Timestamp>,
    /// Model-visible now, or replaced by a summarization.
    pub surface: Surface,
}

/// Turns messages into events, pairing tool results with their calls.
pub struct Mapper {
    db: PathBuf,
    /// `_model_spec`, used where a message names no model.
    pub model_spec: Option<String>,
    calls: HashMap<String, String>,
    unknown: BTreeMap<String, (usize, usize)>,
    /// Extra `data` to attach to a tool call by call id (e.g. the subagent session it ran).
    pub call_data: HashMap<String, serde_json::Value>,
}

fn locator(p: &Placed<'_>, part: usize) -> Locator {
    match p.msg.id() {
        Some(id) if !id.is_empty() => Locator::native(id, Some(part)),
        _ => {
            let bytes = serde_json::to_vec(&p.msg.to_json()).unwrap_or_default();
            Locator::record(p.index as u64 + 1, &bytes, Some(part))
        }
    }
}

fn model_name(msg: &Message) -> Option<String> {
    msg.field("response_metadata")
        .and_then(|r| r.get("model_name").or_else(|| r.get("model")))
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
}

impl Mapper {
    /// A mapper for messages read from `db`.
    pub fn new(db: PathBuf, model_spec: Option<String>) -> Self {
        Mapper {
            db,
            model_spec,
            calls: HashMap::new(),
            unknown: BTreeMap::new(),
            call_data: HashMap::new(),
        }
    }

    fn event(&self, p: &Placed<'_>, kind: EventKind, text: String, part: usize) -> Event {
        let mut e = Event::new(kind, text, locator(p, part));
        e.time = p.time;
        e.time_source = if p.time.is_some() {
            TimeSource::Derived
        } else {
            TimeSource::None
        };
        e.surface = p.surface;
        e.raw = RawRef {
            file: 0,
            offset: 0,
            len: 0,
            line: p.index as u64 + 1,
        };
        e
    }

    /// Emits the events of one message.
    pub fn message(&mut self, p: &Placed<'_>, out: &mut Emitter<'_>) {
        match p.msg.kind() {
            "system" => {
                let mut e = self.event(p, EventKind::Meta, p.msg.text(), 0);
                e.subtype = Some("system_prompt".into());
                out.emit(e);
            }
            "human" => self.human(p, out),
            "ai" => self.ai(p, out),
            "tool" => self.tool(p, out),
            other => {
                let slot = self
                    .unknown
                    .entry(other.to_string())
                    .or_insert((0, p.index));
                slot.0 += 1;
                let mut e = self.event(p, EventKind::Meta, p.msg.text(), 0);
                e.subtype = Some(format!("message_{other}"));
                e.data = Some(p.msg.to_json());
                out.emit(e);
            }
        }
    }

    fn human(&mut self, p: &Placed<'_>, out: &mut Emitter<'_>) {
        let text = p.msg.text();
        let source = p
            .msg
            .field("additional_kwargs")
            .and_then(|k| k.get("lc_source"))
            .and_then(Value::as_str);
        let mut e = if source == Some("summarization") {
            let mut e = self.event(p, EventKind::Compaction, text, 0);
            e.subtype = Some("summary_message".into());
            e
        } else if text.starts_with("[SYSTEM]") {
            let mut e = self.event(p, EventKind::Meta, text, 0);
            e.subtype = Some("system_injected".into());
            e
        } else {
            self.event(p, EventKind::User, text, 0)
        };
        // deepagents-code ≥ 0.1.57 records what the user literally typed (before `@path`
        // expansion) and the referenced paths.
        if let Some(prompt) = p
            .msg
            .field("additional_kwargs")
            .and_then(|k| k.get("deepagents_code_user_prompt"))
        {
            let mut d = serde_json::Map::new();
            if let Some(lit) = prompt
                .get("literal_user_text")
                .and_then(Value::as_str)
                .filter(|l| *l != e.text)
            {
                d.insert("literal_user_text".into(), lit.into());
            }
            if let Some(paths) = prompt.get("referenced_paths").filter(|v| v.truthy()) {
                d.insert("referenced_paths".into(), paths.to_json());
            }
            if let Some(turn) = prompt.get("turn_id").and_then(Value::as_str) {
                d.insert("turn_id".into(), turn.into());
            }
            if !d.is_empty() {
                e.data = Some(serde_json::Value::Object(d));
            }
        }
        if let Some(s) = source {
            e.data = Some(if e.kind == EventKind::Compaction {
                // The summarized messages were removed from the state: nothing to shadow.
                serde_json::json!({ "lc_source": s, "surface_op": { "op": "summary_message" } })
            } else {
                serde_json::json!({ "lc_source": s })
            });
        }
        out.emit(e);
    }

    fn ai(&mut self, p: &Placed<'_>, out: &mut Emitter<'_>) {
        let model = model_name(p.msg).or_else(|| self.model_spec.clone());
        let mut usage = usage(p.msg.usage_metadata());
        let mut events: Vec<Event> = Vec::new();
        let mut part = 0usize;
        match p.msg.content() {
            Value::Array(blocks) => {
                for block in blocks {
                    let kind = block.get("type").and_then(Value::as_str);
                    match (kind, block) {
                        (_, Value::Str(s)) if !s.is_empty() => {
                            events.push(self.event(p, EventKind::Assistant, s.clone(), part));
                        }
                        (Some("thinking" | "reasoning"), _) => {
                            let mut texts: Vec<String> = Vec::new();
                            for key in ["thinking", "reasoning", "text"] {
                                if let Some(s) = block.get(key).and_then(Value::as_str) {
                                    texts.push(s.to_string());
                                    break;
                                }
                            }
                            if let Some(summary) = block.get("summary").and_then(Value::as_array) {
                                texts.extend(
                                    summary
                                        .iter()
                                        .filter_map(|s| s.get("text").and_then(Value::as_str))
                                        .map(str::to_string),
                                );
                            }
                            let text = texts.join("\n");
                            if !text.is_empty() {
                                events.push(self.event(p, EventKind::Thinking, text, part));
                            }
                        }
                        (Some("text"), _) => {
                            let phase = block.get("phase").and_then(Value::as_str);
                            let text = block
                                .get("text")
                                .and_then(Value::as_str)
                                .unwrap_or_default()
                                .to_string();
                            if !text.is_empty() {
                                let k = if phase == Some("analysis") {
                                    EventKind::Thinking
                                } else {
                                    EventKind::Assistant
                                };
                                events.push(self.event(p, k, text, part));
                            }
                        }
                        _ => {}
                    }
                    part += 1;
                }
            }
            other => {
                let text = scry_langgraph::message::content_text(other);
                if !text.is_empty() {
                    events.push(self.event(p, EventKind::Assistant, text, part));
                }
                part += 1;
            }
        }
        if let Some(r) = p
            .msg
            .field("additional_kwargs")
            .and_then(|k| k.get("reasoning_content"))
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
        {
            events.insert(0, self.event(p, EventKind::Thinking, r.to_string(), part));
            part += 1;
        }
        for call in p.msg.tool_calls().and_then(Value::as_array).unwrap_or(&[]) {
            events.push(self.tool_call(p, call, part, false));
            part += 1;
        }
        for call in p
            .msg
            .invalid_tool_calls()
            .and_then(Value::as_array)
            .unwrap_or(&[])
        {
            events.push(self.tool_call(p, call, part, true));
            part += 1;
        }
        if events.is_empty() {
            let mut e = self.event(p, EventKind::Assistant, String::new(), part);
            e.subtype = Some("empty_message".into());
            events.push(e);
        }
        for mut e in events {
            e.model = model.clone();
            e.usage = usage.take();
            out.emit(e);
        }
    }

    fn tool_call(&mut self, p: &Placed<'_>, call: &Value, part: usize, invalid: bool) -> Event {
        let name = call
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        let id = call.get("id").and_then(Value::as_str).map(str::to_string);
        let args = call.get("args").map(|a| match a {
            Value::Str(s) => {
                scry_source::json::decode_json_string(&serde_json::Value::String(s.clone()))
            }
            other => other.to_json(),
        });
        let mut e = self.event(p, EventKind::ToolCall, String::new(), part);
        e.tool = Some(name.clone());
        e.call_id = id.clone();
        e.args = args;
        if let Some(id) = &id {
            self.calls.insert(id.clone(), name.clone());
            if let Some(d) = self.call_data.get(id) {
                e.data = Some(d.clone());
            }
        }
        if invalid {
            let error = call.get("error").map(Value::to_json);
            e.data = Some(serde_json::json!({ "invalid": true, "error": error }));
        }
        e
    }

    fn tool(&mut self, p: &Placed<'_>, out: &mut Emitter<'_>) {
        let call_id = p.msg.tool_call_id().map(str::to_string);
        let paired = call_id.as_ref().and_then(|id| self.calls.get(id)).cloned();
        let tool = paired.clone().or_else(|| p.msg.name().map(str::to_string));
        let mut e = self.event(p, EventKind::ToolResult, p.msg.text(), 0);
        e.is_error = Some(p.msg.status() == Some("error"));
        e.exit_code = exit_code(p.msg, tool.as_deref());
        e.tool = tool;
        e.call_id = call_id.clone();
        let mut data = serde_json::Map::new();
        if let Some(kw) = p.msg.field("additional_kwargs") {
            if let Some(src) = kw.get("lc_source").and_then(Value::as_str) {
                data.insert("lc_source".into(), src.into());
            }
            if let Some(d) = kw.get("lc_data") {
                data.insert("lc_data".into(), d.to_json());
            }
        }
        if paired.is_none() {
            data.insert("unconfirmed".into(), true.into());
            out.warn(Warning::at(
                WarningKind::UnpairedResult,
                format!(
                    "tool result {} (message {}) matches no tool call",
                    call_id.as_deref().unwrap_or("without a call id"),
                    p.index + 1
                ),
                &self.db,
                Some(p.index as u64 + 1),
            ));
        }
        if !data.is_empty() {
            e.data = Some(serde_json::Value::Object(data));
        }
        out.emit(e);
    }

    /// Reports message types this mapper does not know (one warning per type).
    pub fn finish(&self, out: &mut Emitter<'_>) {
        for (kind, (count, first)) in &self.unknown {
            out.warn(Warning::at(
                WarningKind::UnknownRecord,
                format!(
                    "{count} message(s) of unknown type '{kind}' kept as meta events (first: message {})",
                    first + 1
                ),
                &self.db,
                Some(*first as u64 + 1),
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(json: &str) -> Value {
        scry_langgraph::value::parse_json(json).unwrap()
    }

    #[test]
    fn usage_subtracts_cache_kinds() {
        let u = usage(Some(&parse(
            r#"{"input_tokens": 12871, "output_tokens": 39, "total_tokens": 12910,
                "input_token_details": {"cache_creation": 1287, "cache_read": 10940},
                "output_token_details": {"reasoning": 7}}"#,
        )))
        .unwrap();
        assert_eq!(u.input, 644);
        assert_eq!(u.cache_read, 10940);
        assert_eq!(u.cache_write, 1287);
        assert_eq!(u.output, 39);
        assert_eq!(u.reasoning, 7);
        assert!(usage(Some(&parse("{}"))).is_none());
        assert!(usage(Some(&parse("[1]"))).is_none());
        // Inconsistent counts never underflow.
        let u = usage(Some(&parse(
            r#"{"input_tokens": 5, "output_tokens": 1, "input_token_details": {"cache_read": 9}}"#,
        )))
        .unwrap();
        assert_eq!(u.input, 0);
    }

    #[test]
    fn exit_code_from_trailer() {
        let msg = |text: &str| {
            Message::from_value(&parse(&format!(
                r#"{{"type": "tool", "content": {}, "tool_call_id": "x"}}"#,
                serde_json::to_string(text).unwrap()
            )))
            .unwrap()
        };
        let m = msg("[stderr] nope\n\nExit code: 1\n[Command failed with exit code 1]");
        assert_eq!(exit_code(&m, Some("execute")), Some(1));
        assert_eq!(exit_code(&m, Some("read_file")), None);
        let m = msg("planning\n\n[Command succeeded with exit code 0]");
        assert_eq!(exit_code(&m, Some("execute")), Some(0));
        assert_eq!(exit_code(&msg("no trailer"), Some("execute")), None);
    }
}
