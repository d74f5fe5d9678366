//! Records other than `user` / `assistant`: `system` lines, attachments, titles, modes and the
//! bookkeeping types that become no event (they are counted in [`crate::ParseStats`]). The
//! full table is in the crate doc.

use scry_model::{EventKind, Surface};
use scry_source::Emitter;
use serde_json::{Map, Value};

use crate::parse::{put, At, Parser};

/// Record types read and counted, never turned into events: request plumbing, cost and
/// progress ticks, file-history backups, prompt echoes.
pub const COUNTED: &[&str] = &[
    "progress",
    "file-history-snapshot",
    "last-prompt",
    "api-request",
    "api-request-blob",
    "api-request-shape",
    "tools-used",
    "cost-state",
    "atis-latch",
    "frame-link",
    "bridge-session",
    "started",
    "result",
    "agent-setting",
];

/// The type of a line that starts `{"type":"<t>"` with `<t>` in [`COUNTED`] (how Claude Code
/// writes those records), without decoding it. Such lines need no event and no envelope field
/// (they carry no cwd), so the parse only validates them and the header scan skips them.
pub fn counted_prefix(line: &[u8]) -> Option<&'static str> {
    let rest = line.strip_prefix(b"{\"type\":\"")?;
    let end = memchr::memchr(b'"', rest)?;
    let ty = rest.get(..end)?;
    COUNTED.iter().copied().find(|c| c.as_bytes() == ty)
}

/// Envelope keys left out of `event.data`.
const ENVELOPE: &[&str] = &[
    "type",
    "subtype",
    "uuid",
    "parentUuid",
    "sessionId",
    "cwd",
    "version",
    "gitBranch",
    "userType",
    "entrypoint",
    "isSidechain",
    "timestamp",
    "slug",
    "content",
    "agentId",
];

/// The record without its envelope fields, for `event.data`.
fn extras(v: &Value) -> Option<Value> {
    let obj = v.as_object()?;
    let m: Map<String, Value> = obj
        .iter()
        .filter(|(k, _)| !ENVELOPE.contains(&k.as_str()))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    (!m.is_empty()).then_some(Value::Object(m))
}

fn s<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or("")
}

impl Parser<'_> {
    pub(crate) fn count(&mut self, ty: &str) {
        *self.stats.counted.entry(ty.to_string()).or_insert(0) += 1;
    }

    /// Any record that is not `user` / `assistant`.
    pub(crate) fn other(
        &mut self,
        ty: &str,
        v: &Value,
        at: &At<'_>,
        fresh: bool,
        out: &mut Emitter<'_>,
    ) {
        if COUNTED.contains(&ty) {
            self.count(ty);
            return;
        }
        match ty {
            "system" => self.system(v, at, fresh, out),
            "attachment" => self.attachment(v, at, fresh, out),
            "queue-operation" => {
                let op = s(v, "operation");
                let content = v
                    .get("content")
                    .map(scry_source::json::text_of)
                    .unwrap_or_default();
                if matches!(op, "enqueue" | "dequeue") || content.is_empty() {
                    self.count(ty);
                    return;
                }
                let sub = format!("queue_{}", op.to_ascii_lowercase());
                self.log_only(&sub, content, v, at, fresh, out);
            }
            "summary" | "custom-title" | "ai-title" | "agent-name" | "permission-mode" | "mode"
            | "pr-link" | "worktree-state" | "relocated" => {
                let text = match ty {
                    "summary" => s(v, "summary"),
                    "custom-title" => s(v, "customTitle"),
                    "ai-title" => s(v, "aiTitle"),
                    "agent-name" => s(v, "agentName"),
                    "permission-mode" => s(v, "permissionMode"),
                    "mode" => s(v, "mode"),
                    "pr-link" => s(v, "prUrl"),
                    "relocated" => s(v, "relocatedCwd"),
                    _ => v
                        .get("worktreeSession")
                        .map(|w| s(w, "worktreePath"))
                        .unwrap_or(""),
                }
                .to_string();
                let sub = ty.replace('-', "_");
                self.log_only(&sub, text, v, at, fresh, out);
            }
            _ => {
                let entry = self
                    .stats
                    .unknown
                    .entry(ty.to_string())
                    .or_insert((0, at.line));
                entry.0 += 1;
            }
        }
    }

    fn log_only(
        &mut self,
        sub: &str,
        text: String,
        v: &Value,
        at: &At<'_>,
        fresh: bool,
        out: &mut Emitter<'_>,
    ) {
        let mut e = self.event(EventKind::Meta, text, v, at, None, fresh);
        e.subtype = Some(sub.to_string());
        e.surface = Surface::LogOnly;
        e.data = extras(v);
        self.send(e, out);
    }

    fn system(&mut self, v: &Value, at: &At<'_>, fresh: bool, out: &mut Emitter<'_>) {
        let sub = s(v, "subtype");
        let content = v
            .get("content")
            .map(scry_source::json::text_of)
            .unwrap_or_default();
        if sub == "compact_boundary" {
            let text = if content.is_empty() {
                "Conversation compacted".to_string()
            } else {
                content
            };
            let mut e = self.event(EventKind::Compaction, text, v, at, None, fresh);
            e.subtype = Some("compact_boundary".into());
            e.data = extras(v);
            self.boundary_pending = true;
            self.send(e, out);
            return;
        }
        let kind = if v.get("isMeta").and_then(Value::as_bool) == Some(true) {
            EventKind::Meta
        } else {
            EventKind::System
        };
        let text = if content.is_empty() {
            v.get("error")
                .and_then(|e| e.get("message").and_then(Value::as_str).or(e.as_str()))
                .unwrap_or("")
                .to_string()
        } else {
            content
        };
        let mut e = self.event(kind, text, v, at, None, fresh);
        e.subtype = Some(if sub.is_empty() {
            "system".into()
        } else {
            sub.to_string()
        });
        if sub == "turn_duration" {
            e.duration_ms = scry_source::json::u64_of(v, "durationMs");
            e.surface = Surface::LogOnly;
        }
        e.data = extras(v);
        self.send(e, out);
    }

    fn attachment(&mut self, v: &Value, at: &At<'_>, fresh: bool, out: &mut Emitter<'_>) {
        let att = v.get("attachment").unwrap_or(&Value::Null);
        let ty = s(att, "type");
        if ty == "prompt_snapshot" {
            // The whole system prompt, repeated before every request: bookkeeping.
            self.count("attachment:prompt_snapshot");
            return;
        }
        let rendered: Vec<String> = v
            .get("rendered")
            .and_then(Value::as_array)
            .map(|r| {
                r.iter()
                    .map(|x| {
                        x.get("content")
                            .map(scry_source::json::text_of)
                            .unwrap_or_default()
                    })
                    .filter(|t| !t.is_empty())
                    .collect()
            })
            .unwrap_or_default();
        let text = if rendered.is_empty() {
            ["content", "text", "prompt"]
                .iter()
                .find_map(|k| {
                    att.get(*k)
                        .map(scry_source::json::text_of)
                        .filter(|t| !t.is_empty())
                })
                .unwrap_or_default()
        } else {
            rendered.join("\n")
        };
        let kind = if ty.starts_with("hook_") && ty.contains("error") {
            EventKind::System
        } else {
            EventKind::Meta
        };
        let mut e = self.event(kind, text, v, at, None, fresh);
        e.subtype = Some(if ty.is_empty() {
            "attachment".into()
        } else {
            ty.to_string()
        });
        if ty == "hook_success" {
            e.surface = Surface::LogOnly;
        }
        if let Some(d) = att.get("durationMs").and_then(Value::as_u64) {
            e.duration_ms = Some(d);
        }
        if let Some(code) = att.get("exitCode").and_then(Value::as_i64) {
            e.exit_code = Some(code);
        }
        put(&mut e, "attachment", att.clone());
        self.send(e, out);
    }
}
