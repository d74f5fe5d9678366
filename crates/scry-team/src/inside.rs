//! Reads inside one stored session — `turn` (and the event window), `events`, the ledgers
//! (`commands`, `files`, `errors`, `jobs`) — and `usage` over the stored sessions, from the team
//! store: scry-query's own operations run over the stored copy, read through the team store's
//! [`scry_store::SessionIndex`] ([`crate::index::TeamIndex`]), so the JSON equals
//! the local answer for the same session, plus the session's `machine`
//! ([`Team::to_json`](crate::read::Team::to_json)).
//!
//! Not served from the store (refused with a usage error, exit 2): raw records and artifacts
//! (they live in the source files, on the session's own machine).

use scry_facts::Facts;
use scry_model::Warning;
use scry_query::events::relations::relations_from;
use scry_query::events::{events_from, EventPage, EventQuery, PageRequest, Relations};
use scry_query::ops::{self, fold_ledgers};
use scry_query::read::read_from;
use scry_query::usage::{
    fold_roots, usage_from, Pricing, Request, SessionUsage, UsageReport, UsageRequest,
};
use scry_query::{
    CommandsReport, CommandsRequest, ErrorsReport, ErrorsRequest, FilesReport, FilesRequest,
    JobsReport, JobsRequest, QueryResult, ReadRequest, TurnPage,
};
use serde_json::Value;

use crate::index::through;
use crate::read::{at_key, Sessions, Store, Team};

impl Sessions for TurnPage {
    fn json(&self) -> Value {
        self.to_json()
    }
    fn session_objects(v: &mut Value) -> Vec<&mut Value> {
        at_key(v, "session")
    }
}

impl Sessions for Relations {
    fn json(&self) -> Value {
        self.to_json()
    }
    fn session_objects(v: &mut Value) -> Vec<&mut Value> {
        at_key(v, "session")
    }
}

impl Sessions for EventPage {
    fn json(&self) -> Value {
        self.to_json()
    }
    fn session_objects(v: &mut Value) -> Vec<&mut Value> {
        at_key(v, "session")
    }
}

/// The fact reports: serialized as the CLI's `--json`, one `session` object.
macro_rules! fact_reports {
    ($($t:ty),*) => {$(
        impl Sessions for $t {
            fn json(&self) -> Value {
                ops::to_json(self)
            }
            fn session_objects(v: &mut Value) -> Vec<&mut Value> {
                at_key(v, "session")
            }
        }
    )*};
}
fact_reports!(CommandsReport, FilesReport, ErrorsReport, JobsReport);

fn team<T>(report: T, machine: String) -> Team<T> {
    Team {
        report,
        machines: vec![machine],
    }
}

/// `turn` (one page of a read) from the team store.
pub fn read(store: &mut Store, req: &ReadRequest) -> QueryResult<Team<TurnPage>> {
    let (page, machine) = through(store, &req.id, |s, _| read_from(s, req))?;
    Ok(team(page, machine))
}

/// `events` (one page) from the team store.
pub fn events(
    store: &mut Store,
    reference: &str,
    q: &EventQuery,
    page: &PageRequest,
) -> QueryResult<Team<EventPage>> {
    let (page, machine) = through(store, reference, |s, _| events_from(s, q, page))?;
    Ok(team(page, machine))
}

/// `events --relations` (one event's relations) from the team store.
pub fn relations(store: &mut Store, reference: &str, seq: u32) -> QueryResult<Team<Relations>> {
    let (found, machine) = through(store, reference, |s, _| relations_from(s, seq))?;
    Ok(team(found, machine))
}

/// The session `reference` names, read for its ledgers, and its machine.
fn ledgers(
    store: &mut Store,
    reference: &str,
) -> QueryResult<(scry_model::Session, Facts, String)> {
    let ((session, facts, _), machine) = through(store, reference, |s, _| fold_ledgers(s))?;
    Ok((session, facts, machine))
}

/// `commands` from the team store.
pub fn commands(store: &mut Store, req: &CommandsRequest) -> QueryResult<Team<CommandsReport>> {
    let (session, facts, machine) = ledgers(store, &req.id)?;
    Ok(team(
        ops::commands::commands_of(req, session, &facts),
        machine,
    ))
}

/// `files` from the team store.
pub fn files(store: &mut Store, req: &FilesRequest) -> QueryResult<Team<FilesReport>> {
    let (session, facts, machine) = ledgers(store, &req.id)?;
    Ok(team(ops::files::files_of(req, session, &facts), machine))
}

/// `errors` from the team store.
pub fn errors(store: &mut Store, req: &ErrorsRequest) -> QueryResult<Team<ErrorsReport>> {
    let (session, facts, machine) = ledgers(store, &req.id)?;
    Ok(team(ops::errors::errors_of(req, session, facts), machine))
}

/// `jobs` from the team store.
pub fn jobs(store: &mut Store, req: &JobsRequest) -> QueryResult<Team<JobsReport>> {
    let (session, facts, machine) = ledgers(store, &req.id)?;
    Ok(team(ops::jobs::jobs_of(req, session, facts), machine))
}

/// `usage` over the stored sessions of one machine (all when `None`): the report the local
/// index gives over the same sessions; `--by machine` groups by the machine that pushed them.
pub fn usage(
    store: &mut Store,
    req: &UsageRequest,
    pricing: &Pricing,
    machine: Option<&str>,
) -> QueryResult<UsageReport> {
    usage_from(req, pricing, |providers, since| {
        let rows = store.listed(machine, providers)?;
        let mut sessions = Vec::with_capacity(rows.len());
        let warnings: Vec<Warning> = Vec::new();
        for r in &rows {
            // Sessions last active before `since` hold no request in the window.
            if let (Some(since), Some(updated)) = (since, r.header.updated) {
                if updated < since {
                    continue;
                }
            }
            let s = store.session(r)?;
            let requests: Vec<Request> = s.events.iter().filter_map(Request::of).collect();
            sessions.push(SessionUsage::of(
                &s.header,
                Some(r.machine.clone()),
                requests,
            ));
        }
        fold_roots(&mut sessions);
        Ok((sessions, warnings))
    })
}
