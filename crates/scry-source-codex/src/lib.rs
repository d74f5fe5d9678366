//! scry provider for OpenAI Codex CLI rollouts, every format era:
//! - TypeScript era (codex 0.1.x, 2025-04/05): one JSON document per session ([`legacy`]);
//! - bare era (Rust CLI ≤ Sept 2025, e.g. 0.23.0): unwrapped lines, no timestamps ([`rollout`]);
//! - wrapped era (`{timestamp,type,payload}`, Sept 2025 → 0.171.0 in 2026) ([`rollout`]).
//!
//! Checked against the real files in corpus/real (0.171.0) and corpus/real-older (0.1.2505291658,
//! 0.23.0), and the third-party fixtures (0.53, 0.77, 0.106, 0.146). How each kind is chosen
//! among the `response_item`s and their `event_msg` mirrors is documented in [`mapper`]; token
//! semantics in [`usage`]; the hold-back that attaches usage and receipts in [`pending`];
//! resuming a grown plain rollout from its last safe point in [`checkpoint`].
//!
//! Not read (yet): `history.jsonl` / `history.json` (prompt history; could date TypeScript-era
//! prompts), `state_5.sqlite` (thread titles, spawn edges), `response_item` `compaction`
//! items beyond a `compaction_item` Meta event. A receipt (`exec_command_end`, …) that arrives
//! after its result has already been emitted (a later request started in between) is dropped.
//! For `.jsonl.zst` files the header scan cannot read the tail, so `updated` comes from the
//! first megabyte only.

mod checkpoint;
mod classify;
mod discover;
mod legacy;
mod mapper;
mod pending;
mod read;
mod rollout;
mod usage;

use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use scry_model::{Event, Header, ProviderId, TitleSource, Warning};
use scry_source::lines::LineReader;
use scry_source::{jsonl, time, Discovery, Emitter, Env, EventSink, ResumePoint, Root, Source};
use scry_source::{SourceError, SourceFile};

use discover::{FileFormat, SESSION_INDEX};
use mapper::Rec;
use rollout::Rollout;

/// The environment variable that moves the Codex home.
pub const CODEX_HOME_VAR: &str = "CODEX_HOME";

/// How much of a rollout's head is read to decide whether the `event_msg` mirrors are needed.
const MIRROR_SNIFF_BYTES: usize = 512 * 1024;
/// At most this much of a rollout is read by [`Source::scan_header`] (it stops at the first
/// prompt).
const HEADER_SCAN_BYTES: u64 = 1024 * 1024;
/// How much of a rollout's tail is read for its last timestamp.
const TAIL_BYTES: u64 = 64 * 1024;
/// How much of a file [`Source::detect`] reads.
const DETECT_BYTES: usize = 8 * 1024;

/// The Codex reader.
#[derive(Debug, Default, Clone, Copy)]
pub struct CodexSource;

impl Source for CodexSource {
    fn id(&self) -> ProviderId {
        ProviderId::Codex
    }

    fn roots(&self, env: &Env) -> Vec<Root> {
        match env.var(CODEX_HOME_VAR) {
            Some(dir) => vec![Root::new(PathBuf::from(dir), Some(CODEX_HOME_VAR))],
            None => vec![Root::new(env.home().join(".codex"), None)],
        }
    }

    fn discover(&self, env: &Env) -> Discovery {
        let mut d = Discovery {
            roots: self.roots(env),
            ..Discovery::default()
        };
        for root in d.roots.clone() {
            if root.exists {
                discover::walk(&root.path, &mut d.files, &mut d.warnings);
            }
        }
        d
    }

    fn detect(&self, path: &Path) -> Option<SourceFile> {
        let name = path.file_name()?.to_str()?;
        let format = discover::format_of(name)?;
        let head = jsonl::head(path, DETECT_BYTES)?;
        let text = String::from_utf8_lossy(&head);
        let t = text.trim_start();
        let ok = match format {
            // `instructions` can push `items` past the sniffed head; the name then decides.
            FileFormat::Document => {
                t.starts_with('{')
                    && text.contains("\"session\"")
                    && (text.contains("\"items\"") || name.starts_with("rollout-"))
            }
            FileFormat::Lines => {
                let first = t.lines().next().unwrap_or("");
                let compact: String = first.chars().filter(|c| !c.is_whitespace()).collect();
                compact.contains("\"type\":\"session_meta\"")
                    || (compact.starts_with("{\"id\":") && compact.contains("\"timestamp\""))
                    || (name.starts_with("rollout-")
                        && (compact.contains("\"payload\":")
                            || compact.contains("\"record_type\"")))
            }
        };
        if !ok {
            return None;
        }
        let mut f = SourceFile::new(ProviderId::Codex, discover::id_from_name(name), path);
        if let Some(index) = index_path(&f) {
            f.related.push(index);
        }
        Some(f)
    }

    /// The identity's cwd: records are read (within the header scan's bound) only until the
    /// first `session_meta` (or bare line 1) is seen; the header's cwd is that one when it
    /// names one. `None` otherwise (the caller scans the header).
    fn probe_cwd(&self, file: &SourceFile) -> Option<String> {
        if !is_lines(file) {
            return None;
        }
        let reader = jsonl::open(&file.path).ok()?.take(HEADER_SCAN_BYTES);
        let mut sink = Discard;
        let mut out = Emitter::new(&mut sink);
        let mut ro = Rollout::new(file.path.clone(), false);
        let mut warnings = Vec::new();
        read::read_records(reader, &file.path, &mut warnings, |r| {
            ro.record(rec_of(&r), &r.value, &mut out);
            ro.identity.is_none()
        });
        ro.identity?.cwd
    }

    fn scan_header(&self, file: &SourceFile) -> Result<Header, SourceError> {
        if !is_lines(file) {
            return scan_by_full_parse(self, file);
        }
        let reader = jsonl::open(&file.path)?.take(HEADER_SCAN_BYTES);
        let mut sink = Discard;
        let mut out = Emitter::new(&mut sink);
        let mut ro = Rollout::new(file.path.clone(), use_mirrors(&file.path));
        let mut warnings = Vec::new();
        // Stop at the first prompt: identity, cwd, model and the first-prompt title are known.
        read::read_records(reader, &file.path, &mut warnings, |r| {
            ro.record(rec_of(&r), &r.value, &mut out);
            !(ro.identity.is_some() && ro.mapper.saw_prompt)
        });
        if ro.identity.is_none() {
            return scan_by_full_parse(self, file);
        }
        ro.mapper.finish(&mut out);
        let mut header = ro.header(&file.id);
        header.sources.push(file.path.clone());
        apply_index_titles(&mut header, file);
        out.finish_header(&mut header);
        if let Some(t) = tail_time(&file.path) {
            header.touch(t);
        }
        Ok(header)
    }

    fn parse_into(&self, file: &SourceFile, out: &mut Emitter<'_>) -> Result<Header, SourceError> {
        if !is_lines(file) {
            let mut header = legacy::parse(file, out)?;
            apply_index_titles(&mut header, file);
            return Ok(header);
        }
        let (mirrors, decided) = sniff_mirrors(&file.path);
        let ro = Rollout::new(file.path.clone(), mirrors);
        let reader = jsonl::open(&file.path)?;
        let track = out.wants_resume_points() && !jsonl::is_compressed(&file.path);
        let lines = LineReader::new(reader);
        Ok(run_lines(
            file,
            ro,
            lines,
            Vec::new(),
            track.then_some(decided),
            out,
        ))
    }

    fn resume_support(&self) -> bool {
        true
    }

    fn parse_into_from(
        &self,
        file: &SourceFile,
        from: &ResumePoint,
        out: &mut Emitter<'_>,
    ) -> Result<Header, SourceError> {
        if !is_lines(file) {
            return Err(SourceError::format(
                &file.path,
                "a rollout document is not resumed",
            ));
        }
        let mut ro = Rollout::new(file.path.clone(), false);
        let (line, warnings) = checkpoint::restore(&mut ro, &from.state, &file.path)?;
        let reader = jsonl::open_at(&file.path, from.offset)?;
        let lines = LineReader::starting_at(reader, from.offset, line);
        Ok(run_lines(file, ro, lines, warnings, Some(0), out))
    }
}

/// The pass over a JSONL rollout shared by the full and the resumed parse; `decided` (when
/// resume points are wanted) is the offset from which safe points may be taken.
fn run_lines<R: std::io::BufRead>(
    file: &SourceFile,
    mut ro: Rollout,
    lines: LineReader<R>,
    mut warnings: Vec<Warning>,
    decided: Option<u64>,
    out: &mut Emitter<'_>,
) -> Header {
    let mut journal = decided.map(|d| checkpoint::Journal::start(&mut ro, d));
    read::read_steps(lines, &file.path, &mut warnings, |step| {
        match step {
            read::Step::Record(r) => ro.record(rec_of(&r), &r.value, out),
            read::Step::End {
                offset,
                line,
                complete: true,
                warnings,
            } => {
                if let Some(j) = journal.as_mut() {
                    j.line_end(&ro, offset, line, warnings, out);
                }
            }
            read::Step::End { .. } => {}
        }
        true
    });
    if let Some(p) = journal.and_then(|j| j.point(&ro, &warnings)) {
        out.offer(p);
    }
    for w in warnings {
        out.warn(w);
    }
    ro.mapper.finish(out);
    let mut header = ro.header(&file.id);
    header.sources.push(file.path.clone());
    apply_index_titles(&mut header, file);
    header
}

/// A sink that drops everything (header scans).
struct Discard;

impl EventSink for Discard {
    fn event(&mut self, _: Event) {}
    fn warning(&mut self, _: Warning) {}
}

fn scan_by_full_parse(src: &CodexSource, file: &SourceFile) -> Result<Header, SourceError> {
    let mut sink = Discard;
    let mut out = Emitter::new(&mut sink);
    let mut header = src.parse_into(file, &mut out)?;
    out.finish_header(&mut header);
    Ok(header)
}

fn is_lines(file: &SourceFile) -> bool {
    let name = file.path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    discover::format_of(name) != Some(FileFormat::Document)
}

fn rec_of<'a>(r: &jsonl::Record<'a>) -> Rec<'a> {
    Rec {
        line: r.line,
        offset: r.offset,
        raw: r.raw,
        time: None,
    }
}

/// True when the file's head holds no `response_item`: then the `event_msg` mirrors are the
/// only record of prompts and answers.
fn use_mirrors(path: &Path) -> bool {
    sniff_mirrors(path).0
}

/// [`use_mirrors`], and the offset from which appending to the file can no longer change the
/// answer: the end of the first `"response_item"` in the head, else the end of the head.
fn sniff_mirrors(path: &Path) -> (bool, u64) {
    let needle = b"\"response_item\"";
    match jsonl::head(path, MIRROR_SNIFF_BYTES) {
        Some(head) => {
            let at = head.windows(needle.len()).position(|w| w == needle);
            let wrapped_era = head.windows(10).any(|w| w == b"\"payload\":");
            let decided = at.map_or(MIRROR_SNIFF_BYTES, |i| i + needle.len());
            (wrapped_era && at.is_none(), decided as u64)
        }
        None => (false, MIRROR_SNIFF_BYTES as u64),
    }
}

/// The `session_index.jsonl` that names this session's thread, if any.
fn index_path(file: &SourceFile) -> Option<PathBuf> {
    file.related
        .iter()
        .find(|p| p.file_name().is_some_and(|n| n == SESSION_INDEX))
        .cloned()
        .or_else(|| {
            discover::home_of(&file.path)
                .map(|h| h.join(SESSION_INDEX))
                .filter(|p| p.is_file())
        })
}

/// Thread names from `session_index.jsonl` (latest wins over in-file `thread_name_updated`,
/// since the index is appended on every rename).
fn apply_index_titles(header: &mut Header, file: &SourceFile) {
    let Some(index) = index_path(file) else {
        return;
    };
    let names = discover::thread_names(&index, &header.id);
    let Some(last) = names.last().cloned() else {
        return;
    };
    for n in names {
        if header.titles.last() != Some(&n) {
            header.titles.push(n);
        }
    }
    header.title = Some(last);
    header.title_source = Some(TitleSource::Custom);
    if !header.sources.contains(&index) {
        header.sources.push(index);
    }
}

/// The timestamp of the last complete line of a plain rollout (bounded tail read).
fn tail_time(path: &Path) -> Option<scry_model::Timestamp> {
    let name = path.file_name()?.to_str()?;
    if !name.ends_with(".jsonl") {
        return None;
    }
    let mut f = std::fs::File::open(path).ok()?;
    let len = f.metadata().ok()?.len();
    let start = len.saturating_sub(TAIL_BYTES);
    f.seek(SeekFrom::Start(start)).ok()?;
    let mut buf = Vec::new();
    std::io::BufReader::new(f).read_to_end(&mut buf).ok()?;
    let mut last = None;
    for line in buf.split(|b| *b == b'\n') {
        if let Ok(v) = serde_json::from_slice::<serde_json::Value>(line) {
            if let Some(t) = v.get("timestamp").and_then(time::from_value) {
                last = Some(t);
            }
        }
    }
    last
}
