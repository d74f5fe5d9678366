//! `scry doctor`: the health of every source — roots searched (and the environment variable
//! that chose them), files found, excluded, parsed and failed, warnings by kind, unknown record
//! types, the slowest file. One broken source never stops the others.

use clap::Args;
use scry_sources::{doctor, registry, render_text};

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
    if ctx.json {
        let v = serde_json::to_value(&report).map_err(|e| {
            CliError::new(
                ErrorCode::Aborted,
                format!("cannot encode the doctor report: {e}"),
            )
        })?;
        return Ok(json_out(&v).into());
    }
    Ok(render_text(&report).into())
}
