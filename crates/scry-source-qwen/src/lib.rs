//! scry provider for Qwen Code sessions (`~/.qwen/projects/<project>/chats/<sessionId>.jsonl`).
//!
//! Checked against files written by Qwen Code 0.24.4 (`@qwen-code/qwen-code`, OpenAI-compatible
//! auth): append-only JSONL, one record per line linked by `uuid` / `parentUuid`, with the
//! envelope `sessionId, timestamp, type, cwd, version, gitBranch` and Gemini-shaped message
//! parts. `--continue` / `--resume` append to the same file. Subagents write their own file
//! under `subagents/<parentSessionId>/` (see [`discover`]).
//!
//! # Records → events
//! | record | event |
//! |---|---|
//! | `user` (`provenance: real_user`, or none in a subagent file), text parts | `User` |
//! | `user` with another `provenance` | `Meta` with the provenance as subtype |
//! | `assistant` (`role: model`) parts | `{text, thought: true}` → `Thinking`; text parts → one `Assistant`; `functionCall` → `ToolCall` (`agent` calls: `data.agentId` = `<subagent_type>-<call id>`, the subagent session's id); `usageMetadata` → usage on the text event, else the first call, else the thinking (`Meta` `empty_response` when the record holds nothing else) |
//! | `tool_result`, each `functionResponse` part | `ToolResult`: text = `response.output` (or `response.error`); `toolCallResult.status` `error` → `is_error`; exit code from `resultDisplay.exitCode` of a `shell_result` (else `Exit Code: N` in the output); `duration_ms` from `toolCallResult.durationMs` or the preceding `tool_call` telemetry; subagent outcome (`task_execution`) in `data.subagent` |
//! | `system` `chat_compression` | `Compaction` `chat_compression`: text = the user parts of `compressedHistory` (the `<summary>` and re-read files), `info` (token counts, trigger) in `data`. `/compress` itself writes no `user` record |
//! | `system` `ui_telemetry` `api_response` of a `/compress` request (`prompt_id` `compress-…`) | `Meta` `compression_request`, log-only, with that request's usage (no other record carries it) |
//! | `system` `ui_telemetry`, other events | no event; counted by event name in [`ParseStats::telemetry`] (`tool_call` durations go to the results; `api_response` of the main chat duplicates the assistant records' usage, of a subagent the subagent file's) |
//! | `system` `attribution_snapshot` | no event; counted in [`ParseStats::counted`] |
//! | `system`, other subtypes | `System` with the subtype, log-only, payload in `data` |
//! | anything else | no event; one `UnknownRecord` warning per type with its count |
//!
//! # Tokens
//! `usageMetadata` is Gemini's shape filled from an OpenAI-compatible response:
//! `promptTokenCount` includes `cachedContentTokenCount`, and `candidatesTokenCount` includes
//! `thoughtsTokenCount` (every corpus record has `total = prompt + candidates`; Qwen's own
//! `usage_record.jsonl` has `totalTokens = inputTokens + outputTokens`). So `input = prompt −
//! cached`, `cache_read = cached`, `output = candidates`, `reasoning = thoughts`; a record in
//! Gemini's own convention (`total = prompt + candidates + thoughts`) gets `output = candidates
//! + thoughts`. A subagent's tokens are in its own session.
//!
//! `~/.qwen/usage_record.jsonl` (one cumulative line per CLI run) is not read: everything in it
//! is in the chat files.
//!
//! # Resuming
//! Records map one by one, in order, with no look-ahead, so a grown file continues from the
//! end of its last complete line ([`resume`]).

pub mod discover;
pub mod map;
pub mod resume;

use std::io::Read;
use std::path::Path;

use scry_model::{
    Header, Lineage, LineageKind, ProviderId, RawRef, SessionKind, TitleSource, Warning,
    WarningKind,
};
use scry_source::json::str_of;
use scry_source::lines::LineReader;
use scry_source::{
    jsonl, Discovery, Emitter, Env, ResumePoint, Root, Source, SourceError, SourceFile,
};
use serde_json::Value;

pub use map::ParseStats;

/// The Qwen Code reader.
#[derive(Debug, Default, Clone, Copy)]
pub struct QwenSource;

impl QwenSource {
    /// [`Source::parse_into`] that also returns what the parse counted (telemetry records,
    /// bookkeeping records, unknown types).
    pub fn parse_with_stats(
        &self,
        file: &SourceFile,
        out: &mut Emitter<'_>,
    ) -> Result<(Header, ParseStats), SourceError> {
        let mapper = map::Mapper::new(file.path.clone());
        let lines = LineReader::new(jsonl::open(&file.path)?);
        Ok(pass(file, lines, mapper, Vec::new(), out))
    }
}

/// Reads records from wherever `lines` stands to the end, mapping them with `mapper`. Read
/// warnings (those before the start in `warnings`) and the mapper's come after the events, as
/// in every parse; when the sink keeps resume points, one is offered at the end of the last
/// complete line (none when a record was read after it: a torn tail that may still grow).
pub(crate) fn pass<R: std::io::BufRead>(
    file: &SourceFile,
    mut lines: LineReader<R>,
    mut mapper: map::Mapper,
    mut warnings: Vec<Warning>,
    out: &mut Emitter<'_>,
) -> (Header, ParseStats) {
    let track = out.wants_resume_points() && !jsonl::is_compressed(&file.path);
    let mut last_end: Option<(u64, u64, usize)> = None;
    let mut read_after = false;
    loop {
        let line = match lines.next_line() {
            Ok(Some(line)) => line,
            Ok(None) => break,
            Err(e) => {
                warnings.push(Warning::at(
                    WarningKind::Unreadable,
                    format!("read stopped: {e}"),
                    &file.path,
                    None,
                ));
                read_after = true;
                break;
            }
        };
        let (number, complete, offset) = (line.number, line.complete, line.offset);
        let mut read = false;
        if !line.bytes.iter().all(u8::is_ascii_whitespace) {
            let len = line.bytes.len() as u64;
            if let Some(v) =
                jsonl::parse_line(line.bytes, &file.path, number, complete, &mut warnings)
            {
                read = true;
                let raw = RawRef {
                    file: 0,
                    offset,
                    len,
                    line: number,
                };
                for e in mapper.record(&v, raw) {
                    out.emit(e);
                }
            }
        }
        if complete {
            last_end = Some((lines.offset(), number, warnings.len()));
            read_after = false;
        } else {
            read_after |= read;
        }
    }
    if let (true, Some((offset, line, n)), false) = (track, last_end, read_after) {
        let before = warnings.get(..n).unwrap_or(&warnings);
        out.offer(resume::point(offset, line, out.state(), before, &mapper));
    }
    for w in warnings.into_iter().chain(mapper.finish()) {
        out.warn(w);
    }
    (header(file, &mapper.facts), mapper.stats)
}

impl Source for QwenSource {
    fn id(&self) -> ProviderId {
        ProviderId::Qwen
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

    fn parse_into(&self, file: &SourceFile, out: &mut Emitter<'_>) -> Result<Header, SourceError> {
        self.parse_with_stats(file, out).map(|(h, _)| h)
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
        resume::run(file, from, out)
    }
}

/// The header from the path, the envelope facts and (for a subagent) its `.meta.json`.
fn header(file: &SourceFile, facts: &map::Facts) -> Header {
    // A subagent transcript given by path outside the layout still says what it is: its
    // records carry `agentId`, and their `sessionId` is the parent's.
    let sub = file.kind == SessionKind::Subagent || facts.agent_id.is_some();
    let id = if file.kind == SessionKind::Subagent {
        file.id.clone()
    } else {
        facts
            .agent_id
            .clone()
            .or_else(|| facts.session_id.clone())
            .unwrap_or_else(|| file.id.clone())
    };
    let mut h = Header::new(ProviderId::Qwen, id);
    h.sources.push(file.path.clone());
    h.sources.extend(file.related.iter().cloned());
    h.kind = if sub {
        SessionKind::Subagent
    } else {
        file.kind
    };
    h.cwd.clone_from(&facts.cwd);
    h.git_branch.clone_from(&facts.branch);
    h.agent_version.clone_from(&facts.version);
    if !sub {
        return h;
    }
    let meta = read_meta(file);
    let meta_str = |k: &str| meta.as_ref().and_then(|m| str_of(m, k)).map(String::from);
    let parent = file
        .parent
        .clone()
        .map(|p| (p, "path: subagents/<parentSessionId>/"))
        .or_else(|| meta_str("parentSessionId").map(|p| (p, "meta.json: parentSessionId")))
        .or_else(|| facts.session_id.clone().map(|p| (p, "sessionId")));
    if let Some((p, evidence)) = parent {
        h.parent = Some(p.clone());
        h.lineage.push(Lineage {
            kind: LineageKind::SubagentOf,
            target: p,
            evidence: evidence.to_string(),
        });
    }
    h.agent_name = facts.agent_name.clone().or_else(|| meta_str("agentType"));
    if let Some(d) = meta_str("description").filter(|d| !d.trim().is_empty()) {
        h.title = Some(d.clone());
        h.title_source = Some(TitleSource::Metadata);
        h.titles.push(d);
    }
    h
}

/// A subagent's `.meta.json`, read bounded (64 KB).
fn read_meta(file: &SourceFile) -> Option<Value> {
    let path = file
        .related
        .iter()
        .find(|p| p.to_str().is_some_and(|s| s.ends_with(".meta.json")))?;
    let mut buf = Vec::new();
    std::fs::File::open(path)
        .ok()?
        .take(64 * 1024)
        .read_to_end(&mut buf)
        .ok()?;
    serde_json::from_slice(&buf).ok()
}
