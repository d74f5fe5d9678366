//! The history of any channel of a thread, decoded: what a provider needs beyond `messages` —
//! Deep Agents' `_summarization_event` (offload / compaction: `cutoff_index`,
//! `summary_message`, `file_path`), `_context_tokens`, `_model_spec`, and LangGraph's
//! `__interrupt__` / `__resume__` writes (pending approvals).

use crate::db::Db;
use crate::msgpack;
use crate::reconstruct::decode_checkpoint;
use crate::value::Value;

/// One decoded write.
#[derive(Debug, Clone)]
pub struct ChannelWrite {
    /// The checkpoint the write is anchored on.
    pub checkpoint_id: String,
    /// The writing task.
    pub task_id: String,
    /// The task path ('' when the schema has none).
    pub task_path: String,
    /// Index within the task's writes (negative for LangGraph's special channels).
    pub idx: i64,
    /// The `ts` of the checkpoint that followed the step (the anchor's own `ts` when it is the
    /// latest), when known.
    pub ts: Option<String>,
    /// The value.
    pub value: Value,
}

/// Every write to `channel` of a thread namespace, in checkpoint, task path, task, idx order.
/// Undecodable writes are skipped and named in the returned warnings.
pub fn channel_writes(
    db: &Db,
    thread_id: &str,
    ns: &str,
    channel: &str,
) -> rusqlite::Result<(Vec<ChannelWrite>, Vec<String>)> {
    let index = db.checkpoint_index(thread_id, ns)?;
    let child = |anchor: &str| {
        index
            .iter()
            .find(|r| r.parent_checkpoint_id.as_deref() == Some(anchor))
            .map(|r| r.checkpoint_id.clone())
            .unwrap_or_else(|| anchor.to_string())
    };
    let mut ts_cache: std::collections::HashMap<String, Option<String>> =
        std::collections::HashMap::new();
    let mut out = Vec::new();
    let mut warnings = Vec::new();
    for w in db.all_writes(thread_id, ns, channel)? {
        let (Some(t), Some(v)) = (w.type_name.as_deref(), w.value.as_deref()) else {
            continue;
        };
        let decoded = match msgpack::decode_typed(t, v) {
            Ok(d) => d,
            Err(e) => {
                warnings.push(format!(
                    "Skipped an undecodable {channel} write (checkpoint {}, task {}, idx {}): {e}.",
                    w.checkpoint_id, w.task_id, w.idx
                ));
                continue;
            }
        };
        warnings.extend(decoded.warnings);
        let at = child(&w.checkpoint_id);
        let ts = match ts_cache.get(&at) {
            Some(t) => t.clone(),
            None => {
                let t = db
                    .checkpoint(thread_id, ns, &at)?
                    .and_then(|row| decode_checkpoint(&row).ok())
                    .and_then(|cp| cp.ts);
                ts_cache.insert(at.clone(), t.clone());
                t
            }
        };
        out.push(ChannelWrite {
            checkpoint_id: w.checkpoint_id,
            task_id: w.task_id,
            task_path: w.task_path,
            idx: w.idx,
            ts,
            value: decoded.value,
        });
    }
    Ok((out, warnings))
}

/// Interrupts still waiting for an answer: the `__interrupt__` writes on the latest checkpoint
/// when no `__resume__` write answers them there. Each is usually a `langgraph.types.Interrupt`
/// object (`value`, `id`); Deep Agents' approval requests carry `action_requests`.
pub fn pending_interrupts(db: &Db, thread_id: &str, ns: &str) -> rusqlite::Result<Vec<Value>> {
    let Some(latest) = db.latest_checkpoint(thread_id, ns)? else {
        return Ok(Vec::new());
    };
    let writes = db.writes(thread_id, ns, &latest.checkpoint_id, None)?;
    if writes.iter().any(|w| w.channel == "__resume__") {
        return Ok(Vec::new());
    }
    let mut out = Vec::new();
    for w in writes.iter().filter(|w| w.channel == "__interrupt__") {
        let (Some(t), Some(v)) = (w.type_name.as_deref(), w.value.as_deref()) else {
            continue;
        };
        if let Ok(d) = msgpack::decode_typed(t, v) {
            match d.value {
                Value::Array(items) => out.extend(items),
                other => out.push(other),
            }
        }
    }
    Ok(out)
}
