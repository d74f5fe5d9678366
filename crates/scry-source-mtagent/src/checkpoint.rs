//! Joining a transcript with its LangGraph checkpoint (seed 003 §1.2, §4.2, §5): the
//! checkpoint says where the graph stopped; the transcript says what was seen.
//!
//! From the thread's latest checkpoint (state fields `messages`, `pending_tool_calls`,
//! `approval_requests`, `needs_human_approval`, `status`; the next node from LangGraph's
//! `branch:to:<node>` channels; `__interrupt__` / `__resume__` / `__error__` writes):
//! - a pending approval interrupt → `System` `interrupt_pending` (MT-Agent asks again on
//!   resume);
//! - an AI tool call in the checkpoint without a tool result that no pending approval covers
//!   → `System` `interrupted_tool_call` (MT-Agent never re-runs it; `data.in_transcript` says
//!   whether the transcript shows the call at all);
//! - a log-only `Meta` `checkpoint_state` (status, next node, counts);
//! - `Inconsistent` warnings: no `threadId` in the transcript; no checkpoint database or no
//!   checkpoint for the thread; message counts that differ (the checkpoint is authoritative
//!   for execution; a shorter transcript means history shown may be incomplete);
//!   `awaiting_approval` without a pending approval request; a checkpoint thread without a
//!   transcript.

use std::collections::HashSet;
use std::path::Path;

use scry_langgraph::{channels, msgpack, reconstruct, Db, Message, Value};
use scry_model::{Event, EventKind, Locator, Surface, TimeSource, Timestamp, Warning, WarningKind};
use scry_source::Emitter;

/// What the checkpoint join needs from the transcript (empty for a thread without one).
#[derive(Debug, Default)]
pub struct TranscriptFacts {
    /// Number of transcript messages.
    pub messages: usize,
    /// Tool call ids the transcript shows.
    pub call_ids: Vec<String>,
}

/// The latest state of one thread.
pub struct ThreadState {
    /// Rebuilt messages.
    pub messages: Vec<Message>,
    /// Problems met while rebuilding.
    pub warnings: Vec<String>,
    latest_id: Option<String>,
    time: Option<Timestamp>,
    values: Vec<(String, Value)>,
    interrupts: Vec<Value>,
    error: Option<String>,
}

fn ts(s: Option<&str>) -> Option<Timestamp> {
    s.and_then(scry_source::time::parse_str)
}

/// Reads the latest state of `thread` from `db`. `None` when the thread has no checkpoint.
pub fn load(db: &Db, thread: &str) -> Result<Option<ThreadState>, String> {
    let latest = db
        .latest_checkpoint(thread, "")
        .map_err(|e| e.to_string())?;
    let Some(latest) = latest else {
        return Ok(None);
    };
    let time = reconstruct::decode_checkpoint(&latest)
        .ok()
        .and_then(|cp| ts(cp.ts.as_deref()));
    let rebuilt = reconstruct::thread_messages(db, thread, "").map_err(|e| e.to_string())?;
    let (values, mut warnings) =
        reconstruct::latest_channel_values(db, thread, "").map_err(|e| e.to_string())?;
    warnings.extend(rebuilt.warnings);
    let interrupts = channels::pending_interrupts(db, thread, "").map_err(|e| e.to_string())?;
    let error = db
        .writes(thread, "", &latest.checkpoint_id, Some("__error__"))
        .map_err(|e| e.to_string())?
        .into_iter()
        .find_map(|w| {
            let d = msgpack::decode_typed(w.type_name.as_deref()?, w.value.as_deref()?).ok()?;
            Some(scry_langgraph::pyjson::py_str(&d.value))
        });
    Ok(Some(ThreadState {
        messages: rebuilt.messages,
        warnings,
        latest_id: Some(latest.checkpoint_id),
        time,
        values,
        interrupts,
        error,
    }))
}

impl ThreadState {
    fn value(&self, key: &str) -> Option<&Value> {
        self.values.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    /// The nodes LangGraph will run next (`branch:to:<node>` channels).
    pub fn next(&self) -> Vec<String> {
        self.values
            .iter()
            .filter_map(|(k, _)| k.strip_prefix("branch:to:"))
            .map(str::to_string)
            .collect()
    }

    /// The `status` state field.
    pub fn status(&self) -> Option<&str> {
        self.value("status").and_then(Value::as_str)
    }

    /// Messages that count against the transcript (system prompts are not recorded there).
    pub fn dialogue_count(&self) -> usize {
        self.messages
            .iter()
            .filter(|m| m.kind() != "system")
            .count()
    }

    /// AI tool calls without a tool result: `(call id, name, args)`.
    pub fn unanswered_calls(&self) -> Vec<(String, String, serde_json::Value)> {
        let answered: HashSet<&str> = self
            .messages
            .iter()
            .filter(|m| m.kind() == "tool")
            .filter_map(Message::tool_call_id)
            .collect();
        let mut out = Vec::new();
        for m in self.messages.iter().filter(|m| m.kind() == "ai") {
            for call in m.tool_calls().and_then(Value::as_array).unwrap_or(&[]) {
                let Some(id) = call.get("id").and_then(Value::as_str) else {
                    continue;
                };
                if answered.contains(id) {
                    continue;
                }
                let name = call.get("name").and_then(Value::as_str).unwrap_or("?");
                let args = call.get("args").map(Value::to_json).unwrap_or_default();
                out.push((id.to_string(), name.to_string(), args));
            }
        }
        out
    }

    /// Call ids the pending approval interrupts name (`action_requests[].tool_call_id`).
    fn approval_calls(&self) -> Vec<String> {
        let mut out = Vec::new();
        for i in &self.interrupts {
            let value = i.get("value").unwrap_or(i);
            for req in value
                .get("action_requests")
                .and_then(Value::as_array)
                .unwrap_or(&[])
            {
                if let Some(id) = req.get("tool_call_id").and_then(Value::as_str) {
                    out.push(id.to_string());
                }
            }
        }
        out
    }

    fn event(&self, kind: EventKind, text: String, locator: String) -> Event {
        let mut e = Event::new(kind, text, Locator::native(&locator, None));
        e.time = self.time;
        e.time_source = if self.time.is_some() {
            TimeSource::Derived
        } else {
            TimeSource::None
        };
        e
    }

    /// Emits the execution-state events and consistency warnings.
    pub fn emit(
        &self,
        thread: &str,
        db_path: &Path,
        transcript: Option<&TranscriptFacts>,
        out: &mut Emitter<'_>,
    ) {
        let next = self.next();
        let status = self.status().map(str::to_string);
        let checkpoint = self.latest_id.clone().unwrap_or_default();
        let warn = |out: &mut Emitter<'_>, msg: String| {
            out.warn(Warning::at(WarningKind::Inconsistent, msg, db_path, None));
        };
        for w in &self.warnings {
            out.warn(Warning::at(WarningKind::Other, w.clone(), db_path, None));
        }
        match transcript {
            Some(t) if t.messages != self.dialogue_count() => {
                let tail = if self.dialogue_count() > t.messages {
                    "history shown from the transcript may be incomplete"
                } else {
                    "the transcript holds messages the checkpoint does not"
                };
                warn(
                    out,
                    format!(
                        "checkpoint of thread {thread} has {} messages, the transcript {}; \
                         the checkpoint is authoritative for execution state ({tail})",
                        self.dialogue_count(),
                        t.messages
                    ),
                );
            }
            Some(_) => {}
            None => warn(
                out,
                format!(
                    "checkpoint thread {thread} has no transcript; its {} messages are read from the checkpoint",
                    self.dialogue_count()
                ),
            ),
        }
        let awaiting = status.as_deref() == Some("awaiting_approval")
            || self
                .value("needs_human_approval")
                .is_some_and(Value::truthy);
        if awaiting && self.interrupts.is_empty() {
            warn(
                out,
                format!(
                    "thread {thread} is awaiting approval but has no pending approval request; \
                     MT-Agent refuses to resume its execution"
                ),
            );
        }
        let covered: Vec<String> = self.approval_calls();
        for (n, i) in self.interrupts.iter().enumerate() {
            let value = i.get("value").unwrap_or(i);
            let mut lines = Vec::new();
            for req in value
                .get("action_requests")
                .and_then(Value::as_array)
                .unwrap_or(&[])
            {
                let tool = req
                    .get("tool")
                    .or_else(|| req.get("name"))
                    .and_then(Value::as_str)
                    .unwrap_or("?");
                let args = req
                    .get("args")
                    .map(scry_langgraph::pyjson::dumps)
                    .unwrap_or_default();
                lines.push(format!("Awaiting approval: {tool} {args}"));
            }
            if lines.is_empty() {
                lines.push(format!(
                    "Interrupted, awaiting input: {}",
                    scry_langgraph::pyjson::dumps(value)
                ));
            }
            let mut e = self.event(
                EventKind::System,
                lines.join("\n"),
                format!("interrupt:{checkpoint}#{n}"),
            );
            e.subtype = Some("interrupt_pending".into());
            e.data = Some(serde_json::json!({
                "interrupt": i.to_json(),
                "status": status,
                "next": next,
                "thread_id": thread,
            }));
            out.emit(e);
        }
        let shown: HashSet<&str> = transcript
            .map(|t| t.call_ids.iter().map(String::as_str).collect())
            .unwrap_or_default();
        for (id, name, args) in self.unanswered_calls() {
            if covered.contains(&id) || (!self.interrupts.is_empty() && covered.is_empty()) {
                continue;
            }
            let mut e = self.event(
                EventKind::System,
                format!(
                    "Interrupted tool call: {name} {args} started but has no result; \
                     it is not re-run on resume"
                ),
                format!("interrupted:{id}"),
            );
            e.subtype = Some("interrupted_tool_call".into());
            e.tool = Some(name);
            e.call_id = Some(id.clone());
            e.args = Some(args);
            e.data = Some(serde_json::json!({
                "in_transcript": shown.contains(id.as_str()),
                "status": status,
                "next": next,
                "error": self.error,
                "thread_id": thread,
            }));
            out.emit(e);
        }
        let mut e = self.event(
            EventKind::Meta,
            format!(
                "checkpoint {checkpoint}: status {}, next {}",
                status.as_deref().unwrap_or("unknown"),
                if next.is_empty() {
                    "none".to_string()
                } else {
                    next.join(", ")
                }
            ),
            format!("checkpoint:{checkpoint}"),
        );
        e.subtype = Some("checkpoint_state".into());
        e.surface = Surface::LogOnly;
        e.data = Some(serde_json::json!({
            "thread_id": thread,
            "checkpoint_id": self.latest_id,
            "status": status,
            "next": next,
            "messages": self.dialogue_count(),
            "needs_human_approval": self.value("needs_human_approval").map(Value::to_json),
            "pending_tool_calls": self.value("pending_tool_calls").map(Value::to_json),
            "completed_tool_calls": self.value("completed_tool_calls").map(Value::to_json),
            "error": self.error,
        }));
        out.emit(e);
    }
}
