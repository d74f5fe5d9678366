//! Shared by the fact commands (`commands`, `files`, `errors`, `jobs`, `digest`, `graph`,
//! `context`, `workspace`): read one whole session into memory, compute its facts once
//! ([`scry_facts::Facts::of`]), and the small text / JSON pieces every ledger prints alike.
//!
//! The reading itself lives in the query door ([`scry_query::ops`]): `commands`, `files`,
//! `errors`, `jobs`, `graph`, `trace` and `context` are query operations whose reports these
//! helpers print; `digest` and `workspace` still read here through [`load`] / [`read_file`].

use scry_facts::Origin;
use scry_model::{Header, Session, Warning};
use scry_source::SourceFile;
use serde_json::{json, Value};

use crate::app::Ctx;
use crate::catalog::Catalog;
use crate::error::CliResult;
use crate::render;

pub use scry_query::ops::Loaded;

/// Resolves `reference` and reads the whole session ([`scry_query::ops::load`]).
pub fn load(ctx: &Ctx, reference: &str) -> CliResult<Loaded> {
    Ok(scry_query::ops::load(ctx, reference)?)
}

/// Reads `file` (found in `catalog`) into a [`Session`] ([`scry_query::ops::read_file`]).
pub fn read_file(catalog: &Catalog, file: &SourceFile) -> CliResult<Session> {
    Ok(scry_query::ops::read_file(catalog, file)?)
}

/// The `--json` output of a query report: its JSON (keys sorted, as every answer prints it),
/// pretty, with a final newline.
pub fn report_json<T: serde::Serialize>(report: &T) -> String {
    super::json_out(&scry_query::ops::to_json(report))
}

/// The JSON envelope every fact command prints: the session header, then `key: value`, then
/// the reading warnings.
pub fn envelope(session: &Session, key: &str, value: Value) -> Value {
    let mut v = json!({ "session": render::header_json(&session.header) });
    if let Some(map) = v.as_object_mut() {
        map.insert(key.to_string(), value);
        map.insert(
            "warnings".to_string(),
            render::warnings_json(&session.warnings),
        );
    }
    v
}

/// `serde_json::to_value` that never fails the command (a value that cannot be serialized
/// becomes `null`).
pub fn to_value<T: serde::Serialize>(v: &T) -> Value {
    serde_json::to_value(v).unwrap_or(Value::Null)
}

/// The first line of text output: the session uri and title.
pub fn title_line(session: &Session) -> String {
    title_of(&session.header)
}

/// [`title_line`] from the header alone.
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
pub fn warnings_tail(session: &Session) -> Vec<String> {
    warnings_of(&session.warnings)
}

/// [`warnings_tail`] from the warnings alone.
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
