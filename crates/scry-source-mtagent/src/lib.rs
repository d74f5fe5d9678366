//! scry provider for MT-Agent (SPEC §1 row `mtagent`, seed 003): JSONL transcripts under
//! `~/.mtagent/history/<project-hash>/` joined with the project's LangGraph checkpoint
//! database `checkpoints.sqlite`.
//!
//! No public MT-Agent exists; the format was written from seed 003 and checked against the
//! fixtures in `fixtures/` (transcripts written to that description, checkpoints produced by
//! the real langgraph 1.2.24 / langgraph-checkpoint-sqlite 3.1.2 — `fixtures/generate.py`).
//!
//! - [`discover`](crate::discover): transcripts, plus checkpoint threads no transcript names.
//! - [`transcript`](crate::transcript): the JSONL records → events, compression surfaces.
//! - [`checkpoint`](crate::checkpoint): the join — pending approvals, interrupted tool calls,
//!   consistency warnings.

pub mod checkpoint;
pub mod discover;
pub mod transcript;

use std::path::{Path, PathBuf};

use scry_langgraph::{reconstruct, Db};
use scry_model::{Header, ProviderId, Surface, Timestamp, Warning, WarningKind};
use scry_source::{Discovery, Emitter, Env, Root, Source, SourceError, SourceFile};
use scry_source_deepagents::map::{Mapper, Placed};

use crate::checkpoint::TranscriptFacts;
use crate::discover::CHECKPOINTS;

/// The MT-Agent reader.
#[derive(Debug, Default, Clone, Copy)]
pub struct MtagentSource;

fn is_checkpoint_db(path: &Path) -> bool {
    path.file_name().is_some_and(|n| n == CHECKPOINTS)
}

fn open_err(path: &Path, e: impl std::fmt::Display) -> SourceError {
    SourceError::format(path, format!("cannot read checkpoint database: {e}"))
}

/// Parses a transcript and joins its checkpoint.
fn parse_transcript(file: &SourceFile, out: &mut Emitter<'_>) -> Result<Header, SourceError> {
    let path = file.path.as_path();
    let mut header = Header::new(ProviderId::Mtagent, file.id.clone());
    header.sources.push(path.to_path_buf());
    let summary = transcript::parse(path, out)?;
    header.cwd = summary.starts.iter().find_map(|s| s.cwd.clone());
    header.agent_version = summary.starts.iter().rev().find_map(|s| s.version.clone());
    let thread = summary.starts.iter().rev().find_map(|s| s.thread.clone());
    let facts = TranscriptFacts {
        messages: summary.messages,
        call_ids: summary.call_ids.clone(),
    };
    let Some(thread) = thread else {
        out.warn(Warning::at(
            WarningKind::Inconsistent,
            "no threadId in any session_start: the checkpoint cannot be joined \
             (MT-Agent refuses an execution resume of this session)",
            path,
            None,
        ));
        return Ok(header);
    };
    let db_path: PathBuf = path
        .parent()
        .map(|d| d.join(CHECKPOINTS))
        .unwrap_or_else(|| PathBuf::from(CHECKPOINTS));
    if !db_path.is_file() {
        out.warn(Warning::at(
            WarningKind::Inconsistent,
            format!(
                "thread {thread}: no {CHECKPOINTS} beside the transcript; execution state unknown"
            ),
            path,
            None,
        ));
        return Ok(header);
    }
    let db = match Db::open(&db_path) {
        Ok(db) => db,
        Err(e) => {
            out.warn(Warning::at(
                WarningKind::Unreadable,
                e.to_string(),
                &db_path,
                None,
            ));
            return Ok(header);
        }
    };
    header.sources.push(db_path.clone());
    match checkpoint::load(&db, &thread) {
        Ok(Some(state)) => state.emit(&thread, &db_path, Some(&facts), out),
        Ok(None) => out.warn(Warning::at(
            WarningKind::Inconsistent,
            format!(
                "no persisted checkpoint for thread {thread}; MT-Agent cannot resume its execution"
            ),
            &db_path,
            None,
        )),
        Err(e) => out.warn(Warning::at(WarningKind::Unreadable, e, &db_path, None)),
    }
    Ok(header)
}

/// The cwd a sibling transcript records (every transcript of a project directory shares it).
fn sibling_cwd(dir: &Path) -> Option<String> {
    let mut names: Vec<PathBuf> = std::fs::read_dir(dir)
        .ok()?
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .and_then(discover::session_id_from_name)
                .is_some()
        })
        .collect();
    names.sort();
    names
        .iter()
        .find_map(|p| discover::head(p).and_then(|h| h.2))
}

/// Parses a checkpoint thread that has no transcript.
fn parse_orphan(file: &SourceFile, out: &mut Emitter<'_>) -> Result<Header, SourceError> {
    let path = file.path.as_path();
    let thread = file.key.clone().unwrap_or_else(|| file.id.clone());
    let db = Db::open(path).map_err(|e| open_err(path, e))?;
    let state = checkpoint::load(&db, &thread)
        .map_err(|e| open_err(path, e))?
        .ok_or_else(|| SourceError::NotFound {
            path: path.to_path_buf(),
            key: thread.clone(),
        })?;
    let mut header = Header::new(ProviderId::Mtagent, file.id.clone());
    header.sources.push(path.to_path_buf());
    header.cwd = file
        .cwd_hint
        .clone()
        .or_else(|| path.parent().and_then(sibling_cwd));
    let times: Vec<Option<Timestamp>> =
        reconstruct::message_times(&db, &thread, "", &state.messages)
            .map_err(|e| open_err(path, e))?
            .into_iter()
            .map(|t| t.as_deref().and_then(scry_source::time::parse_str))
            .collect();
    let mut mapper = Mapper::new(path.to_path_buf(), None);
    for (i, msg) in state.messages.iter().enumerate() {
        mapper.message(
            &Placed {
                index: i,
                msg,
                time: times.get(i).copied().flatten(),
                surface: Surface::Current,
            },
            out,
        );
    }
    mapper.finish(out);
    state.emit(&thread, path, None, out);
    Ok(header)
}

impl Source for MtagentSource {
    fn id(&self) -> ProviderId {
        ProviderId::Mtagent
    }

    fn roots(&self, env: &Env) -> Vec<Root> {
        vec![Root::new(discover::history_dir(env), None)]
    }

    fn discover(&self, env: &Env) -> Discovery {
        discover::discover(env)
    }

    fn detect(&self, path: &Path) -> Option<SourceFile> {
        discover::detect(path)
    }

    fn parse_into(&self, file: &SourceFile, out: &mut Emitter<'_>) -> Result<Header, SourceError> {
        if is_checkpoint_db(&file.path) {
            parse_orphan(file, out)
        } else {
            parse_transcript(file, out)
        }
    }
}
