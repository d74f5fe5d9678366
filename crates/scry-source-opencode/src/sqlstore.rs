//! The OpenCode database layout (`session` / `message` / `part` tables holding JSON, plus the
//! `event` log) as a reusable reader: OpenCode's own provider and forks that kept the layout
//! (Kilo CLI) list, scan and parse their databases through these functions, each naming itself
//! with a [`Flavor`]. Mapping of parts to events is OpenCode's (tabled in the crate's `map`).
//!
//! Every function opens the database with [`scry_source::sqlite::open_snapshot`], so rows still
//! in a live `-wal` are read without writing anything beside the agent's files.

use std::path::Path;

use scry_model::{Header, SessionKind};
use scry_source::{Emitter, SourceError, SourceFile};

use crate::db;
use crate::map::Mapper;
use crate::Flavor;

/// One [`SourceFile`] per session of the database at `path` (`key` = the session id; kind,
/// parent and cwd hint from the `session` row).
pub fn list(path: &Path, flavor: Flavor) -> Result<Vec<SourceFile>, SourceError> {
    let rows = db::list_sessions(path, flavor)?;
    let stat = scry_source::file_stat(path);
    Ok(rows
        .into_iter()
        .map(|row| {
            let mut f = SourceFile::with_stat(flavor.provider, row.id.clone(), path, stat);
            f.key = Some(row.id);
            if let Some(p) = row.parent {
                f.kind = SessionKind::Subagent;
                f.parent = Some(p);
            }
            f.cwd_hint = row.directory;
            f
        })
        .collect())
}

/// The most recently updated top-level session of the database at `path`, for a path given
/// directly; `None` when it is not a database of this layout.
pub fn detect(path: &Path, flavor: Flavor) -> Option<SourceFile> {
    if !is_sqlite(path) {
        return None;
    }
    let row = db::latest_root_session(path, flavor)?;
    let mut f = SourceFile::new(flavor.provider, row.id.clone(), path);
    f.key = Some(row.id);
    f.cwd_hint = row.directory;
    Some(f)
}

/// The header from the `session` row alone, when the session has a real (non-placeholder)
/// title; `None` when the title must come from the first prompt (parse the session then).
pub fn titled_header(file: &SourceFile, flavor: Flavor) -> Result<Option<Header>, SourceError> {
    let key = file.key.as_deref().unwrap_or(&file.id);
    let conn = db::open(&file.path, flavor)?;
    let mut header = db::header(&conn, &file.path, flavor, key)?;
    header.sources.extend(file.related.iter().cloned());
    Ok(header.title.is_some().then_some(header))
}

/// Parses one session (`file.key`, else `file.id`) of the database `file.path`.
pub fn parse(
    file: &SourceFile,
    flavor: Flavor,
    out: &mut Emitter<'_>,
) -> Result<Header, SourceError> {
    let key = file.key.as_deref().unwrap_or(&file.id);
    let path = file.path.as_path();
    let conn = db::open(path, flavor)?;
    let mut header = db::header(&conn, path, flavor, key)?;
    header.sources.extend(file.related.iter().cloned());
    db::warn_unread(&conn, path, key, out);
    let mut mapper = Mapper::new(db::revert(&conn, key));
    db::read_events(&conn, path, flavor, key, &mut mapper, out)?;
    if header.agent_name.is_none() {
        header.agent_name = mapper.agent.clone();
    }
    mapper.finish(out);
    Ok(header)
}

/// True when `path` starts with the SQLite header.
pub fn is_sqlite(path: &Path) -> bool {
    crate::discover::is_sqlite(path)
}
