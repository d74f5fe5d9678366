//! `scry turn <id> <n|a-b>` (S-C4, "layer 3"): the visible dialogue of one or more turns with a
//! directory of their tool calls; `--event` / `--locator` / `--call` read events in full,
//! `--raw` prints the original records, `--artifact` an artifact file. Output is paged to
//! `--max-chars` with a cursor that is refused once the source changed.

use clap::Args;
use scry_model::ErrorCode;
use scry_query::{ReadRequest, Selector};

use crate::ctx::Ctx;
use crate::error::{CliError, CliResult};
use crate::output::Output;
use crate::render::Style;
use crate::turn_render;

/// Arguments of `scry turn`.
#[derive(Debug, Args)]
pub struct TurnArgs {
    /// Session: full id, provider:id, a unique prefix (≥ 6 characters), or a file path
    pub id: String,
    /// Turn number or range (`3`, `2-4`; 0 is the preamble)
    #[arg(required_unless_present_any = ["event", "locator", "call", "artifact"])]
    pub turns: Option<String>,
    /// Read events in full by number: `7`, `5-9`, `3,8,12` (at most 50)
    #[arg(long, value_name = "K|A-B|A,B,C", conflicts_with_all = ["turns", "locator", "call", "artifact"])]
    pub event: Option<String>,
    /// Read the event(s) with this locator
    #[arg(long, value_name = "L", conflicts_with_all = ["turns", "call", "artifact"])]
    pub locator: Option<String>,
    /// Read the tool call and result with this call id
    #[arg(long, value_name = "ID", conflicts_with_all = ["turns", "artifact"])]
    pub call: Option<String>,
    /// Print an artifact file the session lists
    #[arg(long, value_name = "PATH", conflicts_with_all = ["turns", "raw"])]
    pub artifact: Option<String>,
    /// Print the original source records instead of the normalized text
    #[arg(long)]
    pub raw: bool,
    /// Page size in characters
    #[arg(long, default_value_t = 32_000)]
    pub max_chars: usize,
    /// Continue where a previous page stopped
    #[arg(long, value_name = "C")]
    pub cursor: Option<String>,
    /// Which revision of the session (issue 20).
    #[command(flatten)]
    pub rev: super::RevisionArg,
}

impl TurnArgs {
    /// The read these arguments ask for.
    pub fn request(&self) -> CliResult<ReadRequest> {
        let selector = if let Some(e) = &self.event {
            Selector::Events(e.clone())
        } else if let Some(l) = &self.locator {
            Selector::Locator(l.clone())
        } else if let Some(c) = &self.call {
            Selector::Call(c.clone())
        } else if let Some(a) = &self.artifact {
            Selector::Artifact(a.clone())
        } else if let Some(t) = &self.turns {
            Selector::Turns(t.clone())
        } else {
            return Err(CliError::usage(
                ErrorCode::InvalidQuery,
                "give a turn number, --event, --locator, --call or --artifact",
            ));
        };
        Ok(ReadRequest {
            id: self.id.clone(),
            selector,
            raw: self.raw,
            max_chars: self.max_chars,
            cursor: self.cursor.clone(),
        })
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
