//! The one CLI error type: it decides the stderr line, the JSON error object and the exit code
//! (SPEC §3: 1 runtime failure, 2 usage error, 3 not found / ambiguous).

use scry_model::ErrorCode;
use scry_query::QueryError;
use scry_sources::ResolveError;
use serde_json::{json, Value};

/// A command failure as the user sees it.
#[derive(Debug)]
pub enum CliError {
    /// Stdout was closed by the reader (`scry list | head`): exit quietly.
    BrokenPipe,
    /// Anything else: one line on stderr, and a JSON object with `--json`.
    Failed(Failure),
    /// A command with its own error contract (`inspect` keeps `inspect_sessions.py`'s messages
    /// and exit codes): `stderr` is printed as it is, and the process exits with `exit`.
    Verbatim {
        /// What to print on stderr (newline-terminated lines).
        stderr: String,
        /// Exit status.
        exit: i32,
    },
}

/// A reported failure.
#[derive(Debug)]
pub struct Failure {
    /// The machine-routable code.
    pub code: ErrorCode,
    /// One line naming the offending value.
    pub message: String,
    /// Every candidate of an ambiguous reference (`provider:id`).
    pub candidates: Vec<String>,
    /// Exit status.
    pub exit: i32,
}

/// Result of a command.
pub type CliResult<T> = Result<T, CliError>;

/// The exit status of a failure with `code` (SPEC §3), the one place codes become statuses:
/// 3 for not found / ambiguous, 2 for usage errors, 1 for runtime failures.
pub fn exit_status(code: ErrorCode) -> i32 {
    match code {
        ErrorCode::SessionNotFound | ErrorCode::AmbiguousId | ErrorCode::EventNotFound => 3,
        ErrorCode::InvalidQuery
        | ErrorCode::InvalidFilter
        | ErrorCode::InvalidWindow
        | ErrorCode::InvalidLineage
        | ErrorCode::InvalidCursor
        | ErrorCode::InvalidPageSize
        | ErrorCode::InvalidSurface
        | ErrorCode::StaleLocator => 2,
        ErrorCode::CorruptSession
        | ErrorCode::PersistenceFailure
        | ErrorCode::IndexBuildFailure
        | ErrorCode::Aborted
        | ErrorCode::SearchDisabled
        | ErrorCode::SourceConflict => 1,
    }
}

impl CliError {
    /// A failure whose exit status follows from its code.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        CliError::Failed(Failure {
            code,
            message: message.into(),
            candidates: Vec::new(),
            exit: exit_status(code),
        })
    }

    /// A usage error (exit 2) with the given code.
    pub fn usage(code: ErrorCode, message: impl Into<String>) -> Self {
        let mut e = CliError::new(code, message);
        if let CliError::Failed(f) = &mut e {
            f.exit = 2;
        }
        e
    }

    /// The exit status.
    pub fn exit_code(&self) -> i32 {
        match self {
            CliError::BrokenPipe => 0,
            CliError::Failed(f) => f.exit,
            CliError::Verbatim { exit, .. } => *exit,
        }
    }

    /// The JSON error object printed on stdout with `--json`.
    pub fn to_json(&self) -> Option<Value> {
        match self {
            CliError::BrokenPipe | CliError::Verbatim { .. } => None,
            CliError::Failed(f) => Some(json!({
                "error": {
                    "code": f.code.as_str(),
                    "message": f.message,
                    "candidates": f.candidates,
                }
            })),
        }
    }

    /// The single stderr line (without the `error: ` prefix).
    pub fn message(&self) -> Option<&str> {
        match self {
            CliError::BrokenPipe | CliError::Verbatim { .. } => None,
            CliError::Failed(f) => Some(&f.message),
        }
    }
}

impl From<QueryError> for CliError {
    fn from(e: QueryError) -> Self {
        CliError::Failed(Failure {
            code: e.code,
            message: e.message,
            exit: exit_status(e.code),
            candidates: e.candidates,
        })
    }
}

impl From<ResolveError> for CliError {
    fn from(e: ResolveError) -> Self {
        QueryError::from(e).into()
    }
}

impl From<std::io::Error> for CliError {
    fn from(e: std::io::Error) -> Self {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            CliError::BrokenPipe
        } else {
            CliError::new(ErrorCode::Aborted, format!("cannot write output: {e}"))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_map_to_exit_statuses() {
        let q = |code| CliError::from(QueryError::new(code, "x")).exit_code();
        assert_eq!(q(ErrorCode::SessionNotFound), 3);
        assert_eq!(q(ErrorCode::AmbiguousId), 3);
        assert_eq!(q(ErrorCode::StaleLocator), 2);
        assert_eq!(q(ErrorCode::InvalidCursor), 2);
        assert_eq!(q(ErrorCode::Aborted), 1);
        assert_eq!(q(ErrorCode::SearchDisabled), 1);
        assert_eq!(CliError::usage(ErrorCode::Aborted, "x").exit_code(), 2);
    }
}
