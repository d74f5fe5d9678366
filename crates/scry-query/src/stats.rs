//! The counting sink behind `scry show`: one pass over the events, keeping counts and a few
//! bounded snippets (goal, final answer, last failure), never the session itself.

use std::collections::{BTreeMap, HashMap};

use scry_model::{Event, EventKind, TokenUsage, Warning};
use scry_source::EventSink;

use crate::render;

/// At most this many characters of the goal / final answer are kept.
const SNIPPET: usize = 4000;

/// The last failing tool result and the call it answered.
#[derive(Debug, Clone)]
pub struct Failure {
    /// 0-based seq of the result.
    pub seq: u32,
    /// Tool name.
    pub tool: Option<String>,
    /// Short form of the call's arguments (the command, the path, …).
    pub args: Option<String>,
    /// Exit code when recorded.
    pub exit_code: Option<i64>,
    /// First line of the output.
    pub output: String,
}

/// Everything `show` reports, gathered while streaming.
#[derive(Debug, Default)]
pub struct Stats {
    /// Events by kind.
    pub kinds: BTreeMap<EventKind, u64>,
    /// Highest turn number.
    pub turns: u32,
    /// Tool calls by tool name.
    pub tools: BTreeMap<String, u64>,
    /// Tool results that failed.
    pub failures: u64,
    /// Summed usage (None when no event carried any).
    pub tokens: Option<TokenUsage>,
    /// The first human prompt (bounded).
    pub goal: Option<String>,
    /// Whether `goal` was cut.
    pub goal_cut: bool,
    /// The last assistant text (bounded).
    pub answer: Option<String>,
    /// Whether `answer` was cut.
    pub answer_cut: bool,
    /// The last failing tool result.
    pub last_failure: Option<Failure>,
    /// Warnings raised while reading.
    pub warnings: Vec<Warning>,
    calls: HashMap<String, (Option<String>, Option<String>)>,
}

impl Stats {
    /// Total number of events.
    pub fn events(&self) -> u64 {
        self.kinds.values().sum()
    }

    /// Number of tool calls.
    pub fn tool_calls(&self) -> u64 {
        self.kinds.get(&EventKind::ToolCall).copied().unwrap_or(0)
    }
}

/// The first [`SNIPPET`] characters of `text`, and whether it was cut.
fn bounded(text: &str) -> (String, bool) {
    let mut it = text.chars();
    let kept: String = it.by_ref().take(SNIPPET).collect();
    (kept, it.next().is_some())
}

/// A short, one-line form of tool arguments: the command / path / pattern when there is one,
/// else the compact JSON.
pub fn short_args(args: &serde_json::Value, max: usize) -> String {
    // Compared case-insensitively, underscores ignored (`CommandLine`, `file_path`, `filePath`).
    const KEYS: [&str; 13] = [
        "command",
        "cmd",
        "commandline",
        "filepath",
        "absolutepath",
        "targetfile",
        "path",
        "pattern",
        "query",
        "url",
        "description",
        "prompt",
        "input",
    ];
    let norm = |k: &str| k.replace('_', "").to_ascii_lowercase();
    let found = args.as_object().and_then(|obj| {
        KEYS.iter().find_map(|want| {
            obj.iter()
                .find(|(k, _)| norm(k) == *want)
                .map(|(_, v)| (*want, v))
        })
    });
    let is_path = found
        .is_some_and(|(k, _)| matches!(k, "filepath" | "absolutepath" | "targetfile" | "path"));
    let pick = found.map(|(_, v)| match v {
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Array(items) => items
            .iter()
            .map(|i| {
                i.as_str()
                    .map(str::to_string)
                    .unwrap_or_else(|| i.to_string())
            })
            .collect::<Vec<_>>()
            .join(" "),
        other => other.to_string(),
    });
    let s = match pick {
        Some(s) => s,
        None => match args {
            serde_json::Value::String(s) => s.clone(),
            other => other.to_string(),
        },
    };
    if is_path && !s.contains('\n') {
        render::clip_left(&s, max)
    } else {
        render::clip(&s, max)
    }
}

impl EventSink for Stats {
    fn event(&mut self, e: Event) {
        *self.kinds.entry(e.kind).or_default() += 1;
        self.turns = self.turns.max(e.turn);
        if let Some(u) = e.usage {
            *self.tokens.get_or_insert_with(TokenUsage::default) += u;
        }
        match e.kind {
            EventKind::User if self.goal.is_none() && !e.text.trim().is_empty() => {
                let (text, cut) = bounded(&e.text);
                self.goal = Some(text);
                self.goal_cut = cut;
            }
            EventKind::Assistant if !e.text.trim().is_empty() => {
                let (text, cut) = bounded(&e.text);
                self.answer = Some(text);
                self.answer_cut = cut;
            }
            EventKind::ToolCall => {
                let tool = e.tool.clone().unwrap_or_else(|| "?".into());
                *self.tools.entry(tool).or_default() += 1;
                if let Some(id) = &e.call_id {
                    let args = e.args.as_ref().map(|a| short_args(a, 200));
                    self.calls.insert(id.clone(), (e.tool.clone(), args));
                }
            }
            EventKind::ToolResult if e.is_failure() => {
                self.failures += 1;
                let call = e.call_id.as_ref().and_then(|id| self.calls.get(id));
                self.last_failure = Some(Failure {
                    seq: e.seq,
                    tool: e.tool.clone().or_else(|| call.and_then(|c| c.0.clone())),
                    args: call.and_then(|c| c.1.clone()),
                    exit_code: e.exit_code,
                    output: render::clip(scry_model::first_line(&e.text, 200).as_str(), 200),
                });
            }
            _ => {}
        }
    }

    fn warning(&mut self, w: Warning) {
        self.warnings.push(w);
    }
}
