//! `scry push <postgres-url> [--machine NAME]` (issue 22): mirrors this machine's index into a
//! team store on PostgreSQL ([`scry_team::push`]): only changed sessions are sent, each in one
//! transaction; text is redacted on the way out unless `--reveal`; exclusions apply.
//! `--watch` pushes again every `--interval` seconds until interrupted (each round refreshes
//! the local index as the watcher would, then sends what changed); a round that fails at run
//! time (`PERSISTENCE_FAILURE`: the store unreachable, say) is reported on stderr in one line
//! and retried next round, while any other error (a bad URL or machine name) ends it.

use clap::Args;
use scry_model::ErrorCode;
use scry_team::{PushOptions, PushReport};

use crate::ctx::Ctx;
use crate::error::{CliError, CliResult};
use crate::output::{json_out, Output};

/// Arguments of `scry push`.
#[derive(Debug, Args)]
pub struct PushArgs {
    /// The team store: postgres://user@host:port/database (or SCRY_STORE)
    #[arg(value_name = "URL")]
    pub url: Option<String>,
    /// The machine name the sessions are filed under (default: this host's name)
    #[arg(long, value_name = "NAME")]
    pub machine: Option<String>,
    /// Send raw text: no redaction of secrets on the way out
    #[arg(long)]
    pub reveal: bool,
    /// Keep pushing as the local index changes (every --interval seconds) until interrupted
    #[arg(long)]
    pub watch: bool,
    /// Seconds between pushes with --watch
    #[arg(long, default_value_t = 30, value_name = "S")]
    pub interval: u64,
}

/// This host's name (`/proc/sys/kernel/hostname`, `$HOSTNAME`, else `localhost`).
fn host_name(ctx: &Ctx) -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .or_else(|| ctx.env.var("HOSTNAME").map(str::to_string))
        .unwrap_or_else(|| "localhost".to_string())
}

/// Runs `scry push`.
pub fn run(ctx: &Ctx, args: &PushArgs) -> CliResult<Output> {
    let Some(url) = args.url.clone().or_else(|| ctx.store.clone()) else {
        return Err(CliError::usage(
            ErrorCode::InvalidQuery,
            "scry push needs the team store's URL (postgres://user@host/db) or SCRY_STORE",
        ));
    };
    let opts = PushOptions {
        machine: args.machine.clone().unwrap_or_else(|| host_name(ctx)),
        reveal: args.reveal,
        // A test hook (a push dying mid-session): see `PushOptions::abort_after`.
        abort_after: ctx
            .env
            .var("SCRY_TEST_PUSH_ABORT_AFTER")
            .and_then(|v| v.parse().ok()),
    };
    if !args.watch {
        let report = scry_team::push(ctx, &url, &opts)?;
        return Ok(render(ctx, &report).into());
    }
    loop {
        match scry_team::push(ctx, &url, &opts) {
            Ok(report) if report.sent > 0 || report.removed > 0 => {
                eprint!("{}", render(ctx, &report));
            }
            Ok(_) => {}
            // The store unreachable or failing: said, and tried again next round.
            Err(e) if e.code == ErrorCode::PersistenceFailure => eprintln!(
                "scry push --watch: {} (retrying in {} s)",
                e.message,
                args.interval.max(1)
            ),
            Err(e) => return Err(e.into()),
        }
        std::thread::sleep(std::time::Duration::from_secs(args.interval.max(1)));
    }
}

fn render(ctx: &Ctx, r: &PushReport) -> String {
    if ctx.json {
        return json_out(&serde_json::to_value(r).unwrap_or_default());
    }
    format!(
        "{} sessions sent, {} unchanged, {} removed as machine {} to {} ({} events, {} KB{}, {} ms){}\n",
        r.sent,
        r.unchanged,
        r.removed,
        r.machine,
        r.store,
        r.events,
        r.bytes / 1024,
        if r.redacted { ", redacted" } else { ", raw text" },
        r.elapsed_ms,
        if r.skipped > 0 {
            format!("; {} sources without a session (their parse failed)", r.skipped)
        } else {
            String::new()
        }
    )
}
