//! LangChain message classes (checked against langchain-core 1.8.3) and LangGraph's
//! `add_messages` reducer / `Overwrite` semantics (langgraph 1.2.24).
//!
//! A message is kept as its full field list (so nothing is lost) with typed accessors for the
//! fields readers need: type, id, name, content, tool calls, tool call id, status, usage.

use crate::value::{Object, Value};

/// One LangChain message (`HumanMessage`, `AIMessage`, `ToolMessage`, `SystemMessage`,
/// `RemoveMessage`, chunks, or a message given as a dict / string / tuple).
#[derive(Debug, Clone, PartialEq)]
pub struct Message {
    /// Python module (`langchain_core.messages.ai`), empty when built from a dict or string.
    pub module: String,
    /// Python class (`AIMessage`); chunk classes are normalized (`AIMessageChunk` → `AIMessage`).
    pub class: String,
    /// All fields in stored order (`content`, `additional_kwargs`, `type`, `id`, …).
    pub fields: Vec<(String, Value)>,
}

/// The id LangGraph uses in a `RemoveMessage` to clear the whole list.
pub const REMOVE_ALL: &str = "__remove_all__";

impl Message {
    /// A field by name.
    pub fn field(&self, key: &str) -> Option<&Value> {
        self.fields.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    fn set_field(&mut self, key: &str, value: Value) {
        match self.fields.iter_mut().find(|(k, _)| k == key) {
            Some(slot) => slot.1 = value,
            None => self.fields.push((key.to_string(), value)),
        }
    }

    /// The message type: `human`, `ai`, `tool`, `system`, `remove`, `function`, `chat`, …
    pub fn kind(&self) -> &str {
        self.field("type")
            .and_then(Value::as_str)
            .unwrap_or("unknown")
    }

    /// The message id, if any.
    pub fn id(&self) -> Option<&str> {
        self.field("id").and_then(Value::as_str)
    }

    /// The `name` field, if set.
    pub fn name(&self) -> Option<&str> {
        self.field("name").and_then(Value::as_str)
    }

    /// The raw content (a string or a list of content blocks).
    pub fn content(&self) -> &Value {
        self.field("content").unwrap_or(&Value::Null)
    }

    /// `tool_calls` of an AI message (each `{name, args, id, type}`).
    pub fn tool_calls(&self) -> Option<&Value> {
        self.field("tool_calls")
    }

    /// `invalid_tool_calls` of an AI message.
    pub fn invalid_tool_calls(&self) -> Option<&Value> {
        self.field("invalid_tool_calls")
    }

    /// `usage_metadata` of an AI message (`input_tokens`, `output_tokens`, `total_tokens`,
    /// `input_token_details`, `output_token_details`).
    pub fn usage_metadata(&self) -> Option<&Value> {
        self.field("usage_metadata").filter(|v| !v.is_null())
    }

    /// `tool_call_id` of a tool message.
    pub fn tool_call_id(&self) -> Option<&str> {
        self.field("tool_call_id").and_then(Value::as_str)
    }

    /// `status` of a tool message (`success` / `error`).
    pub fn status(&self) -> Option<&str> {
        self.field("status").and_then(Value::as_str)
    }

    /// True for a `RemoveMessage`.
    pub fn is_remove(&self) -> bool {
        self.kind() == "remove" || self.class == "RemoveMessage"
    }

    /// The visible text: a string content as is; for block lists the `text` of text blocks
    /// joined by newlines (reasoning / thinking blocks excluded).
    pub fn text(&self) -> String {
        content_text(self.content())
    }

    /// Reasoning / thinking text from content blocks (`reasoning`, `thinking`) and from
    /// `additional_kwargs.reasoning_content`.
    pub fn reasoning(&self) -> Vec<String> {
        let mut out = Vec::new();
        if let Some(blocks) = self.content().as_array() {
            for b in blocks {
                let t = b.get("type").and_then(Value::as_str);
                if matches!(t, Some("reasoning" | "thinking")) {
                    for key in ["reasoning", "thinking", "text"] {
                        if let Some(s) = b.get(key).and_then(Value::as_str) {
                            out.push(s.to_string());
                            break;
                        }
                    }
                    if let Some(summary) = b.get("summary").and_then(Value::as_array) {
                        out.extend(
                            summary
                                .iter()
                                .filter_map(|s| s.get("text").and_then(Value::as_str))
                                .map(str::to_string),
                        );
                    }
                }
            }
        }
        if let Some(s) = self
            .field("additional_kwargs")
            .and_then(|k| k.get("reasoning_content"))
            .and_then(Value::as_str)
        {
            out.push(s.to_string());
        }
        out
    }

    /// The message as JSON in LangGraph's own shape: `{"_module", "_class", ...fields}`.
    pub fn to_json(&self) -> serde_json::Value {
        let mut map = serde_json::Map::new();
        if !self.module.is_empty() {
            map.insert("_module".into(), self.module.clone().into());
        }
        map.insert("_class".into(), self.class.clone().into());
        for (k, v) in &self.fields {
            map.insert(k.clone(), v.to_json());
        }
        serde_json::Value::Object(map)
    }

    /// Interprets a decoded value as a message, like `convert_to_messages` does for one item:
    /// a message object, a string (human), a `[role, content]` pair, or a dict with
    /// `role`/`type`. `None` when it is none of those.
    pub fn from_value(value: &Value) -> Option<Message> {
        match value {
            Value::Object(o) => from_object(o),
            Value::Str(s) => Some(simple("human", Value::Str(s.clone()), None)),
            Value::Array(pair) if pair.len() == 2 => {
                let role = pair[0].as_str()?;
                Some(simple(role_type(role)?, pair[1].clone(), None))
            }
            Value::Map(m) => {
                let role = value
                    .get("role")
                    .or_else(|| value.get("type"))
                    .and_then(Value::as_str)?;
                let kind = role_type(role)?;
                let mut msg = simple(
                    kind,
                    value
                        .get("content")
                        .cloned()
                        .unwrap_or(Value::Str(String::new())),
                    None,
                );
                for (k, v) in m {
                    if k != "role" && k != "type" && k != "content" {
                        msg.set_field(k, v.clone());
                    }
                }
                Some(msg)
            }
            _ => None,
        }
    }
}

fn role_type(role: &str) -> Option<&'static str> {
    Some(match role {
        "human" | "user" => "human",
        "ai" | "assistant" => "ai",
        "system" | "developer" => "system",
        "tool" => "tool",
        "function" => "function",
        "remove" => "remove",
        _ => return None,
    })
}

fn simple(kind: &str, content: Value, id: Option<String>) -> Message {
    let class = match kind {
        "human" => "HumanMessage",
        "ai" => "AIMessage",
        "system" => "SystemMessage",
        "tool" => "ToolMessage",
        "function" => "FunctionMessage",
        "remove" => "RemoveMessage",
        _ => "ChatMessage",
    };
    Message {
        module: String::new(),
        class: class.into(),
        fields: vec![
            ("content".into(), content),
            ("type".into(), Value::Str(kind.into())),
            ("id".into(), id.map_or(Value::Null, Value::Str)),
        ],
    }
}

fn from_object(o: &Object) -> Option<Message> {
    let is_message = o.module.starts_with("langchain_core.messages")
        || o.module.starts_with("langchain.schema")
        || o.class.ends_with("Message")
        || o.class.ends_with("MessageChunk");
    if !is_message {
        return None;
    }
    let class = o
        .class
        .strip_suffix("Chunk")
        .unwrap_or(&o.class)
        .to_string();
    let mut msg = Message {
        module: o.module.clone(),
        class,
        fields: o.kwargs.clone(),
    };
    if msg.field("type").is_none() {
        let kind = match msg.class.as_str() {
            "HumanMessage" => "human",
            "AIMessage" => "ai",
            "SystemMessage" => "system",
            "ToolMessage" => "tool",
            "RemoveMessage" => "remove",
            "FunctionMessage" => "function",
            _ => "chat",
        };
        msg.set_field("type", Value::Str(kind.into()));
    } else if let Some(kind) = msg.field("type").and_then(Value::as_str) {
        if let Some(base) = kind.strip_suffix("Chunk") {
            let base = match base {
                "AIMessage" => "ai",
                "HumanMessage" => "human",
                "ToolMessage" => "tool",
                "SystemMessage" => "system",
                other => other,
            }
            .to_string();
            msg.set_field("type", Value::Str(base));
        }
    }
    Some(msg)
}

/// The visible text of a content value, like the inspector's `_content_text`: strings as is,
/// block lists joined by newlines without reasoning / thinking / analysis blocks, dicts as
/// JSON, `None` as empty.
pub fn content_text(content: &Value) -> String {
    match content {
        Value::Str(s) => s.clone(),
        Value::Null => String::new(),
        Value::Array(blocks) => {
            let mut parts: Vec<String> = Vec::new();
            for block in blocks {
                match block {
                    Value::Str(s) => parts.push(s.clone()),
                    Value::Map(_) => {
                        let kind = block.get("type").and_then(Value::as_str);
                        let phase = block.get("phase").and_then(Value::as_str);
                        if matches!(kind, Some("reasoning" | "thinking"))
                            || phase == Some("analysis")
                        {
                            continue;
                        }
                        if let Some(t) = block.get("text").and_then(Value::as_str) {
                            parts.push(t.to_string());
                        } else if let Some(t) = block.get("content").and_then(Value::as_str) {
                            parts.push(t.to_string());
                        }
                    }
                    other => parts.push(crate::pyjson::py_str(other)),
                }
            }
            parts.retain(|p| !p.is_empty());
            parts.join("\n")
        }
        Value::Map(_) => crate::pyjson::dumps(content),
        other => crate::pyjson::py_str(other),
    }
}

/// A value written to the `messages` channel, classified like LangGraph's reducer sees it.
#[derive(Debug, Clone, PartialEq)]
pub enum Update {
    /// Merge with `add_messages`.
    Add(Vec<Message>),
    /// Replace the whole list (`Overwrite(...)`, `{"__overwrite__": ...}` or
    /// `{"type": "__overwrite__", "value": ...}`).
    Overwrite(Vec<Message>),
}

/// Classifies a decoded `messages` write. `Err` names what is malformed.
pub fn classify_update(value: &Value) -> Result<Update, String> {
    if let Some(inner) = overwrite_payload(value) {
        if inner.is_null() {
            // `Overwrite(None)` resets the channel to its empty default.
            return Ok(Update::Overwrite(Vec::new()));
        }
        if !matches!(inner, Value::Array(_) | Value::DeltaSnapshot(_)) {
            return Err("malformed Overwrite: its value is not a list".into());
        }
        return to_messages(inner)
            .map(Update::Overwrite)
            .map_err(|e| format!("malformed Overwrite: {e}"));
    }
    if let Value::DeltaSnapshot(inner) = value {
        return to_messages(inner).map(Update::Overwrite);
    }
    to_messages(value).map(Update::Add)
}

fn overwrite_payload(value: &Value) -> Option<&Value> {
    match value {
        Value::Object(o) if o.class == "Overwrite" => o
            .kwarg("value")
            .or_else(|| o.args.first())
            .or(Some(&Value::Null)),
        Value::Map(m) if m.len() == 1 && m[0].0 == "__overwrite__" => Some(&m[0].1),
        Value::Map(m)
            if m.len() == 2
                && value.get("type").and_then(Value::as_str) == Some("__overwrite__") =>
        {
            value.get("value")
        }
        _ => None,
    }
}

/// `convert_to_messages` on a write: a list of message-likes, or a single one.
pub fn to_messages(value: &Value) -> Result<Vec<Message>, String> {
    match value {
        Value::Array(items) => items
            .iter()
            .enumerate()
            .map(|(i, v)| {
                Message::from_value(v).ok_or_else(|| format!("item {i} is not a message"))
            })
            .collect(),
        Value::DeltaSnapshot(inner) => to_messages(inner),
        other => Message::from_value(other)
            .map(|m| vec![m])
            .ok_or_else(|| "not a message or a list of messages".to_string()),
    }
}

/// Applies one update to the list. `add_messages` semantics: a message whose id is already
/// present replaces it in place; `RemoveMessage` deletes its id (an absent id is ignored and
/// reported through the returned notes); `__remove_all__` keeps only what follows it in the
/// same update. `Overwrite` replaces the list.
pub fn apply(list: &mut Vec<Message>, update: Update) -> Vec<String> {
    let mut notes = Vec::new();
    let right = match update {
        Update::Overwrite(v) => {
            *list = v;
            return notes;
        }
        Update::Add(v) => v,
    };
    if let Some(pos) = right
        .iter()
        .rposition(|m| m.is_remove() && m.id() == Some(REMOVE_ALL))
    {
        *list = right.into_iter().skip(pos + 1).collect();
        return notes;
    }
    let mut removed: Vec<String> = Vec::new();
    for m in right {
        let existing = m
            .id()
            .and_then(|id| list.iter().position(|x| x.id() == Some(id)));
        match (existing, m.is_remove()) {
            (Some(_), true) => removed.extend(m.id().map(str::to_string)),
            (Some(i), false) => {
                if let Some(id) = m.id() {
                    removed.retain(|r| r != id);
                }
                list[i] = m;
            }
            (None, true) => notes.push(format!(
                "RemoveMessage for an id that is not in the list ({}) ignored",
                m.id().unwrap_or("None")
            )),
            (None, false) => list.push(m),
        }
    }
    if !removed.is_empty() {
        list.retain(|m| m.id().is_none_or(|id| !removed.iter().any(|r| r == id)));
    }
    notes
}
