//! `scry index` (S-C8): back-fills the index — one session, a scope, or every discovered source
//! (`--all`, which also marks vanished sources `live: false`) — with a progress bar on a
//! terminal (stderr; nothing when stderr is piped), optionally re-parsing everything (`--force`)
//! and removing sessions whose source is gone (`--prune`). Prints the refresh report.

use std::io::IsTerminal;

use clap::Args;
use scry_model::{ErrorCode, Timestamp};
use scry_source::SourceFile;
use scry_store::{RefreshOptions, RefreshReport, Store};
use serde_json::json;

use super::Output;
use crate::app::Ctx;
use crate::catalog::Catalog;
use crate::error::{CliError, CliResult};
use crate::filter::{self, Scope};
use crate::indexed;

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
    /// Afterwards remove sessions whose source is gone
    #[arg(long)]
    pub prune: bool,
}

/// Runs `scry index`.
pub fn run(ctx: &Ctx, args: &IndexArgs) -> CliResult<Output> {
    let Some(path) = indexed::db_path(ctx) else {
        return Err(CliError::usage(
            ErrorCode::InvalidFilter,
            "`index` needs the index; drop --no-index",
        ));
    };
    let catalog = Catalog::discover(&ctx.env, &[]);
    let since = match &args.since {
        Some(s) => Some(filter::since(s, Timestamp::now())?),
        None => None,
    };
    let whole = args.id.is_none() && args.scope.is_none() && since.is_none();
    let files: Vec<SourceFile> = if let Some(id) = &args.id {
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
    let mut store = Store::open(&path).map_err(|e| CliError::new(e.code(), e.to_string()))?;
    let opts = RefreshOptions {
        force: args.force,
        ..if whole || args.all {
            RefreshOptions::complete()
        } else {
            RefreshOptions::partial()
        }
    };
    let bar = progress_bar(files.len());
    let report = store
        .refresh(catalog.sources(), &files, &opts, &mut |p| {
            if let Some(b) = &bar {
                b.set_position(p.done as u64);
                b.set_message(p.file.path.display().to_string());
            }
            true
        })
        .map_err(|e| CliError::new(e.code(), e.to_string()))?;
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    let pruned = if args.prune {
        Some(
            store
                .prune()
                .map_err(|e| CliError::new(e.code(), e.to_string()))?,
        )
    } else {
        None
    };
    if ctx.json {
        return Ok(super::json_out(&to_json(&report, pruned, &store)).into());
    }
    Ok(text(&report, pruned, &store).into())
}

fn progress_bar(total: usize) -> Option<indicatif::ProgressBar> {
    if !std::io::stderr().is_terminal() {
        return None;
    }
    let bar = indicatif::ProgressBar::new(total as u64);
    if let Ok(style) =
        indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} {elapsed_precise} {wide_msg}")
    {
        bar.set_style(style);
    }
    Some(bar)
}

fn to_json(r: &RefreshReport, pruned: Option<usize>, store: &Store) -> serde_json::Value {
    let failed: Vec<_> = r
        .failed
        .iter()
        .map(|f| json!({"path": f.path, "key": f.key, "message": f.message}))
        .collect();
    json!({
        "index": store.path(),
        "files": r.files,
        "unchanged": r.unchanged,
        "hashed": r.hashed,
        "parsed": r.parsed,
        "resumed": r.resumed,
        "vanished": r.vanished,
        "revived": r.revived,
        "bytes_hashed": r.bytes_hashed,
        "events_written": r.events_written,
        "failed": failed,
        "pruned": pruned,
    })
}

fn text(r: &RefreshReport, pruned: Option<usize>, store: &Store) -> String {
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
    if let Some(n) = pruned {
        out.push_str(&format!("pruned {n} sessions whose source is gone\n"));
    }
    out.push_str(&format!("index {}\n", store.path().display()));
    out
}
