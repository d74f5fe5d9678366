//! The command enum of the command line ([`Command`]: one variant per command, its arguments
//! from that command's module) and what the caller needs to know of a command before running
//! it ([`revision_of`], [`pages`]). The dispatch is [`super::run`].

use clap::Subcommand;

use super::{
    completions, config, context, digest, doctor, events, export, graph, index, inspect,
    ledger_commands, ledger_errors, ledger_files, ledger_jobs, list, man, mcp, push, resume,
    search, serve, show, skill, trace, tui, turn, turns, usage, watch, web, workspace,
};

/// The `--revision` a command was given (0 when it takes none).
pub fn revision_of(command: &Command) -> u32 {
    match command {
        Command::Show(a) => a.request.revision,
        Command::Turns(a) => a.request.revision,
        Command::Turn(a) => a.request.revision,
        Command::Events(a) => a.request.revision,
        Command::Commands(a) => a.request.revision,
        Command::Files(a) => a.request.revision,
        Command::Errors(a) => a.request.revision,
        Command::Jobs(a) => a.request.revision,
        Command::Export(a) => a.revision,
        Command::Search(a) => a.request.revision,
        _ => 0,
    }
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
