//! `commands` (S-C6, S-F2): the commands ledger of one session — every shell command with its
//! outcome, exit code (unknown stays unknown), duration, host and an output excerpt, filtered
//! by failure, turn and host; rows carry provenance, extractor and evidence handle (S-F1).

use scry_facts::{CommandFilter, CommandRow, Facts};
use scry_model::{Header, Session, Warning};
use serde::{Deserialize, Serialize};

use crate::{Context, QueryResult};

/// What `commands` is asked: the CLI flags, HTTP parameters and MCP arguments of the same names.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct CommandsRequest {
    /// Session: full id, provider:id, a unique prefix (≥ 6 characters), or a file path
    pub id: String,
    /// Only commands that failed (exit code ≠ 0, or the agent's error flag)
    #[serde(default)]
    #[cfg_attr(feature = "cli", arg(long))]
    pub failed: bool,
    /// Only commands of this turn
    #[serde(default)]
    #[cfg_attr(feature = "cli", arg(long, value_name = "N"))]
    pub turn: Option<u32>,
    /// Only commands run on this host (ssh / scp; `user@host` accepted)
    #[serde(default)]
    #[cfg_attr(feature = "cli", arg(long, value_name = "HOST"))]
    pub host: Option<String>,
    /// Read earlier revision N of the session, kept by the index when its source was rewritten
    /// shorter or changed (1 = the most recent; 0 = the current session)
    #[serde(default)]
    #[cfg_attr(feature = "cli", arg(long, value_name = "N", default_value_t = 0))]
    pub revision: u32,
}

/// The filter a [`CommandsReport`] echoes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CommandsFilter {
    /// `--failed`.
    pub failed: bool,
    /// `--turn`.
    pub turn: Option<u32>,
    /// `--host`.
    pub host: Option<String>,
}

/// The counts of a [`CommandsReport`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct CommandTotals {
    /// Rows shown (after the filter).
    pub shown: usize,
    /// Commands of the session.
    pub commands: usize,
    /// Failed commands of the session.
    pub failed: usize,
}

/// The answer of [`commands`] (`scry commands --json`).
#[derive(Debug, Clone, Serialize)]
pub struct CommandsReport {
    /// The session header.
    #[serde(serialize_with = "super::ser_header")]
    pub session: Header,
    /// The commands that pass the filter, in order.
    pub commands: Vec<CommandRow>,
    /// Counts.
    pub total: CommandTotals,
    /// The filter applied.
    pub filter: CommandsFilter,
    /// Reading warnings.
    #[serde(serialize_with = "super::ser_warnings")]
    pub warnings: Vec<Warning>,
}

/// The commands ledger of `req.id`.
pub fn commands(ctx: &Context, req: &CommandsRequest) -> QueryResult<CommandsReport> {
    let mut l = super::load_ledgers(ctx, &req.id)?;
    super::use_index(ctx, &mut l);
    Ok(commands_of(req, l.session, &l.facts))
}

/// [`commands`] of a session already read (header and warnings) with its facts.
pub fn commands_of(req: &CommandsRequest, session: Session, facts: &Facts) -> CommandsReport {
    let filter = CommandFilter {
        failed: req.failed,
        turn: req.turn,
        host: req.host.clone(),
    };
    let all = &facts.commands;
    let rows: Vec<CommandRow> = filter.apply(all).into_iter().cloned().collect();
    CommandsReport {
        total: CommandTotals {
            shown: rows.len(),
            commands: all.len(),
            failed: all.iter().filter(|c| c.failed()).count(),
        },
        commands: rows,
        filter: CommandsFilter {
            failed: req.failed,
            turn: req.turn,
            host: req.host.clone(),
        },
        session: session.header,
        warnings: session.warnings,
    }
}
