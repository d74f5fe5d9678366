//! scry provider for Google Antigravity sessions (IDE brain directories and the `agy` CLI).
//!
//! Checked against: the agent-sessions fixtures of the `agy` CLI transcript
//! (jazzyalex/agent-sessions @ 651e854: `cli_small.jsonl`, `cli_schema_drift.jsonl`, a brain
//! `.md` artifact; corpus `third-party/antigravity`) and formats.md §3.4 (transcript lines
//! `{step_index, source, type, status, created_at, content, thinking, tool_calls,
//! truncated_fields}`, 2026-06). No sample of `conversations/<id>.db` or of
//! `.system_generated/steps/<n>/output.txt` was available: the database reader follows the
//! documented metadata blob (protobuf field 1.1 = `file://` folder URI) and the tests build their
//! own.
//!
//! Discovery ([`discover`]): `~/.gemini/antigravity/brain/<uuid>/` and
//! `~/.gemini/antigravity-cli/brain/<uuid>/`, each checked for the transcript
//! (`.system_generated/logs/transcript.jsonl`) and for artifacts (`*.md`, listed in
//! `header.artifacts`). Mapping: [`transcript`]. Workspace: [`workspace`]. No token usage is
//! recorded by Antigravity, so usage is always `None`.

pub mod discover;
pub mod transcript;
pub mod workspace;

use std::path::Path;

use scry_model::{Event, EventKind, Header, Locator, ProviderId, RawRef, Surface, TimeSource};
use scry_source::{Discovery, Emitter, Env, Root, Source, SourceError, SourceFile};
use serde_json::json;

/// The Antigravity reader.
#[derive(Debug, Default, Clone, Copy)]
pub struct AntigravitySource;

/// Largest artifact read as an event (artifact-only sessions).
const MAX_ARTIFACT: u64 = 16 * 1024 * 1024;

fn is_transcript(path: &Path) -> bool {
    path.extension().is_some_and(|x| x == "jsonl")
}

impl AntigravitySource {
    fn base_header(&self, file: &SourceFile, brain: &Path) -> Header {
        let mut h = Header::new(ProviderId::Antigravity, file.id.clone());
        h.sources = vec![file.path.clone()];
        h.sources.extend(file.related.iter().cloned());
        h.artifacts = discover::artifacts(brain)
            .iter()
            .map(|p| p.display().to_string())
            .collect();
        h
    }

    /// Emits an artifact-only session: one Meta `artifact` event per `*.md`, dated by mtime.
    fn artifacts_only(&self, file: &SourceFile, brain: &Path, out: &mut Emitter<'_>) -> Header {
        let mut header = self.base_header(file, brain);
        let mut paths = vec![file.path.clone()];
        paths.extend(
            file.related
                .iter()
                .filter(|p| p.extension().is_some_and(|x| x == "md"))
                .cloned(),
        );
        for (i, p) in paths.iter().enumerate() {
            let Ok(f) = std::fs::File::open(p) else {
                out.warn(scry_model::Warning::at(
                    scry_model::WarningKind::Unreadable,
                    "artifact could not be opened",
                    p,
                    None,
                ));
                continue;
            };
            let mut bytes = Vec::new();
            let _ =
                std::io::Read::read_to_end(&mut std::io::Read::take(f, MAX_ARTIFACT), &mut bytes);
            let text = String::from_utf8_lossy(&bytes).into_owned();
            if header.title.is_none() {
                // The first Markdown heading of the first artifact names the session.
                if let Some(h) = text.lines().find_map(|l| l.strip_prefix("# ")) {
                    header.title = Some(h.trim().to_string());
                    header.title_source = Some(scry_model::TitleSource::Metadata);
                }
            }
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("artifact");
            let mut ev = Event::new(
                EventKind::Meta,
                text,
                Locator::native(&format!("artifact:{name}"), None),
            );
            ev.subtype = Some("artifact".into());
            ev.surface = Surface::LogOnly;
            ev.raw = RawRef {
                file: u32::try_from(i).unwrap_or(0),
                offset: 0,
                len: bytes.len() as u64,
                line: 1,
            };
            let (_, mtime) = scry_source::file_stat(p);
            if let Ok(t) = scry_model::Timestamp::from_nanosecond(i128::from(mtime)) {
                if mtime > 0 {
                    ev.time = Some(t);
                    ev.time_source = TimeSource::Derived;
                }
            }
            ev.data = Some(json!({ "path": p.display().to_string() }));
            out.emit(ev);
        }
        header
    }
}

impl Source for AntigravitySource {
    fn id(&self) -> ProviderId {
        ProviderId::Antigravity
    }

    fn roots(&self, env: &Env) -> Vec<Root> {
        discover::roots(env)
    }

    fn discover(&self, env: &Env) -> Discovery {
        discover::discover(env)
    }

    fn detect(&self, path: &Path) -> Option<SourceFile> {
        if path.is_dir() {
            return discover::source_file(path);
        }
        let name = path.file_name()?.to_str()?;
        if name.starts_with("transcript") && name.ends_with(".jsonl") {
            let brain = path.parent()?.parent()?.parent()?;
            if path.parent()?.ends_with(".system_generated/logs") {
                return discover::source_file(brain);
            }
        }
        None
    }

    fn parse_into(&self, file: &SourceFile, out: &mut Emitter<'_>) -> Result<Header, SourceError> {
        let brain = discover::brain_dir(file);
        if !is_transcript(&file.path) {
            return Ok(self.artifacts_only(file, &brain, out));
        }
        let mut header = self.base_header(file, &brain);
        let index = transcript::index(&file.path)?;
        let db_ws =
            discover::conversation_db(&brain, &file.id).and_then(|db| workspace::from_db(&db));
        let ws = db_ws.or_else(|| index.paths.derive());
        if let Some(ws) = &ws {
            header.cwd = Some(ws.cwd.clone());
            let mut ev = Event::new(
                EventKind::Meta,
                ws.cwd.clone(),
                Locator::native(&format!("workspace:{}", file.id), None),
            );
            ev.subtype = Some("workspace".into());
            ev.surface = Surface::LogOnly;
            ev.data = Some(json!({ "source": ws.source, "evidence": ws.evidence,
                "derived": ws.source.starts_with("derived:") }));
            out.emit(ev);
        }
        let mut mapper = transcript::Mapper::new(&file.path, brain);
        mapper.run(&index, out)?;
        for m in &mapper.models {
            header.add_model(m);
        }
        Ok(header)
    }
}
