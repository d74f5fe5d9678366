//! scry provider for DeepSeek Harness (`dsh`) sessions.
//!
//! Checked against: the real sessions written by `@deepseek-ai/dsh` 0.1.0-rc.8 (session store
//! `@deepseek-ai/dsh-session` 0.1.0-rc.8, header `version: 0`, multi-frame `.jsonl.zstd`, corpus
//! `real/home/.dsh`), and the synthetic uncompressed header `version: 3` / `version: 4` fixtures
//! of jazzyalex/agent-sessions (corpus `third-party/dsh`). formats.md §6 describes the format.
//!
//! Reading a session:
//! - discovery ([`discover`]): `$DSH_HOME` or `~/.dsh`, `sessions/<slug>/<dir>/session[.vN].jsonl[.zstd]`,
//!   highest `vN` wins, then the newest mtime;
//! - decompression ([`zframes`]): frame by frame (RFC 8878 header walk), a torn last frame or a
//!   corrupt middle frame is dropped with a `CorruptFrame` warning and everything else is read;
//! - two passes over the decoded stream: the first folds only `surfaceOp` fields to learn which
//!   records a later compaction shadowed ([`surface`]); the second maps records to events
//!   ([`map`]) and streams them out;
//! - the header scan decodes at most the first 64 KB of output.
//!
//! Token usage: `inputTokens` does not include `cacheReadTokens` (additive, like Claude). Evidence
//! from the real corpus (session 99bf26f5): request 1 reports input 8285 / cache read 0, request 2
//! input 1677 / cache read 6708 — 8385 in all, the first prompt plus one exchange. So
//! `input = inputTokens`, `cache_read = cacheReadTokens`, `cache_write = cacheWriteTokens`,
//! `reasoning = reasoningTokens` (also counted in `outputTokens`). Usage is taken from
//! `assistant/message.usage` (one per model request); the `usage` chunk that precedes it is the
//! same number and is used only when the message record never arrived.

pub mod chunks;
pub mod discover;
pub mod map;
pub mod surface;
pub mod zframes;

use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use scry_model::{Header, ProviderId, Warning};
use scry_source::{
    jsonl, Discovery, Emitter, Env, EventSink, Root, Source, SourceError, SourceFile,
};

use crate::map::Mapper;
use crate::zframes::{is_compressed, FrameReader};

/// How much decoded output the header scan reads at most.
pub const HEADER_SCAN_BYTES: u64 = 64 * 1024;

/// The DeepSeek Harness reader.
#[derive(Debug, Default, Clone, Copy)]
pub struct DshSource;

/// Opens the decoded stream of a session file: frame by frame for `.zstd` / `.zst`, plain
/// otherwise. Frame warnings are collected by the returned reader.
pub fn open_decoded(path: &Path) -> Result<Decoded, SourceError> {
    if is_compressed(path) {
        let r = FrameReader::open(path).map_err(|e| SourceError::io(path, e))?;
        Ok(Decoded::Zstd(Box::new(r)))
    } else {
        let f = File::open(path).map_err(|e| SourceError::io(path, e))?;
        Ok(Decoded::Plain(f))
    }
}

/// A decoded session stream.
pub enum Decoded {
    /// A multi-frame zstd file, decoded frame by frame.
    Zstd(Box<FrameReader<BufReader<File>>>),
    /// An uncompressed file.
    Plain(File),
}

impl Decoded {
    /// Warnings raised while decoding (torn / corrupt frames).
    pub fn take_warnings(&mut self) -> Vec<Warning> {
        match self {
            Decoded::Zstd(r) => r.take_warnings(),
            Decoded::Plain(_) => Vec::new(),
        }
    }
}

impl Read for Decoded {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        match self {
            Decoded::Zstd(r) => r.read(buf),
            Decoded::Plain(f) => f.read(buf),
        }
    }
}

struct Discard;
impl EventSink for Discard {
    fn event(&mut self, _: scry_model::Event) {}
    fn warning(&mut self, _: Warning) {}
}

impl DshSource {
    /// Reads the first [`HEADER_SCAN_BYTES`] of decoded output into a header.
    fn scan(&self, file: &SourceFile) -> Result<Header, SourceError> {
        let path = &file.path;
        let reader: Box<dyn Read> = if is_compressed(path) {
            let f = File::open(path).map_err(|e| SourceError::io(path, e))?;
            Box::new(zstd::stream::read::Decoder::new(f).map_err(|e| SourceError::io(path, e))?)
        } else {
            Box::new(File::open(path).map_err(|e| SourceError::io(path, e))?)
        };
        let mut limited = BufReader::new(reader.take(HEADER_SCAN_BYTES));
        let mut sink = Discard;
        let mut out = Emitter::new(&mut sink);
        let mut mapper = Mapper::new(path, &file.id, surface::SurfaceMap::default());
        let mut warnings = Vec::new();
        let stats = jsonl::read(&mut limited, path, 0, 0, &mut warnings, |r| {
            mapper.record(r, &mut out)
        });
        let mut header = mapper.header();
        out.finish_header(&mut header);
        if stats.bytes >= HEADER_SCAN_BYTES {
            // Only a prefix was read: the file's mtime is the best bound for `updated`.
            if let Some(t) = mtime(file) {
                header.touch(t);
            }
        }
        Ok(header)
    }
}

fn mtime(file: &SourceFile) -> Option<scry_model::Timestamp> {
    (file.mtime_ns > 0)
        .then(|| scry_model::Timestamp::from_nanosecond(i128::from(file.mtime_ns)).ok())
        .flatten()
}

impl Source for DshSource {
    fn id(&self) -> ProviderId {
        ProviderId::Dsh
    }

    fn roots(&self, env: &Env) -> Vec<Root> {
        vec![discover::root(env)]
    }

    fn discover(&self, env: &Env) -> Discovery {
        discover::discover(env)
    }

    fn detect(&self, path: &Path) -> Option<SourceFile> {
        if path.is_dir() {
            // A session directory: its preferred session file.
            let file = discover::pick_session_file(path)?;
            return self.detect(&file);
        }
        if !path.is_file() {
            return None;
        }
        let name = path.file_name()?.to_str()?;
        let named = discover::session_file_version(name).is_some();
        let mut head = Vec::new();
        let mut r = open_decoded(path).ok()?;
        (&mut r).take(16 * 1024).read_to_end(&mut head).ok()?;
        let first = head.split(|b| *b == b'\n').next()?;
        let v: serde_json::Value = serde_json::from_slice(first).ok()?;
        let is_header = v.get("type").and_then(|t| t.as_str()) == Some("session")
            && v.get("createdAt").is_some_and(|c| c.is_number());
        if !is_header || !(named || v.get("delegationDepth").is_some()) {
            return None;
        }
        let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
        let mut sf = discover::source_file(&dir, path.to_path_buf());
        if !named {
            sf.id = v
                .get("id")
                .and_then(|i| i.as_str())
                .map(str::to_string)
                .unwrap_or_else(|| name.to_string());
            sf.kind = scry_model::SessionKind::Main;
        }
        Some(sf)
    }

    fn scan_header(&self, file: &SourceFile) -> Result<Header, SourceError> {
        self.scan(file)
    }

    fn parse_into(&self, file: &SourceFile, out: &mut Emitter<'_>) -> Result<Header, SourceError> {
        let path: PathBuf = file.path.clone();
        // Pass 1: the surface.
        let surface = {
            let mut r = open_decoded(&path)?;
            surface::fold(BufReader::with_capacity(64 * 1024, &mut r))
        };
        // Pass 2: the events.
        let mut decoded = open_decoded(&path)?;
        let mut mapper = Mapper::new(&path, &file.id, surface);
        let mut warnings = Vec::new();
        {
            let reader: &mut dyn BufRead = &mut BufReader::with_capacity(64 * 1024, &mut decoded);
            jsonl::read(reader, &path, 0, 0, &mut warnings, |r| {
                mapper.record(r, out)
            });
        }
        for w in decoded.take_warnings().into_iter().chain(warnings) {
            out.warn(w);
        }
        Ok(mapper.finish(out))
    }
}
