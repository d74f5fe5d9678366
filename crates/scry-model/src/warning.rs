//! Warnings raised while reading sources: nothing is lost silently (SPEC P4).

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// What kind of problem a [`Warning`] reports. Stable snake_case names in JSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WarningKind {
    /// A line or record that is not valid JSON (or not the expected shape) was skipped.
    CorruptRecord,
    /// Bytes that are not valid UTF-8 were decoded lossily.
    InvalidUtf8,
    /// The last line has no terminating newline yet (file still being written, or torn).
    IncompleteTail,
    /// A record type this reader does not know; kept as a meta event or counted.
    UnknownRecord,
    /// A tool result whose call id matches no tool call.
    UnpairedResult,
    /// A file could not be read (permissions, I/O error, vanished).
    Unreadable,
    /// A compressed frame was truncated or corrupt and was dropped.
    CorruptFrame,
    /// A side file that should restore or complete data is missing.
    MissingSideFile,
    /// Two sources disagree (e.g. transcript vs checkpoint).
    Inconsistent,
    /// Anything else worth telling the user.
    Other,
}

impl WarningKind {
    /// The snake_case name used in JSON and text output.
    pub fn as_str(self) -> &'static str {
        match self {
            WarningKind::CorruptRecord => "corrupt_record",
            WarningKind::InvalidUtf8 => "invalid_utf8",
            WarningKind::IncompleteTail => "incomplete_tail",
            WarningKind::UnknownRecord => "unknown_record",
            WarningKind::UnpairedResult => "unpaired_result",
            WarningKind::Unreadable => "unreadable",
            WarningKind::CorruptFrame => "corrupt_frame",
            WarningKind::MissingSideFile => "missing_side_file",
            WarningKind::Inconsistent => "inconsistent",
            WarningKind::Other => "other",
        }
    }
}

/// One located problem found while reading a source.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Warning {
    /// What went wrong.
    pub kind: WarningKind,
    /// A one-line human explanation naming the offending value.
    pub message: String,
    /// The file it happened in, when known (serialized lossily where it is not UTF-8).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "crate::lossy::opt_path"
    )]
    pub file: Option<PathBuf>,
    /// The 1-based line (or record number) in that file, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u64>,
}

impl Warning {
    /// A warning without a location.
    pub fn new(kind: WarningKind, message: impl Into<String>) -> Self {
        Warning {
            kind,
            message: message.into(),
            file: None,
            line: None,
        }
    }

    /// A warning located at `file`, line `line` (1-based).
    pub fn at(
        kind: WarningKind,
        message: impl Into<String>,
        file: impl Into<PathBuf>,
        line: Option<u64>,
    ) -> Self {
        Warning {
            kind,
            message: message.into(),
            file: Some(file.into()),
            line,
        }
    }
}

impl std::fmt::Display for Warning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (&self.file, self.line) {
            (Some(file), Some(line)) => write!(f, "{}:{}: ", file.display(), line)?,
            (Some(file), None) => write!(f, "{}: ", file.display())?,
            _ => {}
        }
        write!(f, "{}: {}", self.kind.as_str(), self.message)
    }
}
