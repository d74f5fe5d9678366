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
    let mut lines = LineReader::new(reader);
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
        if line.bytes.iter().all(u8::is_ascii_whitespace) {
            continue;
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
                continue;
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
            let more = f(Record {
                value,
                raw: bytes,
                offset: line.offset + lead as u64,
                line: line.number,
            });
            if !more {
                break;
            }
        }
    }
}
