//! scry provider for GitHub Copilot CLI sessions.
//!
//! Checked against files written by Copilot CLI 1.0.102 (`@github/copilot`, BYOK, offline).
//!
//! Layout: `$COPILOT_HOME` (default `~/.copilot`) `/session-state/<sessionId>/`:
//! - `events.jsonl`: the append-only, typed event log — the source of truth. Each `--continue`
//!   / `--resume` run appends `session.resume` … `session.shutdown`; an inline subagent's
//!   events are written into its parent's log with an `agentId`.
//! - `workspace.yaml`: flat keys (`cwd`, `branch`, `name` = the first prompt unless
//!   `user_named`, …), read by a tiny parser ([`workspace`]).
//! - `session.db`: the `sql` tool's per-session SQLite file; its `todos` table ([`todos`]).
//! - `checkpoints/` (compaction summaries as Markdown; the same text is in the
//!   `session.compaction_complete` record) and `rewind-file-snapshots/` (file backups for
//!   `/rewind`) are not read.
//!
//! `~/.copilot/session-store.db` (a cross-session index in WAL mode) is not read: its `turns`
//! table was seen missing turns (the first prompt of a session, a post-compaction turn), and
//! everything it holds is in the event logs.
//!
//! Records → events ([`map`]):
//!
//! | `type` | event |
//! |---|---|
//! | `user.message` | `User` (`content`; `transformedContent` adds only a datetime tag) |
//! | `user.message` with `agentId` | `Meta` `subagent_prompt` (the prompt a subagent got: no turn) |
//! | `assistant.message` | `Thinking` (`reasoningText`), `Assistant` (`content`), one `ToolCall` per `toolRequests[]` (`toolCallId`, `name`, `arguments`); `Meta` `empty_response` when it has none of them |
//! | `tool.execution_start` | nothing (the call came with the assistant message; its time gives the duration); a call no message requested → `ToolCall` `direct` |
//! | `tool.execution_complete` | `ToolResult`: `result.content` (+ `error.message`), `is_error` = `!success`, exit code = `shellExecution.exitCode`, duration from the start record, `fileEdits` in `data.file_edits` |
//! | `session.usage_record` | usage on the assistant message with the same `apiCallId` (else `Meta` `usage`) |
//! | `system.message` | `Meta` `system_prompt` |
//! | `session.compaction_complete` | `Compaction` (text = `summaryContent`; token figures in `data`) |
//! | `session.compaction_start` | `Meta` `compaction_start` (log only) |
//! | `subagent.started` / `.completed` | `Meta` `subagent_start` / `subagent_end` |
//! | `subagent.failed` | `System` `subagent_failed` |
//! | `subagent.configured` | `Meta` `subagent_configured` (log only) |
//! | `session.start` / `.resume` / `.shutdown` / `.permissions_changed` | `Meta` of that name (log only) |
//! | `session.model_change` | `Meta` `model_change` (text = `newModel`) |
//! | `session.error` / `.warning` / `.info`, `abort` | `System` `error` / `warning` / `info` / `abort` |
//! | `assistant.turn_start` / `.turn_end`, `model.*` (the compaction call's trace) | nothing |
//! | anything else | one `UnknownRecord` warning per type |
//!
//! Subagents: Copilot writes a subagent's events inline, into the parent's log, tagged with
//! the subagent's `agentId`; they stay in the parent session, every one of them marked
//! `data.agent_id` and `data.subagent` (the display name from `subagent.started`), the
//! subagent's prompt a `subagent_prompt`.
//!
//! Why not sessions of their own (issue 21, checked on the corpus log `f596c862…`, lines
//! 53–68): the log *does* delimit a subagent faithfully — every record it wrote carries the
//! top-level `agentId` (`8d990b3b…`: `subagent.started`, `session.model_change`,
//! `subagent.configured`, its `user.message`, turns, `tool.execution_*` with
//! `data.parentToolCallId` = the parent's `task` call, `subagent.completed`), so even
//! interleaved subagents could be told apart. Two things stand in the way: the parent's own
//! `tool.execution_complete` of that `task` call carries the same `agentId` (it must stay with
//! the parent: match on `data.toolCallId` = the start's `toolCallId`), and discovery would have
//! to read every `events.jsonl` whole on every command to learn which `agentId`s exist (the
//! session directory holds no per-subagent file; `session.db`'s `workflow_agents` /
//! `factory_agents` tables are empty in the corpus for this very subagent). A `SourceFile` per
//! subagent (same path, key `agent:<agentId>`, parent = the session id) is the shape it would
//! take once discovery may cache what it read per fingerprint.
//!
//! Tokens: `inputTokens` includes cache reads (OpenAI `prompt_tokens`), so fresh input =
//! `inputTokens − cacheReadTokens` (ccusage computes the same); `reasoningTokens` is part of
//! `outputTokens`. The todo list, when `session.db` has one, is a final `Meta` `todos` event.

mod map;
pub mod todos;
pub mod workspace;

use std::path::{Path, PathBuf};

use scry_model::{
    Event, EventKind, Header, Locator, ProviderId, TitleSource, Warning, WarningKind,
};
use scry_source::json::str_of;
use scry_source::{
    entry_stat, file_stat, jsonl, Discovery, Emitter, Env, Root, Source, SourceError, SourceFile,
};
use serde_json::Value;

pub use map::usage_of;

/// The environment variable that moves Copilot CLI's home (`~/.copilot`).
pub const ENV_VAR: &str = "COPILOT_HOME";

/// The event log's file name inside a session directory.
pub const EVENTS: &str = "events.jsonl";

/// The Copilot CLI reader.
#[derive(Debug, Default, Clone, Copy)]
pub struct CopilotSource;

/// The Copilot home for `env`.
pub fn home(env: &Env) -> (PathBuf, Option<&'static str>) {
    match env.var(ENV_VAR) {
        Some(dir) => (PathBuf::from(dir), Some(ENV_VAR)),
        None => (env.home().join(".copilot"), None),
    }
}

/// The side files of the session directory `dir` that exist.
fn related(dir: &Path) -> Vec<PathBuf> {
    ["workspace.yaml", "session.db"]
        .iter()
        .map(|n| dir.join(n))
        .filter(|p| p.is_file())
        .collect()
}

impl Source for CopilotSource {
    fn id(&self) -> ProviderId {
        ProviderId::Copilot
    }

    fn roots(&self, env: &Env) -> Vec<Root> {
        let (home, var) = home(env);
        vec![Root::new(home.join("session-state"), var)]
    }

    fn discover(&self, env: &Env) -> Discovery {
        let mut out = Discovery {
            roots: self.roots(env),
            ..Discovery::default()
        };
        for root in out.roots.clone() {
            if !root.exists {
                continue;
            }
            let Some(entries) = scry_source::list_dir(&root.path, &mut out.warnings) else {
                continue;
            };
            let mut dirs: Vec<(String, PathBuf)> = entries
                .filter_map(Result::ok)
                .filter(|e| match e.file_type() {
                    Ok(t) if !t.is_symlink() => t.is_dir(),
                    _ => e.path().is_dir(),
                })
                .filter_map(|e| {
                    let name = e.file_name().to_str()?.to_string();
                    (!name.starts_with('.')).then(|| (name, e.path()))
                })
                .collect();
            dirs.sort();
            for (id, dir) in dirs {
                let Some(files) = scry_source::list_dir(&dir, &mut out.warnings) else {
                    continue;
                };
                let Some(log) = files
                    .filter_map(Result::ok)
                    .find(|e| e.file_name() == EVENTS)
                else {
                    continue;
                };
                let mut f =
                    SourceFile::with_stat(ProviderId::Copilot, id, log.path(), entry_stat(&log));
                f.related = related(&dir);
                out.files.push(f);
            }
        }
        out
    }

    fn detect(&self, path: &Path) -> Option<SourceFile> {
        if path.file_name()? != EVENTS {
            return None;
        }
        let head = jsonl::head(path, 16384)?;
        let text = String::from_utf8_lossy(&head);
        let first: Value = serde_json::from_str(text.lines().next()?).ok()?;
        let d = first.get("data")?;
        let copilot = str_of(&first, "type") == Some("session.start")
            && (d.get("copilotVersion").is_some()
                || str_of(d, "producer") == Some("copilot-agent"));
        if !copilot {
            return None;
        }
        let id = str_of(d, "sessionId")
            .map(String::from)
            .or_else(|| Some(path.parent()?.file_name()?.to_str()?.to_string()))?;
        let (size, mtime) = file_stat(path);
        let mut f = SourceFile::with_stat(ProviderId::Copilot, id, path, (size, mtime));
        if let Some(dir) = path.parent() {
            f.related = related(dir);
        }
        Some(f)
    }

    fn parse_into(&self, file: &SourceFile, out: &mut Emitter<'_>) -> Result<Header, SourceError> {
        let mut mapper = map::Mapper::new(file.path.clone());
        let mut warnings = Vec::new();
        jsonl::read_file(&file.path, &mut warnings, |r| {
            for e in mapper.record(&r) {
                out.emit(e);
            }
        })?;
        let (late, map_warnings) = mapper.finish();
        for e in late {
            out.emit(e);
        }
        let dir = file.path.parent().unwrap_or(Path::new("."));
        let db = dir.join("session.db");
        if db.is_file() {
            let list = todos::read(&db, &mut warnings);
            if !list.is_empty() {
                let (text, data) = todos::render(&list);
                let mut e = Event::new(EventKind::Meta, text, Locator::native("todos", None));
                e.subtype = Some("todos".into());
                e.data = Some(data);
                e.raw.file = 1;
                out.emit(e);
            }
        }
        for w in warnings.into_iter().chain(map_warnings) {
            out.warn(w);
        }
        let ws = workspace::Workspace::read(&dir.join("workspace.yaml"));
        let facts = &mapper.facts;
        if !facts.started {
            out.warn(Warning::at(
                WarningKind::Other,
                "no `session.start` record; agent version unknown",
                &file.path,
                None,
            ));
        }
        let id = facts
            .session_id
            .clone()
            .or_else(|| ws.as_ref().and_then(|w| w.get("id")).map(String::from))
            .unwrap_or_else(|| file.id.clone());
        let mut h = Header::new(ProviderId::Copilot, id);
        h.sources = vec![file.path.clone()];
        if db.is_file() {
            h.sources.push(db);
        }
        let ws_get = |k: &str| ws.as_ref().and_then(|w| w.get(k)).map(String::from);
        h.cwd = ws_get("cwd").or_else(|| facts.cwd.clone());
        h.git_branch = facts.branch.clone().or_else(|| ws_get("branch"));
        h.git_commit = facts.commit.clone();
        h.agent_version = facts.version.clone();
        if let Some(m) = &facts.selected_model {
            h.add_model(m);
        }
        if let Some(name) = ws_get("name").map(|n| n.trim().to_string()) {
            let custom = ws.as_ref().and_then(|w| w.flag("user_named")) == Some(true);
            h.title = Some(scry_model::first_line(&name, 120));
            h.title_source = Some(if custom {
                TitleSource::Custom
            } else {
                TitleSource::FirstPrompt
            });
            h.titles = vec![name];
        }
        Ok(h)
    }
}
