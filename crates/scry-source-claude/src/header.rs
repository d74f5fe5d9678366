//! Session header facts shared by the full parse and the cheap header scan: envelope fields
//! (cwd, branch, version, sessionId), titles, subagent metadata, and [`scan`] itself.
//!
//! Title precedence (the resume picker's): latest `custom-title` > latest `ai-title` > latest
//! `summary` whose `leafUuid` is a record of this file > a subagent's `.meta.json`
//! `description` > the first human prompt (filled in by the Emitter / by [`scan`]).

use std::io::Read;
use std::path::Path;

use memchr::memmem;
use scry_model::{first_line, Header, Lineage, LineageKind, ProviderId, SessionKind, TitleSource};
use scry_source::lines::LineReader;
use scry_source::{SourceError, SourceFile};
use serde_json::Value;

use crate::checkpoint::IdSet;
use crate::classify::{self, Ctx};

/// A stable 64-bit hash for id sets (message ids, uuids, call ids).
pub fn hash(s: &str) -> u64 {
    xxhash_rust::xxh3::xxh3_64(s.as_bytes())
}

fn str_of<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str).filter(|s| !s.is_empty())
}

/// Envelope facts: the first non-empty value of each field in file order.
#[derive(Debug, Default, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Facts {
    /// `cwd`.
    pub cwd: Option<String>,
    /// `gitBranch`.
    pub branch: Option<String>,
    /// `version`.
    pub version: Option<String>,
    /// `sessionId` of the first record carrying one.
    pub session_id: Option<String>,
    /// Latest `agent-name`.
    pub agent_name: Option<String>,
}

impl Facts {
    /// Takes what a record offers.
    pub fn observe(&mut self, v: &Value) {
        if self.cwd.is_none() {
            self.cwd = str_of(v, "cwd").map(str::to_string);
        }
        if self.branch.is_none() {
            self.branch = str_of(v, "gitBranch").map(str::to_string);
        }
        if self.version.is_none() {
            self.version = str_of(v, "version").map(str::to_string);
        }
        if self.session_id.is_none() {
            self.session_id = str_of(v, "sessionId").map(str::to_string);
        }
        if v.get("type").and_then(Value::as_str) == Some("agent-name") {
            if let Some(n) = str_of(v, "agentName") {
                self.agent_name = Some(n.to_string());
            }
        }
    }

    /// True once every envelope field is known.
    fn complete(&self) -> bool {
        self.cwd.is_some()
            && self.branch.is_some()
            && self.version.is_some()
            && self.session_id.is_some()
    }
}

/// Title records seen, in order, and the uuids that resolve `summary.leafUuid`s.
#[derive(Debug, Default)]
pub struct Titles {
    pub(crate) entries: Vec<(TitleSource, String, Option<String>)>,
    pub(crate) uuids: IdSet,
}

impl Titles {
    /// Takes a title record (`custom-title`, `ai-title`, `summary`); other records are ignored.
    pub fn observe(&mut self, v: &Value) {
        let entry = match v.get("type").and_then(Value::as_str) {
            Some("custom-title") => {
                str_of(v, "customTitle").map(|t| (TitleSource::Custom, t, None))
            }
            Some("ai-title") => str_of(v, "aiTitle").map(|t| (TitleSource::Generated, t, None)),
            Some("summary") => str_of(v, "summary").map(|t| {
                (
                    TitleSource::Summary,
                    t,
                    str_of(v, "leafUuid").map(str::to_string),
                )
            }),
            _ => None,
        };
        if let Some((src, text, leaf)) = entry {
            self.entries.push((src, text.to_string(), leaf));
        }
    }

    /// Records a record `uuid` of this file; true when it was not noted before.
    pub fn note_uuid(&mut self, uuid: &str) -> bool {
        self.uuids.insert(hash(uuid))
    }

    /// True when `uuid` was already noted.
    pub fn has_uuid(&self, uuid: &str) -> bool {
        self.uuids.contains(&hash(uuid))
    }

    fn in_file(&self, leaf: &Option<String>) -> bool {
        leaf.as_deref().is_some_and(|l| self.has_uuid(l))
    }

    /// `leafUuid`s of summaries that point outside this file (a resumed session's evidence).
    pub fn foreign_leaves(&self) -> Vec<String> {
        self.entries
            .iter()
            .filter(|(s, _, leaf)| *s == TitleSource::Summary && !self.in_file(leaf))
            .filter_map(|(_, _, leaf)| leaf.clone())
            .collect()
    }

    /// Sets `title`, `title_source` and `titles` by the precedence in the module doc.
    pub fn apply(&self, header: &mut Header, meta_description: Option<&str>) {
        let usable: Vec<&(TitleSource, String, Option<String>)> = self
            .entries
            .iter()
            .filter(|(s, _, leaf)| *s != TitleSource::Summary || self.in_file(leaf))
            .collect();
        for (_, t, _) in &usable {
            if header.titles.last() != Some(t) {
                header.titles.push(t.clone());
            }
        }
        let pick = [
            TitleSource::Custom,
            TitleSource::Generated,
            TitleSource::Summary,
        ]
        .into_iter()
        .find_map(|want| usable.iter().rev().find(|(s, _, _)| *s == want));
        if let Some((src, text, _)) = pick {
            header.title = Some(text.clone());
            header.title_source = Some(*src);
        } else if let Some(d) = meta_description.filter(|d| !d.trim().is_empty()) {
            header.title = Some(d.to_string());
            header.title_source = Some(TitleSource::Metadata);
            header.titles.push(d.to_string());
        }
    }
}

/// A subagent's `.meta.json` (`agentType`, `description`, `toolUseId`, …), read bounded.
pub fn read_meta(file: &SourceFile) -> Option<Value> {
    let path = file
        .related
        .iter()
        .find(|p| p.to_str().is_some_and(|s| s.ends_with(".meta.json")))?;
    let mut buf = Vec::new();
    std::fs::File::open(path)
        .ok()?
        .take(64 * 1024)
        .read_to_end(&mut buf)
        .ok()?;
    serde_json::from_slice(&buf).ok()
}

/// The header as far as the path and the side files tell.
pub fn base(file: &SourceFile) -> Header {
    let mut h = Header::new(ProviderId::Claude, file.id.clone());
    h.sources.push(file.path.clone());
    h.sources.extend(file.related.iter().cloned());
    h.kind = file.kind;
    if let Some(p) = &file.parent {
        h.parent = Some(p.clone());
        h.lineage.push(Lineage {
            kind: LineageKind::SubagentOf,
            target: p.clone(),
            evidence: format!("path: {p}/subagents/"),
        });
    }
    h
}

/// Completes a header with envelope facts, titles and subagent metadata.
pub fn complete(h: &mut Header, file: &SourceFile, facts: &Facts, titles: &Titles) {
    h.cwd = facts.cwd.clone();
    h.git_branch = facts.branch.clone();
    h.agent_version = facts.version.clone();
    let meta = if file.kind == SessionKind::Subagent {
        read_meta(file)
    } else {
        None
    };
    h.agent_name = facts.agent_name.clone().or_else(|| {
        meta.as_ref()
            .and_then(|m| str_of(m, "agentType"))
            .map(str::to_string)
    });
    if h.kind == SessionKind::Subagent && h.parent.is_none() {
        // Old layout: the parent is the sessionId the sidechain lines carry.
        if let Some(sid) = facts
            .session_id
            .as_deref()
            .filter(|s| *s != file.id && !s.starts_with("agent-"))
        {
            h.parent = Some(sid.to_string());
            h.lineage.push(Lineage {
                kind: LineageKind::SubagentOf,
                target: sid.to_string(),
                evidence: "sessionId".into(),
            });
        }
    }
    let description = meta.as_ref().and_then(|m| str_of(m, "description"));
    titles.apply(h, description);
}

/// The context records of `file` are read in.
pub fn ctx(file: &SourceFile) -> Ctx {
    Ctx {
        subagent_file: file.kind == SessionKind::Subagent,
    }
}

/// The cheap header read: streams the file but JSON-decodes only the lines that matter (the
/// first records until the envelope is known, `user` lines until the first human prompt,
/// title records, and lines naming a pending `summary.leafUuid`). Gives the same id, cwd,
/// title, kind and parent as the full parse.
pub fn scan(file: &SourceFile) -> Result<Header, SourceError> {
    let reader = scry_source::jsonl::open(&file.path)?;
    let mut lines = LineReader::new(reader);
    let ctx = ctx(file);
    let mut facts = Facts::default();
    let mut titles = Titles::default();
    let mut first_prompt: Option<String> = None;
    let user = memmem::Finder::new(b"\"user\"");
    let markers: Vec<memmem::Finder<'static>> = [
        "\"custom-title\"",
        "\"ai-title\"",
        "\"summary\"",
        "\"agent-name\"",
    ]
    .into_iter()
    .map(|m| memmem::Finder::new(m.as_bytes()).into_owned())
    .collect();
    let mut pending_leaves: Vec<String> = Vec::new();
    let mut lineno = 0u64;
    let needs_parent = file.kind == SessionKind::Subagent && file.parent.is_none();
    while let Ok(Some(line)) = lines.next_line() {
        lineno += 1;
        let b = line.bytes;
        if crate::records::counted_prefix(b).is_some() {
            continue;
        }
        // cwd and (for an old-layout subagent) the parent's sessionId must match the full
        // parse, so they are searched for until found; the other envelope fields for a while.
        let want_facts = facts.cwd.is_none()
            || (needs_parent && facts.session_id.is_none())
            || (!facts.complete() && lineno <= 512);
        let want_prompt = first_prompt.is_none() && user.find(b).is_some();
        let want_title = markers.iter().any(|m| m.find(b).is_some());
        let want_leaf = pending_leaves
            .iter()
            .any(|l| memmem::find(b, l.as_bytes()).is_some());
        if !(want_facts || want_prompt || want_title || want_leaf) {
            continue;
        }
        let Some(v) = parse_quiet(b) else {
            continue;
        };
        facts.observe(&v);
        if let Some(u) = v.get("uuid").and_then(Value::as_str) {
            titles.note_uuid(u);
        }
        let ty = v.get("type").and_then(Value::as_str);
        if ty == Some("summary") {
            if let Some(leaf) = str_of(&v, "leafUuid") {
                pending_leaves.push(leaf.to_string());
            }
        }
        titles.observe(&v);
        if first_prompt.is_none() && ty == Some("user") {
            for p in classify::user_pieces(&v, ctx) {
                if p.kind == scry_model::EventKind::User {
                    let t = first_line(&p.text, 120);
                    if !t.is_empty() {
                        first_prompt = Some(t);
                        break;
                    }
                }
            }
        }
    }
    // A summary may name a leaf that came before it and was skimmed over: look again.
    let unresolved: Vec<String> = pending_leaves
        .into_iter()
        .filter(|l| !titles.has_uuid(l))
        .collect();
    if !unresolved.is_empty() {
        rescan_leaves(&file.path, &unresolved, &mut titles);
    }
    let mut h = base(file);
    complete(&mut h, file, &facts, &titles);
    if h.title.is_none() {
        if let Some(t) = first_prompt {
            h.title = Some(t);
            h.title_source = Some(TitleSource::FirstPrompt);
        }
    }
    Ok(h)
}

/// The cwd [`scan`] (and the full parse) reports, read only as far as the first line naming
/// one: the same lines in the same order, each parsed as [`scan`] parses it while the cwd is
/// unknown. `None` when no line names one (the caller then scans the header).
pub fn probe_cwd(file: &SourceFile) -> Option<String> {
    let reader = scry_source::jsonl::open(&file.path).ok()?;
    let mut lines = LineReader::new(reader);
    let mut facts = Facts::default();
    while let Ok(Some(line)) = lines.next_line() {
        if crate::records::counted_prefix(line.bytes).is_some() {
            continue;
        }
        if let Some(v) = parse_quiet(line.bytes) {
            facts.observe(&v);
            if facts.cwd.is_some() {
                return facts.cwd;
            }
        }
    }
    None
}

fn rescan_leaves(path: &Path, leaves: &[String], titles: &mut Titles) {
    let Ok(reader) = scry_source::jsonl::open(path) else {
        return;
    };
    let mut lines = LineReader::new(reader);
    while let Ok(Some(line)) = lines.next_line() {
        if !leaves
            .iter()
            .any(|l| memmem::find(line.bytes, l.as_bytes()).is_some())
        {
            continue;
        }
        if let Some(u) = parse_quiet(line.bytes)
            .as_ref()
            .and_then(|v| v.get("uuid"))
            .and_then(Value::as_str)
        {
            titles.note_uuid(u);
        }
    }
}

/// Parses a line the way the full parse does (lossy UTF-8, raw control bytes escaped), without
/// collecting warnings.
fn parse_quiet(bytes: &[u8]) -> Option<Value> {
    let mut sink = Vec::new();
    scry_source::jsonl::parse_line(bytes, Path::new(""), 0, true, &mut sink)
}
