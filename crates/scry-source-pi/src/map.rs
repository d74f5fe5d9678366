//! pi session entries → scry events.
//!
//! - `message` with `role`: `user` → User (text blocks; images noted in `data`); `assistant` →
//!   one event per block: `thinking` → Thinking, `text` → Assistant, `toolCall` → ToolCall
//!   (`arguments` as args), an `errorMessage` → System; `toolResult` → ToolResult (`isError`;
//!   the bash tool's closing `Command exited with code N` line → exit code); `bashExecution` (a
//!   command the user ran with `!`) → ToolCall + ToolResult with its `exitCode`; `custom`,
//!   `branchSummary`, `compactionSummary` → Meta.
//! - `compaction` → Compaction (text = summary); `branch_summary` → Meta `branch_summary`;
//!   `model_change`, `thinking_level_change`, `session_info` (the title), `label`, `custom`,
//!   `custom_message` → Meta with that subtype. Other types: one UnknownRecord warning each.
//!
//! Usage (`usage {input, output, cacheRead, cacheWrite}`) is already additive (pi's `input`
//! excludes cache reads: `totalTokens` = the sum in every corpus record) and goes on one event
//! per assistant message (its first text, else first tool call, else first thinking block).
//! Compaction and branch summaries may carry the usage of the summarizing request.

use std::collections::{BTreeMap, HashSet};
use std::path::PathBuf;

use scry_model::{Event, EventKind, Locator, RawRef, Surface, TokenUsage, Warning, WarningKind};
use scry_source::json::{str_of, u64_of};
use scry_source::jsonl::Record;
use scry_source::time;
use serde_json::{json, Value};

/// Turns entries into events, one record at a time.
pub struct Mapper {
    path: PathBuf,
    active: Option<HashSet<String>>,
    calls: HashSet<String>,
    unknown: BTreeMap<String, (u64, u64)>,
    warnings: Vec<Warning>,
    /// Every `session_info` name, oldest first.
    pub titles: Vec<String>,
}

/// Events of one entry under construction.
struct Entry<'r> {
    id: Option<String>,
    raw: RawRef,
    bytes: &'r [u8],
    time: Option<scry_model::Timestamp>,
    surface: Surface,
    part: usize,
    out: Vec<Event>,
}

impl Entry<'_> {
    fn push(&mut self, kind: EventKind, text: impl Into<String>) -> &mut Event {
        let loc = match &self.id {
            Some(id) => Locator::native(id, Some(self.part)),
            None => Locator::record(self.raw.line, self.bytes, Some(self.part)),
        };
        self.part += 1;
        let mut e = Event::new(kind, text, loc).at(self.time);
        e.raw = self.raw;
        e.surface = self.surface;
        self.out.push(e);
        let i = self.out.len() - 1;
        &mut self.out[i]
    }
}

impl Mapper {
    /// A mapper for the file at `path`; `active` = ids on the active branch (`None`: unknown).
    pub fn new(path: PathBuf, active: Option<HashSet<String>>) -> Self {
        Mapper {
            path,
            active,
            calls: HashSet::new(),
            unknown: BTreeMap::new(),
            warnings: Vec::new(),
            titles: Vec::new(),
        }
    }

    /// The state that crosses lines, for a resume point: call ids seen, unknown types,
    /// warnings so far, titles.
    pub fn state(&self) -> Value {
        let mut calls: Vec<&String> = self.calls.iter().collect();
        calls.sort();
        json!({"calls": calls, "unknown": self.unknown, "warnings": self.warnings,
               "titles": self.titles})
    }

    /// Restores [`Mapper::state`]; `None` when it is not such a state.
    pub fn restore(&mut self, v: &Value) -> Option<()> {
        let calls: Vec<String> = serde_json::from_value(v.get("calls")?.clone()).ok()?;
        self.calls = calls.into_iter().collect();
        self.unknown = serde_json::from_value(v.get("unknown")?.clone()).ok()?;
        self.warnings = serde_json::from_value(v.get("warnings")?.clone()).ok()?;
        self.titles = serde_json::from_value(v.get("titles")?.clone()).ok()?;
        Some(())
    }

    /// Warnings gathered while mapping (unknown types once each, unpaired results).
    pub fn finish(&mut self) -> Vec<Warning> {
        let mut out = std::mem::take(&mut self.warnings);
        for (t, (n, line)) in std::mem::take(&mut self.unknown) {
            out.push(Warning::at(
                WarningKind::UnknownRecord,
                format!("unknown entry type '{t}' seen {n} time(s); skipped"),
                &self.path,
                Some(line),
            ));
        }
        out
    }

    /// The events of one record.
    pub fn entry(&mut self, r: &Record<'_>) -> Vec<Event> {
        let v = &r.value;
        let id = str_of(v, "id").map(String::from);
        let surface = match (&self.active, &id) {
            (Some(active), Some(id)) if !active.contains(id) => Surface::Shadowed,
            _ => Surface::Current,
        };
        let time = v.get("timestamp").and_then(time::from_value).or_else(|| {
            v.get("message")
                .and_then(|m| m.get("timestamp"))
                .and_then(time::from_value)
        });
        let mut e = Entry {
            id,
            raw: RawRef {
                file: 0,
                offset: r.offset,
                len: r.raw.len() as u64,
                line: r.line,
            },
            bytes: r.raw,
            time,
            surface,
            part: 0,
            out: Vec::new(),
        };
        let ty = str_of(v, "type").unwrap_or("");
        match ty {
            "message" => match v.get("message") {
                Some(m) => self.message(&mut e, m),
                None => self.unknown("message without `message`", r.line),
            },
            "compaction" => {
                let ev = e.push(EventKind::Compaction, str_of(v, "summary").unwrap_or(""));
                ev.subtype = Some("compaction".into());
                ev.usage = usage(v.get("usage"));
                ev.data = Some(pick(
                    v,
                    &["firstKeptEntryId", "tokensBefore", "details", "fromHook"],
                ));
            }
            "branch_summary" => {
                let ev = e.push(EventKind::Meta, str_of(v, "summary").unwrap_or(""));
                ev.subtype = Some("branch_summary".into());
                ev.usage = usage(v.get("usage"));
                ev.data = Some(pick(v, &["fromId", "details", "fromHook"]));
            }
            "model_change" => {
                let text = match (str_of(v, "provider"), str_of(v, "modelId")) {
                    (Some(p), Some(m)) => format!("{p}/{m}"),
                    (None, Some(m)) => m.to_string(),
                    _ => String::new(),
                };
                e.push(EventKind::Meta, text).subtype = Some("model_change".into());
            }
            "thinking_level_change" => {
                let text = str_of(v, "thinkingLevel").unwrap_or("");
                e.push(EventKind::Meta, text).subtype = Some("thinking_level".into());
            }
            "session_info" => {
                let name = str_of(v, "name").unwrap_or("").trim().to_string();
                if !name.is_empty() {
                    self.titles.push(name.clone());
                }
                let ev = e.push(EventKind::Meta, name);
                ev.subtype = Some("session_info".into());
                ev.surface = Surface::LogOnly;
            }
            "label" => {
                let ev = e.push(EventKind::Meta, str_of(v, "label").unwrap_or(""));
                ev.subtype = Some("label".into());
                ev.surface = Surface::LogOnly;
                ev.data = Some(pick(v, &["targetId"]));
            }
            "custom" => {
                let ct = str_of(v, "customType").unwrap_or("");
                let ev = e.push(EventKind::Meta, "");
                ev.subtype = Some(format!("custom:{ct}"));
                ev.surface = Surface::LogOnly;
                ev.data = v.get("data").cloned();
            }
            "custom_message" => {
                let ct = str_of(v, "customType").unwrap_or("");
                let text = content_text(v.get("content")).0;
                let ev = e.push(EventKind::Meta, text);
                ev.subtype = Some(format!("custom_message:{ct}"));
            }
            other => self.unknown(if other.is_empty() { "(none)" } else { other }, r.line),
        }
        e.out
    }

    fn unknown(&mut self, label: &str, line: u64) {
        self.unknown.entry(label.to_string()).or_insert((0, line)).0 += 1;
    }

    fn message(&mut self, e: &mut Entry<'_>, m: &Value) {
        let role = str_of(m, "role").unwrap_or("");
        match role {
            "user" => {
                let (text, images) = content_text(m.get("content"));
                let ev = e.push(EventKind::User, text);
                if images > 0 {
                    ev.data = Some(json!({ "images": images }));
                }
            }
            "assistant" => self.assistant(e, m),
            "toolResult" => {
                let call = str_of(m, "toolCallId").unwrap_or("").to_string();
                let tool = str_of(m, "toolName").map(String::from);
                let (text, _) = content_text(m.get("content"));
                let exit = if tool.as_deref() == Some("bash") {
                    bash_exit(&text)
                } else {
                    None
                };
                let paired = self.calls.contains(&call);
                let line = e.raw.line;
                let ev = e.push(EventKind::ToolResult, text);
                ev.tool = tool;
                ev.call_id = (!call.is_empty()).then(|| call.clone());
                ev.is_error = m.get("isError").and_then(Value::as_bool);
                ev.exit_code = exit;
                let mut data = serde_json::Map::new();
                if let Some(d) = m.get("details").filter(|d| !is_empty(d)) {
                    data.insert("details".into(), d.clone());
                }
                if !paired {
                    data.insert("unconfirmed".into(), Value::Bool(true));
                    self.warnings.push(Warning::at(
                        WarningKind::UnpairedResult,
                        format!("tool result for call id '{call}' matches no tool call"),
                        &self.path,
                        Some(line),
                    ));
                }
                if !data.is_empty() {
                    ev.data = Some(Value::Object(data));
                }
            }
            "bashExecution" => {
                let id =
                    e.id.clone()
                        .unwrap_or_else(|| format!("line{}", e.raw.line));
                let call = e.push(EventKind::ToolCall, "");
                call.tool = Some("bash".into());
                call.subtype = Some("user_bash".into());
                call.call_id = Some(id.clone());
                call.args = Some(json!({ "command": str_of(m, "command").unwrap_or("") }));
                let exit = m.get("exitCode").and_then(Value::as_i64);
                let cancelled = m.get("cancelled").and_then(Value::as_bool);
                let res = e.push(EventKind::ToolResult, str_of(m, "output").unwrap_or(""));
                res.tool = Some("bash".into());
                res.subtype = Some("user_bash".into());
                res.call_id = Some(id);
                res.exit_code = exit;
                res.is_error = match (exit, cancelled) {
                    (_, Some(true)) => Some(true),
                    (Some(c), _) => Some(c != 0),
                    _ => None,
                };
                res.data = Some(pick(m, &["cancelled", "truncated", "fullOutputPath"]));
            }
            "compactionSummary" | "branchSummary" | "custom" => {
                let text = str_of(m, "summary")
                    .map(String::from)
                    .unwrap_or_else(|| content_text(m.get("content")).0);
                e.push(EventKind::Meta, text).subtype = Some(role.to_string());
            }
            other => self.unknown(&format!("message role '{other}'"), e.raw.line),
        }
    }

    fn assistant(&mut self, e: &mut Entry<'_>, m: &Value) {
        let model = str_of(m, "model").map(String::from);
        let start = e.out.len();
        let (mut first_text, mut first_call, mut first_thought) = (None, None, None);
        let blocks: Vec<Value> = match m.get("content") {
            Some(Value::Array(a)) => a.clone(),
            Some(Value::String(s)) => vec![json!({"type": "text", "text": s})],
            _ => Vec::new(),
        };
        for b in &blocks {
            match str_of(b, "type").unwrap_or("") {
                "thinking" => {
                    let ev = e.push(EventKind::Thinking, str_of(b, "thinking").unwrap_or(""));
                    if b.get("redacted").and_then(Value::as_bool) == Some(true) {
                        ev.subtype = Some("redacted".into());
                    }
                    first_thought.get_or_insert(e.out.len() - 1);
                }
                "text" => {
                    e.push(EventKind::Assistant, str_of(b, "text").unwrap_or(""));
                    first_text.get_or_insert(e.out.len() - 1);
                }
                "toolCall" => {
                    let id = str_of(b, "id").map(String::from);
                    if let Some(i) = &id {
                        self.calls.insert(i.clone());
                    }
                    let ev = e.push(EventKind::ToolCall, "");
                    ev.tool = str_of(b, "name").map(String::from);
                    ev.call_id = id;
                    ev.args = b
                        .get("arguments")
                        .map(scry_source::json::decode_json_string);
                }
                other => {
                    let label = format!("assistant block '{other}'");
                    self.unknown(&label, e.raw.line);
                }
            }
            if first_call.is_none() && str_of(b, "type") == Some("toolCall") {
                first_call = Some(e.out.len() - 1);
            }
        }
        if let Some(err) = str_of(m, "errorMessage").filter(|s| !s.is_empty()) {
            let stop = str_of(m, "stopReason").unwrap_or("error").to_string();
            e.push(EventKind::System, err).subtype = Some(stop);
        }
        let u = usage(m.get("usage"));
        let at = first_text.or(first_call).or(first_thought);
        match (u, at) {
            (Some(u), Some(i)) => {
                if let Some(ev) = e.out.get_mut(i) {
                    ev.usage = Some(u);
                }
            }
            (u, None) if e.out.len() == start || u.is_some() => {
                let ev = e.push(EventKind::Meta, "");
                ev.subtype = Some("empty_response".into());
                ev.usage = u;
            }
            _ => {}
        }
        for ev in &mut e.out[start..] {
            if ev.kind != EventKind::System {
                ev.model.clone_from(&model);
            }
        }
    }
}

/// Text of a content value (string or blocks) and the number of image blocks.
fn content_text(c: Option<&Value>) -> (String, usize) {
    match c {
        Some(Value::String(s)) => (s.clone(), 0),
        Some(Value::Array(blocks)) => {
            let mut texts = Vec::new();
            let mut images = 0;
            for b in blocks {
                match str_of(b, "type") {
                    Some("image") => images += 1,
                    _ => {
                        if let Some(t) = str_of(b, "text") {
                            texts.push(t);
                        }
                    }
                }
            }
            (texts.join("\n"), images)
        }
        _ => (String::new(), 0),
    }
}

/// pi's bash tool ends a failing command's output with `Command exited with code N`.
fn bash_exit(text: &str) -> Option<i64> {
    let last = text.trim_end().lines().last()?;
    last.trim()
        .strip_prefix("Command exited with code ")?
        .trim()
        .parse()
        .ok()
}

/// pi usage → normalized usage (already additive).
fn usage(u: Option<&Value>) -> Option<TokenUsage> {
    let u = u.filter(|u| u.is_object())?;
    let input = u64_of(u, "input");
    let output = u64_of(u, "output");
    if input.is_none() && output.is_none() {
        return None;
    }
    Some(TokenUsage {
        input: input.unwrap_or(0),
        output: output.unwrap_or(0),
        cache_read: u64_of(u, "cacheRead").unwrap_or(0),
        cache_write: u64_of(u, "cacheWrite").unwrap_or(0),
        reasoning: 0,
    })
}

/// The listed fields of `v` that are present.
fn pick(v: &Value, keys: &[&str]) -> Value {
    let mut m = serde_json::Map::new();
    for k in keys {
        if let Some(x) = v.get(*k) {
            m.insert((*k).to_string(), x.clone());
        }
    }
    Value::Object(m)
}

fn is_empty(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::Object(o) => o.is_empty(),
        Value::Array(a) => a.is_empty(),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bash_exit_only_from_the_closing_line() {
        assert_eq!(
            bash_exit("cat: x: No such file\n\n\nCommand exited with code 1"),
            Some(1)
        );
        assert_eq!(bash_exit("planning\n"), None);
        assert_eq!(bash_exit(""), None);
    }
}
