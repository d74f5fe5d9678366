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

use crate::app::Ctx;
use crate::commands::{json_out, Output};
use crate::error::{CliError, CliResult};
use scry_model::ErrorCode;

/// Arguments of `doctor` (exclusions come from the global `--exclude-*` flags and the config
/// file).
#[derive(Debug, Args)]
pub struct DoctorArgs {}

/// Runs `doctor`.
pub fn run(ctx: &Ctx, _args: &DoctorArgs) -> CliResult<Output> {
    let report = doctor(&ctx.env, &registry(), crate::catalog::exclusions());
    let index = crate::indexed::db_path(ctx).map(|p| {
        let health = scry_store::inspect(&p);
        (p, health)
    });
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
        }
        return Ok(json_out(&v).into());
    }
    let mut text = render_text(&report);
    let line = match &index {
        Some((path, health)) => index_line(path, health),
        None => "index: not used (--no-index)".into(),
    };
    // After the summary block (totals, config), before the first provider.
    let at = text.find("\n\n").map_or(text.len(), |i| i + 1);
    text.insert_str(at, &format!("{line}\n"));
    Ok(text.into())
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
