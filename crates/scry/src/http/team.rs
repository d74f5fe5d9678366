//! The HTTP routes over a team store (`serve --store` / `web --store`, issue 22): each route
//! the store serves asks `scry_team` for the report the local query door gives and answers its
//! JSON with each session's `machine`; the routes it does not serve (lineage, graph, headers,
//! the live streams) answer `INVALID_QUERY` (400) naming the route. Without a store, the
//! `machine` filter of `/v1/sessions` and `/v1/search` is refused the same way.

use scry_model::ErrorCode;
use scry_query::{QueryError, QueryResult};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use scry_team::pool::{Pool, Pooled};
use scry_team::read::{Sessions, Team};
use serde_json::Value;

use super::api::Api;

/// Connections kept open between requests, per store.
const IDLE: usize = 8;

/// The team store this server answers from (a connection from the store's pool, given back
/// when the request is done), or `None` when it reads this machine's sessions.
pub(super) fn store(api: &Api) -> QueryResult<Option<Pooled>> {
    let Some(url) = api.opts.store.as_deref() else {
        return Ok(None);
    };
    pool(url).get().map(Some)
}

/// The process's pool of the store at `url` (one per URL: a server reads one store).
fn pool(url: &str) -> Arc<Pool> {
    static POOLS: OnceLock<Mutex<HashMap<String, Arc<Pool>>>> = OnceLock::new();
    let mut pools = POOLS
        .get_or_init(Mutex::default)
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    pools
        .entry(url.to_string())
        .or_insert_with(|| Pool::new(url, IDLE))
        .clone()
}

/// The JSON of a team report.
pub(super) fn json<T: Sessions>(team: QueryResult<Team<T>>) -> QueryResult<Value> {
    Ok(team?.to_json())
}

/// Refuses `route` on a server that answers from a team store.
pub(super) fn not_served(api: &Api, route: &str) -> QueryResult<()> {
    if api.opts.store.is_some() {
        return Err(QueryError::usage(
            ErrorCode::InvalidQuery,
            format!("{route} is not served from a team store (serve --store)"),
        ));
    }
    Ok(())
}

/// The `machine` filter of a request: only a team store has machines.
pub(super) fn machine(api: &Api, given: Option<String>) -> QueryResult<Option<String>> {
    if given.is_some() && api.opts.store.is_none() {
        return Err(QueryError::usage(
            ErrorCode::InvalidQuery,
            "parameter 'machine' filters a team store: this server reads one machine's sessions (serve --store <url> reads a team store)",
        ));
    }
    Ok(given)
}
