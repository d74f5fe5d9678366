//! scry provider for pi (badlogic/pi-mono coding agent) sessions.
//!
//! Checked against files written by pi 0.73.1 (`@mariozechner/pi-coding-agent`, session format
//! v3) and the third-party v3 fixture; v1 headers (provider / model in the header, entries
//! without ids) are read too. Format reference: pi-mono `docs/session.md`.
//!
//! Layout: `$PI_CODING_AGENT_DIR/sessions/` (default `~/.pi/agent/sessions/`), one folder per
//! working directory (`--<cwd with / → ->--`, lossy: never decoded — the cwd comes from the
//! `session` header), files `<ISO time with dashes>_<uuid>.jsonl`.
//!
//! v3 entries form a tree (`id` / `parentId`): the session's active branch is the path from the
//! last entry back to the root. The file is read twice, streaming: first only ids and parent
//! ids (to find that path), then for events; entries off the active path (abandoned by `/tree`
//! navigation) become `Surface::Shadowed` events.
//!
//! - [`map`]: entries → events.
//! - [`resume`]: continuing a grown file from its end as last indexed.

mod map;
pub mod resume;

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use scry_model::{Header, Lineage, LineageKind, ProviderId, SessionKind, Warning, WarningKind};
use scry_source::json::str_of;
use scry_source::lines::LineReader;
use scry_source::resume::id_hash;
use scry_source::{entry_stat, SourceError, SourceFile};
use scry_source::{jsonl, time, Discovery, Emitter, Env, ResumePoint, Root, Source};
use serde_json::Value;

/// The pi reader.
#[derive(Debug, Default, Clone, Copy)]
pub struct PiSource;

/// The session id in a file name `<time>_<uuid>.jsonl` (the whole stem when there is no `_`).
fn id_from_path(path: &Path) -> Option<String> {
    id_from_name(path.file_name()?)
}

/// [`id_from_path`] of a file name: the file stem after its last `_`.
fn id_from_name(name: &std::ffi::OsStr) -> Option<String> {
    let stem = Path::new(name).file_stem()?.to_str()?;
    Some(stem.rsplit_once('_').map_or(stem, |(_, id)| id).to_string())
}

impl Source for PiSource {
    fn id(&self) -> ProviderId {
        ProviderId::Pi
    }

    fn roots(&self, env: &Env) -> Vec<Root> {
        match env.var("PI_CODING_AGENT_DIR") {
            Some(dir) => vec![Root::new(
                PathBuf::from(dir).join("sessions"),
                Some("PI_CODING_AGENT_DIR"),
            )],
            None => vec![Root::new(env.home().join(".pi/agent/sessions"), None)],
        }
    }

    fn discover(&self, env: &Env) -> Discovery {
        let mut out = Discovery {
            roots: self.roots(env),
            ..Discovery::default()
        };
        for root in out.roots.clone() {
            if !root.exists {
                continue;
            }
            let Some(dirs) = scry_source::list_dir(&root.path, &mut out.warnings) else {
                continue;
            };
            // The entry's type (no stat) unless it is a link, which `is_dir` follows.
            let mut dirs: Vec<PathBuf> = dirs
                .filter_map(Result::ok)
                .filter(|e| match e.file_type() {
                    Ok(t) if !t.is_symlink() => t.is_dir(),
                    _ => e.path().is_dir(),
                })
                .map(|e| e.path())
                .collect();
            dirs.sort();
            // Directories are listed on up to a few threads (system-call bound); their
            // answers are taken in order, so the output is the same.
            let listed = scry_source::par::map_in_order(&dirs, |dir| {
                let mut warnings = Vec::new();
                let mut found = Vec::new();
                let Some(files) = scry_source::list_dir(dir, &mut warnings) else {
                    return (found, warnings);
                };
                // Stat'ed while the directory is open: one stat per file, relative to it.
                // Names are looked at as bytes (no path built for a name that is not a
                // session; 20,000 files made `Path` component parsing a tenth of a warm
                // `list`).
                let mut files: Vec<(std::ffi::OsString, (u64, i64))> = files
                    .filter_map(Result::ok)
                    .filter_map(|e| {
                        let name = e.file_name();
                        let b = name.as_encoded_bytes();
                        (b.len() > ".jsonl".len() && b.ends_with(b".jsonl"))
                            .then(|| (name, entry_stat(&e)))
                    })
                    .collect();
                // One directory: the byte order of the names is the `Path` order of the paths.
                files.sort_unstable_by(|a, b| a.0.as_encoded_bytes().cmp(b.0.as_encoded_bytes()));
                found.reserve(files.len());
                for (name, stat) in files {
                    if let Some(id) = id_from_name(&name) {
                        let path = dir.join(&name);
                        found.push(SourceFile::with_stat(ProviderId::Pi, id, path, stat));
                    }
                }
                (found, warnings)
            });
            for (found, warnings) in listed {
                out.files.extend(found);
                out.warnings.extend(warnings);
            }
        }
        out
    }

    /// The cwd of a first line that is the `session` record (the record the parse takes its
    /// cwd from: the first `session` line); anything else is left to the parse.
    fn probe_cwd(&self, file: &SourceFile) -> Option<String> {
        let head = jsonl::head(&file.path, 64 * 1024)?;
        let end = head.iter().position(|b| *b == b'\n')?;
        let first: Value = serde_json::from_slice(head.get(..end)?).ok()?;
        if str_of(&first, "type") != Some("session") {
            return None;
        }
        str_of(&first, "cwd").map(String::from)
    }

    fn detect(&self, path: &Path) -> Option<SourceFile> {
        let head = jsonl::head(path, 8192)?;
        let text = String::from_utf8_lossy(&head);
        let first: Value = serde_json::from_str(text.lines().next()?).ok()?;
        if str_of(&first, "type") != Some("session") || first.get("cwd").is_none() {
            return None;
        }
        // DSH writes a look-alike `session` header, but with a numeric `createdAt` and no ISO
        // `timestamp`, and compresses its files; pi never does either.
        let name = path.file_name()?.to_str()?;
        if first.get("sessionId").is_some()
            || first.get("createdAt").is_some()
            || !first.get("timestamp").is_some_and(Value::is_string)
            || name.ends_with(".zst")
            || name.ends_with(".zstd")
        {
            return None;
        }
        let id = str_of(&first, "id")
            .map(String::from)
            .or_else(|| id_from_path(path))?;
        Some(SourceFile::new(ProviderId::Pi, id, path))
    }

    fn parse_into(&self, file: &SourceFile, out: &mut Emitter<'_>) -> Result<Header, SourceError> {
        // Pass 1: the tree, ids only.
        let track = out.wants_resume_points() && !jsonl::is_compressed(&file.path);
        let mut parents: HashMap<String, Option<String>> = HashMap::new();
        let mut last: Option<String> = None;
        let mut ids: Vec<u64> = Vec::new();
        let mut discard = Vec::new();
        jsonl::read_file(&file.path, &mut discard, |r| {
            if str_of(&r.value, "type") == Some("session") {
                return;
            }
            if let Some(id) = str_of(&r.value, "id") {
                let parent = str_of(&r.value, "parentId").map(String::from);
                parents.insert(id.to_string(), parent);
                last = Some(id.to_string());
                if track {
                    ids.push(id_hash(id));
                }
            }
        })?;
        let active = active_path(&parents, last.as_deref());
        let carry = track.then(|| resume::Carry {
            leaf: last,
            active: active.is_some(),
            ids,
        });
        let mapper = map::Mapper::new(file.path.clone(), active);
        let lines = LineReader::new(jsonl::open(&file.path)?);
        Ok(events_pass(
            file,
            lines,
            mapper,
            None,
            Vec::new(),
            carry,
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
        resume::run(file, from, out)
    }
}

/// Pass 2: events, from wherever `lines` stands. Warnings are reported at the end (read
/// warnings, then the mapper's, then a missing header); `carry` (when resume points are
/// wanted) is what a point at the end of the pass needs.
fn events_pass<R: std::io::BufRead>(
    file: &SourceFile,
    mut lines: LineReader<R>,
    mut mapper: map::Mapper,
    mut header_rec: Option<Value>,
    mut warnings: Vec<Warning>,
    carry: Option<resume::Carry>,
    out: &mut Emitter<'_>,
) -> Header {
    // The end of the last complete line (offset, number, read warnings so far), and whether a
    // record was read after it.
    let mut last_end: Option<(u64, u64, usize)> = None;
    let mut read_after = false;
    loop {
        let line = match lines.next_line() {
            Ok(Some(line)) => line,
            Ok(None) => break,
            Err(e) => {
                warnings.push(Warning::at(
                    WarningKind::Unreadable,
                    format!("read stopped: {e}"),
                    &file.path,
                    None,
                ));
                read_after = true;
                break;
            }
        };
        let (number, complete) = (line.number, line.complete);
        let mut read = false;
        if !line.bytes.iter().all(u8::is_ascii_whitespace) {
            if let Some(value) =
                jsonl::parse_line(line.bytes, &file.path, number, complete, &mut warnings)
            {
                read = true;
                let r = jsonl::Record {
                    value,
                    raw: line.bytes,
                    offset: line.offset,
                    line: number,
                };
                if str_of(&r.value, "type") == Some("session") && header_rec.is_none() {
                    header_rec = Some(r.value);
                } else {
                    for e in mapper.entry(&r) {
                        out.emit(e);
                    }
                }
            }
        }
        if complete {
            last_end = Some((lines.offset(), number, warnings.len()));
            read_after = false;
        } else {
            read_after |= read;
        }
    }
    if let (Some(c), Some((offset, line, n)), false) = (carry, last_end, read_after) {
        let before = warnings.get(..n).unwrap_or(&warnings);
        out.offer(c.point(offset, line, out.state(), &header_rec, before, &mapper));
    }
    for w in warnings.into_iter().chain(mapper.finish()) {
        out.warn(w);
    }
    header_of(file, header_rec.as_ref(), &mapper, out)
}

/// The header from the `session` line and the mapper's titles.
fn header_of(
    file: &SourceFile,
    header_rec: Option<&Value>,
    mapper: &map::Mapper,
    out: &mut Emitter<'_>,
) -> Header {
    let id = header_rec
        .and_then(|h| str_of(h, "id"))
        .map(String::from)
        .unwrap_or_else(|| file.id.clone());
    let mut header = Header::new(ProviderId::Pi, id);
    header.sources = vec![file.path.clone()];
    if let Some(h) = header_rec {
        header.cwd = str_of(h, "cwd").map(String::from);
        if let Some(t) = h.get("timestamp").and_then(time::from_value) {
            header.touch(t);
        }
        if let Some(m) = str_of(h, "modelId") {
            header.add_model(m);
        }
        for key in ["parentSession", "branchedFrom"] {
            if let Some(p) = str_of(h, key) {
                let target = id_from_path(Path::new(p)).unwrap_or_else(|| p.to_string());
                header.kind = SessionKind::Fork;
                header.parent = Some(target.clone());
                header.lineage.push(Lineage {
                    kind: LineageKind::ForkedFrom,
                    target,
                    evidence: format!("session.{key}"),
                });
                break;
            }
        }
    } else {
        out.warn(Warning::at(
            WarningKind::Other,
            "no `session` header line; cwd unknown",
            &file.path,
            None,
        ));
    }
    if let Some(name) = mapper.titles.last() {
        header.title = Some(name.clone());
        header.title_source = Some(scry_model::TitleSource::Custom);
    }
    header.titles = mapper.titles.clone();
    header
}

/// Ids on the path from `leaf` to the root; `None` when the path is broken (a parent id that
/// no entry has), so nothing can be called abandoned.
pub(crate) fn active_path(
    parents: &HashMap<String, Option<String>>,
    leaf: Option<&str>,
) -> Option<HashSet<String>> {
    let mut set = HashSet::new();
    let mut cur = leaf.map(String::from);
    while let Some(id) = cur {
        if !set.insert(id.clone()) {
            break; // a cycle: stop rather than loop
        }
        match parents.get(&id) {
            Some(Some(p)) => cur = Some(p.clone()),
            Some(None) => cur = None,
            None => return None,
        }
    }
    Some(set)
}
