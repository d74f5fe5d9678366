//! Shared by the fact commands (`commands`, `files`, `errors`, `jobs`, `digest`, `graph`,
//! `trace`, `context`, `workspace`): the small text / JSON pieces every ledger prints alike.
//! The operations themselves live in the query door ([`scry_query::ops`]) and these commands
//! print their reports.

use scry_facts::Origin;
use scry_model::{Header, Warning};
use serde_json::Value;

use crate::render;

/// The `--json` output of a query report: its JSON (keys sorted, as every answer prints it),
/// pretty, with a final newline.
pub fn report_json<T: serde::Serialize>(report: &T) -> String {
    crate::output::json_out(&scry_query::ops::to_json(report))
}

/// `serde_json::to_value` that never fails the command (a value that cannot be serialized
/// becomes `null`).
pub fn to_value<T: serde::Serialize>(v: &T) -> Value {
    serde_json::to_value(v).unwrap_or(Value::Null)
}

/// The first line of text output: the session uri and title.
pub fn title_of(h: &Header) -> String {
    format!(
        "{}  {}",
        h.uri,
        render::clip(h.title.as_deref().unwrap_or("(untitled)"), 60)
    )
}

/// `E12·T3 observed tool:Write` — the provenance suffix of a text row.
pub fn origin_text(o: &Origin) -> String {
    format!(
        "{} {} {}",
        o.evidence.handle(),
        o.provenance.as_str(),
        o.extractor
    )
}

/// Warnings for the bottom of a text output (none → nothing).
pub fn warnings_of(warnings: &[Warning]) -> Vec<String> {
    let w = render::warnings_text(warnings, 3);
    w.into_iter().map(|l| format!("warning: {l}")).collect()
}

/// Joins lines with trailing spaces trimmed and a final newline.
pub fn lines(out: Vec<String>) -> String {
    let mut text = out
        .into_iter()
        .map(|l| l.trim_end().to_string())
        .collect::<Vec<_>>()
        .join("\n");
    text.push('\n');
    text
}

/// One line of `text` (first line, control characters made visible, clipped to `max`).
pub fn one_line(text: &str, max: usize) -> String {
    let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    render::clip(&render::safe_text(first.trim()), max)
}
