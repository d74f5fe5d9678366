//! Reading an `agy` transcript (`.system_generated/logs/transcript.jsonl`) into events.
//!
//! Line: `{step_index, source, type, status, created_at, content?, thinking?, tool_calls?,
//! truncated_fields?}`. Steps are emitted in `step_index` order (gaps and out-of-order lines
//! occur): a first pass records each line's step index and byte range (plus the paths in tool
//! arguments, for the workspace), the second reads the lines in sorted order by seeking — memory
//! stays at a few words per line.
//!
//! - `USER_INPUT` → User (the text inside `<USER_REQUEST>`; `<USER_SETTINGS_CHANGE>` names the
//!   model: "… `Model Selection` from X to Y"); no request text → Meta `user_settings_change`.
//! - `PLANNER_RESPONSE` → Thinking (`thinking`), Assistant (`content`), one ToolCall per planned
//!   call (`{name, id?, args|arguments}`; argument values that are JSON-encoded strings are
//!   decoded). A call without an id gets `step<N>#<k>`.
//! - any tool-execution step (`VIEW_FILE`, `RUN_COMMAND`, …) → ToolResult paired BY ORDER with
//!   the oldest pending planned call; none pending → kept as unconfirmed with a warning.
//!   `RUN_COMMAND` text "exited with code N" / "completed successfully" gives the exit code.
//! - `truncated_fields: ["content"]` → the full text from `.system_generated/steps/<N>/output.txt`
//!   (`data.restored = true`), or, when that file is missing, the truncated text with `data.note`
//!   and a `MissingSideFile` warning.
//! - `CHECKPOINT` → Compaction; `EPHEMERAL_MESSAGE` → Meta; `SYSTEM_MESSAGE` → System;
//!   `CONVERSATION_HISTORY` → Meta.
//!
//! Antigravity records no token usage: every event's usage is `None`.

use std::collections::{BTreeMap, VecDeque};
use std::fs::File;
use std::io::{BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use scry_model::{Event, EventKind, Locator, RawRef, Surface, Warning, WarningKind};
use scry_source::json::{as_u64, decode_json_string, str_of, text_of};
use scry_source::lines::LineReader;
use scry_source::{jsonl, Emitter, SourceError};
use serde_json::{json, Map, Value};

use crate::workspace::PathEvidence;

/// Step types that are not tool executions.
const NON_TOOL: [&str; 6] = [
    "USER_INPUT",
    "PLANNER_RESPONSE",
    "CHECKPOINT",
    "EPHEMERAL_MESSAGE",
    "SYSTEM_MESSAGE",
    "CONVERSATION_HISTORY",
];

/// Tool-execution step types seen in Antigravity transcripts.
const KNOWN_TOOL_STEPS: [&str; 20] = [
    "VIEW_FILE",
    "RUN_COMMAND",
    "LIST_DIRECTORY",
    "CODE_ACTION",
    "SEARCH_WEB",
    "EDIT_FILE",
    "WRITE_TO_FILE",
    "GREP_SEARCH",
    "FIND",
    "GENERIC",
    "VIEW_CODE_ITEM",
    "VIEW_FILE_OUTLINE",
    "READ_URL_CONTENT",
    "COMMAND_STATUS",
    "SEND_COMMAND_INPUT",
    "MCP_TOOL",
    "READ_RESOURCE",
    "LIST_RESOURCES",
    "TASK_BOUNDARY",
    "NOTIFY_USER",
];

/// One line's place in the file.
#[derive(Debug, Clone, Copy)]
struct Entry {
    step: i64,
    offset: u64,
    len: usize,
    line: u64,
    complete: bool,
}

/// What the first pass learned.
pub struct Index {
    entries: Vec<Entry>,
    /// Paths from tool arguments (for the workspace).
    pub paths: PathEvidence,
}

/// Decodes the values of an argument object that are JSON-encoded strings.
pub fn decode_args(v: &Value) -> Value {
    let v = decode_json_string(v);
    match v {
        Value::Object(map) => {
            let mut out = Map::new();
            for (k, x) in map {
                let decoded = match &x {
                    Value::String(s) => serde_json::from_str::<Value>(s).unwrap_or(x),
                    _ => x,
                };
                out.insert(k, decoded);
            }
            Value::Object(out)
        }
        other => other,
    }
}

fn call_args(call: &Value) -> Value {
    call.get("args")
        .or_else(|| call.get("arguments"))
        .or_else(|| call.get("input"))
        .or_else(|| scry_source::json::path(call, &["function", "arguments"]))
        .map(decode_args)
        .unwrap_or(Value::Null)
}

fn call_name(call: &Value) -> String {
    ["name", "tool_name"]
        .iter()
        .find_map(|k| str_of(call, k))
        .or_else(|| scry_source::json::path(call, &["function", "name"]).and_then(Value::as_str))
        .unwrap_or("")
        .to_string()
}

fn call_id(call: &Value) -> Option<String> {
    ["id", "call_id", "tool_call_id"]
        .iter()
        .find_map(|k| str_of(call, k))
        .filter(|s| !s.is_empty())
        .map(str::to_string)
}

/// First pass: step index and byte range of every line; argument paths.
pub fn index(path: &Path) -> Result<Index, SourceError> {
    let file = File::open(path).map_err(|e| SourceError::io(path, e))?;
    let mut lines = LineReader::new(BufReader::with_capacity(64 * 1024, file));
    let mut entries = Vec::new();
    let mut paths = PathEvidence::default();
    let mut last_step = -1i64;
    while let Ok(Some(line)) = lines.next_line() {
        if line.bytes.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let v: Option<Value> = serde_json::from_slice(line.bytes).ok();
        let step = v
            .as_ref()
            .and_then(|v| v.get("step_index"))
            .and_then(as_u64)
            .and_then(|s| i64::try_from(s).ok())
            .unwrap_or(last_step);
        last_step = step;
        if let Some(v) = &v {
            if str_of(v, "type") == Some("PLANNER_RESPONSE") {
                if let Some(Value::Array(calls)) = v.get("tool_calls") {
                    for c in calls {
                        paths.add_args(&call_args(c));
                    }
                }
            }
        }
        entries.push(Entry {
            step,
            offset: line.offset,
            len: line.bytes.len(),
            line: line.number,
            complete: line.complete,
        });
    }
    // Stable: lines with equal step index keep their file order.
    entries.sort_by_key(|e| e.step);
    Ok(Index { entries, paths })
}

/// The text inside every `<tag>…</tag>` block, trimmed and joined by a blank line.
fn tagged(text: &str, tag: &str) -> Option<String> {
    let open = format!("<{tag}>");
    let close = format!("</{tag}>");
    let mut parts = Vec::new();
    let mut rest = text;
    while let Some(a) = rest.find(&open) {
        let after = rest.get(a + open.len()..)?;
        let Some(b) = after.find(&close) else { break };
        parts.push(after.get(..b)?.trim().to_string());
        rest = after.get(b + close.len()..)?;
    }
    (!parts.is_empty()).then(|| parts.join("\n\n"))
}

/// The model named in a settings change: "… `Model Selection` from X to Y".
pub fn model_from_settings(text: &str) -> Option<String> {
    let at = text.find("Model Selection")?;
    let rest = text.get(at..)?;
    let to = rest.find(" to ")? + 4;
    let line = rest.get(to..)?.lines().next()?;
    // "… to Gemini 3.1 Pro (High). No need to comment on it." → up to the sentence end.
    let line = line.find(". ").and_then(|e| line.get(..e)).unwrap_or(line);
    let model = line.trim().trim_end_matches('.').trim();
    (!model.is_empty() && model != "None").then(|| model.to_string())
}

/// Exit code stated by a RUN_COMMAND step.
pub fn command_exit_code(text: &str) -> Option<i64> {
    if let Some(at) = text.find("exited with code ") {
        let rest = text.get(at + "exited with code ".len()..)?;
        let digits: String = rest
            .chars()
            .take_while(|c| c.is_ascii_digit() || *c == '-')
            .collect();
        return digits.parse().ok();
    }
    text.contains("The command completed successfully")
        .then_some(0)
}

fn set_data(ev: &mut Event, key: &str, value: Value) {
    ev.set_data(key, value);
}

/// Maps steps to events.
pub struct Mapper<'p> {
    path: &'p Path,
    brain: PathBuf,
    pending: VecDeque<(String, String)>,
    model: Option<String>,
    unknown: BTreeMap<String, (u64, u64)>,
    /// Models named by settings changes.
    pub models: Vec<String>,
}

impl<'p> Mapper<'p> {
    /// A mapper for the transcript at `path` of the brain directory `brain`.
    pub fn new(path: &'p Path, brain: PathBuf) -> Self {
        Mapper {
            path,
            brain,
            pending: VecDeque::new(),
            model: None,
            unknown: BTreeMap::new(),
            models: Vec::new(),
        }
    }

    /// Second pass: reads the lines in step order and emits their events.
    pub fn run(&mut self, index: &Index, out: &mut Emitter<'_>) -> Result<(), SourceError> {
        let mut file = File::open(self.path).map_err(|e| SourceError::io(self.path, e))?;
        let mut buf = Vec::new();
        let mut warnings = Vec::new();
        for e in &index.entries {
            buf.clear();
            buf.resize(e.len, 0);
            let read = file
                .seek(SeekFrom::Start(e.offset))
                .and_then(|_| file.read_exact(&mut buf));
            if let Err(err) = read {
                out.warn(Warning::at(
                    WarningKind::Unreadable,
                    format!("line changed while reading: {err}"),
                    self.path,
                    Some(e.line),
                ));
                continue;
            }
            let value = jsonl::parse_line(&buf, self.path, e.line, e.complete, &mut warnings);
            for w in warnings.drain(..) {
                out.warn(w);
            }
            if let Some(v) = value {
                let raw = RawRef {
                    file: 0,
                    offset: e.offset,
                    len: e.len as u64,
                    line: e.line,
                };
                self.step(&v, &buf, raw, out);
            }
        }
        for (ty, (count, line)) in &self.unknown {
            out.warn(Warning::at(
                WarningKind::UnknownRecord,
                format!("unknown step type '{ty}' ({count} step(s)); read as tool-execution steps"),
                self.path,
                Some(*line),
            ));
        }
        Ok(())
    }

    fn event(
        &self,
        v: &Value,
        raw_bytes: &[u8],
        raw: RawRef,
        kind: EventKind,
        text: String,
        part: usize,
    ) -> Event {
        let mut ev = Event::new(kind, text, Locator::record(raw.line, raw_bytes, Some(part)));
        ev.raw = raw;
        ev.at(v.get("created_at").and_then(scry_source::time::from_value))
    }

    /// `content`, restored from `steps/<n>/output.txt` when it was truncated.
    fn content(
        &self,
        v: &Value,
        raw: RawRef,
        out: &mut Emitter<'_>,
    ) -> (String, Option<(&'static str, Value)>) {
        let text = v.get("content").map(text_of).unwrap_or_default();
        let truncated = matches!(v.get("truncated_fields"), Some(Value::Array(f))
            if f.iter().any(|x| x.as_str() == Some("content")));
        if !truncated {
            return (text, None);
        }
        let step = v.get("step_index").and_then(as_u64).unwrap_or(0);
        let side = self
            .brain
            .join(".system_generated/steps")
            .join(step.to_string())
            .join("output.txt");
        match std::fs::read(&side) {
            Ok(bytes) => (
                String::from_utf8_lossy(&bytes).into_owned(),
                Some(("restored", json!(true))),
            ),
            Err(_) => {
                out.warn(Warning::at(
                    WarningKind::MissingSideFile,
                    format!(
                        "step {step}: content was truncated and {} is missing; the truncated text is kept",
                        side.display()
                    ),
                    self.path,
                    Some(raw.line),
                ));
                (
                    text,
                    Some((
                        "note",
                        json!(format!(
                            "truncated by Antigravity; .system_generated/steps/{step}/output.txt is missing"
                        )),
                    )),
                )
            }
        }
    }

    fn step(&mut self, v: &Value, raw_bytes: &[u8], raw: RawRef, out: &mut Emitter<'_>) {
        let ty = str_of(v, "type").unwrap_or("").to_string();
        let status = str_of(v, "status").unwrap_or("").to_string();
        match ty.as_str() {
            "USER_INPUT" => {
                self.pending.clear();
                let (content, mark) = self.content(v, raw, out);
                if let Some(settings) = tagged(&content, "USER_SETTINGS_CHANGE") {
                    if let Some(m) = model_from_settings(&settings) {
                        if !self.models.contains(&m) {
                            self.models.push(m.clone());
                        }
                        self.model = Some(m);
                    }
                }
                let request = tagged(&content, "USER_REQUEST").or_else(|| {
                    (!content.contains("<USER_SETTINGS_CHANGE>")).then(|| content.clone())
                });
                let mut ev = match request.filter(|r| !r.is_empty()) {
                    Some(r) => self.event(v, raw_bytes, raw, EventKind::User, r, 0),
                    None => {
                        let mut e =
                            self.event(v, raw_bytes, raw, EventKind::Meta, content.clone(), 0);
                        e.subtype = Some("user_settings_change".into());
                        e
                    }
                };
                if let Some(meta) = tagged(&content, "ADDITIONAL_METADATA") {
                    set_data(&mut ev, "metadata", json!(meta));
                }
                if let Some(s) = tagged(&content, "USER_SETTINGS_CHANGE") {
                    set_data(&mut ev, "settingsChange", json!(s));
                }
                if let Some((k, x)) = mark {
                    set_data(&mut ev, k, x);
                }
                out.emit(ev);
            }
            "PLANNER_RESPONSE" => {
                let mut part = 0;
                if let Some(t) = v.get("thinking").map(text_of).filter(|t| !t.is_empty()) {
                    let mut ev = self.event(v, raw_bytes, raw, EventKind::Thinking, t, part);
                    ev.model = self.model.clone();
                    out.emit(ev);
                    part += 1;
                }
                let (content, mark) = self.content(v, raw, out);
                if !content.is_empty() {
                    let mut ev = self.event(v, raw_bytes, raw, EventKind::Assistant, content, part);
                    ev.model = self.model.clone();
                    if let Some((k, x)) = mark {
                        set_data(&mut ev, k, x);
                    }
                    out.emit(ev);
                    part += 1;
                }
                let calls = match v.get("tool_calls") {
                    Some(Value::Array(c)) => c.as_slice(),
                    _ => &[],
                };
                if !calls.is_empty() {
                    self.pending.clear();
                }
                let step = v.get("step_index").and_then(as_u64).unwrap_or(0);
                for (k, c) in calls.iter().enumerate() {
                    let name = call_name(c);
                    let id = call_id(c).unwrap_or_else(|| format!("step{step}#{k}"));
                    let mut ev =
                        self.event(v, raw_bytes, raw, EventKind::ToolCall, String::new(), part);
                    ev.tool = Some(name.clone());
                    ev.call_id = Some(id.clone());
                    ev.args = Some(call_args(c));
                    ev.model = self.model.clone();
                    out.emit(ev);
                    part += 1;
                    self.pending.push_back((id, name));
                }
            }
            "CHECKPOINT" => {
                let (content, _) = self.content(v, raw, out);
                let mut ev = self.event(v, raw_bytes, raw, EventKind::Compaction, content, 0);
                ev.subtype = Some("checkpoint".into());
                out.emit(ev);
            }
            "EPHEMERAL_MESSAGE" | "SYSTEM_MESSAGE" | "CONVERSATION_HISTORY" => {
                let (content, mark) = self.content(v, raw, out);
                let kind = if ty == "SYSTEM_MESSAGE" {
                    EventKind::System
                } else {
                    EventKind::Meta
                };
                let mut ev = self.event(v, raw_bytes, raw, kind, content, 0);
                ev.subtype = Some(ty.to_ascii_lowercase());
                if ty == "CONVERSATION_HISTORY" {
                    ev.surface = Surface::LogOnly;
                }
                if let Some((k, x)) = mark {
                    set_data(&mut ev, k, x);
                }
                out.emit(ev);
            }
            _ => {
                if !KNOWN_TOOL_STEPS.contains(&ty.as_str())
                    && !ty.starts_with("BROWSER_")
                    && !NON_TOOL.contains(&ty.as_str())
                {
                    let e = self.unknown.entry(ty.clone()).or_insert((0, raw.line));
                    e.0 += 1;
                }
                self.tool_step(v, raw_bytes, raw, &ty, &status, out);
            }
        }
    }

    fn tool_step(
        &mut self,
        v: &Value,
        raw_bytes: &[u8],
        raw: RawRef,
        ty: &str,
        status: &str,
        out: &mut Emitter<'_>,
    ) {
        let (content, mark) = self.content(v, raw, out);
        let mut ev = self.event(v, raw_bytes, raw, EventKind::ToolResult, content, 0);
        ev.subtype = Some(ty.to_ascii_lowercase());
        match self.pending.pop_front() {
            Some((id, name)) => {
                ev.call_id = Some(id);
                ev.tool = Some(name);
            }
            None => {
                set_data(&mut ev, "unconfirmed", json!(true));
                out.warn(Warning::at(
                    WarningKind::UnpairedResult,
                    format!("{ty} step has no pending planned tool call to pair with"),
                    self.path,
                    Some(raw.line),
                ));
            }
        }
        if ty == "RUN_COMMAND" {
            ev.exit_code = command_exit_code(&ev.text);
        }
        let failed_status = matches!(
            status,
            "ERROR" | "FAILED" | "CANCELED" | "CANCELLED" | "STATUS_ERROR"
        );
        ev.is_error = match (ev.exit_code, status) {
            (Some(c), _) => Some(c != 0 || failed_status),
            (None, "DONE") => Some(false),
            (None, _) if failed_status => Some(true),
            _ => None,
        };
        if !status.is_empty() && status != "DONE" {
            set_data(&mut ev, "status", json!(status));
        }
        if let Some((k, x)) = mark {
            set_data(&mut ev, k, x);
        }
        out.emit(ev);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_and_exit_codes() {
        assert_eq!(
            model_from_settings("The user changed setting `Model Selection` from None to Gemini 3.5 Flash (Medium).").as_deref(),
            Some("Gemini 3.5 Flash (Medium)")
        );
        assert_eq!(
            model_from_settings(
                "setting `Model Selection` from None to Gemini 3.1 Pro (High). No need to comment."
            )
            .as_deref(),
            Some("Gemini 3.1 Pro (High)")
        );
        assert_eq!(
            tagged(
                "<USER_REQUEST>a</USER_REQUEST>x<USER_REQUEST> b </USER_REQUEST>",
                "USER_REQUEST"
            )
            .as_deref(),
            Some("a\n\nb")
        );
        assert_eq!(
            command_exit_code("The command exited with code 2.\nOutput:"),
            Some(2)
        );
        assert_eq!(
            command_exit_code("The command completed successfully.\nOutput:\n"),
            Some(0)
        );
        assert_eq!(command_exit_code("running"), None);
    }

    #[test]
    fn json_encoded_argument_values() {
        let a = decode_args(&json!({"DirectoryPath":"\"/tmp/repo\"","Depth":"2","Raw":"not json"}));
        assert_eq!(
            a,
            json!({"DirectoryPath":"/tmp/repo","Depth":2,"Raw":"not json"})
        );
        let b = decode_args(&json!("{\"CommandLine\":\"\\\"ls\\\"\"}"));
        assert_eq!(b, json!({"CommandLine":"ls"}));
    }
}
