//! The JSONL read loop for rollouts: the shared damaged-input rules of
//! [`scry_source::jsonl`] plus one Codex quirk — NUL padding. A crash can leave a run of NUL
//! bytes in a rollout (the file was extended but the data never landed), and the next append
//! then starts on the same line. Leading and trailing NULs are stripped (reported as `Other`),
//! so the record after the padding is kept; a line of nothing but NULs is a located
//! `CorruptRecord`.

use std::io::BufRead;
use std::path::Path;

use scry_model::{Warning, WarningKind};
use scry_source::jsonl::{self, Record};
use scry_source::lines::LineReader;

/// Reads the JSON records of `reader` (the file at `path`), calling `f` for each until it
/// returns `false`.
pub(crate) fn read_records<R: BufRead>(
    reader: R,
    path: &Path,
    warnings: &mut Vec<Warning>,
    mut f: impl FnMut(Record<'_>) -> bool,
) {
    read_steps(LineReader::new(reader), path, warnings, |step| match step {
        Step::Record(r) => f(r),
        Step::End { .. } => true,
    });
}

/// One step of [`read_steps`].
pub(crate) enum Step<'a> {
    /// A record.
    Record(Record<'a>),
    /// A line (record or not) was consumed; the stream is now at `offset`, after `line` lines.
    End {
        /// Byte offset after the line.
        offset: u64,
        /// Its 1-based number.
        line: u64,
        /// False for an unterminated last line.
        complete: bool,
        /// Warnings collected so far.
        warnings: usize,
    },
}

/// Like [`read_records`] from a positioned [`LineReader`] (for resuming), also reporting the
/// end of every line so the caller can mark safe points.
pub(crate) fn read_steps<R: BufRead>(
    mut lines: LineReader<R>,
    path: &Path,
    warnings: &mut Vec<Warning>,
    mut f: impl FnMut(Step<'_>) -> bool,
) {
    loop {
        let line = match lines.next_line() {
            Ok(Some(line)) => line,
            Ok(None) => break,
            Err(e) => {
                warnings.push(Warning::at(
                    WarningKind::Unreadable,
                    format!("read stopped: {e}"),
                    path,
                    None,
                ));
                break;
            }
        };
        let (number, complete) = (line.number, line.complete);
        let more = record_of(&line, path, warnings, &mut f);
        let end = Step::End {
            offset: lines.offset(),
            line: number,
            complete,
            warnings: warnings.len(),
        };
        if !more || !f(end) {
            break;
        }
    }
}

/// Handles one line; false when the callback asked to stop.
fn record_of(
    line: &scry_source::lines::Line<'_>,
    path: &Path,
    warnings: &mut Vec<Warning>,
    f: &mut impl FnMut(Step<'_>) -> bool,
) -> bool {
    if line.bytes.iter().all(u8::is_ascii_whitespace) {
        return true;
    }
    let lead = line.bytes.iter().take_while(|b| **b == 0).count();
    let rest = &line.bytes[lead..];
    let trail = rest.iter().rev().take_while(|b| **b == 0).count();
    let bytes = &rest[..rest.len() - trail];
    if lead + trail > 0 {
        if bytes.iter().all(u8::is_ascii_whitespace) {
            warnings.push(Warning::at(
                WarningKind::CorruptRecord,
                format!("skipped a line of {} NUL bytes", line.bytes.len()),
                path,
                Some(line.number),
            ));
            return true;
        }
        warnings.push(Warning::at(
            WarningKind::Other,
            format!(
                "stripped {} NUL bytes of padding around the record",
                lead + trail
            ),
            path,
            Some(line.number),
        ));
    }
    if let Some(value) = jsonl::parse_line(bytes, path, line.number, line.complete, warnings) {
        return f(Step::Record(Record {
            value,
            raw: bytes,
            offset: line.offset + lead as u64,
            line: line.number,
        }));
    }
    true
}
