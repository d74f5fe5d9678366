//! The numbers of `scry usage statusline` (Claude Code's statusline hook): this session's cost
//! (subagents folded in), today's cost across every agent read, and the active 5-hour block's
//! cost and burn rate. One read of the sessions active since the earlier of local midnight and
//! ten hours ago (a block that holds now started at most five hours ago): from the index's
//! ledger when it holds the hook's session ([`super::recent`]), else a full read.

use jiff::tz::TimeZone;
use jiff::{SignedDuration, Timestamp};
use serde::Serialize;

use super::blocks::Burn;
use super::price::PriceTable;
use super::report::{build, By, Period, Pricing, UsageRequest};
use super::{collect, Ledger};
use crate::error::QueryResult;
use crate::Context;

/// The active block of the statusline.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BlockLine {
    /// Its cost so far (`None`: nothing in it was priced).
    pub cost_usd: Option<f64>,
    /// Burn rate and projection.
    pub burn: Burn,
}

/// The statusline's numbers.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Statusline {
    /// The session's cost (`None`: not found, or nothing priced).
    pub session_cost: Option<f64>,
    /// Today's cost.
    pub today_cost: Option<f64>,
    /// The active block, if any.
    pub block: Option<BlockLine>,
}

/// The statusline of Claude Code session `session_id` at `pricing.now` (the clock's when
/// `None`).
pub fn statusline(
    ctx: &Context,
    req: &UsageRequest,
    pricing: &Pricing,
    tz: &TimeZone,
    session_id: &str,
) -> QueryResult<Statusline> {
    let now = pricing.now.unwrap_or_else(Timestamp::now);
    let midnight = now
        .to_zoned(tz.clone())
        .start_of_day()
        .map(|z| z.timestamp())
        .unwrap_or(now);
    let block_from = now
        .checked_sub(SignedDuration::from_hours(10))
        .unwrap_or(now);
    let providers = crate::filter::providers(req.provider.as_deref())?;
    let from = midnight.min(block_from);
    // The index's active sessions when it can answer (no catalog of every source), else the
    // full read.
    let (sessions, warnings) = match super::recent::collect(ctx, &providers, from, session_id)? {
        Some(read) => read,
        None => collect(ctx, &providers, Some(from), Some(session_id))?,
    };
    let table = PriceTable::with_custom(&pricing.prices);
    let run = |period: Period, since: Option<Timestamp>| {
        let r = UsageRequest {
            period,
            by: Some(By::Model),
            ..req.clone()
        };
        build(
            &r,
            &table,
            tz,
            now,
            since,
            None,
            &sessions,
            &Ledger::held(),
            warnings.clone(),
        )
    };
    let session_rows = run(Period::Session, None);
    let session_cost = session_rows
        .rows
        .iter()
        .find(|r| {
            r.session
                .as_ref()
                .is_some_and(|s| s.id == session_id && !session_id.is_empty())
        })
        .and_then(|r| r.cost_usd);
    let today = run(Period::Daily, Some(midnight));
    let today_cost = if today.rows.is_empty() {
        Some(0.0)
    } else {
        today.totals.cost_usd
    };
    let blocks = run(Period::Blocks, Some(block_from));
    let block = blocks.rows.iter().find_map(|r| {
        r.burn.clone().map(|burn| BlockLine {
            cost_usd: r.cost_usd,
            burn,
        })
    });
    Ok(Statusline {
        session_cost,
        today_cost,
        block,
    })
}
