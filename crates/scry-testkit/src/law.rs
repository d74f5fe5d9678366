//! The resume law (SPEC S-I2), as the index applies it: parse a prefix of a file with resume
//! points requested, keep the events and warnings before the last point, then continue from
//! that point over the grown file → events, warnings and header deep-equal a full parse.
//!
//! The file under test is copied to a temporary directory that mirrors its surroundings with
//! symlinks (siblings, the session's side directories, three levels up), so sibling lookups and
//! side files behave as at the original place; prefixes are written at the same path.
//!
//! A provider that refuses to resume is parsed whole (as the index does) and the refusal is
//! counted ([`Indexed::refused`], [`Tally::refused`]): a provider that must always resume from
//! its own points asserts that count is zero.

use std::path::{Path, PathBuf};

use scry_model::{Event, Session, Warning};
use scry_source::{Emitter, EventSink, ResumePoint, Source, SourceFile};

/// A sink that keeps everything and the last resume point.
#[derive(Default)]
pub struct Keep {
    /// Events received.
    pub events: Vec<Event>,
    /// Warnings received.
    pub warnings: Vec<Warning>,
    /// The last resume point offered.
    pub point: Option<ResumePoint>,
    /// Resume points offered.
    pub points: usize,
}

impl EventSink for Keep {
    fn event(&mut self, e: Event) {
        self.events.push(e);
    }
    fn warning(&mut self, w: Warning) {
        self.warnings.push(w);
    }
    fn wants_resume_points(&self) -> bool {
        true
    }
    fn resume_point(&mut self, p: ResumePoint) {
        self.points += 1;
        self.point = Some(p);
    }
}

/// A parse as the index holds it: the session and its last resume point.
#[derive(Debug, Clone)]
pub struct Indexed {
    /// The session as stored.
    pub session: Session,
    /// The point a later parse continues from.
    pub point: Option<ResumePoint>,
    /// The provider refused to resume and the session was parsed whole.
    pub refused: bool,
}

/// A full parse with resume points requested.
pub fn full(src: &dyn Source, file: &SourceFile) -> Indexed {
    let mut sink = Keep::default();
    let header = {
        let mut out = Emitter::new(&mut sink);
        let mut h = src
            .parse_into(file, &mut out)
            .unwrap_or_else(|e| panic!("{}: {e}", file.path.display()));
        out.finish_header(&mut h);
        h
    };
    assert!(sink.points <= 1, "at most one point is offered per pass");
    Indexed {
        session: Session {
            header,
            events: sink.events,
            warnings: sink.warnings,
        },
        point: sink.point,
        refused: false,
    }
}

/// What the index does when the file grew: drop what followed the point, continue from it.
/// Keeps the old point when the continuation offers none, and parses whole when the provider
/// refuses (as the index does).
pub fn resume(src: &dyn Source, file: &SourceFile, prev: &Indexed) -> Indexed {
    let Some(p) = prev.point.as_ref() else {
        return full(src, file);
    };
    let mut sink = Keep::default();
    let header = {
        let mut out = Emitter::resumed(&mut sink, &p.emitter);
        match src.parse_into_from(file, p, &mut out) {
            Ok(mut h) => {
                out.finish_header(&mut h);
                h
            }
            // A refusal: the index parses the file whole instead.
            Err(_) => {
                return Indexed {
                    refused: true,
                    ..full(src, file)
                }
            }
        }
    };
    let mut events = prev.session.events[..p.emitter.events as usize].to_vec();
    events.extend(sink.events);
    let mut warnings = prev.session.warnings[..p.emitter.warnings as usize].to_vec();
    warnings.extend(sink.warnings);
    Indexed {
        session: Session {
            header,
            events,
            warnings,
        },
        point: sink.point.or_else(|| prev.point.clone()),
        refused: false,
    }
}

/// Builds a mirror of `file`'s surroundings (`depth` directory levels) under `tmp` and
/// returns the path to write at.
pub fn mirror(tmp: &Path, original: &Path, depth: usize) -> PathBuf {
    let comps: Vec<&Path> = original.ancestors().skip(1).take(depth).collect();
    // comps[0] = parent, comps[1] = grandparent, …
    let mut chain: Vec<PathBuf> = Vec::new();
    let mut at = tmp.to_path_buf();
    for dir in comps.iter().rev() {
        at = at.join(dir.file_name().unwrap_or_default());
        chain.push(at.clone());
    }
    std::fs::create_dir_all(chain.last().unwrap()).unwrap();
    let target = chain.last().unwrap().join(original.file_name().unwrap());
    // At each level, symlink every entry except the one on the chain / the file itself.
    let keep: Vec<PathBuf> = comps
        .iter()
        .rev()
        .skip(1)
        .map(|p| p.to_path_buf())
        .chain(std::iter::once(original.to_path_buf()))
        .collect();
    for (i, dir) in comps.iter().rev().enumerate() {
        let Ok(rd) = std::fs::read_dir(dir) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if keep[i] == p {
                continue;
            }
            let link = chain[i].join(e.file_name());
            if !link.exists() {
                std::os::unix::fs::symlink(&p, &link).unwrap();
            }
        }
    }
    target
}

/// Line-end offsets of `bytes` (after each `\n`).
pub fn line_ends(bytes: &[u8]) -> Vec<usize> {
    bytes
        .iter()
        .enumerate()
        .filter(|(_, b)| **b == b'\n')
        .map(|(i, _)| i + 1)
        .collect()
}

/// At most `n` cut offsets out of `ends`, evenly spread, always with the first and last.
pub fn sample(ends: &[usize], n: usize) -> Vec<usize> {
    if ends.len() <= n {
        return ends.to_vec();
    }
    let mut out: Vec<usize> = (0..n)
        .map(|i| ends[i * (ends.len() - 1) / (n - 1)])
        .collect();
    out.dedup();
    out
}

/// What one law check did.
#[derive(Debug, Default, Clone, Copy)]
pub struct Tally {
    /// Cuts tried.
    pub cuts: usize,
    /// Cuts whose prefix offered a resume point (so a real resume was checked).
    pub resumed: usize,
    /// Torn cuts (mid-line) tried.
    pub torn: usize,
    /// Bytes the resumed parses read, against bytes a full parse would have read.
    pub resume_bytes: u64,
    /// Resumes the provider refused (parsed whole instead), fresh and chained.
    pub refused: usize,
}

/// Checks the law for one file at `cuts` (byte offsets; mid-line ones are torn prefixes),
/// each from a fresh prefix parse, and once chained (cut after cut, as the index lives it).
/// `make` builds the source record for a path (as discovery would); `depth` directory levels
/// around the file are mirrored.
pub fn check(
    src: &dyn Source,
    original: &Path,
    make: &dyn Fn(&Path) -> SourceFile,
    cuts: &[usize],
    depth: usize,
) -> Tally {
    let bytes = std::fs::read(original).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let path = mirror(tmp.path(), original, depth);
    std::fs::write(&path, &bytes).unwrap();
    let file = make(&path);
    let want = full(src, &file).session;
    let mut tally = Tally::default();
    let ends = line_ends(&bytes);
    for &cut in cuts {
        std::fs::write(&path, &bytes[..cut]).unwrap();
        let prefix = full(src, &file);
        std::fs::write(&path, &bytes).unwrap();
        if prefix.point.is_some() {
            tally.resumed += 1;
        }
        if !ends.contains(&cut) && cut != bytes.len() {
            tally.torn += 1;
        }
        let before = scry_source::jsonl::thread_bytes_read();
        let got = resume(src, &file, &prefix);
        tally.refused += usize::from(got.refused);
        if prefix.point.is_some() {
            tally.resume_bytes += scry_source::jsonl::thread_bytes_read() - before;
        }
        tally.cuts += 1;
        assert_session_eq(
            &got.session,
            &want,
            &format!("{} cut {cut}", original.display()),
        );
    }
    // Chained: the index resumes from the point of the previous resume.
    let mut state: Option<Indexed> = None;
    for &cut in cuts.iter().chain(std::iter::once(&bytes.len())) {
        std::fs::write(&path, &bytes[..cut]).unwrap();
        state = Some(match &state {
            None => full(src, &file),
            Some(prev) => resume(src, &file, prev),
        });
        tally.refused += usize::from(state.as_ref().is_some_and(|s| s.refused));
        let direct = full(src, &file).session;
        assert_session_eq(
            &state.as_ref().unwrap().session,
            &direct,
            &format!("{} chained at {cut}", original.display()),
        );
    }
    tally
}

/// Deep equality with a readable first difference.
pub fn assert_session_eq(got: &Session, want: &Session, what: &str) {
    assert_eq!(got.header, want.header, "{what}: header");
    assert_eq!(
        got.warnings.len(),
        want.warnings.len(),
        "{what}: warnings {:#?} vs {:#?}",
        got.warnings,
        want.warnings
    );
    for (i, (a, b)) in got.warnings.iter().zip(&want.warnings).enumerate() {
        assert_eq!(a, b, "{what}: warning {i}");
    }
    assert_eq!(got.events.len(), want.events.len(), "{what}: event count");
    for (i, (a, b)) in got.events.iter().zip(&want.events).enumerate() {
        assert_eq!(a, b, "{what}: event {i}");
    }
    assert_eq!(got, want, "{what}");
}
