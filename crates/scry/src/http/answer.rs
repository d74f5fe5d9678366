//! How a handler of the HTTP API answers: its query parameters checked against the route
//! ([`Params`], [`checked`]), its work run on the blocking pool within [`REQUEST_TIME`]
//! ([`answer`], [`bounded`]) and its value sent redacted unless the server reveals session
//! text. The routes and the streams both use it; it uses neither.

use std::sync::Arc;
use std::time::Duration;

use axum::extract::rejection::{PathRejection, QueryRejection};
use axum::extract::{Path, Query};
use axum::http::StatusCode;
use axum::response::Response;
use scry_model::ErrorCode;
use scry_query::{QueryError, QueryResult};
use serde_json::Value;

use super::api::{error_response, json_response, redact, Api};
use super::openapi::{self, Route};

/// The query parameters of one request, checked against the route's list.
pub(super) struct Params(Vec<(String, String)>, &'static Route);

impl Params {
    fn checked(
        route: &'static Route,
        raw: Result<Query<Vec<(String, String)>>, QueryRejection>,
    ) -> QueryResult<Params> {
        let Query(pairs) = raw.map_err(|e| {
            QueryError::usage(ErrorCode::InvalidQuery, format!("bad query string: {e}"))
        })?;
        let accepted = route.query_params();
        for (k, _) in &pairs {
            if !accepted.iter().any(|p| p.name == *k) {
                let known: Vec<&str> = accepted.iter().map(|p| p.name.as_str()).collect();
                return Err(QueryError::usage(
                    ErrorCode::InvalidQuery,
                    format!(
                        "unknown parameter '{k}' for {} (accepted: {})",
                        route.path,
                        if known.is_empty() {
                            "none".to_string()
                        } else {
                            known.join(", ")
                        }
                    ),
                ));
            }
        }
        Ok(Params(pairs, route))
    }

    /// The request `T` of a route answering one query operation: these parameters (by the
    /// names of the type's fields) and the session `id` of the path, checked against the type's
    /// parameters.
    pub(super) fn request<T: schemars::JsonSchema + serde::de::DeserializeOwned>(
        &self,
        id: Id,
    ) -> QueryResult<T> {
        self.typed(Some(id), &[])
    }

    /// Like [`Params::request`], `id` if the path has one; a bad value of a parameter named in
    /// `codes` has its code there (`kind` of a list is `INVALID_FILTER`), any other refusal is
    /// `INVALID_QUERY`.
    pub(super) fn typed<T: schemars::JsonSchema + serde::de::DeserializeOwned>(
        &self,
        id: Option<Id>,
        codes: &[(&str, ErrorCode)],
    ) -> QueryResult<T> {
        let id = id.map(id_of).transpose()?;
        let given = self
            .0
            .iter()
            .map(|(k, v)| (self.1.field(k).to_string(), Value::String(v.clone())))
            .chain(id.map(|id| ("id".to_string(), Value::String(id))));
        crate::door::request(given, crate::door::Given::Text).map_err(|e| {
            let code = match &e {
                crate::door::Refused::Value(name, _) => codes
                    .iter()
                    .find(|(n, _)| n == name)
                    .map_or(ErrorCode::InvalidQuery, |(_, c)| *c),
                _ => ErrorCode::InvalidQuery,
            };
            QueryError::usage(code, e.message(|k| format!("unknown parameter '{k}'")))
        })
    }
}

/// `base` reading revision `revision` of the session (issue 20; 0 = the current session): the
/// `revision` field of the per-session requests.
pub(super) fn revised(base: &scry_query::Context, revision: u32) -> scry_query::Context {
    scry_query::Context {
        revision,
        ..base.clone()
    }
}

pub(super) type Raw = Result<Query<Vec<(String, String)>>, QueryRejection>;
pub(super) type Id = Result<Path<String>, PathRejection>;

/// How long the blocking work of one request may run before its client is answered 504
/// (`ABORTED`). Generous — a cold index refresh of a large archive can take a while — but
/// finite: a read that never ends (a source that blocks) cannot hold a client forever.
pub const REQUEST_TIME: Duration = Duration::from_secs(60);

/// Runs `f` on the blocking pool (bounded by [`REQUEST_TIME`]) and turns its outcome into a
/// response.
pub(super) async fn answer<F>(api: Arc<Api>, path: &'static str, raw: Raw, f: F) -> Response
where
    F: FnOnce(&Api, &Params) -> QueryResult<Value> + Send + 'static,
{
    let params = match checked(path, raw) {
        Ok(p) => p,
        Err(e) => return error_response(&e),
    };
    let reveal = api.opts.reveal;
    match bounded(REQUEST_TIME, move || f(&api, &params)).await {
        Ok(v) => ok_response(v, reveal),
        Err(Late(e)) => json_response(StatusCode::GATEWAY_TIMEOUT, &e.to_json()),
        Err(Failed(e)) => error_response(&e),
    }
}

/// Like [`answer`] for the routes that read no session (`/health`, `/manifest`, the OpenAPI
/// document): computed on the request's own task, so they answer even when every thread of
/// the blocking pool is busy.
pub(super) fn answer_now<F>(api: &Api, path: &'static str, raw: Raw, f: F) -> Response
where
    F: FnOnce(&Api, &Params) -> QueryResult<Value>,
{
    match checked(path, raw).and_then(|p| f(api, &p)) {
        Ok(v) => ok_response(v, api.opts.reveal),
        Err(e) => error_response(&e),
    }
}

/// The parameters of a request to `path`, checked against its route.
pub(super) fn checked(path: &'static str, raw: Raw) -> QueryResult<Params> {
    let route = openapi::route(path)
        .ok_or_else(|| QueryError::new(ErrorCode::Aborted, "route not in the table"))?;
    Params::checked(route, raw)
}

/// 200 with `v`, redacted unless the server reveals session text.
fn ok_response(mut v: Value, reveal: bool) -> Response {
    if !reveal {
        redact(&mut v);
    }
    json_response(StatusCode::OK, &v)
}

/// Why [`bounded`] work gave no value.
#[derive(Debug)]
pub(super) enum Unanswered {
    /// The work returned an error (or panicked).
    Failed(QueryError),
    /// The time bound passed first (answered 504).
    Late(QueryError),
}
use Unanswered::{Failed, Late};

/// Runs `work` on the blocking pool and waits at most `limit` for it. Past the limit the
/// caller gets [`Unanswered::Late`] at once; the work cannot be interrupted and finishes (or
/// not) on its own thread, its result dropped.
pub(super) async fn bounded<T, W>(limit: Duration, work: W) -> Result<T, Unanswered>
where
    T: Send + 'static,
    W: FnOnce() -> QueryResult<T> + Send + 'static,
{
    match tokio::time::timeout(limit, tokio::task::spawn_blocking(work)).await {
        Ok(Ok(Ok(v))) => Ok(v),
        Ok(Ok(Err(e))) => Err(Failed(e)),
        Ok(Err(_)) => Err(Failed(QueryError::new(
            ErrorCode::Aborted,
            "the request failed inside scry",
        ))),
        Err(_) => Err(Late(QueryError::new(
            ErrorCode::Aborted,
            format!(
                "the request took longer than {} s and was abandoned",
                limit.as_secs_f64()
            ),
        ))),
    }
}

pub(super) fn id_of(id: Id) -> QueryResult<String> {
    id.map(|Path(s)| s)
        .map_err(|e| QueryError::usage(ErrorCode::InvalidQuery, format!("bad session id: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Work that outlives its bound is answered `Late` (504) at the bound, while it still runs;
    /// work within it gives its value or its error.
    #[test]
    fn blocking_work_is_bounded_in_time() {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .expect("runtime");
        rt.block_on(async {
            let (release, stuck) = std::sync::mpsc::channel::<()>();
            let late = bounded(Duration::from_millis(100), move || {
                // Blocks until `release` is dropped: a read that does not end by itself.
                let _ = stuck.recv();
                Ok(1)
            })
            .await;
            match late {
                Err(Late(e)) => {
                    assert_eq!(e.code, ErrorCode::Aborted);
                    assert!(e.message.contains("longer than 0.1 s"), "{}", e.message);
                }
                other => panic!("{other:?}"),
            }
            drop(release);
            let done = bounded(Duration::from_secs(20), || Ok(2)).await;
            assert!(matches!(done, Ok(2)), "{done:?}");
            let failed = bounded(Duration::from_secs(20), || {
                Err::<u8, _>(QueryError::new(ErrorCode::SessionNotFound, "no session"))
            })
            .await;
            assert!(
                matches!(&failed, Err(Failed(e)) if e.code == ErrorCode::SessionNotFound),
                "{failed:?}"
            );
        });
    }
}
