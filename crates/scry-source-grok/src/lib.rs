//! scry provider for xAI Grok Build (`grok`) sessions.
//!
//! Checked against: the agent-sessions fixtures mirroring Grok Build's on-disk shapes
//! (jazzyalex/agent-sessions @ 651e854, `chat_format_version: 1`, `summary.json` with
//! `info{id,cwd}`, `generated_title`, `session_kind: subagent`; corpus `third-party/grok`) and
//! formats.md §4.1 (grok 0.2.x). No public `events.jsonl` / `rewind_points.jsonl` /
//! `updates.jsonl` sample was found, so those readers follow formats.md and the tests' own
//! fixtures, accepting common field spellings (see [`side`]).
//!
//! A session is a directory (`$GROK_HOME/sessions/<percent-encoded cwd>/<uuid>/`, see
//! [`discover`]). The events come from `chat_history.jsonl` (the model-facing item log — compact,
//! no timestamps; [`map`]); times come from the side files, joined by prompt index, tool call id,
//! or the message TEXT (never by position), and are marked `time_source: derived`; a message no
//! side file dates has no time. Tokens are known only where `events.jsonl` records a
//! `turn_completed.usage`; otherwise usage is `None` (unknown), never zero. A session without
//! `chat_history.jsonl` is read from `updates.jsonl` instead ([`updates`]). Subagents
//! (`<session>/subagents/<id>/`, `summary.session_kind: "subagent"`) are child sessions.

pub mod discover;
pub mod map;
pub mod side;
pub mod updates;

use std::path::{Path, PathBuf};

use scry_model::{Header, ProviderId};
use scry_source::{jsonl, Discovery, Emitter, Env, Root, Source, SourceError, SourceFile};

/// The Grok Build reader.
#[derive(Debug, Default, Clone, Copy)]
pub struct GrokSource;

fn session_dir(file: &SourceFile) -> PathBuf {
    file.path
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default()
}

impl Source for GrokSource {
    fn id(&self) -> ProviderId {
        ProviderId::Grok
    }

    fn roots(&self, env: &Env) -> Vec<Root> {
        vec![discover::root(env)]
    }

    fn discover(&self, env: &Env) -> Discovery {
        discover::discover(env)
    }

    fn detect(&self, path: &Path) -> Option<SourceFile> {
        let dir = if path.is_dir() {
            path.to_path_buf()
        } else {
            let name = path.file_name()?.to_str()?;
            if !matches!(
                name,
                "chat_history.jsonl" | "summary.json" | "updates.jsonl"
            ) {
                return None;
            }
            path.parent()?.to_path_buf()
        };
        if !discover::is_session_dir(&dir) {
            return None;
        }
        let cwd = dir
            .parent()
            .filter(|p| p.file_name().and_then(|n| n.to_str()) != Some("subagents"))
            .and_then(discover::group_cwd);
        Some(discover::source_file(&dir, cwd))
    }

    fn scan_header(&self, file: &SourceFile) -> Result<Header, SourceError> {
        // summary.json holds everything a list needs; chat_history.jsonl is not opened.
        let dir = session_dir(file);
        let summary = side::summary(&dir);
        let mut sources = vec![file.path.clone()];
        sources.extend(file.related.iter().cloned());
        let header = map::header(file, summary.as_ref(), sources);
        if header.title.is_some() {
            return Ok(header);
        }
        // No title in summary.json (or no summary.json): the full parse gives the first prompt.
        struct Discard;
        impl scry_source::EventSink for Discard {
            fn event(&mut self, _: scry_model::Event) {}
            fn warning(&mut self, _: scry_model::Warning) {}
        }
        let mut sink = Discard;
        let mut out = Emitter::new(&mut sink);
        let mut header = self.parse_into(file, &mut out)?;
        out.finish_header(&mut header);
        Ok(header)
    }

    fn parse_into(&self, file: &SourceFile, out: &mut Emitter<'_>) -> Result<Header, SourceError> {
        let dir = session_dir(file);
        let summary = side::summary(&dir);
        let mut sources = vec![file.path.clone()];
        sources.extend(file.related.iter().cloned());
        let header = map::header(file, summary.as_ref(), sources);
        let mut warnings = Vec::new();
        let checkpoints = dir.join("compaction_checkpoints");
        let n = std::fs::read_dir(&checkpoints)
            .map(|rd| rd.count())
            .unwrap_or(0);
        if n > 0 {
            // Compaction rewrites chat_history.jsonl; the earlier turns survive only in the
            // checkpoints (and updates.jsonl), which this reader does not replay.
            warnings.push(scry_model::Warning::at(
                scry_model::WarningKind::Other,
                format!(
                    "session was compacted: chat_history.jsonl holds only the compacted context; \
                     {n} pre-compaction checkpoint(s) in compaction_checkpoints/ are not read"
                ),
                &checkpoints,
                None,
            ));
        }
        let chat = dir.join("chat_history.jsonl");
        if chat.is_file() {
            let index = side::load(&dir, &mut warnings);
            let mut mapper = map::Mapper::new(&chat, index);
            jsonl::read_file(&chat, &mut warnings, |r| mapper.record(r, out))?;
            for w in warnings {
                out.warn(w);
            }
            mapper.finish(out);
        } else {
            let up = dir.join("updates.jsonl");
            if up.is_file() {
                updates::read(&up, &mut warnings, out);
            }
            for w in warnings {
                out.warn(w);
            }
            if !file.path.is_file() {
                return Err(SourceError::io(
                    &file.path,
                    std::io::Error::from(std::io::ErrorKind::NotFound),
                ));
            }
        }
        Ok(header)
    }
}
