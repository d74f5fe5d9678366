//! The server loop of `scry serve` and `scry web` and the limits that keep it answerable under
//! load or attack (issue 15, defect 6): hyper's HTTP/1 connection with a header read timeout
//! (slow-loris connections and idle keep-alives are closed), a cap on open connections (beyond
//! it a connection gets a canned 503 and is closed, so descriptors cannot run out), a cap on
//! admitted requests (503 with `Retry-After` beyond it), a bounded number of requests working
//! at once (each one's blocking work runs on tokio's blocking pool, now bounded to match; its
//! default of 512 threads, each with its own malloc arena, kept ~250 MB after a burst), and a
//! request timeout (504 with the error JSON; the work itself cannot be interrupted, so it keeps
//! its slot until it ends). `/health` has its own small allowance and reserved blocking
//! threads, so it answers while the API is saturated.
//!
//! Every limit has a default and an environment variable (for tests and the load benchmark):
//! `SCRY_SERVE_HEADER_TIMEOUT_MS` (5000), `SCRY_SERVE_REQUEST_TIMEOUT_MS` (30000),
//! `SCRY_SERVE_WORKERS` (2 × cores, at most 32), `SCRY_SERVE_MAX_REQUESTS` (admitted at once,
//! working or waiting: 32 × workers), `SCRY_SERVE_MAX_CONNECTIONS` (from the descriptor soft
//! limit: limit − 128 − 8 × workers, at least half the limit and at least 16).

use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::extract::{Request, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::middleware::{self, Next};
use axum::response::Response;
use axum::Router;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use scry_model::ErrorCode;
use scry_query::QueryError;
use tokio::io::AsyncWriteExt;
use tokio::sync::{watch, Semaphore};

use super::api::{error_response, WithStatus};
use crate::error::{CliError, CliResult};

/// Concurrent `/health` requests answered beside the capped API (one blocking thread each).
const HEALTH_SLOTS: usize = 2;

/// Seconds a client is told to wait (`Retry-After`) when the server is full.
const RETRY_AFTER: &str = "1";

/// The answer to a connection over the cap (it never reaches hyper or the router): a 503 with
/// the error JSON, `Retry-After`, and `Connection: close`.
fn full_response() -> Vec<u8> {
    let body = QueryError::new(
        ErrorCode::Aborted,
        "too many open connections (SCRY_SERVE_MAX_CONNECTIONS); retry shortly",
    )
    .to_json()
    .to_string()
        + "\n";
    format!(
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\n\
         retry-after: {RETRY_AFTER}\r\ncache-control: no-store\r\nconnection: close\r\n\
         content-length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

/// The server's resource limits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    /// How long a client may take to send a request's headers (also an idle keep-alive's life).
    pub header_timeout: Duration,
    /// How long a request may take before it is answered 504.
    pub request_timeout: Duration,
    /// Requests working at once (and the blocking threads they run on).
    pub workers: usize,
    /// Requests admitted at once, working or waiting for a worker; 503 beyond.
    pub max_requests: usize,
    /// Open connections; beyond, a connection gets a 503 and is closed.
    pub max_connections: usize,
}

impl Limits {
    /// The defaults for this machine, each overridden by its environment variable (see the
    /// module documentation). A value that is not a positive whole number is a usage error.
    pub fn from_env() -> CliResult<Limits> {
        let var = |name: &str| std::env::var(name).ok();
        Limits::from_vars(var, nofile_soft_limit())
    }

    fn from_vars(var: impl Fn(&str) -> Option<String>, nofile: Option<u64>) -> CliResult<Limits> {
        let num = |name: &str| -> CliResult<Option<u64>> {
            let Some(v) = var(name) else { return Ok(None) };
            match v.trim().parse::<u64>() {
                Ok(n) if n > 0 => Ok(Some(n)),
                _ => Err(CliError::usage(
                    ErrorCode::InvalidQuery,
                    format!("{name}='{v}' is not a positive whole number"),
                )),
            }
        };
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        let workers = num("SCRY_SERVE_WORKERS")?.map_or((2 * cores).min(32), |n| n as usize);
        // Descriptors left for connections: the limit minus a reserve for the index, the
        // session files the workers read and the runtime; never less than half the limit.
        let fd_room = nofile.map_or(1024, |n| {
            n.saturating_sub(128 + 8 * workers as u64).max(n / 2)
        });
        Ok(Limits {
            header_timeout: Duration::from_millis(
                num("SCRY_SERVE_HEADER_TIMEOUT_MS")?.unwrap_or(5_000),
            ),
            request_timeout: Duration::from_millis(
                num("SCRY_SERVE_REQUEST_TIMEOUT_MS")?.unwrap_or(30_000),
            ),
            workers,
            max_requests: num("SCRY_SERVE_MAX_REQUESTS")?.map_or(32 * workers, |n| n as usize),
            max_connections: num("SCRY_SERVE_MAX_CONNECTIONS")?
                .map_or(fd_room.clamp(16, 65_536) as usize, |n| n as usize),
        })
    }
}

/// The soft `RLIMIT_NOFILE` of this process, from `/proc/self/limits` (Linux); `None` elsewhere.
fn nofile_soft_limit() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/self/limits").ok()?;
    let line = text.lines().find(|l| l.starts_with("Max open files"))?;
    line["Max open files".len()..]
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// What the admission layer shares.
#[derive(Debug)]
struct Gate {
    limits: Limits,
    /// Admitted requests (working or waiting).
    admitted: Arc<Semaphore>,
    /// Working requests.
    working: Arc<Semaphore>,
    /// `/health` requests.
    health: Arc<Semaphore>,
}

/// Serves `app` on `listener` with `limits` until Ctrl-C / SIGINT, then lets open connections
/// finish (up to a few seconds). Must run inside a runtime built by [`runtime`].
pub async fn serve(
    listener: tokio::net::TcpListener,
    app: Router,
    limits: Limits,
) -> CliResult<()> {
    let gate = Arc::new(Gate {
        admitted: Arc::new(Semaphore::new(limits.max_requests)),
        working: Arc::new(Semaphore::new(limits.workers)),
        health: Arc::new(Semaphore::new(HEALTH_SLOTS)),
        limits: limits.clone(),
    });
    let app = app.layer(middleware::from_fn_with_state(gate, admit));
    let connections = Arc::new(Semaphore::new(limits.max_connections));
    let (stop_tx, stop_rx) = watch::channel(false);
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout);
    let ctrl_c = tokio::signal::ctrl_c();
    tokio::pin!(ctrl_c);
    loop {
        let (stream, _) = tokio::select! {
            _ = &mut ctrl_c => break,
            accepted = listener.accept() => match accepted {
                Ok(a) => a,
                // Out of descriptors or a connection reset before it was accepted: wait a
                // moment (descriptors come back as connections close) and go on.
                Err(_) => {
                    tokio::time::sleep(Duration::from_millis(20)).await;
                    continue;
                }
            },
        };
        let Ok(permit) = Arc::clone(&connections).try_acquire_owned() else {
            tokio::spawn(async move {
                let mut stream = stream;
                let full = full_response();
                let _ = tokio::time::timeout(Duration::from_secs(1), stream.write_all(&full)).await;
            });
            continue;
        };
        let conn =
            http.serve_connection(TokioIo::new(stream), TowerToHyperService::new(app.clone()));
        let mut stop = stop_rx.clone();
        tokio::spawn(async move {
            tokio::pin!(conn);
            let stopped = tokio::select! {
                _ = conn.as_mut() => false,
                r = stop.wait_for(|s| *s) => r.is_ok(),
            };
            if stopped {
                conn.as_mut().graceful_shutdown();
                let _ = tokio::time::timeout(Duration::from_secs(3), conn).await;
            }
            drop(permit);
        });
    }
    let _ = stop_tx.send(true);
    let all = u32::try_from(limits.max_connections).unwrap_or(u32::MAX);
    let _ = tokio::time::timeout(Duration::from_secs(4), connections.acquire_many(all)).await;
    Ok(())
}

/// The multi-thread runtime of the server, its blocking pool bounded to the workers plus the
/// `/health` slots (tokio's default is 512 threads).
pub fn runtime(limits: &Limits) -> CliResult<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .max_blocking_threads(limits.workers + HEALTH_SLOTS)
        .build()
        .map_err(|e| CliError::new(ErrorCode::Aborted, format!("cannot start the server: {e}")))
}

/// Admission: `/health` takes one of its own slots; any other request one of the admitted
/// slots (503 + `Retry-After` when none is free), then waits for a worker. The request runs in
/// its own task holding both slots until it ends, so a request answered 504 after the timeout
/// still counts until its (uninterruptible) blocking work is done; one abandoned (timed out,
/// or its client gone) before it got a worker is dropped without running.
async fn admit(State(gate): State<Arc<Gate>>, req: Request, next: Next) -> Response {
    let start = Instant::now();
    let health = req.uri().path() == "/health";
    let method = req.method().clone();
    let path = req.uri().path().to_string();
    let slots = if health {
        Arc::clone(&gate.health).try_acquire_owned()
    } else {
        Arc::clone(&gate.admitted).try_acquire_owned()
    };
    let Ok(admitted) = slots else {
        let resp = busy(if health {
            format!("{HEALTH_SLOTS} health checks in flight; retry shortly")
        } else {
            format!(
                "the server is busy: {} requests in flight (SCRY_SERVE_MAX_REQUESTS); retry shortly",
                gate.limits.max_requests
            )
        });
        log_refused(&method, &path, &resp, start);
        return resp;
    };
    let working = (!health).then(|| Arc::clone(&gate.working));
    let (tx, rx) = tokio::sync::oneshot::channel();
    tokio::spawn(async move {
        let _working = match working {
            Some(w) => Some(w.acquire_owned().await),
            None => None,
        };
        // Answered 504 while waiting for a worker, or the client went away: skip the work.
        if tx.is_closed() {
            return;
        }
        let _ = tx.send(next.run(req).await);
        drop(admitted);
    });
    match tokio::time::timeout(gate.limits.request_timeout, rx).await {
        Ok(Ok(resp)) => resp,
        Ok(Err(_)) => error_response(&QueryError::new(
            ErrorCode::Aborted,
            "the request failed inside scry",
        )),
        Err(_) => {
            let resp = error_response(&QueryError::new(
                ErrorCode::Aborted,
                format!(
                    "the request took longer than {:.1} s (SCRY_SERVE_REQUEST_TIMEOUT_MS) and was abandoned; narrow it or retry later",
                    gate.limits.request_timeout.as_secs_f64()
                ),
            ))
            .with_status(StatusCode::GATEWAY_TIMEOUT);
            log_refused(&method, &path, &resp, start);
            resp
        }
    }
}

/// 503 with the error JSON and `Retry-After`.
fn busy(message: String) -> Response {
    let mut r = error_response(&QueryError::new(ErrorCode::Aborted, message))
        .with_status(StatusCode::SERVICE_UNAVAILABLE);
    r.headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from_static(RETRY_AFTER));
    r
}

/// The request-log line of a request the guards never saw (they log every other one).
fn log_refused(method: &axum::http::Method, path: &str, resp: &Response, start: Instant) {
    eprintln!(
        "{method} {path} {} {:.1}ms",
        resp.status().as_u16(),
        start.elapsed().as_secs_f64() * 1000.0
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |name| {
            pairs
                .iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| v.to_string())
        }
    }

    #[test]
    fn defaults_follow_the_descriptor_limit() {
        let l = Limits::from_vars(vars(&[("SCRY_SERVE_WORKERS", "4")]), Some(1024)).unwrap();
        assert_eq!(l.workers, 4);
        assert_eq!(l.max_connections, 1024 - 128 - 32);
        assert_eq!(l.header_timeout, Duration::from_secs(5));
        let tiny = Limits::from_vars(vars(&[]), Some(20)).unwrap();
        assert_eq!(tiny.max_connections, 16);
        let many = Limits::from_vars(vars(&[("SCRY_SERVE_WORKERS", "150")]), Some(1024)).unwrap();
        assert_eq!(many.max_connections, 512, "never less than half the limit");
        assert_eq!(many.max_requests, 32 * 150);
    }

    #[test]
    fn bad_values_are_usage_errors_naming_the_variable() {
        for bad in ["0", "-1", "ten", ""] {
            let e = Limits::from_vars(vars(&[("SCRY_SERVE_MAX_REQUESTS", bad)]), None).unwrap_err();
            assert_eq!(e.exit_code(), 2);
            let msg = e.message().unwrap_or_default().to_string();
            assert!(msg.contains("SCRY_SERVE_MAX_REQUESTS"), "{msg}");
        }
    }
}
