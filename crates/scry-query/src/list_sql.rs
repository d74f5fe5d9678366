//! `list` answered by SQL over the index's columns (issue 16): the page, its folded children,
//! the total and the ids its short ids depend on, read through indexes
//! ([`scry_store::ListSpec`]) instead of every stored row.
//!
//! The index answers only when it provably holds the listed set: after the refresh, every
//! discovered file has its row, so the rows under the discovery roots (of the discovered
//! providers, passing the scope's `cwd_hint` filter) must be exactly as many as the files
//! discovered, none of them may have failed its last parse (those are parsed directly for their
//! warnings), and no exclusion may need a file's path or header (path globs, projects).
//! Otherwise [`page`] says so and `list` reads every row as before: the output is
//! the same either way.
//!
//! Under a watcher's lease ([`leased_page`]) the index is the discovered set by the lease's
//! guarantee: no discovery, no membership count; the page's sources come from their `files`
//! rows. Path and project exclusions and failed sources still take the full read (over the
//! catalog the index holds).

use std::collections::HashMap;

use scry_model::{SessionKind, Timestamp};
use scry_source::SourceFile;
use scry_store::{ListMode, ListSpec, SessionIndex};

use scry_sources::Exclusions;

use crate::catalog::{indexed_file, keep, Catalog};
use crate::filter::{KindFilter, Scope};
use crate::session_row::SessionRow;

/// A page answered by SQL.
pub(crate) struct Page {
    /// The page's rows.
    pub rows: Vec<SessionRow>,
    /// The page's ids and their nearest listed neighbours (enough for unique short ids).
    pub ids: Vec<String>,
    /// Rows over every page.
    pub total: usize,
    /// Sessions hidden by folding.
    pub hidden: usize,
}

/// What a `list` asks, as far as the SQL page needs it.
pub(crate) struct Ask<'a> {
    /// The context's exclusions (SQL answers only when none needs a path or a project).
    pub exclusions: &'a Exclusions,
    pub scope: &'a Scope,
    pub since: Option<Timestamp>,
    pub kind: Option<KindFilter>,
    pub offset: usize,
    pub limit: usize,
    /// Prices of the rows' cost (from the usage ledger).
    pub prices: &'a crate::usage::PriceTable,
}

/// The page `ask` wants from `store` (refreshed with `candidates`, the discovered files in
/// scope), or `None` when the index cannot answer for exactly the discovered set.
pub(crate) fn page(
    store: &dyn SessionIndex,
    catalog: &Catalog,
    candidates: &[&SourceFile],
    ask: &Ask<'_>,
) -> Option<Page> {
    let spec = spec(catalog, candidates, ask)?;
    let began = store.begin_read().unwrap_or(false);
    let out = store
        .occupied(&spec)
        .ok()
        .and_then(|spec| answer_discovered(store, &spec, candidates, ask));
    if began {
        // A read transaction has nothing to keep.
        store.end_read();
    }
    store.save_list_counts();
    out
}

/// The page `ask` wants from `store` under a watcher's lease: the set is `spec` (the watched
/// roots, [`crate::lease::spec`]) as the index holds it. `None` when path or project
/// exclusions are set, a source failed its last parse, or the index cannot answer.
pub(crate) fn leased_page(
    store: &dyn SessionIndex,
    spec: &ListSpec,
    ask: &Ask<'_>,
) -> Option<Page> {
    let ex = ask.exclusions.summary();
    if !ex.paths.is_empty() || !ex.projects.is_empty() {
        return None;
    }
    let began = store.begin_read().unwrap_or(false);
    let out = (|| {
        let spec = store.occupied(spec).ok()?;
        if store.list_failed(&spec).ok()? {
            return None;
        }
        answer(store, &spec, ask, |page| {
            page.iter()
                .map(|row| {
                    let s = store.indexed_source(&row.path, &row.key).ok()??;
                    Some(indexed_file(s))
                })
                .collect()
        })
    })();
    if began {
        store.end_read();
    }
    store.save_list_counts();
    out
}

/// The spec of the discovered set, when SQL can express it.
fn spec(catalog: &Catalog, candidates: &[&SourceFile], ask: &Ask<'_>) -> Option<ListSpec> {
    let ex = ask.exclusions.summary();
    if !ex.paths.is_empty() || !ex.projects.is_empty() {
        return None;
    }
    let mut roots = Vec::with_capacity(catalog.roots.len());
    for r in &catalog.roots {
        roots.push(r.to_str()?.trim_end_matches('/').to_string());
    }
    // Every discovered file lies in a root (component-wise, as the SQL range compares text).
    // Discovery joins names onto its roots, so a file's path nearly always starts with its
    // root's bytes followed by `/`: that is checked first (and the root that matched the
    // previous file, as files come root by root), the components only when it fails.
    let mut last = 0;
    let under = |f: &&SourceFile| {
        let path = f.path.as_os_str().as_encoded_bytes();
        let bytes_under = |r: &std::path::PathBuf| {
            let root = r.as_os_str().as_encoded_bytes();
            path.len() > root.len()
                && path.starts_with(root)
                && path[root.len()] == b'/'
                && !root.ends_with(b"/")
        };
        if catalog.roots.get(last).is_some_and(bytes_under) {
            return true;
        }
        if let Some(i) = catalog.roots.iter().position(bytes_under) {
            last = i;
            return true;
        }
        catalog.roots.iter().any(|r| f.path.starts_with(r))
    };
    if !candidates.iter().all(under) {
        return None;
    }
    Some(ListSpec {
        roots,
        providers: catalog.providers.clone(),
        scope: match ask.scope {
            Scope::Global => None,
            Scope::Under(dirs) => Some(dirs.clone()),
        },
        since: ask.since,
    })
}

fn mode(kind: Option<KindFilter>) -> ListMode {
    match kind {
        None => ListMode::Fold,
        Some(KindFilter::All) => ListMode::Kind(None),
        Some(KindFilter::Main) => ListMode::Kind(Some(SessionKind::Main)),
        Some(KindFilter::Subagent) => ListMode::Kind(Some(SessionKind::Subagent)),
        Some(KindFilter::Fork) => ListMode::Kind(Some(SessionKind::Fork)),
        Some(KindFilter::Exec) => ListMode::Kind(Some(SessionKind::Exec)),
    }
}

/// The page, or `None` when the index does not hold exactly the discovered set or cannot be
/// read (the caller's full read then reports or repairs it).
fn answer_discovered(
    store: &dyn SessionIndex,
    spec: &ListSpec,
    candidates: &[&SourceFile],
    ask: &Ask<'_>,
) -> Option<Page> {
    if store.list_failed(spec).ok()? || store.list_members(spec).ok()? != candidates.len() {
        return None;
    }
    answer(store, spec, ask, |page| {
        // The page's discovered files: one pass over the candidates.
        let mut files: HashMap<(&str, &str), Option<&SourceFile>> = page
            .iter()
            .map(|r| ((r.path.as_str(), r.key.as_str()), None))
            .collect();
        for f in candidates {
            let Some(path) = f.path.to_str() else {
                continue;
            };
            if let Some(slot) = files.get_mut(&(path, f.key.as_deref().unwrap_or_default())) {
                *slot = Some(f);
            }
        }
        page.iter()
            .map(|r| {
                files
                    .get(&(r.path.as_str(), r.key.as_str()))
                    .copied()
                    .flatten()
                    .cloned()
            })
            .collect()
    })
}

/// The page of `spec` with the rows' sources from `files_of` (in page order); `None` when a
/// source is missing or the index cannot answer.
fn answer(
    store: &dyn SessionIndex,
    spec: &ListSpec,
    ask: &Ask<'_>,
    files_of: impl FnOnce(&[scry_store::PageRow]) -> Option<Vec<SourceFile>>,
) -> Option<Page> {
    let mode = mode(ask.kind);
    let (total, hidden) = store.list_counts(spec, mode).ok()?;
    let page = store.list_page(spec, mode, ask.offset, ask.limit).ok()?;
    let mut rows = Vec::with_capacity(page.len());
    let mut ids = Vec::with_capacity(page.len() * 3);
    let files = files_of(&page)?;
    for (row, file) in page.iter().zip(files) {
        let header = store.header_by_sid(row.sid).ok()?;
        let entry = keep(ask.exclusions, &file, crate::indexed::normalize(header))?;
        ids.push(entry.header.id.clone());
        ids.extend(store.list_neighbours(spec, &entry.header.id).ok()?);
        // The row's cost and failures with its folded children's, as `usage session` folds.
        let sums = store.usage_sums(row.sid).ok()?;
        let mut failures = store.failure_count(row.sid).ok()?;
        let mut folded = Vec::with_capacity(row.folded.len());
        for &child in &row.folded {
            folded.push(store.usage_sums(child).ok()?);
            failures += store.failure_count(child).ok()?;
        }
        let folds = !row.folded.is_empty();
        rows.push(SessionRow {
            fingerprint: crate::fingerprint_text(&entry.file.path),
            size: entry.file.size,
            header: entry.header,
            children: row.children.clone(),
            cost: Some(crate::usage::Cost::of_row(
                &sums, &folded, folds, ask.prices,
            )),
            failures: Some(failures),
        });
    }
    Some(Page {
        rows,
        ids,
        total,
        hidden,
    })
}
