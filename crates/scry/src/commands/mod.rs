//! One file per command; this module holds the command enum and the dispatch.

mod command;
pub mod completions;
mod config;
mod context;
mod digest;
mod doctor;
mod events;
mod export;
mod graph;
mod index;
mod inspect;
mod ledger_commands;
mod ledger_errors;
mod ledger_files;
mod ledger_jobs;
mod list;
mod loaded;
mod man;
mod mcp;
mod prune;
mod push;
mod resume;
mod search;
mod serve;
mod show;
mod skill;
mod team;
mod team_tui;
mod trace;
mod tui;
mod turn;
mod turns;
mod usage;
mod watch;
mod web;
mod workspace;

use crate::ctx::Ctx;
use crate::error::CliResult;
use crate::output::Output;

pub use command::{pages, revision_of, Command};

/// Runs `command` and returns what to print.
///
/// `grammar` is the whole command line's grammar (`crate::cli::command`), handed in by the
/// caller so that no command imports the grammar that imports every command.
pub fn run(ctx: &Ctx, command: &Command, grammar: fn() -> clap::Command) -> CliResult<Output> {
    if let Some(url) = &ctx.store {
        if let Some(answer) = team::run(ctx, url, command) {
            return answer;
        }
    }
    match command {
        Command::List(args) => list::run(ctx, args),
        Command::Show(args) => show::run(ctx, args),
        Command::Turns(args) => turns::run(ctx, args),
        Command::Turn(args) => turn::run(ctx, args),
        Command::Events(args) => events::run(ctx, args),
        Command::Commands(args) => ledger_commands::run(ctx, args),
        Command::Files(args) => ledger_files::run(ctx, args),
        Command::Errors(args) => ledger_errors::run(ctx, args),
        Command::Jobs(args) => ledger_jobs::run(ctx, args),
        Command::Digest(args) => digest::run(ctx, args),
        Command::Workspace(args) => workspace::run(ctx, args),
        Command::Graph(args) => graph::run(ctx, args),
        Command::Trace(args) => trace::run(ctx, args),
        Command::Context(args) => context::run(ctx, args),
        Command::Doctor(args) => doctor::run(ctx, args),
        Command::Inspect(args) => inspect::run(ctx, args),
        Command::Search(args) => search::run(ctx, args),
        Command::Index(args) => index::run(ctx, args),
        Command::Push(args) => push::run(ctx, args),
        Command::Serve(args) => serve::run(ctx, args),
        Command::Mcp(args) => mcp::run(ctx, args),
        Command::Skill(args) => skill::run(ctx, args),
        Command::Resume(args) => resume::run(ctx, args),
        Command::Export(args) => export::run(ctx, args),
        Command::Web(args) => web::run(ctx, args),
        Command::Watch(args) => watch::run(ctx, args),
        Command::Usage(args) => usage::run(ctx, args),
        Command::Completions(args) => completions::run(ctx, args),
        Command::Man(args) => man::run(ctx, args, grammar()),
        Command::Config(args) => config::run(ctx, args),
        Command::Tui(args) => tui::run(ctx, args),
    }
}
