//! `context` (S-Q2): the hand-off pack of one session — its current surface (what the model
//! sees now: the last compaction summary and what follows, thinking and log-only events left
//! out), newest kept first when the budget is short.

use scry_facts::surfaces::ContextPack;
use scry_facts::ContextFold;
use scry_model::{Event, Header, Warning};
use serde::{Deserialize, Serialize};

use crate::session_read::{self, FnSink};
use crate::{Context, QueryResult};

/// The default character budget of a pack.
pub const DEFAULT_MAX_CHARS: usize = 32_000;

fn default_max_chars() -> usize {
    DEFAULT_MAX_CHARS
}

/// What `context` is asked.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ContextRequest {
    /// Session: full id, provider:id, a unique prefix (≥ 6 characters), or a file path
    pub id: String,
    /// Budget of text characters in the pack
    #[serde(default = "default_max_chars")]
    #[cfg_attr(feature = "cli", arg(long, value_name = "N", default_value_t = DEFAULT_MAX_CHARS))]
    pub max_chars: usize,
}

impl Default for ContextRequest {
    fn default() -> Self {
        ContextRequest {
            id: String::new(),
            max_chars: DEFAULT_MAX_CHARS,
        }
    }
}

/// The answer of [`context`] (`scry context --json`).
#[derive(Debug, Clone, Serialize)]
pub struct ContextReport {
    /// The session header.
    #[serde(serialize_with = "super::ser_header")]
    pub session: Header,
    /// The pack.
    pub context: ContextPack,
    /// Reading warnings.
    #[serde(serialize_with = "super::ser_warnings")]
    pub warnings: Vec<Warning>,
}

/// The hand-off pack of `req.id`. The session streams ([`ContextFold`], equal to
/// `context_pack` of the whole session): the pack holds at most its budget of text.
pub fn context(ctx: &Context, req: &ContextRequest) -> QueryResult<ContextReport> {
    let opened = session_read::open(ctx, &req.id)?;
    let mut fold = ContextFold::new(req.max_chars);
    let mut warnings: Vec<Warning> = Vec::new();
    let header = {
        let mut sink = FnSink {
            on_event: |e: Event| fold.push(&e),
            on_warning: |w: Warning| warnings.push(w),
        };
        opened.stream(&mut sink)?
    };
    Ok(ContextReport {
        context: fold.finish(),
        session: header,
        warnings,
    })
}
