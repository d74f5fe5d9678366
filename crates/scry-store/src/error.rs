//! The one error type of the store, each variant carrying its closed code (SPEC S-Q7).

use scry_model::ErrorCode;

/// Everything the store can fail with. [`StoreError::code`] gives the machine-routable code.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The search query is invalid (e.g. a regex that does not compile; the message is the
    /// regex engine's own).
    #[error("invalid query: {0}")]
    InvalidQuery(String),
    /// A filter value is invalid (an empty provider list entry, an inverted range, …).
    #[error("invalid filter: {0}")]
    InvalidFilter(String),
    /// An event window (seq range) is invalid.
    #[error("invalid window: {0}")]
    InvalidWindow(String),
    /// A cursor is malformed or belongs to another query, filter set or page size.
    #[error("invalid cursor: {0}")]
    InvalidCursor(String),
    /// A page size (limit / max hits) is out of range.
    #[error("invalid page size: {0}")]
    InvalidPageSize(String),
    /// No indexed session has this uri.
    #[error("session not found: {0}")]
    SessionNotFound(String),
    /// Several indexed sources hold a session with this uri (the same id in two files).
    #[error("'{uri}' is ambiguous: {} sources hold it ({})", sources.len(), sources.join(", "))]
    AmbiguousSession {
        /// The uri asked for.
        uri: String,
        /// The source path of each session holding it.
        sources: Vec<String>,
    },
    /// A stored session cannot be decoded (the index is damaged; rebuild it).
    #[error("corrupt session {uri}: {message}")]
    CorruptSession {
        /// The session.
        uri: String,
        /// What could not be decoded.
        message: String,
    },
    /// The database could not be opened, read or written.
    #[error("index database {context}: {source}")]
    Persistence {
        /// What was being done.
        context: String,
        /// The SQLite error.
        #[source]
        source: rusqlite::Error,
    },
    /// The index could not be built (e.g. the database directory cannot be created).
    #[error("index build failed: {0}")]
    IndexBuild(String),
    /// The caller stopped the operation (the progress callback returned `false`).
    #[error("aborted")]
    Aborted,
}

impl StoreError {
    /// The closed error code (S-Q7) for this error.
    pub fn code(&self) -> ErrorCode {
        match self {
            StoreError::InvalidQuery(_) => ErrorCode::InvalidQuery,
            StoreError::InvalidFilter(_) => ErrorCode::InvalidFilter,
            StoreError::InvalidWindow(_) => ErrorCode::InvalidWindow,
            StoreError::InvalidCursor(_) => ErrorCode::InvalidCursor,
            StoreError::InvalidPageSize(_) => ErrorCode::InvalidPageSize,
            StoreError::SessionNotFound(_) => ErrorCode::SessionNotFound,
            StoreError::AmbiguousSession { .. } => ErrorCode::AmbiguousId,
            StoreError::CorruptSession { .. } => ErrorCode::CorruptSession,
            StoreError::Persistence { .. } => ErrorCode::PersistenceFailure,
            StoreError::IndexBuild(_) => ErrorCode::IndexBuildFailure,
            StoreError::Aborted => ErrorCode::Aborted,
        }
    }

    pub(crate) fn db(context: impl Into<String>) -> impl FnOnce(rusqlite::Error) -> StoreError {
        let context = context.into();
        move |source| StoreError::Persistence { context, source }
    }
}

/// Result alias of the store.
pub type Result<T, E = StoreError> = std::result::Result<T, E>;
