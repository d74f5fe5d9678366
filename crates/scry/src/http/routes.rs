//! The handlers of the HTTP API: query parameters (named like the CLI flags) become a query of
//! `scry_query`, run on the blocking pool, and the result's JSON — the CLI's `--json` — is the
//! body, redacted unless the server reveals session text. The ledgers and the graph call the
//! same typed operations as the CLI (`scry_query::ops`), so their JSON is the CLI's.

use std::sync::Arc;

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use axum::routing::{get, MethodRouter};
use axum::Router;
use scry_model::ErrorCode;
use scry_query::{
    turns::KEEP_JSON, ListRequest, QueryError, QueryResult, SearchQuery, TurnRequest,
};
use serde_json::{json, Value};

use super::answer::{answer, answer_now, checked, revised, Id, Raw};
use super::api::{error_response, json_response, Api};
use super::openapi;
use super::team;

/// Every route with its handler: the router is built from this list, and a test checks it
/// names exactly the paths of [`openapi::ROUTES`] (so the OpenAPI document matches the router).
pub fn table() -> Vec<(&'static str, MethodRouter<Arc<Api>>)> {
    vec![
        ("/health", get(health)),
        ("/manifest", get(manifest)),
        ("/openapi.json", get(openapi_doc)),
        ("/v1/sessions", get(sessions)),
        ("/v1/sessions/{id}", get(session)),
        ("/v1/sessions/{id}/turns", get(turns)),
        ("/v1/sessions/{id}/content", get(content)),
        ("/v1/sessions/{id}/events", get(events)),
        ("/v1/sessions/{id}/stream", get(super::stream::session)),
        ("/v1/sessions/{id}/lineage", get(lineage)),
        ("/v1/sessions/{id}/commands", get(commands)),
        ("/v1/sessions/{id}/files", get(files)),
        ("/v1/sessions/{id}/errors", get(errors)),
        ("/v1/sessions/{id}/jobs", get(jobs)),
        ("/v1/graph/{id}", get(graph)),
        ("/v1/search", get(search)),
        ("/v1/headers", get(headers)),
        ("/v1/stream", get(super::stream::list)),
        ("/v1/usage", get(usage)),
    ]
}

/// The router of [`table`].
pub fn routes(api: Arc<Api>) -> Router {
    let mut router = Router::new();
    for (path, handler) in table() {
        router = router.route(path, handler);
    }
    router.with_state(api)
}

async fn health(State(api): State<Arc<Api>>, raw: Raw) -> Response {
    answer_now(&api, "/health", raw, |_, _| {
        Ok(json!({"status": "ok", "version": env!("CARGO_PKG_VERSION")}))
    })
}

async fn manifest(State(api): State<Arc<Api>>, raw: Raw) -> Response {
    answer_now(&api, "/manifest", raw, |api, _| {
        let providers: Vec<&str> = scry_sources::registry()
            .iter()
            .map(|s| s.id().as_str())
            .collect();
        Ok(json!({
            "name": "scry",
            "version": env!("CARGO_PKG_VERSION"),
            "api": "v1",
            "routes": openapi::ROUTES.iter().map(|r| r.path).collect::<Vec<_>>(),
            "providers": providers,
            "demo": api.ctx.demo,
            "index": !api.ctx.no_index,
            "redacted": !api.opts.reveal,
            "auth": if api.opts.token.is_some() { "bearer" } else { "none" },
        }))
    })
}

async fn openapi_doc(State(_): State<Arc<Api>>, raw: Raw) -> Response {
    // The document holds no session text: served as it is.
    match checked("/openapi.json", raw) {
        Ok(_) => json_response(StatusCode::OK, &openapi::document()),
        Err(e) => error_response(&e),
    }
}

async fn sessions(State(api): State<Arc<Api>>, raw: Raw) -> Response {
    answer(api, "/v1/sessions", raw, |api, p| {
        let req: ListRequest = p.typed(None, &[("kind", ErrorCode::InvalidFilter)])?;
        let q = req.query();
        let machine = team::machine(api, req.machine.clone())?;
        if let Some(mut store) = team::store(api)? {
            let m = machine.as_deref();
            return team::json(scry_team::read::list(&api.ctx, &mut store, &q, m));
        }
        Ok(scry_query::list(&api.ctx, &q)?.to_json())
    })
    .await
}

async fn session(State(api): State<Arc<Api>>, id: Id, raw: Raw) -> Response {
    answer(api, "/v1/sessions/{id}", raw, move |api, p| {
        let req: scry_query::ShowRequest = p.request(id)?;
        if let Some(mut store) = team::store(api)? {
            return team::json(scry_team::read::overview(&api.ctx, &mut store, &req.id));
        }
        Ok(scry_query::overview(&revised(&api.ctx, req.revision), &req.id)?.to_json())
    })
    .await
}

async fn turns(State(api): State<Arc<Api>>, id: Id, raw: Raw) -> Response {
    answer(api, "/v1/sessions/{id}/turns", raw, move |api, p| {
        let req: scry_query::TurnsRequest = p.request(id)?;
        if let Some(mut store) = team::store(api)? {
            return team::json(scry_team::read::turns(&mut store, &req.id, KEEP_JSON));
        }
        Ok(scry_query::turns(&revised(&api.ctx, req.revision), &req.id, KEEP_JSON)?.to_json())
    })
    .await
}

async fn content(State(api): State<Arc<Api>>, id: Id, raw: Raw) -> Response {
    answer(api, "/v1/sessions/{id}/content", raw, move |api, p| {
        let req: TurnRequest = p.typed(Some(id), &[("around", ErrorCode::InvalidWindow)])?;
        if let Some(event) = req.around {
            let radius = req.radius.unwrap_or(5);
            if let Some(mut store) = team::store(api)? {
                let w = scry_query::read::window(&req.id, event, radius, req.max_chars)?;
                return team::json(scry_team::inside::read(&mut store, &w));
            }
            return Ok(scry_query::event_window(
                &revised(&api.ctx, req.revision),
                &req.id,
                event,
                radius,
                req.max_chars,
            )?
            .to_json());
        }
        let read =
            req.read("give exactly one of turns, event, locator, call, artifact (or around)")?;
        if let Some(mut store) = team::store(api)? {
            return team::json(scry_team::inside::read(&mut store, &read));
        }
        Ok(scry_query::read(&revised(&api.ctx, req.revision), &read)?.to_json())
    })
    .await
}

/// `scry events --json`: filters named like the CLI flags; `relations` (a seq or `E<n>`) answers
/// `scry events --relations` and takes no filters.
async fn events(State(api): State<Arc<Api>>, id: Id, raw: Raw) -> Response {
    answer(api, "/v1/sessions/{id}/events", raw, move |api, p| {
        let req: scry_query::EventsRequest = p.request(id)?;
        if let Some(target) = &req.relations {
            if req.filter != scry_query::EventQuery::default() || req.cursor.is_some() {
                return Err(QueryError::usage(
                    ErrorCode::InvalidQuery,
                    "relations takes no filters or cursor",
                ));
            }
            let seq = scry_query::events::relations::parse_target(target)?;
            if let Some(mut store) = team::store(api)? {
                return team::json(scry_team::inside::relations(&mut store, &req.id, seq));
            }
            return Ok(
                scry_query::relations(&revised(&api.ctx, req.revision), &req.id, seq)?.to_json(),
            );
        }
        if let Some(mut store) = team::store(api)? {
            let page = req.page();
            return team::json(scry_team::inside::events(
                &mut store,
                &req.id,
                &req.filter,
                &page,
            ));
        }
        Ok(scry_query::events(
            &revised(&api.ctx, req.revision),
            &req.id,
            &req.filter,
            &req.page(),
        )?
        .to_json())
    })
    .await
}

async fn lineage(State(api): State<Arc<Api>>, id: Id, raw: Raw) -> Response {
    answer(api, "/v1/sessions/{id}/lineage", raw, move |api, p| {
        team::not_served(api, "/v1/sessions/{id}/lineage")?;
        let req: scry_query::LineageRequest = p.request(id)?;
        Ok(scry_query::lineage(&api.ctx, &req.id)?.to_json())
    })
    .await
}

async fn search(State(api): State<Arc<Api>>, raw: Raw) -> Response {
    answer(api, "/v1/search", raw, |api, p| {
        let q: SearchQuery = p.typed(None, &[])?;
        let machine = team::machine(api, q.machine.clone())?;
        if let Some(mut store) = team::store(api)? {
            let m = machine.as_deref();
            return team::json(scry_team::read::search(&api.ctx, &mut store, &q, m));
        }
        Ok(scry_query::search(&revised(&api.ctx, q.revision), &q)?.to_json())
    })
    .await
}

async fn headers(State(api): State<Arc<Api>>, raw: Raw) -> Response {
    answer(api, "/v1/headers", raw, |api, p| {
        team::not_served(api, "/v1/headers")?;
        let req: scry_query::HeadersRequest = p.typed(None, &[])?;
        Ok(scry_query::headers(&api.ctx, &req.references())?.to_json())
    })
    .await
}

/// The request context of the fact operations: a request names sessions by id only, whatever
/// context the server was given.
fn by_id(api: &Api) -> scry_query::Context {
    scry_query::Context {
        path_refs: false,
        ..api.ctx.clone()
    }
}

/// The JSON of a query report (the CLI's `--json`).
fn report<T: serde::Serialize>(r: QueryResult<T>) -> QueryResult<Value> {
    r.map(|r| scry_query::ops::to_json(&r))
}

async fn commands(State(api): State<Arc<Api>>, id: Id, raw: Raw) -> Response {
    answer(api, "/v1/sessions/{id}/commands", raw, move |api, p| {
        let req: scry_query::CommandsRequest = p.request(id)?;
        if let Some(mut store) = team::store(api)? {
            return team::json(scry_team::inside::commands(&mut store, &req));
        }
        report(scry_query::commands(
            &revised(&by_id(api), req.revision),
            &req,
        ))
    })
    .await
}

async fn files(State(api): State<Arc<Api>>, id: Id, raw: Raw) -> Response {
    answer(api, "/v1/sessions/{id}/files", raw, move |api, p| {
        let req: scry_query::FilesRequest = p.request(id)?;
        if let Some(mut store) = team::store(api)? {
            return team::json(scry_team::inside::files(&mut store, &req));
        }
        report(scry_query::files(&revised(&by_id(api), req.revision), &req))
    })
    .await
}

async fn errors(State(api): State<Arc<Api>>, id: Id, raw: Raw) -> Response {
    answer(api, "/v1/sessions/{id}/errors", raw, move |api, p| {
        let req: scry_query::ErrorsRequest = p.request(id)?;
        if let Some(mut store) = team::store(api)? {
            return team::json(scry_team::inside::errors(&mut store, &req));
        }
        report(scry_query::errors(
            &revised(&by_id(api), req.revision),
            &req,
        ))
    })
    .await
}

async fn jobs(State(api): State<Arc<Api>>, id: Id, raw: Raw) -> Response {
    answer(api, "/v1/sessions/{id}/jobs", raw, move |api, p| {
        let req: scry_query::JobsRequest = p.request(id)?;
        if let Some(mut store) = team::store(api)? {
            return team::json(scry_team::inside::jobs(&mut store, &req));
        }
        report(scry_query::jobs(&revised(&by_id(api), req.revision), &req))
    })
    .await
}

async fn graph(State(api): State<Arc<Api>>, id: Id, raw: Raw) -> Response {
    answer(api, "/v1/graph/{id}", raw, move |api, p| {
        team::not_served(api, "/v1/graph/{id}")?;
        let req: scry_query::GraphRequest = p.request(id)?;
        report(scry_query::graph(&by_id(api), &req))
    })
    .await
}

async fn usage(State(api): State<Arc<Api>>, raw: Raw) -> Response {
    answer(api, "/v1/usage", raw, |api, p| {
        let req: scry_query::usage::UsageRequest = p.typed(None, &[])?;
        let pricing = scry_query::usage::Pricing {
            prices: if api.ctx.demo {
                Default::default()
            } else {
                scry_sources::config::pricing(&api.ctx.env)
                    .map_err(|e| QueryError::usage(ErrorCode::InvalidFilter, e.to_string()))?
            },
            now: None,
        };
        let r = match team::store(api)? {
            Some(mut store) => scry_team::inside::usage(&mut store, &req, &pricing, None)?,
            None => scry_query::usage::usage(&api.ctx, &req, &pricing)?,
        };
        serde_json::to_value(&r)
            .map_err(|e| QueryError::new(ErrorCode::Aborted, format!("usage report: {e}")))
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The router's routes are exactly the documented ones, and each is in the document.
    #[test]
    fn router_and_document_agree() {
        let routed: Vec<&str> = table().iter().map(|(p, _)| *p).collect();
        let documented: Vec<&str> = openapi::ROUTES.iter().map(|r| r.path).collect();
        assert_eq!(routed, documented);
        let doc = openapi::document();
        for path in routed {
            assert!(
                doc["paths"][path]["get"].is_object(),
                "{path} not in the document"
            );
        }
        assert_eq!(
            doc["paths"].as_object().map(|m| m.len()),
            Some(openapi::ROUTES.len())
        );
    }
}
