//! `scry doctor`: the health of every source — roots searched (and the environment variable
//! that chose them), files found, excluded, parsed and failed, warnings by kind, unknown record
//! types, the slowest file — and of the index: missing, healthy (`PRAGMA quick_check`),
//! damaged, or not a scry index at all (read-only: doctor never writes to it). One broken
//! source never stops the others.

use std::path::Path;

use clap::Args;
use scry_sources::{doctor, registry, render_text};
use scry_store::IndexHealth;
use serde_json::{json, Value};

use crate::ctx::Ctx;
use crate::error::{CliError, CliResult};
use crate::output::{json_out, Output};
use scry_model::ErrorCode;

/// Arguments of `doctor` (exclusions come from the global `--exclude-*` flags and the config
/// file).
#[derive(Debug, Args)]
pub struct DoctorArgs {}

/// Runs `doctor`.
pub fn run(ctx: &Ctx, _args: &DoctorArgs) -> CliResult<Output> {
    let report = doctor(&ctx.env, &registry(), &ctx.exclusions);
    let index = crate::indexed::db_path(ctx).map(|p| {
        let health = scry_store::inspect(&p);
        (p, health)
    });
    let lease = index_lease(&index);
    let archive = match &index {
        Some((path, IndexHealth::Healthy { .. })) => scry_store::archive_at(path),
        _ => None,
    };
    let revisions = match &index {
        Some((path, IndexHealth::Healthy { .. })) => scry_store::revisions_at(path),
        _ => None,
    };
    if ctx.json {
        let mut v = serde_json::to_value(&report).map_err(|e| {
            CliError::new(
                ErrorCode::Aborted,
                format!("cannot encode the doctor report: {e}"),
            )
        })?;
        if let Value::Object(m) = &mut v {
            let index = match &index {
                Some((path, health)) => index_json(path, health),
                None => Value::Null,
            };
            m.insert("index".into(), index);
            m.insert("watcher".into(), watcher_json(&lease));
            m.insert("archive".into(), archive_json(&archive));
            m.insert("revisions".into(), revisions_json(&revisions));
        }
        return Ok(json_out(&v).into());
    }
    let mut text = render_text(&report);
    let line = match &index {
        Some((path, health)) => index_line(path, health),
        None => "index: not used (--no-index)".into(),
    };
    let line = match &index {
        Some(_) => format!("{line}\n{}", watcher_line(&lease)),
        None => line,
    };
    let line = match &archive {
        Some(a) => format!("{line}\n{}", archive_line(a)),
        None => line,
    };
    let line = match &revisions {
        Some(r) if r.revisions > 0 => format!("{line}\n{}", revisions_line(r)),
        _ => line,
    };
    // After the summary block (totals, config), before the first provider.
    let at = text.find("\n\n").map_or(text.len(), |i| i + 1);
    text.insert_str(at, &format!("{line}\n"));
    Ok(text.into())
}

/// The freshness lease recorded in a readable index (read-only), if any.
fn index_lease(index: &Option<(std::path::PathBuf, IndexHealth)>) -> Option<scry_store::Lease> {
    match index {
        Some((path, IndexHealth::Healthy { .. })) => scry_store::lease_at(path),
        _ => None,
    }
}

/// Whether a watcher keeps the index current (`scry watch`, or a server's own): its pid, the
/// age of its heartbeat, and its roots watched / polled / not present yet.
fn watcher_line(lease: &Option<scry_store::Lease>) -> String {
    let now = scry_store::now_ms();
    match lease {
        None => "watcher: none running (each command checks the sources' freshness)".into(),
        Some(l) if l.is_live(now) => format!(
            "watcher: pid {}, heartbeat {:.1} s ago; {} roots watched, {} polled, {} not present yet",
            l.pid,
            l.age_ms(now) as f64 / 1000.0,
            l.watched,
            l.polled,
            l.waiting
        ),
        Some(l) => format!(
            "watcher: none running (pid {} stopped renewing {:.0} s ago; each command checks the sources' freshness)",
            l.pid,
            l.age_ms(now) as f64 / 1000.0
        ),
    }
}

fn watcher_json(lease: &Option<scry_store::Lease>) -> Value {
    let now = scry_store::now_ms();
    match lease {
        None => Value::Null,
        Some(l) => json!({
            "pid": l.pid,
            "live": l.is_live(now),
            "heartbeat_age_ms": l.age_ms(now),
            "watched": l.watched,
            "polled": l.polled,
            "waiting": l.waiting,
        }),
    }
}

fn index_line(path: &Path, health: &IndexHealth) -> String {
    let p = path.display();
    match health {
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

fn index_json(path: &Path, health: &IndexHealth) -> Value {
    let (status, detail) = match health {
        IndexHealth::Missing => ("missing", None),
        IndexHealth::Healthy { legacy: false } => ("ok", None),
        IndexHealth::Healthy { legacy: true } => ("ok", Some("made by an earlier release")),
        IndexHealth::Damaged(d) => ("damaged", Some(d.as_str())),
        IndexHealth::NotAnIndex(r) => ("not_an_index", Some(r.as_str())),
    };
    json!({"path": path, "status": status, "detail": detail})
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

fn archive_json(a: &Option<scry_store::ArchiveStats>) -> Value {
    match a {
        None => Value::Null,
        Some(a) => json!({
            "sessions": a.sessions,
            "events": a.events,
            "bytes": a.bytes,
            "source_bytes": a.source_bytes,
        }),
    }
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

fn revisions_json(r: &Option<scry_store::RevisionStats>) -> Value {
    match r {
        None => Value::Null,
        Some(r) => json!({
            "revisions": r.revisions,
            "events": r.events,
            "bytes": r.bytes,
        }),
    }
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
