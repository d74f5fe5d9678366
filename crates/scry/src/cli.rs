//! The argument grammar: global flags (defined once, accepted before or after the command) and
//! the command enum. Each command's own arguments live beside its code in `commands/`.
//!
//! [`command`] is the one `clap::Command` every generated artifact comes from: parsing, `--help`,
//! the shell completions (`scry completions`, `SCRY_COMPLETE=<shell> scry`) and the man pages
//! (`scry man`), so the three never disagree.

use clap::{Args, CommandFactory, Parser};

use crate::commands::Command;

/// Read the session histories AI coding agents leave on disk.
#[derive(Debug, Parser)]
#[command(name = "scry", version, about, propagate_version = true)]
pub struct Cli {
    /// Flags every command accepts.
    #[command(flatten)]
    pub global: GlobalArgs,
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// Flags shared by every command.
#[derive(Debug, Clone, Args)]
pub struct GlobalArgs {
    /// Print JSON (a stable contract) instead of text for people.
    #[arg(long, global = true)]
    pub json: bool,
    /// Read the built-in demo sessions instead of this machine's.
    #[arg(long, global = true)]
    pub demo: bool,
    /// Never color the output (NO_COLOR is honoured too).
    #[arg(long, global = true)]
    pub no_color: bool,
    /// Never page long text output (on a terminal it goes through $SCRY_PAGER, $PAGER or
    /// `less -FRX`).
    #[arg(long, global = true)]
    pub no_pager: bool,
    /// Read the sources directly: neither use nor update the index.
    #[arg(long, global = true)]
    pub no_index: bool,
    /// Check the sources' freshness even while a watcher (`scry watch`) keeps the index current.
    #[arg(long, global = true)]
    pub refresh: bool,
    /// Leave out every source of this provider (repeatable; adds to the config file's list).
    #[arg(long = "exclude-provider", value_name = "PROVIDER", global = true)]
    pub exclude_provider: Vec<String>,
    /// Leave out sources whose path matches this glob (repeatable; `**` crosses directories).
    #[arg(long = "exclude-path", value_name = "GLOB", global = true)]
    pub exclude_path: Vec<String>,
    /// Leave out sessions whose working directory is in this subtree (repeatable).
    #[arg(long = "exclude-project", value_name = "DIR", global = true)]
    pub exclude_project: Vec<String>,
    /// Read from a team store (`postgres://…`, filled by `scry push`) instead of this machine's
    /// sessions: the session readers, ledgers, search, usage, serve, web, mcp and tui.
    #[arg(
        long,
        global = true,
        env = "SCRY_STORE",
        value_name = "URL",
        hide_env_values = true
    )]
    pub store: Option<String>,
}

/// The full grammar, with the dynamic completers attached: every session reference (the `id`
/// positionals and `--session`) completes ids from the index, every provider option completes
/// provider names. Attached here by argument name, so a command's own file needs no change.
pub fn command() -> clap::Command {
    with_completers(Cli::command())
}

fn with_completers(cmd: clap::Command) -> clap::Command {
    use crate::commands::completions::{complete_providers, complete_session};
    use clap_complete::engine::ArgValueCompleter;
    cmd.mut_args(|arg| match arg.get_id().as_str() {
        "id" | "session" => arg.add(ArgValueCompleter::new(complete_session)),
        "provider" | "exclude_provider" => arg.add(ArgValueCompleter::new(complete_providers)),
        _ => arg,
    })
    .mut_subcommands(with_completers)
}
