//! Reading one launch of an Aider chat history: the launch headers, lines grouped into blocks
//! (prompt lines, aider's `> ` output, raw assistant text), and blocks → events (the mapping
//! table is in the crate doc).

use std::path::Path;

use scry_model::{
    Event, EventKind, Header, Lineage, LineageKind, Locator, ProviderId, RawRef, SessionKind,
    TimeSource, Timestamp, Warning, WarningKind,
};
use scry_source::{Emitter, SourceError, SourceFile};

use crate::discover::INPUT_HISTORY_FILE;
use serde_json::json;

/// The line that opens each launch.
pub const HEADER: &str = "# aider chat started at ";

/// Where a launch starts in the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Launch {
    /// Byte offset of its header line.
    pub offset: usize,
    /// 1-based line number of its header line.
    pub line: u64,
    /// The time text after the header (`2026-12-01 22:13:42`).
    pub stamp: String,
}

/// Every launch header in `bytes`, in file order.
pub fn launches(bytes: &[u8]) -> Vec<Launch> {
    let mut out = Vec::new();
    let mut offset = 0usize;
    for (line, l) in (1u64..).zip(bytes.split(|b| *b == b'\n')) {
        if let Some(rest) = l.strip_prefix(HEADER.as_bytes()) {
            out.push(Launch {
                offset,
                line,
                stamp: String::from_utf8_lossy(rest).trim().to_string(),
            });
        }
        offset += l.len() + 1;
    }
    out
}

/// The launch time: Aider writes local time without a zone; it is read in the zone scry runs
/// in (the machine that ran Aider, as a rule).
pub fn launch_time(stamp: &str) -> Option<Timestamp> {
    let dt: jiff::civil::DateTime = stamp.trim().parse().ok()?;
    dt.to_zoned(jiff::tz::TimeZone::system())
        .ok()
        .map(|z| z.timestamp())
}

/// Session ids of the launches of the history at `path`: `<YYYYMMDD-HHMMSS>-<project
/// directory name>` (stable when the project is moved or copied, readable in lists), `-2`,
/// `-3`… for launches in the same second, `launch<N>-…` when the time is not readable.
pub fn launch_ids(path: &Path, launches: &[Launch]) -> Vec<String> {
    let project: String = path
        .parent()
        .and_then(Path::file_name)
        .map(|n| n.to_string_lossy().into_owned())
        .filter(|n| !n.is_empty())
        .unwrap_or_else(|| "project".into())
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect();
    let mut ids: Vec<String> = Vec::with_capacity(launches.len());
    for (i, l) in launches.iter().enumerate() {
        let digits: String = l.stamp.chars().filter(char::is_ascii_digit).collect();
        let base = if digits.len() == 14 && launch_time(&l.stamp).is_some() {
            format!("{}-{}-{project}", &digits[..8], &digits[8..])
        } else {
            format!("launch{}-{project}", i + 1)
        };
        let mut id = base.clone();
        let mut n = 1;
        while ids.contains(&id) {
            n += 1;
            id = format!("{base}-{n}");
        }
        ids.push(id);
    }
    ids
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Class {
    /// `#### ` prompt lines.
    User,
    /// `> ` aider output lines.
    Out,
    /// Raw (assistant) text.
    Text,
}

/// Consecutive lines of one class.
struct Block {
    class: Class,
    lines: Vec<String>,
    offset: usize,
    end: usize,
    line: u64,
}

/// Whether a line was written by aider itself: a prefix and the Markdown line break (two
/// trailing spaces) it appends.
fn aider_line(l: &str, prefix: &str) -> bool {
    (l.starts_with(prefix) && l.ends_with("  ")) || l.trim_end() == prefix.trim_end()
}

/// Lines of `text` (the launch, header line excluded) grouped into blocks; `first_line` is the
/// 1-based number of its first line, `base` its byte offset in the file.
fn blocks(text: &str, base: usize, first_line: u64) -> Vec<Block> {
    let mut out: Vec<Block> = Vec::new();
    let mut in_fence = false;
    let mut offset = base;
    for (i, raw) in text.split('\n').enumerate() {
        let l = raw.strip_suffix('\r').unwrap_or(raw);
        let class = if aider_line(l, "#### ") {
            in_fence = false;
            Class::User
        } else if aider_line(l, "> ") {
            in_fence = false;
            Class::Out
        } else if in_fence {
            Class::Text
        } else if l.starts_with("#### ") {
            Class::User
        } else if l.starts_with("> ") {
            Class::Out
        } else {
            Class::Text
        };
        if class == Class::Text && l.trim_start().starts_with("```") {
            in_fence = !in_fence;
        }
        let content = match class {
            Class::User => l.strip_prefix("####").unwrap_or(l),
            Class::Out => l.strip_prefix('>').unwrap_or(l),
            Class::Text => l,
        };
        let content = match class {
            Class::Text => content.to_string(),
            _ => content
                .strip_prefix(' ')
                .unwrap_or(content)
                .trim_end()
                .to_string(),
        };
        let end = offset + raw.len();
        match out.last_mut() {
            Some(b) if b.class == class => {
                b.lines.push(content);
                b.end = end;
            }
            _ => out.push(Block {
                class,
                lines: vec![content],
                offset,
                end,
                line: first_line + i as u64,
            }),
        }
        offset = end + 1;
    }
    out.retain(|b| b.class != Class::Text || b.lines.iter().any(|l| !l.trim().is_empty()));
    out
}

/// A SEARCH/REPLACE edit found in assistant text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edit {
    /// The file name line before the block.
    pub path: String,
    /// The SEARCH part (empty: a new file).
    pub search: String,
    /// The REPLACE part.
    pub replace: String,
}

/// `<<<<<<< SEARCH` … `=======` … `>>>>>>> REPLACE` blocks in assistant text, each with the
/// file name written on the nearest line above it (fences and emphasis stripped).
pub fn edits(lines: &[String]) -> Vec<Edit> {
    let marker = |l: &str, ch: char, word: &str| {
        let t = l.trim();
        let n = t.chars().take_while(|c| *c == ch).count();
        (5..=9).contains(&n) && t[n..].trim() == word
    };
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if !marker(&lines[i], '<', "SEARCH") {
            i += 1;
            continue;
        }
        let path = lines[..i]
            .iter()
            .rev()
            .take(3)
            .filter(|l| !l.trim_start().starts_with("```"))
            .map(|l| l.trim().trim_matches(|c| c == '`' || c == '*' || c == ':'))
            .find(|l| !l.is_empty())
            .map(|l| l.trim().to_string())
            .unwrap_or_default();
        let mut search = Vec::new();
        let mut replace = Vec::new();
        let mut j = i + 1;
        let mut in_replace = false;
        let mut closed = false;
        while j < lines.len() {
            let l = &lines[j];
            if !in_replace && marker(l, '=', "") {
                in_replace = true;
            } else if in_replace && marker(l, '>', "REPLACE") {
                closed = true;
                break;
            } else if in_replace {
                replace.push(l.as_str());
            } else {
                search.push(l.as_str());
            }
            j += 1;
        }
        if closed && !path.is_empty() {
            let join = |v: Vec<&str>| {
                if v.is_empty() {
                    String::new()
                } else {
                    v.join("\n") + "\n"
                }
            };
            out.push(Edit {
                path,
                search: join(search),
                replace: join(replace),
            });
        }
        i = j + 1;
    }
    out
}

/// Slash commands whose text is a prompt to the model.
const PROMPT_COMMANDS: &[&str] = &["/ask", "/code", "/architect", "/context"];

/// The key discovery gives a launch: `<byte offset>:<line>` of its header (stable while the
/// file only grows, as Aider's does).
pub fn launch_key(l: &Launch) -> String {
    format!("{}:{}", l.offset, l.line)
}

/// One launch's bytes, read from its header to the next header (or the end of the file).
struct Located {
    /// The launch header.
    launch: Launch,
    /// Its bytes, header line included.
    bytes: Vec<u8>,
    /// Whether another launch follows.
    more: bool,
    /// The next launch's time text, when one follows.
    next: Option<String>,
    /// The previous launch's header, when one exists.
    prev: Option<Launch>,
}

/// Reads the launch `key` names (`offset:line`) without reading the rest of the file: forward
/// to the next header, and backwards, in chunks, only as far as the previous header.
fn locate(path: &Path, key: &str) -> Result<Option<Located>, SourceError> {
    use std::io::{BufRead, Read, Seek, SeekFrom};
    let Some((offset, line)) = key
        .split_once(':')
        .and_then(|(o, l)| Some((o.parse::<u64>().ok()?, l.parse::<u64>().ok()?)))
    else {
        return Ok(None);
    };
    let io = |e| SourceError::io(path, e);
    let mut f = std::fs::File::open(path).map_err(io)?;
    f.seek(SeekFrom::Start(offset)).map_err(io)?;
    let mut r = std::io::BufReader::new(f);
    let mut bytes = Vec::new();
    let mut more = false;
    let mut next = None;
    let mut first = true;
    loop {
        let at = bytes.len();
        let n = r.read_until(b'\n', &mut bytes).map_err(io)?;
        if n == 0 {
            break;
        }
        let starts = bytes[at..].starts_with(HEADER.as_bytes());
        if first && !starts {
            return Ok(None); // the file changed under the key: fall back to a full read
        }
        if !first && starts {
            let line = String::from_utf8_lossy(&bytes[at + HEADER.len()..]);
            next = Some(line.trim().to_string());
            bytes.truncate(at);
            more = true;
            break;
        }
        first = false;
    }
    if first {
        return Ok(None);
    }
    let stamp_end = bytes
        .iter()
        .position(|b| *b == b'\n')
        .unwrap_or(bytes.len());
    let launch = Launch {
        offset: offset as usize,
        line,
        stamp: String::from_utf8_lossy(&bytes[HEADER.len()..stamp_end])
            .trim()
            .to_string(),
    };
    // Backwards to the previous header (its stamp names the launch this one may restore).
    let mut f = r.into_inner();
    let mut prev = None;
    let mut end = offset;
    let mut tail: Vec<u8> = Vec::new();
    while end > 0 && prev.is_none() && tail.len() < (64 << 20) {
        let start = end.saturating_sub(64 * 1024);
        let mut chunk = vec![0u8; (end - start) as usize];
        f.seek(SeekFrom::Start(start)).map_err(io)?;
        f.read_exact(&mut chunk).map_err(io)?;
        chunk.extend_from_slice(&tail);
        tail = chunk;
        end = start;
        let found = launches(&tail);
        // A header cut at the chunk's start is only trusted at offset 0 or after a newline.
        if let Some(l) = found.into_iter().rfind(|l| l.offset > 0 || start == 0) {
            let abs = start as usize + l.offset;
            if abs < offset as usize {
                prev = Some(Launch {
                    offset: abs,
                    line: 0,
                    stamp: l.stamp,
                });
            }
        }
    }
    Ok(Some(Located {
        launch,
        bytes,
        more,
        next,
        prev,
    }))
}

/// The prompts `.aider.input.history` (prompt_toolkit's format: `# <local time>`, then the
/// prompt's lines each prefixed `+`) recorded from `from` up to `until`, oldest first. Aider
/// records typed and `--message` prompts, not piped ones.
fn prompt_times(
    path: &Path,
    from: Timestamp,
    until: Option<Timestamp>,
) -> Vec<(String, Timestamp)> {
    let Ok(bytes) = std::fs::read(path) else {
        return Vec::new();
    };
    let text = String::from_utf8_lossy(&bytes);
    let mut out: Vec<(String, Timestamp)> = Vec::new();
    let mut cur: Option<(Timestamp, Vec<&str>)> = None;
    let mut flush = |cur: &mut Option<(Timestamp, Vec<&str>)>| {
        if let Some((t, lines)) = cur.take() {
            if t >= from && until.is_none_or(|u| t < u) {
                out.push((lines.join("\n"), t));
            }
        }
    };
    for l in text.lines() {
        if let Some(stamp) = l.strip_prefix("# ") {
            flush(&mut cur);
            cur = launch_time(stamp).map(|t| (t, Vec::new()));
        } else if let (Some(rest), Some((_, lines))) = (l.strip_prefix('+'), cur.as_mut()) {
            lines.push(rest);
        }
    }
    flush(&mut cur);
    out.sort_by_key(|(_, t)| *t);
    out
}

/// Parses the launch `file.key` names of the history at `file.path`.
pub fn parse(file: &SourceFile, out: &mut Emitter<'_>) -> Result<Header, SourceError> {
    let located = match file.key.as_deref() {
        Some(k) => locate(&file.path, k)?,
        None => None,
    };
    let located = match located {
        Some(l) => l,
        None => whole(file)?,
    };
    let Located {
        launch,
        bytes,
        more,
        next,
        prev,
    } = located;
    let text = String::from_utf8_lossy(&bytes);
    if matches!(text, std::borrow::Cow::Owned(_)) {
        out.warn(Warning::at(
            WarningKind::InvalidUtf8,
            "bytes that are not UTF-8 were decoded lossily",
            &file.path,
            Some(launch.line),
        ));
    }
    let time = launch_time(&launch.stamp);
    if time.is_none() {
        out.warn(Warning::at(
            WarningKind::CorruptRecord,
            format!("unreadable launch time '{}'", launch.stamp),
            &file.path,
            Some(launch.line),
        ));
    }
    let own = launch_ids(&file.path, std::slice::from_ref(&launch));
    // Discovery's id (which numbers same-second launches) when it is this launch's.
    let id = if own
        .first()
        .is_some_and(|base| file.id.starts_with(base.as_str()))
    {
        file.id.clone()
    } else {
        own.into_iter().next().unwrap_or_else(|| file.id.clone())
    };
    let mut header = Header::new(ProviderId::Aider, id);
    header.sources = vec![file.path.clone()];
    header.cwd = file.path.parent().map(|d| d.to_string_lossy().into_owned());
    header.kind = SessionKind::Main;
    if let Some(t) = time {
        header.touch(t);
    }
    let inputs = match (
        file.related
            .iter()
            .find(|p| p.ends_with(INPUT_HISTORY_FILE)),
        time,
    ) {
        (Some(p), Some(from)) => {
            let until = next.as_deref().and_then(launch_time);
            prompt_times(p, from, until)
        }
        _ => Vec::new(),
    };
    let mut m = Mapper {
        bytes: &bytes,
        base: launch.offset,
        time,
        derived: false,
        inputs,
        model: None,
        launch_seen: false,
        restored: false,
        pending_run: None,
        pending_edits: Vec::new(),
        calls: 0,
    };
    // The header line itself is not an event.
    let body_at = text.find('\n').map_or(text.len(), |i| i + 1);
    let blocks = blocks(&text[body_at..], launch.offset + body_at, launch.line + 1);
    for b in &blocks {
        m.block(b, &mut header, out);
    }
    if let Some(p) = prev.filter(|_| m.restored) {
        if let Some(target) = launch_ids(&file.path, &[p]).pop() {
            header.lineage.push(Lineage {
                kind: LineageKind::ResumedFrom,
                target,
                evidence: "launch command --restore-chat-history".into(),
            });
        }
    }
    // The last launch lasts until the file's last write.
    if !more && file.mtime_ns > 0 {
        if let Ok(t) = Timestamp::from_nanosecond(i128::from(file.mtime_ns)) {
            if time.is_none_or(|s| t >= s) {
                header.touch(t);
            }
        }
    }
    Ok(header)
}

/// The launch of `file` found by reading the whole history (no usable key: `detect`, or a
/// file rewritten since discovery), by id, else the last one.
fn whole(file: &SourceFile) -> Result<Located, SourceError> {
    let bytes = std::fs::read(&file.path).map_err(|e| SourceError::io(&file.path, e))?;
    let all = launches(&bytes);
    let ids = launch_ids(&file.path, &all);
    let index = ids
        .iter()
        .position(|i| *i == file.id)
        .or_else(|| all.len().checked_sub(1))
        .ok_or_else(|| {
            SourceError::format(&file.path, "not an Aider chat history: no launch header")
        })?;
    let start = all[index].offset;
    let end = all.get(index + 1).map_or(bytes.len(), |n| n.offset);
    Ok(Located {
        launch: all[index].clone(),
        bytes: bytes[start..end].to_vec(),
        more: index + 1 < all.len(),
        next: all.get(index + 1).map(|l| l.stamp.clone()),
        prev: index.checked_sub(1).map(|i| all[i].clone()),
    })
}

/// Turns blocks into events, carrying the launch's model and the calls awaiting results.
struct Mapper<'a> {
    /// The launch's bytes, which start at file offset `base`.
    bytes: &'a [u8],
    base: usize,
    /// The time events get: the launch's, then the last timed prompt's.
    time: Option<Timestamp>,
    /// `time` is a prompt's (events after it: derived), not the launch's.
    derived: bool,
    /// Prompts of `.aider.input.history` in this launch's time window, oldest first.
    inputs: Vec<(String, Timestamp)>,
    model: Option<String>,
    /// The launch block (or the first prompt) has been seen.
    launch_seen: bool,
    /// The launch command carried `--restore-chat-history`.
    restored: bool,
    /// A `/run` call whose output block comes next.
    pending_run: Option<String>,
    /// Edits (call id, path) awaiting `Applied edit to`.
    pending_edits: Vec<(String, String, &'static str)>,
    calls: u32,
}

/// The command of a `/run cmd`, `/test cmd` or `!cmd` prompt.
fn run_command(text: &str) -> Option<&str> {
    let cmd = if let Some(rest) = text.strip_prefix('!') {
        rest
    } else {
        let (word, rest) = text.split_once(char::is_whitespace)?;
        if !matches!(word, "/run" | "/test") {
            return None;
        }
        rest
    };
    let cmd = cmd.trim();
    (!cmd.is_empty()).then_some(cmd)
}

impl Mapper<'_> {
    fn event(&self, b: &Block, kind: EventKind, text: String, part: usize) -> Event {
        let (start, end) = (b.offset - self.base, b.end - self.base);
        let raw = self
            .bytes
            .get(start..end.min(self.bytes.len()))
            .unwrap_or_default();
        let mut e = Event::new(kind, text, Locator::record(b.line, raw, Some(part)));
        e.raw = RawRef {
            file: 0,
            offset: b.offset as u64,
            len: (b.end.saturating_sub(b.offset)) as u64,
            line: b.line,
        };
        if let Some(t) = self.time {
            e.time = Some(t);
            e.time_source = if self.derived {
                TimeSource::Derived
            } else {
                TimeSource::Session
            };
        }
        e
    }

    fn next_id(&mut self, what: &str, b: &Block) -> String {
        self.calls += 1;
        format!("{what}-{}-{}", b.line, self.calls)
    }

    fn block(&mut self, b: &Block, header: &mut Header, out: &mut Emitter<'_>) {
        match b.class {
            Class::Out => self.output(b, header, out),
            Class::User => self.prompt(b, out),
            Class::Text => self.assistant(b, out),
        }
    }

    fn output(&mut self, b: &Block, header: &mut Header, out: &mut Emitter<'_>) {
        let text = b.lines.join("\n");
        if !self.launch_seen {
            self.launch_seen = true;
            for l in &b.lines {
                if let Some(v) = l.strip_prefix("Aider v") {
                    header.agent_version = Some(v.trim().to_string());
                } else if let Some(m) = l
                    .strip_prefix("Model: ")
                    .or_else(|| l.strip_prefix("Main model: "))
                {
                    let name = m.split(" with ").next().unwrap_or(m).trim();
                    if !name.is_empty() {
                        self.model = Some(name.to_string());
                    }
                }
            }
            self.restored = b
                .lines
                .first()
                .is_some_and(|l| l.split_whitespace().any(|w| w == "--restore-chat-history"));
            let mut e = self.event(b, EventKind::Meta, text, 0);
            e.subtype = Some("launch".into());
            out.emit(e);
            return;
        }
        if let Some(id) = self.pending_run.take() {
            let mut e = self.event(b, EventKind::ToolResult, text, 0);
            e.tool = Some("shell".into());
            e.call_id = Some(id);
            out.emit(e);
            return;
        }
        let mut part = 0;
        let failed = b.lines.iter().any(|l| {
            let l = l.to_ascii_lowercase();
            l.contains("failed to match") || l.contains("searchreplacenoexactmatch")
        });
        let pending = std::mem::take(&mut self.pending_edits);
        for (id, path, tool) in pending {
            let applied = b
                .lines
                .iter()
                .find(|l| l.strip_prefix("Applied edit to ").map(str::trim) == Some(&path));
            let (is_error, result) = match applied {
                Some(l) => (false, l.clone()),
                None if failed => (true, text.clone()),
                None => {
                    self.pending_edits.push((id, path, tool));
                    continue;
                }
            };
            let mut e = self.event(b, EventKind::ToolResult, result, part);
            part += 1;
            e.tool = Some(tool.into());
            e.call_id = Some(id);
            e.is_error = Some(is_error);
            out.emit(e);
        }
        let mut e = self.event(b, EventKind::System, text, part);
        e.subtype = Some("output".into());
        out.emit(e);
    }

    fn prompt(&mut self, b: &Block, out: &mut Emitter<'_>) {
        self.launch_seen = true;
        self.pending_run = None;
        let lines: Vec<&str> = b
            .lines
            .iter()
            .map(|l| if l == "<blank>" { "" } else { l.as_str() })
            .collect();
        let text = lines.join("\n");
        let first = text.trim_start();
        if let Some(cmd) = run_command(first) {
            let id = self.next_id("run", b);
            let mut e = self.event(b, EventKind::ToolCall, String::new(), 0);
            e.tool = Some("shell".into());
            e.subtype = Some("slash_run".into());
            e.call_id = Some(id.clone());
            e.args = Some(json!({ "command": cmd }));
            e.set_data("typed", first.into());
            out.emit(e);
            self.pending_run = Some(id);
            return;
        }
        let word = first.split_whitespace().next().unwrap_or("");
        if word.starts_with('/') && !PROMPT_COMMANDS.contains(&word) {
            let mut e = self.event(b, EventKind::Meta, text, 0);
            e.subtype = Some("slash_command".into());
            out.emit(e);
            return;
        }
        let mut e = self.event(b, EventKind::User, text, 0);
        // The prompt's own time, when `.aider.input.history` recorded it.
        let wanted = e.text.trim();
        if let Some(i) = self.inputs.iter().position(|(t, _)| t.trim() == wanted) {
            let (_, t) = self.inputs.remove(i);
            self.inputs.retain(|(_, u)| *u >= t);
            e.time = Some(t);
            e.time_source = TimeSource::Event;
            self.time = Some(t);
            self.derived = true;
        }
        out.emit(e);
    }

    fn assistant(&mut self, b: &Block, out: &mut Emitter<'_>) {
        self.launch_seen = true;
        let first = b.lines.iter().position(|l| !l.trim().is_empty());
        let last = b.lines.iter().rposition(|l| !l.trim().is_empty());
        let (Some(first), Some(last)) = (first, last) else {
            return;
        };
        let text = b.lines[first..=last].join("\n");
        let mut e = self.event(b, EventKind::Assistant, text, 0);
        e.model.clone_from(&self.model);
        out.emit(e);
        for (i, edit) in edits(&b.lines).into_iter().enumerate() {
            let id = self.next_id("edit", b);
            let tool = if edit.search.is_empty() {
                "write"
            } else {
                "edit"
            };
            let mut e = self.event(b, EventKind::ToolCall, String::new(), i + 1);
            e.tool = Some(tool.into());
            e.subtype = Some("search_replace".into());
            e.call_id = Some(id.clone());
            e.model.clone_from(&self.model);
            e.args = Some(json!({
                "path": edit.path,
                "search": edit.search,
                "replace": edit.replace,
            }));
            out.emit(e);
            self.pending_edits.push((id, edit.path, tool));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn launches_and_ids() {
        let text = b"\n# aider chat started at 2026-12-01 22:13:42\n\n#### hi  \n\n# aider chat started at 2026-12-01 22:13:42\n# aider chat started at nonsense\n";
        let l = launches(text);
        assert_eq!(l.len(), 3);
        assert_eq!((l[0].offset, l[0].line), (1, 2));
        assert_eq!(l[0].stamp, "2026-12-01 22:13:42");
        let ids = launch_ids(Path::new("/w/my app/.aider.chat.history.md"), &l);
        assert_eq!(
            ids,
            vec![
                "20261201-221342-my_app",
                "20261201-221342-my_app-2",
                "launch3-my_app"
            ]
        );
    }

    #[test]
    fn search_replace_blocks() {
        let lines: Vec<String> = "intro\n\nnotes.txt\n```\n<<<<<<< SEARCH\n=======\nhello\n>>>>>>> REPLACE\n```\n`src/a.py`\n```python\n<<<<<<< SEARCH\nold\n=======\nnew\n>>>>>>> REPLACE\n```\nfile.txt\n<<<<<<< SEARCH\nunclosed"
            .split('\n')
            .map(String::from)
            .collect();
        let e = edits(&lines);
        assert_eq!(e.len(), 2, "{e:?}");
        assert_eq!(e[0].path, "notes.txt");
        assert_eq!(
            (e[0].search.as_str(), e[0].replace.as_str()),
            ("", "hello\n")
        );
        assert_eq!(e[1].path, "src/a.py");
        assert_eq!(
            (e[1].search.as_str(), e[1].replace.as_str()),
            ("old\n", "new\n")
        );
    }

    #[test]
    fn run_forms() {
        assert_eq!(run_command("/run cat missing.txt"), Some("cat missing.txt"));
        assert_eq!(run_command("/test  pytest -q"), Some("pytest -q"));
        assert_eq!(run_command("!ls"), Some("ls"));
        assert_eq!(run_command("/run"), None);
        assert_eq!(run_command("/runner x"), None);
    }

    #[test]
    fn fences_keep_markdown_in_assistant_text() {
        let b = blocks(
            "#### q  \n\n```\n#### heading\n> quote\n```\n> Tokens: 1k sent  \n",
            0,
            1,
        );
        let classes: Vec<Class> = b.iter().map(|b| b.class).collect();
        assert_eq!(classes, vec![Class::User, Class::Text, Class::Out]);
        assert!(b[1].lines.contains(&"#### heading".to_string()));
    }
}
