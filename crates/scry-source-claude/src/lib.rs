//! scry provider for Claude Code transcripts (`~/.claude/projects/<slug>/<id>.jsonl`).
//!
//! Checked against files written by Claude Code 1.0.71 (a new file per `--resume` with copied
//! history, inline sidechains, compaction without a boundary record, `summary` records) and
//! 2.1.332 (split assistant lines, `compact_boundary`, `<id>/subagents/`, `api-request*`,
//! `cost-state`, `attachment`, …), plus third-party fixtures of 1.0–2.1.x shapes.
//!
//! Modules, in reading order: [`discover`] (roots, layout, detect), [`header`] (envelope facts,
//! titles, the cheap header scan), [`parse`] (the streaming pass), `classify` (what a user text
//! is), `assistant` (split messages and usage), `records` (everything else), [`resume`]
//! (copied history of older releases), `persisted` (`tool-results/` side files),
//! [`checkpoint`] (resuming a grown file from its last safe point: where those are, what state
//! crosses them).
//!
//! # Records → events
//! | record | event |
//! |---|---|
//! | `user`, human text | `User` (text blocks of one record are one prompt; images counted in `data.attachments`) |
//! | `user`, `tool_result` block | `ToolResult` per block, paired by `tool_use_id`; `toolUseResult` in `data.result`; `is_error`; `exit_code` / `duration_ms` only when `toolUseResult` records them |
//! | `user`, `isCompactSummary` | `Compaction` `compact_summary` (`data.without_boundary` when no `compact_boundary` preceded it) |
//! | `user`, `isMeta` / `<system-reminder>` / `<command-name>` / caveat / `<task-notification>` / `origin.kind` ≠ human / `<bash-input>` | `Meta` (`meta`, `system_reminder`, `command`, `caveat`, `task_notification`, …, `bash_input`) |
//! | `user`, `<local-command-stdout>` / `<bash-stdout>` / `[Request interrupted by user…` | `System` (`local_command`, `bash_output`, `interrupt`) |
//! | `user` in a sidechain inside a main file | `Meta` `sidechain_prompt` (`warmup` for "Warmup"); every sidechain event has `data.sidechain` |
//! | `assistant` block | `thinking` → `Thinking`, `text` → `Assistant`, `tool_use` → `ToolCall`, `*_tool_result` → `ToolResult`, other → `Meta`; `isApiErrorMessage` → `System` `api_error` |
//! | `system` `compact_boundary` | `Compaction` `compact_boundary` (`compactMetadata` in `data`) |
//! | `system`, other subtypes | `System` with the subtype (`Meta` when `isMeta`); `turn_duration` is log-only |
//! | `attachment` | `Meta` with the attachment type (`System` for hook errors); text = what was rendered to the model |
//! | `summary`, `custom-title`, `ai-title`, `agent-name`, `mode`, `permission-mode`, `pr-link`, `worktree-state`, `relocated` | `Meta`, surface `LogOnly` (titles also feed the header) |
//! | `queue-operation` `remove` / `popAll` with content | `Meta` `queue_<op>`, `LogOnly` |
//! | `queue-operation` enqueue / dequeue, `attachment` `prompt_snapshot`, [`records::COUNTED`] types | no event; counted in [`ParseStats`] |
//! | anything else | no event; one `UnknownRecord` warning per type with its count and first line |
//!
//! # Tokens
//! Usage is attached to the last content-block event of each `message.id`, taken from the last
//! line of that message (the final `output_tokens`), once per file: a `message.id` seen again
//! later carries no usage. `<synthetic>` messages carry none. Lines of the copied prefix of a
//! resumed 1.0.x file carry none either (see [`resume`]).

mod assistant;
pub mod checkpoint;
mod classify;
pub mod discover;
pub mod header;
pub mod parse;
mod persisted;
pub mod records;
pub mod resume;

use std::path::Path;

use scry_model::{Header, ProviderId};
use scry_source::{Discovery, Emitter, Env, ResumePoint, Root, Source, SourceError, SourceFile};

pub use parse::ParseStats;

/// The Claude Code reader.
#[derive(Debug, Default, Clone, Copy)]
pub struct ClaudeSource;

impl ClaudeSource {
    /// Like [`Source::parse_into`], also returning the counts of bookkeeping and unknown
    /// records.
    pub fn parse_with_stats(
        &self,
        file: &SourceFile,
        out: &mut Emitter<'_>,
    ) -> Result<(Header, ParseStats), SourceError> {
        parse::run(file, out)
    }
}

impl Source for ClaudeSource {
    fn id(&self) -> ProviderId {
        ProviderId::Claude
    }

    fn roots(&self, env: &Env) -> Vec<Root> {
        discover::roots(env)
    }

    fn discover(&self, env: &Env) -> Discovery {
        discover::discover(env)
    }

    fn detect(&self, path: &Path) -> Option<SourceFile> {
        discover::detect(path)
    }

    fn probe_cwd(&self, file: &SourceFile) -> Option<String> {
        header::probe_cwd(file)
    }

    fn scan_header(&self, file: &SourceFile) -> Result<Header, SourceError> {
        header::scan(file)
    }

    fn parse_into(&self, file: &SourceFile, out: &mut Emitter<'_>) -> Result<Header, SourceError> {
        parse::run(file, out).map(|(h, _)| h)
    }

    fn resume_support(&self) -> bool {
        true
    }

    fn parse_into_from(
        &self,
        file: &SourceFile,
        from: &ResumePoint,
        out: &mut Emitter<'_>,
    ) -> Result<Header, SourceError> {
        parse::run_from(file, from, out).map(|(h, _)| h)
    }
}
