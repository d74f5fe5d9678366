//! One thread (or one subagent namespace of a thread) → header + events.
//!
//! Checked against deepagents-code 0.1.88 (deepagents 0.7.30, langgraph 1.2.24; corpus/real)
//! and 0.1.57 (deepagents 0.7.6; corpus/langgraph/dcode), plus plain LangGraph `SqliteSaver`
//! graphs (corpus/langgraph/langgraph).
//!
//! - Messages: rebuilt by `scry-langgraph` exactly as LangGraph does; times = the checkpoint
//!   that first held each message (`time_source: derived`).
//! - `_summarization_event` writes (auto-summarization and `/offload`): a `Compaction` event
//!   (`subtype: summarization`) with the summary text, placed before the first message that
//!   appeared at or after it; `cutoff_index` is an absolute index into the messages, so every
//!   message before the latest cutoff — and every earlier summary — is `shadowed` (S-Q2).
//!   `data.file_path` is the offloaded history as recorded; `data.file_exists` says whether it
//!   is on disk, else `<deepagents home>/conversation_history/<name>` is tried
//!   (`data.resolved_path`); neither → a `MissingSideFile` warning.
//! - Pending approval interrupts of the latest checkpoint → `System` `interrupt_pending`.
//! - `_model_spec` / `_context_tokens` (ResumeStateMiddleware) → a log-only `Meta`
//!   `thread_state` event at the end (`data.model_spec`, `data.context_tokens`); messages that
//!   name no model get the model spec.
//! - A subagent namespace starts with a copy of the parent's messages (deepagents ≥ 0.7.30
//!   forks the context): that copied prefix (same message ids as the parent thread) is one
//!   `Meta` `forked_context` event, never re-emitted, so nothing is counted twice.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use scry_langgraph::{channels, reconstruct, threads, Db, Message, Value};
use scry_model::{
    Event, EventKind, Header, Lineage, LineageKind, Locator, ProviderId, SessionKind, Surface,
    TimeSource, Timestamp, Warning, WarningKind,
};
use scry_source::{Emitter, SourceError, SourceFile};

use crate::discover::{child_id, split_child_key};
use crate::map::{Mapper, Placed};
use crate::memory;

fn sql(path: &Path) -> impl Fn(rusqlite::Error) -> SourceError + '_ {
    move |e| SourceError::format(path, format!("cannot read sessions database: {e}"))
}

fn ts(s: Option<&str>) -> Option<Timestamp> {
    s.and_then(scry_source::time::parse_str)
}

fn text_value(v: &Option<Value>) -> Option<String> {
    v.as_ref().and_then(Value::as_str).map(str::to_string)
}

/// The Deep Agents home a database lives in (`<home>/.state/sessions.db`).
fn deepagents_home(db: &Path) -> Option<PathBuf> {
    let state = db.parent()?;
    (state.file_name()? == ".state").then(|| state.parent().map(Path::to_path_buf))?
}

/// Which thread and namespace a source names.
fn target(file: &SourceFile) -> (String, String) {
    let key = file.key.clone().unwrap_or_else(|| file.id.clone());
    if file.kind == SessionKind::Subagent {
        if let Some((t, ns)) = split_child_key(&key) {
            return (t.to_string(), ns.to_string());
        }
    }
    (key, String::new())
}

/// Number of leading messages of a subagent namespace copied from its parent thread.
fn copied_prefix(child: &[Message], parent_ids: &HashSet<String>) -> usize {
    child
        .iter()
        .take_while(|m| m.id().is_some_and(|id| parent_ids.contains(id)))
        .count()
}

/// The first human message text after the copied prefix (the subagent's task).
fn child_prompt(child: &[Message], skip: usize) -> Option<String> {
    child
        .iter()
        .skip(skip)
        .find(|m| m.kind() == "human")
        .map(Message::text)
}

struct Summarization {
    time: Option<Timestamp>,
    ts: Option<String>,
    cutoff: Option<i64>,
    summary: String,
    file_path: Option<String>,
    checkpoint_id: String,
    task_id: String,
    idx: i64,
}

fn summarizations(
    db: &Db,
    thread: &str,
    ns: &str,
) -> rusqlite::Result<(Vec<Summarization>, Vec<String>)> {
    let (writes, warnings) = channels::channel_writes(db, thread, ns, "_summarization_event")?;
    let list = writes
        .into_iter()
        .filter(|w| !w.value.is_null())
        .map(|w| {
            let summary = w
                .value
                .get("summary_message")
                .and_then(Message::from_value)
                .map(|m| m.text())
                .unwrap_or_default();
            Summarization {
                time: ts(w.ts.as_deref()),
                ts: w.ts.clone(),
                cutoff: w.value.get("cutoff_index").and_then(Value::as_i64),
                summary,
                file_path: w
                    .value
                    .get("file_path")
                    .and_then(Value::as_str)
                    .map(str::to_string),
                checkpoint_id: w.checkpoint_id,
                task_id: w.task_id,
                idx: w.idx,
            }
        })
        .collect();
    Ok((list, warnings))
}

fn warn_lines(out: &mut Emitter<'_>, db: &Path, lines: Vec<String>) {
    for line in lines {
        let kind = if line.starts_with("Skipped") || line.contains("malformed") {
            WarningKind::CorruptRecord
        } else {
            WarningKind::Other
        };
        out.warn(Warning::at(kind, line, db, None));
    }
}

/// Parses the thread / namespace `file` names.
pub(crate) fn parse(file: &SourceFile, out: &mut Emitter<'_>) -> Result<Header, SourceError> {
    let path = file.path.as_path();
    let db = Db::open(path).map_err(|e| SourceError::format(path, e.to_string()))?;
    let err = sql(path);
    let (thread_id, ns) = target(file);
    let root_agg = threads::aggregate(&db, &thread_id, "").map_err(&err)?;
    let ns_agg = if ns.is_empty() {
        root_agg.clone()
    } else {
        threads::aggregate(&db, &thread_id, &ns).map_err(&err)?
    };
    if ns_agg.checkpoint_count == 0 {
        return Err(SourceError::NotFound {
            path: path.to_path_buf(),
            key: file.key.clone().unwrap_or_else(|| file.id.clone()),
        });
    }
    for note in db.open_notes() {
        out.warn(Warning::at(WarningKind::Other, note.clone(), path, None));
    }

    let id = if ns.is_empty() {
        thread_id.clone()
    } else {
        child_id(&ns)
    };
    let mut header = Header::new(ProviderId::Deepagents, id.clone());
    header.sources.push(path.to_path_buf());
    header.agent_name = text_value(&root_agg.agent_name);
    header.git_branch = text_value(&root_agg.git_branch);
    header.cwd = text_value(&root_agg.cwd);
    for t in [&ns_agg.created_at, &ns_agg.updated_at] {
        if let Some(t) = ts(t.as_ref().and_then(Value::as_str)) {
            header.touch(t);
        }
    }

    // Metadata of the root thread's newest checkpoint: commit, versions, project root.
    let meta = match db.latest_checkpoint(&thread_id, "").map_err(&err)? {
        Some(row) => threads::decode_metadata(row.metadata.as_deref()).unwrap_or(Value::Null),
        None => Value::Null,
    };
    header.git_commit = meta
        .get("git_commit_sha")
        .and_then(Value::as_str)
        .map(str::to_string);
    header.agent_version = meta
        .get("lc_versions")
        .and_then(|v| v.get("deepagents-code"))
        .or_else(|| meta.get("ls_integration_version"))
        .and_then(Value::as_str)
        .map(str::to_string);
    let project_root = meta
        .get("workspace")
        .and_then(|w| w.get("project_root"))
        .and_then(Value::as_str)
        .map(str::to_string)
        .or_else(|| header.cwd.clone());

    // Channel values: the namespace's own, falling back to the root thread's.
    let (values, value_warnings) =
        reconstruct::latest_channel_values(&db, &thread_id, &ns).map_err(&err)?;
    // The latest checkpoint is decoded again for the messages below: its warnings are said once.
    let said = value_warnings.clone();
    warn_lines(out, path, value_warnings);
    let root_values = if ns.is_empty() {
        Vec::new()
    } else {
        reconstruct::latest_channel_values(&db, &thread_id, "")
            .map_err(&err)?
            .0
    };
    let channel = |k: &str| {
        values
            .iter()
            .chain(root_values.iter())
            .find(|(n, _)| n == k)
            .map(|(_, v)| v)
    };
    let model_spec = channel("_model_spec")
        .and_then(Value::as_str)
        .map(str::to_string);
    let context_tokens = values
        .iter()
        .find(|(n, _)| n == "_context_tokens")
        .and_then(|(_, v)| v.as_i64());

    let home = deepagents_home(path);
    let memory = memory::files(
        channel("memory_contents"),
        home.as_deref(),
        header.agent_name.as_deref(),
        project_root.as_deref(),
    );
    header.artifacts = memory.iter().map(|m| m.path.clone()).collect();

    // Messages.
    let rebuilt = reconstruct::thread_messages(&db, &thread_id, &ns).map_err(&err)?;
    let fresh = rebuilt.warnings.iter().filter(|w| !said.contains(w));
    warn_lines(out, path, fresh.cloned().collect());
    let messages = rebuilt.messages;
    let times: Vec<Option<Timestamp>> = reconstruct::message_times(&db, &thread_id, &ns, &messages)
        .map_err(&err)?
        .into_iter()
        .map(|t| ts(t.as_deref()))
        .collect();

    let mut mapper = Mapper::new(path.to_path_buf(), model_spec.clone());
    let mut skip = 0usize;
    if ns.is_empty() {
        link_children(&db, &thread_id, &messages, &mut mapper).map_err(&err)?;
    } else {
        header.kind = SessionKind::Subagent;
        header.parent = Some(thread_id.clone());
        header.lineage.push(Lineage {
            kind: LineageKind::SubagentOf,
            target: thread_id.clone(),
            evidence: format!("checkpoints.checkpoint_ns = {ns}"),
        });
        let parent = reconstruct::thread_messages(&db, &thread_id, "").map_err(&err)?;
        let parent_ids: HashSet<String> = parent
            .messages
            .iter()
            .filter_map(|m| m.id().map(str::to_string))
            .collect();
        skip = copied_prefix(&messages, &parent_ids);
        let task = task_of(&parent.messages, &child_prompt(&messages, skip));
        header.agent_name = messages
            .iter()
            .skip(skip)
            .filter(|m| m.kind() == "ai")
            .find_map(|m| m.name().map(str::to_string))
            .or_else(|| task.as_ref().and_then(|t| t.2.clone()));
        if let Some((_, desc, _)) = task.filter(|t| !t.1.trim().is_empty()) {
            header.title = Some(scry_model::first_line(&desc, 120));
            header.title_source = Some(scry_model::TitleSource::Metadata);
        }
    }

    let (events, sum_warnings) = summarizations(&db, &thread_id, &ns).map_err(&err)?;
    warn_lines(out, path, sum_warnings);
    let cutoff = events
        .iter()
        .filter_map(|s| s.cutoff)
        .max()
        .map(|c| usize::try_from(c).unwrap_or(0))
        .unwrap_or(0);

    // Memory the model was given (preamble).
    for (i, m) in memory.iter().enumerate() {
        let Some(content) = m.content.as_ref().filter(|c| !c.trim().is_empty()) else {
            continue;
        };
        let mut e = Event::new(
            EventKind::Meta,
            content.clone(),
            Locator::native(&format!("memory:{}", m.path), Some(i)),
        );
        e.subtype = Some("agent_memory".into());
        e.data = Some(serde_json::json!({ "path": m.path, "exists": m.exists }));
        out.emit(e);
    }
    if skip > 0 {
        let mut e = Event::new(
            EventKind::Meta,
            format!("{skip} messages of the parent thread {thread_id} were copied into this subagent's context"),
            Locator::native(&format!("forked:{ns}"), None),
        );
        e.subtype = Some("forked_context".into());
        e.time = times.get(skip.saturating_sub(1)).copied().flatten();
        e.time_source = if e.time.is_some() {
            TimeSource::Derived
        } else {
            TimeSource::None
        };
        e.data = Some(serde_json::json!({ "copied_messages": skip, "parent": thread_id }));
        out.emit(e);
    }

    let mut pending: Vec<&Summarization> = events.iter().collect();
    let last_summary = events.len().saturating_sub(1);
    let mut emitted_summaries = 0usize;
    let history_dir = home.as_ref().map(|h| h.join("conversation_history"));
    let emit_summary = |s: &Summarization, n: usize, out: &mut Emitter<'_>| {
        let mut e = Event::new(
            EventKind::Compaction,
            s.summary.clone(),
            Locator::native(
                &format!("summarization:{}:{}:{}", s.checkpoint_id, s.task_id, s.idx),
                None,
            ),
        );
        e.subtype = Some("summarization".into());
        e.time = s.time;
        e.time_source = if s.time.is_some() {
            TimeSource::Derived
        } else {
            TimeSource::None
        };
        if n < last_summary {
            e.surface = Surface::Shadowed;
        }
        let exists = s
            .file_path
            .as_deref()
            .is_some_and(|p| Path::new(p).is_file());
        let resolved = if exists {
            None
        } else {
            s.file_path
                .as_deref()
                .and_then(|p| Path::new(p).file_name())
                .zip(history_dir.as_ref())
                .map(|(name, dir)| dir.join(name))
                .filter(|p| p.is_file())
        };
        if let (Some(fp), false, None) = (&s.file_path, exists, &resolved) {
            out.warn(Warning::at(
                WarningKind::MissingSideFile,
                format!("offloaded conversation history {fp} is not on this machine"),
                path,
                None,
            ));
        }
        e.data = Some(serde_json::json!({
            // The replaced span is computed here (S-Q2): shared surface rules leave it alone.
            "surface_op": { "op": "summarize", "shadows_messages_before": s.cutoff },
            "cutoff_index": s.cutoff,
            "file_path": s.file_path,
            "file_exists": exists,
            "resolved_path": resolved.map(|p| p.to_string_lossy().into_owned()),
            "checkpoint_ts": s.ts,
        }));
        out.emit(e);
    };

    for (i, msg) in messages.iter().enumerate() {
        let time = times.get(i).copied().flatten();
        while let Some(s) = pending.first() {
            let due = match (s.time, time) {
                (Some(st), Some(mt)) => mt >= st,
                _ => false,
            };
            if !due {
                break;
            }
            emit_summary(s, emitted_summaries, out);
            emitted_summaries += 1;
            pending.remove(0);
        }
        if i < skip {
            continue;
        }
        let surface = if i < cutoff {
            Surface::Shadowed
        } else {
            Surface::Current
        };
        mapper.message(
            &Placed {
                index: i,
                msg,
                time,
                surface,
            },
            out,
        );
    }
    for s in pending {
        emit_summary(s, emitted_summaries, out);
        emitted_summaries += 1;
    }
    mapper.finish(out);

    let latest_ts = match db.latest_checkpoint(&thread_id, &ns).map_err(&err)? {
        Some(row) => reconstruct::decode_checkpoint(&row)
            .ok()
            .and_then(|cp| cp.ts),
        None => None,
    };
    let latest_time = ts(latest_ts.as_deref());
    for (n, interrupt) in channels::pending_interrupts(&db, &thread_id, &ns)
        .map_err(&err)?
        .iter()
        .enumerate()
    {
        out.emit(interrupt_event(
            interrupt,
            n,
            rebuilt.latest_checkpoint_id.as_deref(),
            latest_time,
        ));
    }
    if model_spec.is_some() || context_tokens.is_some() {
        let mut text = Vec::new();
        if let Some(m) = &model_spec {
            text.push(format!("model {m}"));
        }
        if let Some(c) = context_tokens {
            text.push(format!("context {c} tokens"));
        }
        let mut e = Event::new(
            EventKind::Meta,
            text.join(", "),
            Locator::native(
                &format!(
                    "state:{}",
                    rebuilt.latest_checkpoint_id.as_deref().unwrap_or_default()
                ),
                None,
            ),
        );
        e.subtype = Some("thread_state".into());
        e.surface = Surface::LogOnly;
        e.time = latest_time;
        e.time_source = if latest_time.is_some() {
            TimeSource::Derived
        } else {
            TimeSource::None
        };
        e.data = Some(serde_json::json!({
            "model_spec": model_spec,
            "context_tokens": context_tokens,
            "checkpoint_count": ns_agg.checkpoint_count,
            "latest_checkpoint_id": rebuilt.latest_checkpoint_id,
            "checkpoint_ns": ns,
        }));
        out.emit(e);
    }
    Ok(header)
}

fn interrupt_event(
    interrupt: &Value,
    n: usize,
    checkpoint: Option<&str>,
    time: Option<Timestamp>,
) -> Event {
    let value = interrupt.get("value").unwrap_or(interrupt);
    let mut lines = Vec::new();
    for req in value
        .get("action_requests")
        .and_then(Value::as_array)
        .unwrap_or(&[])
    {
        let name = req.get("name").and_then(Value::as_str).unwrap_or("?");
        match req.get("description").and_then(Value::as_str) {
            Some(d) => lines.push(format!("Awaiting approval: {name} ({d})")),
            None => lines.push(format!("Awaiting approval: {name}")),
        }
    }
    if lines.is_empty() {
        lines.push(format!(
            "Interrupted, awaiting input: {}",
            scry_langgraph::pyjson::dumps(value)
        ));
    }
    let id = interrupt
        .get("id")
        .and_then(Value::as_str)
        .map(str::to_string)
        .unwrap_or_else(|| format!("{}#{n}", checkpoint.unwrap_or_default()));
    let mut e = Event::new(
        EventKind::System,
        lines.join("\n"),
        Locator::native(&format!("interrupt:{id}"), None),
    );
    e.subtype = Some("interrupt_pending".into());
    e.time = time;
    e.time_source = if time.is_some() {
        TimeSource::Derived
    } else {
        TimeSource::None
    };
    e.data = Some(interrupt.to_json());
    e
}

/// The parent's `task` call whose description is the child's prompt.
fn task_of(
    parent: &[Message],
    prompt: &Option<String>,
) -> Option<(String, String, Option<String>)> {
    let prompt = prompt.as_deref()?;
    task_calls(parent)
        .into_iter()
        .find(|(_, desc, _)| !desc.is_empty() && prompt.contains(desc.as_str()))
}

/// `(call id, description, subagent_type)` of every `task` tool call.
fn task_calls(messages: &[Message]) -> Vec<(String, String, Option<String>)> {
    let mut out = Vec::new();
    for m in messages {
        for call in m.tool_calls().and_then(Value::as_array).unwrap_or(&[]) {
            if call.get("name").and_then(Value::as_str) != Some("task") {
                continue;
            }
            let Some(id) = call.get("id").and_then(Value::as_str) else {
                continue;
            };
            let args = call.get("args");
            let desc = args
                .and_then(|a| a.get("description"))
                .and_then(Value::as_str)
                .unwrap_or_default();
            let ty = args
                .and_then(|a| a.get("subagent_type"))
                .and_then(Value::as_str)
                .map(str::to_string);
            out.push((id.to_string(), desc.to_string(), ty));
        }
    }
    out
}

/// Links the root thread's `task` calls to the subagent namespaces they ran in (the
/// namespace's task prompt contains the call's `description`): `data.subagent_session`.
fn link_children(
    db: &Db,
    thread_id: &str,
    messages: &[Message],
    mapper: &mut Mapper,
) -> rusqlite::Result<()> {
    let calls = task_calls(messages);
    if calls.is_empty() {
        return Ok(());
    }
    let ids: HashSet<String> = messages
        .iter()
        .filter_map(|m| m.id().map(str::to_string))
        .collect();
    let mut taken: HashMap<String, ()> = HashMap::new();
    for ns in threads::child_namespaces(db, thread_id)? {
        let child = reconstruct::thread_messages(db, thread_id, &ns)?.messages;
        let skip = copied_prefix(&child, &ids);
        let Some(prompt) = child_prompt(&child, skip) else {
            continue;
        };
        if let Some((call_id, _, _)) = calls.iter().find(|(id, desc, _)| {
            !desc.is_empty() && prompt.contains(desc.as_str()) && !taken.contains_key(id)
        }) {
            taken.insert(call_id.clone(), ());
            mapper.call_data.insert(
                call_id.clone(),
                serde_json::json!({ "subagent_session": child_id(&ns), "checkpoint_ns": ns }),
            );
        }
    }
    Ok(())
}
