//! `errors` (S-C6, S-F4): the errors ledger of one session — every failing tool result (exit
//! code ≠ 0, or an unknown exit code with the agent's error flag), its output, and whether a
//! later call with the same command prefix / file succeeded ("fixed later").

use scry_facts::{Facts, Failure};
use scry_model::{Header, Session, Warning};
use serde::{Deserialize, Serialize};

use crate::{Context, QueryResult};

/// What `errors` is asked.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ErrorsRequest {
    /// Session: full id, provider:id, a unique prefix (≥ 6 characters), or a file path
    pub id: String,
    /// Read earlier revision N of the session, kept by the index when its source was rewritten
    /// shorter or changed (1 = the most recent; 0 = the current session)
    #[serde(default)]
    #[cfg_attr(feature = "cli", arg(long, value_name = "N", default_value_t = 0))]
    pub revision: u32,
}

/// The counts of an [`ErrorsReport`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ErrorTotals {
    /// Failures of the session.
    pub failures: usize,
    /// Of them, fixed later.
    pub fixed_later: usize,
}

/// The answer of [`errors`] (`scry errors --json`).
#[derive(Debug, Clone, Serialize)]
pub struct ErrorsReport {
    /// The session header.
    #[serde(serialize_with = "super::ser_header")]
    pub session: Header,
    /// Every failure, in order.
    pub failures: Vec<Failure>,
    /// Counts.
    pub total: ErrorTotals,
    /// Reading warnings.
    #[serde(serialize_with = "super::ser_warnings")]
    pub warnings: Vec<Warning>,
}

/// The errors ledger of `req.id`.
pub fn errors(ctx: &Context, req: &ErrorsRequest) -> QueryResult<ErrorsReport> {
    let mut l = super::load_ledgers(ctx, &req.id)?;
    super::use_index(ctx, &mut l);
    Ok(errors_of(req, l.session, l.facts))
}

/// [`errors`] of a session already read (header and warnings) with its facts.
pub fn errors_of(_req: &ErrorsRequest, session: Session, facts: Facts) -> ErrorsReport {
    let failures = facts.failures;
    ErrorsReport {
        total: ErrorTotals {
            failures: failures.len(),
            fixed_later: failures.iter().filter(|f| f.fixed_later()).count(),
        },
        failures,
        session: session.header,
        warnings: session.warnings,
    }
}
