//! `scry inspect`: the Deep Agents thread inspector (S-L5), argument for argument, field for
//! field, message for message compatible with `inspect_sessions.py` of deepagents-code 0.1.57,
//! except where LangGraph's own rebuild proves that script wrong (see `scry_langgraph::inspect`).
//! Errors keep the script's own messages, so scripts written against it keep working; the exit
//! code is the script's (1) except for "not found" and "ambiguous", which exit 3 as every scry
//! command does (SPEC §3). With `--json` an error is also scry's JSON error object on stdout,
//! with its S-Q7 code (`SESSION_NOT_FOUND`, `AMBIGUOUS_ID`).

use std::path::PathBuf;

use clap::Args;
use scry_langgraph::inspect::{self, Failure, Mode};
use scry_model::ErrorCode;

use crate::ctx::Ctx;
use crate::error::{self, CliError, CliResult};
use crate::output::Output;

/// Arguments of `inspect` (the script's names and defaults).
#[derive(Debug, Args)]
pub struct InspectArgs {
    /// Full thread id or a unique prefix.
    pub thread_id: Option<String>,
    /// The sessions database (default: DEEPAGENTS_SESSIONS_DB, $DEEPAGENTS_HOME/.state/sessions.db
    /// or ~/.deepagents/.state/sessions.db).
    #[arg(long)]
    pub db: Option<PathBuf>,
    /// What to print.
    #[arg(long, default_value = "latest-turn", value_parser = ["latest-turn", "summary", "transcript"])]
    pub mode: String,
    /// List the N most recent threads instead of inspecting one.
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub list: Option<i64>,
    /// Truncate message content to this many characters.
    #[arg(long, default_value_t = 4000, allow_negative_numbers = true)]
    pub max_content: i64,
    /// Include checkpoint metadata.
    #[arg(long)]
    pub include_metadata: bool,
}

/// Runs `inspect`.
pub fn run(ctx: &Ctx, args: &InspectArgs) -> CliResult<Output> {
    let parsed = inspect::InspectArgs {
        thread_id: args.thread_id.clone(),
        db: args.db.clone(),
        mode: Mode::parse(&args.mode).unwrap_or_default(),
        list: args.list,
        max_content: args.max_content,
        include_metadata: args.include_metadata,
    };
    let out = inspect::run(&parsed, &ctx.env);
    if out.exit_code != 0 {
        let mut stderr = String::new();
        for line in &out.stderr {
            stderr.push_str(line);
            stderr.push('\n');
        }
        let (code, candidates) = match &out.failure {
            Some(Failure::ThreadNotFound | Failure::DatabaseNotFound) => {
                (Some(ErrorCode::SessionNotFound), Vec::new())
            }
            Some(Failure::Ambiguous(c)) => (Some(ErrorCode::AmbiguousId), c.clone()),
            _ => (None, Vec::new()),
        };
        return Err(match code {
            // scry's contract under --json: the error object on stdout, one line on stderr.
            Some(code) if ctx.json => CliError::Failed(error::Failure {
                code,
                message: match &out.failure {
                    Some(Failure::Ambiguous(c)) => format!(
                        "thread prefix {:?} is ambiguous ({} candidates)",
                        args.thread_id.as_deref().unwrap_or(""),
                        c.len()
                    ),
                    _ => stderr.lines().next().unwrap_or_default().to_string(),
                },
                candidates,
                exit: crate::error::exit_status(code),
            }),
            Some(code) => CliError::Verbatim {
                stderr,
                exit: crate::error::exit_status(code),
            },
            None => CliError::Verbatim {
                stderr,
                exit: out.exit_code,
            },
        });
    }
    let mut stderr = String::new();
    for line in &out.stderr {
        stderr.push_str(line);
        stderr.push('\n');
    }
    Ok(Output {
        stdout: out.stdout,
        stderr,
    })
}
