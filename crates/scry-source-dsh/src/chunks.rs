//! Streamed assistant output (`assistant/chunk`, `text-chunks`, `tool-call-chunks`) of the step
//! being written.
//!
//! The chunks are deltas of the `assistant/message` record that closes the step, so the reader
//! does NOT emit them: it takes text, reasoning, tool calls and usage from `assistant/message`
//! (one record per model request). The chunks are kept only until that record arrives; a step
//! whose stream ended without an `assistant/message` (the agent crashed or was killed mid-stream)
//! is rebuilt from its chunks — preferring each block's `block-end` copy over the summed deltas —
//! and marked `data.partial = true`.

use std::collections::BTreeMap;

use serde_json::Value;

/// One content block being streamed.
#[derive(Debug, Default, Clone)]
pub struct Block {
    /// `text`, `reasoning` or `tool-call`.
    pub kind: String,
    /// Text or reasoning accumulated so far (or the block-end text).
    pub text: String,
    /// Tool call id.
    pub call_id: Option<String>,
    /// Tool name.
    pub name: Option<String>,
    /// Tool arguments (JSON text) accumulated so far.
    pub args: String,
    /// True once a `block-end` supplied the whole block.
    pub ended: bool,
}

/// Where the first chunk of the pending step came from.
#[derive(Debug, Clone)]
pub struct Origin {
    /// 1-based line.
    pub line: u64,
    /// Byte offset of the line.
    pub offset: u64,
    /// Length of the line.
    pub len: u64,
    /// Checksum source: the line's bytes.
    pub raw: Vec<u8>,
    /// Record time (ms).
    pub time_ms: Option<i64>,
}

/// Chunks of the step being streamed.
#[derive(Debug, Default)]
pub struct Pending {
    /// Blocks by stream index.
    pub blocks: BTreeMap<u64, Block>,
    /// Usage chunk, if one arrived.
    pub usage: Option<Value>,
    /// First chunk record.
    pub origin: Option<Origin>,
}

impl Pending {
    /// True when nothing is pending.
    pub fn is_empty(&self) -> bool {
        self.blocks.is_empty() && self.usage.is_none()
    }

    /// Forgets everything (the closing `assistant/message` arrived).
    pub fn clear(&mut self) {
        self.blocks.clear();
        self.usage = None;
        self.origin = None;
    }

    fn note_origin(&mut self, origin: impl FnOnce() -> Origin) {
        if self.origin.is_none() {
            self.origin = Some(origin());
        }
    }

    /// Folds one `assistant/chunk` `chunk` object.
    pub fn chunk(&mut self, chunk: &Value, origin: impl FnOnce() -> Origin) {
        self.note_origin(origin);
        let index = chunk
            .get("index")
            .and_then(scry_source::json::as_u64)
            .unwrap_or(0);
        match chunk.get("type").and_then(Value::as_str).unwrap_or("") {
            "block-start" => {
                let b = self.blocks.entry(index).or_default();
                if let Some(t) = chunk.get("blockType").and_then(Value::as_str) {
                    b.kind = t.to_string();
                }
            }
            "text-delta" | "reasoning-delta" => {
                let b = self.blocks.entry(index).or_default();
                if b.kind.is_empty() {
                    b.kind = if chunk.get("type").and_then(Value::as_str) == Some("text-delta") {
                        "text".into()
                    } else {
                        "reasoning".into()
                    };
                }
                if !b.ended {
                    if let Some(t) = chunk.get("text").and_then(Value::as_str) {
                        b.text.push_str(t);
                    }
                }
            }
            "tool-call-delta" => {
                let b = self.blocks.entry(index).or_default();
                b.kind = "tool-call".into();
                if let Some(id) = chunk.get("id").and_then(Value::as_str) {
                    b.call_id = Some(id.to_string());
                }
                if let Some(n) = chunk.get("name").and_then(Value::as_str) {
                    b.name = Some(n.to_string());
                }
                if !b.ended {
                    if let Some(t) = chunk
                        .get("argsTextDelta")
                        .or_else(|| chunk.get("delta"))
                        .and_then(Value::as_str)
                    {
                        b.args.push_str(t);
                    }
                }
            }
            "block-end" => {
                let Some(block) = chunk.get("block") else {
                    return;
                };
                let b = self.blocks.entry(index).or_default();
                fill_from_block(b, block);
            }
            "usage" => self.usage = chunk.get("usage").cloned(),
            _ => {}
        }
    }

    /// Folds a `text-chunks` record's data (`index`, `texts`).
    pub fn text_chunks(&mut self, data: &Value, origin: impl FnOnce() -> Origin) {
        self.note_origin(origin);
        let index = data
            .get("index")
            .and_then(scry_source::json::as_u64)
            .unwrap_or(0);
        let b = self.blocks.entry(index).or_default();
        if b.kind.is_empty() {
            b.kind = "text".into();
        }
        if b.ended {
            return;
        }
        if let Some(Value::Array(texts)) = data.get("texts") {
            for t in texts.iter().filter_map(Value::as_str) {
                b.text.push_str(t);
            }
        }
    }

    /// Folds a `tool-call-chunks` record's data (`index`, `id`, `name`, `args`).
    pub fn tool_call_chunks(&mut self, data: &Value, origin: impl FnOnce() -> Origin) {
        self.note_origin(origin);
        let index = data
            .get("index")
            .and_then(scry_source::json::as_u64)
            .unwrap_or(0);
        let b = self.blocks.entry(index).or_default();
        b.kind = "tool-call".into();
        if let Some(id) = data.get("id").and_then(Value::as_str) {
            b.call_id = Some(id.to_string());
        }
        if let Some(n) = data.get("name").and_then(Value::as_str) {
            b.name = Some(n.to_string());
        }
        if b.ended {
            return;
        }
        if let Some(Value::Array(args)) = data.get("args") {
            for t in args.iter().filter_map(Value::as_str) {
                b.args.push_str(t);
            }
        }
    }
}

/// Copies a complete block (`{type, text}` or `{type:"tool-call", id, name, arguments}`).
fn fill_from_block(b: &mut Block, block: &Value) {
    let kind = block.get("type").and_then(Value::as_str).unwrap_or("");
    if !kind.is_empty() {
        b.kind = kind.to_string();
    }
    if kind == "tool-call" {
        if let Some(id) = block.get("id").and_then(Value::as_str) {
            b.call_id = Some(id.to_string());
        }
        if let Some(n) = block.get("name").and_then(Value::as_str) {
            b.name = Some(n.to_string());
        }
        match block.get("arguments") {
            Some(Value::String(s)) => b.args = s.clone(),
            Some(other) => b.args = other.to_string(),
            None => {}
        }
    } else if let Some(t) = block.get("text").and_then(Value::as_str) {
        b.text = t.to_string();
    }
    b.ended = true;
}
