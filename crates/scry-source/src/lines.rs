//! The streaming line reader shared by every line-oriented provider.
//!
//! No line-length cap (a 50 MB line is one line), memory bounded by the longest line, byte
//! offsets and 1-based line numbers for every line, and an explicit `complete` flag so callers
//! can tell a torn (unterminated) last line from a finished one.

use std::io::{self, BufRead};

/// One line of input, without its terminator (`\n` or `\r\n`).
#[derive(Debug)]
pub struct Line<'a> {
    /// The bytes of the line (not necessarily UTF-8).
    pub bytes: &'a [u8],
    /// Byte offset of the first byte of the line in the stream.
    pub offset: u64,
    /// 1-based line number.
    pub number: u64,
    /// False when the stream ended before a newline (a torn or still-being-written tail).
    pub complete: bool,
}

/// Reads lines from any [`BufRead`] without a length limit.
pub struct LineReader<R> {
    inner: R,
    buf: Vec<u8>,
    offset: u64,
    number: u64,
    /// Set once the stream ended (or ended mid-line): a file that grows while it is read must
    /// not continue from the middle of the torn line, so nothing more is read after that.
    ended: bool,
}

impl<R: BufRead> LineReader<R> {
    /// Wraps a reader; offsets start at 0.
    pub fn new(inner: R) -> Self {
        Self::starting_at(inner, 0, 0)
    }

    /// Wraps a reader positioned at byte `offset`, after `lines_before` lines (for resuming).
    pub fn starting_at(inner: R, offset: u64, lines_before: u64) -> Self {
        LineReader {
            inner,
            buf: Vec::with_capacity(8 * 1024),
            offset,
            number: lines_before,
            ended: false,
        }
    }

    /// The byte offset just after the last line returned.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// Reads the next line; `Ok(None)` at end of stream. An unterminated line is always the
    /// last one returned, even when the underlying file grows meanwhile (a writer mid-append):
    /// its rest is read by the next pass, which starts again at a line start.
    pub fn next_line(&mut self) -> io::Result<Option<Line<'_>>> {
        self.buf.clear();
        if self.ended {
            return Ok(None);
        }
        let n = self.inner.read_until(b'\n', &mut self.buf)?;
        if n == 0 {
            self.ended = true;
            return Ok(None);
        }
        let start = self.offset;
        self.offset += n as u64;
        self.number += 1;
        let complete = self.buf.last() == Some(&b'\n');
        if !complete {
            self.ended = true;
        }
        let mut end = self.buf.len();
        if complete {
            end -= 1;
            if end > 0 && self.buf[end - 1] == b'\r' {
                end -= 1;
            }
        }
        Ok(Some(Line {
            bytes: &self.buf[..end],
            offset: start,
            number: self.number,
            complete,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_numbers_and_torn_tail() {
        let data = b"one\r\ntwo\n\nthree";
        let mut r = LineReader::new(&data[..]);
        let mut seen = Vec::new();
        while let Some(l) = r.next_line().unwrap() {
            seen.push((l.bytes.to_vec(), l.offset, l.number, l.complete));
        }
        assert_eq!(
            seen,
            vec![
                (b"one".to_vec(), 0, 1, true),
                (b"two".to_vec(), 5, 2, true),
                (b"".to_vec(), 9, 3, true),
                (b"three".to_vec(), 10, 4, false),
            ]
        );
    }

    /// A reader whose stream "grows" after its first end, like a file being appended to.
    struct Growing(Vec<&'static [u8]>);

    impl io::Read for Growing {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            if self.0.is_empty() {
                return Ok(0);
            }
            let chunk = self.0.remove(0);
            buf[..chunk.len()].copy_from_slice(chunk);
            Ok(chunk.len())
        }
    }

    #[test]
    fn a_torn_line_is_the_last_even_when_the_file_grows_meanwhile() {
        // "two" is torn at the first end of stream; the writer then finishes it and appends.
        let src = Growing(vec![b"one\ntw", b"", b"o\nthree\n"]);
        let mut r = LineReader::new(io::BufReader::with_capacity(64, src));
        let mut seen = Vec::new();
        while let Some(l) = r.next_line().unwrap() {
            seen.push((l.bytes.to_vec(), l.complete));
        }
        assert_eq!(seen, vec![(b"one".to_vec(), true), (b"tw".to_vec(), false)]);
        assert_eq!(r.offset(), 6);
    }

    #[test]
    fn long_line_is_one_line() {
        let mut data = vec![b'a'; 3 * 1024 * 1024];
        data.push(b'\n');
        let mut r = LineReader::new(&data[..]);
        let l = r.next_line().unwrap().unwrap();
        assert_eq!(l.bytes.len(), 3 * 1024 * 1024);
        assert!(r.next_line().unwrap().is_none());
    }
}
