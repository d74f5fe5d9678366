//! Events: the ordered, normalized content of a session.

use serde::{Deserialize, Serialize};

use crate::{Locator, Timestamp, TokenUsage};

/// What an event is. Stable snake_case names in JSON and on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EventKind {
    /// A human prompt. Starts a turn (S-E1). Injected context is never `User`.
    User,
    /// Visible assistant text.
    Assistant,
    /// Model reasoning / thinking (summaries where that is all the agent stores).
    Thinking,
    /// A tool invocation: `tool`, `call_id`, `args`.
    ToolCall,
    /// A tool's result: `call_id`, `text` (the output), `is_error`, `exit_code`, `duration_ms`.
    ToolResult,
    /// A system / harness message (errors, notices, hook output, local command output).
    System,
    /// A compaction boundary or compaction summary (the text is the summary when known).
    Compaction,
    /// Injected context and other records that are part of the session but not dialogue
    /// (environment context, instructions, meta user records, titles, mode changes).
    Meta,
}

impl EventKind {
    /// Every kind, in display order.
    pub const ALL: [EventKind; 8] = [
        EventKind::User,
        EventKind::Assistant,
        EventKind::Thinking,
        EventKind::ToolCall,
        EventKind::ToolResult,
        EventKind::System,
        EventKind::Compaction,
        EventKind::Meta,
    ];

    /// The snake_case name.
    pub fn as_str(self) -> &'static str {
        match self {
            EventKind::User => "user",
            EventKind::Assistant => "assistant",
            EventKind::Thinking => "thinking",
            EventKind::ToolCall => "tool_call",
            EventKind::ToolResult => "tool_result",
            EventKind::System => "system",
            EventKind::Compaction => "compaction",
            EventKind::Meta => "meta",
        }
    }

    /// Parses a snake_case name (as accepted by `--kind`).
    pub fn parse(s: &str) -> Option<EventKind> {
        EventKind::ALL.iter().copied().find(|k| k.as_str() == s)
    }
}

/// Where an event's timestamp came from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TimeSource {
    /// The record itself carries the time.
    Event,
    /// Computed from another record (a side file, a neighbour, a duration).
    Derived,
    /// Only the session's time is known; the event inherits it.
    Session,
    /// No time is known.
    #[default]
    None,
}

/// Whether the model can see an event now (S-Q2).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Surface {
    /// In the model's context now.
    #[default]
    Current,
    /// Replaced by a compaction, summary or rewind.
    Shadowed,
    /// Never model-visible (UI mirrors, progress, bookkeeping).
    LogOnly,
}

/// Where an event came from in its source, for `--raw` and for error messages.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct RawRef {
    /// Index into [`crate::Header::sources`].
    pub file: u32,
    /// Byte offset of the record in the (decompressed) stream.
    pub offset: u64,
    /// Length of the record in bytes (without the line terminator).
    pub len: u64,
    /// 1-based line or record number.
    pub line: u64,
}

/// One normalized event. Fields that do not apply are `None` / empty.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Event {
    /// 0-based position in the session.
    pub seq: u32,
    /// What the event is.
    pub kind: EventKind,
    /// A finer, provider-specific label (`environment_context`, `compact_boundary`,
    /// `api_error`, `local_command`, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subtype: Option<String>,
    /// The whole text (prompt, answer, thinking, tool output, …). Never truncated.
    #[serde(default)]
    pub text: String,
    /// Tool name for tool calls and results.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    /// Call id pairing a tool call with its result.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call_id: Option<String>,
    /// Tool arguments as JSON (strings that hold JSON are decoded where possible).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub args: Option<serde_json::Value>,
    /// Whether the tool reported an error (`None` = not recorded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
    /// Process exit code when recorded (unknown stays `None`, never 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i64>,
    /// Duration in milliseconds when recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
    /// When it happened.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time: Option<Timestamp>,
    /// Where `time` came from.
    #[serde(default)]
    pub time_source: TimeSource,
    /// Token usage of the model request this event closes (attached to one event per request).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<TokenUsage>,
    /// Model that produced the event.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Visibility to the model (S-Q2).
    #[serde(default)]
    pub surface: Surface,
    /// Turn number (1-based); 0 = preamble before the first human prompt. Set by
    /// [`crate::assign_turns`].
    #[serde(default)]
    pub turn: u32,
    /// Stable reference (S-E2).
    pub locator: Locator,
    /// Position in the source.
    #[serde(default)]
    pub raw: RawRef,
    /// Provider-specific structured extras (structured tool results, restoration notes, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<serde_json::Value>,
}

impl Event {
    /// A new event of `kind` with `text`; everything else empty. `seq` and `turn` are set when
    /// the session is finished.
    pub fn new(kind: EventKind, text: impl Into<String>, locator: Locator) -> Self {
        Event {
            seq: 0,
            kind,
            subtype: None,
            text: text.into(),
            tool: None,
            call_id: None,
            args: None,
            is_error: None,
            exit_code: None,
            duration_ms: None,
            time: None,
            time_source: TimeSource::None,
            usage: None,
            model: None,
            surface: Surface::Current,
            turn: 0,
            locator,
            raw: RawRef::default(),
            data: None,
        }
    }

    /// Sets the timestamp (and marks it as coming from the record itself).
    pub fn at(mut self, time: Option<Timestamp>) -> Self {
        self.time_source = if time.is_some() {
            TimeSource::Event
        } else {
            TimeSource::None
        };
        self.time = time;
        self
    }

    /// Sets `data[key] = value`, making `data` an object first when it is absent (or, which
    /// providers never do, not an object).
    pub fn set_data(&mut self, key: &str, value: serde_json::Value) {
        match &mut self.data {
            Some(serde_json::Value::Object(m)) => {
                m.insert(key.to_string(), value);
            }
            _ => {
                let mut m = serde_json::Map::new();
                m.insert(key.to_string(), value);
                self.data = Some(serde_json::Value::Object(m));
            }
        }
    }

    /// True when the event failed: a non-zero exit code, or an unknown exit code with the
    /// provider's error flag (SPEC S-F4).
    pub fn is_failure(&self) -> bool {
        match self.exit_code {
            Some(code) => code != 0,
            None => self.is_error == Some(true),
        }
    }
}
