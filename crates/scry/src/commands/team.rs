//! The read commands over a team store (`--store <postgres-url>` / `SCRY_STORE`, issue 22):
//! each asks `scry_team::read` for the report the local query door gives, and prints it with
//! the command's own renderer; the JSON adds each session's `machine`.

use scry_team::read::{self, Store};

use crate::ctx::Ctx;
use crate::error::CliResult;
use crate::output::{json_out, Output};
use crate::render::Style;

/// `list --store`.
pub fn list(ctx: &Ctx, url: &str, args: &super::list::ListArgs) -> CliResult<Output> {
    let mut store = Store::open(url)?;
    let team = read::list(ctx, &mut store, &args.query(), args.machine.as_deref())?;
    if ctx.json {
        return Ok(json_out(&team.to_json()).into());
    }
    let global = args.request.filter.global();
    Ok(super::list::text(
        &team.report,
        global,
        Style::new(ctx.color),
    ))
}

/// `show --store`.
pub fn show(ctx: &Ctx, url: &str, args: &super::show::ShowArgs) -> CliResult<Output> {
    let mut store = Store::open(url)?;
    let team = read::overview(ctx, &mut store, &args.request.id)?;
    if ctx.json {
        return Ok(json_out(&team.to_json()).into());
    }
    let ov = &team.report;
    let mut out = super::show::text(
        &ov.header,
        &ov.stats,
        &ov.card,
        &ov.cost,
        Style::new(ctx.color),
    );
    let at = out.find('\n').map_or(out.len(), |i| i + 1);
    out.insert_str(
        at,
        &format!("{:<10}{}\n", "machine", team.machines.join(", ")),
    );
    Ok(out.into())
}

/// `turns --store`.
pub fn turns(
    ctx: &Ctx,
    url: &str,
    args: &super::turns::TurnsArgs,
    keep: usize,
) -> CliResult<Output> {
    let mut store = Store::open(url)?;
    let team = read::turns(&mut store, &args.request.id, keep)?;
    if ctx.json {
        return Ok(json_out(&team.to_json()).into());
    }
    let d = &team.report;
    Ok(super::turns::text(
        &d.header,
        &d.rows,
        &d.sums,
        &d.warnings,
        Style::new(ctx.color),
    ))
}

/// `search --store`.
pub fn search(ctx: &Ctx, url: &str, args: &super::search::SearchArgs) -> CliResult<Output> {
    let mut store = Store::open(url)?;
    let team = read::search(ctx, &mut store, &args.query(), args.machine.as_deref())?;
    if ctx.json {
        return Ok(json_out(&team.to_json()).into());
    }
    Ok(super::search::text(
        &team.report,
        Style::new(ctx.color),
        ctx.color,
    ))
}
