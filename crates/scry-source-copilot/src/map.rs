//! Copilot CLI `events.jsonl` records → scry events (the table is in the crate doc).
//!
//! Every record is `{type, data, id, timestamp, parentId}` (+ `agentId` for the events of an
//! inline subagent); `id` is a UUID, so every event has a native locator `id:<uuid>#<part>`.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::PathBuf;

use scry_model::{
    Event, EventKind, Locator, RawRef, Surface, TimeSource, Timestamp, TokenUsage, Warning,
    WarningKind,
};
use scry_source::json::{i64_of, str_of, u64_of};
use scry_source::jsonl::Record;
use scry_source::time;
use serde_json::{json, Value};

/// Record types that carry nothing a reader needs: turn brackets (turns come from user
/// messages), the compaction call's model trace (its summary is the compaction record), and
/// the streaming / idle notices the CLI does not persist but may one day.
const SKIPPED: &[&str] = &[
    "assistant.turn_start",
    "assistant.turn_end",
    "assistant.message_delta",
    "assistant.reasoning_delta",
    "tool.execution_partial_result",
    "tool.execution_progress",
    "session.idle",
    "pending_messages.modified",
];

/// A usage record waiting for the assistant message of the same request.
struct PendingUsage {
    usage: TokenUsage,
    model: Option<String>,
    raw: RawRef,
    locator: Locator,
    time: Option<Timestamp>,
    data: Value,
}

/// What the `session.start` / `session.resume` records say about the session.
#[derive(Debug, Default, Clone)]
pub struct Facts {
    /// `sessionId` of `session.start`.
    pub session_id: Option<String>,
    /// `copilotVersion`.
    pub version: Option<String>,
    /// `context.cwd` (the first seen).
    pub cwd: Option<String>,
    /// `context.branch`.
    pub branch: Option<String>,
    /// `context.headCommit`.
    pub commit: Option<String>,
    /// `selectedModel` of the start record.
    pub selected_model: Option<String>,
    /// Whether a `session.start` record was seen.
    pub started: bool,
}

/// Turns records into events, one record at a time.
pub struct Mapper {
    path: PathBuf,
    /// Tool name of every call id an assistant message requested.
    requested: HashMap<String, Option<String>>,
    /// Start time and tool name of every started execution.
    started: HashMap<String, (Option<Timestamp>, Option<String>)>,
    /// Call ids that got a result.
    completed: HashSet<String>,
    /// Usage records by `apiCallId`, until their assistant message comes.
    pending: Vec<(String, PendingUsage)>,
    /// Subagent display names by `agentId`.
    agents: HashMap<String, String>,
    unknown: BTreeMap<String, (u64, u64)>,
    warnings: Vec<Warning>,
    /// Header facts gathered so far.
    pub facts: Facts,
}

/// Events of one record under construction.
struct Entry {
    id: Option<String>,
    raw: RawRef,
    bytes_sum: Locator,
    time: Option<Timestamp>,
    part: usize,
    out: Vec<Event>,
}

impl Entry {
    /// The locator of the record's next event.
    fn locator(&mut self) -> Locator {
        let loc = match &self.id {
            Some(id) => Locator::native(id, Some(self.part)),
            None => Locator(format!("{}#{}", self.bytes_sum.0, self.part)),
        };
        self.part += 1;
        loc
    }

    fn push(&mut self, kind: EventKind, text: impl Into<String>) -> &mut Event {
        let loc = self.locator();
        let mut e = Event::new(kind, text, loc).at(self.time);
        e.raw = self.raw;
        self.out.push(e);
        let i = self.out.len() - 1;
        &mut self.out[i]
    }

    fn meta(&mut self, subtype: &str, text: impl Into<String>, log_only: bool) -> &mut Event {
        let e = self.push(EventKind::Meta, text);
        e.subtype = Some(subtype.to_string());
        if log_only {
            e.surface = Surface::LogOnly;
        }
        e
    }
}

impl Mapper {
    /// A mapper for the log at `path`.
    pub fn new(path: PathBuf) -> Self {
        Mapper {
            path,
            requested: HashMap::new(),
            started: HashMap::new(),
            completed: HashSet::new(),
            pending: Vec::new(),
            agents: HashMap::new(),
            unknown: BTreeMap::new(),
            warnings: Vec::new(),
            facts: Facts::default(),
        }
    }

    /// Usage records no assistant message claimed (as `usage` meta events), then the warnings
    /// gathered while mapping (unknown types once each, results without a call).
    pub fn finish(&mut self) -> (Vec<Event>, Vec<Warning>) {
        let mut events = Vec::new();
        for (_, p) in std::mem::take(&mut self.pending) {
            let mut e = Event::new(EventKind::Meta, "", p.locator).at(p.time);
            e.subtype = Some("usage".into());
            e.surface = Surface::LogOnly;
            e.raw = p.raw;
            e.usage = Some(p.usage);
            e.model = p.model;
            e.data = Some(p.data);
            events.push(e);
        }
        let mut warnings = std::mem::take(&mut self.warnings);
        for (t, (n, line)) in std::mem::take(&mut self.unknown) {
            warnings.push(Warning::at(
                WarningKind::UnknownRecord,
                format!("unknown event type '{t}' seen {n} time(s); skipped"),
                &self.path,
                Some(line),
            ));
        }
        (events, warnings)
    }

    fn unknown(&mut self, label: &str, line: u64) {
        self.unknown.entry(label.to_string()).or_insert((0, line)).0 += 1;
    }

    /// The events of one record.
    pub fn record(&mut self, r: &Record<'_>) -> Vec<Event> {
        let v = &r.value;
        let ty = str_of(v, "type").unwrap_or("");
        let empty = Value::Null;
        let d = v.get("data").unwrap_or(&empty);
        let mut e = Entry {
            id: str_of(v, "id").filter(|s| !s.is_empty()).map(String::from),
            raw: RawRef {
                file: 0,
                offset: r.offset,
                len: r.raw.len() as u64,
                line: r.line,
            },
            bytes_sum: Locator::record(r.line, r.raw, None),
            time: v.get("timestamp").and_then(time::from_value),
            part: 0,
            out: Vec::new(),
        };
        let agent = str_of(v, "agentId").filter(|a| !a.is_empty());
        match ty {
            "session.start" => {
                self.facts.started = true;
                self.facts.session_id = str_of(d, "sessionId").map(String::from);
                self.facts.version = str_of(d, "copilotVersion").map(String::from);
                self.facts.selected_model = str_of(d, "selectedModel").map(String::from);
                self.context(d);
                let text = str_of(d, "selectedModel").unwrap_or("").to_string();
                e.meta("session_start", text, true).data =
                    Some(pick(d, &["copilotVersion", "producer", "context"]));
            }
            "session.resume" => {
                self.context(d);
                e.meta("session_resume", "", true).data =
                    Some(pick(d, &["eventCount", "selectedModel", "context"]));
            }
            "session.shutdown" => {
                let data = d
                    .get("accountingSnapshot")
                    .map(|a| pick(a, &["totalUserRequests", "codeChanges", "modelMetrics"]));
                e.meta("session_shutdown", "", true).data = data;
            }
            "session.model_change" => {
                let text = str_of(d, "newModel").unwrap_or("").to_string();
                e.meta("model_change", text, false).data =
                    Some(pick(d, &["source", "reasoningEffort", "previousModel"]));
            }
            "session.permissions_changed" => {
                e.meta("permissions_changed", "", true).data = Some(d.clone());
            }
            "system.message" => {
                let text = system_text(d);
                e.meta("system_prompt", text, false);
            }
            "user.message" => {
                let text = str_of(d, "content").unwrap_or("").to_string();
                if agent.is_some() {
                    // The prompt the parent handed its subagent: not a human turn.
                    e.meta("subagent_prompt", text, false);
                } else {
                    let ev = e.push(EventKind::User, text);
                    let attachments = d.get("attachments").and_then(Value::as_array);
                    if let Some(a) = attachments.filter(|a| !a.is_empty()) {
                        ev.data = Some(json!({ "attachments": a }));
                    }
                }
            }
            "assistant.message" => self.assistant(&mut e, d),
            "tool.execution_start" => self.tool_start(&mut e, d),
            "tool.execution_complete" => self.tool_complete(&mut e, d),
            "session.usage_record" => self.usage_record(&mut e, d),
            "subagent.started" => {
                let name = str_of(d, "agentDisplayName")
                    .or_else(|| str_of(d, "agentName"))
                    .unwrap_or("subagent")
                    .to_string();
                if let Some(a) = agent {
                    self.agents.insert(a.to_string(), name.clone());
                }
                let text = match str_of(d, "agentDescription") {
                    Some(desc) => format!("{name}: {desc}"),
                    None => name,
                };
                let ev = e.meta("subagent_start", text, false);
                ev.call_id = str_of(d, "toolCallId").map(String::from);
                ev.model = str_of(d, "model").map(String::from);
                ev.data = Some(pick(d, &["agentName", "agentType", "executionMode"]));
            }
            "subagent.configured" => {
                e.meta("subagent_configured", "", true).data = Some(d.clone());
            }
            "subagent.completed" => {
                let ev = e.meta("subagent_end", "", false);
                ev.call_id = str_of(d, "toolCallId").map(String::from);
                ev.data = Some(pick(d, &["totalToolCalls", "totalTokens", "durationMs"]));
                ev.duration_ms = u64_of(d, "durationMs");
            }
            "subagent.failed" => {
                let text = error_text(d.get("error")).unwrap_or_default();
                let ev = e.push(EventKind::System, text);
                ev.subtype = Some("subagent_failed".into());
                ev.call_id = str_of(d, "toolCallId").map(String::from);
                ev.is_error = Some(true);
            }
            "session.compaction_start" => {
                e.meta("compaction_start", "", true).data = Some(pick(
                    d,
                    &["trigger", "currentTokens", "tokenLimit", "model"],
                ));
            }
            "session.compaction_complete" => {
                let text = str_of(d, "summaryContent").unwrap_or("").to_string();
                let ev = e.push(EventKind::Compaction, text);
                ev.subtype = Some("compaction".into());
                ev.is_error = d.get("success").and_then(Value::as_bool).map(|ok| !ok);
                ev.data = Some(pick(
                    d,
                    &[
                        "outcome",
                        "preCompactionTokens",
                        "postCompactionTokens",
                        "messagesRemoved",
                        "tokensRemoved",
                    ],
                ));
            }
            "session.error" | "session.warning" | "session.info" | "abort" => {
                let text = str_of(d, "message")
                    .or_else(|| str_of(d, "reason"))
                    .unwrap_or("")
                    .to_string();
                let sub = ty.rsplit('.').next().unwrap_or(ty).to_string();
                let ev = e.push(EventKind::System, text);
                ev.subtype = Some(sub);
                ev.is_error = (ty == "session.error").then_some(true);
                ev.data = Some(pick(d, &["errorType", "infoType", "warningType"]));
            }
            t if t.starts_with("model.") || SKIPPED.contains(&t) => {}
            other => self.unknown(if other.is_empty() { "(none)" } else { other }, r.line),
        }
        if let Some(a) = agent {
            let name = self.agents.get(a).cloned();
            for ev in &mut e.out {
                ev.set_data("agent_id", Value::String(a.to_string()));
                if let Some(n) = &name {
                    ev.set_data("subagent", Value::String(n.clone()));
                }
            }
        }
        e.out
    }

    /// `context` of a start / resume record: the first cwd, the latest branch and commit.
    fn context(&mut self, d: &Value) {
        let Some(c) = d.get("context") else { return };
        if self.facts.cwd.is_none() {
            self.facts.cwd = str_of(c, "cwd").map(String::from);
        }
        if self.facts.branch.is_none() {
            self.facts.branch = str_of(c, "branch").map(String::from);
        }
        if self.facts.commit.is_none() {
            self.facts.commit = str_of(c, "headCommit").map(String::from);
        }
    }

    fn assistant(&mut self, e: &mut Entry, d: &Value) {
        let model = str_of(d, "model").map(String::from);
        let (mut first_text, mut first_call, mut first_thought) = (None, None, None);
        if let Some(r) = str_of(d, "reasoningText").filter(|s| !s.is_empty()) {
            e.push(EventKind::Thinking, r);
            first_thought = Some(e.out.len() - 1);
        }
        if let Some(c) = str_of(d, "content").filter(|s| !s.is_empty()) {
            e.push(EventKind::Assistant, c);
            first_text = Some(e.out.len() - 1);
        }
        let requests = d.get("toolRequests").and_then(Value::as_array);
        for t in requests.into_iter().flatten() {
            let id = str_of(t, "toolCallId").map(String::from);
            let name = str_of(t, "name").map(String::from);
            if let Some(i) = &id {
                self.requested.insert(i.clone(), name.clone());
            }
            let ev = e.push(EventKind::ToolCall, "");
            ev.tool = name;
            ev.call_id = id;
            ev.args = t
                .get("arguments")
                .map(scry_source::json::decode_json_string);
            if let Some(s) = str_of(t, "intentionSummary") {
                ev.set_data("intention", Value::String(s.to_string()));
            }
            first_call.get_or_insert(e.out.len() - 1);
        }
        let usage = str_of(d, "apiCallId").and_then(|api| self.take_usage(api));
        let at = first_text.or(first_call).or(first_thought);
        match (usage, at) {
            (Some(u), Some(i)) => e.out[i].usage = Some(u.usage),
            (u, None) => {
                let ev = e.meta("empty_response", "", false);
                ev.usage = u.map(|u| u.usage);
            }
            (None, Some(_)) => {}
        }
        let parent = str_of(d, "parentToolCallId").map(String::from);
        for ev in &mut e.out {
            ev.model.clone_from(&model);
            if let Some(p) = &parent {
                ev.set_data("parent_call", Value::String(p.clone()));
            }
        }
    }

    fn take_usage(&mut self, api: &str) -> Option<PendingUsage> {
        let i = self.pending.iter().position(|(k, _)| k == api)?;
        Some(self.pending.remove(i).1)
    }

    fn usage_record(&mut self, e: &mut Entry, d: &Value) {
        let Some(u) = d.get("usage").filter(|u| u.is_object()) else {
            self.unknown("session.usage_record without usage", e.raw.line);
            return;
        };
        let usage = usage_of(u);
        let model = str_of(u, "model").map(String::from);
        let data = pick(
            u,
            &["initiator", "isByok", "providerType", "cost", "duration"],
        );
        match str_of(u, "apiCallId").filter(|s| !s.is_empty()) {
            Some(api) => {
                let loc = e.locator();
                self.pending.push((
                    api.to_string(),
                    PendingUsage {
                        usage,
                        model,
                        raw: e.raw,
                        locator: loc,
                        time: e.time,
                        data,
                    },
                ));
            }
            None => {
                let ev = e.meta("usage", "", true);
                ev.usage = Some(usage);
                ev.model = model;
                ev.data = Some(data);
            }
        }
    }

    fn tool_start(&mut self, e: &mut Entry, d: &Value) {
        let Some(id) = str_of(d, "toolCallId").map(String::from) else {
            return;
        };
        let tool = str_of(d, "toolName").map(String::from);
        self.started.insert(id.clone(), (e.time, tool.clone()));
        if self.requested.contains_key(&id) {
            return;
        }
        // A tool the model did not request (one the user ran): the start is its call.
        self.requested.insert(id.clone(), tool.clone());
        let ev = e.push(EventKind::ToolCall, "");
        ev.subtype = Some("direct".into());
        ev.tool = tool;
        ev.call_id = Some(id);
        ev.args = d
            .get("arguments")
            .map(scry_source::json::decode_json_string);
        ev.model = str_of(d, "model").map(String::from);
    }

    fn tool_complete(&mut self, e: &mut Entry, d: &Value) {
        let id = str_of(d, "toolCallId").unwrap_or("").to_string();
        let (start, started_tool) = self.started.get(&id).cloned().unwrap_or((None, None));
        let tool = self
            .requested
            .get(&id)
            .cloned()
            .flatten()
            .or(started_tool)
            .or_else(|| str_of(d, "toolName").map(String::from));
        let paired = self.requested.contains_key(&id);
        let success = d.get("success").and_then(Value::as_bool);
        let result = d.get("result");
        let mut text = result
            .and_then(|r| str_of(r, "content"))
            .unwrap_or("")
            .to_string();
        if success == Some(false) {
            if let Some(err) = error_text(d.get("error")) {
                if text.is_empty() {
                    text = err;
                } else if !text.contains(&err) {
                    text = format!("{text}\n{err}");
                }
            }
        }
        let exit = d.get("shellExecution").and_then(|s| i64_of(s, "exitCode"));
        let duration = match (start, e.time) {
            (Some(s), Some(t)) if t >= s => u64::try_from(t.duration_since(s).as_millis()).ok(),
            _ => None,
        };
        let line = e.raw.line;
        let time = e.time;
        let ev = e.push(EventKind::ToolResult, text);
        ev.tool = tool;
        ev.call_id = (!id.is_empty()).then(|| id.clone());
        ev.is_error = success.map(|ok| !ok);
        ev.exit_code = exit;
        ev.duration_ms = duration;
        ev.model = str_of(d, "model").map(String::from);
        if time.is_none() {
            ev.time_source = TimeSource::None;
        }
        if let Some(edits) = d.get("fileEdits").filter(|f| !is_empty(f)) {
            ev.set_data("file_edits", edits.clone());
        }
        if let Some(p) = str_of(d, "parentToolCallId") {
            ev.set_data("parent_call", Value::String(p.to_string()));
        }
        if !paired {
            ev.set_data("unconfirmed", Value::Bool(true));
            self.warnings.push(Warning::at(
                WarningKind::UnpairedResult,
                format!("tool result for call id '{id}' matches no tool call"),
                &self.path,
                Some(line),
            ));
        } else if !self.completed.insert(id.clone()) {
            self.warnings.push(Warning::at(
                WarningKind::Inconsistent,
                format!("a second result for call id '{id}'"),
                &self.path,
                Some(line),
            ));
        }
    }
}

/// Copilot usage → normalized usage. `inputTokens` is the request's whole prompt, cache
/// reads included (OpenAI's `prompt_tokens`; ccusage subtracts them too), so fresh input is
/// the difference; `reasoningTokens` is part of `outputTokens` and also reported alone.
pub fn usage_of(u: &Value) -> TokenUsage {
    let input = u64_of(u, "inputTokens").unwrap_or(0);
    let cache_read = u64_of(u, "cacheReadTokens").unwrap_or(0);
    TokenUsage {
        input: input.saturating_sub(cache_read),
        output: u64_of(u, "outputTokens").unwrap_or(0),
        cache_read,
        cache_write: u64_of(u, "cacheWriteTokens").unwrap_or(0),
        reasoning: u64_of(u, "reasoningTokens").unwrap_or(0),
    }
}

/// The text of a `system.message`: `content`, else its `contentBlocks` joined.
fn system_text(d: &Value) -> String {
    if let Some(c) = str_of(d, "content") {
        return c.to_string();
    }
    let blocks = d.get("contentBlocks").and_then(Value::as_array);
    blocks
        .into_iter()
        .flatten()
        .filter_map(|b| str_of(b, "content").or_else(|| str_of(b, "text")))
        .collect::<Vec<_>>()
        .join("\n")
}

/// An `error` field as text: a string, or an object's `message` (with its `code`).
fn error_text(v: Option<&Value>) -> Option<String> {
    match v? {
        Value::String(s) => Some(s.clone()),
        o @ Value::Object(_) => {
            let msg = str_of(o, "message")?;
            Some(match str_of(o, "code") {
                Some(c) => format!("{msg} ({c})"),
                None => msg.to_string(),
            })
        }
        _ => None,
    }
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
    fn usage_subtracts_cache_reads_from_input() {
        let u = usage_of(&json!({"inputTokens": 12525, "outputTokens": 61,
            "cacheReadTokens": 10020, "cacheWriteTokens": 0, "reasoningTokens": 7}));
        assert_eq!(
            u,
            TokenUsage {
                input: 2505,
                output: 61,
                cache_read: 10020,
                cache_write: 0,
                reasoning: 7
            }
        );
        // More cache than input (never seen): no underflow.
        assert_eq!(
            usage_of(&json!({"inputTokens": 1, "cacheReadTokens": 5})).input,
            0
        );
    }

    #[test]
    fn error_text_shapes() {
        assert_eq!(error_text(Some(&json!("boom"))).as_deref(), Some("boom"));
        assert_eq!(
            error_text(Some(&json!({"message": "denied", "code": "EPERM"}))).as_deref(),
            Some("denied (EPERM)")
        );
        assert_eq!(error_text(Some(&json!(3))), None);
        assert_eq!(error_text(None), None);
    }
}
