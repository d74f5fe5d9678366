//! The route table of the HTTP API and the OpenAPI 3.1 document built from it: the router is
//! built from the same table ([`ROUTES`]), so the document cannot name a route the server does
//! not have or miss one it has (a test walks both).

use serde_json::{json, Map, Value};

use crate::door;

/// A query parameter of a route.
#[derive(Debug, Clone, Copy)]
pub struct Param {
    /// Name (as the CLI flag, `_` for `-`).
    pub name: &'static str,
    /// `string`, `integer` or `boolean`.
    pub kind: &'static str,
    /// What it does.
    pub doc: &'static str,
}

/// One route.
#[derive(Debug, Clone, Copy)]
pub struct Route {
    /// Path in axum / OpenAPI syntax (`/v1/sessions/{id}`).
    pub path: &'static str,
    /// One line: what it returns.
    pub summary: &'static str,
    /// Accepted query parameters (anything else is refused with `INVALID_QUERY`), written here
    /// for the routes whose query has no request type of its own.
    pub params: &'static [Param],
    /// The parameters of the route's request type (its `{id}` aside), for the routes that
    /// answer one query operation: derived from the type, never written here.
    pub request: Option<fn() -> Vec<door::Param>>,
}

impl Route {
    /// Every query parameter the route accepts.
    pub fn query_params(&self) -> Vec<door::Param> {
        if let Some(typed) = self.request {
            let in_path = |name: &str| self.path.contains(&format!("{{{name}}}"));
            return typed().into_iter().filter(|p| !in_path(&p.name)).collect();
        }
        self.params
            .iter()
            .map(|p| door::Param {
                name: p.name.to_string(),
                kind: p.kind,
                doc: p.doc.to_string(),
                values: Vec::new(),
                required: false,
            })
            .collect()
    }
}

const fn p(name: &'static str, kind: &'static str, doc: &'static str) -> Param {
    Param { name, kind, doc }
}

const USAGE: &[Param] = &[
    p(
        "report",
        "string",
        "daily (default), weekly, monthly, session or blocks",
    ),
    p(
        "since",
        "string",
        "Requests since: a date (2026-12-01, 20261201) or a duration (7d)",
    ),
    p("until", "string", "Requests until the end of this date"),
    p(
        "by",
        "string",
        "Breakdown of each row: model (default), provider, project or machine",
    ),
    p(
        "provider",
        "string",
        "Only these providers (comma-separated)",
    ),
    p(
        "split",
        "boolean",
        "Session report: subagents as rows of their own (default: folded into their session)",
    ),
    p(
        "timezone",
        "string",
        "IANA time zone of days and months (default: the server's)",
    ),
];

const LIST: &[Param] = &[
    p(
        "scope",
        "string",
        "Directory subtree: a path, `cwd` (the server's), or `global`",
    ),
    p(
        "global",
        "boolean",
        "Every directory (same as scope=global)",
    ),
    p(
        "provider",
        "string",
        "Providers, comma-separated (claude,codex,…)",
    ),
    p(
        "since",
        "string",
        "Updated since: 30m, 24h, 7d, 2w, or an ISO date / time",
    ),
    p(
        "kind",
        "string",
        "main | subagent | fork | exec | all (default: main, children folded)",
    ),
    p("limit", "integer", "Sessions per page (default 20)"),
    p("cursor", "string", "next_cursor of the previous page"),
    p(
        "archived",
        "boolean",
        "Include sessions whose source is gone, kept by the index (live: false)",
    ),
    p(
        "machine",
        "string",
        "Only this machine's sessions (a server reading a team store: serve --store)",
    ),
];

const EVENTS: &[Param] = &[
    p(
        "seq",
        "string",
        "Seq ranges, 0-based, inclusive: 10-40, 7, 30-, 1,5-9",
    ),
    p(
        "since",
        "string",
        "Events at or after: 30m, 24h, 7d, or an ISO date / time",
    ),
    p(
        "until",
        "string",
        "Events at or before: a duration ago, an ISO date (through its end) or time",
    ),
    p(
        "kind",
        "string",
        "Event kinds, comma-separated (tool_call,tool_result,…)",
    ),
    p(
        "surface",
        "string",
        "Surfaces, comma-separated: current, shadowed, log-only",
    ),
    p(
        "text",
        "string",
        "Text clause: literal, case-insensitive, whitespace-flexible",
    ),
    p(
        "limit",
        "integer",
        "Events per page (default 50, at most 1000)",
    ),
    p("cursor", "string", "next_cursor of the previous page"),
    p(
        "relations",
        "string",
        "One event's relations instead (a seq or E<n>); no filters",
    ),
];

const STREAM: &[Param] = &[
    p(
        "seq",
        "string",
        "Seq ranges, 0-based, inclusive: 10-40, 7, 30-, 1,5-9",
    ),
    p(
        "since",
        "string",
        "Events at or after: 30m, 24h, 7d, or an ISO date / time",
    ),
    p(
        "until",
        "string",
        "Events at or before: a duration ago, an ISO date (through its end) or time",
    ),
    p(
        "kind",
        "string",
        "Event kinds, comma-separated (tool_call,tool_result,…)",
    ),
    p(
        "surface",
        "string",
        "Surfaces, comma-separated: current, shadowed, log-only",
    ),
    p(
        "text",
        "string",
        "Text clause: literal, case-insensitive, whitespace-flexible",
    ),
];

const CONTENT: &[Param] = &[
    p(
        "turns",
        "string",
        "Turn number or range: 3, 2-4 (0 is the preamble)",
    ),
    p(
        "event",
        "string",
        "Events in full by 1-based number: 7, 5-9, 3,8,12 (at most 50)",
    ),
    p("locator", "string", "The event(s) with this locator"),
    p(
        "call",
        "string",
        "The tool call and result with this call id",
    ),
    p("artifact", "string", "An artifact file the session lists"),
    p(
        "around",
        "integer",
        "Event window: this event (1-based) and `radius` on each side",
    ),
    p(
        "radius",
        "integer",
        "Events on each side of `around` (default 5)",
    ),
    p(
        "raw",
        "boolean",
        "The original source records instead of the normalized text",
    ),
    p(
        "max_chars",
        "integer",
        "Page size in characters (default 32000)",
    ),
    p(
        "cursor",
        "string",
        "next_cursor of the previous page (refused once the source changed)",
    ),
];

const SEARCH: &[Param] = &[
    p(
        "q",
        "string",
        "What to find: a literal string, or a regex with regex=true",
    ),
    p("regex", "boolean", "Read q as a Rust regex"),
    p(
        "case",
        "boolean",
        "Match case exactly (default: Unicode case-insensitive)",
    ),
    p(
        "terms",
        "string",
        "Several literal terms as a JSON array of strings",
    ),
    p(
        "operator",
        "string",
        "and | or: how terms combine within one event",
    ),
    p("area", "string", "dialogue | tools | artifacts | all"),
    p(
        "kind",
        "string",
        "Only these event kinds, comma-separated (user,assistant,…)",
    ),
    p(
        "scope",
        "string",
        "Directory subtree (a path, cwd, global); default: every directory",
    ),
    p("global", "boolean", "Every directory"),
    p("since", "string", "Only sessions updated since then"),
    p(
        "provider",
        "string",
        "Only these providers, comma-separated",
    ),
    p(
        "session",
        "string",
        "Only this session (within-session scope; its header is returned)",
    ),
    p("limit", "integer", "Sessions per page (default 20)"),
    p("max_hits", "integer", "Hits shown per session (default 5)"),
    p(
        "context",
        "integer",
        "Characters of context on each side of a match (default 60)",
    ),
    p("sort", "string", "relevance | time"),
    p(
        "include_self",
        "boolean",
        "Show scry's own echoes instead of folding them",
    ),
    p("cursor", "string", "next_cursor of the previous page"),
    p(
        "live_only",
        "boolean",
        "Leave out sessions whose source is gone (searched by default, live: false)",
    ),
    p(
        "machine",
        "string",
        "Only this machine's sessions (a server reading a team store: serve --store)",
    ),
];

const BATCH: &[Param] = &[p(
    "ids",
    "string",
    "Session references, comma-separated (at most 500)",
)];

/// Every route of the API (all GET).
pub const ROUTES: &[Route] = &[
    Route {
        path: "/health",
        summary: "Liveness: status and version",
        params: &[],
        request: None,
    },
    Route {
        path: "/manifest",
        summary: "What this server offers: version, routes, providers, redaction",
        params: &[],
        request: None,
    },
    Route {
        path: "/openapi.json",
        summary: "This document",
        params: &[],
        request: None,
    },
    Route {
        path: "/v1/sessions",
        summary: "Sessions in a scope, newest first (scry list --json)",
        params: LIST,
        request: None,
    },
    Route {
        path: "/v1/sessions/{id}",
        summary: "A session's overview (scry show --json)",
        params: &[],
        request: None,
    },
    Route {
        path: "/v1/sessions/{id}/turns",
        summary: "The turn directory (scry turns --json)",
        params: &[],
        request: None,
    },
    Route {
        path: "/v1/sessions/{id}/content",
        summary:
            "Turns, events, a locator, a call, an artifact or raw records, paged (scry turn --json)",
        params: CONTENT,
        request: None,
    },
    Route {
        path: "/v1/sessions/{id}/events",
        summary: "Events by seq, time, kind, surface and text, paged; or one event's relations (scry events --json)",
        params: EVENTS,
        request: None,
    },
    Route {
        path: "/v1/sessions/{id}/stream",
        summary: "Server-sent events: the session's new events as they are written (ready, events, notice, gone), rows as in /events",
        params: STREAM,
        request: None,
    },
    Route {
        path: "/v1/sessions/{id}/lineage",
        summary: "Ancestors, descendants, root (scry trace --json)",
        params: &[],
        request: None,
    },
    Route {
        path: "/v1/sessions/{id}/commands",
        summary: "The commands ledger (scry commands --json)",
        params: &[],
        request: Some(door::params::<scry_query::CommandsRequest>),
    },
    Route {
        path: "/v1/sessions/{id}/files",
        summary: "The files ledger (scry files --json)",
        params: &[],
        request: Some(door::params::<scry_query::FilesRequest>),
    },
    Route {
        path: "/v1/sessions/{id}/errors",
        summary: "The errors ledger (scry errors --json)",
        params: &[],
        request: Some(door::params::<scry_query::ErrorsRequest>),
    },
    Route {
        path: "/v1/sessions/{id}/jobs",
        summary: "Background jobs (scry jobs --json)",
        params: &[],
        request: Some(door::params::<scry_query::JobsRequest>),
    },
    Route {
        path: "/v1/graph/{id}",
        summary: "A session's edges to other sessions (scry graph --json)",
        params: &[],
        request: Some(door::params::<scry_query::GraphRequest>),
    },
    Route {
        path: "/v1/search",
        summary: "Search across sessions or within one (scry search --json)",
        params: SEARCH,
        request: None,
    },
    Route {
        path: "/v1/headers",
        summary: "Batch read of headers: one result per reference, in order",
        params: BATCH,
        request: None,
    },
    Route {
        path: "/v1/stream",
        summary: "Server-sent events: sessions the index added or saw grow (session: {change, active, session: list row}; reset)",
        params: &[],
        request: None,
    },
    Route {
        path: "/v1/usage",
        summary: "Tokens and USD per day, week, month, session or 5-hour block (scry usage --json)",
        params: USAGE,
        request: None,
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
