//! `jobs` (S-C6, S-F4): the background jobs of one session — what was started in the
//! background and how it ended, from receipts only (no receipt = `unknown`).

use scry_facts::{Facts, Job};
use scry_model::{Header, Session, Warning};
use serde::{Deserialize, Serialize};

use crate::{Context, QueryResult};

/// What `jobs` is asked.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct JobsRequest {
    /// Session: full id, provider:id, a unique prefix (≥ 6 characters), or a file path
    pub id: String,
    /// Read earlier revision N of the session, kept by the index when its source was rewritten
    /// shorter or changed (1 = the most recent; 0 = the current session)
    #[serde(default)]
    #[cfg_attr(feature = "cli", arg(long, value_name = "N", default_value_t = 0))]
    pub revision: u32,
}

/// The answer of [`jobs`] (`scry jobs --json`).
#[derive(Debug, Clone, Serialize)]
pub struct JobsReport {
    /// The session header.
    #[serde(serialize_with = "super::ser_header")]
    pub session: Header,
    /// Every background job, in order.
    pub jobs: Vec<Job>,
    /// Reading warnings.
    #[serde(serialize_with = "super::ser_warnings")]
    pub warnings: Vec<Warning>,
}

/// The background jobs of `req.id`.
pub fn jobs(ctx: &Context, req: &JobsRequest) -> QueryResult<JobsReport> {
    let mut l = super::load_ledgers(ctx, &req.id)?;
    super::use_index(ctx, &mut l);
    Ok(jobs_of(req, l.session, l.facts))
}

/// [`jobs`] of a session already read (header and warnings) with its facts.
pub fn jobs_of(_req: &JobsRequest, session: Session, facts: Facts) -> JobsReport {
    JobsReport {
        jobs: facts.jobs,
        session: session.header,
        warnings: session.warnings,
    }
}
