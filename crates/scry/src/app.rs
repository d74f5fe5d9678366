//! Runs one invocation: parse arguments, build the context (environment, demo home, color), run
//! the command, print its output, and map failures to stderr / JSON / exit codes.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;

use clap::error::ErrorKind;
use clap::Parser;
use scry_model::ErrorCode;
use scry_source::Env;

use crate::cli::Cli;
use crate::commands::Command;
use crate::ctx::Ctx;
use crate::error::{CliError, CliResult};

/// Runs the process's command line and returns the exit status.
pub fn run() -> i32 {
    // A shell asking for completions (`SCRY_COMPLETE=<shell> scry -- <words…>`, see
    // `scry completions`): answer and exit before anything else runs.
    clap_complete::CompleteEnv::with_factory(crate::cli::command)
        .var(crate::commands::completions::VAR)
        .complete();
    let raw: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let wants_json = raw
        .iter()
        .skip(1)
        .take_while(|a| *a != "--")
        .any(|a| a == "--json");
    let cli = match Cli::try_parse_from(&raw) {
        Ok(cli) => cli,
        Err(e) => return clap_failure(e, wants_json),
    };
    let json = cli.global.json;
    let pager = (!json
        && !cli.global.no_pager
        && crate::commands::pages(&cli.command)
        && std::io::stdout().is_terminal())
    .then(|| crate::pager::command(&Env::from_process()))
    .flatten();
    let result = build_ctx(&cli)
        .and_then(|ctx| crate::commands::run(&ctx, &cli.command, crate::cli::command));
    let outcome = result.and_then(|out| match &pager {
        Some(cmd) => crate::pager::write(cmd, &out.stdout, &out.stderr),
        None => write_output(&out),
    });
    match outcome {
        Ok(()) => 0,
        Err(e) => report(&e, json),
    }
}

fn build_ctx(cli: &Cli) -> CliResult<Ctx> {
    let process = Env::from_process();
    let edits_config = matches!(&cli.command, Command::Config(a) if a.edit);
    let color = color_enabled(
        cli.global.no_color,
        process.var("NO_COLOR").is_some(),
        std::io::stdout().is_terminal(),
    );
    let env = if cli.global.demo {
        let home = crate::demo::home(&process).map_err(|e| {
            CliError::new(
                ErrorCode::PersistenceFailure,
                format!("cannot extract the demo sessions: {e}"),
            )
        })?;
        // The demo's Aider project lies inside the demo home (never the user's directory).
        Env::with_home(home.clone()).with_cwd(home)
    } else if edits_config {
        process
    } else {
        let dirs = scry_sources::config::project_dirs(&process)
            .map_err(|e| CliError::usage(ErrorCode::InvalidFilter, e.to_string()))?;
        process.with_project_dirs(dirs)
    };
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"));
    // Aider histories live in project directories: a `--scope <dir>` elsewhere is walked too.
    let env = match scope_dir(&cli.command, &cwd) {
        Some(dir) if !cli.global.demo => env.with_scope(dir),
        _ => env,
    };
    let flags = scry_sources::ExcludeFlags {
        providers: cli.global.exclude_provider.clone(),
        paths: cli.global.exclude_path.clone(),
        projects: cli
            .global
            .exclude_project
            .iter()
            .map(|p| absolute_project(p, &cwd))
            .collect(),
    };
    // The demo reads only the embedded sessions: the user's config file does not apply there.
    // `config --edit` must open a broken file to fix it: it does not read it first.
    let exclusions = if cli.global.demo || edits_config {
        let mut ex = scry_sources::Exclusions::new();
        ex.add_flags(&env, &flags)
            .map_err(|e| CliError::usage(ErrorCode::InvalidFilter, e.to_string()))?;
        ex
    } else {
        scry_sources::Exclusions::load(&env, &flags)
            .map_err(|e| CliError::usage(ErrorCode::InvalidFilter, e.to_string()))?
    };
    // A live watcher's lease for the same roots and exclusions spares the refresh, unless
    // `--refresh` asks for it.
    let lease = (!cli.global.refresh).then(|| scry_query::lease::digest(&env, &exclusions));
    let query = scry_query::Context {
        env,
        cwd,
        demo: cli.global.demo,
        no_index: cli.global.no_index,
        path_refs: opens_paths(&cli.command),
        exclusions: std::sync::Arc::new(exclusions),
        lease,
        progress: scry_query::progress::Reporter::new(crate::progress::RefreshBars),
        revision: crate::commands::revision_of(&cli.command),
        store: None,
    };
    Ok(Ctx {
        json: cli.global.json,
        color,
        query,
        store: cli.global.store.clone().filter(|s| !s.is_empty()),
    })
}

/// Whether the command's session references may be file paths: every command run from the
/// command line, but not the servers (`serve`, `web`, `mcp`). Their requests resolve ids from
/// discovery alone, including the CLI commands they run in-process with this context.
fn opens_paths(command: &Command) -> bool {
    !matches!(
        command,
        Command::Serve(_) | Command::Web(_) | Command::Mcp(_)
    )
}

/// The directory a command's `--scope` (or `workspace`'s path) names, when it names an existing
/// one other than the keywords (`global`, `/`, `cwd`, `.`): discovery walks it for Aider.
fn scope_dir(command: &Command, cwd: &std::path::Path) -> Option<PathBuf> {
    let value = match command {
        Command::List(a) if !a.request.filter.global => a.request.filter.scope.as_deref(),
        Command::Search(a) if !a.request.global => a.request.scope.as_deref(),
        Command::Index(a) if !a.global => a.scope.as_deref(),
        Command::Workspace(a) => a.request.path.as_deref(),
        _ => None,
    }?;
    if matches!(value, "global" | "/" | "cwd" | ".") {
        return None;
    }
    let dir = cwd.join(value);
    dir.is_dir().then_some(dir)
}

/// `--exclude-project` relative to the current directory becomes absolute; `~/…` and absolute
/// paths are kept for the exclusion rules to expand.
fn absolute_project(p: &str, cwd: &std::path::Path) -> String {
    if p.starts_with('/') || p.starts_with('~') {
        p.to_string()
    } else {
        cwd.join(p).to_string_lossy().into_owned()
    }
}

/// Color only on a terminal, and never with `--no-color` or a non-empty `NO_COLOR`.
fn color_enabled(no_color_flag: bool, no_color_env: bool, terminal: bool) -> bool {
    terminal && !no_color_flag && !no_color_env
}

fn write_output(output: &crate::output::Output) -> CliResult<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(output.stdout.as_bytes())?;
    out.flush()?;
    if !output.stderr.is_empty() {
        let _ = std::io::stderr().write_all(output.stderr.as_bytes());
    }
    Ok(())
}

/// Prints a failure (stderr line, and the JSON object on stdout with `--json`); returns its exit
/// status. A broken pipe prints nothing.
fn report(e: &CliError, json: bool) -> i32 {
    if let CliError::Verbatim { stderr, .. } = e {
        let _ = std::io::stderr().write_all(stderr.as_bytes());
    }
    if let Some(msg) = e.message() {
        if json {
            if let Some(v) = e.to_json() {
                let _ = writeln!(std::io::stdout(), "{v}");
            }
        }
        let _ = writeln!(std::io::stderr(), "error: {msg}");
    }
    e.exit_code()
}

fn clap_failure(e: clap::Error, json: bool) -> i32 {
    match e.kind() {
        ErrorKind::DisplayHelp
        | ErrorKind::DisplayVersion
        | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            let _ = e.print();
            if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
                2
            } else {
                0
            }
        }
        _ => {
            let rendered = e.render().to_string();
            let first = rendered
                .lines()
                .find(|l| !l.trim().is_empty())
                .unwrap_or("invalid arguments");
            let message = first.strip_prefix("error: ").unwrap_or(first).to_string();
            report(&CliError::usage(ErrorCode::InvalidQuery, message), json)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::color_enabled;

    #[test]
    fn color_needs_a_terminal_and_no_opt_out() {
        assert!(color_enabled(false, false, true));
        assert!(!color_enabled(true, false, true));
        assert!(!color_enabled(false, true, true));
        assert!(!color_enabled(false, false, false));
    }
}
