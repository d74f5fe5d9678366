//! What every handler of the HTTP API shares (a leaf of `http`: the router, the handlers, the
//! streams and the server import it, it imports none of them): the options and state of an
//! API ([`ApiOptions`], [`Api`]), the JSON responses ([`json_response`], [`error_response`])
//! and the one redaction rule of every answer ([`redact`]).

use std::net::IpAddr;

use axum::body::Body;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use scry_query::QueryError;
use serde_json::Value;

use super::hub::Hub;

/// How the API answers.
#[derive(Debug, Clone, Default)]
pub struct ApiOptions {
    /// Required bearer token (`Authorization: Bearer <token>`); `None` = no token.
    pub token: Option<String>,
    /// Show session text unredacted (only ever set for a loopback bind).
    pub reveal: bool,
    /// Host names (without port) the `Host` header may carry; empty = any (a server bound to
    /// every interface behind a token).
    pub allowed_hosts: Vec<String>,
    /// Log each request on stderr.
    pub log: bool,
    /// Answer the session routes from this team store (`serve --store`, issue 22).
    pub store: Option<String>,
}

impl ApiOptions {
    /// Options for a server bound to `ip` (as given on the command line as `host`): the loopback
    /// names and the given host are accepted in the `Host` header; an unspecified address
    /// (0.0.0.0, ::) accepts any, since it then requires a token.
    pub fn for_bind(host: &str, ip: IpAddr, token: Option<String>, reveal: bool) -> Self {
        let allowed_hosts = if ip.is_unspecified() {
            Vec::new()
        } else {
            let mut names: Vec<String> = ["localhost", "127.0.0.1", "::1"]
                .iter()
                .map(|s| s.to_string())
                .collect();
            for n in [host.to_ascii_lowercase(), ip.to_string()] {
                if !names.contains(&n) {
                    names.push(n);
                }
            }
            names
        };
        ApiOptions {
            token,
            reveal,
            allowed_hosts,
            log: true,
            store: None,
        }
    }
}

/// What every handler shares.
#[derive(Debug)]
pub struct Api {
    /// Where sessions are read from.
    pub ctx: scry_query::Context,
    /// How to answer.
    pub opts: ApiOptions,
    /// The list-change poller of `/v1/stream` (started by its first client).
    pub hub: Hub,
}

/// A response with a changed status.
pub(super) trait WithStatus {
    fn with_status(self, status: StatusCode) -> Response;
}

impl WithStatus for Response {
    fn with_status(mut self, status: StatusCode) -> Response {
        *self.status_mut() = status;
        self
    }
}

/// A JSON body with the no-store / no-sniff headers.
pub fn json_response(status: StatusCode, v: &Value) -> Response {
    let mut body = serde_json::to_string(v).unwrap_or_else(|_| "null".into());
    body.push('\n');
    let mut r = (status, Body::from(body)).into_response();
    let h = r.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    r
}

/// The JSON error with the status that fits its code.
pub fn error_response(e: &QueryError) -> Response {
    let status = StatusCode::from_u16(e.http_status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    json_response(status, &e.to_json())
}

/// The identifier keys of scry's answers ([`scry_redact::ANSWER_ID_KEYS`]).
const ID_KEYS: &[&str] = scry_redact::ANSWER_ID_KEYS;

/// Redacts session text in `v` in place (S-R3): every string at every depth goes through
/// `scry_redact`, identifier-shaped values under [`ID_KEYS`] keep their random-looking parts,
/// and the whole value of a secret-named field (`"api_key": "…"` in tool arguments) is
/// replaced. Returns how many spans were redacted. `serve`, `web --redact`, MCP and
/// `export --redact` all redact with this one rule.
pub fn redact(v: &mut Value) -> usize {
    scry_redact::redact_json_with_ids(v, ID_KEYS).len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redaction_keeps_identifiers() {
        let mut v = serde_json::json!({
            "session": {"uri": "claude:4f1c2a9e-7b3d-4c8e-9a21-5d6e7f809a1b", "title": "x"},
            "text": "key sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGH",
        });
        assert!(redact(&mut v) >= 1);
        assert_eq!(
            v["session"]["uri"],
            "claude:4f1c2a9e-7b3d-4c8e-9a21-5d6e7f809a1b"
        );
        assert!(v["text"].as_str().unwrap().contains("[redacted:"));
    }

    #[test]
    fn redaction_replaces_secret_named_fields_in_tool_arguments() {
        let mut v = serde_json::json!({
            "call_id": "toolu_01ABCdefGHIjklMNOpqrSTUvwx",
            "args": {"api_key": "abc123def456", "command": "curl example.com"},
        });
        assert_eq!(redact(&mut v), 1);
        assert_eq!(v["args"]["api_key"], "[redacted:secret_assignment]");
        assert_eq!(v["args"]["command"], "curl example.com");
        assert_eq!(v["call_id"], "toolu_01ABCdefGHIjklMNOpqrSTUvwx");
    }

    #[test]
    fn redaction_scans_identifier_keys_inside_tool_arguments() {
        // Issue 15: `code`, `to`, `path`, `id` were exempt at every depth.
        let mut v = serde_json::json!({
            "call_id": "toolu_01ABCdefGHIjklMNOpqrSTUvwx",
            "args": {
                "code": "openai.api_key='sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z'",
                "to": "sk-0123456789abcdef0123456789abcdef",
                "path": "/home/dev/project/src/main.rs",
            },
        });
        assert_eq!(redact(&mut v), 2);
        assert_eq!(v["args"]["code"], "openai.api_key='[redacted:openai_key]'");
        assert_eq!(v["args"]["to"], "[redacted:deepseek_key]");
        assert_eq!(v["args"]["path"], "/home/dev/project/src/main.rs");
    }
}
