//! scry provider for Cursor CLI (`cursor-agent`) sessions.
//!
//! Checked against the third-party Cursor CLI fixtures (agent-transcripts `.jsonl`, a
//! cursor-agent transcript with `<user_query>` wrappers, and a `store.db` holding meta only);
//! no real Cursor sample exists in the corpus, and the IDE's `state.vscdb` is not read yet.
//!
//! Layout (`~/.cursor`, and `$CURSOR_CONFIG_DIR` when set):
//! - `projects/<slug>/agent-transcripts/<uuid>.jsonl` and `…/<uuid>/<uuid>.jsonl`: plain
//!   transcripts, no timestamps. `<slug>` is the workspace path with every run of
//!   non-alphanumerics turned into `-` (lossy: never decoded; a candidate path from a tool's
//!   arguments is accepted as cwd only when it re-encodes to the same slug). Other `.jsonl`
//!   files inside `<uuid>/` are read as subagents of `<uuid>` (layout not yet seen in a sample).
//! - `chats/<hash>/<agentId>/store.db`: the chat store ([`store`]). When a transcript has the
//!   same id, the store only completes its header (title, creation time, model); otherwise the
//!   store is a session of its own.
//!
//! Session time: the transcript's modification time is the session's `updated` (no record has a
//! time); `created` comes from the store's `createdAt` when there is one.

mod store;
mod transcript;

use std::path::{Path, PathBuf};

use scry_model::{
    Header, Lineage, LineageKind, ProviderId, RawRef, SessionKind, Timestamp, TitleSource, Warning,
    WarningKind,
};
use scry_source::{jsonl, Discovery, Emitter, Env, Root, Source, SourceError, SourceFile};

use crate::transcript::{Mapper, Seed};

/// The Cursor CLI reader.
#[derive(Debug, Default, Clone, Copy)]
pub struct CursorSource;

fn list(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|it| it.filter_map(Result::ok).map(|e| e.path()).collect())
        .unwrap_or_default();
    v.sort();
    v
}

fn stem(p: &Path) -> Option<String> {
    p.file_stem()?.to_str().map(String::from)
}

/// Cursor's project slug of a path: runs of non-alphanumerics → `-`, trimmed.
pub fn slug_for_path(path: &str) -> String {
    let mut out = String::new();
    let mut dash = false;
    for c in path.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c);
            dash = false;
        } else if !dash {
            out.push('-');
            dash = true;
        }
    }
    out.trim_matches('-').to_string()
}

impl Source for CursorSource {
    fn id(&self) -> ProviderId {
        ProviderId::Cursor
    }

    fn roots(&self, env: &Env) -> Vec<Root> {
        // `CURSOR_CONFIG_DIR` is documented as moving the CLI's config directory; whether chats
        // and transcripts follow it is not confirmed, so both places are searched.
        let home = env.home().join(".cursor");
        let mut roots = Vec::new();
        if let Some(dir) = env.var("CURSOR_CONFIG_DIR") {
            let p = PathBuf::from(dir);
            if p != home {
                roots.push(Root::new(p, Some("CURSOR_CONFIG_DIR")));
            }
        }
        roots.push(Root::new(home, None));
        roots
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
            for project in list(&root.path.join("projects")) {
                let dir = project.join("agent-transcripts");
                for entry in list(&dir) {
                    if entry.is_dir() {
                        let Some(parent) = stem(&entry) else { continue };
                        for f in list(&entry) {
                            if f.extension().is_none_or(|e| e != "jsonl") {
                                continue;
                            }
                            let Some(id) = stem(&f) else { continue };
                            let mut sf = SourceFile::new(ProviderId::Cursor, id.clone(), &f);
                            if id != parent {
                                sf.kind = SessionKind::Subagent;
                                sf.parent = Some(parent.clone());
                            }
                            out.files.push(sf);
                        }
                    } else if entry.extension().is_some_and(|e| e == "jsonl") {
                        if let Some(id) = stem(&entry) {
                            out.files
                                .push(SourceFile::new(ProviderId::Cursor, id, &entry));
                        }
                    }
                }
            }
            for hash in list(&root.path.join("chats")) {
                for agent in list(&hash) {
                    let db = agent.join("store.db");
                    if !db.is_file() {
                        continue;
                    }
                    let Some(id) = stem(&agent) else { continue };
                    match out.files.iter_mut().find(|f| f.id == id) {
                        Some(f) => f.related.push(db),
                        None => out.files.push(SourceFile::new(ProviderId::Cursor, id, db)),
                    }
                }
            }
        }
        out
    }

    fn detect(&self, path: &Path) -> Option<SourceFile> {
        let name = path.file_name()?.to_str()?;
        if name.ends_with(".db") {
            // A chat store: it must have cursor-agent's meta with an `agentId`.
            let conn = store::open(path).ok()?;
            let mut w = Vec::new();
            let id = store::read_meta(&conn, path, &mut w).agent_id?;
            return Some(SourceFile::new(ProviderId::Cursor, id, path));
        }
        if !name.ends_with(".jsonl") {
            return None;
        }
        let head = jsonl::head(path, 8192)?;
        let text = String::from_utf8_lossy(&head);
        let first: serde_json::Value = serde_json::from_str(text.lines().next()?).ok()?;
        let role = first.get("role").and_then(|r| r.as_str())?;
        let content = first.get("message").and_then(|m| m.get("content"))?;
        // Claude lines also have `message.content`, but always with `type` / `uuid`.
        if first.get("type").is_some() || first.get("uuid").is_some() || role.is_empty() {
            return None;
        }
        if !content.is_array() {
            return None;
        }
        Some(SourceFile::new(ProviderId::Cursor, stem(path)?, path))
    }

    fn parse_into(&self, file: &SourceFile, out: &mut Emitter<'_>) -> Result<Header, SourceError> {
        let mut header = Header::new(ProviderId::Cursor, file.id.clone());
        let mut warnings: Vec<Warning> = Vec::new();
        let is_store = file.path.extension().is_some_and(|e| e == "db");
        let stores: Vec<PathBuf> = if is_store {
            vec![file.path.clone()]
        } else {
            file.related.clone()
        };
        header.sources.push(file.path.clone());

        if !is_store {
            let mut mapper = Mapper::new(file.path.clone());
            jsonl::read_file(&file.path, &mut warnings, |r| {
                let raw = RawRef {
                    file: 0,
                    offset: r.offset,
                    len: r.raw.len() as u64,
                    line: r.line,
                };
                mapper.record(&r.value, Seed::Line(r.line, r.raw), raw, out);
            })?;
            warnings.extend(mapper.finish(out));
            header.cwd = mapper.workspace.clone().or_else(|| {
                let slug = file
                    .path
                    .ancestors()
                    .find(|a| a.file_name().is_some_and(|n| n == "agent-transcripts"))
                    .and_then(Path::parent)
                    .and_then(|p| p.file_name())
                    .and_then(|n| n.to_str())?;
                mapper.arg_paths.iter().find_map(|p| {
                    Path::new(p)
                        .ancestors()
                        .filter_map(Path::to_str)
                        .find(|a| a.len() > 1 && slug_for_path(a) == slug)
                        .map(String::from)
                })
            });
            if file.kind == SessionKind::Subagent {
                header.kind = SessionKind::Subagent;
                if let Some(p) = &file.parent {
                    header.parent = Some(p.clone());
                    header.lineage.push(Lineage {
                        kind: LineageKind::SubagentOf,
                        target: p.clone(),
                        evidence: "path: agent-transcripts/<parent>/<id>.jsonl".into(),
                    });
                }
            }
            if file.mtime_ns > 0 {
                if let Ok(t) = Timestamp::from_nanosecond(i128::from(file.mtime_ns)) {
                    header.updated = Some(t);
                }
            }
        }

        for db in &stores {
            let conn = match store::open(db) {
                Ok(c) => c,
                Err(e) if is_store => return Err(e),
                Err(e) => {
                    warnings.push(Warning::at(
                        WarningKind::Unreadable,
                        e.to_string(),
                        db,
                        None,
                    ));
                    continue;
                }
            };
            let meta = store::read_meta(&conn, db, &mut warnings);
            if is_store {
                if let Some(id) = &meta.agent_id {
                    header = Header {
                        sources: header.sources,
                        ..Header::new(ProviderId::Cursor, id.clone())
                    };
                }
                warnings.extend(store::emit_blobs(&conn, db, 0, out));
                let (_, mtime) = scry_source::file_stat(db);
                if let Ok(t) = Timestamp::from_nanosecond(i128::from(mtime)) {
                    if mtime > 0 {
                        header.updated = Some(t);
                    }
                }
            } else {
                header.sources.push(db.clone());
            }
            if let Some(name) = meta.name {
                header.title = Some(name.clone());
                header.title_source = Some(TitleSource::Metadata);
                header.titles = vec![name];
            }
            if let Some(c) = meta.created {
                header.created = Some(c);
            }
            if let Some(m) = meta.model {
                header.add_model(&m);
            }
        }
        for w in warnings {
            out.warn(w);
        }
        Ok(header)
    }
}
