//! Grok Build side files that give `chat_history.jsonl` (which has no timestamps) its times,
//! tool outcomes and token usage. Each is optional; each is read once into a small index.
//!
//! - `rewind_points.jsonl`: one line per prompt, `{prompt_index, created_at, …}` → the prompt's time.
//! - `events.jsonl`: lifecycle events `{type, timestamp, …}`; `tool_started` / `tool_completed`
//!   keyed by `tool_call_id` → call time, result time, duration, `outcome`, `is_error`;
//!   `turn_completed.usage` → the turn's tokens (`prompt_index` when present, else the n-th).
//! - `updates.jsonl`: the ACP stream `{timestamp (epoch s), params:{update:{sessionUpdate, content},
//!   _meta:{agentTimestampMs}}}`; consecutive `agent_message_chunk` / `agent_thought_chunk` /
//!   `user_message_chunk` lines are coalesced and the message's text (hashed) maps to the time
//!   of its first chunk. chat_history items are matched by TEXT only, never by position; a text
//!   that matches nothing gets no time. Only lines naming one of those chunk kinds are parsed,
//!   so the huge `tool_call_update` lines are skipped unread.
//!
//! Field names: `rewind_points` / `events` shapes follow formats.md §4.1 (no public sample was
//! found); common spellings are accepted (`tool_call_id` / `toolCallId` / `call_id`, `timestamp` /
//! `ts` / `time` / `created_at`, fields at the top level or under `data` / `payload`).

use std::collections::hash_map::DefaultHasher;
use std::collections::{HashMap, VecDeque};
use std::hash::{Hash, Hasher};
use std::path::Path;

use scry_model::{Timestamp, TokenUsage, Warning};
use scry_source::json::{as_u64, str_of};
use scry_source::jsonl;
use scry_source::lines::LineReader;
use serde_json::Value;

/// A field of an event line: top level first, then under `data` / `payload`.
fn field<'a>(v: &'a Value, names: &[&str]) -> Option<&'a Value> {
    for scope in [Some(v), v.get("data"), v.get("payload")]
        .into_iter()
        .flatten()
    {
        for n in names {
            if let Some(x) = scope.get(*n).filter(|x| !x.is_null()) {
                return Some(x);
            }
        }
    }
    None
}

fn time_field(v: &Value) -> Option<Timestamp> {
    field(
        v,
        &["timestamp", "ts", "time", "created_at", "createdAt", "at"],
    )
    .and_then(scry_source::time::from_value)
}

fn prompt_index(v: &Value) -> Option<u64> {
    field(
        v,
        &["prompt_index", "promptIndex", "turn_index", "turnIndex"],
    )
    .and_then(as_u64)
}

/// Stable-in-process hash of a text for matching (whitespace at both ends ignored).
pub fn text_key(text: &str) -> u64 {
    let mut h = DefaultHasher::new();
    text.trim().hash(&mut h);
    h.finish()
}

/// What `events.jsonl` says about one tool call.
#[derive(Debug, Default, Clone)]
pub struct ToolTimes {
    /// `tool_started` time.
    pub started: Option<Timestamp>,
    /// `tool_completed` time.
    pub completed: Option<Timestamp>,
    /// Recorded duration, else completed − started.
    pub duration_ms: Option<u64>,
    /// `outcome` / `status` of the completion.
    pub outcome: Option<String>,
    /// Error flag (recorded, or an outcome that names a failure).
    pub is_error: Option<bool>,
}

/// One `turn_completed` usage.
#[derive(Debug, Clone)]
pub struct TurnUsage {
    /// The turn's prompt index when recorded.
    pub prompt_index: Option<u64>,
    /// Normalized usage.
    pub usage: TokenUsage,
    /// The raw usage object (kept in event data: costs, per-model split).
    pub raw: Value,
}

/// The indexes built from the side files.
#[derive(Debug, Default)]
pub struct SideIndex {
    /// Prompt index → prompt time (rewind_points.jsonl).
    pub prompt_times: HashMap<u64, Timestamp>,
    /// Tool call id → times and outcome (events.jsonl).
    pub tools: HashMap<String, ToolTimes>,
    /// Turn usages in file order (events.jsonl).
    pub turn_usage: Vec<TurnUsage>,
    /// Assistant message text key → times, in stream order (updates.jsonl).
    pub agent_text: HashMap<u64, VecDeque<Timestamp>>,
    /// Thought text key → times (updates.jsonl).
    pub thought_text: HashMap<u64, VecDeque<Timestamp>>,
    /// User message text key → times (updates.jsonl).
    pub user_text: HashMap<u64, VecDeque<Timestamp>>,
    /// Which side files were present.
    pub present: Vec<&'static str>,
}

impl SideIndex {
    /// Takes the next time recorded for `text` in `map` (text match, never position).
    pub fn take(map: &mut HashMap<u64, VecDeque<Timestamp>>, text: &str) -> Option<Timestamp> {
        if text.trim().is_empty() {
            return None;
        }
        map.get_mut(&text_key(text)).and_then(VecDeque::pop_front)
    }

    /// The usage recorded for the turn of `prompt_index` (the `ordinal`-th turn, 0-based).
    pub fn usage_for(&self, prompt_index: Option<u64>, ordinal: usize) -> Option<&TurnUsage> {
        if let Some(p) = prompt_index {
            if let Some(u) = self.turn_usage.iter().find(|u| u.prompt_index == Some(p)) {
                return Some(u);
            }
        }
        if self.turn_usage.iter().all(|u| u.prompt_index.is_none()) {
            return self.turn_usage.get(ordinal);
        }
        None
    }
}

/// Normalizes a Grok usage object. Field conventions decide the cache semantics: OpenAI / xAI
/// style `input_tokens` / `prompt_tokens` with `cached_tokens` / `cached_input_tokens` include
/// the cached part (subtracted here); Anthropic-style `cache_read_input_tokens` /
/// `cacheReadTokens` are additive.
pub fn usage_of(u: &Value) -> Option<TokenUsage> {
    let get = |names: &[&str]| -> Option<u64> {
        names
            .iter()
            .find_map(|n| u.get(*n).and_then(as_u64))
            .or_else(|| {
                // Nested `*_details` objects (OpenAI shape).
                names.iter().find_map(|n| {
                    ["prompt_tokens_details", "input_tokens_details"]
                        .iter()
                        .find_map(|d| u.get(*d).and_then(|x| x.get(*n)).and_then(as_u64))
                })
            })
    };
    let input = get(&[
        "input_tokens",
        "inputTokens",
        "prompt_tokens",
        "promptTokens",
    ]);
    let output = get(&[
        "output_tokens",
        "outputTokens",
        "completion_tokens",
        "completionTokens",
    ]);
    let included_cache = get(&[
        "cached_tokens",
        "cachedTokens",
        "cached_input_tokens",
        "cachedInputTokens",
        "cached_prompt_tokens",
    ]);
    let additive_cache = get(&[
        "cache_read_input_tokens",
        "cacheReadInputTokens",
        "cacheReadTokens",
        "cache_read_tokens",
    ]);
    let cache_write = get(&[
        "cache_creation_input_tokens",
        "cacheCreationInputTokens",
        "cacheWriteTokens",
        "cache_write_tokens",
    ]);
    let reasoning = get(&[
        "reasoning_tokens",
        "reasoningTokens",
        "reasoning_output_tokens",
    ]);
    if input.is_none() && output.is_none() {
        return None;
    }
    let input = input.unwrap_or(0);
    let (input, cache_read) = match (included_cache, additive_cache) {
        (_, Some(add)) => (input, add),
        (Some(inc), None) => (input.saturating_sub(inc), inc),
        (None, None) => (input, 0),
    };
    Some(TokenUsage {
        input,
        output: output.unwrap_or(0),
        cache_read,
        cache_write: cache_write.unwrap_or(0),
        reasoning: reasoning.unwrap_or(0),
    })
}

fn read_jsonl(path: &Path, warnings: &mut Vec<Warning>, f: impl FnMut(jsonl::Record<'_>)) -> bool {
    if !path.is_file() {
        return false;
    }
    jsonl::read_file(path, warnings, f).is_ok()
}

/// Reads `rewind_points.jsonl`.
fn rewind_points(path: &Path, idx: &mut SideIndex, warnings: &mut Vec<Warning>) {
    if read_jsonl(path, warnings, |r| {
        if let (Some(p), Some(t)) = (prompt_index(&r.value), time_field(&r.value)) {
            idx.prompt_times.entry(p).or_insert(t);
        }
    }) {
        idx.present.push("rewind_points.jsonl");
    }
}

fn failed_outcome(o: &str) -> bool {
    matches!(
        o.to_ascii_lowercase().as_str(),
        "error"
            | "errored"
            | "failed"
            | "failure"
            | "cancelled"
            | "canceled"
            | "denied"
            | "rejected"
            | "timeout"
            | "timed_out"
    )
}

/// Reads `events.jsonl`.
fn events(path: &Path, idx: &mut SideIndex, warnings: &mut Vec<Warning>) {
    let present = read_jsonl(path, warnings, |r| {
        let v = &r.value;
        // `turn_completed` and `turn.completed` spellings alike.
        let ty = field(v, &["type", "event", "kind", "name"])
            .and_then(Value::as_str)
            .unwrap_or("")
            .replace('.', "_");
        let ty = ty.as_str();
        let call_id = field(
            v,
            &[
                "tool_call_id",
                "toolCallId",
                "call_id",
                "callId",
                "tool_use_id",
            ],
        )
        .and_then(Value::as_str);
        match ty {
            "tool_started" | "tool_start" | "tool_call_started" => {
                if let Some(id) = call_id {
                    let t = idx.tools.entry(id.to_string()).or_default();
                    t.started = t.started.or(time_field(v));
                }
            }
            "tool_completed" | "tool_finished" | "tool_failed" | "tool_call_completed" => {
                if let Some(id) = call_id {
                    let t = idx.tools.entry(id.to_string()).or_default();
                    t.completed = time_field(v).or(t.completed);
                    t.duration_ms = field(v, &["duration_ms", "durationMs", "elapsed_ms"])
                        .and_then(as_u64)
                        .or(t.duration_ms);
                    let outcome = field(v, &["outcome", "status", "result"])
                        .and_then(Value::as_str)
                        .map(str::to_string);
                    let flag = field(v, &["is_error", "isError", "error"]).and_then(|e| match e {
                        Value::Bool(b) => Some(*b),
                        Value::String(_) | Value::Object(_) => Some(true),
                        _ => None,
                    });
                    t.is_error = flag
                        .or_else(|| outcome.as_deref().map(failed_outcome))
                        .or((ty == "tool_failed").then_some(true));
                    t.outcome = outcome;
                }
            }
            "turn_completed" | "turn_complete" => {
                if let Some(u) = field(v, &["usage", "token_usage", "tokenUsage"]) {
                    if let Some(usage) = usage_of(u) {
                        idx.turn_usage.push(TurnUsage {
                            prompt_index: prompt_index(v),
                            usage,
                            raw: u.clone(),
                        });
                    }
                }
            }
            _ => {}
        }
    });
    if present {
        idx.present.push("events.jsonl");
        for t in idx.tools.values_mut() {
            if t.duration_ms.is_none() {
                if let (Some(a), Some(b)) = (t.started, t.completed) {
                    let ms = b.as_millisecond() - a.as_millisecond();
                    t.duration_ms = u64::try_from(ms).ok();
                }
            }
        }
    }
}

/// The chunk kinds whose text is matched.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Chunk {
    Agent,
    Thought,
    User,
}

fn updates_time(v: &Value, update: &Value) -> Option<Timestamp> {
    let ms = scry_source::json::path(v, &["params", "_meta", "agentTimestampMs"])
        .or_else(|| scry_source::json::path(update, &["_meta", "agentTimestampMs"]))
        .and_then(as_u64);
    match ms {
        Some(ms) => scry_source::time::from_millis(i64::try_from(ms).ok()?),
        None => v.get("timestamp").and_then(scry_source::time::from_value),
    }
}

fn content_text(c: &Value) -> String {
    match c {
        Value::Object(_) => str_of(c, "text").unwrap_or("").to_string(),
        other => scry_source::json::text_of(other),
    }
}

/// Reads `updates.jsonl`, coalescing chunk runs into (text key → first-chunk time).
fn updates(path: &Path, idx: &mut SideIndex, warnings: &mut Vec<Warning>) {
    let Ok(reader) = jsonl::open(path) else {
        return;
    };
    idx.present.push("updates.jsonl");
    let mut run: Option<(Chunk, String, Option<Timestamp>)> = None;
    let close = |run: &mut Option<(Chunk, String, Option<Timestamp>)>, idx: &mut SideIndex| {
        if let Some((kind, text, Some(t))) = run.take() {
            let map = match kind {
                Chunk::Agent => &mut idx.agent_text,
                Chunk::Thought => &mut idx.thought_text,
                Chunk::User => &mut idx.user_text,
            };
            map.entry(text_key(&text)).or_default().push_back(t);
        }
    };
    let mut lines = LineReader::new(reader);
    loop {
        let line = match lines.next_line() {
            Ok(Some(l)) => l,
            Ok(None) => break,
            Err(e) => {
                warnings.push(Warning::at(
                    scry_model::WarningKind::Unreadable,
                    format!("read stopped: {e}"),
                    path,
                    None,
                ));
                break;
            }
        };
        let kind = if contains(line.bytes, b"agent_message_chunk") {
            Some(Chunk::Agent)
        } else if contains(line.bytes, b"agent_thought_chunk") {
            Some(Chunk::Thought)
        } else if contains(line.bytes, b"user_message_chunk") {
            Some(Chunk::User)
        } else {
            None
        };
        let parsed = kind.and_then(|k| {
            let v: Value = serde_json::from_slice(line.bytes).ok()?;
            // Envelope {params:{update}}; tolerate a bare {update} or a naked update object.
            let update = scry_source::json::path(&v, &["params", "update"])
                .or_else(|| v.get("update"))
                .unwrap_or(&v);
            let name = str_of(update, "sessionUpdate")?;
            let k2 = match name {
                "agent_message_chunk" => Chunk::Agent,
                "agent_thought_chunk" => Chunk::Thought,
                "user_message_chunk" => Chunk::User,
                _ => return None,
            };
            (k2 == k).then_some(())?;
            let text = update.get("content").map(content_text).unwrap_or_default();
            Some((k, text, updates_time(&v, update)))
        });
        match parsed {
            Some((k, text, t)) => match &mut run {
                Some((rk, rtext, rt)) if *rk == k => {
                    rtext.push_str(&text);
                    if rt.is_none() {
                        *rt = t;
                    }
                }
                _ => {
                    close(&mut run, idx);
                    run = Some((k, text, t));
                }
            },
            None => {
                if !line.bytes.iter().all(u8::is_ascii_whitespace) {
                    close(&mut run, idx);
                }
            }
        }
    }
    close(&mut run, idx);
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    memchr::memmem::find(hay, needle).is_some()
}

/// Builds the index from the side files in the session directory `dir`.
pub fn load(dir: &Path, warnings: &mut Vec<Warning>) -> SideIndex {
    let mut idx = SideIndex::default();
    rewind_points(&dir.join("rewind_points.jsonl"), &mut idx, warnings);
    events(&dir.join("events.jsonl"), &mut idx, warnings);
    let up = dir.join("updates.jsonl");
    if up.is_file() {
        updates(&up, &mut idx, warnings);
    }
    idx
}

/// Reads `summary.json` (bounded: at most 4 MB).
pub fn summary(dir: &Path) -> Option<Value> {
    let path = dir.join("summary.json");
    let file = std::fs::File::open(path).ok()?;
    let mut buf = Vec::new();
    std::io::Read::read_to_end(&mut std::io::Read::take(file, 4 * 1024 * 1024), &mut buf).ok()?;
    serde_json::from_slice(&buf).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn usage_conventions() {
        let u = usage_of(&json!({"input_tokens": 100, "cached_tokens": 80, "output_tokens": 7}))
            .unwrap();
        assert_eq!((u.input, u.cache_read, u.output), (20, 80, 7));
        let u = usage_of(&json!({"inputTokens": 100, "cacheReadTokens": 80, "outputTokens": 7}))
            .unwrap();
        assert_eq!((u.input, u.cache_read), (100, 80));
        let u = usage_of(&json!({"prompt_tokens": 50, "completion_tokens": 5,
            "prompt_tokens_details": {"cached_tokens": 10}}))
        .unwrap();
        assert_eq!((u.input, u.cache_read), (40, 10));
        assert!(usage_of(&json!({"costUsdTicks": 5})).is_none());
    }
}
