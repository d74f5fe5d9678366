//! Qwen Code chat records → scry events (the table is in the crate doc).
//!
//! One [`Mapper`] reads a file's records in order. It holds only what pairing needs: the call
//! ids seen (for unpaired results), tool durations announced by `ui_telemetry` `tool_call`
//! events (which Qwen writes just before the `tool_result` record), counts of the records that
//! become no event, and the first envelope facts.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::PathBuf;

use scry_model::{Event, EventKind, Locator, RawRef, Surface, TokenUsage, Warning, WarningKind};
use scry_source::json::{str_of, u64_of};
use scry_source::resume::{id_hash, pack_u64s, unpack_u64s};
use scry_source::time;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

/// What a parse counted besides events.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ParseStats {
    /// Records read.
    pub records: u64,
    /// `system` / `ui_telemetry` records by `uiEvent["event.name"]` (none of them is
    /// conversation; `api_response` of a `/compress` request also becomes a log-only event).
    pub telemetry: BTreeMap<String, u64>,
    /// Other records that become no event, by `type` / `subtype` (`attribution_snapshot`).
    pub counted: BTreeMap<String, u64>,
    /// Unknown record types: count and first line.
    pub unknown: BTreeMap<String, (u64, u64)>,
}

/// Envelope facts of the first records.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Facts {
    /// `sessionId`.
    pub session_id: Option<String>,
    /// `cwd`.
    pub cwd: Option<String>,
    /// `gitBranch`.
    pub branch: Option<String>,
    /// `version` (the CLI's).
    pub version: Option<String>,
    /// `agentName` (subagent files).
    pub agent_name: Option<String>,
    /// `agentId` (subagent files: the subagent's own id; `sessionId` is the parent's).
    pub agent_id: Option<String>,
}

/// Maps the records of one file.
pub struct Mapper {
    path: PathBuf,
    /// Call ids of every tool call so far (hashed: only membership is asked).
    calls: HashSet<u64>,
    /// Tool name by call id, for calls not answered yet.
    names: HashMap<String, String>,
    /// `duration_ms` of `tool_call` telemetry by call id, waiting for the result.
    durations: HashMap<String, u64>,
    /// Results whose call id matched no earlier call: (id, line).
    unpaired: Vec<(String, u64)>,
    /// Counts.
    pub stats: ParseStats,
    /// Envelope facts.
    pub facts: Facts,
}

impl Mapper {
    /// A mapper for the file at `path` (named in warnings).
    pub fn new(path: PathBuf) -> Self {
        Mapper {
            path,
            calls: HashSet::new(),
            names: HashMap::new(),
            durations: HashMap::new(),
            unpaired: Vec::new(),
            stats: ParseStats::default(),
            facts: Facts::default(),
        }
    }

    /// The events of one record, in order.
    pub fn record(&mut self, v: &Value, raw: RawRef) -> Vec<Event> {
        self.stats.records += 1;
        self.envelope(v);
        let ty = str_of(v, "type").unwrap_or("");
        let mut out = Out::new(v, raw);
        match ty {
            "user" => self.user(v, &mut out),
            "assistant" => self.assistant(v, &mut out),
            "tool_result" => self.tool_result(v, &mut out),
            "system" => self.system(v, &mut out),
            other => {
                let label = if other.is_empty() { "(none)" } else { other };
                let e = self
                    .stats
                    .unknown
                    .entry(label.to_string())
                    .or_insert((0, raw.line));
                e.0 += 1;
            }
        }
        out.events
    }

    fn envelope(&mut self, v: &Value) {
        let f = &mut self.facts;
        for (slot, key) in [
            (&mut f.session_id, "sessionId"),
            (&mut f.cwd, "cwd"),
            (&mut f.branch, "gitBranch"),
            (&mut f.version, "version"),
            (&mut f.agent_name, "agentName"),
            (&mut f.agent_id, "agentId"),
        ] {
            if slot.is_none() {
                *slot = str_of(v, key).filter(|x| !x.is_empty()).map(String::from);
            }
        }
    }

    fn user(&mut self, v: &Value, out: &mut Out<'_>) {
        let parts = parts(v);
        if parts.iter().any(|p| p.get("functionResponse").is_some()) {
            self.responses(v, &parts, out);
        }
        if !parts
            .iter()
            .any(|p| p.get("text").is_some() && p.get("thought").is_none())
        {
            return;
        }
        let text = texts(&parts, false);
        // `provenance` is `real_user` for typed prompts (absent in subagent files, whose first
        // prompt is the task the parent gave).
        match str_of(v, "provenance") {
            None | Some("real_user") => {
                out.event(EventKind::User, text);
            }
            Some(other) => {
                let sub = other.to_string();
                out.event(EventKind::Meta, text).subtype = Some(sub);
            }
        }
    }

    fn assistant(&mut self, v: &Value, out: &mut Out<'_>) {
        let parts = parts(v);
        let model = str_of(v, "model").map(String::from);
        let first = out.events.len();
        let mut thinking_at = None;
        for p in parts
            .iter()
            .filter(|p| p.get("thought").and_then(Value::as_bool) == Some(true))
        {
            if let Some(t) = str_of(p, "text") {
                out.event(EventKind::Thinking, t);
                thinking_at.get_or_insert(out.events.len() - 1);
            }
        }
        let text = texts(&parts, false);
        let mut usage_at = None;
        if !text.is_empty() {
            out.event(EventKind::Assistant, text);
            usage_at = Some(out.events.len() - 1);
        }
        let mut call_at = None;
        for fc in parts.iter().filter_map(|p| p.get("functionCall")) {
            let id = str_of(fc, "id").map(String::from);
            let name = str_of(fc, "name").map(String::from);
            let args = fc.get("args").map(scry_source::json::decode_json_string);
            if let Some(i) = &id {
                self.calls.insert(id_hash(i));
                if let Some(n) = &name {
                    self.names.insert(i.clone(), n.clone());
                }
            }
            let agent = (name.as_deref() == Some("agent"))
                .then(|| {
                    let ty = args.as_ref().and_then(|a| str_of(a, "subagent_type"))?;
                    Some(format!("{ty}-{}", id.as_deref()?))
                })
                .flatten();
            let e = out.event(EventKind::ToolCall, "");
            e.tool = name;
            e.call_id = id;
            e.args = args;
            if let Some(a) = agent {
                e.set_data("agentId", json!(a));
            }
            call_at.get_or_insert(out.events.len() - 1);
        }
        let usage = v.get("usageMetadata").and_then(usage);
        match usage_at.or(call_at).or(thinking_at) {
            Some(i) => out.events[i].usage = usage,
            None => {
                let e = out.event(EventKind::Meta, "");
                e.subtype = Some("empty_response".into());
                e.usage = usage;
            }
        }
        for e in &mut out.events[first..] {
            e.model.clone_from(&model);
        }
    }

    fn tool_result(&mut self, v: &Value, out: &mut Out<'_>) {
        let parts = parts(v);
        self.responses(v, &parts, out);
    }

    /// One `ToolResult` per `functionResponse` part; status, exit code and duration from the
    /// record's `toolCallResult` (the UI form) and the pending telemetry.
    fn responses(&mut self, v: &Value, parts: &[Value], out: &mut Out<'_>) {
        let tcr = v.get("toolCallResult").filter(|t| t.is_object());
        for fr in parts.iter().filter_map(|p| p.get("functionResponse")) {
            let id = str_of(fr, "id").unwrap_or("").to_string();
            // The name kept for the call is only needed until it is answered (and a resumed
            // parse carries only those of open calls).
            let kept = self.names.remove(&id);
            let name = str_of(fr, "name").map(String::from).or(kept);
            let resp = fr.get("response");
            let (text, errored) = match resp {
                Some(r) if r.get("output").is_some() => (string(&r["output"]), false),
                Some(r) if r.get("error").is_some() => (string(&r["error"]), true),
                Some(r) => (string(r), false),
                None => (String::new(), false),
            };
            // toolCallResult describes the call whose id it names (one per record).
            let mine = tcr.filter(|t| str_of(t, "callId").is_none_or(|c| c == id));
            let status =
                mine.and_then(|t| str_of(t, "status").or_else(|| str_of(t, "executionStatus")));
            let is_error = match status {
                Some("error") | Some("cancelled") => Some(true),
                Some("success") => Some(false),
                _ => errored.then_some(true),
            };
            let display = mine
                .and_then(|t| t.get("resultDisplay"))
                .filter(|d| d.is_object());
            let exit = display
                .filter(|d| str_of(d, "type") == Some("shell_result"))
                .and_then(|d| d.get("exitCode"))
                .and_then(Value::as_i64)
                .or_else(|| exit_code(name.as_deref(), &text));
            let duration = mine
                .and_then(|t| u64_of(t, "durationMs"))
                .or_else(|| self.durations.remove(&id));
            let paired = !id.is_empty() && self.calls.contains(&id_hash(&id));
            let line = out.raw.line;
            let e = out.event(EventKind::ToolResult, text);
            e.tool = name;
            e.call_id = (!id.is_empty()).then(|| id.clone());
            e.is_error = is_error;
            e.exit_code = exit;
            e.duration_ms = duration;
            if let Some(s) = status {
                e.set_data("status", json!(s));
            }
            if let Some(d) = display.filter(|d| str_of(d, "type") == Some("task_execution")) {
                let mut sub = serde_json::Map::new();
                for k in ["subagentName", "status", "terminateReason", "executionMode"] {
                    if let Some(x) = d.get(k) {
                        sub.insert(k.to_string(), x.clone());
                    }
                }
                e.set_data("subagent", Value::Object(sub));
            }
            if let Some(p) = display.and_then(|d| str_of(d, "filePath")) {
                e.set_data("filePath", json!(p));
            }
            if !paired {
                e.set_data("unconfirmed", json!(true));
                self.unpaired.push((id, line));
            }
        }
    }

    fn system(&mut self, v: &Value, out: &mut Out<'_>) {
        let sub = str_of(v, "subtype").unwrap_or("");
        let payload = v.get("systemPayload");
        match sub {
            "ui_telemetry" => {
                let ev = payload.and_then(|p| p.get("uiEvent"));
                let name = ev.and_then(|e| str_of(e, "event.name")).unwrap_or("(none)");
                *self.stats.telemetry.entry(name.to_string()).or_insert(0) += 1;
                let Some(ev) = ev else { return };
                match name {
                    // A subagent's calls (`prompt_id` `<sid>#<agentId>#<n>`) are answered in
                    // its own file: only the main chat's wait here.
                    "qwen-code.tool_call" if !of_subagent(ev) => {
                        if let (Some(id), Some(d)) =
                            (str_of(ev, "call_id"), u64_of(ev, "duration_ms"))
                        {
                            self.durations.insert(id.to_string(), d);
                        }
                    }
                    "qwen-code.api_response"
                        if str_of(ev, "prompt_id").is_some_and(|p| p.starts_with("compress-")) =>
                    {
                        // A `/compress` summary request: billed, but no assistant record
                        // carries it.
                        let text = str_of(ev, "response_text").unwrap_or("").to_string();
                        let model = str_of(ev, "model").map(String::from);
                        let u = usage_of(ev, TELEMETRY_KEYS);
                        let e = out.event(EventKind::Meta, text);
                        e.subtype = Some("compression_request".into());
                        e.surface = Surface::LogOnly;
                        e.usage = u;
                        e.model = model;
                        e.duration_ms = u64_of(ev, "duration_ms");
                    }
                    _ => {}
                }
            }
            "attribution_snapshot" => {
                *self.stats.counted.entry(sub.to_string()).or_insert(0) += 1;
            }
            "chat_compression" => {
                let history = payload
                    .and_then(|p| p.get("compressedHistory"))
                    .and_then(Value::as_array);
                let text = history
                    .map(|h| {
                        h.iter()
                            .filter(|m| str_of(m, "role") == Some("user"))
                            .map(|m| texts(&parts_of(m), true))
                            .filter(|t| !t.is_empty())
                            .collect::<Vec<_>>()
                            .join("\n\n")
                    })
                    .unwrap_or_default();
                let info = payload.and_then(|p| p.get("info")).cloned();
                let e = out.event(EventKind::Compaction, text);
                e.subtype = Some("chat_compression".into());
                if let Some(i) = info {
                    e.data = Some(json!({ "info": i }));
                }
            }
            other => {
                let label = if other.is_empty() { "system" } else { other };
                let text = payload
                    .map(|p| {
                        str_of(p, "text")
                            .or_else(|| str_of(p, "message"))
                            .map(String::from)
                            .unwrap_or_default()
                    })
                    .unwrap_or_default();
                let e = out.event(EventKind::System, text);
                e.subtype = Some(label.to_string());
                e.surface = Surface::LogOnly;
                e.data = payload.cloned();
            }
        }
    }

    /// Everything a resumed parse needs to continue where this one stands (see
    /// [`crate::resume`]).
    pub fn state(&self) -> Value {
        let mut calls: Vec<u64> = self.calls.iter().copied().collect();
        calls.sort_unstable();
        json!({
            "calls": pack_u64s(&calls),
            "names": self.names,
            "durations": self.durations,
            "unpaired": self.unpaired,
            "stats": self.stats,
            "facts": self.facts,
        })
    }

    /// A mapper for `path` continuing from [`Mapper::state`]; `None` when the state is not one.
    pub fn restore(path: PathBuf, v: &Value) -> Option<Self> {
        let de = |k: &str| v.get(k).cloned();
        Some(Mapper {
            path,
            calls: unpack_u64s(v.get("calls")?.as_str()?)?
                .into_iter()
                .collect(),
            names: serde_json::from_value(de("names")?).ok()?,
            durations: serde_json::from_value(de("durations")?).ok()?,
            unpaired: serde_json::from_value(de("unpaired")?).ok()?,
            stats: serde_json::from_value(de("stats")?).ok()?,
            facts: serde_json::from_value(de("facts")?).ok()?,
        })
    }

    /// Warnings for what the records showed, at the end of the file.
    pub fn finish(&mut self) -> Vec<Warning> {
        let mut w = Vec::new();
        for (ty, (n, line)) in &self.stats.unknown {
            w.push(Warning::at(
                WarningKind::UnknownRecord,
                format!("unknown record type '{ty}' seen {n} time(s); skipped"),
                &self.path,
                Some(*line),
            ));
        }
        for (id, line) in self.unpaired.drain(..) {
            w.push(Warning::at(
                WarningKind::UnpairedResult,
                format!("tool result for call id '{id}' matches no earlier tool call"),
                &self.path,
                Some(line),
            ));
        }
        w
    }
}

/// Events of one record under construction.
struct Out<'a> {
    v: &'a Value,
    raw: RawRef,
    events: Vec<Event>,
}

impl<'a> Out<'a> {
    fn new(v: &'a Value, raw: RawRef) -> Self {
        Out {
            v,
            raw,
            events: Vec::new(),
        }
    }

    fn event(&mut self, kind: EventKind, text: impl Into<String>) -> &mut Event {
        let id = str_of(self.v, "uuid").unwrap_or("");
        let loc = if id.is_empty() {
            Locator::record(self.raw.line, &[], Some(self.events.len()))
        } else {
            Locator::native(id, Some(self.events.len()))
        };
        let mut e =
            Event::new(kind, text, loc).at(self.v.get("timestamp").and_then(time::from_value));
        e.raw = self.raw;
        self.events.push(e);
        let last = self.events.len() - 1;
        &mut self.events[last]
    }
}

/// `message.parts` of a record.
fn parts(v: &Value) -> Vec<Value> {
    v.get("message").map(parts_of).unwrap_or_default()
}

/// Whether a telemetry event belongs to a subagent run: its `prompt_id` names an agent between
/// the session id and the prompt counter (`<sid>#<agentId>#<n>`; the main chat's is
/// `<sid>########<n>`).
fn of_subagent(ev: &Value) -> bool {
    str_of(ev, "prompt_id").is_some_and(|p| p.split('#').filter(|x| !x.is_empty()).count() > 2)
}

/// `parts` of a Gemini-shaped message (a string counts as one text part).
fn parts_of(m: &Value) -> Vec<Value> {
    match m.get("parts").or_else(|| m.get("content")) {
        Some(Value::Array(a)) => a.clone(),
        Some(Value::String(t)) => vec![json!({ "text": t })],
        _ => Vec::new(),
    }
}

/// Text parts joined; thoughts only when `thoughts` is true (else left out).
fn texts(parts: &[Value], thoughts: bool) -> String {
    parts
        .iter()
        .filter(|p| thoughts || p.get("thought").and_then(Value::as_bool) != Some(true))
        .filter_map(|p| str_of(p, "text"))
        .collect::<Vec<_>>()
        .join("")
}

fn string(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// `Exit Code: N` in a `run_shell_command` result text (only when it is there).
fn exit_code(tool: Option<&str>, text: &str) -> Option<i64> {
    if tool != Some("run_shell_command") {
        return None;
    }
    text.lines()
        .filter_map(|l| l.trim().strip_prefix("Exit Code:"))
        .find_map(|rest| rest.trim().parse::<i64>().ok())
}

/// Keys of a token count: (prompt, candidates, cached, thoughts, total).
type Keys = [&'static str; 5];

const METADATA_KEYS: Keys = [
    "promptTokenCount",
    "candidatesTokenCount",
    "cachedContentTokenCount",
    "thoughtsTokenCount",
    "totalTokenCount",
];

const TELEMETRY_KEYS: Keys = [
    "input_token_count",
    "output_token_count",
    "cached_content_token_count",
    "thoughts_token_count",
    "total_token_count",
];

/// Normalized usage of an `usageMetadata` object (see the crate doc).
fn usage(m: &Value) -> Option<TokenUsage> {
    usage_of(m, METADATA_KEYS)
}

fn usage_of(m: &Value, [p, c, k, t, tot]: Keys) -> Option<TokenUsage> {
    let prompt = u64_of(m, p);
    let cand = u64_of(m, c);
    if prompt.is_none() && cand.is_none() {
        return None;
    }
    let (prompt, cand) = (prompt.unwrap_or(0), cand.unwrap_or(0));
    let cached = u64_of(m, k).unwrap_or(0);
    let thoughts = u64_of(m, t).unwrap_or(0);
    // Qwen's OpenAI path counts reasoning inside the candidates (total = prompt + candidates);
    // Gemini's own API leaves it out (total = prompt + candidates + thoughts).
    let apart = thoughts > 0 && u64_of(m, tot) == Some(prompt + cand + thoughts);
    Some(TokenUsage {
        input: prompt.saturating_sub(cached),
        output: if apart { cand + thoughts } else { cand },
        cache_read: cached.min(prompt),
        cache_write: 0,
        reasoning: thoughts,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usage_counts_reasoning_once() {
        // From the corpus: total = prompt + candidates, thoughts inside the candidates.
        let m = json!({"promptTokenCount":19991,"candidatesTokenCount":90,"thoughtsTokenCount":17,"totalTokenCount":20081,"cachedContentTokenCount":0});
        let u = usage(&m).unwrap();
        assert_eq!(
            (u.input, u.output, u.reasoning, u.total()),
            (19991, 90, 17, 20081)
        );
        // Gemini-style figures: thoughts outside the candidates.
        let m = json!({"promptTokenCount":100,"candidatesTokenCount":10,"thoughtsTokenCount":5,"totalTokenCount":115,"cachedContentTokenCount":40});
        let u = usage(&m).unwrap();
        assert_eq!(
            (u.input, u.cache_read, u.output, u.total()),
            (60, 40, 15, 115)
        );
        assert!(usage(&json!({})).is_none());
    }

    #[test]
    fn subagent_telemetry_is_told_by_its_prompt_id() {
        let p = |id: &str| json!({ "prompt_id": id });
        assert!(!of_subagent(&p("4106c652-5ce3########3")));
        assert!(of_subagent(&p("4106c652-5ce3#general-purpose-call_08#0")));
        assert!(!of_subagent(&p("compress-1796163143629")));
        assert!(!of_subagent(&json!({})));
    }

    #[test]
    fn exit_codes_only_from_shell_text() {
        assert_eq!(
            exit_code(Some("run_shell_command"), "Output: x\nExit Code: 1"),
            Some(1)
        );
        assert_eq!(exit_code(Some("read_file"), "Exit Code: 1"), None);
        assert_eq!(exit_code(Some("run_shell_command"), "planning"), None);
    }
}
