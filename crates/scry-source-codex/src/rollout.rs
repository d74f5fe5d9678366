//! The JSONL rollout reader for the bare era (Rust CLI ≤ Sept 2025: line 1 a bare
//! `{id,timestamp,instructions,git}`, bare `ResponseItem`s, `{"record_type":"state"}` lines, no
//! timestamps) and the wrapped era (`{timestamp,type,payload}` with `session_meta`,
//! `turn_context`, `response_item`, `event_msg`, `compacted`, 2026 `world_state`,
//! `inter_agent_communication*`, `token_usage_record`, optional `ordinal`).
//!
//! Checked against codex 0.23.0, 0.53, 0.77, 0.106, 0.146 fixtures and 0.171.0 real files.
//!
//! Forks and subagents: the first `session_meta` is the identity. A later `session_meta` with
//! another id starts the parent's copied history; its events are marked `data.copied = true`
//! and carry no usage. The copy ends at the first `task_started` / `turn_context` (or item
//! with a turn id) whose UUIDv7 turn id was minted after the child's creation time; when turn
//! ids are not UUIDv7 it ends at the first record more than [`COPY_BURST_MS`] after the
//! copied `session_meta` line (Codex writes the copied history in one burst).

use scry_model::{EventKind, Header, Lineage, LineageKind, SessionKind, Timestamp, TitleSource};
use scry_source::json::{i64_of, path, str_of};
use scry_source::{time, Emitter};
use serde_json::{json, Value};

use crate::classify::duration_ms;
use crate::mapper::{Mapper, Rec};
use crate::pending::Receipt;
use crate::usage::Tracker;

/// How long after a copied parent `session_meta` line records still count as copied history
/// when turn ids cannot tell (not UUIDv7).
const COPY_BURST_MS: i64 = 2000;

/// `event_msg` types that are known and deliberately not turned into events (UI progress,
/// settings echoes, multi-agent bookkeeping, mirrors of items read elsewhere).
const IGNORED_EVENT_MSGS: &[&str] = &[
    "thread_settings_applied",
    "thread_goal_updated",
    "sub_agent_activity",
    "collab_agent_spawn_end",
    "collab_agent_interaction_end",
    "collab_waiting_end",
    "collab_close_end",
    "collab_resume_end",
    "dynamic_tool_call_request",
    "dynamic_tool_call_response",
    "guardian_assessment",
    "view_image_tool_call",
    "image_generation_end",
    "web_search_end",
    "web_search_begin",
    "undo_started",
    "undo_completed",
    "account/rateLimits/updated",
    "background_event",
    "plan_update",
    "turn_diff",
    "session_configured",
    "shutdown_complete",
    "exec_command_begin",
    "exec_command_output_delta",
    "patch_apply_begin",
    "mcp_tool_call_begin",
    "item_started",
    "agent_message_delta",
    "agent_reasoning_delta",
    "agent_reasoning_raw_content",
    "agent_reasoning_raw_content_delta",
    "agent_reasoning_section_break",
    "raw_response_item",
];

/// What the identity `session_meta` (or bare line 1) says.
#[derive(Debug, Default, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub(crate) struct Identity {
    pub id: Option<String>,
    pub created: Option<Timestamp>,
    pub cwd: Option<String>,
    pub git_branch: Option<String>,
    pub git_commit: Option<String>,
    pub version: Option<String>,
    pub originator: Option<String>,
    pub source: Value,
    pub thread_source: Option<String>,
    pub forked_from: Option<String>,
    pub parent_thread_id: Option<String>,
    pub agent_name: Option<String>,
    pub agent_path: Option<String>,
}

impl Identity {
    fn read(p: &Value, line_time: Option<Timestamp>) -> Identity {
        let s = |k: &str| str_of(p, k).filter(|v| !v.is_empty()).map(str::to_string);
        Identity {
            id: s("id"),
            created: p.get("timestamp").and_then(time::from_value).or(line_time),
            cwd: s("cwd"),
            git_branch: path(p, &["git", "branch"])
                .and_then(Value::as_str)
                .map(str::to_string),
            git_commit: path(p, &["git", "commit_hash"])
                .and_then(Value::as_str)
                .map(str::to_string),
            version: s("cli_version"),
            originator: s("originator"),
            source: p.get("source").cloned().unwrap_or(Value::Null),
            thread_source: s("thread_source"),
            forked_from: s("forked_from_id"),
            parent_thread_id: s("parent_thread_id"),
            agent_name: s("agent_nickname")
                .or_else(|| s("agent_role"))
                .or_else(|| s("agent_path")),
            agent_path: s("agent_path").or_else(|| {
                path(p, &["source", "subagent", "thread_spawn", "agent_path"])
                    .and_then(Value::as_str)
                    .map(str::to_string)
            }),
        }
    }

    /// Kind, parent and lineage with the field that proves each.
    pub(crate) fn lineage(&self) -> (SessionKind, Option<String>, Vec<Lineage>) {
        let spawn_parent = path(
            &self.source,
            &["subagent", "thread_spawn", "parent_thread_id"],
        )
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .map(str::to_string);
        let is_subagent = self.source.get("subagent").is_some()
            || self.thread_source.as_deref() == Some("subagent");
        let mut lineage = Vec::new();
        let mut parent = None;
        if is_subagent {
            let (target, evidence) = match (&spawn_parent, &self.parent_thread_id) {
                (Some(p), _) => (
                    Some(p.clone()),
                    "session_meta.source.subagent.thread_spawn.parent_thread_id",
                ),
                (None, Some(p)) => (Some(p.clone()), "session_meta.parent_thread_id"),
                (None, None) => (self.forked_from.clone(), "session_meta.forked_from_id"),
            };
            if let Some(t) = target {
                parent = Some(t.clone());
                lineage.push(Lineage {
                    kind: LineageKind::SubagentOf,
                    target: t,
                    evidence: evidence.to_string(),
                });
            }
        }
        if let Some(f) = &self.forked_from {
            parent.get_or_insert_with(|| f.clone());
            lineage.push(Lineage {
                kind: LineageKind::ForkedFrom,
                target: f.clone(),
                evidence: "session_meta.forked_from_id".to_string(),
            });
        }
        let exec = self.originator.as_deref() == Some("codex_exec")
            || self.source.as_str() == Some("exec");
        let kind = if is_subagent {
            SessionKind::Subagent
        } else if self.forked_from.is_some() {
            SessionKind::Fork
        } else if exec {
            SessionKind::Exec
        } else {
            SessionKind::Main
        };
        (kind, parent, lineage)
    }
}

/// State of one pass over a JSONL rollout.
pub(crate) struct Rollout {
    /// Item mapping and the hold-back buffer.
    pub mapper: Mapper,
    /// The identity, once read.
    pub identity: Option<Identity>,
    /// Last `turn_context.cwd`.
    pub turn_cwd: Option<String>,
    /// `thread_name_updated` names in file order.
    pub thread_names: Vec<String>,
    /// `turn_context` models in first-use order (own history only).
    pub models: Vec<String>,
    pub(crate) tracker: Tracker,
    pub(crate) records: u64,
    /// Earliest and latest line timestamps (every line counts, event or not).
    pub(crate) span: Option<(Timestamp, Timestamp)>,
    pub(crate) copy_start: Option<Timestamp>,
    pub(crate) copy_v7: bool,
}

impl Rollout {
    /// A reader for `path`; `use_mirrors` when the file's head holds no `response_item`.
    pub(crate) fn new(path: std::path::PathBuf, use_mirrors: bool) -> Self {
        let mut mapper = Mapper::new(path);
        mapper.use_mirrors = use_mirrors;
        Rollout {
            mapper,
            identity: None,
            turn_cwd: None,
            thread_names: Vec::new(),
            models: Vec::new(),
            tracker: Tracker::default(),
            records: 0,
            span: None,
            copy_start: None,
            copy_v7: false,
        }
    }

    /// Maps one record.
    pub(crate) fn record(&mut self, rec: Rec<'_>, v: &Value, out: &mut Emitter<'_>) {
        self.records += 1;
        let first = self.records == 1;
        if let (Some(t), Some(payload)) = (str_of(v, "type"), v.get("payload")) {
            let rec = Rec {
                time: v.get("timestamp").and_then(time::from_value),
                ..rec
            };
            if let Some(t) = rec.time {
                self.span = Some(match self.span {
                    Some((a, b)) => (a.min(t), b.max(t)),
                    None => (t, t),
                });
            }
            self.check_copy_end(&rec, t, payload);
            self.wrapped(&rec, t, payload, v.get("metadata"), out);
        } else if v.get("record_type").is_some() {
            // Bare-era state sentinel: carries nothing for the transcript.
        } else if first && v.get("id").is_some() && v.get("type").is_none() {
            let time = v.get("timestamp").and_then(time::from_value);
            self.identity = Some(Identity::read(v, time));
        } else if v.get("type").is_some() {
            self.mapper.item(&rec, v, None, out);
        } else {
            self.mapper
                .unknown("line without type".to_string(), rec.line);
        }
    }

    fn wrapped(
        &mut self,
        rec: &Rec<'_>,
        t: &str,
        p: &Value,
        line_meta: Option<&Value>,
        out: &mut Emitter<'_>,
    ) {
        match t {
            "session_meta" => self.session_meta(rec, p, out),
            "turn_context" => {
                if let Some(m) = str_of(p, "model")
                    .or_else(|| {
                        path(p, &["collaboration_mode", "settings", "model"])
                            .and_then(Value::as_str)
                    })
                    .filter(|m| !m.is_empty())
                {
                    self.mapper.model = Some(m.to_string());
                    if !self.mapper.copied && !self.models.iter().any(|x| x == m) {
                        self.models.push(m.to_string());
                    }
                }
                if !self.mapper.copied {
                    if let Some(c) = str_of(p, "cwd").filter(|c| !c.is_empty()) {
                        self.turn_cwd = Some(c.to_string());
                    }
                }
            }
            "response_item" => self.mapper.item(rec, p, line_meta, out),
            "event_msg" => self.event_msg(rec, p, out),
            "compacted" => {
                let text = str_of(p, "message").unwrap_or("").to_string();
                let mut ev = self.mapper.event(rec, EventKind::Compaction, text, None, 0);
                ev.subtype = Some("compacted".into());
                let n = p
                    .get("replacement_history")
                    .and_then(Value::as_array)
                    .map(Vec::len);
                let mut data = json!({ "replacement_history_items": n });
                for k in ["window_number", "window_id", "previous_window_id"] {
                    if let Some(x) = p.get(k) {
                        data[k] = x.clone();
                    }
                }
                crate::mapper::merge_data(&mut ev, Some(data));
                self.mapper.flush(out);
                self.mapper.input(ev, out);
            }
            "world_state"
            | "inter_agent_communication"
            | "inter_agent_communication_metadata"
            | "token_usage_record"
            | "security_risk_score"
            | "realtime_item" => {}
            other => self.mapper.unknown(other.to_string(), rec.line),
        }
    }

    fn session_meta(&mut self, rec: &Rec<'_>, p: &Value, out: &mut Emitter<'_>) {
        let id = str_of(p, "id");
        match &self.identity {
            None => {
                self.identity = Some(Identity::read(p, rec.time));
            }
            Some(me) if id.is_some() && me.id.as_deref() != id => {
                self.mapper.flush(out);
                self.mapper.copied = true;
                self.copy_start = rec.time;
                self.copy_v7 = false;
            }
            Some(_) => {}
        }
    }

    /// Ends copied parent history at the child's own first turn (see the module doc).
    fn check_copy_end(&mut self, rec: &Rec<'_>, t: &str, p: &Value) {
        if !self.mapper.copied || t == "session_meta" {
            return;
        }
        let turn_id = str_of(p, "turn_id").or_else(|| {
            path(
                p,
                &["internal_chat_message_metadata_passthrough", "turn_id"],
            )
            .and_then(Value::as_str)
        });
        let created = self
            .identity
            .as_ref()
            .and_then(|i| i.created)
            .map(|c| c.as_millisecond());
        if let (Some(ms), Some(created)) = (turn_id.and_then(uuid7_ms), created) {
            self.copy_v7 = true;
            if ms >= created {
                self.mapper.copied = false;
            }
            return;
        }
        if self.copy_v7 {
            return;
        }
        if let (Some(now), Some(start)) = (rec.time, self.copy_start) {
            if now.as_millisecond() - start.as_millisecond() > COPY_BURST_MS {
                self.mapper.copied = false;
            }
        }
    }

    fn event_msg(&mut self, rec: &Rec<'_>, p: &Value, out: &mut Emitter<'_>) {
        let t = str_of(p, "type").unwrap_or("");
        let m = &mut self.mapper;
        match t {
            "token_count" => {
                if let Some(u) = self.tracker.take(p) {
                    m.usage(rec, u, out);
                }
            }
            "task_started" | "turn_started" => {
                let data = pick(p, &["turn_id", "started_at", "model_context_window"]);
                m.flush(out);
                m.log_event(rec, EventKind::Meta, "task_started", "", data, out);
            }
            "task_complete" | "turn_complete" => {
                let data = pick(p, &["turn_id", "completed_at", "duration_ms", "error"]);
                m.log_event(rec, EventKind::Meta, "task_complete", "", data, out);
                m.flush(out);
            }
            "turn_aborted" => {
                let reason = str_of(p, "reason").unwrap_or("aborted").to_string();
                let data = pick(p, &["turn_id", "duration_ms"]);
                m.log_event(rec, EventKind::System, "turn_aborted", reason, data, out);
            }
            "error" | "stream_error" => {
                let text = str_of(p, "message")
                    .or_else(|| p.get("error").and_then(|e| str_of(e, "message")))
                    .unwrap_or("")
                    .to_string();
                m.log_event(rec, EventKind::System, t, text, None, out);
            }
            "thread_name_updated" => {
                if let Some(name) = str_of(p, "thread_name").filter(|n| !n.trim().is_empty()) {
                    if !m.copied {
                        self.thread_names.push(name.to_string());
                    }
                    m.log_event(rec, EventKind::Meta, "thread_name", name, None, out);
                }
            }
            "thread_rolled_back" => {
                let data = pick(p, &["num_turns"]);
                m.log_event(rec, EventKind::System, t, "", data, out);
            }
            "context_compacted" | "entered_review_mode" | "exited_review_mode" => {
                m.log_event(rec, EventKind::Meta, t, "", None, out);
            }
            "user_message" | "agent_message" | "agent_reasoning" => {
                let text = str_of(p, "message")
                    .or_else(|| str_of(p, "text"))
                    .unwrap_or("")
                    .to_string();
                mirror(m, rec, t, text, out);
            }
            "item_completed" => {
                let item = p.get("item").cloned().unwrap_or(Value::Null);
                item_completed(m, rec, &item, out);
            }
            "exec_command_end" => {
                if let Some(id) = str_of(p, "call_id") {
                    let r = Receipt {
                        exit_code: i64_of(p, "exit_code"),
                        duration_ms: duration_ms(p),
                        success: status_success(p),
                    };
                    m.receipt(id, r);
                }
            }
            "patch_apply_end" => {
                if let Some(id) = str_of(p, "call_id") {
                    let r = Receipt {
                        success: p.get("success").and_then(Value::as_bool),
                        ..Receipt::default()
                    };
                    m.receipt(id, r);
                }
            }
            "mcp_tool_call_end" => {
                if let Some(id) = str_of(p, "call_id") {
                    let success = match p.get("result") {
                        Some(r) if r.get("Err").is_some() => Some(false),
                        Some(r) => path(r, &["Ok", "isError"])
                            .and_then(Value::as_bool)
                            .map(|e| !e),
                        None => None,
                    };
                    let r = Receipt {
                        duration_ms: duration_ms(p),
                        success,
                        ..Receipt::default()
                    };
                    m.receipt(id, r);
                }
            }
            other if IGNORED_EVENT_MSGS.contains(&other) => {}
            other => m.unknown(format!("event_msg:{other}"), rec.line),
        }
    }

    /// Builds the header facts this pass found (id falls back to `file_id`).
    pub(crate) fn header(&self, file_id: &str) -> Header {
        let ident = self.identity.clone().unwrap_or_default();
        let id = ident.id.clone().unwrap_or_else(|| file_id.to_string());
        let mut h = Header::new(scry_model::ProviderId::Codex, id);
        h.cwd = ident
            .cwd
            .clone()
            .or_else(|| self.turn_cwd.clone())
            .or_else(|| self.mapper.env_cwd.clone());
        h.git_branch = ident.git_branch.clone();
        h.git_commit = ident.git_commit.clone();
        h.agent_version = ident.version.clone();
        h.agent_name = ident.agent_name.clone();
        let (kind, parent, lineage) = ident.lineage();
        h.kind = kind;
        h.parent = parent;
        h.lineage = lineage;
        if let Some(c) = ident.created {
            h.touch(c);
        }
        if let Some((a, b)) = self.span {
            h.touch(a);
            h.touch(b);
        }
        for m in &self.models {
            h.add_model(m);
        }
        if let Some(name) = self.thread_names.last() {
            h.title = Some(name.clone());
            h.title_source = Some(TitleSource::Custom);
            h.titles = self.thread_names.clone();
        } else if kind == SessionKind::Subagent {
            // A subagent's prompt is the parent's NEW_TASK envelope (its payload encrypted):
            // the agent path names it better.
            if let Some(name) = ident.agent_path.clone().or(ident.agent_name.clone()) {
                h.title = Some(name);
                h.title_source = Some(TitleSource::Metadata);
            }
        }
        h
    }
}

/// Uses an `event_msg` mirror only when the file has no `response_item` history.
fn mirror(m: &mut Mapper, rec: &Rec<'_>, t: &str, text: String, out: &mut Emitter<'_>) {
    if !m.use_mirrors || text.is_empty() {
        return;
    }
    match t {
        "user_message" => m.user_text(rec, text, 0, None, out),
        "agent_message" => {
            let ev = m.event(rec, EventKind::Assistant, text, None, 0);
            m.model_out(ev, out);
        }
        _ => {
            let ev = m.event(rec, EventKind::Thinking, text, None, 0);
            m.model_out(ev, out);
        }
    }
}

/// `item_completed` (paginated history mode): mirrors and completion receipts.
fn item_completed(m: &mut Mapper, rec: &Rec<'_>, item: &Value, out: &mut Emitter<'_>) {
    let id = str_of(item, "id").unwrap_or("");
    match str_of(item, "type").unwrap_or("") {
        "UserMessage" | "AgentMessage" => {
            let text = crate::classify::content_text(item.get("content"));
            let t = if str_of(item, "type") == Some("UserMessage") {
                "user_message"
            } else {
                "agent_message"
            };
            mirror(m, rec, t, text, out);
        }
        "Reasoning" => {
            let text = match item.get("summary_text") {
                Some(Value::Array(a)) => a
                    .iter()
                    .filter_map(Value::as_str)
                    .collect::<Vec<_>>()
                    .join("\n\n"),
                _ => String::new(),
            };
            mirror(m, rec, "agent_reasoning", text, out);
        }
        "CommandExecution" => m.receipt(
            id,
            Receipt {
                exit_code: i64_of(item, "exit_code"),
                duration_ms: duration_ms(item),
                success: status_success(item),
            },
        ),
        "FileChange" | "McpToolCall" => m.receipt(
            id,
            Receipt {
                duration_ms: duration_ms(item),
                success: status_success(item),
                ..Receipt::default()
            },
        ),
        "ContextCompaction" => {
            m.log_event(rec, EventKind::Meta, "context_compacted", "", None, out)
        }
        _ => {}
    }
}

/// `status: completed|failed` as a success flag.
fn status_success(p: &Value) -> Option<bool> {
    match str_of(p, "status")? {
        "completed" | "success" => Some(true),
        "failed" | "error" | "declined" => Some(false),
        _ => None,
    }
}

/// The listed keys of `p` that are present, as a `data` object.
fn pick(p: &Value, keys: &[&str]) -> Option<Value> {
    let mut map = serde_json::Map::new();
    for k in keys {
        if let Some(v) = p.get(*k).filter(|v| !v.is_null()) {
            map.insert((*k).to_string(), v.clone());
        }
    }
    (!map.is_empty()).then_some(Value::Object(map))
}

/// The millisecond timestamp inside a UUIDv7, `None` for other strings.
pub(crate) fn uuid7_ms(s: &str) -> Option<i64> {
    let b = s.as_bytes();
    if b.len() != 36 || b.get(14) != Some(&b'7') || b.get(8) != Some(&b'-') {
        return None;
    }
    let hex: String = s.get(0..8)?.to_string() + s.get(9..13)?;
    i64::from_str_radix(&hex, 16).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uuid7_time() {
        // 01a22cf1-8086-… was minted at 2026-11-30T14:52:34.438Z (the turn in the real file).
        let ms = uuid7_ms("01a22cf1-8086-74d3-a567-f237a13fcfd1").unwrap();
        assert_eq!(ms, 0x01a2_2cf1_8086);
        assert!(uuid7_ms("418836f6-a5f6-43de-9650-b0fede8a3574").is_none());
    }
}
