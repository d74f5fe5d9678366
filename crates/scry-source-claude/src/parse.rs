//! The streaming parse: one pass over the JSONL file, records mapped to events as they come.
//! Only the current assistant message is buffered (its lines share a `message.id`; its usage is
//! known only at its last line). Id sets (message ids counted, uuids, call ids) are kept as
//! 64-bit hashes so memory stays small next to the file.

use std::collections::{BTreeMap, HashMap};

use scry_model::{
    Event, EventKind, Header, Lineage, LineageKind, Locator, RawRef, Warning, WarningKind,
};
use scry_source::lines::LineReader;
use scry_source::{Emitter, ResumePoint, SourceError, SourceFile};
use serde_json::{json, Map, Value};

use crate::assistant::Pending;
use crate::checkpoint::{IdSet, Journal};
use crate::classify::{self, Ctx};
use crate::header::{self, hash, Facts, Titles};
use crate::persisted;
use crate::resume::{self, CopiedPrefix, Evidence};

/// Counts of records that were read but became no event (bookkeeping), and of unknown types.
#[derive(Debug, Default, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ParseStats {
    /// Bookkeeping records by type (see the table in the crate doc).
    pub counted: BTreeMap<String, u64>,
    /// Unknown record types: count and first line.
    pub unknown: BTreeMap<String, (u64, u64)>,
    /// Records read.
    pub records: u64,
}

/// Where the current record sits in the file.
pub struct At<'a> {
    /// 1-based line.
    pub line: u64,
    /// Byte offset.
    pub offset: u64,
    /// The raw line.
    pub raw: &'a [u8],
}

/// Parser state for one file.
pub struct Parser<'f> {
    pub(crate) file: &'f SourceFile,
    pub(crate) ctx: Ctx,
    pub(crate) facts: Facts,
    pub(crate) titles: Titles,
    pub(crate) stats: ParseStats,
    pub(crate) pending: Pending,
    /// Message ids whose usage was attached already.
    pub(crate) counted: IdSet,
    /// Tool calls seen: call id hash → index into `tool_names`.
    pub(crate) calls: HashMap<u64, u32>,
    pub(crate) tool_names: Vec<String>,
    pub(crate) tool_index: HashMap<String, u32>,
    pub(crate) copied: Option<CopiedPrefix>,
    pub(crate) boundary_pending: bool,
    pub(crate) side_dirs: Option<Vec<std::path::PathBuf>>,
    /// Resume bookkeeping, only when the sink keeps resume points.
    pub(crate) journal: Option<Journal>,
}

impl<'f> Parser<'f> {
    /// A parser for `file`.
    pub fn new(file: &'f SourceFile) -> Self {
        Parser {
            file,
            ctx: header::ctx(file),
            facts: Facts::default(),
            titles: Titles::default(),
            stats: ParseStats::default(),
            pending: Pending::default(),
            counted: IdSet::default(),
            calls: HashMap::new(),
            tool_names: Vec::new(),
            tool_index: HashMap::new(),
            copied: None,
            boundary_pending: false,
            side_dirs: None,
            journal: None,
        }
    }

    /// True when line `line` lies in the copied prefix.
    pub(crate) fn is_copied(&self, line: u64) -> bool {
        self.copied.as_ref().is_some_and(|c| line <= c.through_line)
    }

    /// A new event for the record `v` at `at`; `part` is the content block index.
    pub(crate) fn event(
        &mut self,
        kind: EventKind,
        text: String,
        v: &Value,
        at: &At<'_>,
        part: Option<usize>,
        uuid_fresh: bool,
    ) -> Event {
        let locator = match v.get("uuid").and_then(Value::as_str) {
            Some(u) if uuid_fresh && !u.is_empty() => Locator::native(u, part),
            _ => Locator::record(at.line, at.raw, part),
        };
        let time = v.get("timestamp").and_then(scry_source::time::from_value);
        let mut e = Event::new(kind, text, locator).at(time);
        e.raw = RawRef {
            file: 0,
            offset: at.offset,
            len: at.raw.len() as u64,
            line: at.line,
        };
        let ty = v.get("type").and_then(Value::as_str);
        if matches!(ty, Some("user" | "assistant" | "system")) {
            if self.is_copied(at.line) {
                put(&mut e, "copied", Value::Bool(true));
            }
            if v.get("isSidechain").and_then(Value::as_bool) == Some(true)
                && !self.ctx.subagent_file
            {
                put(&mut e, "sidechain", Value::Bool(true));
            }
        }
        e
    }

    /// Sends an event now, or queues it behind the assistant message being assembled.
    pub(crate) fn send(&mut self, e: Event, out: &mut Emitter<'_>) {
        self.pending.push(e, &mut self.counted, out);
    }

    /// Remembers a tool call so its result can be paired.
    pub(crate) fn register_call(&mut self, id: &str, name: &str) {
        let idx = match self.tool_index.get(name) {
            Some(i) => *i,
            None => {
                let i = self.tool_names.len() as u32;
                self.tool_names.push(name.to_string());
                self.tool_index.insert(name.to_string(), i);
                i
            }
        };
        let h = hash(id);
        self.calls.insert(h, idx);
        if let Some(j) = self.journal.as_mut() {
            j.calls.push((h, idx));
        }
    }

    pub(crate) fn call_name(&self, id: &str) -> Option<&str> {
        let idx = *self.calls.get(&hash(id))?;
        self.tool_names.get(idx as usize).map(String::as_str)
    }

    /// One record.
    pub fn record(&mut self, v: &Value, at: &At<'_>, out: &mut Emitter<'_>) {
        self.stats.records += 1;
        self.facts.observe(v);
        let uuid_fresh = match v.get("uuid").and_then(Value::as_str) {
            Some(u) => {
                let fresh = !self.titles.has_uuid(u);
                self.titles.note_uuid(u);
                fresh
            }
            None => false,
        };
        self.titles.observe(v);
        let ty = match v.get("type") {
            Some(Value::String(s)) => s.as_str(),
            Some(_) | None if !v.is_object() => "(not an object)",
            _ => "(no type)",
        };
        match ty {
            "assistant" => self.assistant(v, at, uuid_fresh, out),
            "user" => {
                self.pending.flush(&mut self.counted, out);
                self.user(v, at, uuid_fresh, out);
            }
            _ => self.other(ty, v, at, uuid_fresh, out),
        }
    }

    fn user(&mut self, v: &Value, at: &At<'_>, uuid_fresh: bool, out: &mut Emitter<'_>) {
        let pieces = classify::user_pieces(v, self.ctx);
        let n_results = pieces
            .iter()
            .filter(|p| p.kind == EventKind::ToolResult)
            .count();
        let source_call = v.get("sourceToolUseID").and_then(Value::as_str);
        let mut structured_used = false;
        for p in pieces {
            let part = Some(p.block);
            if p.kind == EventKind::ToolResult {
                let block = p.raw.unwrap_or(&Value::Null);
                let call_id = block.get("tool_use_id").and_then(Value::as_str);
                // toolUseResult describes one result: the only one, the one named by
                // sourceToolUseID, or else the first.
                let attach = !structured_used
                    && (n_results == 1 || source_call.is_none() || source_call == call_id);
                let mut e = self.event(
                    EventKind::ToolResult,
                    String::new(),
                    v,
                    at,
                    part,
                    uuid_fresh,
                );
                self.fill_result(&mut e, block, v, attach, at, out);
                structured_used |= attach;
                self.send(e, out);
                continue;
            }
            let mut e = self.event(p.kind, p.text, v, at, part, uuid_fresh);
            e.subtype = p.subtype.map(str::to_string);
            if p.attachments > 0 {
                put(&mut e, "attachments", json!(p.attachments));
            }
            if p.kind == EventKind::Compaction {
                if !self.boundary_pending {
                    put(&mut e, "without_boundary", Value::Bool(true));
                }
                self.boundary_pending = false;
            }
            if let (Some(b), EventKind::Meta) = (p.raw, p.kind) {
                put(&mut e, "block", b.clone());
            }
            self.send(e, out);
        }
    }

    fn fill_result(
        &mut self,
        e: &mut Event,
        block: &Value,
        v: &Value,
        attach: bool,
        at: &At<'_>,
        out: &mut Emitter<'_>,
    ) {
        let call_id = block.get("tool_use_id").and_then(Value::as_str);
        e.call_id = call_id.map(str::to_string);
        e.is_error = block.get("is_error").and_then(Value::as_bool);
        e.text = result_text(block.get("content").unwrap_or(&Value::Null));
        match call_id.and_then(|c| self.call_name(c)) {
            Some(name) => e.tool = Some(name.to_string()),
            None => {
                put(e, "unconfirmed", Value::Bool(true));
                out.warn(Warning::at(
                    WarningKind::UnpairedResult,
                    format!(
                        "tool result for call '{}' matches no tool call in this file",
                        call_id.unwrap_or("(none)")
                    ),
                    &self.file.path,
                    Some(at.line),
                ));
            }
        }
        if let Some(name) = persisted::saved_name(&e.text).map(str::to_string) {
            let dirs = self.side_dirs();
            match persisted::restore(&name, &dirs) {
                Some((full, path)) => {
                    e.text = full;
                    put(e, "restored_from", json!(path.to_string_lossy()));
                }
                None => {
                    put(e, "missing_side_file", json!(name));
                    out.warn(Warning::at(
                        WarningKind::MissingSideFile,
                        format!("tool output saved to tool-results/{name} is not on disk; kept the preview"),
                        &self.file.path,
                        Some(at.line),
                    ));
                }
            }
        }
        if !attach {
            return;
        }
        if let Some(tur) = v.get("toolUseResult") {
            if let Some(code) = tur.get("exitCode").and_then(Value::as_i64) {
                e.exit_code = Some(code);
            }
            e.duration_ms = ["durationMs", "totalDurationMs"]
                .iter()
                .find_map(|k| scry_source::json::u64_of(tur, k));
            put(e, "result", tur.clone());
        }
    }

    fn side_dirs(&mut self) -> Vec<std::path::PathBuf> {
        if self.side_dirs.is_none() {
            let parent = self.file.parent.clone().or_else(|| {
                (self.ctx.subagent_file)
                    .then(|| self.facts.session_id.clone())
                    .flatten()
            });
            self.side_dirs = Some(persisted::candidate_dirs(
                &self.file.path,
                parent.as_deref(),
            ));
        }
        self.side_dirs.clone().unwrap_or_default()
    }

    /// End of file: flush, report unknown types, build the header.
    pub fn finish(mut self, out: &mut Emitter<'_>) -> (Header, ParseStats) {
        self.pending.flush(&mut self.counted, out);
        for (ty, (count, first)) in &self.stats.unknown {
            out.warn(Warning::at(
                WarningKind::UnknownRecord,
                format!("record type '{ty}' is not known: {count} record(s) skipped, first at line {first}"),
                &self.file.path,
                Some(*first),
            ));
        }
        let mut h = header::base(self.file);
        header::complete(&mut h, self.file, &self.facts, &self.titles);
        self.resume_lineage(&mut h);
        (h, self.stats)
    }

    fn resume_lineage(&self, h: &mut Header) {
        let mut found: Option<(String, &str)> = None;
        for leaf in self.titles.foreign_leaves() {
            if let Some(t) = resume::find_sibling(&self.file.path, Evidence::Uuid(&leaf)) {
                found = Some((t, "summary.leafUuid"));
                break;
            }
        }
        if found.is_none() {
            if let Some(m) = self
                .copied
                .as_ref()
                .and_then(|c| c.last_message_id.as_deref())
            {
                if let Some(t) = resume::find_sibling(&self.file.path, Evidence::LiveMessage(m)) {
                    found = Some((t, "message.id"));
                }
            }
        }
        if let Some((target, evidence)) = found {
            if target != h.id {
                h.lineage.push(Lineage {
                    kind: LineageKind::ResumedFrom,
                    target,
                    evidence: evidence.into(),
                });
            }
        }
    }
}

/// Sets `data[key] = value`, making `data` an object if needed.
pub fn put(e: &mut Event, key: &str, value: Value) {
    match e.data.as_mut() {
        Some(Value::Object(m)) => {
            m.insert(key.to_string(), value);
        }
        _ => {
            let mut m = Map::new();
            m.insert(key.to_string(), value);
            e.data = Some(Value::Object(m));
        }
    }
}

/// The text of a `tool_result.content`: a string, or text blocks joined (images as `[image]`).
pub fn result_text(c: &Value) -> String {
    match c {
        Value::Array(items) => {
            let parts: Vec<String> = items
                .iter()
                .map(|b| match b.get("type").and_then(Value::as_str) {
                    Some("image") => "[image]".to_string(),
                    _ => scry_source::json::text_of(&Value::Array(vec![b.clone()])),
                })
                .filter(|s| !s.is_empty())
                .collect();
            parts.join("\n")
        }
        other => scry_source::json::text_of(other),
    }
}

/// Parses `file` into `out`; returns the header and the bookkeeping counts.
pub fn run(file: &SourceFile, out: &mut Emitter<'_>) -> Result<(Header, ParseStats), SourceError> {
    let reader = scry_source::jsonl::open(&file.path)?;
    let mut p = Parser::new(file);
    if out.wants_resume_points() && !scry_source::jsonl::is_compressed(&file.path) {
        let (copied, decided) = resume::copied_prefix_decided(&file.path);
        p.copied = copied;
        p.start_journal(decided);
    } else {
        p.copied = resume::copied_prefix(&file.path);
    }
    read_lines(p, LineReader::new(reader), out)
}

/// Continues a parse from a resume point this provider handed out (see [`crate::checkpoint`]).
pub fn run_from(
    file: &SourceFile,
    from: &ResumePoint,
    out: &mut Emitter<'_>,
) -> Result<(Header, ParseStats), SourceError> {
    let mut p = Parser::new(file);
    let line = p.restore(&from.state)?;
    let reader = scry_source::jsonl::open_at(&file.path, from.offset)?;
    read_lines(p, LineReader::starting_at(reader, from.offset, line), out)
}

/// The streaming loop shared by the full and the resumed parse.
fn read_lines(
    mut p: Parser<'_>,
    mut lines: LineReader<Box<dyn std::io::BufRead + Send>>,
    out: &mut Emitter<'_>,
) -> Result<(Header, ParseStats), SourceError> {
    let file = p.file;
    let mut local: Vec<Warning> = Vec::new();
    loop {
        let line = match lines.next_line() {
            Ok(Some(l)) => l,
            Ok(None) => break,
            Err(e) => {
                out.warn(Warning::at(
                    WarningKind::Unreadable,
                    format!("read stopped: {e}"),
                    &file.path,
                    None,
                ));
                break;
            }
        };
        let (number, complete) = (line.number, line.complete);
        if line.bytes.iter().all(u8::is_ascii_whitespace) {
            // Nothing to read.
        } else if let Some(ty) = crate::records::counted_prefix(line.bytes)
            .filter(|_| serde_json::from_slice::<serde::de::IgnoredAny>(line.bytes).is_ok())
        {
            // Bookkeeping lines (request plumbing, cost ticks) are only validated and counted;
            // a line that does not validate goes the normal way and gets its warning.
            p.stats.records += 1;
            p.count(ty);
        } else {
            let value = scry_source::jsonl::parse_line(
                line.bytes,
                &file.path,
                line.number,
                line.complete,
                &mut local,
            );
            for w in local.drain(..) {
                out.warn(w);
            }
            if let Some(v) = value {
                let at = At {
                    line: line.number,
                    offset: line.offset,
                    raw: line.bytes,
                };
                p.record(&v, &at, out);
            }
        }
        if complete {
            p.safe_point(lines.offset(), number, out);
        }
    }
    p.offer_last(out);
    Ok(p.finish(out))
}
