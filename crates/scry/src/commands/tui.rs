//! `scry tui` (issue 23): the full-screen terminal browser. This file only maps the flags
//! onto the list query and hands the command's query context (demo, exclusions, index flags)
//! to the scry-tui crate; on exit it prints the resume command of the session opened last,
//! as `scry resume` would.

use std::io::IsTerminal;

use clap::Args;
use scry_model::ErrorCode;
use scry_query::ListQuery;

use crate::ctx::Ctx;
use crate::error::{CliError, CliResult};
use crate::output::Output;
use scry_query::ListFilter;

/// Arguments of `scry tui`: the session filters of `scry list`.
#[derive(Debug, Args)]
pub struct TuiArgs {
    /// Which sessions the list shows.
    #[command(flatten)]
    pub filter: ListFilter,
}

/// Runs `scry tui`.
pub fn run(ctx: &Ctx, args: &TuiArgs) -> CliResult<Output> {
    if !std::io::stdin().is_terminal() || !std::io::stdout().is_terminal() {
        return Err(CliError::usage(
            ErrorCode::InvalidQuery,
            "scry tui needs a terminal on stdin and stdout (use scry list / search / turn in scripts)",
        ));
    }
    let list = args.filter.query(scry_tui::list::LIMIT);
    // `--store`: the team store's sessions (issue 22), read without a live poll.
    let source = match &ctx.store {
        Some(url) => super::team_tui::tui_source(ctx, url)?,
        None => scry_tui::Source::local(ctx.query.clone()),
    };
    // Bad filters (or an unreachable store) fail here with their one line and exit code,
    // before the screen is taken.
    source.reader.list(
        ctx,
        &ListQuery {
            limit: 1,
            ..list.clone()
        },
    )?;
    let opts = scry_tui::Options {
        list,
        color: ctx.color,
        now: None,
    };
    let app = scry_tui::run(source, opts)
        .map_err(|e| CliError::new(ErrorCode::Aborted, format!("terminal error: {e}")))?;
    Ok(match app.resume_line() {
        Some(Ok(line)) => Output {
            stdout: format!("{line}\n"),
            stderr: String::new(),
        },
        Some(Err(why)) => Output {
            stdout: String::new(),
            stderr: format!("no resume command: {why}\n"),
        },
        None => Output::default(),
    })
}
