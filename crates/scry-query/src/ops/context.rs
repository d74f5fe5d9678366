//! `context` (S-Q2): the hand-off pack of one session — its current surface (what the model
//! sees now: the last compaction summary and what follows, thinking and log-only events left
//! out), newest kept first when the budget is short.

use scry_facts::context_pack;
use scry_facts::surfaces::ContextPack;
use scry_model::{Header, Warning};
use serde::{Deserialize, Serialize};

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

/// The hand-off pack of `req.id`.
pub fn context(ctx: &Context, req: &ContextRequest) -> QueryResult<ContextReport> {
    let l = super::load(ctx, &req.id)?;
    Ok(ContextReport {
        context: context_pack(&l.session, req.max_chars),
        session: l.session.header,
        warnings: l.session.warnings,
    })
}
