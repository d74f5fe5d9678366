//! Threads: id resolution (S-L2), per-thread summaries and the thread listing of Deep Agents'
//! `list_threads` (S-L6). Only `checkpoint_ns = ''` is a root thread; every other namespace
//! (e.g. `tools:<id>` of a `task` subagent) is listed as a child of its root thread.
//!
//! Metadata is read as UTF-8 JSON in Rust (not with SQLite's `json_extract`, which treats a
//! BLOB as JSONB in current SQLite and aborts the whole query on one malformed row);
//! aggregates follow the SQL the real tools use (`MIN`/`MAX` of `updated_at`, `MAX` of
//! `agent_name`, `git_branch`, `cwd`).

use std::collections::BTreeMap;

use crate::db::Db;
use crate::message::Message;
use crate::reconstruct;
use crate::value::{self, Value};

/// Why a thread id did not resolve.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ResolveError {
    /// No root thread has this id or prefix.
    NotFound(String),
    /// Several root threads start with the prefix (sorted; at most 11 are fetched).
    Ambiguous(Vec<String>),
    /// The database failed.
    Sqlite(String),
}

impl std::fmt::Display for ResolveError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ResolveError::NotFound(v) => write!(f, "Thread not found: {v}"),
            ResolveError::Ambiguous(c) => {
                write!(f, "Thread prefix is ambiguous:")?;
                for m in c.iter().take(10) {
                    write!(f, "\n  {m}")?;
                }
                Ok(())
            }
            ResolveError::Sqlite(e) => write!(f, "Cannot read sessions database: {e}"),
        }
    }
}

impl std::error::Error for ResolveError {}

/// Escapes `\`, `%` and `_` for `LIKE … ESCAPE '\'`.
pub fn escape_like(value: &str) -> String {
    value
        .replace('\\', "\\\\")
        .replace('%', "\\%")
        .replace('_', "\\_")
}

/// Resolves a full root-thread id or a unique prefix of one.
pub fn resolve_thread_id(db: &Db, value: &str) -> Result<String, ResolveError> {
    let sql_err = |e: rusqlite::Error| ResolveError::Sqlite(e.to_string());
    let conn = db.connection();
    let exact = conn
        .prepare("SELECT 1 FROM checkpoints WHERE thread_id = ?1 AND checkpoint_ns = '' LIMIT 1")
        .and_then(|mut s| s.exists([value]))
        .map_err(sql_err)?;
    if exact {
        return Ok(value.to_string());
    }
    let pattern = format!("{}%", escape_like(value));
    let mut stmt = conn
        .prepare(
            "SELECT DISTINCT thread_id FROM checkpoints WHERE checkpoint_ns = '' \
             AND thread_id LIKE ?1 ESCAPE '\\' ORDER BY thread_id LIMIT 11",
        )
        .map_err(sql_err)?;
    let matches: Vec<String> = stmt
        .query_map([pattern], |r| r.get::<_, String>(0))
        .and_then(|rows| rows.collect())
        .map_err(sql_err)?;
    match matches.len() {
        0 => Err(ResolveError::NotFound(value.to_string())),
        1 => Ok(matches.into_iter().next().unwrap_or_default()),
        _ => Err(ResolveError::Ambiguous(matches)),
    }
}

/// Decodes a metadata column: UTF-8 JSON object in key order. `Err` says why it was dropped
/// (the inspector's wording).
pub fn decode_metadata(raw: Option<&[u8]>) -> Result<Value, &'static str> {
    let Some(raw) = raw else {
        return Ok(Value::Map(Vec::new()));
    };
    let Ok(text) = std::str::from_utf8(raw) else {
        return Err("Checkpoint metadata was not valid UTF-8.");
    };
    if text.is_empty() {
        return Ok(Value::Map(Vec::new()));
    }
    match value::parse_json(text) {
        Ok(v @ Value::Map(_)) => Ok(v),
        Ok(_) => Ok(Value::Map(Vec::new())),
        Err(_) => Err("Checkpoint metadata was not valid JSON."),
    }
}

/// A scalar metadata field as SQLite's `json_extract` would return it (text for strings,
/// numbers as written; objects and arrays as JSON text; `null` → `None`).
fn scalar(meta: &Value, key: &str) -> Option<Value> {
    match meta.get(key)? {
        Value::Null => None,
        v @ (Value::Str(_) | Value::Int(_) | Value::UInt(_) | Value::Float(_)) => Some(v.clone()),
        Value::Bool(b) => Some(Value::Int(i64::from(*b))),
        other => Some(Value::Str(crate::pyjson::dumps(other))),
    }
}

/// SQLite's ordering of scalar values: numbers before text.
fn sql_cmp(a: &Value, b: &Value) -> std::cmp::Ordering {
    let num = |v: &Value| match v {
        Value::Int(i) => Some(*i as f64),
        Value::UInt(u) => Some(*u as f64),
        Value::Float(f) => Some(*f),
        _ => None,
    };
    match (num(a), num(b), a.as_str(), b.as_str()) {
        (Some(x), Some(y), _, _) => x.total_cmp(&y),
        (Some(_), None, _, _) => std::cmp::Ordering::Less,
        (None, Some(_), _, _) => std::cmp::Ordering::Greater,
        (_, _, Some(x), Some(y)) => x.cmp(y),
        _ => std::cmp::Ordering::Equal,
    }
}

fn keep(slot: &mut Option<Value>, v: Option<Value>, want: std::cmp::Ordering) {
    if let Some(v) = v {
        if slot.as_ref().is_none_or(|cur| sql_cmp(&v, cur) == want) {
            *slot = Some(v);
        }
    }
}

/// Aggregates of one thread namespace's checkpoint metadata.
#[derive(Debug, Clone, Default)]
pub struct Aggregate {
    /// `MIN(updated_at)`.
    pub created_at: Option<Value>,
    /// `MAX(updated_at)`.
    pub updated_at: Option<Value>,
    /// `MAX(agent_name)`.
    pub agent_name: Option<Value>,
    /// `MAX(git_branch)`.
    pub git_branch: Option<Value>,
    /// `MAX(cwd)`.
    pub cwd: Option<Value>,
    /// Number of checkpoints.
    pub checkpoint_count: i64,
    /// `MAX(checkpoint_id)`.
    pub latest_checkpoint_id: Option<String>,
}

/// Aggregates for every thread id of namespace `ns` (`''` = root threads), keyed by thread id.
pub fn aggregates(db: &Db, ns: &str) -> rusqlite::Result<BTreeMap<String, Aggregate>> {
    aggregates_where(db, ns, None)
}

/// The aggregate of one thread namespace (default values when it has no checkpoints).
pub fn aggregate(db: &Db, thread_id: &str, ns: &str) -> rusqlite::Result<Aggregate> {
    Ok(aggregates_where(db, ns, Some(thread_id))?
        .remove(thread_id)
        .unwrap_or_default())
}

fn aggregates_where(
    db: &Db,
    ns: &str,
    thread: Option<&str>,
) -> rusqlite::Result<BTreeMap<String, Aggregate>> {
    let mut stmt = db.connection().prepare(
        "SELECT thread_id, checkpoint_id, metadata FROM checkpoints WHERE checkpoint_ns = ?1 \
         AND (?2 IS NULL OR thread_id = ?2)",
    )?;
    let mut rows = stmt.query((ns, thread))?;
    let mut out: BTreeMap<String, Aggregate> = BTreeMap::new();
    while let Some(r) = rows.next()? {
        let thread: String = r.get(0)?;
        let id: String = r.get(1)?;
        let meta_raw: Option<Vec<u8>> = match r.get_ref(2)? {
            rusqlite::types::ValueRef::Blob(b) | rusqlite::types::ValueRef::Text(b) => {
                Some(b.to_vec())
            }
            _ => None,
        };
        let meta = decode_metadata(meta_raw.as_deref()).unwrap_or(Value::Map(Vec::new()));
        let agg = out.entry(thread).or_default();
        agg.checkpoint_count += 1;
        if agg
            .latest_checkpoint_id
            .as_deref()
            .is_none_or(|cur| id.as_str() > cur)
        {
            agg.latest_checkpoint_id = Some(id);
        }
        let updated = scalar(&meta, "updated_at");
        keep(
            &mut agg.created_at,
            updated.clone(),
            std::cmp::Ordering::Less,
        );
        keep(&mut agg.updated_at, updated, std::cmp::Ordering::Greater);
        keep(
            &mut agg.agent_name,
            scalar(&meta, "agent_name"),
            std::cmp::Ordering::Greater,
        );
        keep(
            &mut agg.git_branch,
            scalar(&meta, "git_branch"),
            std::cmp::Ordering::Greater,
        );
        keep(
            &mut agg.cwd,
            scalar(&meta, "cwd"),
            std::cmp::Ordering::Greater,
        );
    }
    Ok(out)
}

/// Root thread ids with their aggregates, most recently updated first (`ORDER BY updated_at
/// DESC`, ties by thread id).
pub fn recent_threads(db: &Db) -> rusqlite::Result<Vec<(String, Aggregate)>> {
    let mut list: Vec<(String, Aggregate)> = aggregates(db, "")?.into_iter().collect();
    list.sort_by(|a, b| match (&a.1.updated_at, &b.1.updated_at) {
        (Some(x), Some(y)) => sql_cmp(y, x),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => std::cmp::Ordering::Equal,
    });
    Ok(list)
}

/// A subagent (or other non-root) namespace of a thread.
#[derive(Debug, Clone)]
pub struct ChildNamespace {
    /// The `checkpoint_ns`, e.g. `tools:eeada537-…`.
    pub namespace: String,
    /// Number of checkpoints in it.
    pub checkpoint_count: i64,
    /// Its newest checkpoint.
    pub latest_checkpoint_id: Option<String>,
    /// Number of messages rebuilt for it (when messages were requested).
    pub message_count: Option<usize>,
}

/// One root thread, like Deep Agents' `ThreadInfo`.
#[derive(Debug, Clone)]
pub struct ThreadInfo {
    /// The thread id.
    pub thread_id: String,
    /// `agent_name` from metadata.
    pub agent_name: Option<String>,
    /// Earliest `updated_at`.
    pub created_at: Option<String>,
    /// Latest `updated_at`.
    pub updated_at: Option<String>,
    /// Newest checkpoint id.
    pub latest_checkpoint_id: Option<String>,
    /// Text of the first human message (when messages were requested).
    pub initial_prompt: Option<String>,
    /// Number of messages (when messages were requested).
    pub message_count: Option<usize>,
    /// `git_branch` from metadata.
    pub git_branch: Option<String>,
    /// `cwd` from metadata.
    pub cwd: Option<String>,
    /// Number of root checkpoints.
    pub checkpoint_count: i64,
    /// `_model_spec` channel value (e.g. `anthropic:claude-sonnet-4-5`).
    pub model_spec: Option<String>,
    /// `_context_tokens` channel value.
    pub context_tokens: Option<i64>,
    /// Non-root namespaces (subagents), sorted.
    pub children: Vec<ChildNamespace>,
    /// Problems met while reading the thread.
    pub warnings: Vec<String>,
}

fn text_of(v: &Option<Value>) -> Option<String> {
    v.as_ref().map(|v| match v {
        Value::Str(s) => s.clone(),
        other => crate::pyjson::dumps(other),
    })
}

/// The first real human prompt of a message list.
pub fn initial_prompt(messages: &[Message]) -> Option<String> {
    messages
        .iter()
        .find(|m| m.kind() == "human")
        .map(Message::text)
}

/// Lists root threads, most recent first (`limit` = at most that many). With `with_messages`,
/// every thread (and child namespace) is rebuilt to fill `message_count` and `initial_prompt`.
pub fn list_threads(
    db: &Db,
    limit: Option<usize>,
    with_messages: bool,
) -> rusqlite::Result<Vec<ThreadInfo>> {
    let mut out = Vec::new();
    for (thread_id, agg) in recent_threads(db)?
        .into_iter()
        .take(limit.unwrap_or(usize::MAX))
    {
        out.push(thread_info(db, &thread_id, &agg, with_messages)?);
    }
    Ok(out)
}

/// Builds the [`ThreadInfo`] of one root thread from its aggregate.
pub fn thread_info(
    db: &Db,
    thread_id: &str,
    agg: &Aggregate,
    with_messages: bool,
) -> rusqlite::Result<ThreadInfo> {
    let (values, mut warnings) = reconstruct::latest_channel_values(db, thread_id, "")?;
    let channel = |k: &str| values.iter().find(|(n, _)| n == k).map(|(_, v)| v);
    let mut info = ThreadInfo {
        thread_id: thread_id.to_string(),
        agent_name: text_of(&agg.agent_name),
        created_at: text_of(&agg.created_at),
        updated_at: text_of(&agg.updated_at),
        latest_checkpoint_id: agg.latest_checkpoint_id.clone(),
        initial_prompt: None,
        message_count: None,
        git_branch: text_of(&agg.git_branch),
        cwd: text_of(&agg.cwd),
        checkpoint_count: agg.checkpoint_count,
        model_spec: channel("_model_spec")
            .and_then(Value::as_str)
            .map(str::to_string),
        context_tokens: channel("_context_tokens").and_then(Value::as_i64),
        children: Vec::new(),
        warnings: Vec::new(),
    };
    if with_messages {
        let rebuilt = reconstruct::thread_messages(db, thread_id, "")?;
        info.message_count = Some(rebuilt.messages.len());
        info.initial_prompt = initial_prompt(&rebuilt.messages);
        warnings.extend(rebuilt.warnings);
    }
    for ns in child_namespaces(db, thread_id)? {
        let index = db.checkpoint_index(thread_id, &ns)?;
        let message_count = if with_messages {
            Some(
                reconstruct::thread_messages(db, thread_id, &ns)?
                    .messages
                    .len(),
            )
        } else {
            None
        };
        info.children.push(ChildNamespace {
            checkpoint_count: index.len() as i64,
            latest_checkpoint_id: index.last().map(|r| r.checkpoint_id.clone()),
            namespace: ns,
            message_count,
        });
    }
    info.warnings = warnings;
    Ok(info)
}

/// The non-root namespaces of a thread, sorted.
pub fn child_namespaces(db: &Db, thread_id: &str) -> rusqlite::Result<Vec<String>> {
    let mut stmt = db.connection().prepare(
        "SELECT DISTINCT checkpoint_ns FROM checkpoints WHERE thread_id = ?1 AND checkpoint_ns != '' \
         ORDER BY checkpoint_ns",
    )?;
    let rows = stmt.query_map([thread_id], |r| r.get::<_, String>(0))?;
    rows.collect()
}
