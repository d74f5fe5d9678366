//! `scry errors <id>` (S-C6): the errors ledger (S-F4) — every failing tool result (exit code
//! ≠ 0, or an unknown exit code with the agent's error flag), its output, and whether a later
//! call with the same command prefix / file succeeded ("fixed later").

use clap::Args;
use scry_facts::Failure;
use scry_query::{ErrorsReport, ErrorsRequest};

use super::loaded;
use crate::ctx::Ctx;
use crate::error::CliResult;
use crate::output::Output;
use crate::render::{self, Style};

/// Arguments of `scry errors`: the request of the query operation, flattened (its fields are the
/// flags).
#[derive(Debug, Args)]
pub struct ErrorsArgs {
    /// The request.
    #[command(flatten)]
    pub request: ErrorsRequest,
}

/// Runs `scry errors`.
pub fn run(ctx: &Ctx, args: &ErrorsArgs) -> CliResult<Output> {
    let r = scry_query::errors(ctx, &args.request)?;
    if ctx.json {
        return Ok(loaded::report_json(&r).into());
    }
    Ok(text(&r, Style::new(ctx.color)).into())
}

/// `exit 1` or `error`.
pub fn status(f: &Failure) -> String {
    match f.exit_code {
        Some(c) => format!("exit {c}"),
        None => "error".into(),
    }
}

/// `fixed by E12·T3` or `not fixed`.
pub fn fixed(f: &Failure) -> String {
    match &f.fixed_by {
        Some(e) => format!("fixed by {}", e.handle()),
        None => "not fixed".into(),
    }
}

pub(super) fn text(report: &ErrorsReport, s: Style) -> String {
    let fs = &report.failures;
    let fixed_n = report.total.fixed_later;
    let mut out = vec![s.bold(&loaded::title_of(&report.session))];
    out.push(format!(
        "{}, {fixed_n} fixed later",
        render::count(fs.len() as u64, "failure")
    ));
    for f in fs {
        let what = f
            .command
            .as_deref()
            .map(|c| format!(" `{}`", render::clip(c, 60)))
            .unwrap_or_default();
        out.push(format!(
            "{:<10} {} {}{what} → {}  ({})",
            f.origin.evidence.handle(),
            f.tool,
            s.red(&status(f)),
            if f.fixed_later() {
                fixed(f)
            } else {
                s.red(&fixed(f))
            },
            s.dim(&f.origin.extractor)
        ));
        let body: Vec<&str> = f
            .output
            .text
            .lines()
            .filter(|x| !x.trim().is_empty())
            .collect();
        let n = body.len();
        for line in body.iter().skip(n.saturating_sub(2)) {
            out.push(format!(
                "{:<10} {}",
                "",
                render::clip(line, render::WIDTH - 12)
            ));
        }
    }
    out.extend(loaded::warnings_of(&report.warnings));
    loaded::lines(out)
}
