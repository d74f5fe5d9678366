//! Cursor CLI message records → scry events, for transcript lines and JSON store blobs alike.
//!
//! A record is `{"role": "user" | "assistant", "message": {"content": [blocks]}}` (a store blob
//! may carry `content` at the top level). Blocks: `text`, `thinking`, `tool_use {id?, name,
//! input}`, `tool_result {tool_use_id, content, is_error?}`. `{"type": "turn_ended"}` closes a
//! turn. No record carries a timestamp, so events have no time (`TimeSource::None`).
//!
//! - User text is wrapped in `<user_query>…</user_query>`: the inside is the prompt; text
//!   outside it (`<user_info>`, attached files, …) is injected context (Meta `context`), and a
//!   `Workspace Path: /…` line in it gives the cwd.
//! - `tool_use` blocks written without an `id` (the CLI's transcripts) are paired with the
//!   results of the very next user record by order, and only when the counts match exactly
//!   (the result then says `data.paired_by = "order"`); one record of events is held back for
//!   that, nothing more.

use std::collections::{BTreeMap, HashSet};
use std::path::PathBuf;

use scry_model::{Event, EventKind, Locator, RawRef, Surface, Warning, WarningKind};
use scry_source::json::str_of;
use scry_source::Emitter;
use serde_json::{json, Value};

/// How events of one record are located.
#[derive(Clone, Copy)]
pub enum Seed<'a> {
    /// A transcript line: its number and bytes.
    Line(u64, &'a [u8]),
    /// A store blob: its content id.
    Blob(&'a str),
}

/// Maps records in order, holding back one assistant record for id-less call pairing.
pub struct Mapper {
    path: PathBuf,
    held: Vec<Event>,
    idless: Vec<usize>,
    calls: HashSet<String>,
    unknown: BTreeMap<String, (u64, u64)>,
    warnings: Vec<Warning>,
    /// `Workspace Path:` found in injected user context.
    pub workspace: Option<String>,
    /// Absolute paths seen in tool arguments (cwd candidates).
    pub arg_paths: Vec<String>,
}

struct Parts<'a> {
    seed: Seed<'a>,
    raw: RawRef,
    part: usize,
}

impl Parts<'_> {
    fn event(&mut self, kind: EventKind, text: impl Into<String>) -> Event {
        let loc = match self.seed {
            Seed::Line(n, bytes) => Locator::record(n, bytes, Some(self.part)),
            Seed::Blob(id) => Locator::native(id, Some(self.part)),
        };
        self.part += 1;
        let mut e = Event::new(kind, text, loc);
        e.raw = self.raw;
        e
    }
}

impl Mapper {
    /// A mapper for records of `path`.
    pub fn new(path: PathBuf) -> Self {
        Mapper {
            path,
            held: Vec::new(),
            idless: Vec::new(),
            calls: HashSet::new(),
            unknown: BTreeMap::new(),
            warnings: Vec::new(),
            workspace: None,
            arg_paths: Vec::new(),
        }
    }

    /// Maps one record, emitting what is final.
    pub fn record(&mut self, v: &Value, seed: Seed<'_>, raw: RawRef, out: &mut Emitter<'_>) {
        let mut p = Parts { seed, raw, part: 0 };
        if str_of(v, "type") == Some("turn_ended") {
            self.flush(out);
            let mut e = p.event(EventKind::Meta, str_of(v, "status").unwrap_or(""));
            e.subtype = Some("turn_ended".into());
            e.surface = Surface::LogOnly;
            out.emit(e);
            return;
        }
        let content = v
            .get("message")
            .and_then(|m| m.get("content"))
            .or_else(|| v.get("content"));
        let blocks: Vec<Value> = match content {
            Some(Value::Array(a)) => a.clone(),
            Some(Value::String(s)) => vec![json!({"type": "text", "text": s})],
            _ => Vec::new(),
        };
        match str_of(v, "role").unwrap_or("") {
            "user" => self.user(&blocks, &mut p, out),
            "assistant" => {
                self.flush(out);
                self.assistant(&blocks, &mut p);
            }
            "system" => {
                self.flush(out);
                let mut e = p.event(EventKind::System, joined_text(&blocks));
                e.subtype = Some("system".into());
                out.emit(e);
            }
            other => {
                let label = if other.is_empty() {
                    str_of(v, "type").unwrap_or("(none)").to_string()
                } else {
                    format!("role {other}")
                };
                self.unknown.entry(label).or_insert((0, raw.line)).0 += 1;
            }
        }
    }

    fn user(&mut self, blocks: &[Value], p: &mut Parts<'_>, out: &mut Emitter<'_>) {
        let results: Vec<&Value> = blocks
            .iter()
            .filter(|b| str_of(b, "type") == Some("tool_result"))
            .collect();
        // Pair id-less calls of the held assistant record by order.
        let unmatched: Vec<String> = results
            .iter()
            .filter_map(|r| str_of(r, "tool_use_id"))
            .filter(|id| !self.calls.contains(*id))
            .map(String::from)
            .collect();
        let mut by_order: HashSet<String> = HashSet::new();
        if !self.idless.is_empty() && unmatched.len() == self.idless.len() {
            for (i, id) in self.idless.iter().zip(&unmatched) {
                if let Some(call) = self.held.get_mut(*i) {
                    call.call_id = Some(id.clone());
                    self.calls.insert(id.clone());
                    by_order.insert(id.clone());
                }
            }
        }
        let names: BTreeMap<String, Option<String>> = self
            .held
            .iter()
            .filter(|e| e.kind == EventKind::ToolCall)
            .filter_map(|e| e.call_id.clone().map(|c| (c, e.tool.clone())))
            .collect();
        self.flush(out);

        let text: String = blocks
            .iter()
            .filter(|b| str_of(b, "type").is_none_or(|t| t == "text"))
            .filter_map(|b| str_of(b, "text"))
            .collect::<Vec<_>>()
            .join("\n");
        if !text.is_empty() || results.is_empty() {
            let (context, prompt) = split_user_query(&text);
            if let Some(ctx) = context {
                if let Some(ws) = workspace_path(&ctx) {
                    self.workspace.get_or_insert(ws);
                }
                let mut e = p.event(EventKind::Meta, ctx);
                e.subtype = Some("context".into());
                out.emit(e);
            }
            if let Some(prompt) = prompt {
                out.emit(p.event(EventKind::User, prompt));
            }
        }
        for r in results {
            let id = str_of(r, "tool_use_id").unwrap_or("").to_string();
            let mut e = p.event(EventKind::ToolResult, result_text(r.get("content")));
            e.is_error = r.get("is_error").and_then(Value::as_bool);
            e.tool = names.get(&id).cloned().flatten();
            if by_order.contains(&id) {
                e.data = Some(json!({ "paired_by": "order" }));
            } else if !self.calls.contains(&id) {
                e.data = Some(json!({ "unconfirmed": true }));
                self.warnings.push(Warning::at(
                    WarningKind::UnpairedResult,
                    format!("tool result for call id '{id}' matches no tool call"),
                    &self.path,
                    Some(p.raw.line),
                ));
            }
            e.call_id = (!id.is_empty()).then_some(id);
            out.emit(e);
        }
    }

    fn assistant(&mut self, blocks: &[Value], p: &mut Parts<'_>) {
        for b in blocks {
            match str_of(b, "type").unwrap_or("") {
                "text" => {
                    let e = p.event(EventKind::Assistant, str_of(b, "text").unwrap_or(""));
                    self.held.push(e);
                }
                "thinking" | "reasoning" => {
                    let t = str_of(b, "thinking")
                        .or_else(|| str_of(b, "text"))
                        .unwrap_or("");
                    let e = p.event(EventKind::Thinking, t);
                    self.held.push(e);
                }
                "tool_use" | "tool_call" => {
                    let mut e = p.event(EventKind::ToolCall, "");
                    e.tool = str_of(b, "name").map(String::from);
                    e.args = b
                        .get("input")
                        .or_else(|| b.get("args"))
                        .map(scry_source::json::decode_json_string);
                    if let Some(args) = &e.args {
                        collect_paths(args, &mut self.arg_paths);
                    }
                    match str_of(b, "id") {
                        Some(id) => {
                            self.calls.insert(id.to_string());
                            e.call_id = Some(id.to_string());
                        }
                        None => self.idless.push(self.held.len()),
                    }
                    self.held.push(e);
                }
                other => {
                    let label = format!("assistant block {other}");
                    self.unknown.entry(label).or_insert((0, p.raw.line)).0 += 1;
                }
            }
        }
    }

    /// Emits the held events.
    pub fn flush(&mut self, out: &mut Emitter<'_>) {
        self.idless.clear();
        for e in self.held.drain(..) {
            out.emit(e);
        }
    }

    /// Flushes and returns the warnings (unknown shapes once each, unpaired results).
    pub fn finish(&mut self, out: &mut Emitter<'_>) -> Vec<Warning> {
        self.flush(out);
        let mut w = std::mem::take(&mut self.warnings);
        for (label, (n, line)) in std::mem::take(&mut self.unknown) {
            w.push(Warning::at(
                WarningKind::UnknownRecord,
                format!("unknown record shape '{label}' seen {n} time(s); skipped"),
                &self.path,
                Some(line),
            ));
        }
        w
    }
}

fn joined_text(blocks: &[Value]) -> String {
    blocks
        .iter()
        .filter_map(|b| str_of(b, "text"))
        .collect::<Vec<_>>()
        .join("\n")
}

fn result_text(c: Option<&Value>) -> String {
    match c {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(a)) => joined_text(a),
        Some(Value::Null) | None => String::new(),
        Some(other) => other.to_string(),
    }
}

/// Splits user text into (injected context outside `<user_query>`, the prompt inside).
/// Without the wrapper the whole text is the prompt.
pub fn split_user_query(text: &str) -> (Option<String>, Option<String>) {
    const OPEN: &str = "<user_query>";
    const CLOSE: &str = "</user_query>";
    let Some(start) = text.find(OPEN) else {
        return (None, Some(text.to_string()));
    };
    let inner_start = start + OPEN.len();
    let end = text[inner_start..]
        .find(CLOSE)
        .map_or(text.len(), |e| inner_start + e);
    let prompt = text[inner_start..end].trim().to_string();
    let after = text.get(end + CLOSE.len()..).unwrap_or("");
    let outside = format!("{}{}", &text[..start], after).trim().to_string();
    ((!outside.is_empty()).then_some(outside), Some(prompt))
}

/// `Workspace Path: /abs` in Cursor's injected `<user_info>`.
fn workspace_path(ctx: &str) -> Option<String> {
    ctx.lines()
        .filter_map(|l| l.trim().strip_prefix("Workspace Path:"))
        .map(str::trim)
        .find(|p| p.starts_with('/'))
        .map(String::from)
}

fn collect_paths(args: &Value, out: &mut Vec<String>) {
    for key in [
        "path",
        "file_path",
        "filePath",
        "target_file",
        "targetFile",
        "working_directory",
        "cwd",
    ] {
        if let Some(p) = args.get(key).and_then(Value::as_str) {
            if p.starts_with('/') && out.len() < 64 {
                out.push(p.to_string());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn user_query_is_split_from_context() {
        let (c, p) = split_user_query(
            "<user_info>\nWorkspace Path: /home/demo/x\n</user_info>\n<user_query>\nfix it\n</user_query>",
        );
        assert_eq!(p.as_deref(), Some("fix it"));
        let c = c.unwrap();
        assert_eq!(workspace_path(&c).as_deref(), Some("/home/demo/x"));
        assert_eq!(split_user_query("plain").1.as_deref(), Some("plain"));
    }
}
