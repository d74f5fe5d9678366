//! scry provider for Google Gemini CLI sessions.
//!
//! Checked against files written by Gemini CLI 0.61.0 (append-only `.jsonl` with `$set`
//! patches, a subagent file under `chats/<parentId>/`), 0.22.4 (legacy whole-document `.json`
//! in a sha256-named project folder) and the third-party fixtures modelled on 0.40-era
//! `.jsonl` and legacy `.json` (incl. `type: "model"` messages with `parts`); protocol details
//! from chatRecordingService.ts / chatRecordingTypes.ts.
//!
//! - [`discover`]: roots, file layout, grouping of one session's files, project folder → cwd.
//! - [`log`]: rebuilding the message list from the `.jsonl` protocol or the legacy document.
//! - [`map`]: messages → events (prompts, thinking, tool calls with their results, usage).
//!
//! One session id may span several files: the `.json`/`.jsonl` pair of one name (the `.jsonl`
//! wins), files of a resume in a later minute (merged by id, re-written ids counted once), and a
//! subagent file (its own session, kind subagent, linked to the parent).

mod discover;
mod log;
mod map;
mod sha256;

use std::path::{Path, PathBuf};

use scry_model::{
    Event, EventKind, Header, Lineage, LineageKind, ProviderId, RawRef, SessionKind, TitleSource,
    Warning, WarningKind,
};
use scry_source::{jsonl, time, Discovery, Emitter, Env, Root, Source, SourceError, SourceFile};
use serde_json::Value;

use crate::log::Log;
use crate::map::Context;

/// The Gemini CLI reader.
#[derive(Debug, Default, Clone, Copy)]
pub struct GeminiSource;

impl Source for GeminiSource {
    fn id(&self) -> ProviderId {
        ProviderId::Gemini
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
        let mut paths: Vec<PathBuf> = vec![file.path.clone()];
        paths.extend(file.related.iter().cloned());

        let mut log = Log::default();
        let mut warnings: Vec<Warning> = Vec::new();
        for (i, p) in paths.iter().enumerate() {
            let idx = i as u32;
            let res = if p.extension().is_some_and(|e| e == "json") {
                log.read_legacy(p, idx, &mut warnings)
            } else {
                jsonl::read_file(p, &mut warnings, |r| {
                    let raw = RawRef {
                        file: idx,
                        offset: r.offset,
                        len: r.raw.len() as u64,
                        line: r.line,
                    };
                    log.apply(r.value, raw);
                })
                .map(|_| ())
            };
            match res {
                Ok(()) => {}
                Err(e) if i == 0 => return Err(e),
                Err(e) => warnings.push(Warning::at(
                    WarningKind::Unreadable,
                    e.to_string(),
                    p.clone(),
                    None,
                )),
            }
        }
        for w in warnings {
            out.warn(w);
        }

        let meta_kind = log.meta.get("kind").and_then(Value::as_str).unwrap_or("");
        let session_id = log
            .meta
            .get("sessionId")
            .and_then(Value::as_str)
            .map(String::from);
        let is_sub = file.kind == SessionKind::Subagent || meta_kind == "subagent";
        let id = if file.kind == SessionKind::Subagent {
            file.id.clone()
        } else if is_sub {
            file.path
                .file_stem()
                .and_then(|s| s.to_str())
                .map_or_else(|| file.id.clone(), String::from)
        } else {
            session_id.clone().unwrap_or_else(|| file.id.clone())
        };

        let mut cx = Context {
            subagent: is_sub,
            ..Context::default()
        };
        cx.prepare(log.messages());
        let mut arg_paths: Vec<String> = Vec::new();
        for msg in log.messages() {
            for e in map::map_message(msg, &mut cx) {
                if e.kind == EventKind::ToolCall {
                    collect_paths(&e, &mut arg_paths);
                }
                out.emit(e);
            }
        }
        report(&log, &cx, &file.path, out);

        let mut header = Header::new(ProviderId::Gemini, id.clone());
        header.sources = paths;
        header.kind = if is_sub {
            SessionKind::Subagent
        } else {
            SessionKind::Main
        };
        if is_sub {
            let parent = file
                .parent
                .clone()
                .or_else(|| session_id.clone().filter(|s| *s != id));
            if let Some(p) = parent {
                let evidence = if file.parent.is_some() && file.parent != session_id {
                    "path: chats/<parentSessionId>/<id>.jsonl"
                } else {
                    "metadata: kind=subagent, sessionId of the parent"
                };
                header.lineage.push(Lineage {
                    kind: LineageKind::SubagentOf,
                    target: p.clone(),
                    evidence: evidence.to_string(),
                });
                header.parent = Some(p);
            }
        }
        for key in ["startTime", "lastUpdated"] {
            if let Some(t) = log.meta.get(key).and_then(time::from_value) {
                header.touch(t);
            }
        }
        if !is_sub {
            // A subagent's `summary` holds its task result (0.61.0), not a title.
            if let Some(s) = log.summaries.last() {
                header.title = Some(s.clone());
                header.title_source = Some(TitleSource::Summary);
            }
            header.titles = log.summaries.clone();
        }
        header.cwd = file
            .cwd_hint
            .clone()
            .or_else(|| cwd_from_layout(&file.path))
            .or_else(|| cwd_from_records(&log, &arg_paths));
        Ok(header)
    }
}

/// Warnings for what the log and the mapping counted.
fn report(log: &Log, cx: &Context, path: &Path, out: &mut Emitter<'_>) {
    for (label, (count, line)) in &log.unknown {
        out.warn(Warning::at(
            WarningKind::UnknownRecord,
            format!("unknown record {label} seen {count} time(s); skipped"),
            path,
            *line,
        ));
    }
    for (label, (count, line)) in &cx.unknown_types {
        out.warn(Warning::at(
            WarningKind::UnknownRecord,
            format!("unknown message type '{label}' seen {count} time(s); kept as meta events"),
            path,
            Some(*line),
        ));
    }
    for (id, line) in &cx.unpaired {
        out.warn(Warning::at(
            WarningKind::UnpairedResult,
            format!("tool result for call id '{id}' matches no tool call"),
            path,
            Some(*line),
        ));
    }
}

/// Absolute paths in a tool call's arguments (file tools), as cwd candidates.
fn collect_paths(e: &Event, out: &mut Vec<String>) {
    let Some(args) = e.args.as_ref() else {
        return;
    };
    for key in [
        "file_path",
        "absolute_path",
        "dir_path",
        "path",
        "directory",
    ] {
        if let Some(p) = args.get(key).and_then(Value::as_str) {
            if p.starts_with('/') && out.len() < 64 {
                out.push(p.to_string());
            }
        }
    }
}

/// The project path from `.project_root` or `projects.json`, for a file given by path.
fn cwd_from_layout(path: &Path) -> Option<String> {
    let chats = path
        .ancestors()
        .find(|a| a.file_name().and_then(|n| n.to_str()) == Some("chats"))?;
    let project_dir = chats.parent()?;
    let home = project_dir.parent()?.parent()?;
    discover::project_root(project_dir, &discover::read_projects_json(home))
}

/// The project path from the records: `directories[0]`, else an ancestor of a file tool's
/// absolute path whose sha256 equals the session's `projectHash` (older releases name the
/// project folder by that hash, so a match proves the root).
fn cwd_from_records(log: &Log, arg_paths: &[String]) -> Option<String> {
    if let Some(d) = log
        .meta
        .get("directories")
        .and_then(Value::as_array)
        .and_then(|a| a.first())
        .and_then(Value::as_str)
    {
        return Some(d.to_string());
    }
    let hash = log.meta.get("projectHash").and_then(Value::as_str)?;
    for p in arg_paths {
        for anc in Path::new(p).ancestors().skip(1) {
            let Some(s) = anc.to_str() else { continue };
            if s.is_empty() {
                continue;
            }
            if sha256::sha256_hex(s.as_bytes()) == hash {
                return Some(s.to_string());
            }
        }
    }
    None
}
