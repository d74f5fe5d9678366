//! Gemini CLI message records → scry events.
//!
//! - `user`: text parts → a human prompt ([`EventKind::User`]), except injected context
//!   (`<session_context>` → Meta `session_context`), the `<state_snapshot>` that chat
//!   compression puts in place of the history (→ Compaction), CLI slash commands (`/compress`,
//!   … → Meta `command`) and the task prompt older releases stored for a delegated subagent
//!   (Meta `subagent_prompt`); `functionResponse` parts → tool results (skipped when the call's own
//!   `toolCalls[i].result` already gave that result — 0.61.0 stores every result twice).
//! - `gemini` (and very early `model`): `thoughts[]` → Thinking (falling back to `thought: true`
//!   parts), text → Assistant, `functionCall` parts not in `toolCalls` → ToolCall, each
//!   `toolCalls[i]` → ToolCall + ToolResult (`result[].functionResponse.response.output`;
//!   `status: error` → is_error; `Exit Code: N` in `run_shell_command` output → exit code).
//! - `info` / `error` / `warning` → System with that subtype.
//!
//! Tokens (`{input, output, cached, thoughts, tool, total}`, per message) are normalized:
//! Gemini's `input` (promptTokenCount) includes `cached`, so `input = input − cached + tool`,
//! `cache_read = cached`; `output` (candidatesTokenCount) excludes thinking — in every corpus
//! record `total = input + output + thoughts + tool` — so `output = output + thoughts` (thinking
//! is billed as output, as for Codex and Claude) and `reasoning = thoughts`. The usage goes on
//! one event of the message (its text, else its first tool call, else its first thought).

use std::collections::{BTreeMap, HashSet};

use scry_model::{Event, EventKind, Locator, Surface, TimeSource, TokenUsage};
use scry_source::json::{str_of, u64_of};
use scry_source::time;
use serde_json::{json, Value};

use crate::log::Msg;

/// Gemini CLI slash commands whose text, when recorded as a user message, is a command and not
/// a prompt.
const SLASH_COMMANDS: &[&str] = &[
    "about",
    "agents",
    "auth",
    "bug",
    "chat",
    "clear",
    "compress",
    "copy",
    "corgi",
    "directory",
    "dir",
    "docs",
    "editor",
    "exit",
    "extensions",
    "help",
    "hooks",
    "ide",
    "init",
    "mcp",
    "memory",
    "model",
    "permissions",
    "policies",
    "privacy",
    "quit",
    "restore",
    "resume",
    "rewind",
    "settings",
    "setup-github",
    "skills",
    "stats",
    "summarize",
    "terminal-setup",
    "theme",
    "tools",
    "vim",
];

/// What mapping needs to know about the whole conversation.
#[derive(Debug, Default)]
pub struct Context {
    /// Call ids of every tool call (`toolCalls[i].id` and `functionCall.id` parts).
    pub calls: HashSet<String>,
    /// Tool name per call id.
    pub call_names: BTreeMap<String, String>,
    /// Call ids whose result has been emitted.
    pub answered: HashSet<String>,
    /// The session is a subagent's own file (its first prompt comes from the parent).
    pub subagent: bool,
    /// Duplicate tool results skipped.
    pub duplicate_results: u64,
    /// Tool results whose call id matched no call: (call id, line).
    pub unpaired: Vec<(String, u64)>,
    /// Message types not known, with count and first line.
    pub unknown_types: BTreeMap<String, (u64, u64)>,
}

impl Context {
    /// Collects call ids and names from every message before mapping.
    pub fn prepare<'a>(&mut self, msgs: impl Iterator<Item = &'a Msg>) {
        for m in msgs {
            if let Some(calls) = m.value.get("toolCalls").and_then(Value::as_array) {
                for c in calls {
                    if let Some(id) = str_of(c, "id") {
                        self.calls.insert(id.to_string());
                        if let Some(n) = str_of(c, "name") {
                            self.call_names.insert(id.to_string(), n.to_string());
                        }
                    }
                }
            }
            for p in parts(&m.value) {
                if let Some(fc) = p.get("functionCall") {
                    if let Some(id) = str_of(fc, "id") {
                        self.calls.insert(id.to_string());
                        if let Some(n) = str_of(fc, "name") {
                            self.call_names.insert(id.to_string(), n.to_string());
                        }
                    }
                }
            }
        }
    }
}

/// The content parts of a message: `content` (array, or a string as one text part) or the very
/// early `parts`.
fn parts(v: &Value) -> Vec<Value> {
    match v.get("content").or_else(|| v.get("parts")) {
        Some(Value::Array(a)) => a.clone(),
        Some(Value::String(s)) => vec![json!({ "text": s })],
        Some(Value::Object(o)) => vec![Value::Object(o.clone())],
        _ => Vec::new(),
    }
}

/// Builds events for one message, in order.
pub struct Mapper<'a> {
    msg: &'a Msg,
    part: usize,
    out: Vec<Event>,
}

impl<'a> Mapper<'a> {
    fn new(msg: &'a Msg) -> Self {
        Mapper {
            msg,
            part: 0,
            out: Vec::new(),
        }
    }

    fn event(&mut self, kind: EventKind, text: impl Into<String>) -> &mut Event {
        let mut e = Event::new(kind, text, Locator::native(&self.msg.id, Some(self.part)));
        self.part += 1;
        e.raw = self.msg.raw;
        let t = self.msg.value.get("timestamp").and_then(time::from_value);
        e = e.at(t);
        if !self.msg.current {
            e.surface = Surface::Shadowed;
        }
        if let Some(m) = str_of(&self.msg.value, "model") {
            if kind != EventKind::User && kind != EventKind::ToolResult {
                e.model = Some(m.to_string());
            }
        }
        self.out.push(e);
        let last = self.out.len() - 1;
        &mut self.out[last]
    }
}

/// Maps one message to its events.
pub fn map_message(msg: &Msg, cx: &mut Context) -> Vec<Event> {
    let kind = str_of(&msg.value, "type").unwrap_or("").to_string();
    let mut m = Mapper::new(msg);
    match kind.as_str() {
        "user" => map_user(&mut m, cx),
        "gemini" | "model" => map_gemini(&mut m, cx),
        "info" | "error" | "warning" => {
            let text = text_of_parts(&parts(&msg.value));
            m.event(EventKind::System, text).subtype = Some(kind);
        }
        other => {
            let label = if other.is_empty() { "(none)" } else { other };
            let entry = cx
                .unknown_types
                .entry(label.to_string())
                .or_insert((0, msg.raw.line));
            entry.0 += 1;
            let text = text_of_parts(&parts(&msg.value));
            let e = m.event(EventKind::Meta, text);
            e.subtype = Some(format!("unknown:{label}"));
        }
    }
    m.out
}

/// Joined text of text parts that are not thoughts.
fn text_of_parts(parts: &[Value]) -> String {
    let texts: Vec<&str> = parts
        .iter()
        .filter(|p| p.get("thought").and_then(Value::as_bool) != Some(true))
        .filter_map(|p| str_of(p, "text"))
        .collect();
    texts.join("")
}

fn map_user(m: &mut Mapper<'_>, cx: &mut Context) {
    let ps = parts(&m.msg.value);
    let text = text_of_parts(&ps);
    let has_text = ps.iter().any(|p| p.get("text").is_some());
    let responses: Vec<&Value> = ps
        .iter()
        .filter_map(|p| p.get("functionResponse"))
        .collect();
    if has_text || responses.is_empty() {
        let (kind, subtype) = classify_user(&text, cx);
        let display = m
            .msg
            .value
            .get("displayContent")
            .filter(|d| !d.is_null())
            .cloned();
        let e = m.event(kind, text);
        e.subtype = subtype.map(String::from);
        if let Some(d) = display {
            e.data = Some(json!({ "displayContent": d }));
        }
    }
    for fr in responses {
        let id = str_of(fr, "id").unwrap_or("").to_string();
        if !id.is_empty() && cx.answered.contains(&id) {
            cx.duplicate_results += 1;
            continue;
        }
        let name = str_of(fr, "name")
            .map(String::from)
            .or_else(|| cx.call_names.get(&id).cloned());
        let text = response_text(fr);
        let exit = exit_code(name.as_deref(), &text);
        let paired = !id.is_empty() && cx.calls.contains(&id);
        let line = m.msg.raw.line;
        let e = m.event(EventKind::ToolResult, text);
        e.tool = name;
        e.call_id = (!id.is_empty()).then(|| id.clone());
        e.exit_code = exit;
        if !paired {
            e.data = Some(json!({ "unconfirmed": true }));
            cx.unpaired.push((id.clone(), line));
        }
        if !id.is_empty() {
            cx.answered.insert(id);
        }
    }
}

/// Decides whether a user message's text is a human prompt.
fn classify_user(text: &str, cx: &Context) -> (EventKind, Option<&'static str>) {
    let t = text.trim_start();
    if t.starts_with("<session_context>")
        || t.starts_with("This is the Gemini CLI. We are setting up the context for our chat.")
    {
        return (EventKind::Meta, Some("session_context"));
    }
    // Chat compression replaces the history with a snapshot sent as a user turn.
    if t.starts_with("<state_snapshot>") {
        return (EventKind::Compaction, Some("state_snapshot"));
    }
    if let Some(rest) = t.strip_prefix('/') {
        let name: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
            .collect();
        let after = rest.get(name.len()..).unwrap_or("");
        if SLASH_COMMANDS.contains(&name.as_str())
            && (after.is_empty() || after.starts_with(char::is_whitespace))
            && !t.contains('\n')
        {
            return (EventKind::Meta, Some("command"));
        }
    }
    // Older releases (0.22.4) stored the task prompt of a delegated subagent in the parent.
    if !cx.subagent && t.starts_with("Your task is") && t.contains("<objective>") {
        return (EventKind::Meta, Some("subagent_prompt"));
    }
    (EventKind::User, None)
}

fn map_gemini(m: &mut Mapper<'_>, cx: &mut Context) {
    let v = m.msg.value.clone();
    let ps = parts(&v);
    let first = m.out.len();
    let mut usage_at: Option<usize> = None;

    // Thinking: the recorded summaries, else thought parts.
    let thoughts = v.get("thoughts").and_then(Value::as_array);
    let mut thinking_idx: Option<usize> = None;
    if let Some(ts) = thoughts.filter(|t| !t.is_empty()) {
        for t in ts {
            let subject = str_of(t, "subject").unwrap_or("").trim();
            let desc = str_of(t, "description").unwrap_or("");
            let text = if subject.is_empty() {
                desc.to_string()
            } else {
                format!("{subject}\n{desc}")
            };
            let time = t.get("timestamp").and_then(time::from_value);
            let e = m.event(EventKind::Thinking, text);
            if time.is_some() {
                e.time = time;
                e.time_source = TimeSource::Event;
            }
            thinking_idx.get_or_insert(m.out.len() - 1);
        }
    } else {
        for p in ps
            .iter()
            .filter(|p| p.get("thought").and_then(Value::as_bool) == Some(true))
        {
            let text = str_of(p, "text").unwrap_or("").to_string();
            m.event(EventKind::Thinking, text);
            thinking_idx.get_or_insert(m.out.len() - 1);
        }
    }

    let text = text_of_parts(&ps);
    if !text.is_empty() {
        m.event(EventKind::Assistant, text);
        usage_at = Some(m.out.len() - 1);
    }

    let recorded: HashSet<String> = v
        .get("toolCalls")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|c| str_of(c, "id").map(String::from))
                .collect()
        })
        .unwrap_or_default();
    let mut first_call: Option<usize> = None;
    for p in &ps {
        let Some(fc) = p.get("functionCall") else {
            continue;
        };
        let id = str_of(fc, "id").map(String::from);
        if id.as_ref().is_some_and(|i| recorded.contains(i)) {
            continue;
        }
        let e = m.event(EventKind::ToolCall, "");
        e.tool = str_of(fc, "name").map(String::from);
        e.call_id = id;
        e.args = fc.get("args").map(scry_source::json::decode_json_string);
        first_call.get_or_insert(m.out.len() - 1);
    }
    if let Some(calls) = v.get("toolCalls").and_then(Value::as_array) {
        for c in calls {
            map_tool_call(m, cx, c, &mut first_call);
        }
    }

    if let Some(u) = usage(&v) {
        let at = usage_at.or(first_call).or(thinking_idx);
        match at {
            Some(i) => {
                if let Some(e) = m.out.get_mut(i) {
                    e.usage = Some(u);
                }
            }
            None => {
                // A model response with nothing recorded but its token counts.
                let e = m.event(EventKind::Meta, "");
                e.subtype = Some("empty_response".into());
                e.usage = Some(u);
            }
        }
    } else if m.out.len() == first {
        // An empty response without tokens: keep it visible rather than drop it.
        m.event(EventKind::Meta, "").subtype = Some("empty_response".into());
    }
}

fn map_tool_call(m: &mut Mapper<'_>, cx: &mut Context, c: &Value, first_call: &mut Option<usize>) {
    let id = str_of(c, "id").map(String::from);
    let name = str_of(c, "name").map(String::from);
    let status = str_of(c, "status").map(String::from);
    let e = m.event(EventKind::ToolCall, "");
    e.tool = name.clone();
    e.call_id = id.clone();
    e.args = c.get("args").map(scry_source::json::decode_json_string);
    let mut data = serde_json::Map::new();
    for key in ["agentId", "displayName", "description"] {
        if let Some(val) = c.get(key).filter(|x| !x.is_null()) {
            if key != "description" || c.get("agentId").is_some() {
                data.insert(key.to_string(), val.clone());
            }
        }
    }
    if !data.is_empty() {
        e.data = Some(Value::Object(data));
    }
    first_call.get_or_insert(m.out.len() - 1);

    let result = c.get("result").filter(|r| !r.is_null());
    let is_error = match status.as_deref() {
        Some("error") => Some(true),
        Some("success") => Some(false),
        Some("cancelled") => Some(true),
        _ => None,
    };
    let text = match result {
        Some(r) => result_text(r),
        None => match status.as_deref() {
            Some("error") | Some("cancelled") => c
                .get("resultDisplay")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string(),
            _ => return,
        },
    };
    if id.as_ref().is_some_and(|i| cx.answered.contains(i)) {
        cx.duplicate_results += 1;
        return;
    }
    let exit = exit_code(name.as_deref(), &text);
    let done = c.get("timestamp").and_then(time::from_value);
    let r = m.event(EventKind::ToolResult, text);
    r.tool = name;
    r.call_id = id.clone();
    r.is_error = is_error;
    r.exit_code = exit;
    if done.is_some() {
        r.time = done;
        r.time_source = TimeSource::Event;
    }
    if let Some(s) = status {
        r.data = Some(json!({ "status": s }));
    }
    if let Some(i) = id {
        cx.answered.insert(i);
    }
}

/// The output of a `result` value: the `functionResponse.response` of each part (its `output`,
/// else `error`, else the response as JSON), plus any plain text parts.
fn result_text(r: &Value) -> String {
    let items: Vec<Value> = match r {
        Value::Array(a) => a.clone(),
        Value::String(s) => return s.clone(),
        other => vec![other.clone()],
    };
    let mut out: Vec<String> = Vec::new();
    for p in &items {
        if let Some(fr) = p.get("functionResponse") {
            out.push(response_text(fr));
        } else if let Some(t) = str_of(p, "text") {
            out.push(t.to_string());
        } else if let Some(d) = p.get("inlineData") {
            let mime = str_of(d, "mimeType").unwrap_or("data");
            out.push(format!("[inline {mime}]"));
        }
    }
    out.join("\n")
}

/// The text of one `functionResponse`.
fn response_text(fr: &Value) -> String {
    let Some(resp) = fr.get("response") else {
        return String::new();
    };
    if let Some(o) = resp.get("output") {
        return match o {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
    }
    if let Some(e) = resp.get("error") {
        return match e {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
    }
    match resp {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// `Exit Code: N` as `run_shell_command` writes it (only when the output really carries it).
fn exit_code(tool: Option<&str>, text: &str) -> Option<i64> {
    if tool != Some("run_shell_command") {
        return None;
    }
    text.lines()
        .filter_map(|l| l.trim().strip_prefix("Exit Code:"))
        .find_map(|rest| rest.trim().parse::<i64>().ok())
}

/// Normalized usage of a `gemini` message (see the module doc).
fn usage(v: &Value) -> Option<TokenUsage> {
    let t = v.get("tokens").filter(|t| t.is_object())?;
    let input = u64_of(t, "input");
    let output = u64_of(t, "output");
    if input.is_none() && output.is_none() {
        return None;
    }
    let cached = u64_of(t, "cached").unwrap_or(0);
    let thoughts = u64_of(t, "thoughts").unwrap_or(0);
    let tool = u64_of(t, "tool").unwrap_or(0);
    Some(TokenUsage {
        input: input.unwrap_or(0).saturating_sub(cached) + tool,
        output: output.unwrap_or(0) + thoughts,
        cache_read: cached,
        cache_write: 0,
        reasoning: thoughts,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exit_code_only_from_shell_output_that_carries_it() {
        assert_eq!(
            exit_code(
                Some("run_shell_command"),
                "Output: x\nExit Code: 1\nSignal: 0"
            ),
            Some(1)
        );
        assert_eq!(
            exit_code(Some("run_shell_command"), "Output: planning"),
            None
        );
        assert_eq!(exit_code(Some("read_file"), "Exit Code: 3"), None);
    }

    #[test]
    fn usage_is_normalized() {
        let v = json!({"tokens":{"input":12803,"output":80,"cached":9602,"thoughts":26,"tool":0,"total":12909}});
        let u = usage(&v).unwrap();
        assert_eq!(u.input, 12803 - 9602);
        assert_eq!(u.cache_read, 9602);
        assert_eq!(u.output, 106);
        assert_eq!(u.reasoning, 26);
        assert_eq!(u.total(), 12909);
        assert!(usage(&json!({"tokens": null})).is_none());
    }

    #[test]
    fn slash_commands_are_not_prompts() {
        let cx = Context::default();
        assert_eq!(classify_user("/compress", &cx).0, EventKind::Meta);
        assert_eq!(classify_user("/home/dev is full", &cx).0, EventKind::User);
        assert_eq!(classify_user("/usr is full", &cx).0, EventKind::User);
    }
}
