//! `scry files <id> [--group project|runtime|log|all]` (S-C6): the files ledger (S-F3) — every
//! write event (observed from file tools, derived from shell commands), grouped project /
//! runtime / log, with the distinct files per group. The counts are the overview's (`show`).

use clap::Args;
use scry_facts::{FileGroup, FileWrite};
use scry_query::{FilesReport, FilesRequest};

use super::loaded;
use crate::ctx::Ctx;
use crate::error::CliResult;
use crate::output::Output;
use crate::render::{self, Style};

/// Arguments of `scry files`: the request of the query operation, flattened (its fields are the
/// flags).
#[derive(Debug, Args)]
pub struct FilesArgs {
    /// The request.
    #[command(flatten)]
    pub request: FilesRequest,
}

/// Runs `scry files`.
pub fn run(ctx: &Ctx, args: &FilesArgs) -> CliResult<Output> {
    let r = scry_query::files(ctx, &args.request)?;
    if ctx.json {
        return Ok(loaded::report_json(&r).into());
    }
    Ok(text(&r, Style::new(ctx.color)).into())
}

pub(super) fn text(report: &FilesReport, s: Style) -> String {
    let g = report.group.group();
    let writes = &report.writes;
    let fc = report.counts.files;
    let wc = report.counts.write_events;
    let mut out = vec![s.bold(&loaded::title_of(&report.session))];
    out.push(format!(
        "{} changed, {} — project {} ({}), runtime {} ({}), log {} ({})",
        render::count(fc.total as u64, "file"),
        render::count(wc.total as u64, "write"),
        fc.project,
        wc.project,
        fc.runtime,
        wc.runtime,
        fc.log,
        wc.log
    ));
    for group in FileGroup::ALL {
        if g.is_some_and(|x| x != group) {
            continue;
        }
        let rows: Vec<&FileWrite> = writes.iter().filter(|w| w.group == group).collect();
        if rows.is_empty() {
            continue;
        }
        out.push(s.bold(group.as_str()));
        for w in rows {
            out.push(format!(
                "  {:<10} {:<8} {}  {}",
                w.origin.evidence.handle(),
                w.op.as_str(),
                render::clip_left(&w.display, 60),
                s.dim(&format!(
                    "{} {}",
                    w.origin.provenance.as_str(),
                    w.origin.extractor
                ))
            ));
        }
    }
    if writes.is_empty() {
        out.push(match g {
            Some(g) => format!("no {} files written", g.as_str()),
            None => "no files written".into(),
        });
    }
    out.extend(loaded::warnings_of(&report.warnings));
    loaded::lines(out)
}
