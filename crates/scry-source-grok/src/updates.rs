//! Fallback event source: `updates.jsonl` (the ACP stream Grok replays on `/resume`), used only
//! when a session directory has no `chat_history.jsonl`.
//!
//! Line: `{timestamp (epoch s), method, params:{sessionId, update:{sessionUpdate, …},
//! _meta:{agentTimestampMs}}}`. Consecutive `user_message_chunk` / `agent_message_chunk` /
//! `agent_thought_chunk` lines are coalesced into one User / Assistant / Thinking event (time of
//! the first chunk, from the line itself). `tool_call{toolCallId, title, kind, rawInput}` → ToolCall;
//! `tool_call_update{toolCallId, status, content|rawOutput}` repeats the WHOLE output so far, so
//! only the latest one is kept per call and emitted as the ToolResult when the status is terminal
//! (`completed` / `failed`), or at the end of the file with its last status. Other kinds (`plan`,
//! `hook_execution`, `retry_state`, …) are counted as unknown.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use scry_model::{Event, EventKind, Locator, RawRef, Timestamp, Warning, WarningKind};
use scry_source::json::{as_u64, str_of, text_of};
use scry_source::jsonl;
use scry_source::Emitter;
use serde_json::{json, Value};

/// A chunk run being coalesced.
struct Run {
    kind: EventKind,
    text: String,
    time: Option<Timestamp>,
    raw: RawRef,
    locator: Locator,
}

/// The latest state of a tool call's result.
struct Pending {
    text: String,
    status: String,
    time: Option<Timestamp>,
    raw: RawRef,
    locator: Locator,
}

fn line_time(v: &Value, update: &Value) -> Option<Timestamp> {
    let ms = scry_source::json::path(v, &["params", "_meta", "agentTimestampMs"])
        .or_else(|| scry_source::json::path(update, &["_meta", "agentTimestampMs"]))
        .and_then(as_u64)
        .and_then(|m| i64::try_from(m).ok());
    match ms {
        Some(ms) => scry_source::time::from_millis(ms),
        None => v.get("timestamp").and_then(scry_source::time::from_value),
    }
}

/// Text of an ACP content block, or of a `tool_call_update` content list.
fn tool_text(update: &Value) -> String {
    if let Some(Value::Array(items)) = update.get("content") {
        let mut parts = Vec::new();
        for item in items {
            match str_of(item, "type") {
                Some("content") => {
                    if let Some(c) = item.get("content") {
                        parts.push(match c {
                            Value::Object(_) => str_of(c, "text").unwrap_or("").to_string(),
                            other => text_of(other),
                        });
                    }
                }
                Some("diff") => parts.push(format!(
                    "[diff: {}]",
                    str_of(item, "path").unwrap_or("file")
                )),
                Some("terminal") => parts.push(format!(
                    "[terminal {}]",
                    str_of(item, "terminalId").unwrap_or("")
                )),
                _ => parts.push(text_of(item)),
            }
        }
        let t = parts.join("\n");
        if !t.trim().is_empty() {
            return t;
        }
    }
    match update.get("rawOutput") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Null) | None => String::new(),
        Some(other) => other.to_string(),
    }
}

fn flush(run: &mut Option<Run>, out: &mut Emitter<'_>) {
    if let Some(r) = run.take() {
        let mut ev = Event::new(r.kind, r.text, r.locator).at(r.time);
        ev.raw = r.raw;
        out.emit(ev);
    }
}

fn result(id: &str, tool: Option<String>, p: Pending, out: &mut Emitter<'_>) {
    let mut ev = Event::new(EventKind::ToolResult, p.text, p.locator).at(p.time);
    ev.raw = p.raw;
    ev.call_id = Some(id.to_string());
    ev.tool = tool;
    ev.is_error = match p.status.as_str() {
        "completed" => Some(false),
        "failed" => Some(true),
        _ => None,
    };
    ev.data = Some(json!({ "status": p.status, "source": "updates.jsonl" }));
    out.emit(ev);
}

/// Emits the events of `updates.jsonl`; warnings go to `warnings`.
pub fn read(path: &Path, warnings: &mut Vec<Warning>, out: &mut Emitter<'_>) {
    let mut run: Option<Run> = None;
    let mut tools: HashMap<String, String> = HashMap::new();
    let mut pending: BTreeMap<String, Pending> = BTreeMap::new();
    let mut unknown: BTreeMap<String, (u64, u64)> = BTreeMap::new();
    let res = jsonl::read_file(path, warnings, |r| {
        let v = &r.value;
        let update = scry_source::json::path(v, &["params", "update"])
            .or_else(|| v.get("update"))
            .unwrap_or(v);
        let Some(kind) = str_of(update, "sessionUpdate") else {
            let e = unknown
                .entry("(no sessionUpdate)".into())
                .or_insert((0, r.line));
            e.0 += 1;
            return;
        };
        let time = line_time(v, update);
        let raw = RawRef {
            file: 0,
            offset: r.offset,
            len: r.raw.len() as u64,
            line: r.line,
        };
        let locator = Locator::record(r.line, r.raw, None);
        let chunk = match kind {
            "user_message_chunk" => Some(EventKind::User),
            "agent_message_chunk" => Some(EventKind::Assistant),
            "agent_thought_chunk" => Some(EventKind::Thinking),
            _ => None,
        };
        if let Some(k) = chunk {
            let text = match update.get("content") {
                Some(c @ Value::Object(_)) => str_of(c, "text").unwrap_or("").to_string(),
                Some(other) => text_of(other),
                None => String::new(),
            };
            match &mut run {
                Some(cur) if cur.kind == k => cur.text.push_str(&text),
                _ => {
                    flush(&mut run, out);
                    run = Some(Run {
                        kind: k,
                        text,
                        time,
                        raw,
                        locator,
                    });
                }
            }
            return;
        }
        flush(&mut run, out);
        match kind {
            "tool_call" | "tool_call_update" => {
                let id = str_of(update, "toolCallId").unwrap_or("").to_string();
                if kind == "tool_call" && !tools.contains_key(&id) {
                    let name = str_of(update, "title")
                        .or_else(|| str_of(update, "kind"))
                        .unwrap_or("tool")
                        .to_string();
                    let mut ev =
                        Event::new(EventKind::ToolCall, String::new(), locator.clone()).at(time);
                    ev.raw = raw;
                    ev.tool = Some(name.clone());
                    ev.call_id = Some(id.clone()).filter(|c| !c.is_empty());
                    ev.args = update.get("rawInput").filter(|x| !x.is_null()).cloned();
                    out.emit(ev);
                    tools.insert(id.clone(), name);
                }
                let status = str_of(update, "status").unwrap_or("").to_string();
                let text = tool_text(update);
                if kind == "tool_call_update" || !text.is_empty() {
                    let p = pending.entry(id.clone()).or_insert(Pending {
                        text: String::new(),
                        status: String::new(),
                        time,
                        raw,
                        locator: locator.clone(),
                    });
                    // Each update repeats the whole output: the latest supersedes.
                    if !text.is_empty() {
                        p.text = text;
                    }
                    if !status.is_empty() {
                        p.status = status.clone();
                    }
                    p.time = time.or(p.time);
                    p.raw = raw;
                    p.locator = locator;
                }
                if matches!(status.as_str(), "completed" | "failed") {
                    if let Some(p) = pending.remove(&id) {
                        result(&id, tools.get(&id).cloned(), p, out);
                    }
                }
            }
            "plan" => {
                let mut lines = Vec::new();
                if let Some(Value::Array(entries)) = update.get("entries") {
                    for e in entries {
                        lines.push(format!(
                            "[{}] {}",
                            str_of(e, "status").unwrap_or("?"),
                            str_of(e, "content").unwrap_or("")
                        ));
                    }
                }
                let mut ev = Event::new(EventKind::Meta, lines.join("\n"), locator).at(time);
                ev.raw = raw;
                ev.subtype = Some("plan".into());
                out.emit(ev);
            }
            other => {
                let e = unknown.entry(other.to_string()).or_insert((0, r.line));
                e.0 += 1;
            }
        }
    });
    if let Err(e) = res {
        warnings.push(Warning::at(
            WarningKind::Unreadable,
            e.to_string(),
            path,
            None,
        ));
    }
    flush(&mut run, out);
    for (id, p) in std::mem::take(&mut pending) {
        result(&id, tools.get(&id).cloned(), p, out);
    }
    for (kind, (count, line)) in unknown {
        warnings.push(Warning::at(
            WarningKind::UnknownRecord,
            format!("updates.jsonl kind '{kind}' ({count} line(s)) not mapped"),
            path,
            Some(line),
        ));
    }
}
