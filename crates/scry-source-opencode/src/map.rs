//! Mapping of OpenCode messages and their parts to scry events, shared by both stores (the
//! SQLite `message` / `part` rows and the legacy `storage/` JSON files hand the same JSON shapes).
//!
//! One message (with its parts, in order) is mapped at a time; that is all that is buffered.
//!
//! | part `type` | role | event |
//! |---|---|---|
//! | `text` | user | `User` (all non-synthetic text parts of one message joined into one prompt) |
//! | `text` with `synthetic: true` | any | `Meta` `synthetic_text` |
//! | `text` | assistant, `summary: true` message | `Compaction` `compaction_summary` |
//! | `text` | assistant | `Assistant` |
//! | `reasoning` | any | `Thinking` (empty text skipped) |
//! | `tool` | any | `ToolCall` + `ToolResult` (no result while `pending` / `running`; `metadata.exit` is the exit code, and a non-zero one makes a `completed` result an error) |
//! | `step-start` | any | no event: opens a step (usage of the step goes to its last model output) |
//! | `step-finish` | any | usage on the step's last model-output event, else a log-only `Meta` `step_finish` |
//! | `compaction` | any | `Compaction` `compaction_request` (`data`: `auto`, `overflow`) |
//! | `subtask` | any | `Meta` `subtask` (prompt, description, agent) |
//! | `agent` | any | `Meta` `agent` |
//! | `file` | any | `Meta` `file` (filename / url) |
//! | `patch` | any | log-only `Meta` `patch` (files, snapshot hash) |
//! | `retry` | any | `System` `retry` |
//! | `snapshot` | any | no event (an internal snapshot hash; counted only) |
//! | anything else | any | one `UnknownRecord` warning per type with count and first location |
//!
//! Events at and after the session's revert point (`session.revert`, set by `/undo` until the
//! next prompt deletes them) are `shadowed`: no longer in the model's context.
//!
//! An assistant message's `error` becomes a `System` `error` event after its parts. A message
//! without `step-finish` parts but with non-zero `tokens` gets that usage once.
//!
//! Token semantics (checked against OpenCode 1.18.33's real database, where every step's
//! `total == input + output + reasoning + cache.read + cache.write`, and its `getUsage`, which
//! subtracts cache reads and writes from the provider's input and bills reasoning at the output
//! rate on top of `output`): `input` excludes cache reads and writes, `reasoning` is separate
//! from `output`. Normalized: `input`, `cache_read`, `cache_write` as stored, `reasoning` as
//! stored, `output = output + reasoning` (scry's `output` includes billed reasoning).

use std::collections::BTreeMap;
use std::path::PathBuf;

use scry_model::{Event, EventKind, Locator, RawRef, Surface, TokenUsage, Warning, WarningKind};
use scry_source::json::{as_u64, decode_json_string, path, str_of};
use scry_source::time::from_epoch_guess;
use scry_source::Emitter;
use serde_json::{json, Map, Value};

/// One part as read from either store.
#[derive(Debug)]
pub(crate) struct PartRec {
    /// The part id (row id, `id` field or file stem).
    pub id: String,
    /// Row creation time in epoch ms, when the store has one.
    pub created_ms: Option<i64>,
    /// The part's JSON.
    pub data: Value,
    /// Where it came from.
    pub raw: RawRef,
    /// Human-readable location for warnings (file path, or db path + row).
    pub place: Place,
}

/// One message with its parts, in part order.
#[derive(Debug)]
pub(crate) struct MessageRec {
    /// The message id.
    pub id: String,
    /// Row creation time in epoch ms, when the store has one.
    pub created_ms: Option<i64>,
    /// The message's JSON; `None` when it could not be decoded (already warned about).
    pub data: Option<Value>,
    /// Where it came from.
    pub raw: RawRef,
    /// Location for warnings.
    pub place: Place,
    /// Parts in order.
    pub parts: Vec<PartRec>,
}

/// A location for warnings: a file and an optional record number.
#[derive(Debug, Clone)]
pub(crate) struct Place {
    /// The file (JSON file or database).
    pub file: PathBuf,
    /// Row id / record number, when there is one.
    pub line: Option<u64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    User,
    Assistant,
    Unknown,
}

/// Maps messages to events and remembers what it saw across a session.
#[derive(Debug, Default)]
pub(crate) struct Mapper {
    unknown: BTreeMap<String, (u64, Place)>,
    /// Part types seen that deliberately produce no event, with counts.
    pub silent: BTreeMap<&'static str, u64>,
    /// First agent name seen on a message (`agent` / `mode`).
    pub agent: Option<String>,
    /// Child sessions linked from `task` tool calls.
    pub children: Vec<String>,
    /// The session's revert point (`session.revert`: message id, optional part id).
    revert: Option<(String, Option<String>)>,
    /// True once the revert point has been passed: later events are shadowed.
    reverting: bool,
}

impl Mapper {
    /// A mapper for a session whose revert point (if any) is `revert`.
    pub fn new(revert: Option<(String, Option<String>)>) -> Self {
        Mapper {
            revert,
            ..Mapper::default()
        }
    }

    /// Maps one message and emits its events.
    pub fn message(&mut self, msg: MessageRec, out: &mut Emitter<'_>) {
        let data = msg.data.as_ref();
        let role = match data.and_then(|d| str_of(d, "role")) {
            Some("user") => Role::User,
            Some("assistant") => Role::Assistant,
            _ => Role::Unknown,
        };
        if self.agent.is_none() {
            if let Some(a) = data.and_then(|d| str_of(d, "agent").or_else(|| str_of(d, "mode"))) {
                if !a.is_empty() {
                    self.agent = Some(a.to_string());
                }
            }
        }
        let msg_time = data
            .and_then(|d| path(d, &["time", "created"]))
            .and_then(ms_of)
            .or(msg.created_ms);
        let model = data.and_then(model_of);
        let summary = data.and_then(|d| d.get("summary")).and_then(Value::as_bool) == Some(true);

        let mut ctx = MsgCtx {
            role,
            summary,
            model,
            msg_time,
            events: Vec::new(),
            step_start: 0,
            had_step_finish: false,
            prompt: None,
        };
        if let Some((rm, None)) = &self.revert {
            if *rm == msg.id {
                self.reverting = true;
            }
        }
        for part in &msg.parts {
            if let Some((rm, Some(rp))) = &self.revert {
                if *rm == msg.id && *rp == part.id {
                    self.reverting = true;
                }
            }
            let before = ctx.events.len();
            self.part(&mut ctx, part);
            if self.reverting {
                shadow(&mut ctx.events[before..]);
            }
        }
        let before = ctx.events.len();

        if let Some(d) = data {
            if let Some(err) = d.get("error").filter(|e| !e.is_null()) {
                let text = error_text(err);
                let mut e = Event::new(EventKind::System, text, Locator::native(&msg.id, Some(0)))
                    .at(msg_time.and_then(ts));
                e.subtype = Some("error".into());
                e.model = ctx.model.clone();
                e.raw = msg.raw;
                e.data = str_of(err, "name").map(|n| json!({ "name": n }));
                ctx.events.push(e);
            }
            if !ctx.had_step_finish {
                if let Some(u) = d.get("tokens").and_then(usage_of) {
                    let loc = Locator::native(&msg.id, Some(1));
                    ctx.attach_usage(u, 0, loc, msg.raw, msg_time);
                }
            }
        }

        if role == Role::User && msg.parts.is_empty() {
            // A human turn whose parts are gone: keep the turn, say what is missing.
            let mut e = Event::new(EventKind::User, "", Locator::native(&msg.id, None))
                .at(msg_time.and_then(ts));
            e.raw = msg.raw;
            e.data = Some(json!({ "no_parts": true }));
            ctx.events.push(e);
            out.warn(Warning::at(
                WarningKind::MissingSideFile,
                format!(
                    "user message {} has no parts: its prompt text is not stored",
                    msg.id
                ),
                msg.place.file.clone(),
                msg.place.line,
            ));
        }

        if self.reverting {
            shadow(&mut ctx.events[before..]);
        }

        // The prompt opens the turn: it goes first among the message's events.
        if let Some(i) = ctx.prompt {
            if i > 0 && i < ctx.events.len() {
                let e = ctx.events.remove(i);
                ctx.events.insert(0, e);
            }
        }
        for e in ctx.events {
            out.emit(e);
        }
    }

    fn part(&mut self, ctx: &mut MsgCtx, part: &PartRec) {
        let d = &part.data;
        let kind = str_of(d, "type").unwrap_or("");
        let time = path(d, &["time", "start"])
            .and_then(ms_of)
            .or(part.created_ms)
            .or(ctx.msg_time);
        let base = |k: EventKind, text: String, sub: Option<usize>| {
            let mut e = Event::new(k, text, Locator::native(&part.id, sub)).at(time.and_then(ts));
            e.raw = part.raw;
            e
        };
        match kind {
            "text" => {
                let text = str_of(d, "text").unwrap_or("").to_string();
                let synthetic = d.get("synthetic").and_then(Value::as_bool) == Some(true);
                if synthetic {
                    let mut e = base(EventKind::Meta, text, None);
                    e.subtype = Some("synthetic_text".into());
                    e.data = d.get("metadata").cloned().map(|m| json!({ "metadata": m }));
                    ctx.events.push(e);
                } else if ctx.role == Role::User {
                    match ctx.prompt.and_then(|i| ctx.events.get_mut(i)) {
                        Some(prev) => {
                            prev.text.push_str("\n\n");
                            prev.text.push_str(&text);
                            let parts = prev
                                .data
                                .get_or_insert_with(|| json!({ "parts": [] }))
                                .as_object_mut()
                                .and_then(|o| o.get_mut("parts"))
                                .and_then(Value::as_array_mut);
                            if let Some(parts) = parts {
                                parts.push(Value::String(part.id.clone()));
                            }
                        }
                        None => {
                            ctx.prompt = Some(ctx.events.len());
                            ctx.events.push(base(EventKind::User, text, None));
                        }
                    }
                } else if text.is_empty() {
                    *self.silent.entry("empty_text").or_default() += 1;
                } else if ctx.summary {
                    let mut e = base(EventKind::Compaction, text, None);
                    e.subtype = Some("compaction_summary".into());
                    e.model = ctx.model.clone();
                    ctx.events.push(e);
                } else if ctx.role == Role::Unknown {
                    let mut e = base(EventKind::Meta, text, None);
                    e.subtype = Some("text_unknown_role".into());
                    ctx.events.push(e);
                } else {
                    let mut e = base(EventKind::Assistant, text, None);
                    e.model = ctx.model.clone();
                    ctx.events.push(e);
                }
            }
            "reasoning" => {
                let text = str_of(d, "text").unwrap_or("");
                if text.is_empty() {
                    *self.silent.entry("empty_reasoning").or_default() += 1;
                } else {
                    let mut e = base(EventKind::Thinking, text.to_string(), None);
                    e.model = ctx.model.clone();
                    ctx.events.push(e);
                }
            }
            "tool" => self.tool(ctx, part, time),
            "step-start" => {
                ctx.step_start = ctx.events.len();
                *self.silent.entry("step-start").or_default() += 1;
            }
            "step-finish" => {
                ctx.had_step_finish = true;
                if let Some(u) = d.get("tokens").and_then(usage_of) {
                    let from = ctx.step_start;
                    let loc = Locator::native(&part.id, None);
                    ctx.attach_usage(u, from, loc, part.raw, time);
                }
                ctx.step_start = ctx.events.len();
            }
            "compaction" => {
                let mut e = base(EventKind::Compaction, String::new(), None);
                e.subtype = Some("compaction_request".into());
                let mut m = Map::new();
                for k in ["auto", "overflow"] {
                    if let Some(v) = d.get(k) {
                        m.insert(k.into(), v.clone());
                    }
                }
                e.data = Some(Value::Object(m));
                ctx.events.push(e);
            }
            "subtask" => {
                let mut e = base(
                    EventKind::Meta,
                    str_of(d, "prompt").unwrap_or("").to_string(),
                    None,
                );
                e.subtype = Some("subtask".into());
                e.data = Some(pick(d, &["description", "agent", "command", "model"]));
                ctx.events.push(e);
            }
            "agent" => {
                let mut e = base(
                    EventKind::Meta,
                    str_of(d, "name").unwrap_or("").to_string(),
                    None,
                );
                e.subtype = Some("agent".into());
                ctx.events.push(e);
            }
            "file" => {
                let name = str_of(d, "filename")
                    .or_else(|| str_of(d, "url"))
                    .unwrap_or("");
                let mut e = base(EventKind::Meta, name.to_string(), None);
                e.subtype = Some("file".into());
                e.data = Some(pick(d, &["filename", "mime", "url"]));
                ctx.events.push(e);
            }
            "patch" => {
                let files: Vec<&str> = d
                    .get("files")
                    .and_then(Value::as_array)
                    .map(|a| a.iter().filter_map(Value::as_str).collect())
                    .unwrap_or_default();
                let mut e = base(EventKind::Meta, files.join("\n"), None);
                e.subtype = Some("patch".into());
                e.surface = Surface::LogOnly;
                e.data = Some(pick(d, &["hash", "files"]));
                ctx.events.push(e);
            }
            "retry" => {
                let text = d.get("error").map(error_text).unwrap_or_default();
                let mut e = base(EventKind::System, text, None);
                e.subtype = Some("retry".into());
                e.data = Some(pick(d, &["attempt"]));
                ctx.events.push(e);
            }
            "snapshot" => *self.silent.entry("snapshot").or_default() += 1,
            other => {
                let name = if other.is_empty() { "(no type)" } else { other };
                let entry = self
                    .unknown
                    .entry(name.to_string())
                    .or_insert_with(|| (0, part.place.clone()));
                entry.0 += 1;
            }
        }
    }

    fn tool(&mut self, ctx: &mut MsgCtx, part: &PartRec, time: Option<i64>) {
        let d = &part.data;
        let tool = str_of(d, "tool").unwrap_or("").to_string();
        let call_id = str_of(d, "callID")
            .map(str::to_string)
            .unwrap_or_else(|| part.id.clone());
        let empty = Value::Null;
        let state = d.get("state").unwrap_or(&empty);
        let status = str_of(state, "status").unwrap_or("");
        let start = path(state, &["time", "start"]).and_then(ms_of).or(time);
        let end = path(state, &["time", "end"]).and_then(ms_of);
        let meta = state.get("metadata").unwrap_or(&empty);
        let child = str_of(meta, "sessionId").map(str::to_string);
        if let Some(c) = &child {
            if !self.children.contains(c) {
                self.children.push(c.clone());
            }
        }

        let mut call = Event::new(EventKind::ToolCall, "", Locator::native(&part.id, Some(0)))
            .at(start.and_then(ts));
        call.raw = part.raw;
        call.tool = Some(tool.clone());
        call.call_id = Some(call_id.clone());
        call.model = ctx.model.clone();
        call.args = state.get("input").map(decode_json_string);
        let mut cdata = Map::new();
        if let Some(t) = str_of(state, "title").filter(|t| !t.is_empty()) {
            cdata.insert("title".into(), Value::String(t.to_string()));
        }
        if let Some(c) = &child {
            cdata.insert("child_session".into(), Value::String(c.clone()));
        }
        if matches!(status, "pending" | "running") {
            cdata.insert("status".into(), Value::String(status.to_string()));
        }
        call.data = (!cdata.is_empty()).then_some(Value::Object(cdata));
        ctx.events.push(call);

        let (text, is_error) = match status {
            "pending" | "running" => return,
            "error" => (
                state.get("error").map(error_text).unwrap_or_default(),
                Some(true),
            ),
            "completed" | "success" => (output_text(state.get("output")), Some(false)),
            _ => match state.get("output") {
                Some(o) => (output_text(Some(o)), None),
                None => return,
            },
        };
        let mut res = Event::new(
            EventKind::ToolResult,
            text,
            Locator::native(&part.id, Some(1)),
        )
        .at(end.or(start).and_then(ts));
        res.raw = part.raw;
        res.tool = Some(tool);
        res.call_id = Some(call_id);
        res.is_error = is_error;
        res.exit_code = meta.get("exit").and_then(Value::as_i64);
        if res.exit_code.is_some_and(|c| c != 0) {
            // A shell command that failed is stored as `completed` with `metadata.exit` ≠ 0.
            res.is_error = Some(true);
        }
        res.duration_ms = match (start, end) {
            (Some(s), Some(e)) if e >= s => u64::try_from(e - s).ok(),
            _ => None,
        };
        let mut rdata = Map::new();
        if path(state, &["time", "compacted"]).is_some() {
            rdata.insert("compacted".into(), Value::Bool(true));
        }
        if meta.get("truncated").and_then(Value::as_bool) == Some(true) {
            rdata.insert("truncated".into(), Value::Bool(true));
        }
        if let Some(c) = child {
            rdata.insert("child_session".into(), Value::String(c));
        }
        if !matches!(status, "completed" | "success" | "error") {
            rdata.insert("status".into(), Value::String(status.to_string()));
        }
        res.data = (!rdata.is_empty()).then_some(Value::Object(rdata));
        ctx.events.push(res);
    }

    /// Emits the per-type unknown-record warnings.
    pub fn finish(self, out: &mut Emitter<'_>) {
        for (name, (count, place)) in self.unknown {
            out.warn(Warning::at(
                WarningKind::UnknownRecord,
                format!("unknown part type '{name}': {count} part(s) not shown"),
                place.file,
                place.line,
            ));
        }
    }
}

struct MsgCtx {
    role: Role,
    summary: bool,
    model: Option<String>,
    msg_time: Option<i64>,
    events: Vec<Event>,
    step_start: usize,
    had_step_finish: bool,
    prompt: Option<usize>,
}

impl MsgCtx {
    /// Puts `usage` on the last model-output event at or after `from`, or on a new log-only
    /// `Meta` event when the step produced none.
    fn attach_usage(
        &mut self,
        usage: TokenUsage,
        from: usize,
        locator: Locator,
        raw: RawRef,
        time: Option<i64>,
    ) {
        let target = self.events.iter_mut().skip(from).rev().find(|e| {
            e.usage.is_none()
                && matches!(
                    e.kind,
                    EventKind::Assistant
                        | EventKind::Thinking
                        | EventKind::ToolCall
                        | EventKind::Compaction
                )
                && e.subtype.as_deref() != Some("compaction_request")
        });
        match target {
            Some(e) => e.usage = Some(usage),
            None => {
                let mut e = Event::new(EventKind::Meta, "", locator).at(time.and_then(ts));
                e.subtype = Some("step_finish".into());
                e.surface = Surface::LogOnly;
                e.usage = Some(usage);
                e.model = self.model.clone();
                e.raw = raw;
                self.events.push(e);
            }
        }
    }
}

/// Marks events as replaced (a `/undo` revert point lies before them), except log-only ones.
fn shadow(events: &mut [Event]) {
    for e in events {
        if e.surface == Surface::Current {
            e.surface = Surface::Shadowed;
        }
    }
}

/// The revert point of a session (`{messageID, partID?}`), from its JSON.
pub(crate) fn revert_of(v: &Value) -> Option<(String, Option<String>)> {
    let m = str_of(v, "messageID")?.to_string();
    Some((m, str_of(v, "partID").map(str::to_string)))
}

/// Normalized usage from an OpenCode `tokens` object; `None` when absent or all zero.
pub(crate) fn usage_of(t: &Value) -> Option<TokenUsage> {
    if !t.is_object() {
        return None;
    }
    let n = |keys: &[&str]| path(t, keys).and_then(as_u64).unwrap_or(0);
    let reasoning = n(&["reasoning"]);
    let u = TokenUsage {
        input: n(&["input"]),
        output: n(&["output"]).saturating_add(reasoning),
        cache_read: n(&["cache", "read"]),
        cache_write: n(&["cache", "write"]),
        reasoning,
    };
    (!u.is_zero()).then_some(u)
}

/// The model id of a message: `modelID` (assistant) or `model.modelID` (user, newer shapes).
pub(crate) fn model_of(d: &Value) -> Option<String> {
    if str_of(d, "role") != Some("assistant") {
        return None;
    }
    str_of(d, "modelID")
        .or_else(|| path(d, &["model", "modelID"]).and_then(Value::as_str))
        .filter(|m| !m.is_empty())
        .map(str::to_string)
}

/// Epoch milliseconds from a JSON number (or numeric string).
pub(crate) fn ms_of(v: &Value) -> Option<i64> {
    match v {
        Value::Number(n) => n.as_i64().or_else(|| n.as_f64().map(|f| f as i64)),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// A timestamp from epoch milliseconds (unit guessed by magnitude, so seconds also work).
pub(crate) fn ts(ms: i64) -> Option<scry_model::Timestamp> {
    from_epoch_guess(ms as f64)
}

fn output_text(v: Option<&Value>) -> String {
    match v {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Null) | None => String::new(),
        Some(other) => other.to_string(),
    }
}

/// The readable text of an OpenCode error value (`{name, data: {message}}` or a string).
fn error_text(err: &Value) -> String {
    match err {
        Value::String(s) => s.clone(),
        _ => path(err, &["data", "message"])
            .and_then(Value::as_str)
            .or_else(|| str_of(err, "message"))
            .or_else(|| str_of(err, "name"))
            .map(str::to_string)
            .unwrap_or_else(|| err.to_string()),
    }
}

fn pick(d: &Value, keys: &[&str]) -> Value {
    let mut m = Map::new();
    for k in keys {
        if let Some(v) = d.get(*k) {
            m.insert((*k).to_string(), v.clone());
        }
    }
    Value::Object(m)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usage_folds_reasoning_into_output_and_keeps_cache_apart() {
        let u = usage_of(&json!({"total":7545,"input":7458,"output":70,"reasoning":17,"cache":{"write":0,"read":0}}))
            .unwrap();
        assert_eq!(
            (u.input, u.output, u.reasoning, u.cache_read),
            (7458, 87, 17, 0)
        );
        assert_eq!(u.total(), 7545);
        assert!(usage_of(&json!({"input":0,"output":0})).is_none());
        assert!(usage_of(&json!("x")).is_none());
    }

    #[test]
    fn error_text_shapes() {
        assert_eq!(
            error_text(&json!({"name":"MessageAbortedError","data":{"message":"aborted"}})),
            "aborted"
        );
        assert_eq!(error_text(&json!("boom")), "boom");
        assert_eq!(error_text(&json!({"name":"X"})), "X");
    }
}
