//! The one error type of the store, each variant carrying its closed code (SPEC S-Q7).

use std::path::PathBuf;

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
    /// The file at the index location is not a scry index (another program's SQLite database,
    /// or not SQLite at all). It was left untouched: scry never writes to a file it did not
    /// create.
    #[error("{} is not a scry index ({reason}); scry leaves it untouched: move it away or point SCRY_DB at another file", path.display())]
    NotAnIndex {
        /// The refused file.
        path: PathBuf,
        /// What it is instead.
        reason: String,
    },
    /// The index file is damaged (SQLite reports corruption, or a stored session does not
    /// decode). `scry index --rebuild` builds a fresh one beside it and swaps it in.
    #[error("index {} is damaged ({detail})", path.display())]
    DamagedIndex {
        /// The damaged index.
        path: PathBuf,
        /// SQLite's (or the decoder's) words.
        detail: String,
    },
    /// The index could not be built (e.g. the database directory cannot be created).
    #[error("index build failed: {0}")]
    IndexBuild(String),
    /// The caller stopped the operation (the progress callback returned `false`).
    #[error("aborted")]
    Aborted,
    /// An error of another store behind [`crate::SessionIndex`] (the team store), with the
    /// closed code it carries and its own words.
    #[error("{message}")]
    Other {
        /// The closed code (S-Q7).
        code: ErrorCode,
        /// The store's one line.
        message: String,
    },
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
            StoreError::NotAnIndex { .. } | StoreError::DamagedIndex { .. } => {
                ErrorCode::PersistenceFailure
            }
            StoreError::IndexBuild(_) => ErrorCode::IndexBuildFailure,
            StoreError::Aborted => ErrorCode::Aborted,
            StoreError::Other { code, .. } => *code,
        }
    }

    /// Whether this error says the index file is damaged: SQLite's `SQLITE_CORRUPT` /
    /// `SQLITE_NOTADB` (or a "malformed" message from a virtual table), a stored session that
    /// does not decode, or an already classified [`StoreError::DamagedIndex`].
    pub fn is_corrupt(&self) -> bool {
        match self {
            StoreError::DamagedIndex { .. } | StoreError::CorruptSession { .. } => true,
            StoreError::Persistence { source, .. } => crate::integrity::is_corrupt(source),
            _ => false,
        }
    }

    /// Whether this error is another connection holding the lock (`SQLITE_BUSY` /
    /// `SQLITE_LOCKED` after the busy timeout): retrying later can succeed.
    pub fn is_busy(&self) -> bool {
        match self {
            StoreError::Persistence { source, .. } => crate::integrity::is_busy(source),
            _ => false,
        }
    }

    /// This error with the damaged index named: a corruption error (see
    /// [`StoreError::is_corrupt`]) becomes [`StoreError::DamagedIndex`] for `path`; any other
    /// error is returned unchanged.
    pub fn in_index(self, path: &std::path::Path) -> StoreError {
        if !self.is_corrupt() || matches!(self, StoreError::DamagedIndex { .. }) {
            return self;
        }
        let detail = match &self {
            StoreError::Persistence { context, source } => format!("{context}: {source}"),
            other => other.to_string(),
        };
        StoreError::DamagedIndex {
            path: path.to_path_buf(),
            detail,
        }
    }

    pub(crate) fn db(context: impl Into<String>) -> impl FnOnce(rusqlite::Error) -> StoreError {
        let context = context.into();
        move |source| StoreError::Persistence { context, source }
    }
}

/// Result alias of the store.
pub type Result<T, E = StoreError> = std::result::Result<T, E>;
