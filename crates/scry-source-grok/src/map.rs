//! Mapping `chat_history.jsonl` items and `summary.json` to scry events and header.
//!
//! Items (`type`): `system{content}` → Meta `system_prompt`; `user{content, prompt_index?,
//! synthetic_reason?}` → User when it is a real prompt (has `prompt_index`, no
//! `synthetic_reason`; the text inside `<user_query>…</user_query>` is the prompt), else Meta
//! with the synthetic reason as subtype; `assistant{content, tool_calls[{id,name,arguments}],
//! model_id}` → Assistant + one ToolCall per call; `reasoning{summary[{text}]}` → Thinking;
//! `tool_result{tool_call_id, content}` → ToolResult paired by id; `backend_tool_call{kind:{tool_type,
//! action, id, status}}` (server-side web search) → ToolCall + ToolResult.
//!
//! Times, tool outcomes and usage come from the side files ([`crate::side`]) and are marked
//! `time_source: derived`. The turn's usage (events.jsonl `turn_completed`) goes on the last
//! assistant event of that turn, so events of a turn are held until the next prompt.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use scry_model::{
    Event, EventKind, Header, Lineage, LineageKind, Locator, ProviderId, RawRef, SessionKind,
    TimeSource, Timestamp, TitleSource, Warning, WarningKind,
};
use scry_source::json::{as_u64, decode_json_string, str_of, text_of};
use scry_source::jsonl::Record;
use scry_source::{Emitter, SourceFile};
use serde_json::{json, Value};

use crate::side::SideIndex;

/// Pulls the text of every `<user_query>…</user_query>` block (joined by a blank line); the
/// text outside the blocks (if any) is returned as context.
pub fn split_user_query(text: &str) -> (String, Option<String>) {
    const OPEN: &str = "<user_query>";
    const CLOSE: &str = "</user_query>";
    let mut queries = Vec::new();
    let mut outside = String::new();
    let mut rest = text;
    while let Some(a) = rest.find(OPEN) {
        let Some(after) = rest.get(a + OPEN.len()..) else {
            break;
        };
        let Some(b) = after.find(CLOSE) else { break };
        outside.push_str(rest.get(..a).unwrap_or("").trim());
        queries.push(after.get(..b).unwrap_or("").trim().to_string());
        rest = after.get(b + CLOSE.len()..).unwrap_or("");
    }
    if queries.is_empty() {
        return (text.to_string(), None);
    }
    outside.push_str(rest.trim());
    let context = (!outside.trim().is_empty()).then_some(outside);
    (queries.join("\n\n"), context)
}

fn set_data(ev: &mut Event, key: &str, value: Value) {
    ev.set_data(key, value);
}

fn derived(mut ev: Event, t: Option<Timestamp>) -> Event {
    if t.is_some() {
        ev.time = t;
        ev.time_source = TimeSource::Derived;
    }
    ev
}

/// Turns chat_history items into events.
pub struct Mapper<'p> {
    path: &'p Path,
    side: SideIndex,
    calls: HashMap<String, String>,
    held: Vec<Event>,
    in_turn: bool,
    turn_prompt: Option<u64>,
    turns: usize,
    unknown: BTreeMap<String, (u64, u64)>,
}

impl<'p> Mapper<'p> {
    /// A mapper for `path` with the side-file index.
    pub fn new(path: &'p Path, side: SideIndex) -> Self {
        Mapper {
            path,
            side,
            calls: HashMap::new(),
            held: Vec::new(),
            in_turn: false,
            turn_prompt: None,
            turns: 0,
            unknown: BTreeMap::new(),
        }
    }

    fn push(&mut self, ev: Event, out: &mut Emitter<'_>) {
        if self.in_turn {
            self.held.push(ev);
        } else {
            out.emit(ev);
        }
    }

    /// Emits the held turn, with its usage on the last assistant event.
    fn flush_turn(&mut self, out: &mut Emitter<'_>) {
        let mut held = std::mem::take(&mut self.held);
        if self.in_turn && self.turns > 0 {
            if let Some(tu) = self.side.usage_for(self.turn_prompt, self.turns - 1) {
                let target = held
                    .iter()
                    .rposition(|e| e.kind == EventKind::Assistant)
                    .or_else(|| {
                        held.iter().rposition(|e| {
                            matches!(e.kind, EventKind::Thinking | EventKind::ToolCall)
                        })
                    })
                    .or_else(|| held.len().checked_sub(1));
                if let Some(ev) = target.and_then(|i| held.get_mut(i)) {
                    ev.usage = Some(tu.usage);
                    set_data(ev, "turnUsage", tu.raw.clone());
                }
            }
        }
        for ev in held {
            out.emit(ev);
        }
    }

    /// Handles one chat_history item.
    pub fn record(&mut self, r: Record<'_>, out: &mut Emitter<'_>) {
        let v = &r.value;
        let raw = RawRef {
            file: 0,
            offset: r.offset,
            len: r.raw.len() as u64,
            line: r.line,
        };
        let loc = |part: Option<usize>| Locator::record(r.line, r.raw, part);
        let new = |kind: EventKind, text: String, locator: Locator| {
            let mut e = Event::new(kind, text, locator);
            e.raw = raw;
            e
        };
        let ty = str_of(v, "type").unwrap_or("");
        match ty {
            "system" => {
                let mut ev = new(
                    EventKind::Meta,
                    v.get("content").map(text_of).unwrap_or_default(),
                    loc(None),
                );
                ev.subtype = Some("system_prompt".into());
                self.push(ev, out);
            }
            "user" => self.user(v, new(EventKind::User, String::new(), loc(None)), out),
            "assistant" => {
                let model = str_of(v, "model_id").map(str::to_string);
                let text = v.get("content").map(text_of).unwrap_or_default();
                let calls = match v.get("tool_calls") {
                    Some(Value::Array(c)) => c.clone(),
                    _ => Vec::new(),
                };
                if !text.is_empty() || calls.is_empty() {
                    let t = SideIndex::take(&mut self.side.agent_text, &text);
                    let mut ev = derived(new(EventKind::Assistant, text, loc(Some(0))), t);
                    ev.model = model.clone();
                    if ev.text.is_empty() {
                        ev.subtype = Some("empty_response".into());
                    }
                    self.push(ev, out);
                }
                for (i, c) in calls.iter().enumerate() {
                    let id = str_of(c, "id").unwrap_or("").to_string();
                    let name = str_of(c, "name").unwrap_or("").to_string();
                    let locator = if id.is_empty() {
                        loc(Some(i + 1))
                    } else {
                        Locator::native(&id, None)
                    };
                    let started = self.side.tools.get(&id).and_then(|t| t.started);
                    let mut ev = derived(new(EventKind::ToolCall, String::new(), locator), started);
                    ev.tool = Some(name.clone());
                    ev.args = c.get("arguments").map(decode_json_string);
                    ev.model = model.clone();
                    if !id.is_empty() {
                        ev.call_id = Some(id.clone());
                        self.calls.insert(id, name);
                    }
                    self.push(ev, out);
                }
            }
            "reasoning" => {
                let text = match v.get("summary") {
                    Some(Value::Array(items)) => items
                        .iter()
                        .filter_map(|s| str_of(s, "text"))
                        .collect::<Vec<_>>()
                        .join("\n\n"),
                    Some(other) => text_of(other),
                    None => String::new(),
                };
                let locator = match str_of(v, "id") {
                    Some(id) if !id.is_empty() => Locator::native(id, None),
                    _ => loc(None),
                };
                let t = SideIndex::take(&mut self.side.thought_text, &text);
                let mut ev = derived(new(EventKind::Thinking, text, locator), t);
                if v.get("encrypted_content").is_some_and(|e| !e.is_null()) {
                    set_data(&mut ev, "encrypted", json!(true));
                }
                self.push(ev, out);
            }
            "tool_result" => {
                let id = str_of(v, "tool_call_id").unwrap_or("").to_string();
                let text = v.get("content").map(text_of).unwrap_or_default();
                let ev = new(EventKind::ToolResult, text, loc(None));
                self.result(ev, &id, out);
            }
            "backend_tool_call" => {
                let null = Value::Null;
                let kind = v.get("kind").unwrap_or(&null);
                let tool = str_of(kind, "tool_type")
                    .unwrap_or("backend_tool")
                    .to_string();
                let id = str_of(kind, "id").unwrap_or("").to_string();
                let status = str_of(kind, "status").map(str::to_string);
                let mut call = new(EventKind::ToolCall, String::new(), loc(Some(0)));
                call.tool = Some(tool.clone());
                call.call_id = Some(id.clone()).filter(|c| !c.is_empty());
                call.args = kind.get("action").cloned();
                call.subtype = Some("backend".into());
                self.push(call, out);
                let mut urls = Vec::new();
                if let Some(Value::Array(src)) =
                    scry_source::json::path(kind, &["action", "sources"])
                {
                    urls.extend(
                        src.iter()
                            .filter_map(|s| str_of(s, "url"))
                            .map(str::to_string),
                    );
                }
                let text = if urls.is_empty() {
                    status.clone().unwrap_or_default()
                } else {
                    urls.join("\n")
                };
                let mut res = new(EventKind::ToolResult, text, loc(Some(1)));
                res.tool = Some(tool);
                res.call_id = Some(id).filter(|c| !c.is_empty());
                res.subtype = Some("backend".into());
                if let Some(s) = &status {
                    res.is_error = Some(matches!(s.as_str(), "failed" | "error" | "incomplete"));
                    set_data(&mut res, "status", json!(s));
                }
                self.push(res, out);
            }
            _ => {
                let e = self.unknown.entry(ty.to_string()).or_insert((0, r.line));
                e.0 += 1;
            }
        }
    }

    fn user(&mut self, v: &Value, mut ev: Event, out: &mut Emitter<'_>) {
        let mut texts = Vec::new();
        let mut images = 0u64;
        match v.get("content") {
            Some(Value::Array(blocks)) => {
                for b in blocks {
                    match str_of(b, "type") {
                        Some("image") | Some("image_url") => images += 1,
                        _ => {
                            if let Some(t) = str_of(b, "text") {
                                texts.push(t.to_string());
                            }
                        }
                    }
                }
            }
            Some(other) => texts.push(text_of(other)),
            None => {}
        }
        let text = texts.join("\n");
        let synthetic = str_of(v, "synthetic_reason").map(str::to_string);
        let prompt = v.get("prompt_index").and_then(as_u64);
        let human =
            synthetic.is_none() && (prompt.is_some() || !text.trim_start().starts_with('<'));
        if images > 0 {
            set_data(&mut ev, "images", json!(images));
        }
        if let Some(i) = v.get("prior_turn_interrupt").filter(|x| !x.is_null()) {
            set_data(&mut ev, "priorTurnInterrupt", i.clone());
        }
        if !human {
            ev.kind = EventKind::Meta;
            ev.subtype = Some(synthetic.unwrap_or_else(|| "user_context".into()));
            ev.text = text;
            self.push(ev, out);
            return;
        }
        let (prompt_text, context) = split_user_query(&text);
        if let Some(c) = context {
            set_data(&mut ev, "context", json!(c));
        }
        if let Some(p) = prompt {
            set_data(&mut ev, "promptIndex", json!(p));
        }
        let t = prompt
            .and_then(|p| self.side.prompt_times.get(&p).copied())
            .or_else(|| SideIndex::take(&mut self.side.user_text, &prompt_text))
            .or_else(|| SideIndex::take(&mut self.side.user_text, &text));
        ev.text = prompt_text;
        let ev = derived(ev, t);
        self.flush_turn(out);
        self.in_turn = true;
        self.turns += 1;
        self.turn_prompt = prompt;
        self.push(ev, out);
    }

    fn result(&mut self, mut ev: Event, id: &str, out: &mut Emitter<'_>) {
        ev.call_id = Some(id.to_string()).filter(|c| !c.is_empty());
        match self.calls.get(id) {
            Some(name) => ev.tool = Some(name.clone()),
            None => {
                set_data(&mut ev, "unconfirmed", json!(true));
                out.warn(Warning::at(
                    WarningKind::UnpairedResult,
                    format!("tool result for call id '{id}' matches no tool call"),
                    self.path,
                    Some(ev.raw.line),
                ));
            }
        }
        if let Some(t) = self.side.tools.get(id) {
            ev = derived(ev, t.completed);
            ev.duration_ms = t.duration_ms;
            ev.is_error = t.is_error;
            if let Some(o) = &t.outcome {
                set_data(&mut ev, "outcome", json!(o));
            }
        }
        self.push(ev, out);
    }

    /// Ends the stream: emits the held turn and reports unknown item types.
    pub fn finish(mut self, out: &mut Emitter<'_>) {
        self.flush_turn(out);
        for (ty, (count, line)) in &self.unknown {
            out.warn(Warning::at(
                WarningKind::UnknownRecord,
                format!("unknown chat_history item type '{ty}' ({count} item(s)); skipped"),
                self.path,
                Some(*line),
            ));
        }
    }
}

/// The header from `summary.json` (if any) and what discovery knew.
pub fn header(
    file: &SourceFile,
    summary: Option<&Value>,
    sources: Vec<std::path::PathBuf>,
) -> Header {
    let null = Value::Null;
    let s = summary.unwrap_or(&null);
    let id = scry_source::json::path(s, &["info", "id"])
        .and_then(Value::as_str)
        .filter(|i| !i.is_empty())
        .unwrap_or(&file.id);
    let mut h = Header::new(ProviderId::Grok, id);
    h.sources = sources;
    h.cwd = scry_source::json::path(s, &["info", "cwd"])
        .and_then(Value::as_str)
        .map(str::to_string)
        .or_else(|| file.cwd_hint.clone());
    let summary_title = str_of(s, "session_summary").filter(|t| !t.trim().is_empty());
    let generated = str_of(s, "generated_title").filter(|t| !t.trim().is_empty());
    for t in [summary_title, generated].into_iter().flatten() {
        if !h.titles.iter().any(|x| x == t) {
            h.titles.push(t.to_string());
        }
    }
    if let Some(t) = generated {
        h.title = Some(t.to_string());
        h.title_source = Some(TitleSource::Generated);
    } else if let Some(t) = summary_title {
        h.title = Some(t.to_string());
        h.title_source = Some(TitleSource::Summary);
    }
    for key in ["created_at", "updated_at", "last_active_at"] {
        if let Some(t) = s.get(key).and_then(scry_source::time::from_value) {
            h.touch(t);
        }
    }
    if let Some(m) = str_of(s, "current_model_id") {
        h.add_model(m);
    }
    h.git_branch = str_of(s, "head_branch").map(str::to_string);
    h.git_commit = str_of(s, "head_commit").map(str::to_string);
    h.agent_name = str_of(s, "agent_name").map(str::to_string);
    h.agent_version = str_of(s, "version")
        .or_else(|| str_of(s, "cli_version"))
        .map(str::to_string);
    let parent_field = str_of(s, "parent_session_id").filter(|p| !p.is_empty());
    let is_sub = str_of(s, "session_kind") == Some("subagent")
        || file.kind == SessionKind::Subagent
        || parent_field.is_some();
    if is_sub {
        h.kind = SessionKind::Subagent;
        let (parent, evidence) = match (parent_field, &file.parent) {
            (Some(p), _) => (Some(p.to_string()), "summary.parent_session_id"),
            (None, Some(p)) => (Some(p.clone()), "path: <parent>/subagents/<id>/"),
            (None, None) => (None, ""),
        };
        if let Some(p) = parent {
            h.parent = Some(p.clone());
            h.lineage.push(Lineage {
                kind: LineageKind::SubagentOf,
                target: p,
                evidence: evidence.to_string(),
            });
        }
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn user_query_wrapper() {
        assert_eq!(
            split_user_query("<user_query>\nfix it\n</user_query>"),
            ("fix it".to_string(), None)
        );
        let (p, c) = split_user_query("<attached>x</attached>\n<user_query>go</user_query>");
        assert_eq!(p, "go");
        assert_eq!(c.as_deref(), Some("<attached>x</attached>"));
        assert_eq!(split_user_query("plain").0, "plain");
        assert_eq!(
            split_user_query("<user_query>a</user_query> mid <user_query>b</user_query>"),
            ("a\n\nb".to_string(), Some("mid".to_string()))
        );
    }
}
