//! Resuming a parse of a grown Qwen Code chat log (SPEC S-I2; protocol in
//! [`scry_source::resume`]).
//!
//! Every record maps on its own, in file order: what a record becomes depends only on the
//! records before it through the mapper's small state (call ids seen, tool names and telemetry
//! durations of open calls, counts, unpaired results, envelope facts). So the end of the last
//! complete line is a safe point; a full pass offers the one at its end (none when a record was
//! read after it, i.e. a torn tail that is still being written). Carried state: the line
//! number, the read warnings so far (they are reported after the events) and the mapper's
//! state.

use scry_model::{Header, Warning};
use scry_source::lines::LineReader;
use scry_source::{jsonl, Emitter, EmitterState, ResumePoint, SourceError, SourceFile};
use serde_json::{json, Value};

use crate::map::Mapper;

const STATE_VERSION: u64 = 1;

/// The point after line `line`, ending at byte `offset`.
pub(crate) fn point(
    offset: u64,
    line: u64,
    emitter: EmitterState,
    read_warnings: &[Warning],
    mapper: &Mapper,
) -> ResumePoint {
    ResumePoint {
        offset,
        emitter,
        state: json!({
            "v": STATE_VERSION,
            "line": line,
            "read_warnings": read_warnings,
            "mapper": mapper.state(),
        }),
    }
}

/// Continues the parse of `file` from `from`; refuses (an error: the caller parses whole) when
/// the state is not one this version wrote.
pub(crate) fn run(
    file: &SourceFile,
    from: &ResumePoint,
    out: &mut Emitter<'_>,
) -> Result<Header, SourceError> {
    let path = &file.path;
    let refuse = |why: &str| SourceError::format(path, format!("cannot resume: {why}"));
    let s = &from.state;
    if s.get("v").and_then(Value::as_u64) != Some(STATE_VERSION) {
        return Err(refuse("other state version"));
    }
    let line = s
        .get("line")
        .and_then(Value::as_u64)
        .ok_or_else(|| refuse("no line number"))?;
    let warnings: Vec<Warning> = s
        .get("read_warnings")
        .cloned()
        .and_then(|w| serde_json::from_value(w).ok())
        .ok_or_else(|| refuse("bad read warnings"))?;
    let mapper = s
        .get("mapper")
        .and_then(|m| Mapper::restore(path.clone(), m))
        .ok_or_else(|| refuse("bad mapper state"))?;
    let lines = LineReader::starting_at(jsonl::open_at(path, from.offset)?, from.offset, line);
    Ok(crate::pass(file, lines, mapper, warnings, out).0)
}
