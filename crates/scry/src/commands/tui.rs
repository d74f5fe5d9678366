//! `scry tui` (issue 23): the full-screen terminal browser. This file only maps the flags
//! onto the list query and hands the command's query context (demo, exclusions, index flags)
//! to the scry-tui crate; on exit it prints the resume command of the session opened last,
//! as `scry resume` would.

use std::io::IsTerminal;

use clap::Args;
use scry_model::ErrorCode;
use scry_query::{KindFilter, ListQuery};

use super::Output;
use crate::ctx::Ctx;
use crate::error::{CliError, CliResult};

/// Arguments of `scry tui`.
#[derive(Debug, Args)]
pub struct TuiArgs {
    /// Directory subtree to list (a path, `cwd`, or `global`); default: the current directory
    #[arg(long, value_name = "PATH|cwd|global")]
    pub scope: Option<String>,
    /// List sessions from every directory (same as `--scope global`)
    #[arg(long)]
    pub global: bool,
    /// Only these providers (comma-separated: claude,codex,…)
    #[arg(long, value_name = "P,…")]
    pub provider: Option<String>,
    /// Only sessions updated since then: 30m, 24h, 7d, 2w, or an ISO date / time
    #[arg(long, value_name = "WHEN")]
    pub since: Option<String>,
    /// Session kinds to list; default: main sessions with children folded under their parent
    #[arg(long, value_enum)]
    pub kind: Option<KindFilter>,
}

/// Runs `scry tui`.
pub fn run(ctx: &Ctx, args: &TuiArgs) -> CliResult<Output> {
    if !std::io::stdin().is_terminal() || !std::io::stdout().is_terminal() {
        return Err(CliError::usage(
            ErrorCode::InvalidQuery,
            "scry tui needs a terminal on stdin and stdout (use scry list / search / turn in scripts)",
        ));
    }
    let list = ListQuery {
        scope: args.scope.clone(),
        global: args.global,
        provider: args.provider.clone(),
        since: args.since.clone(),
        kind: args.kind,
        limit: scry_tui::list::LIMIT,
        cursor: None,
        archived: false,
    };
    // Bad filters fail here with their one line and exit code, before the screen is taken.
    scry_query::list(
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
    let app = scry_tui::run(ctx.query.clone(), opts)
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
