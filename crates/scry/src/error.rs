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

impl CliError {
    /// A failure whose exit status follows from its code.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        CliError::Failed(Failure {
            code,
            message: message.into(),
            candidates: Vec::new(),
            exit: code.exit_code(),
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
            candidates: e.candidates,
            exit: e.exit,
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
