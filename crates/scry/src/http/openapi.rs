//! The route table of the HTTP API and the OpenAPI 3.1 document built from it: the router is
//! built from the same table ([`ROUTES`]), so the document cannot name a route the server does
//! not have or miss one it has (a test walks both).

use serde_json::{json, Map, Value};

use crate::door;

/// One route.
#[derive(Debug, Clone, Copy)]
pub struct Route {
    /// Path in axum / OpenAPI syntax (`/v1/sessions/{id}`).
    pub path: &'static str,
    /// One line: what it returns.
    pub summary: &'static str,
    /// The parameters of the route's request type (its `{id}` aside; anything else is refused
    /// with `INVALID_QUERY`): derived from the type, never written here. `None`: the route
    /// takes no parameter.
    pub request: Option<fn() -> Vec<door::Param>>,
    /// HTTP names of request fields that the API names otherwise (`("q", "query")`: the
    /// search's `query` is `q` here).
    pub aliases: &'static [(&'static str, &'static str)],
}

impl Route {
    /// The request field an HTTP parameter name sets.
    pub fn field<'a>(&self, name: &'a str) -> &'a str {
        match self.aliases.iter().find(|(http, _)| *http == name) {
            Some((_, field)) => field,
            None => name,
        }
    }

    /// Every query parameter the route accepts.
    pub fn query_params(&self) -> Vec<door::Param> {
        match self.request {
            Some(typed) => {
                let in_path = |name: &str| self.path.contains(&format!("{{{name}}}"));
                typed()
                    .into_iter()
                    .filter(|p| !in_path(&p.name))
                    .map(|mut p| {
                        if let Some((http, _)) = self.aliases.iter().find(|(_, f)| *f == p.name) {
                            p.name = (*http).to_string();
                        }
                        p
                    })
                    .collect()
            }
            None => Vec::new(),
        }
    }
}

/// Every route of the API (all GET).
pub const ROUTES: &[Route] = &[
    Route {
        path: "/health",
        summary: "Liveness: status and version",
        request: None,
        aliases: &[],
    },
    Route {
        path: "/manifest",
        summary: "What this server offers: version, routes, providers, redaction",
        request: None,
        aliases: &[],
    },
    Route {
        path: "/openapi.json",
        summary: "This document",
        request: None,
        aliases: &[],
    },
    Route {
        path: "/v1/sessions",
        summary: "Sessions in a scope, newest first (scry list --json)",
        request: Some(door::params::<scry_query::ListRequest>),
        aliases: &[],
    },
    Route {
        path: "/v1/sessions/{id}",
        summary: "A session's overview (scry show --json)",
        request: Some(door::params::<scry_query::ShowRequest>),
        aliases: &[],
    },
    Route {
        path: "/v1/sessions/{id}/turns",
        summary: "The turn directory (scry turns --json)",
        request: Some(door::params::<scry_query::TurnsRequest>),
        aliases: &[],
    },
    Route {
        path: "/v1/sessions/{id}/content",
        summary:
            "Turns, events, a locator, a call, an artifact or raw records, paged (scry turn --json)",
        request: Some(door::params::<scry_query::TurnRequest>),
        aliases: &[],
    },
    Route {
        path: "/v1/sessions/{id}/events",
        summary: "Events by seq, time, kind, surface and text, paged; or one event's relations (scry events --json)",
        request: Some(door::params::<scry_query::EventsRequest>),
        aliases: &[],
    },
    Route {
        path: "/v1/sessions/{id}/stream",
        summary: "Server-sent events: the session's new events as they are written (ready, events, notice, gone), rows as in /events",
        request: Some(door::params::<scry_query::EventQuery>),
        aliases: &[],
    },
    Route {
        path: "/v1/sessions/{id}/lineage",
        summary: "Ancestors, descendants, root (scry trace --json)",
        request: Some(door::params::<scry_query::LineageRequest>),
        aliases: &[],
    },
    Route {
        path: "/v1/sessions/{id}/commands",
        summary: "The commands ledger (scry commands --json)",
        request: Some(door::params::<scry_query::CommandsRequest>),
        aliases: &[],
    },
    Route {
        path: "/v1/sessions/{id}/files",
        summary: "The files ledger (scry files --json)",
        request: Some(door::params::<scry_query::FilesRequest>),
        aliases: &[],
    },
    Route {
        path: "/v1/sessions/{id}/errors",
        summary: "The errors ledger (scry errors --json)",
        request: Some(door::params::<scry_query::ErrorsRequest>),
        aliases: &[],
    },
    Route {
        path: "/v1/sessions/{id}/jobs",
        summary: "Background jobs (scry jobs --json)",
        request: Some(door::params::<scry_query::JobsRequest>),
        aliases: &[],
    },
    Route {
        path: "/v1/graph/{id}",
        summary: "A session's edges to other sessions (scry graph --json)",
        request: Some(door::params::<scry_query::GraphRequest>),
        aliases: &[],
    },
    Route {
        path: "/v1/search",
        summary: "Search across sessions or within one (scry search --json)",
        request: Some(door::params::<scry_query::SearchQuery>),
        aliases: &[("q", "query")],
    },
    Route {
        path: "/v1/headers",
        summary: "Batch read of headers: one result per reference, in order",
        request: Some(door::params::<scry_query::HeadersRequest>),
        aliases: &[],
    },
    Route {
        path: "/v1/stream",
        summary: "Server-sent events: sessions the index added or saw grow (session: {change, active, session: list row}; reset)",
        request: None,
        aliases: &[],
    },
    Route {
        path: "/v1/usage",
        summary: "Tokens and USD per day, week, month, session or 5-hour block (scry usage --json)",
        request: Some(door::params::<scry_query::usage::UsageRequest>),
        aliases: &[],
    },
];

/// The route whose path is `path`.
pub fn route(path: &str) -> Option<&'static Route> {
    ROUTES.iter().find(|r| r.path == path)
}

/// The OpenAPI 3.1 document of [`ROUTES`].
pub fn document() -> Value {
    let mut paths = Map::new();
    for r in ROUTES {
        let mut params: Vec<Value> = r
            .query_params()
            .iter()
            .map(|p| {
                json!({
                    "name": p.name, "in": "query", "required": p.required,
                    "description": p.doc, "schema": p.schema(false),
                })
            })
            .collect();
        if r.path.contains("{id}") {
            params.insert(
                0,
                json!({
                    "name": "id", "in": "path", "required": true,
                    "description": "Session: full id, provider:id, or a unique prefix (≥ 6 characters)",
                    "schema": {"type": "string"},
                }),
            );
        }
        paths.insert(
            r.path.to_string(),
            json!({
                "get": {
                    "summary": r.summary,
                    "parameters": params,
                    "responses": {
                        "200": {"description": "The result, shaped like the CLI's --json",
                                "content": {"application/json": {"schema": {"type": "object"}}}},
                        "default": {"description": "An error with a closed code (S-Q7)",
                                    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}},
                    },
                }
            }),
        );
    }
    json!({
        "openapi": "3.1.0",
        "info": {
            "title": "scry",
            "version": env!("CARGO_PKG_VERSION"),
            "description": "Read-only JSON API over the session histories AI coding agents leave on disk. GET only; bearer token when configured; session text redacted unless the server was started with --reveal on loopback.",
        },
        "paths": paths,
        "components": {
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
            "schemas": {
                "Error": {
                    "type": "object",
                    "properties": {"error": {"type": "object", "properties": {
                        "code": {"type": "string", "enum": CODES},
                        "message": {"type": "string"},
                        "candidates": {"type": "array", "items": {"type": "string"}},
                    }}},
                }
            }
        },
    })
}

/// The closed error codes (S-Q7).
const CODES: [&str; 17] = [
    "INVALID_QUERY",
    "INVALID_FILTER",
    "INVALID_WINDOW",
    "INVALID_LINEAGE",
    "INVALID_CURSOR",
    "INVALID_PAGE_SIZE",
    "SESSION_NOT_FOUND",
    "AMBIGUOUS_ID",
    "EVENT_NOT_FOUND",
    "STALE_LOCATOR",
    "CORRUPT_SESSION",
    "INVALID_SURFACE",
    "PERSISTENCE_FAILURE",
    "INDEX_BUILD_FAILURE",
    "ABORTED",
    "SEARCH_DISABLED",
    "SOURCE_CONFLICT",
];
