//! One file per command; this module holds the command enum and the dispatch.

mod list;
mod show;
mod turn;
mod turns;

use clap::Subcommand;

use crate::app::Ctx;
use crate::error::CliResult;

/// Every command.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// List recent sessions (newest first)
    List(list::ListArgs),
    /// Show a session's overview: stats, goal, final answer, sources
    Show(show::ShowArgs),
    /// Show a session turn by turn
    Turns(turns::TurnsArgs),
    /// Read one turn (or events) in full, paged
    Turn(turn::TurnArgs),
}

/// What a command prints: its output on stdout, and notes for people (warnings, "more
/// available") on stderr.
#[derive(Debug, Default)]
pub struct Output {
    /// The result.
    pub stdout: String,
    /// Notes, already formatted (one per line).
    pub stderr: String,
}

impl From<String> for Output {
    fn from(stdout: String) -> Self {
        Output {
            stdout,
            stderr: String::new(),
        }
    }
}

/// Runs `command` and returns what to print.
pub fn run(ctx: &Ctx, command: &Command) -> CliResult<Output> {
    match command {
        Command::List(args) => list::run(ctx, args),
        Command::Show(args) => show::run(ctx, args),
        Command::Turns(args) => turns::run(ctx, args),
        Command::Turn(args) => turn::run(ctx, args),
    }
}

/// Serializes a JSON value followed by a newline.
pub fn json_out(v: &serde_json::Value) -> String {
    let mut s = serde_json::to_string_pretty(v).unwrap_or_else(|_| "null".to_string());
    s.push('\n');
    s
}
