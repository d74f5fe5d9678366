//! Server-sent event streams of the HTTP API (issue 16), for `scry serve` and `scry web`:
//!
//! - `GET /v1/sessions/{id}/stream` — the new events of one session as they are written, with
//!   the filters of `/events` (`kind`, `surface`, `text`, `seq`, `since`, `until`). First an
//!   `event: ready` (`{"session", "session_events"}`), then one `event: events` per change
//!   (`{"session", "events": [rows as in /events], "session_events"}`, `id:` the event count),
//!   an `event: notice` when the source was truncated or rewritten, and `event: gone` (then the
//!   end) when it was deleted. Each stream checks its source's size and mtime every
//!   [`POLL`] and, when they changed, refreshes that one file into the index through the
//!   partial refresh ([`scry_query::events::Follow`]): no file watcher is needed. Opening a
//!   stream costs the session's event count from the index, not a read of its events.
//! - `GET /v1/stream` — changes of the session list: `event: session` with `{"change":
//!   "added" | "grew", "active", "session": <list row>}` for each session the index added or
//!   saw grow. One poller per server (not per client) watches the index's change counter
//!   (`PRAGMA data_version` on its own connection) every [`LIST_POLL`] and compares the
//!   sessions' update times; it sees whatever refreshes the index (a request, a session stream,
//!   a CLI command, a watcher). More than [`MAX_CHANGES`] changes at once send one
//!   `event: reset` (reload the list) instead.
//!
//! A comment line goes out every [`PING`] so a proxy keeps the connection and a closed client
//! is noticed. Streams are exempt from the request timeout (their response starts at once and
//! its body is not timed) but each holds one of the capped connections. Payloads are redacted
//! like every other answer unless the server reveals session text.

use std::collections::HashMap;
use std::convert::Infallible;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context as TaskContext, Poll};
use std::time::{Duration, Instant};

use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use hyper::body::Frame;
use scry_query::events::{Follow, FollowJson, Update};
use scry_query::{EventQuery, QueryResult, SessionRow};
use serde_json::{json, Value};
use tokio::sync::{broadcast, mpsc};

use super::answer::{bounded, checked, id_of, Id, Raw, Unanswered, REQUEST_TIME};
use super::api::{error_response, json_response, Api};

/// How often a session stream checks its source.
pub const POLL: Duration = Duration::from_millis(250);
/// How often the list poller checks the index's change counter.
pub const LIST_POLL: Duration = Duration::from_millis(500);
/// Idle time after which a comment line is sent.
pub const PING: Duration = Duration::from_secs(15);
/// Changes sent one by one per list poll; more become one `reset`.
pub const MAX_CHANGES: usize = 100;
/// A session updated this recently is `active`.
const ACTIVE: Duration = Duration::from_secs(600);

/// A response body fed from a channel of ready SSE chunks; ends when the sender is dropped.
struct Chunks(mpsc::Receiver<Bytes>);

impl hyper::body::Body for Chunks {
    type Data = Bytes;
    type Error = Infallible;
    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut TaskContext<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        self.0.poll_recv(cx).map(|c| c.map(|b| Ok(Frame::data(b))))
    }
}

/// The `text/event-stream` response reading from `rx`.
fn sse_response(rx: mpsc::Receiver<Bytes>) -> Response {
    let mut r = (StatusCode::OK, Body::new(Chunks(rx))).into_response();
    let h = r.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    r
}

/// One SSE message (`data` is compact JSON: one line).
fn message(event: &str, id: Option<u32>, mut data: Value, reveal: bool) -> Bytes {
    if !reveal {
        super::api::redact(&mut data);
    }
    let id = id.map(|n| format!("id: {n}\n")).unwrap_or_default();
    Bytes::from(format!("{id}event: {event}\ndata: {data}\n\n"))
}

fn ping() -> Bytes {
    Bytes::from_static(b": ping\n\n")
}

/// `GET /v1/sessions/{id}/stream`.
pub async fn session(State(api): State<Arc<Api>>, id: Id, raw: Raw) -> Response {
    let params = match checked("/v1/sessions/{id}/stream", raw)
        .and_then(|p| super::team::not_served(&api, "/v1/sessions/{id}/stream").map(|_| p))
    {
        Ok(p) => p,
        Err(e) => return error_response(&e),
    };
    let q: EventQuery = match params.typed(None, &[]) {
        Ok(q) => q,
        Err(e) => return error_response(&e),
    };
    let ctx = api.ctx.clone();
    let opened = bounded(REQUEST_TIME, move || -> QueryResult<Follow> {
        scry_query::events::follow_live(&ctx, &id_of(id)?, &q)
    })
    .await;
    let follow = match opened {
        Ok(f) => f,
        Err(Unanswered::Late(e)) => {
            return json_response(StatusCode::GATEWAY_TIMEOUT, &e.to_json())
        }
        Err(Unanswered::Failed(e)) => return error_response(&e),
    };
    let (tx, rx) = mpsc::channel(16);
    tokio::spawn(pump_session(follow, tx, api.opts.reveal));
    sse_response(rx)
}

/// Sends `ready`, then every change of the followed session, until the client goes away or
/// the source is deleted.
async fn pump_session(follow: Follow, tx: mpsc::Sender<Bytes>, reveal: bool) {
    let uri = follow.uri();
    let ready = FollowJson {
        session: Some(&uri),
        session_events: follow.seen(),
        ..FollowJson::default()
    }
    .to_value();
    if tx
        .send(message("ready", None, ready, reveal))
        .await
        .is_err()
    {
        return;
    }
    let mut follow = Some(follow);
    let mut quiet = Instant::now();
    loop {
        tokio::select! {
            _ = tx.closed() => return,
            _ = tokio::time::sleep(POLL) => {}
        }
        let Some(mut f) = follow.take() else { return };
        let Ok((f, polled)) = tokio::task::spawn_blocking(move || {
            let r = f.poll();
            (f, r)
        })
        .await
        else {
            return;
        };
        follow = Some(f);
        let out = match polled {
            Ok(None) if quiet.elapsed() >= PING => vec![ping()],
            Ok(None) => continue,
            Ok(Some(u)) => update_messages(&uri, &u, reveal),
            Err(e) => vec![message("error", None, e.to_json(), reveal)],
        };
        quiet = Instant::now();
        let end = out
            .iter()
            .any(|m| m.starts_with(b"event: gone") || m.starts_with(b"event: error"));
        for m in out {
            if tx.send(m).await.is_err() {
                return;
            }
        }
        if end {
            return;
        }
    }
}

/// The messages of one update: a notice (or `gone`), then the new events.
fn update_messages(uri: &str, u: &Update, reveal: bool) -> Vec<Bytes> {
    let mut out = Vec::new();
    if let Some(n) = &u.notice {
        let kind = if u.gone { "gone" } else { "notice" };
        out.push(message(
            kind,
            None,
            FollowJson {
                session: Some(uri),
                notice: Some(n),
                session_events: u.session_events,
                ..FollowJson::default()
            }
            .to_value(),
            reveal,
        ));
    }
    if !u.events.is_empty() {
        out.push(message(
            "events",
            Some(u.session_events),
            FollowJson {
                session: Some(uri),
                events: Some(&u.events),
                session_events: u.session_events,
                ..FollowJson::default()
            }
            .to_value(),
            reveal,
        ));
    }
    out
}

/// `GET /v1/stream`.
pub async fn list(State(api): State<Arc<Api>>, raw: Raw) -> Response {
    if let Err(e) =
        checked("/v1/stream", raw).and_then(|_| super::team::not_served(&api, "/v1/stream"))
    {
        return error_response(&e);
    }
    let (ctx, reveal) = (api.ctx.clone(), api.opts.reveal);
    let mut changes = api.hub.subscribe(move |poller| {
        std::thread::Builder::new()
            .name("scry-list-stream".into())
            .spawn(move || poll_list(&ctx, &poller, reveal))
            .map(drop)
    });
    let (tx, rx) = mpsc::channel(64);
    tokio::spawn(async move {
        let hello = Bytes::from_static(b": scry list stream\n\n");
        if tx.send(hello).await.is_err() {
            return;
        }
        loop {
            let next = tokio::select! {
                _ = tx.closed() => return,
                r = tokio::time::timeout(PING, changes.recv()) => r,
            };
            let chunk = match next {
                Err(_) => ping(),
                Ok(Ok(m)) => m,
                Ok(Err(broadcast::error::RecvError::Lagged(_))) => {
                    message("reset", None, json!({"reason": "lagged"}), true)
                }
                Ok(Err(broadcast::error::RecvError::Closed)) => return,
            };
            if tx.send(chunk).await.is_err() {
                return;
            }
        }
    });
    sse_response(rx)
}

/// The poller: every [`LIST_POLL`], the index's `data_version`; when it moved, the sessions
/// whose update time changed are sent. One thread per server for the server's life, costing
/// one pragma per poll (the first reading is the baseline: nothing is sent for it).
fn poll_list(ctx: &scry_query::Context, tx: &broadcast::Sender<Bytes>, reveal: bool) {
    let Some(path) = scry_query::indexed::db_path(ctx) else {
        return;
    };
    let mut store: Option<scry_store::Store> = None;
    let mut version: Option<i64> = None;
    let mut known: Option<HashMap<String, Option<String>>> = None;
    loop {
        std::thread::sleep(LIST_POLL);
        if store.is_none() {
            if !path.exists() {
                continue;
            }
            store = scry_store::Store::open(&path).ok();
        }
        let Some(s) = store.as_ref() else { continue };
        let v = s.data_version().ok();
        if v.is_none() {
            store = None;
            continue;
        }
        if v == version {
            continue;
        }
        version = v;
        let Ok(rows) = s.list_rows() else { continue };
        let now: HashMap<String, Option<String>> = rows
            .iter()
            .map(|r| (r.uri.clone(), r.updated.map(|t| t.to_string())))
            .collect();
        let Some(before) = known.replace(now.clone()) else {
            continue;
        };
        let changed: Vec<(&scry_store::ListRow, &str)> = rows
            .iter()
            .filter_map(|r| match before.get(&r.uri) {
                None => Some((r, "added")),
                Some(u) if *u != now.get(&r.uri).cloned().flatten() => Some((r, "grew")),
                Some(_) => None,
            })
            .collect();
        if changed.is_empty() {
            continue;
        }
        if changed.len() > MAX_CHANGES {
            let _ = tx.send(message(
                "reset",
                None,
                json!({"reason": "many", "changes": changed.len()}),
                true,
            ));
            continue;
        }
        for (row, change) in changed {
            let Ok(h) = s.header_by_sid(row.sid) else {
                continue;
            };
            let file = std::path::Path::new(&row.path);
            let active = h.updated.is_some_and(|t| {
                let age = scry_model::Timestamp::now().as_millisecond() - t.as_millisecond();
                (0..ACTIVE.as_millis() as i64).contains(&age)
            });
            let session = SessionRow {
                header: scry_query::indexed::normalize(h),
                children: Default::default(),
                size: scry_source::file_stat(file).0,
                fingerprint: scry_query::fingerprint_text(file),
                cost: None,
                failures: None,
            };
            let data = json!({"change": change, "active": active, "session": session.to_json()});
            let _ = tx.send(message("session", None, data, reveal));
        }
    }
}
