//! The one error type of the query API (SPEC S-Q7): a closed [`ErrorCode`] with its stable
//! string form, one line naming the offending value, and the candidates of an ambiguous
//! reference. Each front end derives its own status from the code: the HTTP status here
//! ([`QueryError::http_status`]), the CLI's exit status in the CLI (SPEC §3).

use std::fmt;

use scry_model::ErrorCode;
use scry_sources::ResolveError;
use serde::Serialize;
use serde_json::{json, Value};

/// A failed query.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct QueryError {
    /// The machine-routable code (serialized as its SCREAMING_SNAKE_CASE form).
    pub code: ErrorCode,
    /// One line naming the offending value.
    pub message: String,
    /// Every candidate of an ambiguous reference (`provider:id`, or artifact paths).
    pub candidates: Vec<String>,
}

/// Result of a query.
pub type QueryResult<T> = Result<T, QueryError>;

impl QueryError {
    /// A failure with `code`.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        QueryError {
            code,
            message: message.into(),
            candidates: Vec::new(),
        }
    }

    /// Invalid input from the caller: the same as [`QueryError::new`], said where it is built
    /// (every code it is given is one of the `INVALID_*` family or `STALE_LOCATOR`, which every
    /// front end reports as the caller's mistake).
    pub fn usage(code: ErrorCode, message: impl Into<String>) -> Self {
        QueryError::new(code, message)
    }

    /// An ambiguous reference with its candidates.
    pub fn ambiguous(message: impl Into<String>, candidates: Vec<String>) -> Self {
        QueryError {
            candidates,
            ..QueryError::new(ErrorCode::AmbiguousId, message)
        }
    }

    /// The stable string form of the code (`SESSION_NOT_FOUND`, …).
    pub fn code_str(&self) -> &'static str {
        self.code.as_str()
    }

    /// The HTTP status that fits the code: 404 not found, 409 ambiguous / conflict, 400 for
    /// invalid input, 410 for a locator whose record changed, 503 when search or the index is
    /// unavailable, 500 otherwise.
    pub fn http_status(&self) -> u16 {
        match self.code {
            ErrorCode::SessionNotFound | ErrorCode::EventNotFound => 404,
            ErrorCode::AmbiguousId | ErrorCode::SourceConflict => 409,
            ErrorCode::InvalidQuery
            | ErrorCode::InvalidFilter
            | ErrorCode::InvalidWindow
            | ErrorCode::InvalidLineage
            | ErrorCode::InvalidCursor
            | ErrorCode::InvalidPageSize
            | ErrorCode::InvalidSurface => 400,
            ErrorCode::StaleLocator => 410,
            ErrorCode::SearchDisabled | ErrorCode::IndexBuildFailure => 503,
            ErrorCode::CorruptSession | ErrorCode::PersistenceFailure | ErrorCode::Aborted => 500,
        }
    }

    /// The JSON error object every surface prints: `{"error": {"code", "message", "candidates"}}`.
    pub fn to_json(&self) -> Value {
        json!({
            "error": {
                "code": self.code.as_str(),
                "message": self.message,
                "candidates": self.candidates,
            }
        })
    }
}

impl fmt::Display for QueryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for QueryError {}

impl From<ResolveError> for QueryError {
    fn from(e: ResolveError) -> Self {
        match &e {
            ResolveError::NotFound(_) | ResolveError::NotAFile { .. } => {
                QueryError::new(ErrorCode::SessionNotFound, e.to_string())
            }
            ResolveError::TooShort(_) => QueryError::usage(ErrorCode::InvalidQuery, e.to_string()),
            ResolveError::UnknownProvider(..) => {
                QueryError::usage(ErrorCode::InvalidFilter, e.to_string())
            }
            ResolveError::Ambiguous {
                reference,
                candidates,
            } => ambiguous(reference, candidates),
        }
    }
}

/// The error for a reference several sessions match: the message names each candidate once
/// with its path; `candidates` are references that pick each one (its uri, or its path when
/// another candidate has the same uri — the same session id in two files).
fn ambiguous(reference: &str, candidates: &[scry_sources::Candidate]) -> QueryError {
    let shared = |uri: &str| candidates.iter().filter(|c| c.uri == uri).count() > 1;
    let listed: Vec<String> = candidates
        .iter()
        .map(|c| format!("{} at {}", c.uri, c.path))
        .collect();
    QueryError::ambiguous(
        format!(
            "'{reference}' is ambiguous: {} sessions match ({})",
            candidates.len(),
            listed.join(", ")
        ),
        candidates
            .iter()
            .map(|c| {
                if shared(&c.uri) {
                    c.path.clone()
                } else {
                    c.uri.clone()
                }
            })
            .collect(),
    )
}

impl From<scry_store::StoreError> for QueryError {
    fn from(e: scry_store::StoreError) -> Self {
        QueryError::new(e.code(), e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_map_to_statuses() {
        let e = QueryError::new(ErrorCode::SessionNotFound, "no session 'x'");
        assert_eq!(e.http_status(), 404);
        assert_eq!(e.to_json()["error"]["code"], "SESSION_NOT_FOUND");
        let u = QueryError::usage(ErrorCode::StaleLocator, "stale");
        assert_eq!(u.http_status(), 410);
        let a = QueryError::ambiguous("two", vec!["claude:a".into(), "claude:b".into()]);
        assert_eq!(a.http_status(), 409);
        assert_eq!(a.to_json()["error"]["candidates"][1], "claude:b");
    }
}
