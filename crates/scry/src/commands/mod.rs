//! One file per command; this module holds the command enum and the dispatch.

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
mod trace;
mod tui;
mod turn;
mod turns;
mod usage;
mod watch;
mod web;
mod workspace;

use clap::Subcommand;

use crate::ctx::Ctx;
use crate::error::CliResult;
use crate::output::Output;

/// `--revision N` of the per-session reads (issue 20).
#[derive(Debug, Clone, Copy, Default, clap::Args)]
pub struct RevisionArg {
    /// Read earlier revision N of the session, kept by the index when its source was rewritten
    /// shorter or changed (1 = the most recent; 0 = the current session)
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub revision: u32,
}

/// The `--revision` a command was given (0 when it takes none).
pub fn revision_of(command: &Command) -> u32 {
    let rev = match command {
        Command::Show(a) => a.rev,
        Command::Turns(a) => a.rev,
        Command::Turn(a) => a.rev,
        Command::Events(a) => a.rev,
        Command::Commands(a) => a.rev,
        Command::Files(a) => a.rev,
        Command::Errors(a) => a.rev,
        Command::Jobs(a) => a.rev,
        Command::Export(a) => a.rev,
        Command::Search(a) => a.rev,
        _ => RevisionArg::default(),
    };
    rev.revision
}

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
    /// Filter a session's events (seq, time, kind, surface, text) or show one event's relations
    Events(events::EventsArgs),
    /// The commands ledger: every shell command, its outcome and output
    Commands(ledger_commands::CommandsArgs),
    /// The files ledger: every file written, grouped project / runtime / log
    Files(ledger_files::FilesArgs),
    /// The errors ledger: every failure and whether it was fixed later
    Errors(ledger_errors::ErrorsArgs),
    /// Background jobs and how they ended (from receipts)
    Jobs(ledger_jobs::JobsArgs),
    /// A compact story of a session: goal, turns, files, failures, final state
    Digest(digest::DigestArgs),
    /// Every session of a directory subtree: timeline and who wrote which file when
    Workspace(workspace::WorkspaceArgs),
    /// A session's edges to other sessions (references, hand-offs, lineage)
    Graph(graph::GraphArgs),
    /// Lineage: ancestors, descendants, root
    Trace(trace::TraceArgs),
    /// The hand-off pack: what the model sees now (current surface)
    Context(context::ContextArgs),
    /// Health of every source: roots, files, parse failures, warnings, unknown records
    Doctor(doctor::DoctorArgs),
    /// Inspect a Deep Agents thread (compatible with deepagents-code's inspect_sessions.py)
    Inspect(inspect::InspectArgs),
    /// Search sessions: literal, regex or terms, grouped by session
    Search(search::SearchArgs),
    /// Back-fill the index (progress bar on a terminal) and print what was done
    Index(index::IndexArgs),
    /// Mirror this machine's index into a team store on PostgreSQL (only changed sessions)
    Push(push::PushArgs),
    /// Serve the read-only HTTP JSON API (loopback; bearer token; OpenAPI at /openapi.json)
    Serve(serve::ServeArgs),
    /// Serve read-only tools to agents over MCP (stdio): bounded, paged, cited, redacted
    Mcp(mcp::McpArgs),
    /// Install, check or remove the scry skill (SKILL.md) in each agent's skills directory
    Skill(skill::SkillArgs),
    /// Print (or run with --exec) the agent's own command to continue a session
    Resume(resume::ResumeArgs),
    /// Export a session as a self-contained Markdown, HTML or JSON document
    Export(export::ExportArgs),
    /// Serve the local web page (loopback): browse, filter and search sessions
    Web(web::WebArgs),
    /// Keep the index current from file notifications until interrupted (read commands then
    /// skip their freshness check)
    Watch(watch::WatchArgs),
    /// Tokens and USD per day, week, month, session or 5-hour block; `statusline` for Claude Code
    Usage(usage::UsageArgs),
    /// Print the shell script that completes scry's commands, flags and session ids
    Completions(completions::CompletionsArgs),
    /// Print scry's man page, or write one per command with --out DIR
    Man(man::ManArgs),
    /// Show the config file's path and the effective settings, or edit it (--edit)
    Config(config::ConfigArgs),
    /// Browse, search and read sessions in a full-screen terminal UI
    Tui(tui::TuiArgs),
}

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

/// Whether `command` prints long text worth a pager on a terminal ([`crate::pager`]): the
/// session readers, the ledgers, search and export to stdout. The servers, `watch`, `events
/// --follow`, `resume --exec`, `config --edit` and the generators never page.
pub fn pages(command: &Command) -> bool {
    match command {
        Command::List(_)
        | Command::Show(_)
        | Command::Turns(_)
        | Command::Turn(_)
        | Command::Commands(_)
        | Command::Files(_)
        | Command::Errors(_)
        | Command::Jobs(_)
        | Command::Digest(_)
        | Command::Workspace(_)
        | Command::Graph(_)
        | Command::Trace(_)
        | Command::Context(_)
        | Command::Doctor(_)
        | Command::Search(_) => true,
        Command::Events(args) => !args.follow,
        Command::Export(args) => args.output.is_none(),
        Command::Usage(args) => args.what != usage::What::Statusline,
        _ => false,
    }
}
