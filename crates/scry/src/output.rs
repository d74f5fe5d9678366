//! What a command prints ([`Output`]) and the JSON text of an answer ([`json_out`]): shared by
//! every command and by `app`, importing no command.

/// What a command prints: its output on stdout, and notes for people (warnings, "more
/// available") on stderr.
#[derive(Debug, Default)]
pub struct Output {
    /// The result.
    pub stdout: String,
    /// Notes, already formatted (one per line).
    pub stderr: String,
}

impl Output {
    /// `stdout`, with the first five of `warnings` as notes on stderr (one per line, then a
    /// count of the rest).
    pub fn with_warnings(stdout: String, warnings: &[scry_model::Warning]) -> Output {
        Output {
            stdout,
            stderr: crate::render::warnings_text(warnings, 5)
                .into_iter()
                .map(|l| format!("{l}\n"))
                .collect(),
        }
    }
}

impl From<String> for Output {
    fn from(stdout: String) -> Self {
        Output {
            stdout,
            stderr: String::new(),
        }
    }
}

/// [`json_out`] of a typed answer: serialized through a [`serde_json::Value`] first, so its keys
/// are sorted as every `json!` answer's (serde_json keeps a map's keys in order).
pub fn typed_out<T: serde::Serialize>(v: &T) -> String {
    json_out(&serde_json::to_value(v).unwrap_or_default())
}

/// Serializes a JSON value followed by a newline.
pub fn json_out(v: &serde_json::Value) -> String {
    let mut s = serde_json::to_string_pretty(v).unwrap_or_else(|_| "null".to_string());
    s.push('\n');
    s
}
