//! Errors a provider returns when a whole source cannot be read.
//!
//! Problems inside a readable source (a corrupt line, a torn tail) are not errors: they are
//! [`scry_model::Warning`]s on the parsed session.

use std::path::PathBuf;

/// A source that could not be read at all.
#[derive(Debug, thiserror::Error)]
pub enum SourceError {
    /// The file could not be opened or read.
    #[error("cannot read {}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// The file was read but is not in a format this provider understands.
    #[error("{}: {message}", path.display())]
    Format {
        /// The file.
        path: PathBuf,
        /// What is wrong, naming the offending value.
        message: String,
    },
    /// The session key does not exist in the source (e.g. a thread id missing from a database).
    #[error("{}: no session '{key}'", path.display())]
    NotFound {
        /// The store.
        path: PathBuf,
        /// The session key.
        key: String,
    },
}

impl SourceError {
    /// An I/O error on `path`.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        SourceError::Io {
            path: path.into(),
            source,
        }
    }

    /// A format error on `path`.
    pub fn format(path: impl Into<PathBuf>, message: impl Into<String>) -> Self {
        SourceError::Format {
            path: path.into(),
            message: message.into(),
        }
    }
}
