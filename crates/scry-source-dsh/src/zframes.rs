//! Frame-by-frame reading of multi-frame zstd files (RFC 8878), as DeepSeek Harness writes them:
//! one frame per append batch, concatenated, with the last frame possibly still being written.
//!
//! [`FrameReader`] walks the frame headers itself — magic number, frame header descriptor,
//! window / dictionary / content-size fields, the 3-byte block headers up to the last-block bit,
//! the optional checksum, and skippable frames (`0x184D2A5?`) — so it knows every frame's
//! boundaries without decompressing. Each frame is then decoded on its own with the `zstd` crate,
//! and only a frame that decodes completely is passed on. That gives the damaged-input rules:
//!
//! - a torn final frame (the file ends inside it) is dropped with one
//!   [`WarningKind::CorruptFrame`] warning; everything before it is read;
//! - a middle frame whose content does not decode is dropped with a warning and reading
//!   continues with the next frame (its boundary is known from the headers);
//! - bytes that are not a frame at all are skipped up to the next zstd magic number, with a
//!   warning naming how many bytes were skipped.
//!
//! Memory: one compressed frame plus its decoded output (a DSH frame is one append batch). A
//! frame that decodes to more than [`MAX_FRAME_OUTPUT`] bytes (a file re-compressed as one big
//! frame, say) is not buffered: it is streamed instead, and should it fail part-way, what was
//! already read stands and a warning says where it stopped.

use std::collections::VecDeque;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use scry_model::{Warning, WarningKind};

/// The zstd frame magic number (little-endian on disk: `28 B5 2F FD`).
pub const ZSTD_MAGIC: u32 = 0xFD2F_B528;
/// Largest decoded frame held in memory; bigger frames are streamed.
pub const MAX_FRAME_OUTPUT: u64 = 64 * 1024 * 1024;
/// Largest block size RFC 8878 allows (`Block_Maximum_Size` is at most 128 KiB).
const MAX_BLOCK_SIZE: usize = 128 * 1024;

/// True for the 16 skippable-frame magic numbers `0x184D2A50..=0x184D2A5F`.
fn is_skippable(magic: u32) -> bool {
    magic & 0xFFFF_FFF0 == 0x184D_2A50
}

/// What one step of the frame walk found.
enum Walk {
    /// A complete zstd frame (its compressed bytes).
    Frame(Vec<u8>),
    /// A skippable frame, already consumed.
    Skipped,
    /// The file ends inside a frame: `n` bytes of a torn frame.
    Torn(usize),
    /// Not a frame here: garbage that was skipped up to the next magic number (or the end).
    Garbage(usize),
    /// Clean end of input.
    End,
}

/// Input bytes with a push-back buffer, so a bad frame can be re-scanned for the next magic.
struct Bytes<R> {
    inner: R,
    back: VecDeque<u8>,
    /// Bytes handed out so far (compressed offset).
    offset: u64,
}

impl<R: BufRead> Bytes<R> {
    /// Appends up to `n` bytes to `out`; returns how many were available (fewer only at EOF).
    fn take(&mut self, n: usize, out: &mut Vec<u8>) -> io::Result<usize> {
        let mut got = 0;
        while got < n {
            if let Some(b) = self.back.pop_front() {
                out.push(b);
                got += 1;
                continue;
            }
            let buf = self.inner.fill_buf()?;
            if buf.is_empty() {
                break;
            }
            let k = buf.len().min(n - got);
            out.extend_from_slice(buf.get(..k).unwrap_or_default());
            self.inner.consume(k);
            got += k;
        }
        self.offset += got as u64;
        Ok(got)
    }

    /// Puts `bytes` back in front of the input.
    fn unread(&mut self, bytes: &[u8]) {
        for b in bytes.iter().rev() {
            self.back.push_front(*b);
        }
        self.offset = self.offset.saturating_sub(bytes.len() as u64);
    }
}

/// Reads the decoded content of a multi-frame zstd file, frame by frame (see the module doc).
pub struct FrameReader<R> {
    src: Bytes<R>,
    path: PathBuf,
    out: Vec<u8>,
    pos: usize,
    /// A frame too large to buffer, decoded as a stream.
    stream: Option<Box<dyn Read + Send>>,
    streamed: u64,
    limit: u64,
    done: bool,
    frames: u64,
    warnings: Vec<Warning>,
}

impl FrameReader<BufReader<File>> {
    /// Opens `path` for frame-by-frame reading.
    pub fn open(path: &Path) -> io::Result<Self> {
        let file = File::open(path)?;
        Ok(FrameReader::new(
            BufReader::with_capacity(64 * 1024, file),
            path,
        ))
    }
}

impl<R: BufRead> FrameReader<R> {
    /// Wraps compressed input; `path` is used in warnings.
    pub fn new(inner: R, path: &Path) -> Self {
        FrameReader {
            src: Bytes {
                inner,
                back: VecDeque::new(),
                offset: 0,
            },
            path: path.to_path_buf(),
            out: Vec::new(),
            pos: 0,
            stream: None,
            streamed: 0,
            limit: MAX_FRAME_OUTPUT,
            done: false,
            frames: 0,
            warnings: Vec::new(),
        }
    }

    /// Sets the largest decoded frame held in memory (default [`MAX_FRAME_OUTPUT`]).
    pub fn with_limit(mut self, limit: u64) -> Self {
        self.limit = limit;
        self
    }

    /// Frames decoded so far.
    pub fn frames(&self) -> u64 {
        self.frames
    }

    /// Takes the warnings raised so far.
    pub fn take_warnings(&mut self) -> Vec<Warning> {
        std::mem::take(&mut self.warnings)
    }

    fn warn(&mut self, message: String) {
        self.warnings.push(Warning::at(
            WarningKind::CorruptFrame,
            message,
            &self.path,
            None,
        ));
    }

    /// Walks one frame (or skippable frame, or garbage run) from the input.
    fn walk(&mut self) -> io::Result<Walk> {
        let mut frame = Vec::with_capacity(1024);
        let got = self.src.take(4, &mut frame)?;
        if got == 0 {
            return Ok(Walk::End);
        }
        if got < 4 {
            return Ok(Walk::Torn(got));
        }
        let magic = u32::from_le_bytes([
            frame.first().copied().unwrap_or(0),
            frame.get(1).copied().unwrap_or(0),
            frame.get(2).copied().unwrap_or(0),
            frame.get(3).copied().unwrap_or(0),
        ]);
        if is_skippable(magic) {
            let mut size = Vec::with_capacity(4);
            if self.src.take(4, &mut size)? < 4 {
                return Ok(Walk::Torn(4 + size.len()));
            }
            let n = u32::from_le_bytes([
                size.first().copied().unwrap_or(0),
                size.get(1).copied().unwrap_or(0),
                size.get(2).copied().unwrap_or(0),
                size.get(3).copied().unwrap_or(0),
            ]) as usize;
            let mut sink = Vec::new();
            let mut left = n;
            while left > 0 {
                sink.clear();
                let step = left.min(64 * 1024);
                let k = self.src.take(step, &mut sink)?;
                if k < step {
                    return Ok(Walk::Torn(8 + (n - left) + k));
                }
                left -= k;
            }
            return Ok(Walk::Skipped);
        }
        if magic != ZSTD_MAGIC {
            return self.resync(frame);
        }
        // Frame_Header_Descriptor.
        if self.src.take(1, &mut frame)? < 1 {
            return Ok(Walk::Torn(frame.len()));
        }
        let fhd = frame.get(4).copied().unwrap_or(0);
        let fcs_flag = fhd >> 6;
        let single_segment = fhd & 0x20 != 0;
        let reserved = fhd & 0x08 != 0;
        let checksum = fhd & 0x04 != 0;
        let dict_flag = fhd & 0x03;
        if reserved {
            return self.resync(frame);
        }
        let window = usize::from(!single_segment);
        let dict = [0usize, 1, 2, 4][usize::from(dict_flag)];
        let fcs = match fcs_flag {
            0 => usize::from(single_segment),
            1 => 2,
            2 => 4,
            _ => 8,
        };
        let rest = window + dict + fcs;
        if self.src.take(rest, &mut frame)? < rest {
            return Ok(Walk::Torn(frame.len()));
        }
        // Blocks, each with a 3-byte little-endian header.
        loop {
            let at = frame.len();
            if self.src.take(3, &mut frame)? < 3 {
                return Ok(Walk::Torn(frame.len()));
            }
            let b0 = u32::from(frame.get(at).copied().unwrap_or(0));
            let b1 = u32::from(frame.get(at + 1).copied().unwrap_or(0));
            let b2 = u32::from(frame.get(at + 2).copied().unwrap_or(0));
            let header = b0 | (b1 << 8) | (b2 << 16);
            let last = header & 1 != 0;
            let block_type = (header >> 1) & 0x3;
            let block_size = (header >> 3) as usize;
            let content = match block_type {
                0 | 2 => block_size, // raw, compressed
                1 => 1,              // RLE: one byte repeated block_size times
                _ => return self.resync(frame),
            };
            if block_size > MAX_BLOCK_SIZE {
                return self.resync(frame);
            }
            if self.src.take(content, &mut frame)? < content {
                return Ok(Walk::Torn(frame.len()));
            }
            if last {
                break;
            }
        }
        if checksum && self.src.take(4, &mut frame)? < 4 {
            return Ok(Walk::Torn(frame.len()));
        }
        Ok(Walk::Frame(frame))
    }

    /// The bytes in `bad` are not a valid frame: push back everything after the first byte and
    /// skip forward to the next zstd magic number.
    fn resync(&mut self, bad: Vec<u8>) -> io::Result<Walk> {
        self.src.unread(bad.get(1..).unwrap_or_default());
        let mut skipped = 1usize;
        let magic = ZSTD_MAGIC.to_le_bytes();
        let mut window: Vec<u8> = Vec::with_capacity(4);
        loop {
            let mut one = Vec::with_capacity(1);
            if self.src.take(1, &mut one)? == 0 {
                skipped += window.len();
                break;
            }
            window.extend_from_slice(&one);
            if window.len() > 4 {
                window.remove(0);
                skipped += 1;
            }
            if window.as_slice() == magic {
                self.src.unread(&magic);
                break;
            }
        }
        Ok(Walk::Garbage(skipped))
    }

    /// Loads the next decodable frame into `out`; false at the end.
    fn next_frame(&mut self) -> io::Result<bool> {
        loop {
            let start = self.src.offset;
            match self.walk()? {
                Walk::End => return Ok(false),
                Walk::Skipped => continue,
                Walk::Torn(n) => {
                    self.warn(format!(
                        "torn final zstd frame at byte {start} ({n} bytes, file ends inside it) dropped; \
                         {} earlier frame(s) read",
                        self.frames
                    ));
                    return Ok(false);
                }
                Walk::Garbage(n) => {
                    self.warn(format!(
                        "{n} byte(s) at byte {start} are not a zstd frame; skipped to the next frame"
                    ));
                    continue;
                }
                Walk::Frame(bytes) => match decode_frame(&bytes, self.limit) {
                    Ok(Some(out)) => {
                        self.frames += 1;
                        self.out = out;
                        self.pos = 0;
                        return Ok(true);
                    }
                    Ok(None) => {
                        // Too large to buffer: stream it.
                        let dec = zstd::stream::read::Decoder::with_buffer(io::Cursor::new(bytes))?
                            .single_frame();
                        self.frames += 1;
                        self.out.clear();
                        self.pos = 0;
                        self.stream = Some(Box::new(dec));
                        self.streamed = 0;
                        return Ok(true);
                    }
                    Err(e) => {
                        self.warn(format!(
                            "zstd frame at byte {start} ({} bytes) does not decode ({e}); dropped, \
                             reading continues with the next frame",
                            bytes.len()
                        ));
                        continue;
                    }
                },
            }
        }
    }
}

/// Decodes one complete frame; `None` when its output exceeds `limit` (the caller streams it
/// instead).
fn decode_frame(frame: &[u8], limit: u64) -> io::Result<Option<Vec<u8>>> {
    let dec = zstd::stream::read::Decoder::with_buffer(frame)?.single_frame();
    let mut out = Vec::new();
    let n = dec.take(limit + 1).read_to_end(&mut out)?;
    if n as u64 > limit {
        return Ok(None);
    }
    Ok(Some(out))
}

impl<R: BufRead> Read for FrameReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.pos >= self.out.len() {
            if let Some(stream) = &mut self.stream {
                match stream.read(buf) {
                    Ok(0) => self.stream = None,
                    Ok(n) => {
                        self.streamed += n as u64;
                        return Ok(n);
                    }
                    Err(e) => {
                        self.stream = None;
                        let done = self.streamed;
                        self.warn(format!(
                            "large zstd frame failed after {done} decoded bytes ({e}); the rest of \
                             it is dropped, reading continues with the next frame"
                        ));
                    }
                }
                continue;
            }
            if self.done {
                return Ok(0);
            }
            match self.next_frame() {
                Ok(true) => {}
                Ok(false) => {
                    self.done = true;
                    self.out.clear();
                    self.pos = 0;
                    return Ok(0);
                }
                Err(e) => {
                    // An I/O error on the file itself: report and stop, keeping what was read.
                    self.warnings.push(Warning::at(
                        WarningKind::Unreadable,
                        format!("read stopped: {e}"),
                        &self.path,
                        None,
                    ));
                    self.done = true;
                    return Ok(0);
                }
            }
        }
        let avail = self.out.get(self.pos..).unwrap_or_default();
        let n = avail.len().min(buf.len());
        if let (Some(dst), Some(src)) = (buf.get_mut(..n), avail.get(..n)) {
            dst.copy_from_slice(src);
        }
        self.pos += n;
        Ok(n)
    }
}

/// True when `path` names a zstd-compressed session file (`.zstd` or `.zst`).
pub fn is_compressed(path: &Path) -> bool {
    path.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.ends_with(".zstd") || n.ends_with(".zst"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(data: &[u8], checksum: bool) -> Vec<u8> {
        let mut enc = zstd::stream::write::Encoder::new(Vec::new(), 3).unwrap();
        enc.include_checksum(checksum).unwrap();
        std::io::Write::write_all(&mut enc, data).unwrap();
        enc.finish().unwrap()
    }

    fn read_all(bytes: &[u8]) -> (Vec<u8>, Vec<Warning>, u64) {
        let mut r = FrameReader::new(bytes, Path::new("t.zstd"));
        let mut out = Vec::new();
        r.read_to_end(&mut out).unwrap();
        let n = r.frames();
        (out, r.take_warnings(), n)
    }

    #[test]
    fn all_frames_are_read() {
        let mut file = frame(b"one\n", false);
        file.extend(frame(b"two\n", true));
        file.extend(frame(b"three\n", false));
        let (out, warnings, n) = read_all(&file);
        assert_eq!(out, b"one\ntwo\nthree\n");
        assert!(warnings.is_empty());
        assert_eq!(n, 3);
    }

    #[test]
    fn skippable_frames_are_skipped() {
        let mut file = frame(b"a\n", false);
        file.extend(0x184D_2A53u32.to_le_bytes());
        file.extend(3u32.to_le_bytes());
        file.extend(b"xyz");
        file.extend(frame(b"b\n", false));
        let (out, warnings, _) = read_all(&file);
        assert_eq!(out, b"a\nb\n");
        assert!(warnings.is_empty());
    }

    #[test]
    fn torn_tail_is_dropped_with_one_warning() {
        let mut file = frame(b"a\n", false);
        let second = frame(b"bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb\n", true);
        file.extend(&second[..second.len() - 3]);
        for cut in 1..4 {
            let mut f = frame(b"a\n", false);
            f.extend(&second[..cut]);
            let (out, warnings, _) = read_all(&f);
            assert_eq!(out, b"a\n");
            assert_eq!(warnings.len(), 1);
        }
        let (out, warnings, _) = read_all(&file);
        assert_eq!(out, b"a\n");
        assert_eq!(warnings.len(), 1);
        assert_eq!(warnings[0].kind, WarningKind::CorruptFrame);
    }

    #[test]
    fn garbage_between_frames_is_skipped() {
        let mut file = frame(b"a\n", false);
        file.extend(b"garbage!");
        file.extend(frame(b"b\n", false));
        let (out, warnings, _) = read_all(&file);
        assert_eq!(out, b"a\nb\n");
        assert_eq!(warnings.len(), 1);
        assert!(warnings[0].message.contains("8 byte(s)"), "{warnings:?}");
    }

    #[test]
    fn a_frame_bigger_than_the_buffer_limit_is_streamed() {
        // 3 MB of one repeated line in one frame, with a 1 MB buffer limit.
        let line = b"{\"type\":\"x\"}\n";
        let n = 3 * 1024 * 1024 / line.len();
        let big: Vec<u8> = line.iter().copied().cycle().take(n * line.len()).collect();
        let mut file = frame(&big, true);
        file.extend(frame(b"tail\n", false));
        let mut r = FrameReader::new(&file[..], Path::new("t.zstd")).with_limit(1024 * 1024);
        let mut total = 0u64;
        let mut last = Vec::new();
        let mut buf = vec![0u8; 1 << 20];
        loop {
            let k = r.read(&mut buf).unwrap();
            if k == 0 {
                break;
            }
            total += k as u64;
            last = buf[..k].to_vec();
        }
        assert_eq!(total, big.len() as u64 + 5);
        assert!(last.ends_with(b"tail\n"));
        assert!(r.take_warnings().is_empty());
        assert_eq!(r.frames(), 2);
    }

    #[test]
    fn empty_input_is_empty() {
        let (out, warnings, n) = read_all(b"");
        assert!(out.is_empty() && warnings.is_empty() && n == 0);
    }
}
