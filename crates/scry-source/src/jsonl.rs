//! JSON-lines reading with the project's rules for damaged input (SPEC P4, S-R1):
//!
//! - blank lines are skipped;
//! - invalid UTF-8 is decoded lossily and reported ([`WarningKind::InvalidUtf8`]);
//! - raw control bytes (NUL included) inside strings are kept: the line is re-read with those
//!   bytes escaped, so the text survives byte for byte. The escaped copy is streamed to the
//!   parser, never built (a NUL becomes six bytes), and the re-read happens only when the
//!   parser stopped at a control byte inside a string: a line that is a run of NULs or other
//!   junk costs one failed parse of the line as it is;
//! - a line that still does not parse is skipped with a [`WarningKind::CorruptRecord`] warning
//!   naming file and line — unless it is the unterminated last line, which is
//!   [`WarningKind::IncompleteTail`] (a writer is mid-append, or crashed);
//! - `.zst` / `.zstd` files are decompressed as a stream (all frames).

use std::borrow::Cow;
use std::cell::Cell;
use std::fs::File;
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::Path;

use scry_model::{Warning, WarningKind};
use serde_json::Value;

use crate::lines::LineReader;
use crate::SourceError;

/// One parsed JSON record and where it came from.
#[derive(Debug)]
pub struct Record<'a> {
    /// The parsed value.
    pub value: Value,
    /// The raw bytes of the line (for checksums and `--raw`).
    pub raw: &'a [u8],
    /// Byte offset of the line in the (decompressed) stream.
    pub offset: u64,
    /// 1-based line number.
    pub line: u64,
}

/// Counts from one pass over a JSONL stream.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct JsonlStats {
    /// Lines read (blank lines included).
    pub lines: u64,
    /// Records handed to the callback.
    pub records: u64,
    /// Lines skipped as corrupt or incomplete.
    pub skipped: u64,
    /// Bytes consumed.
    pub bytes: u64,
}

thread_local! {
    static BYTES_READ: Cell<u64> = const { Cell::new(0) };
}

/// Bytes read from disk so far by this thread through [`open`] / [`open_at`] (compressed bytes
/// for `.zst`). Lets tests and benchmarks assert how much of a file a (resumed) parse read:
/// take the value before and after.
pub fn thread_bytes_read() -> u64 {
    BYTES_READ.with(Cell::get)
}

/// A file reader that adds what it reads to [`thread_bytes_read`].
struct Counted(File);

impl Read for Counted {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.0.read(buf)?;
        BYTES_READ.with(|c| c.set(c.get().saturating_add(n as u64)));
        Ok(n)
    }
}

/// True for the names [`open`] decompresses (`.zst`, `.zstd`).
pub fn is_compressed(path: &Path) -> bool {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    name.ends_with(".zst") || name.ends_with(".zstd")
}

/// Opens a plain (uncompressed) file positioned at byte `offset`, for resuming a parse (see
/// [`crate::resume`]); pair it with [`LineReader::starting_at`] to keep offsets and line
/// numbers. Compressed files cannot be entered in the middle: an error.
pub fn open_at(path: &Path, offset: u64) -> Result<Box<dyn BufRead + Send>, SourceError> {
    if is_compressed(path) {
        return Err(SourceError::format(
            path,
            "a compressed file cannot be read from an offset",
        ));
    }
    let mut file = File::open(path).map_err(|e| SourceError::io(path, e))?;
    file.seek(SeekFrom::Start(offset))
        .map_err(|e| SourceError::io(path, e))?;
    Ok(Box::new(BufReader::with_capacity(64 * 1024, Counted(file))))
}

/// Opens a file for reading, transparently decompressing `.zst` / `.zstd`.
pub fn open(path: &Path) -> Result<Box<dyn BufRead + Send>, SourceError> {
    let file = Counted(File::open(path).map_err(|e| SourceError::io(path, e))?);
    if is_compressed(path) {
        let dec = zstd::stream::read::Decoder::new(file).map_err(|e| SourceError::io(path, e))?;
        Ok(Box::new(BufReader::with_capacity(64 * 1024, dec)))
    } else {
        Ok(Box::new(BufReader::with_capacity(64 * 1024, file)))
    }
}

/// Reads every JSON record of the file at `path`, calling `f` for each. Warnings are appended
/// to `warnings`; only an unopenable file is an error. A read error in the middle (e.g. a
/// corrupt compressed stream) ends the pass with a warning instead of failing.
pub fn read_file(
    path: &Path,
    warnings: &mut Vec<Warning>,
    f: impl FnMut(Record<'_>),
) -> Result<JsonlStats, SourceError> {
    let reader = open(path)?;
    Ok(read(reader, path, 0, 0, warnings, f))
}

/// Reads JSON records from `reader`, which is positioned at byte `offset` after `lines_before`
/// lines of the file `path` (used for locations in warnings).
pub fn read<R: BufRead>(
    reader: R,
    path: &Path,
    offset: u64,
    lines_before: u64,
    warnings: &mut Vec<Warning>,
    mut f: impl FnMut(Record<'_>),
) -> JsonlStats {
    let mut lines = LineReader::starting_at(reader, offset, lines_before);
    let mut stats = JsonlStats::default();
    loop {
        let line = match lines.next_line() {
            Ok(Some(line)) => line,
            Ok(None) => break,
            Err(e) => {
                warnings.push(Warning::at(
                    WarningKind::Unreadable,
                    format!("read stopped: {e}"),
                    path,
                    Some(stats.lines + lines_before + 1),
                ));
                break;
            }
        };
        stats.lines += 1;
        if line.bytes.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match parse_line(line.bytes, path, line.number, line.complete, warnings) {
            Some(value) => {
                stats.records += 1;
                f(Record {
                    value,
                    raw: line.bytes,
                    offset: line.offset,
                    line: line.number,
                });
            }
            None => stats.skipped += 1,
        }
    }
    stats.bytes = lines.offset() - offset;
    stats
}

/// Parses one line by the rules in the module doc; `None` (with a warning) when it cannot be.
pub fn parse_line(
    bytes: &[u8],
    path: &Path,
    number: u64,
    complete: bool,
    warnings: &mut Vec<Warning>,
) -> Option<Value> {
    let text: Cow<'_, str> = match std::str::from_utf8(bytes) {
        Ok(s) => Cow::Borrowed(s),
        Err(e) => {
            warnings.push(Warning::at(
                WarningKind::InvalidUtf8,
                format!(
                    "invalid UTF-8 at byte {} of the line; decoded lossily",
                    e.valid_up_to()
                ),
                path,
                Some(number),
            ));
            // Decoding lossily (up to three bytes for each bad one) only helps when the bad
            // bytes sit inside a string: anywhere else the line is not JSON either way.
            match serde_json::from_slice::<Value>(bytes) {
                Ok(v) => return Some(v),
                Err(e) if repairable_in_strings(&e) => String::from_utf8_lossy(bytes),
                Err(e) => {
                    skipped(bytes, path, number, complete, &e, warnings);
                    return None;
                }
            }
        }
    };
    let first = match serde_json::from_str::<Value>(&text) {
        Ok(v) => return Some(v),
        Err(e) => e,
    };
    if stopped_at_control_in_string(&first) {
        let escaped = BufReader::with_capacity(64 * 1024, EscapeControls::new(text.as_bytes()));
        if let Ok(v) = serde_json::from_reader::<_, Value>(escaped) {
            return Some(v);
        }
    }
    skipped(bytes, path, number, complete, &first, warnings);
    None
}

/// The warning for a line that could not be parsed (`first`: the parser's first complaint).
fn skipped(
    bytes: &[u8],
    path: &Path,
    number: u64,
    complete: bool,
    first: &serde_json::Error,
    warnings: &mut Vec<Warning>,
) {
    if complete {
        warnings.push(Warning::at(
            WarningKind::CorruptRecord,
            format!("skipped a line that is not JSON ({first})"),
            path,
            Some(number),
        ));
    } else {
        warnings.push(Warning::at(
            WarningKind::IncompleteTail,
            format!(
                "last line is incomplete ({} bytes without a newline); it will be read once finished",
                bytes.len()
            ),
            path,
            Some(number),
        ));
    }
}

/// Whether the parser stopped inside a string, at a byte that lossy decoding or escaping
/// repairs (invalid UTF-8, a raw control character).
fn repairable_in_strings(e: &serde_json::Error) -> bool {
    stopped_at_control_in_string(e)
        || (e.classify() == serde_json::error::Category::Syntax
            && e.to_string().starts_with("invalid unicode code point"))
}

/// Whether serde_json gave up on a raw control character inside a string (the only failure
/// that escaping control characters can repair: one anywhere else stays invalid escaped).
fn stopped_at_control_in_string(e: &serde_json::Error) -> bool {
    e.classify() == serde_json::error::Category::Syntax
        && e.to_string().starts_with("control character")
}

/// `src` with every raw control byte (below 0x20) replaced by its `\u00XX` escape, as a
/// stream: the escaped text (up to six times the input) is never held in memory.
struct EscapeControls<'a> {
    src: &'a [u8],
    /// An escape being written out, and how much of it is already out.
    pending: [u8; 6],
    sent: usize,
}

impl<'a> EscapeControls<'a> {
    fn new(src: &'a [u8]) -> Self {
        EscapeControls {
            src,
            pending: [0; 6],
            sent: 6,
        }
    }
}

impl Read for EscapeControls<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        let mut n = 0;
        while n < buf.len() {
            if self.sent < 6 {
                let k = (6 - self.sent).min(buf.len() - n);
                buf[n..n + k].copy_from_slice(&self.pending[self.sent..self.sent + k]);
                self.sent += k;
                n += k;
                continue;
            }
            let Some((&b, rest)) = self.src.split_first() else {
                break;
            };
            if b < 0x20 {
                self.pending = [
                    b'\\',
                    b'u',
                    b'0',
                    b'0',
                    HEX[usize::from(b >> 4)],
                    HEX[usize::from(b & 15)],
                ];
                self.sent = 0;
                self.src = rest;
                continue;
            }
            let run = self
                .src
                .iter()
                .position(|&c| c < 0x20)
                .unwrap_or(self.src.len())
                .min(buf.len() - n);
            buf[n..n + run].copy_from_slice(&self.src[..run]);
            self.src = &self.src[run..];
            n += run;
        }
        Ok(n)
    }
}

/// Reads at most `limit` bytes from the start of `path` (decompressing if needed), for sniffing.
pub fn head(path: &Path, limit: usize) -> Option<Vec<u8>> {
    let reader = open(path).ok()?;
    let mut buf = Vec::new();
    reader.take(limit as u64).read_to_end(&mut buf).ok()?;
    Some(buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(data: &[u8]) -> (Vec<Value>, Vec<Warning>) {
        let mut warnings = Vec::new();
        let mut values = Vec::new();
        read(data, Path::new("t.jsonl"), 0, 0, &mut warnings, |r| {
            values.push(r.value)
        });
        (values, warnings)
    }

    #[test]
    fn corrupt_middle_line_is_skipped_with_location() {
        let (values, warnings) = run(b"{\"a\":1}\n{oops\n{\"a\":2}\n");
        assert_eq!(values.len(), 2);
        assert_eq!(warnings.len(), 1);
        assert_eq!(warnings[0].kind, WarningKind::CorruptRecord);
        assert_eq!(warnings[0].line, Some(2));
    }

    #[test]
    fn torn_tail_is_incomplete_not_corrupt() {
        let (values, warnings) = run(b"{\"a\":1}\n{\"a\":");
        assert_eq!(values.len(), 1);
        assert_eq!(warnings[0].kind, WarningKind::IncompleteTail);
    }

    #[test]
    fn unterminated_but_whole_last_line_is_read() {
        let (values, warnings) = run(b"{\"a\":1}\n{\"a\":2}");
        assert_eq!(values.len(), 2);
        assert!(warnings.is_empty());
    }

    #[test]
    fn nul_bytes_survive_raw_and_escaped() {
        let (values, warnings) = run(b"{\"t\":\"a\x00b\"}\n{\"t\":\"c\\u0000d\"}\n");
        assert!(warnings.is_empty(), "{warnings:?}");
        assert_eq!(values[0]["t"].as_str().unwrap(), "a\u{0}b");
        assert_eq!(values[1]["t"].as_str().unwrap(), "c\u{0}d");
    }

    #[test]
    fn control_bytes_in_strings_survive_even_in_a_long_run() {
        let mut line = b"{\"t\":\"a".to_vec();
        line.extend(std::iter::repeat_n(0u8, 100_000));
        line.extend_from_slice(b"\x01\x1f\tb\"}\n");
        let (values, warnings) = run(&line);
        assert!(warnings.is_empty(), "{warnings:?}");
        let t = values[0]["t"].as_str().unwrap();
        assert_eq!(t.len(), 100_000 + 5);
        assert!(t.starts_with("a\u{0}") && t.ends_with("\u{0}\u{1}\u{1f}\tb"));
    }

    #[test]
    fn a_line_of_nuls_is_one_corrupt_record() {
        let mut data = b"{\"a\":1}\n".to_vec();
        data.extend(std::iter::repeat_n(0u8, 1 << 20));
        data.extend_from_slice(b"\n{\"a\":2}\n");
        let (values, warnings) = run(&data);
        assert_eq!(values.len(), 2);
        assert_eq!(warnings.len(), 1);
        assert_eq!(warnings[0].kind, WarningKind::CorruptRecord);
        assert_eq!(warnings[0].line, Some(2));
    }

    #[test]
    fn the_escaping_reader_matches_a_built_copy() {
        let src = b"{\"x\":\"\x00ab\x07\", \"y\": [1,\t2]}";
        for size in [1, 2, 5, 7, 64] {
            let mut r = EscapeControls::new(src);
            let mut out = Vec::new();
            let mut buf = vec![0u8; size];
            loop {
                let n = r.read(&mut buf).unwrap();
                if n == 0 {
                    break;
                }
                out.extend_from_slice(&buf[..n]);
            }
            assert_eq!(
                String::from_utf8(out).unwrap(),
                "{\"x\":\"\\u0000ab\\u0007\", \"y\": [1,\\u00092]}",
                "buffer of {size}"
            );
        }
    }

    #[test]
    fn invalid_utf8_is_lossy_with_warning() {
        let (values, warnings) = run(b"{\"t\":\"a\xffb\"}\n");
        assert_eq!(values[0]["t"].as_str().unwrap(), "a\u{fffd}b");
        assert_eq!(warnings[0].kind, WarningKind::InvalidUtf8);
        // Invalid UTF-8 and a raw control byte in the same string.
        let (values, warnings) = run(b"{\"t\":\"a\xff\x00b\"}\n");
        assert_eq!(values[0]["t"].as_str().unwrap(), "a\u{fffd}\u{0}b");
        assert_eq!(warnings.len(), 1);
        // Outside a string it is not JSON: one warning each, no lossy copy needed.
        let (values, warnings) = run(b"\xff\xfe{}\n{\"a\":1}\n");
        assert_eq!(values.len(), 1);
        let kinds: Vec<_> = warnings.iter().map(|w| w.kind).collect();
        assert_eq!(
            kinds,
            [WarningKind::InvalidUtf8, WarningKind::CorruptRecord]
        );
    }

    #[test]
    fn deep_nesting_is_a_warning_not_a_crash() {
        let mut line = "[".repeat(100_000);
        line.push('\n');
        let (values, warnings) = run(line.as_bytes());
        assert!(values.is_empty());
        assert_eq!(warnings[0].kind, WarningKind::CorruptRecord);
    }
}
