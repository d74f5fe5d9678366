//! `scry index` (S-C8): back-fills the index — one session, a scope, or every discovered source
//! (`--all`, which also marks vanished sources `live: false`) — with a progress bar on a
//! terminal (stderr; nothing when stderr is piped), optionally re-parsing everything (`--force`)
//! and removing sessions whose source is gone (`--prune`). Prints the refresh report.
//!
//! Never leaves a damaged index behind while reporting success (issue 15): corruption met on
//! the way, or found by the `PRAGMA quick_check` that follows a whole-index run that wrote
//! something (or `--force`), rebuilds the index aside from the sources and swaps it in (one
//! warning names the file); `--rebuild` does so on request. Another process writing the index is waited for (one line on stderr says so),
//! not failed on.

use clap::Args;
use scry_model::{ErrorCode, Timestamp};
use scry_query::progress::Progress as _;
use scry_source::Source;
use scry_source::SourceFile;
use scry_store::{Progress, RefreshOptions, RefreshReport, Store, StoreError};
use serde::Serialize;

use crate::catalog::Catalog;
use crate::ctx::Ctx;
use crate::error::{CliError, CliResult};
use crate::filter::{self, Scope};
use crate::indexed;
use crate::output::Output;

/// Arguments of `scry index`.
#[derive(Debug, Args)]
pub struct IndexArgs {
    /// Index just this session (any reference `show` accepts)
    pub id: Option<String>,
    /// Every discovered source of every provider (the default without an id or scope)
    #[arg(long)]
    pub all: bool,
    /// Only sources whose working directory is under this path (or `cwd`, `global`)
    #[arg(long, value_name = "PATH|cwd|global")]
    pub scope: Option<String>,
    /// Same as `--scope global`
    #[arg(long)]
    pub global: bool,
    /// Re-parse every file even when unchanged
    #[arg(long)]
    pub force: bool,
    /// Only sources modified since then: 30m, 24h, 7d, 2w, or an ISO date / time
    #[arg(long, value_name = "WHEN")]
    pub since: Option<String>,
    /// Afterwards remove sessions whose source is gone (archived: kept, readable and searchable
    /// until pruned)
    #[arg(long)]
    pub prune: bool,
    /// With --prune: only sessions whose source was found gone before then (30d, 2w, or an
    /// ISO date / time)
    #[arg(long, value_name = "WHEN", requires = "prune")]
    pub older_than: Option<String>,
    /// With --prune: list the sessions that would be removed, remove nothing
    #[arg(long, requires = "prune")]
    pub dry_run: bool,
    /// Build a fresh index of every discovered source beside the current one, then swap it in
    /// (repairs a damaged index; sessions whose source is gone are not kept)
    #[arg(long, conflicts_with_all = ["id", "scope", "global", "since"])]
    pub rebuild: bool,
    /// Parse threads feeding the one writer (default: one per core; 1 parses on the writer)
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub jobs: Option<u16>,
}

/// How long the index waits for another writer before saying so (then it keeps waiting).
const FIRST_WAIT: std::time::Duration = std::time::Duration::from_secs(1);
/// The busy timeout of each later wait.
const LATER_WAIT: std::time::Duration = std::time::Duration::from_secs(10);

/// Runs `scry index`.
pub fn run(ctx: &Ctx, args: &IndexArgs) -> CliResult<Output> {
    let Some(path) = indexed::db_path(ctx) else {
        return Err(CliError::usage(
            ErrorCode::InvalidFilter,
            "`index` needs the index; drop --no-index",
        ));
    };
    // One session under a watcher's lease: resolved from the index, no discovery (as `show`).
    let (catalog, leased) = match args.id.as_deref().and_then(|id| leased_one(ctx, id)) {
        Some((catalog, file)) => (catalog, Some(file)),
        None => (Catalog::discover(ctx, &[]), None),
    };
    let older_than = match &args.older_than {
        Some(s) => Some(filter::since(s, Timestamp::now())?),
        None => None,
    };
    let since = match &args.since {
        Some(s) => Some(filter::since(s, Timestamp::now())?),
        None => None,
    };
    let whole = args.id.is_none() && args.scope.is_none() && since.is_none();
    // Under the lease the watcher marks the sources that vanish: one session's refresh leaves
    // the others alone instead of stating every live one.
    let keep_unseen = leased.is_some();
    let files: Vec<SourceFile> = if let Some(file) = leased {
        vec![file]
    } else if let Some(id) = &args.id {
        vec![catalog.resolve_ref(ctx, id)?]
    } else {
        let scope = Scope::parse(args.scope.as_deref(), args.global, &ctx.cwd, true, true)?;
        catalog
            .files
            .iter()
            .filter(|f| f.cwd_hint.is_none() || scope.contains(f.cwd_hint.as_deref()))
            .filter(|f| {
                since.is_none_or(|s| f.mtime_ns == 0 || i128::from(f.mtime_ns) >= s.as_nanosecond())
            })
            .cloned()
            .collect()
    };
    let opts = RefreshOptions {
        force: args.force,
        jobs: args.jobs.map_or(0, usize::from),
        keep_unseen,
        ..if whole || args.all || args.rebuild {
            RefreshOptions::complete_for(
                ctx.exclusions
                    .complete_providers(&scry_model::ProviderId::ALL),
            )
        } else {
            RefreshOptions::partial()
        }
    };
    let mut bar = crate::progress::IndexBar::new("indexing", std::time::Duration::ZERO, ctx.json);
    bar.start(scry_query::progress::total_bytes(&files));
    let mut progress = |p: &Progress<'_>| {
        bar.advance(p.file.size);
        true
    };
    let job = Job {
        path: &path,
        sources: catalog.sources(),
        files: &files,
        opts: &opts,
        rebuilt: std::cell::Cell::new(false),
    };
    let outcome = if args.rebuild {
        job.rebuild(&mut progress)
    } else {
        job.update(whole || args.all, &mut progress)
    };
    bar.finish();
    let (mut store, report) = outcome.map_err(|e| CliError::new(e.code(), e.to_string()))?;
    let pruned = if args.prune {
        // Revisions first: pruning an archived session removes its source's revisions too.
        let revisions = store
            .prune_revisions(older_than, args.dry_run)
            .map_err(|e| CliError::new(e.code(), e.to_string()))?;
        let rows = store
            .prune_archived(older_than, args.dry_run)
            .map_err(|e| CliError::new(e.code(), e.to_string()))?;
        Some(super::prune::Pruned {
            rows,
            revisions,
            dry_run: args.dry_run,
        })
    } else {
        None
    };
    let rebuilt = job.rebuilt.get();
    if report.carry_lost > 0 {
        eprintln!(
            "warning: {} archived sessions or earlier revisions could not be read from the replaced index {} and are lost",
            report.carry_lost,
            path.display()
        );
    }
    if ctx.json {
        let v = IndexJson::of(&report, pruned.as_ref(), &store, rebuilt);
        let v = serde_json::to_value(&v).unwrap_or_default();
        return Ok(crate::output::json_out(&v).into());
    }
    Ok(text(&report, pruned, &store, rebuilt).into())
}

/// `reference` resolved from the index under a watcher's lease covering this process
/// ([`Catalog::resolve_leased`]), with its file's stat as it is now (the index holds the one
/// last indexed, and `index <id>` must see a change the watcher has not applied yet). `None`
/// (the caller discovers) when the lease does not cover, the index cannot resolve it as
/// discovery would, or the file is gone.
fn leased_one(ctx: &Ctx, reference: &str) -> Option<(Catalog, SourceFile)> {
    let store = indexed::open_local(ctx).ok()??;
    let (catalog, mut file) = Catalog::resolve_leased(ctx, &store, &[], reference)?;
    let meta = std::fs::metadata(&file.path).ok().filter(|m| m.is_file())?;
    (file.size, file.mtime_ns) = scry_source::metadata_stat(&meta);
    Some((catalog, file))
}

/// One run of `scry index`: where, what, how.
struct Job<'a> {
    path: &'a std::path::Path,
    sources: &'a [Box<dyn Source>],
    files: &'a [SourceFile],
    opts: &'a RefreshOptions,
    /// Whether the index was rebuilt (on request or because it was damaged).
    rebuilt: std::cell::Cell<bool>,
}

type ProgressFn<'p> = dyn FnMut(&Progress<'_>) -> bool + 'p;

impl Job<'_> {
    /// Refreshes the index in place; a damaged one (met on the way, or found by the quick check
    /// that follows a whole-index run when `check`) is rebuilt instead.
    fn update(
        &self,
        check: bool,
        progress: &mut ProgressFn<'_>,
    ) -> Result<(Store, RefreshReport), StoreError> {
        let store = match self.patiently(|| Store::open(self.path)) {
            Ok(s) => s,
            Err(e) if e.is_corrupt() => return self.repair(&e, progress),
            Err(e) => return Err(e),
        };
        let mut store = store;
        store.set_busy_timeout(FIRST_WAIT)?;
        let refreshed = self.patiently(|| {
            let r = store.refresh(self.sources, self.files, self.opts, progress);
            if r.as_ref().is_err_and(StoreError::is_busy) {
                store.set_busy_timeout(LATER_WAIT)?;
            }
            r
        });
        let report = match refreshed {
            Ok(r) => r,
            Err(e) if e.is_corrupt() => {
                let e = e.in_index(self.path);
                drop(store);
                return self.repair(&e, progress);
            }
            Err(e) => return Err(e),
        };
        store.set_busy_timeout(LATER_WAIT)?;
        // The whole-file check reads every page (~0.5 s per GB of index): after a run that
        // wrote, or on `--force`. A run that changed nothing read the fingerprint rows only;
        // damage elsewhere is met (and repaired) by the command that reads it, and `doctor`
        // checks every page.
        if check && (self.opts.force || wrote(&report)) {
            if let Some(detail) = store.quick_check()? {
                drop(store);
                let e = StoreError::DamagedIndex {
                    path: self.path.to_path_buf(),
                    detail,
                };
                return self.repair(&e, progress);
            }
        }
        Ok((store, report))
    }

    /// `--rebuild`.
    fn rebuild(&self, progress: &mut ProgressFn<'_>) -> Result<(Store, RefreshReport), StoreError> {
        self.rebuilt.set(true);
        Store::rebuild(self.path, self.sources, self.files, self.opts, progress)
    }

    /// The damaged index rebuilt from `files`, after one warning naming it.
    fn repair(
        &self,
        damage: &StoreError,
        progress: &mut ProgressFn<'_>,
    ) -> Result<(Store, RefreshReport), StoreError> {
        eprintln!("warning: {damage}; rebuilding it from the sources");
        self.rebuild(progress)
    }

    /// Runs `op` until it is not refused for another writer's lock, saying once on stderr that
    /// it waits.
    fn patiently<T>(&self, mut op: impl FnMut() -> Result<T, StoreError>) -> Result<T, StoreError> {
        let mut told = false;
        loop {
            match op() {
                Err(e) if e.is_busy() => {
                    if !told {
                        eprintln!(
                            "waiting for another scry process to finish writing the index {}",
                            self.path.display()
                        );
                        told = true;
                    }
                }
                other => return other,
            }
        }
    }
}

/// Whether a refresh wrote to the index.
fn wrote(r: &RefreshReport) -> bool {
    r.parsed + r.resumed + r.hashed + r.vanished + r.revived + r.failed.len() > 0
}

/// `index --json`: the refresh's counts, its failures, what `--prune` removed and, when the
/// index was rebuilt, what was carried over.
#[derive(Serialize)]
struct IndexJson<'a> {
    index: &'a std::path::Path,
    files: usize,
    unchanged: usize,
    hashed: usize,
    parsed: usize,
    resumed: usize,
    vanished: usize,
    revived: usize,
    bytes_hashed: u64,
    events_written: u64,
    failed: Vec<FailedJson<'a>>,
    pruned: Option<usize>,
    pruned_revisions: Option<usize>,
    prune: Option<super::prune::PrunedJson<'a>>,
    rebuilt: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    carried: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    carry_lost: Option<usize>,
}

/// A source the refresh could not read.
#[derive(Serialize)]
struct FailedJson<'a> {
    path: &'a std::path::Path,
    key: &'a Option<String>,
    message: &'a str,
}

impl<'a> IndexJson<'a> {
    fn of(
        r: &'a RefreshReport,
        pruned: Option<&'a super::prune::Pruned>,
        store: &'a Store,
        rebuilt: bool,
    ) -> Self {
        IndexJson {
            index: store.path(),
            files: r.files,
            unchanged: r.unchanged,
            hashed: r.hashed,
            parsed: r.parsed,
            resumed: r.resumed,
            vanished: r.vanished,
            revived: r.revived,
            bytes_hashed: r.bytes_hashed,
            events_written: r.events_written,
            failed: r
                .failed
                .iter()
                .map(|f| FailedJson {
                    path: &f.path,
                    key: &f.key,
                    message: &f.message,
                })
                .collect(),
            pruned: pruned.map(|p| p.rows.len()),
            pruned_revisions: pruned.map(|p| p.revisions.len()),
            prune: pruned.map(super::prune::Pruned::json),
            rebuilt,
            carried: rebuilt.then_some(r.carried),
            carry_lost: rebuilt.then_some(r.carry_lost),
        }
    }
}

fn text(
    r: &RefreshReport,
    pruned: Option<super::prune::Pruned>,
    store: &Store,
    rebuilt: bool,
) -> String {
    let mut out = format!(
        "{} files: {} unchanged, {} parsed ({} resumed), {} failed, {} vanished, {} revived; {} events written\n",
        r.files,
        r.unchanged,
        r.parsed,
        r.resumed,
        r.failed.len(),
        r.vanished,
        r.revived,
        r.events_written
    );
    for f in &r.failed {
        out.push_str(&format!("  failed {}: {}\n", f.path.display(), f.message));
    }
    if let Some(p) = pruned {
        out.push_str(&p.text());
    }
    let how = match (rebuilt, r.carried) {
        (false, _) => String::new(),
        (true, 0) => " (rebuilt from the sources)".into(),
        (true, n) => {
            format!(" (rebuilt from the sources; {n} archived sessions and earlier revisions kept)")
        }
    };
    out.push_str(&format!("index {}{how}\n", store.path().display()));
    out
}
