//! Archived sessions in the query layer (SPEC S-I6, issue 20): a session whose source the agent
//! deleted stays readable from the index until `index --prune`.
//!
//! - Id resolution falls back to them ([`fallback`], called by
//!   [`crate::catalog::Catalog::resolve_ref`] when discovery has no match): full id, unique
//!   prefix and `provider:id`, among the archived sessions the context's exclusions keep. A live
//!   session always wins over an archived one with the same id.
//! - Every read that opens a session ([`crate::session_read::open`]) then replays it from the
//!   index without refreshing it (a refresh would take the missing file for an unchanged one),
//!   with the header saying `live: false, persisted: true`.
//! - `list --archived` / `--kind all` and `search` add them as [`Entry`]s / source files.
//!
//! With `--no-index` nothing is opened, so an archived session cannot be seen: a not-found
//! error then says that sessions whose source is gone are read from the index.

use scry_model::{ErrorCode, Header, Timestamp};
use scry_source::SourceFile;
use scry_sources::Exclusions;
use scry_store::{ArchivedRow, SessionIndex};

use crate::catalog::{Catalog, Entry};
use crate::error::{QueryError, QueryResult};
use crate::Context;

/// The source file an archived row was indexed from, as discovery described it (stat data as
/// when it was last indexed).
pub fn source_file(row: &ArchivedRow) -> SourceFile {
    let mtime = row
        .last_seen
        .map_or(0, |t| i64::try_from(t.as_nanosecond()).unwrap_or(0));
    let mut f = SourceFile::with_stat(
        row.provider,
        row.id.clone(),
        row.path.clone(),
        (row.source_bytes, mtime),
    );
    f.key = (!row.key.is_empty()).then(|| row.key.clone());
    f.kind = row.kind;
    f.parent.clone_from(&row.parent);
    f.cwd_hint.clone_from(&row.hint);
    f
}

/// Whether `ex` keeps an archived session (its path, provider and stored cwd).
fn kept(ex: &Exclusions, row: &ArchivedRow, file: &SourceFile) -> bool {
    if ex.is_empty() {
        return true;
    }
    let in_excluded_project = row
        .cwd
        .as_deref()
        .is_some_and(|c| ex.project_of(c).is_some());
    ex.check(file).is_none() && !in_excluded_project
}

/// Whether the session of an index row marked `live: false` is gone: its file is, or (a
/// session inside a multi-session store) the store no longer lists it. A single-session file
/// that exists but is not discovered (opened by path, outside every root) is not archived.
fn source_gone(row: &ArchivedRow) -> bool {
    !row.key.is_empty() || !std::path::Path::new(&row.path).exists()
}

/// The archived sessions of the index (after exclusions) with their source files; empty when
/// the index cannot answer.
pub fn rows(ex: &Exclusions, store: &dyn SessionIndex) -> Vec<(ArchivedRow, SourceFile)> {
    store
        .archived()
        .unwrap_or_default()
        .into_iter()
        .filter(source_gone)
        .map(|r| {
            let f = source_file(&r);
            (r, f)
        })
        .filter(|(r, f)| kept(ex, r, f))
        .collect()
}

/// Resolution of `reference` among archived sessions, after discovery found no match (`err`).
/// Sources deleted since the last refresh are marked archived first (a stat of each indexed
/// source, only on this path). Returns `err` when no archived session matches either.
pub fn fallback(
    ctx: &Context,
    catalog: &Catalog,
    reference: &str,
    err: QueryError,
) -> QueryResult<SourceFile> {
    if err.code != ErrorCode::SessionNotFound {
        return Err(err);
    }
    if ctx.no_index {
        let mut err = err;
        err.message.push_str(
            " (with --no-index; sessions whose source is gone are read from the index only)",
        );
        return Err(err);
    }
    let Some(store) = index(ctx, catalog) else {
        return Err(err);
    };
    let files: Vec<SourceFile> = rows(&ctx.exclusions, &*store)
        .into_iter()
        .map(|(_, f)| f)
        .collect();
    if files.is_empty() {
        return Err(err);
    }
    match scry_sources::resolve_id(reference, &files) {
        Ok(f) => Ok(f),
        Err(scry_sources::ResolveError::NotFound(_)) => Err(err),
        Err(e) => Err(e.into()),
    }
}

/// The index with sources deleted since the last refresh marked archived (a stat of each
/// indexed source not covered by a watcher's lease); `None` with `--no-index` or when the
/// index cannot be opened.
pub fn index(ctx: &Context, catalog: &Catalog) -> Option<crate::Index> {
    let mut store = crate::indexed::open(ctx).ok().flatten()?;
    crate::indexed::refresh(ctx, &mut *store, catalog.sources(), &[]);
    Some(store)
}

/// The headers of the archived sessions whose uri is not among `known` (for lineage: a
/// subagent stays under its archived parent), marked archived.
pub fn headers(ctx: &Context, catalog: &Catalog, known: &[Header]) -> Vec<Header> {
    let Some(store) = index(ctx, catalog) else {
        return Vec::new();
    };
    let known: std::collections::HashSet<&str> = known.iter().map(|h| h.uri.as_str()).collect();
    entries(&ctx.exclusions, &*store)
        .into_iter()
        .map(|(e, _)| e.header)
        .filter(|h| !known.contains(h.uri.as_str()))
        .collect()
}

/// Adds the archived sessions' sources to `catalog.files` (for resolving ids found in session
/// text, as `graph` does: an edge to an archived session stays an edge). Their headers must
/// come from the index, never from a scan of the (gone) file.
pub fn include(ctx: &Context, catalog: &mut Catalog) {
    let Some(store) = index(ctx, catalog) else {
        return;
    };
    let have: std::collections::HashSet<(std::path::PathBuf, Option<String>)> = catalog
        .files
        .iter()
        .map(|f| (f.path.clone(), f.key.clone()))
        .collect();
    for (_, f) in rows(&ctx.exclusions, &*store) {
        if !have.contains(&(f.path.clone(), f.key.clone())) {
            catalog.files.push(f);
        }
    }
}

/// The archived row of `file` when its source is gone and the index keeps it archived.
pub fn lookup(store: &dyn SessionIndex, file: &SourceFile) -> Option<ArchivedRow> {
    if file.key.is_none() && file.path.exists() {
        return None;
    }
    store
        .archived_source(
            &file.path.to_string_lossy(),
            file.key.as_deref().unwrap_or(""),
        )
        .ok()
        .flatten()
}

/// `header` as an archived session says it: its source gone, the index holding it.
pub fn mark(mut header: Header) -> Header {
    header.live = false;
    header.persisted = true;
    header
}

/// A header read back for output: a live one as a direct parse says it
/// ([`crate::indexed::normalize`]), an archived one as it is (`live: false, persisted: true`).
pub fn shown(header: Header) -> Header {
    if header.live {
        crate::indexed::normalize(header)
    } else {
        header
    }
}

/// When an archived session's source was last known to exist and when it was found gone.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct Mark {
    /// The source's mtime when it was last indexed.
    pub last_seen: Option<Timestamp>,
    /// When a refresh found it gone (else `last_seen`).
    pub deleted: Option<Timestamp>,
}

impl Mark {
    /// The mark of an archived row.
    pub fn of(row: &ArchivedRow) -> Mark {
        Mark {
            last_seen: row.last_seen,
            deleted: row.deleted(),
        }
    }

    /// Adds `last_seen` and `deleted` to a session's JSON object.
    pub fn add_to(&self, v: &mut serde_json::Value) {
        if let serde_json::Value::Object(map) = v {
            map.insert("last_seen".into(), serde_json::json!(self.last_seen));
            map.insert("deleted".into(), serde_json::json!(self.deleted));
        }
    }

    /// `deleted 2026-01-02` (or `deleted` when the date is unknown).
    pub fn text(&self) -> String {
        match self.deleted {
            Some(t) => format!("deleted {}", t.strftime("%Y-%m-%d")),
            None => "deleted".to_string(),
        }
    }
}

/// The archived sessions as `list` entries (whole stored headers, marked archived) with their
/// marks; empty when the index cannot answer.
pub fn entries(ex: &Exclusions, store: &dyn SessionIndex) -> Vec<(Entry, Mark)> {
    rows(ex, store)
        .into_iter()
        .filter_map(|(row, file)| {
            let header = store.header_by_sid(row.sid).ok()?;
            let entry = crate::catalog::keep(ex, &file, mark(header))?;
            Some((entry, Mark::of(&row)))
        })
        .collect()
}

/// The one-line refusal of a read that needs the source itself (`--raw`, `resume`).
pub fn gone(uri: &str, path: &std::path::Path, what: &str) -> QueryError {
    QueryError::new(
        ErrorCode::SessionNotFound,
        format!(
            "{uri} is archived: its source {} is gone, {what}",
            path.display()
        ),
    )
}
