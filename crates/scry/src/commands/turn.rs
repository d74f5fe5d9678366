//! `scry turn <id> <n|a-b>` (S-C4, "layer 3"): the visible dialogue of one or more turns with a
//! directory of their tool calls; `--event` / `--locator` / `--call` read events in full,
//! `--raw` prints the original records, `--artifact` an artifact file. Output is paged to
//! `--max-chars` with a cursor that is refused once the source changed.

use clap::Args;
use scry_query::{ReadRequest, TurnRequest};

use crate::ctx::Ctx;
use crate::error::CliResult;
use crate::output::Output;
use crate::render::Style;
use crate::turn_render;

/// Arguments of `scry turn`: the query's request type (its arguments defined once, in
/// `scry_query::TurnRequest`).
#[derive(Debug, Args)]
pub struct TurnArgs {
    /// What to read.
    #[command(flatten)]
    pub request: TurnRequest,
}

impl TurnArgs {
    /// The read these arguments ask for.
    pub fn request(&self) -> CliResult<ReadRequest> {
        self.request
            .read("give a turn number, --event, --locator, --call or --artifact")
            .map_err(Into::into)
    }
}

/// Runs `scry turn`.
pub fn run(ctx: &Ctx, args: &TurnArgs) -> CliResult<Output> {
    let page = scry_query::read(ctx, &args.request()?)?;
    if ctx.json {
        return Ok(crate::output::json_out(&page.to_json()).into());
    }
    Ok(turn_render::text(&page, Style::new(ctx.color)))
}
