//! The HTTP JSON API (S-H1) as an [`axum::Router`]: `scry serve` runs it alone, `scry web`
//! mounts it beside its page. Every route answers from the query API (or, for the ledgers and
//! the graph, from the CLI command with `--json`), so bodies are exactly what the CLI prints.
//!
//! Guards, in order: the `Host` header must name this server (DNS rebinding: a foreign page
//! that resolves its own name to 127.0.0.1 still sends that name); only GET / HEAD (405 with
//! `Allow` otherwise); a bearer token, when configured, compared in constant time. Errors are
//! `{"error": {"code", "message", "candidates"}}` with the closed codes of S-Q7 and a fitting
//! status. Each request is logged on stderr as method, path, status and time — never the query
//! string or any session text. Session text is redacted (S-R3) unless the server reveals it.
//! [`run`] serves within the limits of [`server`] (timeouts, connection and request caps, a
//! bounded blocking pool) so that neither load nor slow clients starve it.

mod answer;
mod api;
mod hub;
pub mod openapi;
mod routes;
pub mod server;
pub mod stream;
mod team;

pub use api::{error_response, redact, Api, ApiOptions};

use std::io::Write;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Instant;

use axum::extract::{Request, State};
use axum::http::{header, HeaderValue, Method, StatusCode};
use axum::middleware::{self, Next};
use axum::response::Response;
use axum::Router;
use scry_model::ErrorCode;
use scry_query::QueryError;

use api::WithStatus;

use crate::error::{CliError, CliResult};

/// The API router for `ctx`: every route of [`openapi::ROUTES`] behind the guards, without a
/// fallback (so it can be merged beside other routes; `scry serve` adds a JSON 404). This is the
/// entry `scry web` mounts beside its page (see [`front_router`]).
pub fn api_router(ctx: scry_query::Context, opts: ApiOptions) -> Router {
    let guards = opts.clone();
    let api = Arc::new(Api {
        ctx,
        opts,
        hub: hub::Hub::default(),
    });
    guarded(routes::routes(api), &guards)
}

/// The whole `scry serve` app: the API plus a JSON 404 for unknown paths, all behind the guards.
pub fn serve_router(ctx: scry_query::Context, opts: ApiOptions) -> Router {
    let guards = opts.clone();
    let api = Arc::new(Api {
        ctx,
        opts,
        hub: hub::Hub::default(),
    });
    let app = routes::routes(api).fallback(not_found);
    guarded(app, &guards)
}

/// Serves `app` on `addr` until Ctrl-C / SIGINT, within the [`server::Limits`] the
/// environment gives (header and request timeouts, caps on connections and requests, a bounded
/// blocking pool). Once listening, `announce` gets the bound address (port 0 picks a free
/// one) and names it on stdout: the first line of `scry serve` and `scry web`.
pub fn run(
    addr: SocketAddr,
    app: Router,
    announce: impl FnOnce(SocketAddr) -> String,
) -> CliResult<()> {
    let limits = server::Limits::from_env()?;
    let runtime = server::runtime(&limits)?;
    let served = runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(addr).await.map_err(|e| {
            CliError::new(ErrorCode::Aborted, format!("cannot listen on {addr}: {e}"))
        })?;
        let local = listener.local_addr()?;
        {
            let mut out = std::io::stdout().lock();
            writeln!(out, "{}", announce(local))?;
            out.flush()?;
        }
        server::serve(listener, app, limits).await
    });
    // Blocking work still running (a request abandoned after its timeout) is not waited for.
    runtime.shutdown_timeout(std::time::Duration::from_secs(1));
    served
}

/// A front end's own routes (`scry web`'s page and scripts) behind the same guards as the API,
/// with the JSON 404 for every other path. Merged with [`api_router`] (same options), both are
/// served by one server and every request passes the guards (and is logged) exactly once.
pub fn front_router(page: Router, opts: &ApiOptions) -> Router {
    guarded(page.fallback(not_found), opts)
}

fn guarded(app: Router, opts: &ApiOptions) -> Router {
    app.layer(middleware::from_fn_with_state(
        Arc::new(opts.clone()),
        guard,
    ))
}

async fn not_found(req: Request) -> Response {
    error_response(&QueryError::new(
        ErrorCode::InvalidQuery,
        format!("no such route: {} (see /openapi.json)", req.uri().path()),
    ))
    .with_status(StatusCode::NOT_FOUND)
}

/// Host check, method check, token check, then the handler; logs the outcome.
async fn guard(State(opts): State<Arc<ApiOptions>>, req: Request, next: Next) -> Response {
    let start = Instant::now();
    let method = req.method().clone();
    let path = req.uri().path().to_string();
    let resp = match check(&opts, &req) {
        Some(refused) => refused,
        None => next.run(req).await,
    };
    if opts.log {
        eprintln!(
            "{method} {path} {} {:.1}ms",
            resp.status().as_u16(),
            start.elapsed().as_secs_f64() * 1000.0
        );
    }
    resp
}

fn check(opts: &ApiOptions, req: &Request) -> Option<Response> {
    if !host_allowed(&opts.allowed_hosts, req) {
        return Some(
            error_response(&QueryError::new(
                ErrorCode::InvalidQuery,
                "the Host header does not name this server (DNS rebinding guard)",
            ))
            .with_status(StatusCode::FORBIDDEN),
        );
    }
    if req.method() != Method::GET && req.method() != Method::HEAD {
        let mut r = error_response(&QueryError::new(
            ErrorCode::InvalidQuery,
            format!(
                "{} is not allowed: the API is read-only (GET)",
                req.method()
            ),
        ))
        .with_status(StatusCode::METHOD_NOT_ALLOWED);
        r.headers_mut()
            .insert(header::ALLOW, HeaderValue::from_static("GET, HEAD"));
        return Some(r);
    }
    if let Some(token) = &opts.token {
        let given = req
            .headers()
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "))
            .unwrap_or("");
        if !constant_time_eq(given.trim().as_bytes(), token.as_bytes()) {
            let mut r = error_response(&QueryError::new(
                ErrorCode::InvalidQuery,
                "missing or wrong bearer token (Authorization: Bearer <token>)",
            ))
            .with_status(StatusCode::UNAUTHORIZED);
            r.headers_mut().insert(
                header::WWW_AUTHENTICATE,
                HeaderValue::from_static("Bearer realm=\"scry\""),
            );
            return Some(r);
        }
    }
    None
}

/// Whether the `Host` header names an allowed host (any port). A request without one is
/// refused unless every host is allowed.
fn host_allowed(allowed: &[String], req: &Request) -> bool {
    if allowed.is_empty() {
        return true;
    }
    let Some(host) = req
        .headers()
        .get(header::HOST)
        .and_then(|v| v.to_str().ok())
    else {
        return false;
    };
    let host = host.trim().to_ascii_lowercase();
    let name = if let Some(rest) = host.strip_prefix('[') {
        rest.split(']').next().unwrap_or("")
    } else {
        host.rsplit_once(':').map_or(host.as_str(), |(n, port)| {
            if port.chars().all(|c| c.is_ascii_digit()) {
                n
            } else {
                host.as_str()
            }
        })
    };
    allowed.iter().any(|a| a == name)
}

/// Compares two byte strings in time that depends only on the expected length.
pub fn constant_time_eq(given: &[u8], expected: &[u8]) -> bool {
    let mut diff = u8::from(given.len() != expected.len());
    for (i, e) in expected.iter().enumerate() {
        let g = given.get(i).copied().unwrap_or(0);
        diff |= g ^ e;
    }
    diff == 0
}

#[cfg(test)]
mod tests {
    use axum::body::Body;

    use super::*;

    #[test]
    fn tokens_compare_whole() {
        assert!(constant_time_eq(b"secret", b"secret"));
        assert!(!constant_time_eq(b"secreT", b"secret"));
        assert!(!constant_time_eq(b"secret-longer", b"secret"));
        assert!(!constant_time_eq(b"", b"secret"));
    }

    #[test]
    fn hosts_are_names_without_port() {
        let allowed = ApiOptions::for_bind("127.0.0.1", "127.0.0.1".parse().unwrap(), None, false)
            .allowed_hosts;
        let req = |h: &str| {
            Request::builder()
                .uri("/health")
                .header("host", h)
                .body(Body::empty())
                .unwrap()
        };
        assert!(host_allowed(&allowed, &req("127.0.0.1:7777")));
        assert!(host_allowed(&allowed, &req("LOCALHOST:80")));
        assert!(host_allowed(&allowed, &req("[::1]:7777")));
        assert!(!host_allowed(&allowed, &req("evil.example:7777")));
        assert!(!host_allowed(&allowed, &req("127.0.0.1.evil.example")));
    }
}
