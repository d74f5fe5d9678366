//! `scry doctor`: the health of every source — roots searched (and the environment variable
//! that chose them), files found, excluded, parsed and failed, warnings by kind, unknown record
//! types, the slowest file — and of the index: missing, healthy (`PRAGMA quick_check`),
//! damaged, or not a scry index at all (read-only: doctor never writes to it). One broken
//! source never stops the others. The report is the query layer's
//! ([`scry_query::ops::doctor`]); this module renders its text.

use clap::Args;
use scry_query::ops::doctor::{DoctorReport, DoctorRequest, IndexReport, WatcherReport};
use scry_sources::render_text;
use scry_store::IndexHealth;

use crate::ctx::Ctx;
use crate::error::CliResult;
use crate::output::{json_out, Output};

/// Arguments of `doctor` (exclusions come from the global `--exclude-*` flags and the config
/// file).
#[derive(Debug, Args)]
pub struct DoctorArgs {
    /// The request (no parameters).
    #[command(flatten)]
    pub request: DoctorRequest,
}

/// Runs `doctor`.
pub fn run(ctx: &Ctx, args: &DoctorArgs) -> CliResult<Output> {
    let report = scry_query::ops::doctor::doctor(ctx, &args.request);
    if ctx.json {
        return Ok(json_out(&scry_query::ops::to_json(&report)).into());
    }
    Ok(text(&report).into())
}

/// The text of `report`: the sources' summary, then the index, watcher and archive lines,
/// then each provider.
fn text(report: &DoctorReport) -> String {
    let mut text = render_text(&report.sources);
    let line = match &report.index {
        Some(index) => format!("{}\n{}", index_line(index), watcher_line(&report.watcher)),
        None => "index: not used (--no-index)".into(),
    };
    let line = match &report.archive {
        Some(a) => format!("{line}\n{}", archive_line(a)),
        None => line,
    };
    let line = match &report.revisions {
        Some(r) if r.revisions > 0 => format!("{line}\n{}", revisions_line(r)),
        _ => line,
    };
    // After the summary block (totals, config), before the first provider.
    let at = text.find("\n\n").map_or(text.len(), |i| i + 1);
    text.insert_str(at, &format!("{line}\n"));
    text
}

/// Whether a watcher keeps the index current (`scry watch`, or a server's own): its pid, the
/// age of its heartbeat, and its roots watched / polled / not present yet.
fn watcher_line(watcher: &Option<WatcherReport>) -> String {
    match watcher {
        None => "watcher: none running (each command checks the sources' freshness)".into(),
        Some(l) if l.live => format!(
            "watcher: pid {}, heartbeat {:.1} s ago; {} roots watched, {} polled, {} not present yet",
            l.pid,
            l.heartbeat_age_ms as f64 / 1000.0,
            l.watched,
            l.polled,
            l.waiting
        ),
        Some(l) => format!(
            "watcher: none running (pid {} stopped renewing {:.0} s ago; each command checks the sources' freshness)",
            l.pid,
            l.heartbeat_age_ms as f64 / 1000.0
        ),
    }
}

fn index_line(index: &IndexReport) -> String {
    let p = index.path.display();
    match &index.health {
        IndexHealth::Missing => format!("index: {p} (not created yet)"),
        IndexHealth::Healthy { legacy: false } => format!("index: {p} ok"),
        IndexHealth::Healthy { legacy: true } => {
            format!("index: {p} ok (made by an earlier release; the next command adopts it)")
        }
        IndexHealth::Damaged(detail) => format!(
            "index: {p} DAMAGED ({detail}); a command that meets the damage rebuilds it, `scry index --all` or `--rebuild` does so now"
        ),
        IndexHealth::NotAnIndex(reason) => {
            format!("index: {p} is not a scry index ({reason}); scry will not use or modify it")
        }
    }
}

/// The archived sessions the index keeps (source gone; readable until `index --prune`).
fn archive_line(a: &scry_store::ArchiveStats) -> String {
    if a.sessions == 0 {
        return "archive: no sessions whose source is gone".into();
    }
    format!(
        "archive: {} whose source is gone ({} events, {} in the index, {} of sources when last seen); `scry index --prune` removes them",
        scry_query::render::count(a.sessions, "session"),
        a.events,
        human(a.bytes),
        human(a.source_bytes)
    )
}

/// The earlier revisions of rewritten sources the index keeps (issue 20).
fn revisions_line(r: &scry_store::RevisionStats) -> String {
    format!(
        "revisions: {} of rewritten sources ({} events, {} in the index); `scry index --prune` removes them",
        scry_query::render::count(r.revisions, "earlier revision"),
        r.events,
        human(r.bytes)
    )
}

/// Bytes for people: `812 B`, `4.2 KB`, `1.3 MB`, `2.0 GB`.
fn human(n: u64) -> String {
    let units = ["B", "KB", "MB", "GB", "TB"];
    let mut v = n as f64;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < units.len() {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{n} B")
    } else {
        format!("{v:.1} {}", units[u])
    }
}
