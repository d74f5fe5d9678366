//! `scry commands <id> [--failed] [--turn n] [--host h]` (S-C6): the commands ledger (S-F2) —
//! every shell command with its outcome, exit code (unknown stays unknown), duration, host and
//! an output excerpt; JSON rows carry provenance, extractor and evidence handle (S-F1).

use clap::Args;
use scry_facts::{CommandRow, Outcome};
use scry_query::{CommandsReport, CommandsRequest};

use super::loaded;
use crate::ctx::Ctx;
use crate::error::CliResult;
use crate::output::Output;
use crate::render::{self, Style};

/// Arguments of `scry commands`: the request of the query operation, flattened (its fields are the
/// flags).
#[derive(Debug, Args)]
pub struct CommandsArgs {
    /// The request.
    #[command(flatten)]
    pub request: CommandsRequest,
}

/// Runs `scry commands`.
pub fn run(ctx: &Ctx, args: &CommandsArgs) -> CliResult<Output> {
    let r = scry_query::commands(ctx, &args.request)?;
    if ctx.json {
        return Ok(loaded::report_json(&r).into());
    }
    Ok(text(&r, Style::new(ctx.color)).into())
}

/// `exit 1`, `ok`, `error`, `?`, `no result`.
pub fn status(row: &CommandRow) -> String {
    match (row.outcome, row.exit_code) {
        (Outcome::Succeeded, Some(c)) | (Outcome::Failed, Some(c)) => format!("exit {c}"),
        (Outcome::Succeeded, None) => "ok".into(),
        (Outcome::Failed, None) => "error".into(),
        (Outcome::Unknown, _) => "?".into(),
        (Outcome::NoResult, _) => "no result".into(),
    }
}

pub(super) fn text(report: &CommandsReport, s: Style) -> String {
    let t = report.total;
    let mut out = vec![s.bold(&loaded::title_of(&report.session))];
    let mut summary = format!(
        "{}, {} failed",
        render::count(t.commands as u64, "command"),
        t.failed
    );
    if t.shown != t.commands {
        summary.push_str(&format!(" — {} shown", t.shown));
    }
    out.push(summary);
    for r in &report.commands {
        let st = status(r);
        let st = if r.failed() {
            s.red(&format!("{st:<9}"))
        } else {
            format!("{st:<9}")
        };
        let mut extra = String::new();
        if let Some(h) = &r.host {
            extra.push_str(&format!("  @{h}"));
        }
        if r.background {
            extra.push_str("  (background)");
        }
        if let Some(d) = r.duration_ms {
            extra.push_str(&format!("  {}", render::duration_ms(d)));
        }
        out.push(format!(
            "{:<10} {st} {}{extra}  {}",
            r.origin.evidence.handle(),
            render::clip(&r.command, 70),
            s.dim(&r.tool)
        ));
        if r.failed() {
            let o = r.stderr.as_ref().or(r.stdout.as_ref());
            if let Some(o) = o.filter(|o| !o.text.trim().is_empty()) {
                let last = o.text.lines().rev().find(|x| !x.trim().is_empty());
                out.push(format!(
                    "{:<10} {}",
                    "",
                    render::clip(last.unwrap_or(""), render::WIDTH - 12)
                ));
            }
        }
    }
    out.extend(loaded::warnings_of(&report.warnings));
    loaded::lines(out)
}
