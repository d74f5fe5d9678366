//! The statusline's sessions straight from the index (issue 19: ≤ 50 ms with a warm index):
//! the sources whose session made a request since the window start (the ledger's
//! `requests_time` index), the hook's session and its children
//! ([`scry_store::Store::sources_active_since`]) — not a catalog of every source.
//!
//! Without a watcher's lease only those sources are checked for freshness: a stat each, and a
//! refresh of the ones that changed (the hook's own transcript, usually). New subagent files of
//! the hook's Claude session (`<id>/subagents/`) are picked up too. A session the index has
//! never seen that is not the hook's (another agent started since the last command) counts
//! from the next command that refreshes the index, or at once under `scry watch`. Under a
//! lease the index is current and nothing is stat'ed.
//!
//! [`collect`] answers `None` whenever it cannot stand in for the full read
//! ([`super::collect`]): no index, `--no-index`, no session id, Aider asked for (its histories
//! live in the working directory), the hook's session not indexed yet (its first statusline),
//! or an index error.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use scry_model::{ProviderId, Timestamp, Warning};
use scry_source::SourceFile;
use scry_sources::{registry, source_for};

use super::{fold_roots, read_one, SessionUsage};
use crate::catalog::{indexed_file, Catalog};
use crate::error::QueryResult;
use crate::Context;

/// The sessions of `providers` (all when empty) with a request at or after `since`, plus
/// session `keep` (a native id) and its children, read from the index's ledger; `None` when
/// the index cannot stand in for [`super::collect`] (see the module doc).
pub(crate) fn collect(
    ctx: &Context,
    providers: &[ProviderId],
    since: Timestamp,
    keep: &str,
) -> QueryResult<Option<(Vec<SessionUsage>, Vec<Warning>)>> {
    if ctx.no_index || keep.is_empty() || providers.contains(&ProviderId::Aider) {
        return Ok(None);
    }
    let Some(mut store) = crate::indexed::open(ctx)? else {
        return Ok(None);
    };
    let Ok(rows) = store.sources_active_since(since, Some(keep)) else {
        return Ok(None);
    };
    if !rows.iter().any(|(s, _)| s.id.as_deref() == Some(keep)) {
        return Ok(None);
    }
    let leased = crate::lease::covers(ctx, &*store);
    // What discovery would search: every asked provider's roots (without the working
    // directory under a lease, as the watcher keeps them), after the exclusions.
    let env = if leased {
        ctx.env.clone().without_cwd()
    } else {
        ctx.env.clone()
    };
    let sources = registry();
    let mut roots: Vec<PathBuf> = Vec::new();
    let mut wanted: Vec<ProviderId> = Vec::new();
    for source in &sources {
        let id = source.id();
        if (!providers.is_empty() && !providers.contains(&id))
            || ctx.exclusions.excludes_provider(id)
        {
            continue;
        }
        wanted.push(id);
        roots.extend(source.roots(&env).into_iter().map(|r| r.path));
    }
    let mut files: Vec<(SourceFile, i64)> = rows
        .into_iter()
        .map(|(s, sig)| (indexed_file(s), sig))
        .filter(|(f, _)| {
            wanted.contains(&f.provider)
                && roots.iter().any(|r| f.path.starts_with(r))
                && ctx.exclusions.check(f).is_none()
        })
        .collect();
    if !leased && !fresh(ctx, &mut *store, &sources, &mut files, keep) {
        return Ok(None);
    }
    let catalog = Catalog::of_files(ctx, files.into_iter().map(|(f, _)| f).collect(), true);
    let mut sessions = Vec::new();
    let mut warnings = Vec::new();
    for file in &catalog.files {
        match read_one(&catalog, Some(&*store), file) {
            Ok((header, requests)) => {
                let Some(entry) = crate::catalog::keep(&ctx.exclusions, file, header) else {
                    continue;
                };
                sessions.push(SessionUsage::of(&entry.header, None, requests));
            }
            Err(w) => warnings.push(w),
        }
    }
    fold_roots(&mut sessions);
    Ok(Some((sessions, warnings)))
}

/// Brings `files` (with their stored side-file signatures) up to date in `store`: a stat each;
/// a changed one is found again as discovery finds it (Claude and Codex recognize a path
/// alone; other providers are discovered) and refreshed. New subagent transcripts of the
/// Claude session `keep` join `files`. `false` when the index could not be refreshed.
fn fresh(
    ctx: &Context,
    store: &mut dyn scry_store::SessionIndex,
    sources: &[Box<dyn scry_source::Source>],
    files: &mut Vec<(SourceFile, i64)>,
    keep: &str,
) -> bool {
    let mut stale: Vec<SourceFile> = Vec::new();
    let mut rediscover: Vec<ProviderId> = Vec::new();
    let known: HashSet<PathBuf> = files.iter().map(|(f, _)| f.path.clone()).collect();
    // The hook's Claude session's subagents written since it was last indexed.
    let subagents: Vec<PathBuf> = files
        .iter()
        .filter(|(f, _)| f.provider == ProviderId::Claude && f.id == keep && f.key.is_none())
        .flat_map(|(f, _)| transcripts(&f.path.with_extension("").join("subagents"), 2))
        .filter(|p| !known.contains(p))
        .collect();
    for path in subagents {
        if let Some(f) = source_for(sources, ProviderId::Claude).and_then(|s| s.detect(&path)) {
            files.push((f, 1));
        }
    }
    for (f, sig) in files.iter_mut() {
        let (size, mtime) = scry_source::file_stat(&f.path);
        if size == f.size && mtime == f.mtime_ns && *sig == 0 {
            continue;
        }
        let detected = match f.provider {
            ProviderId::Claude | ProviderId::Codex if f.key.is_none() => {
                source_for(sources, f.provider).and_then(|s| s.detect(&f.path))
            }
            _ => None,
        };
        match detected {
            Some(d) if d.path == f.path => {
                *f = d;
                stale.push(f.clone());
            }
            _ if !rediscover.contains(&f.provider) => rediscover.push(f.provider),
            _ => {}
        }
    }
    if !rediscover.is_empty() {
        // Those providers' sources as discovery finds them (a source it no longer finds
        // drops out, as from a full read).
        let found = Catalog::discover(ctx, &rediscover);
        let by_name: std::collections::HashMap<(&Path, Option<&str>), &SourceFile> = found
            .files
            .iter()
            .map(|f| ((f.path.as_path(), f.key.as_deref()), f))
            .collect();
        let mut kept = Vec::with_capacity(files.len());
        for (f, sig) in files.drain(..) {
            if !rediscover.contains(&f.provider) {
                kept.push((f, sig));
            } else if let Some(d) = by_name.get(&(f.path.as_path(), f.key.as_deref())) {
                stale.push((*d).clone());
                kept.push(((*d).clone(), sig));
            }
        }
        *files = kept;
    }
    files.sort_by(|a, b| (&a.0.path, &a.0.key).cmp(&(&b.0.path, &b.0.key)));
    // A read-only store (not the SQLite index) answers as it is.
    stale.is_empty()
        || store
            .local_mut()
            .is_none_or(|s| crate::indexed::refresh_now(&ctx.progress, s, sources, &stale))
}

/// The `*.jsonl` files in `dir` and its subdirectories down to `depth` levels (a Claude
/// session's `subagents/` and `subagents/workflows/<wf>/`).
fn transcripts(dir: &Path, depth: usize) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    for e in entries.flatten() {
        let path = e.path();
        match e.file_type() {
            Ok(t) if t.is_dir() && depth > 0 => out.extend(transcripts(&path, depth - 1)),
            Ok(t) if t.is_file() && path.extension().is_some_and(|x| x == "jsonl") => {
                out.push(path)
            }
            _ => {}
        }
    }
    out
}
