//! The closed set of machine-routable error codes (SPEC S-Q7), shared by CLI JSON, HTTP and MCP.

use std::fmt;

use serde::{Deserialize, Serialize};

/// A closed, stable error code. Its string form never changes once published.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
#[allow(missing_docs)]
pub enum ErrorCode {
    InvalidQuery,
    InvalidFilter,
    InvalidWindow,
    InvalidLineage,
    InvalidCursor,
    InvalidPageSize,
    SessionNotFound,
    AmbiguousId,
    EventNotFound,
    StaleLocator,
    CorruptSession,
    InvalidSurface,
    PersistenceFailure,
    IndexBuildFailure,
    Aborted,
    SearchDisabled,
    SourceConflict,
}

impl ErrorCode {
    /// The stable SCREAMING_SNAKE_CASE form.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::InvalidQuery => "INVALID_QUERY",
            ErrorCode::InvalidFilter => "INVALID_FILTER",
            ErrorCode::InvalidWindow => "INVALID_WINDOW",
            ErrorCode::InvalidLineage => "INVALID_LINEAGE",
            ErrorCode::InvalidCursor => "INVALID_CURSOR",
            ErrorCode::InvalidPageSize => "INVALID_PAGE_SIZE",
            ErrorCode::SessionNotFound => "SESSION_NOT_FOUND",
            ErrorCode::AmbiguousId => "AMBIGUOUS_ID",
            ErrorCode::EventNotFound => "EVENT_NOT_FOUND",
            ErrorCode::StaleLocator => "STALE_LOCATOR",
            ErrorCode::CorruptSession => "CORRUPT_SESSION",
            ErrorCode::InvalidSurface => "INVALID_SURFACE",
            ErrorCode::PersistenceFailure => "PERSISTENCE_FAILURE",
            ErrorCode::IndexBuildFailure => "INDEX_BUILD_FAILURE",
            ErrorCode::Aborted => "ABORTED",
            ErrorCode::SearchDisabled => "SEARCH_DISABLED",
            ErrorCode::SourceConflict => "SOURCE_CONFLICT",
        }
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
