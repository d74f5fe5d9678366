//! `trace` (S-Q6): lineage over the headers of every discovered session — ancestors nearest
//! first, the forest of descendants, and either the root or the first parent id that no
//! discovered session has (never both).

use scry_facts::Trace;
use scry_model::{Header, Warning};
use serde::{Deserialize, Serialize};

use crate::{Context, QueryResult};

/// What `trace` is asked.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct TraceRequest {
    /// Session: full id, provider:id, a unique prefix (≥ 6 characters), or a file path
    pub id: String,
}

/// The answer of [`trace`] (`scry trace --json`).
#[derive(Debug, Clone, Serialize)]
pub struct TraceReport {
    /// The session's header (`null` when only its lineage is known).
    #[serde(serialize_with = "super::ser_opt_header")]
    pub session: Option<Header>,
    /// The lineage.
    pub trace: Trace,
    /// How many session headers were scanned.
    pub sessions_scanned: usize,
    /// Scan warnings.
    #[serde(serialize_with = "super::ser_warnings")]
    pub warnings: Vec<Warning>,
    /// Every scanned header (for labels in text output; not serialized).
    #[serde(skip)]
    pub headers: Vec<Header>,
}

/// The lineage of `req.id` among every discovered session ([`crate::lineage`]).
pub fn trace(ctx: &Context, req: &TraceRequest) -> QueryResult<TraceReport> {
    let l = crate::lineage::lineage(ctx, &req.id)?;
    Ok(TraceReport {
        session: l.header,
        trace: l.trace,
        sessions_scanned: l.headers.len(),
        warnings: l.warnings,
        headers: l.headers,
    })
}
