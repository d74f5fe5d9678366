//! Rebuilding a thread's `messages` channel exactly as LangGraph does (checked against
//! langgraph 1.2.24's own `get_state` on every thread of the corpus databases).
//!
//! 1. The latest checkpoint's inline `channel_values.messages` when present (a delta-channel
//!    snapshot, extension 7, is unwrapped).
//! 2. Otherwise (delta channels store no value between snapshots) walk `parent_checkpoint_id`
//!    back to the nearest checkpoint that has an inline value (or the first checkpoint), then
//!    replay forward the `messages` writes anchored on each checkpoint of that path, in
//!    `task_path`, `task_id`, `idx` order.
//! 3. Finally the latest checkpoint's own pending writes.
//!
//! Writes are applied with `add_messages` semantics and `Overwrite`; a malformed write is
//! skipped with a warning naming checkpoint, task and idx. Nothing aborts on bad data.

use std::collections::{HashMap, HashSet};

use crate::db::{CheckpointRow, Db};
use crate::message::{self, Message};
use crate::msgpack;
use crate::value::Value;

/// The messages of one thread namespace, with provenance.
#[derive(Debug, Clone, Default)]
pub struct ThreadMessages {
    /// The messages, in order.
    pub messages: Vec<Message>,
    /// The latest checkpoint id (`None` for a thread without checkpoints).
    pub latest_checkpoint_id: Option<String>,
    /// The checkpoint whose inline value was the starting point, if any.
    pub base_checkpoint_id: Option<String>,
    /// Number of `messages` writes replayed on top of it.
    pub replayed_writes: usize,
    /// Problems met (undecodable checkpoint, skipped write, removal of an absent id).
    pub warnings: Vec<String>,
}

/// A checkpoint blob decoded, with what the reader needs from it.
#[derive(Debug, Clone)]
pub struct DecodedCheckpoint {
    /// `checkpoint_id`.
    pub id: String,
    /// `parent_checkpoint_id`.
    pub parent: Option<String>,
    /// The checkpoint's `ts` (ISO 8601), if it decoded.
    pub ts: Option<String>,
    /// `channel_values` in stored order (empty when the blob did not decode).
    pub channel_values: Vec<(String, Value)>,
}

/// Decodes a checkpoint row's blob. `Err` carries a warning line.
pub fn decode_checkpoint(row: &CheckpointRow) -> Result<DecodedCheckpoint, String> {
    let mut out = DecodedCheckpoint {
        id: row.checkpoint_id.clone(),
        parent: row.parent_checkpoint_id.clone(),
        ts: None,
        channel_values: Vec::new(),
    };
    let (Some(type_name), Some(blob)) = (row.type_name.as_deref(), row.blob.as_deref()) else {
        return Ok(out);
    };
    if blob.is_empty() {
        return Ok(out);
    }
    let decoded = msgpack::decode_typed(type_name, blob)
        .map_err(|e| format!("Could not decode checkpoint {} ({e}).", row.checkpoint_id))?;
    out.ts = decoded
        .value
        .get("ts")
        .and_then(Value::as_str)
        .map(str::to_string);
    if let Some(Value::Map(cv)) = decoded.value.get("channel_values") {
        out.channel_values = cv.clone();
    }
    Ok(out)
}

/// Labels of every [`Value::Opaque`] inside `value` (unknown extensions, pickle, numpy).
pub fn opaque_labels(value: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        match v {
            Value::Opaque { label, .. } => out.push(label.clone()),
            Value::Array(a) => stack.extend(a.iter()),
            Value::Map(m) => stack.extend(m.iter().map(|(_, v)| v)),
            Value::Object(o) => {
                stack.extend(o.args.iter());
                stack.extend(o.kwargs.iter().map(|(_, v)| v));
            }
            Value::DeltaSnapshot(inner) => stack.push(inner),
            _ => {}
        }
    }
    out
}

/// Rebuilds the `messages` channel of `thread_id` / `ns` as of its latest checkpoint.
pub fn thread_messages(db: &Db, thread_id: &str, ns: &str) -> rusqlite::Result<ThreadMessages> {
    let mut out = ThreadMessages::default();
    let Some(latest) = db.latest_checkpoint(thread_id, ns)? else {
        return Ok(out);
    };
    out.latest_checkpoint_id = Some(latest.checkpoint_id.clone());

    // Walk back to the nearest inline value; `path` collects the anchors, newest first.
    let mut path: Vec<String> = Vec::new();
    let mut seen: HashSet<String> = HashSet::new();
    let mut current = Some(latest);
    let mut base: Vec<Message> = Vec::new();
    while let Some(row) = current.take() {
        if !seen.insert(row.checkpoint_id.clone()) {
            out.warnings.push(format!(
                "Checkpoint parent chain loops at {}.",
                row.checkpoint_id
            ));
            break;
        }
        path.push(row.checkpoint_id.clone());
        match decode_checkpoint(&row) {
            Ok(cp) => {
                if let Some((_, inline)) = cp.channel_values.iter().find(|(k, _)| k == "messages") {
                    match message::to_messages(inline) {
                        Ok(list) => {
                            let opaque = opaque_labels(inline);
                            if !opaque.is_empty() {
                                out.warnings.push(format!(
                                    "Inline messages of checkpoint {} contain undecoded values: {}.",
                                    cp.id,
                                    opaque.join(", ")
                                ));
                            }
                            base = list;
                            out.base_checkpoint_id = Some(cp.id.clone());
                            break;
                        }
                        Err(e) => out.warnings.push(format!(
                            "Inline messages of checkpoint {} were malformed ({e}); replaying writes instead.",
                            cp.id
                        )),
                    }
                }
            }
            Err(w) => out.warnings.push(w),
        }
        if let Some(parent) = row.parent_checkpoint_id.as_deref() {
            current = db.checkpoint(thread_id, ns, parent)?;
            if current.is_none() {
                out.warnings.push(format!(
                    "Parent checkpoint {parent} of {} is missing; history before it is unknown.",
                    row.checkpoint_id
                ));
            }
        }
    }

    out.messages = base;
    // `path[0]` is the latest checkpoint: its own writes are one pending super-step, applied
    // like `update()` (plain writes after an `Overwrite` in that step are dropped); ancestors'
    // writes are replayed one by one like `DeltaChannel.replay_writes`.
    for (depth, anchor) in path.iter().enumerate().rev() {
        let mut overwritten = false;
        for w in db.writes(thread_id, ns, anchor, Some("messages"))? {
            let at = || {
                format!(
                    "checkpoint {}, task {}, idx {}",
                    w.checkpoint_id, w.task_id, w.idx
                )
            };
            let (Some(type_name), Some(value)) = (w.type_name.as_deref(), w.value.as_deref())
            else {
                continue;
            };
            let decoded = match msgpack::decode_typed(type_name, value) {
                Ok(d) => d,
                Err(e) => {
                    out.warnings.push(format!(
                        "Skipped an undecodable messages write ({}): {e}.",
                        at()
                    ));
                    continue;
                }
            };
            for note in &decoded.warnings {
                out.warnings
                    .push(format!("In the messages write at {}: {note}.", at()));
            }
            match message::classify_update(&decoded.value) {
                Ok(message::Update::Add(_)) if depth == 0 && overwritten => {
                    out.warnings.push(format!(
                        "Dropped a messages write that follows an Overwrite in the same step ({}).",
                        at()
                    ));
                }
                Ok(update) => {
                    overwritten |= matches!(update, message::Update::Overwrite(_));
                    out.replayed_writes += 1;
                    for note in message::apply(&mut out.messages, update) {
                        out.warnings.push(format!("{note} ({}).", at()));
                    }
                }
                Err(e) => out.warnings.push(format!(
                    "Skipped a malformed messages write ({}): {e}.",
                    at()
                )),
            }
        }
    }
    Ok(out)
}

/// Channel name → value, in stored order.
pub type ChannelValues = Vec<(String, Value)>;

/// The latest channel values of a thread namespace (`_model_spec`, `_context_tokens`, `todos`,
/// `files`, …): the latest checkpoint's `channel_values`, then its pending writes (last wins).
/// `messages` is not included; use [`thread_messages`].
pub fn latest_channel_values(
    db: &Db,
    thread_id: &str,
    ns: &str,
) -> rusqlite::Result<(ChannelValues, Vec<String>)> {
    let mut warnings = Vec::new();
    let Some(latest) = db.latest_checkpoint(thread_id, ns)? else {
        return Ok((Vec::new(), warnings));
    };
    let mut values = match decode_checkpoint(&latest) {
        Ok(cp) => cp.channel_values,
        Err(w) => {
            warnings.push(w);
            Vec::new()
        }
    };
    values.retain(|(k, _)| k != "messages");
    for w in db.writes(thread_id, ns, &latest.checkpoint_id, None)? {
        if w.channel == "messages"
            || w.channel.starts_with("__")
            || w.channel.starts_with("branch:")
            || w.idx < 0
        {
            continue;
        }
        let (Some(t), Some(v)) = (w.type_name.as_deref(), w.value.as_deref()) else {
            continue;
        };
        match msgpack::decode_typed(t, v) {
            Ok(d) => match values.iter_mut().find(|(k, _)| *k == w.channel) {
                Some(slot) => slot.1 = d.value,
                None => values.push((w.channel.clone(), d.value)),
            },
            Err(e) => warnings.push(format!("Skipped an undecodable {} write: {e}.", w.channel)),
        }
    }
    Ok((values, warnings))
}

/// When each message first appeared: for every message id, the `ts` of the checkpoint that
/// followed the step whose write introduced it (the anchor's own `ts` when no later checkpoint
/// exists). `None` where no write names the id (e.g. ids LangGraph assigned later).
pub fn message_times(
    db: &Db,
    thread_id: &str,
    ns: &str,
    messages: &[Message],
) -> rusqlite::Result<Vec<Option<String>>> {
    let index = db.checkpoint_index(thread_id, ns)?;
    let mut child_of: HashMap<&str, &str> = HashMap::new();
    for row in &index {
        if let Some(p) = row.parent_checkpoint_id.as_deref() {
            child_of.entry(p).or_insert(row.checkpoint_id.as_str());
        }
    }
    let mut ts_cache: HashMap<String, Option<String>> = HashMap::new();
    let mut ts_of = |id: &str| -> rusqlite::Result<Option<String>> {
        if let Some(t) = ts_cache.get(id) {
            return Ok(t.clone());
        }
        let ts = db
            .checkpoint(thread_id, ns, id)?
            .and_then(|row| decode_checkpoint(&row).ok())
            .and_then(|cp| cp.ts);
        ts_cache.insert(id.to_string(), ts.clone());
        Ok(ts)
    };
    let mut first_seen: HashMap<String, Option<String>> = HashMap::new();
    for w in db.all_writes(thread_id, ns, "messages")? {
        let (Some(t), Some(v)) = (w.type_name.as_deref(), w.value.as_deref()) else {
            continue;
        };
        let Ok(decoded) = msgpack::decode_typed(t, v) else {
            continue;
        };
        let Ok(update) = message::classify_update(&decoded.value) else {
            continue;
        };
        let list = match update {
            message::Update::Add(l) | message::Update::Overwrite(l) => l,
        };
        for m in list {
            let Some(id) = m.id() else { continue };
            if first_seen.contains_key(id) {
                continue;
            }
            let when = child_of
                .get(w.checkpoint_id.as_str())
                .copied()
                .unwrap_or(w.checkpoint_id.as_str())
                .to_string();
            first_seen.insert(id.to_string(), ts_of(&when)?);
        }
    }
    Ok(messages
        .iter()
        .map(|m| m.id().and_then(|id| first_seen.get(id).cloned().flatten()))
        .collect())
}
