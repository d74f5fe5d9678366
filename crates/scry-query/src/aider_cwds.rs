//! Aider histories in the project directories other agents' sessions name as their working
//! directory (issue 21), added to a [`Catalog`] after the ordinary discovery.
//!
//! The directories are the `cwd` of every discovered session of another provider, the same set
//! with and without the index (S-I4):
//! - a file whose discovery already knows it (`cwd_hint`) gives it for free;
//! - with the index (the context's, [`crate::indexed::db_path`]), a file whose size and mtime match its stored row gives the
//!   stored header's cwd (one query for all files); under a live watcher's lease covering this
//!   process the stored cwds are current, so they are read as one `SELECT DISTINCT`;
//! - any other file (no index, `--no-index`, new or changed since the last refresh) is header
//!   scanned (`Source::scan_header`, a few threads), whose cwd is the one a full parse gives.
//!
//! Then one stat of `<cwd>/.aider.chat.history.md` per distinct directory
//! ([`scry_sources::aider_in_cwds`]).

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use scry_model::ProviderId;
use scry_source::SourceFile;
use scry_store::{SessionIndex, Store};

use crate::catalog::Catalog;
use crate::Context;

/// Adds to `catalog` the Aider sessions in the working directories of the other providers'
/// sessions, whichever providers the catalog holds: those `--provider` left out are discovered
/// here for their working directories (their files are not added), so `list --provider aider`
/// lists what `list` does. `open` is the context's index when the caller has it open already
/// (else it is opened here).
pub(crate) fn add(catalog: &mut Catalog, ctx: &Context, open: Option<&dyn SessionIndex>) {
    let env = &ctx.env;
    if !catalog.providers.contains(&ProviderId::Aider) {
        return;
    }
    // Providers left out by `--provider` are discovered here, for their cwds only.
    let missing: Vec<ProviderId> = catalog
        .sources()
        .iter()
        .map(|s| s.id())
        .filter(|p| *p != ProviderId::Aider && !catalog.providers.contains(p))
        .collect();
    let others: Vec<SourceFile> = if missing.is_empty() {
        Vec::new()
    } else {
        scry_sources::discover_excluding(catalog.sources(), env, &missing, &ctx.exclusions)
            .into_iter()
            .flat_map(|pd| pd.discovery.files)
            .collect()
    };
    let files = catalog
        .files
        .iter()
        .chain(&others)
        .filter(|f| f.provider != ProviderId::Aider);
    let mut cwds: BTreeSet<String> = BTreeSet::new();
    let mut unknown: Vec<&SourceFile> = Vec::new();
    for f in files {
        match &f.cwd_hint {
            Some(c) => {
                cwds.insert(c.clone());
            }
            None => unknown.push(f),
        }
    }
    if !unknown.is_empty() {
        // The context's other store when one stands behind the door, else the SQLite file
        // when there is one (never created here).
        let opened: Option<crate::Index> = match (open, &ctx.store) {
            (Some(_), _) => None,
            (None, Some(seam)) => seam.open(ctx).ok().flatten(),
            (None, None) => crate::indexed::db_path(ctx)
                .filter(|p| p.is_file())
                .and_then(|p| Store::open(&p).ok())
                .map(|s| Box::new(s) as crate::Index),
        };
        let rest = match open.or(opened.as_deref().map(|s| s as &dyn SessionIndex)) {
            Some(store) => from_index(ctx, store, &unknown, &mut cwds),
            None => unknown,
        };
        scan(catalog, &rest, &mut cwds);
    }
    add_in(catalog, ctx, &cwds);
}

/// Adds the Aider histories found in `cwds` (not yet in `catalog`) and their warnings.
fn add_in(catalog: &mut Catalog, ctx: &Context, cwds: &BTreeSet<String>) {
    let found = scry_sources::aider_in_cwds(
        cwds.iter().map(String::as_str),
        &catalog.files,
        &ctx.exclusions,
    );
    catalog.files.extend(found.files);
    catalog.warnings.extend(found.warnings);
}

/// Whether a command asking for `asked` providers (all when empty) that refreshes every
/// discovered source into `store` may look the Aider histories up after that refresh
/// ([`add_refreshed`]): every provider asked (none left to discover for its cwds only), and no
/// covering lease (under one the refresh may be skipped, so the index is not checked to be the
/// discovered set).
pub(crate) fn deferrable(ctx: &Context, store: &Store, asked: &[ProviderId]) -> bool {
    asked.is_empty() && !crate::lease::covers(ctx, store)
}

/// [`add`] after the caller refreshed every file of `catalog` without a `cwd_hint` (from
/// [`Catalog::discovered`] with all providers) into `store`: the index then
/// holds each of those sources as it is now, so the stored cwds need no comparison of each
/// file's stat with its row (the one comparison left is the refresh's). Checked, not assumed:
/// the index's live sources of each other provider must be exactly as many as discovered
/// (every discovered source has its live row after the refresh, so equal counts are equal
/// sets); otherwise — exclusions, a scope, another environment's sources in this index, a
/// failed refresh — this is [`add`]. Files with a `cwd_hint` give it, as in [`add`]; a
/// provider with any hinted file is header scanned for its other files, and so are the
/// sources without a stored session (failed parses).
///
/// Returns where the Aider files added begin in `catalog.files` (the caller refreshes those).
pub(crate) fn add_refreshed(catalog: &mut Catalog, ctx: &Context, store: &Store) -> usize {
    let start = catalog.files.len();
    if !catalog.providers.contains(&ProviderId::Aider) {
        return start;
    }
    match cwds_refreshed(catalog, store) {
        Some(cwds) => add_in(catalog, ctx, &cwds),
        None => add(catalog, ctx, Some(store)),
    }
    start
}

/// The cwds [`add_refreshed`] walks, `None` when the index is not the discovered set.
fn cwds_refreshed(catalog: &Catalog, store: &Store) -> Option<BTreeSet<String>> {
    let missing = catalog
        .sources()
        .iter()
        .any(|s| !catalog.providers.contains(&s.id()));
    if missing {
        return None;
    }
    // Per provider: files discovered, and whether any has a hint.
    let mut given: Vec<(ProviderId, usize, bool)> = Vec::new();
    let mut cwds: BTreeSet<String> = BTreeSet::new();
    for f in catalog
        .files
        .iter()
        .filter(|f| f.provider != ProviderId::Aider)
    {
        let at = match given.iter().position(|g| g.0 == f.provider) {
            Some(i) => i,
            None => {
                given.push((f.provider, 0, false));
                given.len() - 1
            }
        };
        given[at].1 += 1;
        if let Some(c) = &f.cwd_hint {
            given[at].2 = true;
            if !cwds.contains(c) {
                cwds.insert(c.clone());
            }
        }
    }
    let quiet: Vec<ProviderId> = given.iter().filter(|g| !g.2).map(|g| g.0).collect();
    let live = store.live_cwds_of(ProviderId::Aider, &quiet).ok()?;
    let same = live.counts.len() == given.len()
        && given.iter().all(|(p, n, _)| {
            live.counts
                .iter()
                .any(|(q, m)| q.as_str() == p.as_str() && m == n)
        });
    if !same {
        return None;
    }
    cwds.extend(live.cwds);
    // Header scans: the unhinted files of a provider with hints, and sources of the others
    // without a stored session.
    let failed: std::collections::HashSet<(&str, &str)> = live
        .unsessioned
        .iter()
        .map(|(p, k)| (p.as_str(), k.as_str()))
        .collect();
    let rest: Vec<&SourceFile> = catalog
        .files
        .iter()
        .filter(|f| f.provider != ProviderId::Aider && f.cwd_hint.is_none())
        .filter(|f| {
            !quiet.contains(&f.provider)
                || (!failed.is_empty()
                    && failed.contains(&(
                        f.path.to_string_lossy().as_ref(),
                        f.key.as_deref().unwrap_or(""),
                    )))
        })
        .collect();
    scan(catalog, &rest, &mut cwds);
    Some(cwds)
}

/// The stored cwds of `files` that the index holds unchanged, into `cwds`; returns the files it
/// could not answer for.
fn from_index<'a>(
    ctx: &Context,
    store: &dyn SessionIndex,
    files: &[&'a SourceFile],
    cwds: &mut BTreeSet<String>,
) -> Vec<&'a SourceFile> {
    if crate::lease::covers(ctx, store) {
        if let Ok(rows) = store.live_cwds(ProviderId::Aider) {
            let ex = &ctx.exclusions;
            cwds.extend(rows.into_iter().filter_map(|(p, c)| {
                let kept = p
                    .parse::<ProviderId>()
                    .is_ok_and(|p| !ex.excludes_provider(p));
                kept.then_some(c)
            }));
            return Vec::new();
        }
    }
    // A merge of two lists sorted by (path, key): the index's rows in its `UNIQUE(path, key)`
    // order and the files; no hashing, no copy of a row that matches nothing.
    let mut files: Vec<(std::borrow::Cow<'_, str>, &str, &'a SourceFile)> = files
        .iter()
        .map(|f| (f.path.to_string_lossy(), f.key.as_deref().unwrap_or(""), *f))
        .collect();
    files.sort_by(|a, b| (&a.0, a.1).cmp(&(&b.0, b.1)));
    let mut known = vec![false; files.len()];
    let mut i = 0;
    let _ = store.each_live_cwd(ProviderId::Aider, &mut |row| {
        while i < files.len() && (files[i].0.as_ref(), files[i].1) < (row.path, row.key) {
            i += 1;
        }
        let Some((p, k, f)) = files.get(i) else {
            return;
        };
        if (p.as_ref(), *k) != (row.path, row.key) {
            return;
        }
        if row.size as u64 == f.size && row.mtime_ns == f.mtime_ns {
            known[i] = true;
            if let Some(c) = row.cwd {
                if !cwds.contains(c) {
                    cwds.insert(c.to_string());
                }
            }
        }
    });
    files
        .iter()
        .zip(known)
        .filter(|(_, k)| !k)
        .map(|((_, _, f), _)| *f)
        .collect()
}

/// The cwds of `files` into `cwds`, on a few threads: [`scry_source::Source::probe_cwd`] where
/// a provider can tell from a header line, else a header scan (failures say nothing here: the
/// command reading those files reports them).
fn scan(catalog: &Catalog, files: &[&SourceFile], cwds: &mut BTreeSet<String>) {
    if files.is_empty() {
        return;
    }
    let next = AtomicUsize::new(0);
    let found: Mutex<BTreeSet<String>> = Mutex::new(BTreeSet::new());
    let workers = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .clamp(1, 8)
        .min(files.len());
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(file) = files.get(i) else { break };
                let Ok(source) = catalog.source(file.provider) else {
                    continue;
                };
                let cwd = scry_source::guard::catch(|| {
                    source
                        .probe_cwd(file)
                        .or_else(|| source.scan_header(file).ok()?.cwd)
                });
                if let (Ok(Some(c)), Ok(mut set)) = (cwd, found.lock()) {
                    set.insert(c);
                }
            });
        }
    });
    cwds.extend(found.into_inner().unwrap_or_default());
}
