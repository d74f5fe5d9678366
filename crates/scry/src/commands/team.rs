//! The read commands over a team store (`--store <postgres-url>` / `SCRY_STORE`, issue 22):
//! [`run`] answers every command that reads sessions from the store — each asks `scry_team`
//! for the report the local query door gives and prints it with the command's own renderer
//! (JSON: each session carries its `machine`; text: a machine column or line) — and refuses,
//! one line and exit 2, the ones the store does not serve. Commands about this machine (index,
//! push, watch, doctor, config, …), the servers and `tui` (which read `ctx.store` themselves:
//! the TUI through [`super::team_tui`]) are left to their own code.

use scry_model::ErrorCode;
use scry_query::turns::{KEEP_JSON, KEEP_TEXT};
use scry_team::inside;
use scry_team::read::{self, Sessions, Store, Team};

use super::command::Command;
use crate::ctx::Ctx;
use crate::error::{CliError, CliResult};
use crate::output::{json_out, Output};
use crate::render::Style;

/// Answers `command` from the team store at `url`, or `None` when the command does not read
/// sessions from a store (it runs as without `--store`).
pub fn run(ctx: &Ctx, url: &str, command: &Command) -> Option<CliResult<Output>> {
    let refused = |name: &str| -> CliResult<Output> {
        Err(CliError::usage(
            ErrorCode::InvalidQuery,
            format!(
                "`scry {name}` does not read from a team store (--store / SCRY_STORE): \
                 list, show, turns, turn, events, commands, files, errors, jobs, search, usage, \
                 serve, web, mcp and tui do"
            ),
        ))
    };
    Some(match command {
        Command::List(a) => list(ctx, url, a),
        Command::Show(a) => show(ctx, url, a),
        Command::Turns(a) => turns(ctx, url, a),
        Command::Turn(a) => turn(ctx, url, a),
        Command::Events(a) => events(ctx, url, a),
        Command::Commands(a) => {
            let team = open(url).and_then(|mut s| Ok(inside::commands(&mut s, &a.request)?));
            one(ctx, team, super::ledger_commands::text)
        }
        Command::Files(a) => {
            let team = open(url).and_then(|mut s| Ok(inside::files(&mut s, &a.request)?));
            one(ctx, team, super::ledger_files::text)
        }
        Command::Errors(a) => {
            let team = open(url).and_then(|mut s| Ok(inside::errors(&mut s, &a.request)?));
            one(ctx, team, super::ledger_errors::text)
        }
        Command::Jobs(a) => {
            let team = open(url).and_then(|mut s| Ok(inside::jobs(&mut s, &a.request)?));
            one(ctx, team, super::ledger_jobs::text)
        }
        Command::Search(a) => search(ctx, url, a),
        Command::Usage(a) => usage(ctx, url, a),
        Command::Digest(_) => refused("digest"),
        Command::Workspace(_) => refused("workspace"),
        Command::Graph(_) => refused("graph"),
        Command::Trace(_) => refused("trace"),
        Command::Context(_) => refused("context"),
        Command::Inspect(_) => refused("inspect"),
        Command::Resume(_) => refused("resume"),
        Command::Export(_) => refused("export"),
        _ => return None,
    })
}

fn open(url: &str) -> CliResult<Store> {
    Ok(Store::open(url)?)
}

/// A one-session report: its JSON with `machine`, or its text with a `machine` line after
/// the title.
fn one<T: Sessions>(
    ctx: &Ctx,
    team: CliResult<Team<T>>,
    text: impl FnOnce(&T, Style) -> String,
) -> CliResult<Output> {
    let team = team?;
    if ctx.json {
        return Ok(json_out(&team.to_json()).into());
    }
    let out = text(&team.report, Style::new(ctx.color));
    Ok(with_machine(out.into(), &team.machines))
}

/// `out` with a `machine` line after its first line (the session's title).
fn with_machine(mut out: Output, machines: &[String]) -> Output {
    let at = out.stdout.find('\n').map_or(out.stdout.len(), |i| i + 1);
    out.stdout
        .insert_str(at, &format!("{:<10}{}\n", "machine", machines.join(", ")));
    out
}

/// `list --store`.
fn list(ctx: &Ctx, url: &str, args: &super::list::ListArgs) -> CliResult<Output> {
    let mut store = open(url)?;
    let team = read::list(
        ctx,
        &mut store,
        &args.query(),
        args.request.machine.as_deref(),
    )?;
    if ctx.json {
        return Ok(json_out(&team.to_json()).into());
    }
    let global = args.request.filter.global();
    Ok(super::list::text(
        &team.report,
        global,
        &team.machines,
        Style::new(ctx.color),
    ))
}

/// `show --store`.
fn show(ctx: &Ctx, url: &str, args: &super::show::ShowArgs) -> CliResult<Output> {
    let team = open(url).and_then(|mut s| Ok(read::overview(ctx, &mut s, &args.request.id)?));
    one(ctx, team, |ov, s| {
        super::show::text(&ov.header, &ov.stats, &ov.card, &ov.cost, s)
    })
}

/// `turns --store`.
fn turns(ctx: &Ctx, url: &str, args: &super::turns::TurnsArgs) -> CliResult<Output> {
    let keep = if ctx.json { KEEP_JSON } else { KEEP_TEXT };
    let team = open(url).and_then(|mut s| Ok(read::turns(&mut s, &args.request.id, keep)?));
    let team = team?;
    if ctx.json {
        return Ok(json_out(&team.to_json()).into());
    }
    let d = &team.report;
    let out = super::turns::text(
        &d.header,
        &d.rows,
        &d.sums,
        &d.warnings,
        Style::new(ctx.color),
    );
    Ok(with_machine(out, &team.machines))
}

/// `turn --store`.
fn turn(ctx: &Ctx, url: &str, args: &super::turn::TurnArgs) -> CliResult<Output> {
    let req = args.request()?;
    let team = open(url).and_then(|mut s| Ok(inside::read(&mut s, &req)?))?;
    if ctx.json {
        return Ok(json_out(&team.to_json()).into());
    }
    let out = crate::turn_render::text(&team.report, Style::new(ctx.color));
    Ok(with_machine(out, &team.machines))
}

/// `events --store` (and `--relations`; `--follow` follows a file on this machine: refused).
fn events(ctx: &Ctx, url: &str, args: &super::events::EventsArgs) -> CliResult<Output> {
    if args.follow {
        return Err(CliError::usage(
            ErrorCode::InvalidQuery,
            "`events --follow` follows a session file on this machine: it does not read from a team store",
        ));
    }
    let s = Style::new(ctx.color);
    let mut store = open(url)?;
    let req = &args.request;
    if let Some(target) = &req.relations {
        let seq = scry_query::events::relations::parse_target(target)?;
        let team = inside::relations(&mut store, &req.id, seq)?;
        if ctx.json {
            return Ok(json_out(&team.to_json()).into());
        }
        return Ok(with_machine(
            super::events::relations_text(&team.report, s),
            &team.machines,
        ));
    }
    let team = inside::events(&mut store, &req.id, &req.filter, &req.page())?;
    if ctx.json {
        return Ok(json_out(&team.to_json()).into());
    }
    Ok(with_machine(
        super::events::page_text(&team.report, s),
        &team.machines,
    ))
}

/// `search --store`.
fn search(ctx: &Ctx, url: &str, args: &super::search::SearchArgs) -> CliResult<Output> {
    let mut store = open(url)?;
    let team = read::search(
        ctx,
        &mut store,
        &args.query(),
        args.request.machine.as_deref(),
    )?;
    if ctx.json {
        return Ok(json_out(&team.to_json()).into());
    }
    Ok(super::search::text(
        &team.report,
        &team.machines,
        Style::new(ctx.color),
        ctx.color,
    ))
}

/// `usage --store` (`statusline` reads this machine's current session: refused).
fn usage(ctx: &Ctx, url: &str, args: &super::usage::UsageArgs) -> CliResult<Output> {
    if args.what == super::usage::What::Statusline {
        return Err(CliError::usage(
            ErrorCode::InvalidQuery,
            "`usage statusline` reports this machine's current session: it does not read from a team store",
        ));
    }
    let req = args.request();
    let pricing = super::usage::pricing(&ctx.query)?;
    let mut store = open(url)?;
    let r = inside::usage(&mut store, &req, &pricing, None)?;
    super::usage::output(ctx, args, &r)
}
