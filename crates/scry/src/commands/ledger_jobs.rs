//! `scry jobs <id>` (S-C6): background jobs (S-F4) — what was started in the background and
//! how it ended, from receipts only (no receipt = `unknown`).

use clap::Args;
use scry_facts::{Job, JobStatus};
use scry_query::{JobsReport, JobsRequest};

use super::loaded;
use crate::ctx::Ctx;
use crate::error::CliResult;
use crate::output::Output;
use crate::render::{self, Style};

/// Arguments of `scry jobs`: the request of the query operation, flattened (its fields are the
/// flags).
#[derive(Debug, Args)]
pub struct JobsArgs {
    /// The request.
    #[command(flatten)]
    pub request: JobsRequest,
}

/// Runs `scry jobs`.
pub fn run(ctx: &Ctx, args: &JobsArgs) -> CliResult<Output> {
    let r = scry_query::jobs(ctx, &args.request)?;
    if ctx.json {
        return Ok(loaded::report_json(&r).into());
    }
    Ok(text(&r, Style::new(ctx.color)).into())
}

/// The status word.
pub fn status(j: &Job) -> &'static str {
    match j.status {
        JobStatus::Running => "running",
        JobStatus::Completed => "completed",
        JobStatus::Failed => "failed",
        JobStatus::Killed => "killed",
        JobStatus::Unknown => "unknown",
    }
}

pub(super) fn text(report: &JobsReport, s: Style) -> String {
    let jobs = &report.jobs;
    let mut out = vec![s.bold(&loaded::title_of(&report.session))];
    out.push(render::count(jobs.len() as u64, "background job"));
    for j in jobs {
        let st = status(j);
        let st = if matches!(j.status, JobStatus::Failed | JobStatus::Killed) {
            s.red(&format!("{st:<10}"))
        } else {
            format!("{st:<10}")
        };
        let what = j
            .command
            .as_deref()
            .map(|c| render::clip(c, 50))
            .unwrap_or_else(|| j.tool.clone());
        let id =
            j.id.as_deref()
                .map(|i| format!(" [{i}]"))
                .unwrap_or_default();
        let exit = j
            .exit_code
            .map(|c| format!(" exit {c}"))
            .unwrap_or_default();
        let receipt = match (&j.receipt, &j.receipt_extractor) {
            (Some(e), Some(x)) => format!("receipt {} {x}", e.handle()),
            (Some(e), None) => format!("receipt {}", e.handle()),
            _ => "no receipt".into(),
        };
        out.push(format!(
            "{:<10} {st} {what}{id}{exit}  {}",
            j.origin.evidence.handle(),
            s.dim(&receipt)
        ));
    }
    out.extend(loaded::warnings_of(&report.warnings));
    loaded::lines(out)
}
