//! `scry events <id>` (S-Q4): one session's events by seq range, time range, kind, surface and
//! a text clause, one small row each (number, turn, time, kind, tool, surface, a preview), paged
//! with `--limit` and a cursor; `scry events <id> --relations <seq>` (S-Q6): one event's
//! surface, replacement chain, compaction group and source / derived events. Both answer
//! through the query crate (`scry_query::events`, `scry_query::relations`).
//! `scry events <id> --follow` prints the page, then the session's new events as they are
//! written ([`follow`]).

mod follow;
mod text;

use clap::Args;
use scry_query::events::relations::parse_target;
use scry_query::EventsRequest;

use crate::ctx::Ctx;
use crate::error::CliResult;
use crate::output::Output;
use crate::render::Style;

pub(super) use text::{page_text, relations_text};

/// Arguments of `scry events`: the query's request type (its flags defined once, in
/// `scry_query::EventsRequest`) and `--follow`.
#[derive(Debug, Args)]
pub struct EventsArgs {
    /// The events asked for.
    #[command(flatten)]
    pub request: EventsRequest,
    /// Keep printing new events as the session is written (filters apply); Ctrl-C ends
    // An earlier revision never changes: nothing to follow (issue 20).
    #[arg(long, conflicts_with_all = ["relations", "revision"])]
    pub follow: bool,
}

/// Runs `scry events`.
pub fn run(ctx: &Ctx, args: &EventsArgs) -> CliResult<Output> {
    let s = Style::new(ctx.color);
    let req = &args.request;
    if let Some(target) = &req.relations {
        let r = scry_query::relations(ctx, &req.id, parse_target(target)?)?;
        if ctx.json {
            return Ok(crate::output::json_out(&r.to_json()).into());
        }
        return Ok(relations_text(&r, s));
    }
    let (q, page) = (&req.filter, req.page());
    if args.follow {
        return follow::run(ctx, &req.id, q, &page, s);
    }
    let p = scry_query::events(ctx, &req.id, q, &page)?;
    if ctx.json {
        return Ok(crate::output::json_out(&p.to_json()).into());
    }
    Ok(page_text(&p, s))
}
