//! One Continue session document → events: the `history[]` items in order, tool results from
//! each item's `toolCallStates` (see the mapping table in the crate doc).

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use scry_model::{Event, EventKind, Locator, RawRef, TokenUsage, Warning, WarningKind};
use scry_source::json::{decode_json_string, str_of, text_of, u64_of};
use scry_source::{Emitter, SourceError};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;

/// The parts of a session document the reader needs, items kept with their byte positions.
pub struct Doc {
    /// `sessionId`.
    pub id: Option<String>,
    /// `title`.
    pub title: Option<String>,
    /// `workspaceDirectory`.
    pub cwd: Option<String>,
    /// `history[]` items: value, byte offset, byte length.
    pub history: Vec<Item>,
}

/// One `history[]` item with its place in the file.
pub struct Item {
    /// The decoded item (or `None` when it is not an object).
    pub value: Value,
    /// Byte offset in the document.
    pub offset: u64,
    /// Length in bytes.
    pub len: u64,
    /// 1-based line of its first byte.
    pub line: u64,
    /// 1-based position in `history`.
    pub index: u64,
}

#[derive(Deserialize)]
struct RawDoc<'a> {
    #[serde(default, rename = "sessionId")]
    session_id: Option<Value>,
    #[serde(default)]
    title: Option<Value>,
    #[serde(default, rename = "workspaceDirectory")]
    workspace: Option<Value>,
    #[serde(default, borrow)]
    history: Option<Vec<&'a RawValue>>,
}

impl Doc {
    /// Parses the document; one that is not a JSON object with a `history` array is a format
    /// error (the whole file is one record, so nothing else can be salvaged).
    pub fn parse(bytes: &[u8], path: &Path) -> Result<Doc, SourceError> {
        let raw: RawDoc<'_> = serde_json::from_slice(bytes).map_err(|e| {
            SourceError::format(path, format!("not a Continue session document: {e}"))
        })?;
        let Some(items) = raw.history else {
            return Err(SourceError::format(
                path,
                "not a Continue session document: no `history` array",
            ));
        };
        let base = bytes.as_ptr() as usize;
        let mut history = Vec::with_capacity(items.len());
        let mut line = 1u64;
        let mut counted = 0usize;
        for (i, item) in items.iter().enumerate() {
            let text = item.get();
            let offset = (text.as_ptr() as usize).saturating_sub(base);
            let upto = offset.min(bytes.len());
            line += bytes[counted.min(upto)..upto]
                .iter()
                .filter(|b| **b == b'\n')
                .count() as u64;
            counted = upto;
            history.push(Item {
                value: serde_json::from_str(text).unwrap_or(Value::Null),
                offset: offset as u64,
                len: text.len() as u64,
                line,
                index: i as u64 + 1,
            });
        }
        let s = |v: Option<Value>| v.and_then(|v| v.as_str().map(String::from));
        Ok(Doc {
            id: s(raw.session_id),
            title: s(raw.title),
            cwd: s(raw.workspace).filter(|c| !c.is_empty()),
            history,
        })
    }
}

/// Turns items into events, pairing tool results with the calls already seen.
pub struct Mapper<'a> {
    path: PathBuf,
    bytes: &'a [u8],
    calls: HashSet<String>,
    warnings: Vec<Warning>,
    /// Unknown roles: name, count, line of the first.
    unknown: Vec<(String, u64, u64)>,
}

impl<'a> Mapper<'a> {
    /// A mapper over the document `bytes` read from `path`.
    pub fn new(path: &Path, bytes: &'a [u8]) -> Self {
        Mapper {
            path: path.to_path_buf(),
            bytes,
            calls: HashSet::new(),
            warnings: Vec::new(),
            unknown: Vec::new(),
        }
    }

    /// Emits the events of one item.
    pub fn item(&mut self, item: &Item, out: &mut Emitter<'_>) {
        let raw = RawRef {
            file: 0,
            offset: item.offset,
            len: item.len,
            line: item.line,
        };
        let start = item.offset as usize;
        let bytes = self
            .bytes
            .get(start..start + item.len as usize)
            .unwrap_or_default();
        let mut part = 0usize;
        let mut ev = |kind: EventKind, text: String| {
            let mut e = Event::new(kind, text, Locator::record(item.index, bytes, Some(part)));
            part += 1;
            e.raw = raw;
            e
        };
        let v = &item.value;
        let Some(msg) = v.get("message").filter(|m| m.is_object()) else {
            self.warnings.push(Warning::at(
                WarningKind::CorruptRecord,
                format!("history item {} has no `message` object", item.index),
                &self.path,
                Some(item.line),
            ));
            return;
        };
        if let Some(summary) = str_of(v, "conversationSummary").filter(|s| !s.is_empty()) {
            let mut e = ev(EventKind::Compaction, summary.to_string());
            e.subtype = Some("conversation_summary".into());
            out.emit(e);
        }
        let role = str_of(msg, "role").unwrap_or("");
        let content = msg.get("content").map(text_of).unwrap_or_default();
        let usage = msg.get("usage").and_then(usage_of);
        let model = msg
            .get("usage")
            .and_then(|u| str_of(u, "model"))
            .map(String::from);
        match role {
            "user" => {
                let mut e = ev(EventKind::User, content);
                let images = msg
                    .get("content")
                    .and_then(Value::as_array)
                    .map(|a| {
                        a.iter()
                            .filter(|p| str_of(p, "type") == Some("imageUrl"))
                            .count()
                    })
                    .unwrap_or(0);
                if images > 0 {
                    e.set_data("images", images.into());
                }
                out.emit(e);
            }
            "assistant" => {
                let calls = msg
                    .get("toolCalls")
                    .and_then(Value::as_array)
                    .cloned()
                    .unwrap_or_default();
                // Usage and model ride on the first event of the item.
                let mut pending = (usage, model.clone());
                if !content.trim().is_empty() || calls.is_empty() {
                    let mut e = ev(EventKind::Assistant, content);
                    e.usage = pending.0.take();
                    e.model = pending.1.take();
                    out.emit(e);
                }
                for call in &calls {
                    let id = str_of(call, "id").unwrap_or("").to_string();
                    let f = call.get("function");
                    let name = f.and_then(|f| str_of(f, "name")).unwrap_or("").to_string();
                    let args = f
                        .and_then(|f| f.get("arguments"))
                        .map(decode_json_string)
                        .unwrap_or(Value::Null);
                    let mut e = ev(EventKind::ToolCall, String::new());
                    e.tool = Some(name);
                    e.call_id = (!id.is_empty()).then(|| id.clone());
                    e.args = Some(args);
                    e.usage = pending.0.take();
                    e.model = pending.1.take().or_else(|| model.clone());
                    if !id.is_empty() {
                        self.calls.insert(id);
                    }
                    out.emit(e);
                }
            }
            "thinking" => {
                let mut e = ev(EventKind::Thinking, content);
                e.usage = usage;
                e.model = model;
                out.emit(e);
            }
            "tool" => {
                let id = str_of(msg, "toolCallId").unwrap_or("").to_string();
                let mut e = ev(EventKind::ToolResult, content);
                self.pair(&id, item.line);
                e.call_id = (!id.is_empty()).then_some(id);
                out.emit(e);
            }
            "system" => {
                let mut e = ev(EventKind::Meta, content);
                e.subtype = Some("system".into());
                out.emit(e);
            }
            other => {
                let mut e = ev(EventKind::Meta, content);
                e.subtype = Some("unknown_role".into());
                e.set_data("role", other.into());
                out.emit(e);
                match self.unknown.iter_mut().find(|u| u.0 == other) {
                    Some(u) => u.1 += 1,
                    None => self.unknown.push((other.to_string(), 1, item.line)),
                }
            }
        }
        let states = v
            .get("toolCallStates")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        for state in &states {
            let status = str_of(state, "status").unwrap_or("");
            if matches!(status, "generating" | "generated" | "calling") {
                continue;
            }
            let id = str_of(state, "toolCallId")
                .or_else(|| state.get("toolCall").and_then(|c| str_of(c, "id")))
                .unwrap_or("")
                .to_string();
            let tool = state
                .get("toolCall")
                .and_then(|c| c.get("function"))
                .and_then(|f| str_of(f, "name"))
                .unwrap_or("")
                .to_string();
            let text = state
                .get("output")
                .and_then(Value::as_array)
                .map(|parts| {
                    parts
                        .iter()
                        .filter_map(|p| str_of(p, "content"))
                        .collect::<Vec<_>>()
                        .join("\n")
                })
                .unwrap_or_default();
            let mut e = ev(EventKind::ToolResult, text);
            e.exit_code = exit_code_in(&e.text);
            e.is_error = match status {
                "errored" => Some(true),
                "canceled" => {
                    e.subtype = Some("canceled".into());
                    Some(true)
                }
                "done" if is_shell(&tool) => None,
                "done" => Some(false),
                _ => None,
            };
            e.set_data("status", status.into());
            self.pair(&id, item.line);
            e.tool = (!tool.is_empty()).then_some(tool);
            e.call_id = (!id.is_empty()).then_some(id);
            out.emit(e);
        }
    }

    fn pair(&mut self, id: &str, line: u64) {
        if !self.calls.contains(id) {
            self.warnings.push(Warning::at(
                WarningKind::UnpairedResult,
                format!("tool result for call '{id}' with no tool call before it"),
                &self.path,
                Some(line),
            ));
        }
    }

    /// Warnings gathered while mapping (one per unknown role, with its count).
    pub fn finish(mut self) -> Vec<Warning> {
        for (role, n, line) in std::mem::take(&mut self.unknown) {
            self.warnings.push(Warning::at(
                WarningKind::UnknownRecord,
                format!("unknown message role '{role}' ({n} item(s)) kept as meta events, first at line {line}"),
                &self.path,
                Some(line),
            ));
        }
        self.warnings
    }
}

/// Continue's shell tool names (CLI `Bash`, extension `run_terminal_command`).
fn is_shell(tool: &str) -> bool {
    matches!(
        tool.to_ascii_lowercase().as_str(),
        "bash" | "run_terminal_command" | "runterminalcommand"
    )
}

/// The exit code in an error text `… Error (exit code N): …`.
fn exit_code_in(text: &str) -> Option<i64> {
    let at = text.find("(exit code ")? + "(exit code ".len();
    let rest = &text[at..];
    let end = rest.find(')')?;
    rest[..end].trim().parse().ok()
}

/// Normalized usage of a raw provider usage object (OpenAI or Anthropic shape).
pub fn usage_of(u: &Value) -> Option<TokenUsage> {
    if !u.is_object() {
        return None;
    }
    let get = |k: &str| u64_of(u, k);
    let nested = |a: &str, b: &str| u.get(a).and_then(|d| u64_of(d, b));
    let usage = if let Some(prompt) = get("prompt_tokens") {
        let cached = nested("prompt_tokens_details", "cached_tokens").unwrap_or(0);
        let written = nested("prompt_tokens_details", "cache_write_tokens").unwrap_or(0);
        TokenUsage {
            input: prompt.saturating_sub(cached + written),
            output: get("completion_tokens").unwrap_or(0),
            cache_read: cached,
            cache_write: written,
            reasoning: nested("completion_tokens_details", "reasoning_tokens").unwrap_or(0),
        }
    } else if get("input_tokens").is_some() || get("output_tokens").is_some() {
        TokenUsage {
            input: get("input_tokens").unwrap_or(0),
            output: get("output_tokens").unwrap_or(0),
            cache_read: get("cache_read_input_tokens").unwrap_or(0),
            cache_write: get("cache_creation_input_tokens").unwrap_or(0),
            reasoning: 0,
        }
    } else {
        return None;
    };
    Some(usage)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exit_code_from_error_text() {
        assert_eq!(
            exit_code_in("Error executing tool Bash: Error (exit code 1): cat: x"),
            Some(1)
        );
        assert_eq!(exit_code_in("Error (exit code 127): nope"), Some(127));
        assert_eq!(exit_code_in("fine"), None);
        assert_eq!(exit_code_in("(exit code x)"), None);
    }

    #[test]
    fn usage_shapes() {
        let openai = serde_json::json!({"prompt_tokens": 2493, "completion_tokens": 66,
            "prompt_tokens_details": {"cached_tokens": 1994},
            "completion_tokens_details": {"reasoning_tokens": 7}});
        assert_eq!(
            usage_of(&openai).unwrap(),
            TokenUsage {
                input: 499,
                output: 66,
                cache_read: 1994,
                cache_write: 0,
                reasoning: 7
            }
        );
        let anthropic = serde_json::json!({"input_tokens": 10, "output_tokens": 5,
            "cache_read_input_tokens": 100, "cache_creation_input_tokens": 20});
        assert_eq!(usage_of(&anthropic).unwrap().cache_write, 20);
        assert_eq!(usage_of(&serde_json::json!({"model": "x"})), None);
    }
}
