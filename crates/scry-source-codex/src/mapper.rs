//! Maps Codex `ResponseItem`s (the model-visible history, identical in every era: TypeScript
//! documents, bare lines, wrapped `response_item` payloads) and the `event_msg` UI mirrors to
//! scry events.
//!
//! One source per kind (documented choice, SPEC "mirrors not double counted"):
//! - prompts, answers, reasoning, tool calls and outputs come from `response_item`s;
//! - the mirrors (`user_message`, `agent_message`, `agent_reasoning*`, `item_completed`
//!   `UserMessage` / `AgentMessage` / `Reasoning`) are used only in a file whose head has no
//!   `response_item` history at all, and stop being used as soon as one appears;
//! - `exec_command_end`, `patch_apply_end`, `mcp_tool_call_end` and `item_completed`
//!   `CommandExecution` / `FileChange` / `McpToolCall` never make events: they complete the
//!   matching result (exit code, duration, failure) by `call_id`.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::PathBuf;

use scry_model::{Event, EventKind, Locator, RawRef, Surface, Timestamp, Warning, WarningKind};
use scry_source::json::{decode_json_string, str_of};
use scry_source::Emitter;
use serde_json::{json, Value};

use crate::classify::{classify_user, content_text, image_count, output_facts, UserText};
use crate::pending::{Pending, Receipt};

/// Native record ids remembered to keep locators unique; past this many, events get record
/// locators (still stable: which events get which kind depends only on the file's prefix).
const MAX_NATIVE_IDS: usize = 200_000;

/// Where the record being mapped sits in its source.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Rec<'a> {
    /// 1-based line (or item) number.
    pub line: u64,
    /// Byte offset of the record.
    pub offset: u64,
    /// The record's raw bytes.
    pub raw: &'a [u8],
    /// The record's own timestamp, if any.
    pub time: Option<Timestamp>,
}

/// Item-level mapping state shared by every era.
#[derive(Debug)]
pub(crate) struct Mapper {
    path: PathBuf,
    pub(crate) pending: Pending,
    pub(crate) calls: HashMap<String, String>,
    /// Record ids (`{id}#{part}`, as [`scry_source::resume::id_hash`]es) already used by a native locator.
    pub(crate) native_seen: HashSet<u64>,
    pub(crate) unknown: BTreeMap<String, (u64, u64)>,
    /// Model of the current turn (`turn_context.model`, last wins).
    pub model: Option<String>,
    /// True while reading copied parent history (fork / subagent files).
    pub copied: bool,
    /// Whether the `event_msg` mirrors are the source of prompts / answers / reasoning.
    pub use_mirrors: bool,
    /// First working directory named by an environment-context message.
    pub env_cwd: Option<String>,
    /// A `User` event has been produced.
    pub saw_prompt: bool,
    pub(crate) warnings: Vec<Warning>,
    /// Insertion logs for resume state (see [`crate::checkpoint`]), only when wanted.
    pub(crate) native_log: Option<Vec<u64>>,
    /// Open-call changes in order: a call registered (`Some(tool)`) or answered (`None`).
    pub(crate) calls_log: Option<Vec<(String, Option<String>)>>,
}

impl Mapper {
    /// A mapper for the file at `path`.
    pub(crate) fn new(path: PathBuf) -> Self {
        Mapper {
            path,
            pending: Pending::default(),
            calls: HashMap::new(),
            native_seen: HashSet::new(),
            unknown: BTreeMap::new(),
            model: None,
            copied: false,
            use_mirrors: false,
            env_cwd: None,
            saw_prompt: false,
            warnings: Vec::new(),
            native_log: None,
            calls_log: None,
        }
    }

    /// A new event located at `rec` (native locator when `id` is a fresh record id).
    pub(crate) fn event(
        &mut self,
        rec: &Rec<'_>,
        kind: EventKind,
        text: impl Into<String>,
        id: Option<&str>,
        part: usize,
    ) -> Event {
        if kind == EventKind::User {
            self.saw_prompt = true;
        }
        let part_opt = (part > 0).then_some(part);
        let mut fresh = |i: &str| {
            let h = scry_source::resume::id_hash(&format!("{i}#{part}"));
            let new = self.native_seen.len() < MAX_NATIVE_IDS && self.native_seen.insert(h);
            if new {
                if let Some(log) = self.native_log.as_mut() {
                    log.push(h);
                }
            }
            new
        };
        let locator = match id.filter(|i| !i.is_empty()) {
            Some(i) if fresh(i) => Locator::native(i, part_opt),
            _ => Locator::record(rec.line, rec.raw, part_opt),
        };
        let mut ev = Event::new(kind, text, locator).at(rec.time);
        ev.raw = RawRef {
            file: 0,
            offset: rec.offset,
            len: rec.raw.len() as u64,
            line: rec.line,
        };
        ev.model = self.model.clone();
        if self.copied {
            ev.data = Some(json!({"copied": true}));
        }
        ev
    }

    /// Emits a model output through the hold-back buffer.
    pub(crate) fn model_out(&mut self, ev: Event, out: &mut Emitter<'_>) {
        self.pending.model(ev, out);
    }

    /// Emits a non-model event through the hold-back buffer.
    pub(crate) fn input(&mut self, ev: Event, out: &mut Emitter<'_>) {
        self.pending.input(ev, out);
    }

    /// A meta / system event that lives only in the UI log (never model-visible).
    pub(crate) fn log_event(
        &mut self,
        rec: &Rec<'_>,
        kind: EventKind,
        subtype: &str,
        text: impl Into<String>,
        data: Option<Value>,
        out: &mut Emitter<'_>,
    ) {
        let mut ev = self.event(rec, kind, text, None, 0);
        ev.subtype = Some(subtype.to_string());
        ev.surface = Surface::LogOnly;
        merge_data(&mut ev, data);
        self.input(ev, out);
    }

    /// A request's usage: attached to the request's last model output, else carried by a
    /// `token_count` meta event of its own. Copied parent history carries none.
    pub(crate) fn usage(
        &mut self,
        rec: &Rec<'_>,
        usage: scry_model::TokenUsage,
        out: &mut Emitter<'_>,
    ) {
        if self.copied {
            self.pending.flush(out);
            return;
        }
        if let Some(u) = self.pending.usage(usage, out) {
            let mut ev = self.event(rec, EventKind::Meta, "", None, 0);
            ev.subtype = Some("token_count".into());
            ev.surface = Surface::LogOnly;
            ev.usage = Some(u);
            out.emit(ev);
        }
    }

    /// A completion receipt for a call.
    pub(crate) fn receipt(&mut self, call_id: &str, r: Receipt) {
        self.pending.receipt(call_id, r);
    }

    /// Emits everything held back.
    pub(crate) fn flush(&mut self, out: &mut Emitter<'_>) {
        self.pending.flush(out);
    }

    /// Counts a record type this reader does not know.
    pub(crate) fn unknown(&mut self, label: String, line: u64) {
        let e = self.unknown.entry(label).or_insert((0, line));
        e.0 += 1;
    }

    /// Adds a located warning.
    pub(crate) fn warn(&mut self, kind: WarningKind, message: String, line: u64) {
        self.warnings
            .push(Warning::at(kind, message, self.path.clone(), Some(line)));
    }

    /// Flushes and hands over the warnings (unknown types: one per type with count and first line).
    pub(crate) fn finish(&mut self, out: &mut Emitter<'_>) {
        self.pending.flush(out);
        for w in self.warnings.drain(..) {
            out.warn(w);
        }
        for (label, (count, line)) in std::mem::take(&mut self.unknown) {
            out.warn(Warning::at(
                WarningKind::UnknownRecord,
                format!("unknown record type '{label}' ({count}×, first at line {line}); skipped"),
                self.path.clone(),
                Some(line),
            ));
        }
    }

    /// Maps one `ResponseItem`. `line_meta` is the wrapped line's `metadata` (2026).
    pub(crate) fn item(
        &mut self,
        rec: &Rec<'_>,
        p: &Value,
        line_meta: Option<&Value>,
        out: &mut Emitter<'_>,
    ) {
        let kind = str_of(p, "type").unwrap_or("");
        let id = str_of(p, "id");
        match kind {
            "message" => self.message(rec, p, line_meta, out),
            "reasoning" => {
                self.use_mirrors = false;
                let text = reasoning_text(p);
                if !text.is_empty() {
                    let ev = self.event(rec, EventKind::Thinking, text, id, 0);
                    self.model_out(ev, out);
                }
            }
            "function_call"
            | "custom_tool_call"
            | "local_shell_call"
            | "tool_search_call"
            | "web_search_call"
            | "image_generation_call" => {
                self.use_mirrors = false;
                self.call(rec, kind, p, out);
            }
            "function_call_output"
            | "custom_tool_call_output"
            | "local_shell_call_output"
            | "tool_search_output"
            | "mcp_tool_call_output" => self.output(rec, kind, p, out),
            "agent_message" => {
                let text = content_text(p.get("content"));
                let mut ev = if text.starts_with("Message Type: NEW_TASK") {
                    let mut ev = self.event(rec, EventKind::User, text, id, 0);
                    ev.subtype = Some("agent_task".into());
                    ev
                } else {
                    let mut ev = self.event(rec, EventKind::Meta, text, id, 0);
                    ev.subtype = Some("inter_agent_message".into());
                    ev
                };
                let extra = json!({"author": p.get("author"), "recipient": p.get("recipient")});
                merge_data(&mut ev, Some(extra));
                self.input(ev, out);
            }
            "ghost_snapshot" => {
                let data = p
                    .get("ghost_commit")
                    .cloned()
                    .map(|g| json!({"ghost_commit": g}));
                self.log_event(rec, EventKind::Meta, "ghost_snapshot", "", data, out);
            }
            "compaction" | "compaction_summary" | "context_compaction" => {
                let mut ev = self.event(rec, EventKind::Meta, "", id, 0);
                ev.subtype = Some("compaction_item".into());
                self.input(ev, out);
            }
            "other" => {}
            other => self.unknown(format!("response_item:{other}"), rec.line),
        }
    }

    fn message(
        &mut self,
        rec: &Rec<'_>,
        p: &Value,
        line_meta: Option<&Value>,
        out: &mut Emitter<'_>,
    ) {
        let id = str_of(p, "id");
        let text = content_text(p.get("content"));
        let images = image_count(p.get("content"));
        match str_of(p, "role").unwrap_or("") {
            "assistant" => {
                self.use_mirrors = false;
                if id.is_some_and(|i| i.starts_with("compact-")) {
                    let mut ev = self.event(rec, EventKind::Compaction, text, id, 0);
                    ev.subtype = Some("compact_summary".into());
                    self.input(ev, out);
                    return;
                }
                let compaction_output = line_meta
                    .and_then(|m| m.get("compaction_output"))
                    .and_then(Value::as_bool)
                    .unwrap_or(false);
                if text.is_empty() && images == 0 {
                    return;
                }
                let mut ev = if compaction_output {
                    let mut ev = self.event(rec, EventKind::Meta, text, id, 0);
                    ev.subtype = Some("compaction_output".into());
                    ev
                } else {
                    self.event(rec, EventKind::Assistant, text, id, 0)
                };
                if let Some(phase) = str_of(p, "phase") {
                    merge_data(&mut ev, Some(json!({ "phase": phase })));
                }
                self.model_out(ev, out);
            }
            "user" => {
                self.use_mirrors = false;
                self.user_text(rec, text, images, id, out);
            }
            role => {
                let mut ev = self.event(rec, EventKind::Meta, text.clone(), id, 0);
                ev.subtype = Some(match classify_user(&text) {
                    UserText::Injected(s) => s.to_string(),
                    _ if role == "developer" => "developer_instructions".to_string(),
                    _ => format!("{}_message", if role.is_empty() { "unknown" } else { role }),
                });
                self.input(ev, out);
            }
        }
    }

    /// A user-side text (response item or mirror): a prompt, or injected context.
    pub(crate) fn user_text(
        &mut self,
        rec: &Rec<'_>,
        text: String,
        images: usize,
        id: Option<&str>,
        out: &mut Emitter<'_>,
    ) {
        match classify_user(&text) {
            UserText::Prompt(t) => {
                if t.trim().is_empty() && images == 0 {
                    return;
                }
                let mut ev = self.event(rec, EventKind::User, t, id, 0);
                if images > 0 {
                    ev.data = Some(json!({"images": images}));
                    if self.copied {
                        merge_data(&mut ev, Some(json!({"copied": true})));
                    }
                }
                self.input(ev, out);
            }
            UserText::Injected(subtype) => {
                if subtype == "environment_context" && self.env_cwd.is_none() {
                    self.env_cwd = env_cwd(&text);
                }
                let mut ev = self.event(rec, EventKind::Meta, text, id, 0);
                ev.subtype = Some(subtype.to_string());
                self.input(ev, out);
            }
            UserText::Wrapped { context, request } => {
                let mut ev = self.event(rec, EventKind::Meta, context, id, 0);
                ev.subtype = Some("injected_context".into());
                self.input(ev, out);
                let ev = self.event(rec, EventKind::User, request, id, 1);
                self.input(ev, out);
            }
        }
    }

    fn call(&mut self, rec: &Rec<'_>, kind: &str, p: &Value, out: &mut Emitter<'_>) {
        let id = str_of(p, "id");
        let call_id = str_of(p, "call_id").map(str::to_string);
        let (tool, args): (String, Option<Value>) = match kind {
            "function_call" => (
                str_of(p, "name")
                    .or_else(|| p.get("function").and_then(|f| str_of(f, "name")))
                    .unwrap_or("function")
                    .to_string(),
                p.get("arguments")
                    .filter(|a| !a.is_null())
                    .map(decode_json_string),
            ),
            "custom_tool_call" => (
                str_of(p, "name").unwrap_or("custom_tool").to_string(),
                p.get("input").cloned(),
            ),
            "local_shell_call" => ("local_shell".to_string(), p.get("action").cloned()),
            "tool_search_call" => ("tool_search".to_string(), p.get("arguments").cloned()),
            "web_search_call" => ("web_search".to_string(), p.get("action").cloned()),
            _ => (
                "image_generation".to_string(),
                Some(json!({"revised_prompt": p.get("revised_prompt")})),
            ),
        };
        let mut ev = self.event(rec, EventKind::ToolCall, "", id, 0);
        ev.tool = Some(tool.clone());
        ev.args = args;
        let mut extra = serde_json::Map::new();
        if let Some(ns) = str_of(p, "namespace") {
            extra.insert("namespace".into(), Value::String(ns.to_string()));
        }
        if let Some(st) = str_of(p, "status") {
            extra.insert("status".into(), Value::String(st.to_string()));
        }
        if !extra.is_empty() {
            merge_data(&mut ev, Some(Value::Object(extra)));
        }
        if let Some(cid) = &call_id {
            if let Some(log) = self.calls_log.as_mut() {
                log.push((cid.clone(), Some(tool.clone())));
            }
            self.calls.insert(cid.clone(), tool);
            ev.call_id = Some(cid.clone());
        }
        self.model_out(ev, out);
    }

    fn output(&mut self, rec: &Rec<'_>, kind: &str, p: &Value, out: &mut Emitter<'_>) {
        let id = str_of(p, "id");
        let facts = if kind == "tool_search_output" {
            crate::classify::OutputFacts {
                text: p.get("tools").map(Value::to_string).unwrap_or_default(),
                ..Default::default()
            }
        } else {
            output_facts(p.get("output"))
        };
        let call_id = str_of(p, "call_id").map(str::to_string);
        let mut ev = self.event(rec, EventKind::ToolResult, facts.text, id, 0);
        ev.exit_code = facts.exit_code;
        ev.duration_ms = facts.duration_ms;
        ev.is_error = match (facts.exit_code, facts.success) {
            (Some(c), _) => Some(c != 0),
            (None, Some(s)) => Some(!s),
            (None, None) => None,
        };
        // A call is forgotten once answered, so the map holds only open calls.
        ev.tool = call_id.as_ref().and_then(|c| self.calls.remove(c));
        if let (Some(c), Some(log)) = (&call_id, self.calls_log.as_mut()) {
            if ev.tool.is_some() {
                log.push((c.clone(), None));
            }
        }
        if ev.tool.is_none() {
            merge_data(&mut ev, Some(json!({"unconfirmed": true})));
            self.warn(
                WarningKind::UnpairedResult,
                format!(
                    "{kind} with call_id '{}' matches no tool call",
                    call_id.as_deref().unwrap_or("")
                ),
                rec.line,
            );
        }
        ev.call_id = call_id;
        self.pending.result(ev, out);
    }
}

/// Adds the keys of `extra` (an object) to an event's `data` object.
pub(crate) fn merge_data(ev: &mut Event, extra: Option<Value>) {
    let Some(Value::Object(extra)) = extra else {
        return;
    };
    match &mut ev.data {
        Some(Value::Object(map)) => map.extend(extra),
        _ => ev.data = Some(Value::Object(extra)),
    }
}

/// Reasoning summary texts (`summary[].text`), else raw `content[].text`; never the
/// encrypted content.
pub(crate) fn reasoning_text(p: &Value) -> String {
    let pick = |key: &str| -> Vec<String> {
        match p.get(key) {
            Some(Value::Array(items)) => items
                .iter()
                .filter_map(|i| match i {
                    Value::String(s) => Some(s.clone()),
                    _ => str_of(i, "text").map(str::to_string),
                })
                .filter(|s| !s.is_empty())
                .collect(),
            _ => Vec::new(),
        }
    };
    let summary = pick("summary");
    if !summary.is_empty() {
        return summary.join("\n\n");
    }
    pick("content").join("\n\n")
}

/// The working directory an environment-context message names: a `<cwd>` tag (2025 →) or a
/// `Current working directory:` line (0.2x).
pub(crate) fn env_cwd(text: &str) -> Option<String> {
    if let Some(start) = text.find("<cwd>") {
        let rest = &text[start + 5..];
        let end = rest.find("</cwd>")?;
        let cwd = rest[..end].trim();
        return (!cwd.is_empty()).then(|| cwd.to_string());
    }
    text.lines()
        .find_map(|l| l.trim().strip_prefix("Current working directory:"))
        .map(|c| c.trim().to_string())
        .filter(|c| !c.is_empty())
}
