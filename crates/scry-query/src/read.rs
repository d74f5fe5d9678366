//! Reading inside one session (S-C4, "layer 3", S-Q6 event windows): the visible dialogue of
//! turns with a directory of their tool calls, events in full by number, by locator or by call
//! id, an artifact file, or the raw source records — cut into pages of at most `max_chars`
//! characters with a cursor bound to the session, the source fingerprint and the selection, so
//! a cursor is refused once the source changed.

use std::collections::BTreeMap;
use std::path::Path;

use scry_model::{ErrorCode, Header, Warning};
use serde::{Serialize, Serializer};
use serde_json::{json, Value};

use crate::error::{QueryError, QueryResult};
use crate::page::{self, chars, Cursor, Group, Paged, Pos, Slice, Unit};
use crate::session_read::{self, Opened, Streamed};
use crate::turn_build::{self, Keep, TurnInfo, Want};
use crate::turn_stream;
use crate::{render, selection, Availability, Context};

/// What to read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Selector {
    /// Turn number or range: `3`, `2-4` (0 is the preamble).
    Turns(String),
    /// Events by 1-based number: `7`, `5-9`, `3,8,12` (at most 50).
    Events(String),
    /// The event(s) with this locator.
    Locator(String),
    /// The tool call and result with this call id.
    Call(String),
    /// An artifact file the session lists.
    Artifact(String),
}

/// What `turn` is asked (its request type, issue 18): `scry turn`'s arguments, the HTTP
/// parameters of `/v1/sessions/{id}/content` and the MCP `read` tool's arguments of the same
/// names. One selector (`turns`, `event`, `locator`, `call`, `artifact`) picks what is read
/// ([`TurnRequest::read`]); HTTP may ask an event window (`around`, `radius`) instead.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default)]
pub struct TurnRequest {
    /// Session: full id, provider:id, a unique prefix (≥ 6 characters), or a file path
    pub id: String,
    /// Turn number or range (`3`, `2-4`; 0 is the preamble)
    #[cfg_attr(
        feature = "cli",
        arg(required_unless_present_any = ["event", "locator", "call", "artifact"])
    )]
    pub turns: Option<String>,
    /// Read events in full by number: `7`, `5-9`, `3,8,12` (at most 50)
    #[cfg_attr(feature = "cli", arg(long, value_name = "K|A-B|A,B,C", conflicts_with_all = ["turns", "locator", "call", "artifact"]))]
    pub event: Option<String>,
    /// Read the event(s) with this locator
    #[cfg_attr(feature = "cli", arg(long, value_name = "L", conflicts_with_all = ["turns", "call", "artifact"]))]
    pub locator: Option<String>,
    /// Read the tool call and result with this call id
    #[cfg_attr(feature = "cli", arg(long, value_name = "ID", conflicts_with_all = ["turns", "artifact"]))]
    pub call: Option<String>,
    /// Print an artifact file the session lists
    #[cfg_attr(feature = "cli", arg(long, value_name = "PATH", conflicts_with_all = ["turns", "raw"]))]
    pub artifact: Option<String>,
    /// Print the original source records instead of the normalized text
    #[cfg_attr(feature = "cli", arg(long))]
    pub raw: bool,
    /// Page size in characters
    #[cfg_attr(feature = "cli", arg(long, default_value_t = 32_000))]
    pub max_chars: usize,
    /// Continue where a previous page stopped
    #[cfg_attr(feature = "cli", arg(long, value_name = "C"))]
    pub cursor: Option<String>,
    /// Event window (HTTP): this event (1-based) and `radius` on each side, instead of a
    /// selector
    #[cfg_attr(feature = "cli", arg(skip))]
    pub around: Option<u32>,
    /// Events on each side of `around` (default 5)
    #[cfg_attr(feature = "cli", arg(skip))]
    pub radius: Option<u32>,
    /// Read earlier revision N of the session, kept by the index when its source was rewritten
    /// shorter or changed (1 = the most recent; 0 = the current session)
    #[serde(default)]
    #[cfg_attr(feature = "cli", arg(long, value_name = "N", default_value_t = 0))]
    pub revision: u32,
}

impl Default for TurnRequest {
    fn default() -> Self {
        TurnRequest {
            id: String::new(),
            turns: None,
            event: None,
            locator: None,
            call: None,
            artifact: None,
            raw: false,
            max_chars: 32_000,
            cursor: None,
            around: None,
            radius: None,
            revision: 0,
        }
    }
}

impl TurnRequest {
    /// The selectors given, in the order `turns`, `event`, `locator`, `call`, `artifact`.
    pub fn selectors(&self) -> Vec<Selector> {
        let mut chosen = Vec::new();
        let given = [
            (&self.turns, Selector::Turns as fn(String) -> Selector),
            (&self.event, Selector::Events),
            (&self.locator, Selector::Locator),
            (&self.call, Selector::Call),
            (&self.artifact, Selector::Artifact),
        ];
        for (value, selector) in given {
            if let Some(v) = value {
                chosen.push(selector(v.clone()));
            }
        }
        chosen
    }

    /// The read of exactly one selector; `none` is the one line when there is not exactly one.
    pub fn read(&self, none: &str) -> QueryResult<ReadRequest> {
        let mut chosen = self.selectors();
        if chosen.len() != 1 {
            return Err(QueryError::usage(ErrorCode::InvalidQuery, none));
        }
        Ok(ReadRequest {
            id: self.id.clone(),
            selector: chosen.remove(0),
            raw: self.raw,
            max_chars: self.max_chars,
            cursor: self.cursor.clone(),
        })
    }
}

/// A read request; the fields are the CLI's `turn` arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadRequest {
    /// Session reference (id, `provider:id`, unique prefix, or a file path).
    pub id: String,
    /// What to read.
    pub selector: Selector,
    /// The original source records instead of the normalized text.
    pub raw: bool,
    /// Page size in characters.
    pub max_chars: usize,
    /// Continue where a previous page stopped.
    pub cursor: Option<String>,
}

impl ReadRequest {
    /// A hash of what is selected (not the page size or output format).
    fn selection_key(&self) -> u64 {
        let (mut turns, mut event, mut locator, mut call, mut artifact) =
            (None, None, None, None, None);
        match &self.selector {
            Selector::Turns(s) => turns = Some(s),
            Selector::Events(s) => event = Some(s),
            Selector::Locator(s) => locator = Some(s),
            Selector::Call(s) => call = Some(s),
            Selector::Artifact(s) => artifact = Some(s),
        }
        let key = format!(
            "{turns:?}|{event:?}|{locator:?}|{call:?}|{artifact:?}|{}",
            self.raw
        );
        xxhash_rust::xxh3::xxh3_64(key.as_bytes())
    }
}

/// One page of a read.
#[derive(Debug)]
pub struct TurnPage {
    /// The header it was computed from.
    pub header: Header,
    /// Every unit of the selection; for a turn read past [`KEEP_WEIGHT`], every unit of the
    /// turns this page shows (whole turns), the rest let go.
    pub units: Vec<Unit>,
    /// The part on this page (indices into `units`).
    pub slices: Vec<Slice>,
    /// Heading facts per turn (turn reads only).
    pub infos: BTreeMap<u32, TurnInfo>,
    /// The cursor of the next page.
    pub next_cursor: Option<String>,
    /// Read warnings.
    pub warnings: Vec<Warning>,
    /// The page size.
    pub max_chars: usize,
    /// Whether units are grouped under turn headings (not for an artifact).
    pub headings: bool,
    /// Top-level extra JSON field (`artifact`).
    pub extra: Option<(&'static str, Value)>,
    /// The source fingerprint (S-Q3).
    pub fingerprint: String,
    /// Live / persisted (S-Q1).
    pub availability: Availability,
}

/// Reads one page per `req`.
pub fn read(ctx: &Context, req: &ReadRequest) -> QueryResult<TurnPage> {
    checked(req)?;
    let opened = session_read::open(ctx, &req.id)?;
    read_from(&opened, req)
}

/// [`read`] of a session already opened, local or stored elsewhere (the team store, issue 22:
/// there raw records and artifacts, which live on the session's own machine, are refused).
pub fn read_from(src: &dyn Streamed, req: &ReadRequest) -> QueryResult<TurnPage> {
    read_bounded(src, req, KEEP_WEIGHT)
}

/// [`read_from`] letting a turn read's events go past `limit` ([`KEEP_WEIGHT`]).
pub(crate) fn read_bounded(
    src: &dyn Streamed,
    req: &ReadRequest,
    limit: usize,
) -> QueryResult<TurnPage> {
    let (want, cursor) = checked(req)?;
    let local = src.local();
    if let Some(opened) = local.filter(|o| req.raw && o.archived.is_some()) {
        // The index keeps normalized events, not the source's bytes (they would not fit the
        // index's budget of half the sources' size).
        return Err(crate::archive::gone(
            &format!("{}:{}", opened.file.provider, opened.file.id),
            &opened.file.path,
            "and the index keeps its events, not the raw records: read it without --raw",
        ));
    }
    if local.is_some_and(|o| req.raw && o.revision.is_some()) {
        return Err(QueryError::usage(
            ErrorCode::InvalidQuery,
            "--raw reads the source's records, which hold the current session only: read an earlier revision without --raw",
        ));
    }
    if local.is_none() && req.raw {
        return Err(not_stored(src, "raw records"));
    }
    let fingerprint = src.fingerprint();
    // A cursor of one revision is refused on another.
    let uri = match local.and_then(|o| o.revision.as_ref()) {
        Some(r) => format!("{}@{}", src.uri(), r.n),
        None => src.uri(),
    };
    let selection = req.selection_key();
    let start = match &cursor {
        Some(c) => c.check(&uri, fingerprint, selection)?,
        None => Pos::default(),
    };
    let (header, units, infos, warnings, extra) = match (&req.selector, want) {
        (Selector::Artifact(path), _) => {
            let Some(opened) = local else {
                return Err(not_stored(src, "artifacts"));
            };
            let (header, unit, extra) = artifact(opened, path)?;
            (header, vec![unit], BTreeMap::new(), Vec::new(), Some(extra))
        }
        (_, Some(want)) => {
            let (built, paged) = events(src, want, req.raw, start, req.max_chars, limit)?;
            if let Some(paged) = paged {
                return Ok(page_of(src, req, &uri, built, paged));
            }
            let (header, units, infos, warnings) = built;
            (header, units, infos, warnings, None)
        }
        (_, None) => {
            return Err(QueryError::usage(
                ErrorCode::InvalidQuery,
                "give a turn number, --event, --locator, --call or --artifact",
            ))
        }
    };
    let paged = page::page(&units, start, req.max_chars);
    let mut p = page_of(src, req, &uri, (header, units, infos, warnings), paged);
    p.extra = extra;
    Ok(p)
}

/// The page of `req` made of `built` and its `(slices, next position)`.
fn page_of(
    src: &dyn Streamed,
    req: &ReadRequest,
    uri: &str,
    built: Built,
    (slices, next): Paged,
) -> TurnPage {
    let (header, units, infos, warnings) = built;
    let fingerprint = src.fingerprint();
    let next_cursor = next.map(|p| {
        Cursor {
            session: page::session_hash(uri),
            source: fingerprint,
            selection: req.selection_key(),
            pos: p,
        }
        .encode()
    });
    TurnPage {
        header,
        units,
        slices,
        infos,
        next_cursor,
        warnings,
        max_chars: req.max_chars,
        headings: !matches!(req.selector, Selector::Artifact(_)),
        extra: None,
        fingerprint: format!("{fingerprint:016x}"),
        availability: src.availability(),
    }
}

/// The page size, selection and cursor of `req`, checked before any session is opened.
fn checked(req: &ReadRequest) -> QueryResult<(Option<Want>, Option<Cursor>)> {
    if req.max_chars == 0 {
        return Err(QueryError::usage(
            ErrorCode::InvalidPageSize,
            "--max-chars must be at least 1",
        ));
    }
    let want = want(&req.selector)?;
    let cursor = req.cursor.as_deref().map(Cursor::decode).transpose()?;
    Ok((want, cursor))
}

/// The refusal of what only a session's own machine has (its source files) when the session
/// is read from another store: a usage error (exit 2).
fn not_stored(src: &dyn Streamed, what: &str) -> QueryError {
    QueryError::usage(
        ErrorCode::InvalidQuery,
        format!(
            "{} is read from a store that keeps its events, not its source files: {what} are not served from it",
            src.uri()
        ),
    )
}

/// The event window of S-Q6: event `event` (1-based) and `radius` events on each side, read in
/// full (clipped to the session; at most 50 events).
pub fn event_window(
    ctx: &Context,
    id: &str,
    event: u32,
    radius: u32,
    max_chars: usize,
) -> QueryResult<TurnPage> {
    read(ctx, &window(id, event, radius, max_chars)?)
}

/// The read of [`event_window`] (for a store that reads it with [`read_from`]).
pub fn window(id: &str, event: u32, radius: u32, max_chars: usize) -> QueryResult<ReadRequest> {
    if event == 0 {
        return Err(QueryError::usage(
            ErrorCode::InvalidWindow,
            "event numbers start at 1",
        ));
    }
    let from = event.saturating_sub(radius).max(1);
    let to = event.saturating_add(radius);
    Ok(ReadRequest {
        id: id.to_string(),
        selector: Selector::Events(format!("{from}-{to}")),
        raw: false,
        max_chars,
        cursor: None,
    })
}

fn want(selector: &Selector) -> QueryResult<Option<Want>> {
    Ok(match selector {
        Selector::Events(e) => Some(Want::Events(selection::parse_events(e)?)),
        Selector::Locator(l) => Some(Want::Locator(l.trim().to_string())),
        Selector::Call(c) => Some(Want::Call(c.trim().to_string())),
        Selector::Turns(t) => Some(Want::Turns(selection::parse_turns(t)?)),
        Selector::Artifact(_) => None,
    })
}

type Built = (Header, Vec<Unit>, BTreeMap<u32, TurnInfo>, Vec<Warning>);

/// What the events of a read weigh at most ([`Keep::bounded`]) before a turn read lets them go
/// and streams the session again, keeping only the turns its page shows
/// ([`turn_stream::streamed_turns`]).
pub const KEEP_WEIGHT: usize = 8 << 20;

/// The units of `want`, or, for a turn read whose events weigh more than `limit`, the
/// units of the turns its page (from `start`, `max_chars`) shows, already paged.
fn events(
    src: &dyn Streamed,
    want: Want,
    raw: bool,
    start: Pos,
    max_chars: usize,
    limit: usize,
) -> QueryResult<(Built, Option<Paged>)> {
    let mut keep = match want {
        Want::Turns(_) if !raw => Keep::bounded(want.clone(), limit),
        _ => Keep::new(want.clone()),
    };
    let header = src.stream(&mut keep)?;
    if let (Want::Turns(span), true) = (&want, keep.overflow) {
        let clipped = selection::clip_turns(*span, keep.max_turn, keep.has_preamble)?;
        let (units, infos, paged) =
            turn_stream::streamed_turns(src, clipped, &keep.pairs, start, max_chars)?;
        return Ok(((header, units, infos, keep.warnings), Some(paged)));
    }
    let uri = &header.uri;
    let mut kept = std::mem::take(&mut keep.events);
    match &want {
        Want::Turns(span) => {
            let clipped = selection::clip_turns(*span, keep.max_turn, keep.has_preamble)?;
            kept.retain(|e| clipped.contains(e.turn));
        }
        Want::Events(spans) => {
            let seqs = selection::clip_events(spans, keep.total)?;
            kept.retain(|e| seqs.binary_search(&e.seq).is_ok());
        }
        Want::Locator(l) if kept.is_empty() => {
            return Err(QueryError::new(
                ErrorCode::StaleLocator,
                format!(
                    "locator '{l}' matches no event of {uri}: the record was rewritten or the locator is wrong"
                ),
            ));
        }
        Want::Call(id) if kept.is_empty() => {
            return Err(QueryError::new(
                ErrorCode::EventNotFound,
                format!("no tool call or result with call id '{id}' in {uri}"),
            ));
        }
        _ => {}
    }
    let infos = match want {
        Want::Turns(_) => turn_build::turn_infos(&kept),
        _ => BTreeMap::new(),
    };
    let units = if raw {
        turn_build::raw_units(&header, &kept)
    } else if matches!(want, Want::Turns(_)) {
        turn_build::dialogue_units(&kept)
    } else {
        turn_build::full_units(&kept)
    };
    Ok(((header, units, infos, keep.warnings), None))
}

fn artifact(opened: &Opened, wanted: &str) -> QueryResult<(Header, Unit, (&'static str, Value))> {
    let source = opened.catalog.source(opened.file.provider)?;
    let header = source
        .scan_header(&opened.file)
        .map_err(|e| QueryError::new(ErrorCode::CorruptSession, e.to_string()))?;
    let matches: Vec<&String> = header
        .artifacts
        .iter()
        .filter(|a| {
            a.as_str() == wanted
                || a.ends_with(&format!("/{wanted}"))
                || Path::new(a).file_name().is_some_and(|n| n == wanted)
        })
        .collect();
    // Several matches (a recorded path and the file on this disk, say): keep those that exist.
    let resolve = |a: &str| match Path::new(a) {
        p if p.is_absolute() => p.to_path_buf(),
        p => opened
            .file
            .path
            .parent()
            .map(|d| d.join(p))
            .unwrap_or_else(|| p.to_path_buf()),
    };
    let matches = if matches.len() > 1 {
        let existing: Vec<&String> = matches
            .iter()
            .copied()
            .filter(|a| resolve(a).is_file())
            .collect();
        if existing.is_empty() {
            matches
        } else {
            existing
        }
    } else {
        matches
    };
    let path = match matches.as_slice() {
        [one] => (*one).clone(),
        [] => {
            let known = if header.artifacts.is_empty() {
                "the session lists no artifacts".to_string()
            } else {
                format!("artifacts: {}", header.artifacts.join(", "))
            };
            return Err(QueryError::new(
                ErrorCode::EventNotFound,
                format!("no artifact '{wanted}' in {} ({known})", header.uri),
            ));
        }
        many => {
            return Err(QueryError::ambiguous(
                format!(
                    "artifact '{wanted}' is ambiguous: {}",
                    many.iter()
                        .map(|s| s.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                many.iter().map(|s| s.to_string()).collect(),
            ))
        }
    };
    let full = resolve(&path);
    // The path comes from the session's records: a FIFO or device there must not block the
    // read, so only a regular file (after symlinks) is opened.
    if std::fs::metadata(&full).is_ok_and(|m| !m.is_file()) {
        return Err(QueryError::new(
            ErrorCode::EventNotFound,
            format!("artifact {} is not a regular file", full.display()),
        ));
    }
    let bytes = std::fs::read(&full).map_err(|e| {
        QueryError::new(
            ErrorCode::CorruptSession,
            format!("cannot read artifact {}: {e}", full.display()),
        )
    })?;
    let unit = Unit {
        turn: 0,
        group: Group::Events,
        head: format!("artifact {}", full.display()),
        body: String::from_utf8_lossy(&bytes).into_owned(),
        json: json!({ "path": full }),
    };
    let extra = ("artifact", json!({ "path": full, "bytes": bytes.len() }));
    Ok((header, unit, extra))
}

impl TurnPage {
    /// The JSON contract of `turn --json`: `{"session", "fingerprint", "turns": [{"number",
    /// "events": […], "tools": […]}], "next_cursor", "truncated", "warnings"}`.
    pub fn to_json(&self) -> Value {
        let mut turns: Vec<Value> = Vec::new();
        let mut current: Option<u32> = None;
        for sl in &self.slices {
            let Some(u) = self.units.get(sl.unit) else {
                continue;
            };
            if current != Some(u.turn) {
                current = Some(u.turn);
                let mut t = json!({ "number": u.turn, "events": [], "tools": [] });
                if let Some(info) = self.infos.get(&u.turn) {
                    t["first_event"] = json!(info.first + 1);
                    t["last_event"] = json!(info.last + 1);
                    t["time"] = json!(info.start);
                    t["tool_calls"] = json!(info.calls);
                    t["failures"] = json!(info.failures);
                    t["not_shown"] = json!(info.hidden);
                }
                turns.push(t);
            }
            let Some(t) = turns.last_mut() else { continue };
            let mut item = u.json.clone();
            match u.group {
                Group::Events => {
                    let len = u.body_len();
                    item["text"] = json!(chars(&u.body, sl.from, sl.to));
                    if sl.from > 0 || sl.to < len {
                        item["text_from"] = json!(sl.from);
                        item["text_to"] = json!(sl.to);
                        item["text_len"] = json!(len);
                        item["truncated"] = json!(sl.to < len);
                    }
                    if let Some(a) = t["events"].as_array_mut() {
                        a.push(item);
                    }
                }
                Group::Tools => {
                    if let Some(a) = t["tools"].as_array_mut() {
                        a.push(item);
                    }
                }
            }
        }
        let mut out = json!({
            "session": render::header_json(&self.header),
            "fingerprint": self.fingerprint,
            "turns": turns,
            "next_cursor": self.next_cursor,
            "truncated": self.next_cursor.is_some(),
            "warnings": render::warnings_json(&self.warnings),
        });
        if let Some((k, val)) = &self.extra {
            out[*k] = val.clone();
        }
        out
    }
}

impl Serialize for TurnPage {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.to_json().serialize(s)
    }
}
