//! Mapping DSH records to scry events.
//!
//! Record envelope: `{"type", "seq", "time" (epoch ms), "data", "surfaceOp"?, "sourceEventSeqs"?}`
//! (compressed chunk records use `seq0` / `time0`); line 1 is the session header
//! `{"type":"session","version","id","createdAt","cwd","delegationDepth",
//! "origin"?,"parentSession"?,"isSeeded"?,"agentPreset"?}`.
//!
//! - `user/message`: a human prompt only when `source.kind` is absent or `user`; any other kind
//!   (`plugin`, `agent-instructions`, `subagent-settled`, …) is Meta with that kind as subtype.
//!   A `user/message` with a `surfaceOp` replace is the compaction checkpoint → Compaction.
//! - `assistant/message`: one event per content block (reasoning → Thinking, text → Assistant,
//!   tool-call → ToolCall); its `usage` goes on the last of them. Chunks are not emitted (see
//!   [`crate::chunks`]). `tool/call` only confirms a call already emitted (its time starts the
//!   duration clock); a `tool/call` without a message block is emitted itself.
//! - `tool/result`: one ToolResult per `tool-result` block, paired by call id; `isError`; the
//!   harness's own trailing `[exit code: N]` marker gives the exit code.
//! - `compaction/summary` carries the summarizer's usage, which goes on the Compaction event;
//!   `compaction/end` with `error` → System `compaction_failed`.
//! - Surfaces (S-Q2): records with `surfaceOp` are Current or Shadowed (see [`crate::surface`]);
//!   everything else is LogOnly.
//! - Fork seeds: records older than the header's `createdAt` are copied history:
//!   `data.copied = true` and no usage.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;

use scry_model::{
    Event, EventKind, Header, Lineage, LineageKind, Locator, ProviderId, RawRef, SessionKind,
    Surface, TitleSource, TokenUsage, Warning, WarningKind,
};
use scry_source::json::{as_u64, decode_json_string, str_of, text_of};
use scry_source::jsonl::Record;
use scry_source::Emitter;
use serde_json::{json, Value};

use crate::chunks::Pending;
use crate::surface::{SurfaceMap, SurfaceOp};

mod compaction;
mod partial;
mod tools;

use partial::origin_of;

/// Header facts gathered from the records.
#[derive(Debug, Default)]
struct Facts {
    id: Option<String>,
    cwd: Option<String>,
    created_ms: Option<i64>,
    origin: Option<String>,
    parent: Option<String>,
    seeded: bool,
    preset: Option<String>,
    label: Option<String>,
    titles: Vec<(String, Option<String>)>,
    models: Vec<String>,
}

/// A call seen so far.
#[derive(Debug, Clone)]
struct Call {
    tool: String,
    start_ms: Option<i64>,
}

/// A summary waiting for its checkpoint message.
#[derive(Debug)]
struct Summary {
    id: Option<String>,
    text: String,
    usage: Option<TokenUsage>,
    model: Option<String>,
    time_ms: Option<i64>,
    raw: RawRef,
    locator: Locator,
    copied: bool,
}

/// A message queued in the agent inbox that has not reached the conversation yet.
#[derive(Debug)]
struct Queued {
    text: String,
    kind: Option<String>,
    time_ms: Option<i64>,
    raw: RawRef,
    locator: Locator,
}

/// One record's position and identity, shared by the events made from it.
struct Rec<'a> {
    raw: &'a [u8],
    raw_ref: RawRef,
    seq: Option<u64>,
    time_ms: Option<i64>,
    surface: Surface,
    shadowed_by: Option<u64>,
}

/// Turns DSH records into events, in order.
pub struct Mapper<'p> {
    path: &'p Path,
    discovered_id: String,
    facts: Facts,
    surface: SurfaceMap,
    calls: HashMap<String, Call>,
    emitted_calls: HashSet<String>,
    chunks: Pending,
    summary: Option<Summary>,
    queued: Vec<(String, Queued)>,
    unknown: BTreeMap<String, (u64, u64)>,
    model: Option<String>,
    /// dsh seq of a model-visible record → seqs of the events made from it.
    events_of: HashMap<u64, Vec<u32>>,
    records: u64,
}

/// Epoch milliseconds of a record field.
fn ms(v: Option<&Value>) -> Option<i64> {
    match v? {
        Value::Number(n) => n.as_i64().or_else(|| n.as_f64().map(|f| f as i64)),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// Normalized usage: DSH `inputTokens` excludes cache reads (see the crate doc for the evidence).
pub fn usage_of(v: &Value) -> Option<TokenUsage> {
    if !v.is_object() {
        return None;
    }
    let g = |k: &str| v.get(k).and_then(as_u64).unwrap_or(0);
    let u = TokenUsage {
        input: g("inputTokens"),
        output: g("outputTokens"),
        cache_read: g("cacheReadTokens"),
        cache_write: g("cacheWriteTokens"),
        reasoning: g("reasoningTokens"),
    };
    let any = [
        "inputTokens",
        "outputTokens",
        "cacheReadTokens",
        "cacheWriteTokens",
        "reasoningTokens",
    ]
    .iter()
    .any(|k| v.get(*k).is_some());
    any.then_some(u)
}

/// The exit code from the harness's trailing `[exit code: N]` marker, if the output ends with it.
pub fn exit_code_marker(text: &str) -> Option<i64> {
    let t = text.trim_end();
    let inner = t.strip_suffix(']')?;
    let at = inner.rfind("[exit code: ")?;
    inner.get(at + "[exit code: ".len()..)?.trim().parse().ok()
}

fn set_data(ev: &mut Event, key: &str, value: Value) {
    ev.set_data(key, value);
}

impl<'p> Mapper<'p> {
    /// A mapper for the file at `path` (session directory name `discovered_id`), with the
    /// surface folded by the first pass.
    pub fn new(path: &'p Path, discovered_id: &str, surface: SurfaceMap) -> Self {
        Mapper {
            path,
            discovered_id: discovered_id.to_string(),
            facts: Facts::default(),
            surface,
            calls: HashMap::new(),
            emitted_calls: HashSet::new(),
            chunks: Pending::default(),
            summary: None,
            queued: Vec::new(),
            unknown: BTreeMap::new(),
            model: None,
            events_of: HashMap::new(),
            records: 0,
        }
    }

    fn locator(&self, rec: &Rec<'_>, id: Option<&str>, part: Option<usize>) -> Locator {
        match id.filter(|s| !s.is_empty()) {
            Some(id) => Locator::native(id, part),
            None => Locator::record(rec.raw_ref.line, rec.raw, part),
        }
    }

    fn copied(&self, time_ms: Option<i64>) -> bool {
        matches!((time_ms, self.facts.created_ms), (Some(t), Some(c)) if t < c)
    }

    /// A new event from `rec` with position, time and surface set.
    fn event(&self, rec: &Rec<'_>, kind: EventKind, text: String, locator: Locator) -> Event {
        let mut ev = Event::new(kind, text, locator);
        ev.raw = rec.raw_ref;
        ev = ev.at(rec.time_ms.and_then(scry_source::time::from_millis));
        ev.surface = rec.surface;
        if let (Some(by), Some(seq)) = (rec.shadowed_by, rec.seq) {
            set_data(&mut ev, "dshSeq", json!(seq));
            set_data(&mut ev, "shadowedByDshSeq", json!(by));
        }
        ev
    }

    fn emit(&mut self, rec: &Rec<'_>, ev: Event, out: &mut Emitter<'_>) {
        if rec.surface != Surface::LogOnly {
            if let Some(seq) = rec.seq {
                self.events_of.entry(seq).or_default().push(out.count());
            }
        }
        out.emit(ev);
    }

    /// Handles one record.
    pub fn record(&mut self, r: Record<'_>, out: &mut Emitter<'_>) {
        self.records += 1;
        let v = &r.value;
        let ty = str_of(v, "type").unwrap_or("").to_string();
        let seq = v.get("seq").or_else(|| v.get("seq0")).and_then(as_u64);
        let time_ms = ms(v.get("time").or_else(|| v.get("time0")));
        let op = v.get("surfaceOp").map(SurfaceOp::parse);
        let shadowed_by = match (&op, seq) {
            (Some(_), Some(s)) => self.surface.shadowed_by.get(&s).copied(),
            _ => None,
        };
        let surface = match (&op, shadowed_by) {
            (None, _) => Surface::LogOnly,
            (Some(_), Some(_)) => Surface::Shadowed,
            (Some(_), None) => Surface::Current,
        };
        let rec = Rec {
            raw: r.raw,
            raw_ref: RawRef {
                file: 0,
                offset: r.offset,
                len: r.raw.len() as u64,
                line: r.line,
            },
            seq,
            time_ms,
            surface,
            shadowed_by,
        };
        let null = Value::Null;
        let data = v.get("data").unwrap_or(&null);
        match ty.as_str() {
            "session" => self.session_header(v),
            "user/message" => self.user_message(&rec, data, v, op.as_ref(), out),
            "system/message" => self.system_message(&rec, data, v, out),
            "assistant/message" => self.assistant_message(&rec, data, out),
            "assistant/chunk" => {
                let origin = || origin_of(&rec);
                if let Some(chunk) = data.get("chunk") {
                    self.chunks.chunk(chunk, origin);
                }
            }
            "text-chunks" => self.chunks.text_chunks(data, || origin_of(&rec)),
            "tool-call-chunks" => self.chunks.tool_call_chunks(data, || origin_of(&rec)),
            "tool/call" => self.tool_call_record(&rec, data, out),
            "tool/result" => self.tool_result(&rec, data, out),
            "tool/ptc-dispatch-start" => self.ptc_start(&rec, data, out),
            "tool/ptc-dispatch" => self.ptc_result(&rec, data, out),
            "request/header" => {
                let model = scry_source::json::path(data, &["header", "config", "model"])
                    .and_then(Value::as_str);
                self.note_model(model);
            }
            "request/context" => self.note_model(str_of(data, "model")),
            "session/title" => {
                if let Some(t) = str_of(data, "title").filter(|t| !t.trim().is_empty()) {
                    let kind = scry_source::json::path(data, &["source", "kind"])
                        .and_then(Value::as_str)
                        .map(str::to_string);
                    self.facts.titles.push((t.to_string(), kind));
                }
            }
            "compaction/summary" => self.compaction_summary(&rec, data, out),
            "compaction/end" => self.compaction_end(&rec, data, out),
            "compaction/start"
            | "turn/start"
            | "session/end-seed"
            | "session/title-llm-request" => {}
            "step/start" | "step/end" => self.flush_chunks(out),
            "turn/end" => {
                self.flush_chunks(out);
                let reason = scry_source::json::path(data, &["reason", "kind"])
                    .and_then(Value::as_str)
                    .unwrap_or("");
                if !reason.is_empty() && reason != "completed" {
                    let loc = self.locator(&rec, None, None);
                    let mut ev = self.event(
                        &rec,
                        EventKind::System,
                        format!("turn ended: {reason}"),
                        loc,
                    );
                    ev.subtype = Some("turn_end".into());
                    ev.data = data.get("reason").map(|r| json!({ "reason": r }));
                    self.emit(&rec, ev, out);
                }
            }
            "agent/inbox/spliced" => self.inbox(&rec, data),
            "permission/preset" | "sandbox/mode" | "approval/policy" => {
                let text = data
                    .as_object()
                    .and_then(|m| m.values().find_map(Value::as_str))
                    .unwrap_or("")
                    .to_string();
                let loc = self.locator(&rec, None, None);
                let mut ev = self.event(&rec, EventKind::Meta, text, loc);
                ev.subtype = Some(ty.replace('/', "_"));
                self.emit(&rec, ev, out);
            }
            "subagent/descriptor" => {
                let label = str_of(data, "label").unwrap_or("").to_string();
                if !label.is_empty() {
                    self.facts.label = Some(label.clone());
                }
                self.note_model(str_of(data, "agentModel"));
                let loc = self.locator(&rec, None, None);
                let mut ev = self.event(&rec, EventKind::Meta, label, loc);
                ev.subtype = Some("subagent_descriptor".into());
                ev.data = Some(data.clone());
                self.emit(&rec, ev, out);
            }
            "todo/write" => {
                let mut lines = Vec::new();
                if let Some(Value::Array(todos)) = data.get("todos") {
                    for t in todos {
                        lines.push(format!(
                            "[{}] {}",
                            str_of(t, "status").unwrap_or("?"),
                            str_of(t, "content").unwrap_or("")
                        ));
                    }
                }
                let loc = self.locator(&rec, None, None);
                let mut ev = self.event(&rec, EventKind::Meta, lines.join("\n"), loc);
                ev.subtype = Some("todos".into());
                ev.data = Some(data.clone());
                self.emit(&rec, ev, out);
            }
            _ => {
                let e = self.unknown.entry(ty).or_insert((0, r.line));
                e.0 += 1;
            }
        }
    }

    fn note_model(&mut self, model: Option<&str>) {
        if let Some(m) = model.filter(|m| !m.is_empty()) {
            self.model = Some(m.to_string());
            if !self.facts.models.iter().any(|x| x == m) {
                self.facts.models.push(m.to_string());
            }
        }
    }

    fn session_header(&mut self, v: &Value) {
        let f = &mut self.facts;
        f.id = str_of(v, "id").map(str::to_string);
        f.cwd = str_of(v, "cwd").map(str::to_string);
        f.created_ms = ms(v.get("createdAt"));
        f.origin = str_of(v, "origin").map(str::to_string);
        f.parent = str_of(v, "parentSession").map(str::to_string);
        f.seeded = v.get("isSeeded").and_then(Value::as_bool).unwrap_or(false);
        f.preset = str_of(v, "agentPreset").map(str::to_string);
    }

    fn user_message(
        &mut self,
        rec: &Rec<'_>,
        data: &Value,
        whole: &Value,
        op: Option<&SurfaceOp>,
        out: &mut Emitter<'_>,
    ) {
        let id = str_of(data, "id");
        if let Some(id) = id {
            self.queued.retain(|(q, _)| q != id);
        }
        let text = data.get("content").map(text_of).unwrap_or_default();
        let kind = scry_source::json::path(data, &["source", "kind"]).and_then(Value::as_str);
        let loc = self.locator(rec, id, None);
        let copied = self.copied(rec.time_ms);
        if let Some(SurfaceOp::Replace { .. }) = op {
            self.checkpoint(rec, data, whole, text, loc, out);
            return;
        }
        let human = matches!(kind, None | Some("user"));
        let mut ev = self.event(
            rec,
            if human {
                EventKind::User
            } else {
                EventKind::Meta
            },
            text,
            loc,
        );
        if !human {
            ev.subtype = kind.map(str::to_string);
            if let Some(src) = data.get("source") {
                for key in ["plugin", "form", "summary", "senderSessionId"] {
                    if let Some(x) = src.get(key) {
                        set_data(&mut ev, key, x.clone());
                    }
                }
            }
        }
        if copied {
            set_data(&mut ev, "copied", json!(true));
        }
        self.emit(rec, ev, out);
    }

    fn system_message(
        &mut self,
        rec: &Rec<'_>,
        data: &Value,
        whole: &Value,
        out: &mut Emitter<'_>,
    ) {
        let msg = data.get("message").unwrap_or(data);
        let text = msg.get("content").map(text_of).unwrap_or_default();
        let loc = self.locator(rec, str_of(msg, "id"), None);
        let mut ev = self.event(rec, EventKind::Meta, text, loc);
        ev.subtype = Some("system_message".into());
        if let Some(p) = scry_source::json::path(msg, &["source", "plugin"]) {
            set_data(&mut ev, "plugin", p.clone());
        }
        if let Some(op @ Value::Object(_)) = whole.get("surfaceOp") {
            set_data(&mut ev, "surfaceOp", op.clone());
        }
        self.emit(rec, ev, out);
    }

    fn assistant_message(&mut self, rec: &Rec<'_>, data: &Value, out: &mut Emitter<'_>) {
        self.chunks.clear();
        let null = Value::Null;
        let msg = data.get("message").unwrap_or(&null);
        let id = str_of(msg, "id");
        let model = scry_source::json::path(msg, &["source", "model"])
            .and_then(Value::as_str)
            .map(str::to_string)
            .or_else(|| self.model.clone());
        if let Some(m) = &model {
            self.note_model(Some(m));
        }
        let copied = self.copied(rec.time_ms);
        let usage = data.get("usage").and_then(usage_of);
        let mut events: Vec<Event> = Vec::new();
        if let Some(Value::Array(blocks)) = msg.get("content") {
            for (i, block) in blocks.iter().enumerate() {
                let loc = self.locator(rec, id, Some(i));
                match str_of(block, "type").unwrap_or("") {
                    "reasoning" | "thinking" => {
                        let text = str_of(block, "text").unwrap_or("").to_string();
                        events.push(self.event(rec, EventKind::Thinking, text, loc));
                    }
                    "text" => {
                        let text = str_of(block, "text").unwrap_or("").to_string();
                        events.push(self.event(rec, EventKind::Assistant, text, loc));
                    }
                    "tool-call" => {
                        let call_id = str_of(block, "id").unwrap_or("").to_string();
                        let name = str_of(block, "name").unwrap_or("").to_string();
                        let args = block.get("arguments").map(decode_json_string);
                        let mut ev = self.event(rec, EventKind::ToolCall, String::new(), loc);
                        ev.tool = Some(name.clone());
                        ev.call_id = Some(call_id.clone()).filter(|c| !c.is_empty());
                        ev.args = args;
                        if !call_id.is_empty() {
                            self.calls.insert(
                                call_id.clone(),
                                Call {
                                    tool: name,
                                    start_ms: rec.time_ms,
                                },
                            );
                            self.emitted_calls.insert(call_id);
                        }
                        events.push(ev);
                    }
                    other => {
                        let key = format!("assistant/message block '{other}'");
                        let e = self.unknown.entry(key).or_insert((0, rec.raw_ref.line));
                        e.0 += 1;
                        let text = text_of(block);
                        let mut ev = self.event(rec, EventKind::Meta, text, loc);
                        ev.subtype = Some(format!("block_{other}"));
                        ev.data = Some(block.clone());
                        events.push(ev);
                    }
                }
            }
        }
        if events.is_empty() && (usage.is_some() || msg.is_object()) {
            let loc = self.locator(rec, id, None);
            let mut ev = self.event(rec, EventKind::Assistant, String::new(), loc);
            ev.subtype = Some("empty_response".into());
            events.push(ev);
        }
        let n = events.len();
        for (i, mut ev) in events.into_iter().enumerate() {
            ev.model = model.clone();
            if copied {
                set_data(&mut ev, "copied", json!(true));
            } else if i + 1 == n {
                ev.usage = usage;
            }
            self.emit(rec, ev, out);
        }
    }

    fn inbox(&mut self, rec: &Rec<'_>, data: &Value) {
        if let Some(Value::Array(items)) = data.get("inserted") {
            for item in items {
                let Some(id) = str_of(item, "id") else {
                    continue;
                };
                let text = item.get("content").map(text_of).unwrap_or_default();
                let kind = scry_source::json::path(item, &["source", "kind"])
                    .and_then(Value::as_str)
                    .map(str::to_string);
                let q = Queued {
                    text,
                    kind,
                    time_ms: rec.time_ms,
                    raw: rec.raw_ref,
                    locator: self.locator(rec, Some(id), None),
                };
                self.queued.retain(|(x, _)| x != id);
                self.queued.push((id.to_string(), q));
            }
        }
    }

    /// Ends the stream: flushes pending state, reports unknown records and surface anomalies,
    /// and returns the header.
    pub fn finish(mut self, out: &mut Emitter<'_>) -> Header {
        self.flush_chunks(out);
        self.flush_summary(out);
        for (id, q) in std::mem::take(&mut self.queued) {
            let mut ev = Event::new(EventKind::Meta, q.text, q.locator);
            ev.raw = q.raw;
            ev = ev.at(q.time_ms.and_then(scry_source::time::from_millis));
            ev.surface = Surface::LogOnly;
            ev.subtype = Some("queued_message".into());
            ev.data = Some(json!({ "messageId": id, "sourceKind": q.kind,
                "note": "queued in the agent inbox but never spliced into the conversation" }));
            out.emit(ev);
        }
        for (ty, (count, line)) in &self.unknown {
            out.warn(Warning::at(
                WarningKind::UnknownRecord,
                format!("unknown record type '{ty}' ({count} record(s)); skipped"),
                self.path,
                Some(*line),
            ));
        }
        for a in std::mem::take(&mut self.surface.anomalies) {
            out.warn(Warning::at(WarningKind::Inconsistent, a, self.path, None));
        }
        self.header()
    }

    /// The header from what the records showed so far.
    pub fn header(&self) -> Header {
        let f = &self.facts;
        let id = f.id.clone().unwrap_or_else(|| self.discovered_id.clone());
        let mut h = Header::new(ProviderId::Dsh, id);
        h.sources = vec![self.path.to_path_buf()];
        h.cwd = f.cwd.clone();
        if let Some(t) = f.created_ms.and_then(scry_source::time::from_millis) {
            h.touch(t);
        }
        for (t, _) in &f.titles {
            if h.titles.last() != Some(t) {
                h.titles.push(t.clone());
            }
        }
        if let Some((t, kind)) = f.titles.last() {
            h.title = Some(t.clone());
            h.title_source = Some(match kind.as_deref() {
                Some("fallback") => TitleSource::FirstPrompt,
                Some("provider") | Some("llm") => TitleSource::Generated,
                Some("user") | Some("manual") | Some("custom") => TitleSource::Custom,
                _ => TitleSource::Metadata,
            });
        }
        for m in &f.models {
            h.add_model(m);
        }
        h.agent_name = f.label.clone().or_else(|| f.preset.clone());
        if f.origin.as_deref() == Some("subagent") {
            h.kind = SessionKind::Subagent;
            if let Some(p) = &f.parent {
                h.parent = Some(p.clone());
                h.lineage.push(Lineage {
                    kind: LineageKind::SubagentOf,
                    target: p.clone(),
                    evidence: "session.parentSession".into(),
                });
            }
        } else if f.parent.is_some() || f.seeded {
            h.kind = SessionKind::Fork;
            if let Some(p) = &f.parent {
                h.parent = Some(p.clone());
                h.lineage.push(Lineage {
                    kind: LineageKind::ForkedFrom,
                    target: p.clone(),
                    evidence: "session.parentSession".into(),
                });
            }
        }
        h
    }

    /// Records handled so far.
    pub fn records(&self) -> u64 {
        self.records
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exit_code_marker_only_at_the_end() {
        assert_eq!(exit_code_marker("(no output)\n[exit code: 1]"), Some(1));
        assert_eq!(exit_code_marker("x\n[exit code: 127]\n"), Some(127));
        assert_eq!(exit_code_marker("[exit code: 1] then more"), None);
        assert_eq!(exit_code_marker("2\n"), None);
    }

    #[test]
    fn usage_is_none_when_absent() {
        assert_eq!(usage_of(&json!({})), None);
        let u = usage_of(&json!({"inputTokens": 5, "cacheReadTokens": 7})).unwrap();
        assert_eq!((u.input, u.cache_read, u.output), (5, 7, 0));
    }
}
