//! Rebuilding a Gemini CLI conversation from its files: the append-only `.jsonl` protocol and
//! the legacy whole-document `.json`.
//!
//! `.jsonl` protocol (checked against chatRecordingService.ts and files written by 0.61.0):
//! - a metadata line `{sessionId, projectHash, startTime, lastUpdated, kind?, directories?}`,
//!   written again by every process that resumes the session;
//! - message records (they have an `id`); an updated message is re-appended whole with the same
//!   id: the last write wins, the first-seen position is kept;
//! - `{"$set": {…}}` merges metadata; a non-empty `$set.messages` replaces the message list
//!   (written on resume and after compression from the API history);
//! - `{"$rewindTo": "<id>"}` removes that message and everything after it (an unknown id clears
//!   everything).
//!
//! Nothing removed is dropped here: a message taken out by `$rewindTo` or left out of a
//! `$set.messages` list stays, marked not current (its events get `Surface::Shadowed`). A
//! `$set.messages` entry whose id is already known keeps the record we hold: the list is a
//! projection of the API history (content parts only — in 0.61.0 files it has lost `toolCalls`,
//! `tokens`, `thoughts` and `model`), while the appended record is the agent's full record.
//!
//! The message map must be held until the end of the file (a later line can rewrite any
//! message), so memory grows with the number of distinct messages; that is the format's price.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use scry_model::{RawRef, Warning, WarningKind};
use scry_source::SourceError;
use serde_json::{value::RawValue, Map, Value};

/// One message as finally known.
#[derive(Debug, Clone)]
pub struct Msg {
    /// The message id.
    pub id: String,
    /// The last record written for it.
    pub value: Value,
    /// Where that record is.
    pub raw: RawRef,
    /// Still in the conversation (not rewound away nor replaced).
    pub current: bool,
    /// Known only from a `$set.messages` list (a history projection), not from its own record.
    pub from_set: bool,
}

/// The conversation state while reading.
#[derive(Debug, Default)]
pub struct Log {
    order: Vec<String>,
    msgs: HashMap<String, Msg>,
    /// Merged metadata (`messages` excluded).
    pub meta: Map<String, Value>,
    /// Every distinct non-empty `summary`, oldest first.
    pub summaries: Vec<String>,
    /// Record kinds that are not part of the protocol, with count and first line.
    pub unknown: BTreeMap<String, (u64, Option<u64>)>,
    /// Number of `$rewindTo` records applied.
    pub rewinds: u32,
    /// Number of message-list replacements applied.
    pub list_replacements: u32,
}

impl Log {
    /// Messages in conversation order.
    pub fn messages(&self) -> impl Iterator<Item = &Msg> {
        self.order.iter().filter_map(|id| self.msgs.get(id))
    }

    /// Applies one `.jsonl` record.
    pub fn apply(&mut self, value: Value, raw: RawRef) {
        if let Some(target) = value.get("$rewindTo").and_then(Value::as_str) {
            self.rewind(target);
            return;
        }
        if value.get("id").and_then(Value::as_str).is_some() {
            self.put(value, raw);
            return;
        }
        if let Some(set) = value.get("$set").and_then(Value::as_object) {
            let set = set.clone();
            self.merge_meta(set, raw);
            return;
        }
        if value.get("sessionId").and_then(Value::as_str).is_some() {
            if let Value::Object(obj) = value {
                self.merge_meta(obj, raw);
            }
            return;
        }
        let label = match &value {
            Value::Object(o) => {
                let mut keys: Vec<&str> = o.keys().map(String::as_str).take(4).collect();
                keys.sort_unstable();
                format!("{{{}}}", keys.join(","))
            }
            other => json_kind(other).to_string(),
        };
        let entry = self.unknown.entry(label).or_insert((0, Some(raw.line)));
        entry.0 += 1;
    }

    /// Stores a message record: last write wins, first-seen position kept. A message that had
    /// been rewound away and is written again moves to the end, as the agent's own loader does.
    fn put(&mut self, value: Value, raw: RawRef) {
        let Some(id) = value.get("id").and_then(Value::as_str).map(String::from) else {
            return;
        };
        match self.msgs.get_mut(&id) {
            Some(m) if m.current => {
                m.value = value;
                m.raw = raw;
                m.from_set = false;
            }
            Some(m) => {
                m.value = value;
                m.raw = raw;
                m.from_set = false;
                m.current = true;
                self.order.retain(|x| x != &id);
                self.order.push(id);
            }
            None => {
                self.order.push(id.clone());
                self.msgs.insert(
                    id.clone(),
                    Msg {
                        id,
                        value,
                        raw,
                        current: true,
                        from_set: false,
                    },
                );
            }
        }
    }

    /// `$rewindTo`: the target and every later current message stop being current.
    fn rewind(&mut self, target: &str) {
        self.rewinds += 1;
        let found = self
            .msgs
            .get(target)
            .is_some_and(|m| m.current && self.order.iter().any(|x| x == target));
        let mut hit = !found;
        for id in &self.order {
            if id == target {
                hit = true;
            }
            if hit {
                if let Some(m) = self.msgs.get_mut(id) {
                    m.current = false;
                }
            }
        }
    }

    /// `$set` (or a metadata line): merges fields; a non-empty `messages` replaces the list.
    fn merge_meta(&mut self, mut set: Map<String, Value>, raw: RawRef) {
        if let Some(Value::Array(list)) = set.remove("messages") {
            if !list.is_empty() {
                self.replace_list(list, raw);
            }
        }
        if let Some(s) = set.get("summary").and_then(Value::as_str) {
            let s = s.trim();
            if !s.is_empty() && self.summaries.last().map(String::as_str) != Some(s) {
                self.summaries.push(s.to_string());
            }
        }
        for (k, v) in set {
            // The first metadata line's start time is the session's; later lines (one per
            // resumed process) carry their own start.
            if k == "startTime" && self.meta.contains_key("startTime") {
                continue;
            }
            self.meta.insert(k, v);
        }
    }

    /// A `$set.messages` list becomes the conversation; messages outside it stop being current.
    fn replace_list(&mut self, list: Vec<Value>, raw: RawRef) {
        self.list_replacements += 1;
        let ids: Vec<Option<String>> = list
            .iter()
            .map(|m| m.get("id").and_then(Value::as_str).map(String::from))
            .collect();
        for m in self.msgs.values_mut() {
            m.current = false;
        }
        let pos = |order: &[String], id: &str| order.iter().position(|x| x == id);
        let mut insert_at = ids
            .iter()
            .flatten()
            .find_map(|id| self.msgs.contains_key(id).then(|| pos(&self.order, id)))
            .flatten()
            .unwrap_or(self.order.len());
        for (value, id) in list.into_iter().zip(ids) {
            let Some(id) = id else {
                let entry = self
                    .unknown
                    .entry("$set.messages entry without id".to_string())
                    .or_insert((0, Some(raw.line)));
                entry.0 += 1;
                continue;
            };
            match self.msgs.get_mut(&id) {
                Some(m) => {
                    if m.from_set {
                        m.value = value;
                        m.raw = raw;
                    }
                    m.current = true;
                    insert_at = pos(&self.order, &id).map_or(self.order.len(), |p| p + 1);
                }
                None => {
                    let at = insert_at.min(self.order.len());
                    self.order.insert(at, id.clone());
                    insert_at = at + 1;
                    self.msgs.insert(
                        id.clone(),
                        Msg {
                            id,
                            value,
                            raw,
                            current: true,
                            from_set: true,
                        },
                    );
                }
            }
        }
    }

    /// Reads a legacy whole-document `.json` session (file index `file` in the header's
    /// sources). Each message's raw reference points at its bytes inside the document.
    pub fn read_legacy(
        &mut self,
        path: &Path,
        file: u32,
        warnings: &mut Vec<Warning>,
    ) -> Result<(), SourceError> {
        let bytes = std::fs::read(path).map_err(|e| SourceError::io(path, e))?;
        let text = match String::from_utf8(bytes) {
            Ok(t) => t,
            Err(e) => {
                warnings.push(Warning::at(
                    WarningKind::InvalidUtf8,
                    "invalid UTF-8 in the session document; decoded lossily",
                    path,
                    None,
                ));
                String::from_utf8_lossy(e.as_bytes()).into_owned()
            }
        };
        // Top-level fields stay raw (borrowed) so the document is not held twice.
        let top: BTreeMap<String, &RawValue> = serde_json::from_str(&text).map_err(|e| {
            SourceError::format(path, format!("not a Gemini session document ({e})"))
        })?;
        let mut meta = Map::new();
        let mut messages: Vec<&RawValue> = Vec::new();
        for (key, raw) in top {
            if key == "messages" {
                match serde_json::from_str(raw.get()) {
                    Ok(list) => messages = list,
                    Err(_) => warnings.push(Warning::at(
                        WarningKind::CorruptRecord,
                        "`messages` is not an array; no messages read",
                        path,
                        None,
                    )),
                }
            } else if let Ok(v) = serde_json::from_str::<Value>(raw.get()) {
                meta.insert(key, v);
            }
        }
        self.merge_meta(meta, RawRef::default());
        let base = text.as_ptr() as usize;
        let (mut counted_to, mut line) = (0usize, 1u64);
        for raw in messages {
            let slice = raw.get();
            let offset = (slice.as_ptr() as usize).saturating_sub(base);
            if let Some(between) = text.get(counted_to..offset) {
                line += between.bytes().filter(|b| *b == b'\n').count() as u64;
                counted_to = offset;
            }
            let rr = RawRef {
                file,
                offset: offset as u64,
                len: slice.len() as u64,
                line,
            };
            match serde_json::from_str::<Value>(slice) {
                Ok(v) if v.get("id").and_then(Value::as_str).is_some() => self.put(v, rr),
                Ok(v) => {
                    // Very early files: messages without ids. Key them by position.
                    let mut v = v;
                    if let Value::Object(o) = &mut v {
                        o.insert("id".into(), Value::String(format!("#{line}:{offset}")));
                    }
                    self.put(v, rr);
                }
                Err(_) => warnings.push(Warning::at(
                    WarningKind::CorruptRecord,
                    "skipped a message that is not valid JSON",
                    path,
                    Some(line),
                )),
            }
        }
        Ok(())
    }
}

/// A JSON value's type name.
fn json_kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn rr(line: u64) -> RawRef {
        RawRef {
            line,
            ..RawRef::default()
        }
    }

    fn current(log: &Log) -> Vec<String> {
        log.messages()
            .filter(|m| m.current)
            .map(|m| m.id.clone())
            .collect()
    }

    #[test]
    fn reappended_id_keeps_position_and_last_value() {
        let mut log = Log::default();
        log.apply(json!({"id":"a","type":"user","content":"1"}), rr(1));
        log.apply(json!({"id":"b","type":"gemini","content":"x"}), rr(2));
        log.apply(json!({"id":"a","type":"user","content":"2"}), rr(3));
        let all: Vec<_> = log.messages().collect();
        assert_eq!(all.len(), 2);
        assert_eq!(all[0].id, "a");
        assert_eq!(all[0].value["content"], "2");
        assert_eq!(all[0].raw.line, 3);
    }

    #[test]
    fn set_messages_inserts_new_ids_between_known_ones() {
        let mut log = Log::default();
        for (i, id) in ["u1", "g1", "u2", "g2"].iter().enumerate() {
            log.apply(json!({"id": id}), rr(i as u64 + 1));
        }
        log.apply(
            json!({"$set":{"messages":[{"id":"sum"},{"id":"u2"},{"id":"g2"}]}}),
            rr(5),
        );
        let order: Vec<_> = log.messages().map(|m| m.id.clone()).collect();
        assert_eq!(order, ["u1", "g1", "sum", "u2", "g2"]);
        assert_eq!(current(&log), ["sum", "u2", "g2"]);
    }
}
