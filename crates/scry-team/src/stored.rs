//! How a session travels: its header as JSON text, its events and warnings as one
//! zstd-compressed JSON body, and one searchable text per event (text, tool name, arguments:
//! what the local search reads, [`scry_store::aux_text`]). Redaction (S-R3), when asked, is
//! applied to the whole session as JSON before any of it leaves the machine.

use scry_model::{ErrorCode, Event, Header, Session, Warning};
use scry_query::QueryError;
use serde::{Deserialize, Serialize};

/// The stored body of a session.
#[derive(Serialize, Deserialize)]
pub(crate) struct Body {
    pub events: Vec<Event>,
    pub warnings: Vec<Warning>,
}

fn corrupt(what: &str, e: impl std::fmt::Display) -> QueryError {
    QueryError::new(
        ErrorCode::CorruptSession,
        format!("team store: {what} does not decode: {e}"),
    )
}

/// `session` with every secret replaced by its marker, as `scry serve` and MCP redact their
/// answers (identifier-shaped values under identifier keys keep their shape).
pub(crate) fn redacted(session: Session) -> Result<Session, QueryError> {
    let mut v = serde_json::to_value(&session).map_err(|e| corrupt("session", e))?;
    let found = scry_redact::redact_json_with_ids(&mut v, scry_redact::ANSWER_ID_KEYS);
    if found.is_empty() {
        return Ok(session);
    }
    serde_json::from_value(v).map_err(|e| corrupt("redacted session", e))
}

/// The header as stored.
pub(crate) fn header_text(h: &Header) -> Result<String, QueryError> {
    serde_json::to_string(h).map_err(|e| corrupt("header", e))
}

/// The header back.
pub(crate) fn header_from(text: &str) -> Result<Header, QueryError> {
    serde_json::from_str(text).map_err(|e| corrupt("header", e))
}

/// The body as stored (zstd level 3 over JSON).
pub(crate) fn encode(events: &[Event], warnings: &[Warning]) -> Result<Vec<u8>, QueryError> {
    #[derive(Serialize)]
    struct BodyRef<'a> {
        events: &'a [Event],
        warnings: &'a [Warning],
    }
    let json = serde_json::to_vec(&BodyRef { events, warnings }).map_err(|e| corrupt("body", e))?;
    zstd::encode_all(&json[..], 3).map_err(|e| corrupt("body", e))
}

/// The body back.
pub(crate) fn decode(bytes: &[u8]) -> Result<Body, QueryError> {
    let json = zstd::decode_all(bytes).map_err(|e| corrupt("body", e))?;
    serde_json::from_slice(&json).map_err(|e| corrupt("body", e))
}

/// The searchable text of `e` (PostgreSQL text holds no NUL: replaced by a space, which no
/// trigram of a query without NUL needs).
pub(crate) fn search_text(e: &Event) -> String {
    let mut t = e.text.clone();
    if let Some(aux) = scry_store::aux_text(e) {
        t.push('\n');
        t.push_str(&aux);
    }
    if t.contains('\0') {
        t = t.replace('\0', " ");
    }
    t
}
