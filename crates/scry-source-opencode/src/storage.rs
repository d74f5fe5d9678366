//! The legacy JSON store (OpenCode < 1.2, still present beside the database on migrated
//! installs): `storage/session/<projectID>/<sessionID>.json`,
//! `storage/message/<sessionID>/<messageID>.json`, `storage/part/<messageID>/<partID>.json`.
//!
//! Checked against the shapes in agent-sessions' stage0 fixtures (session `version` 0.1 and
//! 1.3.17): user messages with `model: {providerID, modelID}` or top-level `providerID` /
//! `modelID`, part files without `messageID` / `sessionID` (taken from the directory), part
//! files named by sequence instead of id, parts lying flat in `storage/part/` with only their
//! `messageID` field to place them, and the tool status `success`. Also accepted: the early
//! pre-migration layout (`storage/session/info/<id>.json`, `storage/session/message/<id>/`,
//! `storage/session/part/<sessionID>/<messageID>/`).
//!
//! Files are read one message at a time; each file is one record, so memory is one message.

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};

use scry_model::{
    Header, Lineage, LineageKind, ProviderId, RawRef, SessionKind, Warning, WarningKind,
};
use scry_source::json::{path as jpath, str_of};
use scry_source::{Emitter, SourceError};
use serde_json::Value;

use crate::map::{ms_of, ts, Mapper, MessageRec, PartRec, Place};
use crate::title;

/// Upper bound for one JSON record file; larger files are reported, not read.
const MAX_FILE: u64 = 256 * 1024 * 1024;

/// Reads and decodes one JSON file; problems become located warnings.
pub(crate) fn read_json(path: &Path, warn: &mut dyn FnMut(Warning)) -> Option<(Value, u64)> {
    let len = fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    if len > MAX_FILE {
        warn(Warning::at(
            WarningKind::Other,
            format!("file is {len} bytes, over the {MAX_FILE}-byte limit for one record; skipped"),
            path,
            None,
        ));
        return None;
    }
    let bytes = match fs::read(path) {
        Ok(b) => b,
        Err(e) => {
            warn(Warning::at(
                WarningKind::Unreadable,
                format!("cannot read: {e}"),
                path,
                None,
            ));
            return None;
        }
    };
    let text = match String::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => {
            warn(Warning::at(
                WarningKind::InvalidUtf8,
                "not valid UTF-8; decoded lossily",
                path,
                None,
            ));
            String::from_utf8_lossy(e.as_bytes()).into_owned()
        }
    };
    match serde_json::from_str::<Value>(&text) {
        Ok(v) if v.is_object() => Some((v, text.len() as u64)),
        Ok(_) => {
            warn(Warning::at(
                WarningKind::CorruptRecord,
                "not a JSON object",
                path,
                Some(1),
            ));
            None
        }
        Err(e) => {
            warn(Warning::at(
                WarningKind::CorruptRecord,
                format!("not valid JSON ({e})"),
                path,
                Some(1),
            ));
            None
        }
    }
}

/// The `storage/` directory of a session file `storage/session/<project>/<id>.json`.
pub(crate) fn storage_root(session_file: &Path) -> Option<&Path> {
    let project = session_file.parent()?;
    let session = project.parent()?;
    if session.file_name()? != "session" {
        return None;
    }
    session.parent()
}

/// The `*.json` files directly in `dir`, sorted by file name (ids are time-sortable; fixtures
/// number them).
fn json_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = fs::read_dir(dir)
        .map(|rd| {
            rd.flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "json") && p.is_file())
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}

/// Header fields from a session JSON object.
pub(crate) fn header_from(v: &Value, id: &str, file: &Path) -> Header {
    let mut h = Header::new(ProviderId::Opencode, id);
    h.sources.push(file.to_path_buf());
    h.cwd = str_of(v, "directory")
        .filter(|d| !d.is_empty())
        .map(str::to_string);
    h.agent_version = str_of(v, "version")
        .filter(|d| !d.is_empty())
        .map(str::to_string);
    if let Some(p) = str_of(v, "parentID").filter(|p| !p.is_empty()) {
        h.kind = SessionKind::Subagent;
        h.parent = Some(p.to_string());
        h.lineage.push(Lineage {
            kind: LineageKind::SubagentOf,
            target: p.to_string(),
            evidence: "session.parentID".into(),
        });
    }
    for k in ["created", "updated"] {
        if let Some(t) = jpath(v, &["time", k]).and_then(ms_of).and_then(ts) {
            h.touch(t);
        }
    }
    title::apply(&mut h, str_of(v, "title"), Vec::new());
    h
}

/// The header of a JSON session from its session file alone, when that file names a title
/// (otherwise the first prompt is needed and the caller parses the session).
pub(crate) fn scan_header(file: &Path) -> Option<Header> {
    let (v, _) = read_json(file, &mut |_| {})?;
    let id = str_of(&v, "id")
        .map(str::to_string)
        .unwrap_or_else(|| stem_of(file));
    let h = header_from(&v, &id, file);
    h.title.is_some().then_some(h)
}

/// Parses a session stored as JSON files.
pub(crate) fn parse(file: &Path, out: &mut Emitter<'_>) -> Result<Header, SourceError> {
    let mut first_err = None;
    let (session, _) = read_json(file, &mut |w| {
        first_err.get_or_insert(w.message);
    })
    .ok_or_else(|| {
        SourceError::format(
            file,
            first_err
                .clone()
                .unwrap_or_else(|| "unreadable session file".into()),
        )
    })?;
    let stem = file
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let id = str_of(&session, "id").map(str::to_string).unwrap_or(stem);
    let mut header = header_from(&session, &id, file);
    let Some(storage) = storage_root(file) else {
        out.warn(Warning::at(
            WarningKind::MissingSideFile,
            "not inside a storage/session/<project>/ directory: messages cannot be located",
            file,
            None,
        ));
        return Ok(header);
    };

    let msg_dirs = [
        storage.join("message").join(&id),
        storage.join("session").join("message").join(&id),
    ];
    let msg_files: Vec<PathBuf> = msg_dirs.iter().flat_map(|d| json_files(d)).collect();
    let mut messages: Vec<(i64, PathBuf, Value, u64)> = Vec::new();
    for f in msg_files {
        let mut sink = |w: Warning| out.warn(w);
        if let Some((v, len)) = read_json(&f, &mut sink) {
            let t = jpath(&v, &["time", "created"]).and_then(ms_of).unwrap_or(0);
            messages.push((t, f, v, len));
        }
    }
    messages.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.cmp(&b.1)));

    let mut flat: Option<HashMap<String, Vec<PathBuf>>> = None;
    let mut mapper = Mapper::new(session.get("revert").and_then(crate::map::revert_of));
    for (_, mfile, mval, mlen) in messages {
        let mid = str_of(&mval, "id")
            .map(str::to_string)
            .unwrap_or_else(|| stem_of(&mfile));
        let midx = push_source(&mut header, &mfile);
        let part_dirs = [
            storage.join("part").join(&mid),
            storage.join("session").join("part").join(&id).join(&mid),
        ];
        let mut part_files: Vec<PathBuf> = part_dirs.iter().flat_map(|d| json_files(d)).collect();
        if part_files.is_empty() {
            let index = flat.get_or_insert_with(|| flat_parts(&storage.join("part"), out));
            part_files = index.get(&mid).cloned().unwrap_or_default();
        }
        let mut parts = Vec::new();
        for pf in part_files {
            let mut sink = |w: Warning| out.warn(w);
            let Some((pv, plen)) = read_json(&pf, &mut sink) else {
                continue;
            };
            let pidx = push_source(&mut header, &pf);
            parts.push(PartRec {
                id: str_of(&pv, "id")
                    .map(str::to_string)
                    .unwrap_or_else(|| stem_of(&pf)),
                created_ms: None,
                data: pv,
                raw: raw_ref(pidx, plen),
                place: Place {
                    file: pf,
                    line: None,
                },
            });
        }
        mapper.message(
            MessageRec {
                id: mid,
                created_ms: None,
                data: Some(mval),
                raw: raw_ref(midx, mlen),
                place: Place {
                    file: mfile,
                    line: None,
                },
                parts,
            },
            out,
        );
    }
    if header.agent_name.is_none() {
        header.agent_name = mapper.agent.clone();
    }
    mapper.finish(out);
    Ok(header)
}

/// Part files lying directly in `storage/part/`, grouped by their `messageID` field.
fn flat_parts(dir: &Path, out: &mut Emitter<'_>) -> HashMap<String, Vec<PathBuf>> {
    let mut map: HashMap<String, Vec<PathBuf>> = HashMap::new();
    for f in json_files(dir) {
        let mut sink = |w: Warning| out.warn(w);
        if let Some((v, _)) = read_json(&f, &mut sink) {
            if let Some(m) = str_of(&v, "messageID") {
                map.entry(m.to_string()).or_default().push(f);
            }
        }
    }
    map
}

fn push_source(h: &mut Header, f: &Path) -> u32 {
    h.sources.push(f.to_path_buf());
    u32::try_from(h.sources.len() - 1).unwrap_or(u32::MAX)
}

fn raw_ref(file: u32, len: u64) -> RawRef {
    RawRef {
        file,
        offset: 0,
        len,
        line: 1,
    }
}

fn stem_of(p: &Path) -> String {
    p.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}
