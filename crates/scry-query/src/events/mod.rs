//! Events of one session by event-level filters (S-Q4) and the relations of one event (S-Q6):
//! `scry events`, and `GET /v1/sessions/{id}/events`.
//!
//! [`events()`] streams the session (from the index when it holds it, else from the source —
//! the same events either way, SPEC P2) and keeps only one page of small rows (a preview, never
//! the whole text; `scry turn --event` reads an event in full): seq range, time range, kind,
//! surface and a text clause ([`clause`]), AND across filters, OR within one clause's values.
//! Every match is counted (`total`), so a page says how much it leaves out. Pages are at most
//! `limit` rows; the cursor binds the session, the source fingerprint, the normalized filters
//! and the page size, and is refused once any of them changed.
//!
//! Surfaces are derived while streaming by the shared rules ([`surface`]); a surface filter
//! needs them before the first row, so it costs a second pass over the session (still streamed).
//!
//! [`relations()`]: see [`relations`].

pub mod clause;
pub mod follow;
pub mod relations;
pub mod surface;

use scry_model::{ErrorCode, Event, EventKind, Header, Surface, Timestamp, Warning};
use scry_source::EventSink;
use serde::{Serialize, Serializer};
use serde_json::{json, Value};

use crate::error::{QueryError, QueryResult};
use crate::page::{self, Cursor, Pos};
use crate::{render, session_read, Availability, Context};

pub use clause::{EventQuery, Filters, TextClause, TextMatch};
pub use follow::{follow, follow_live, Follow, FollowJson, Update};
pub use relations::{relations, Link, Related, Relations};
pub use surface::SurfaceScan;

/// Rows per page unless asked otherwise.
pub const DEFAULT_LIMIT: usize = 50;
/// The largest page.
pub const MAX_LIMIT: usize = 1000;
/// Characters of an event shown in its row (the match and what surrounds it, or the start).
pub const PREVIEW: usize = 160;

/// Which page to return.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageRequest {
    /// At most this many rows (1..=[`MAX_LIMIT`]).
    pub limit: usize,
    /// Continue after a previous page.
    pub cursor: Option<String>,
}

impl Default for PageRequest {
    fn default() -> Self {
        PageRequest {
            limit: DEFAULT_LIMIT,
            cursor: None,
        }
    }
}

/// What `events` is asked (its request type, issue 18): the session, the filters, the page,
/// or one event's `relations` instead — `scry events`' flags and the HTTP parameters of
/// `/v1/sessions/{id}/events` of the same names.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default)]
pub struct EventsRequest {
    /// Session: full id, provider:id, a unique prefix (≥ 6 characters), or a file path
    pub id: String,
    /// The filters.
    #[cfg_attr(feature = "cli", command(flatten))]
    #[serde(flatten)]
    pub filter: EventQuery,
    /// Rows per page (1-1000)
    #[cfg_attr(
        feature = "cli",
        arg(long, value_name = "N", default_value_t = DEFAULT_LIMIT)
    )]
    pub limit: usize,
    /// Continue after a previous page
    #[cfg_attr(feature = "cli", arg(long, value_name = "C"))]
    pub cursor: Option<String>,
    /// Relations of one event (a 0-based seq, or E<n>): replacement chain, source / derived
    #[cfg_attr(
        feature = "cli",
        arg(
            long,
            value_name = "SEQ",
            conflicts_with_all = ["seq", "since", "until", "kind", "surface", "text", "cursor"]
        )
    )]
    pub relations: Option<String>,
    /// Read earlier revision N of the session, kept by the index when its source was rewritten
    /// shorter or changed (1 = the most recent; 0 = the current session)
    #[serde(default)]
    #[cfg_attr(feature = "cli", arg(long, value_name = "N", default_value_t = 0))]
    pub revision: u32,
}

impl Default for EventsRequest {
    fn default() -> Self {
        EventsRequest {
            id: String::new(),
            filter: EventQuery::default(),
            limit: DEFAULT_LIMIT,
            cursor: None,
            relations: None,
            revision: 0,
        }
    }
}

impl EventsRequest {
    /// The page asked for.
    pub fn page(&self) -> PageRequest {
        PageRequest {
            limit: self.limit,
            cursor: self.cursor.clone(),
        }
    }
}

/// One matching event, small: what it is, where it is, and a preview.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EventRow {
    /// 0-based position.
    pub seq: u32,
    /// 1-based display number (`E<n>`).
    pub event: u32,
    /// Turn (0 = preamble).
    pub turn: u32,
    /// Kind.
    pub kind: EventKind,
    /// Provider subtype.
    pub subtype: Option<String>,
    /// When (null when unknown).
    pub time: Option<Timestamp>,
    /// Surface (S-Q2), derived.
    pub surface: Surface,
    /// Tool name of a call / result.
    pub tool: Option<String>,
    /// Call id of a call / result.
    pub call_id: Option<String>,
    /// Exit code when recorded.
    pub exit_code: Option<i64>,
    /// Whether it failed (S-F4); null for events that are not tool results.
    pub failed: Option<bool>,
    /// Stable locator (S-E2).
    pub locator: String,
    /// Characters of the whole text.
    pub chars: usize,
    /// One line: around the text match, else the start of the text (or the arguments).
    pub preview: String,
    /// Where the text clause matched first.
    #[serde(rename = "match")]
    pub text_match: Option<TextMatch>,
}

impl EventRow {
    /// The row of `e` with its derived `surface` and the text match.
    pub fn of(e: &Event, surface: Surface, m: Option<TextMatch>) -> EventRow {
        let preview = match &m {
            Some(tm) => {
                let field: String = if tm.field == "text" {
                    e.text.clone()
                } else {
                    arg_at(e.args.as_ref(), &tm.field).unwrap_or_default()
                };
                let from = tm.from.saturating_sub(40);
                let cut = page::chars(&field, from, from + PREVIEW);
                let lead = if from > 0 { "…" } else { "" };
                let prefix = if tm.field == "text" {
                    String::new()
                } else {
                    format!("{}: ", tm.field)
                };
                render::clip(&format!("{prefix}{lead}{cut}"), PREVIEW)
            }
            None if !e.text.trim().is_empty() => render::clip(&e.text, PREVIEW),
            None => e
                .args
                .as_ref()
                .map(|a| render::clip(&crate::stats::short_args(a, PREVIEW), PREVIEW))
                .unwrap_or_default(),
        };
        EventRow {
            seq: e.seq,
            event: e.seq.saturating_add(1),
            turn: e.turn,
            kind: e.kind,
            subtype: e.subtype.clone(),
            time: e.time,
            surface,
            tool: e.tool.clone(),
            call_id: e.call_id.clone(),
            exit_code: e.exit_code,
            failed: (e.kind == EventKind::ToolResult).then(|| e.is_failure()),
            locator: e.locator.as_str().to_string(),
            chars: e.text.chars().count(),
            preview,
            text_match: m,
        }
    }
}

/// The string at `args.<path>` (the path [`TextClause::find`] reports).
fn arg_at(args: Option<&Value>, field: &str) -> Option<String> {
    let mut v = args?;
    let mut rest = field.strip_prefix("args")?;
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix('[') {
            let (n, after) = r.split_once(']')?;
            v = v.get(n.parse::<usize>().ok()?)?;
            rest = after;
        } else if let Some(r) = rest.strip_prefix('.') {
            // Object keys may hold '.' or '[': take the longest key present.
            let obj = v.as_object()?;
            let key = obj
                .keys()
                .filter(|k| {
                    r.strip_prefix(k.as_str())
                        .is_some_and(|a| a.is_empty() || a.starts_with(['.', '[']))
                })
                .max_by_key(|k| k.len())?;
            v = obj.get(key)?;
            rest = r.get(key.len()..)?;
        } else {
            return None;
        }
    }
    v.as_str().map(str::to_string)
}

/// One page of `events`.
#[derive(Debug)]
pub struct EventPage {
    /// The header it was computed from (S-Q3).
    pub header: Header,
    /// The source fingerprint (S-Q3).
    pub fingerprint: String,
    /// Live / persisted (S-Q1).
    pub availability: Availability,
    /// The normalized filters.
    pub filters: Value,
    /// The rows of this page, in seq order.
    pub events: Vec<EventRow>,
    /// Every matching event of the session.
    pub total: u64,
    /// Matching events before this page.
    pub before: u64,
    /// Events in the session.
    pub session_events: u32,
    /// The page size.
    pub limit: usize,
    /// The cursor of the next page.
    pub next_cursor: Option<String>,
    /// Read warnings.
    pub warnings: Vec<Warning>,
}

/// The pass that keeps a page: counts every match, keeps `limit` rows from `start`.
struct Collect<'a> {
    filters: &'a Filters,
    /// `Some` when surfaces are known before streaming (second pass).
    shadow_end: Option<u32>,
    /// Folds surfaces when they are not known yet (single pass).
    scan: SurfaceScan,
    start: u32,
    limit: usize,
    /// Keep the last `limit` rows that pass (the last page) instead of those from `start`.
    tail: bool,
    rows: std::collections::VecDeque<(EventRow, Surface)>,
    total: u64,
    before: u64,
    next: Option<u32>,
    warnings: Vec<Warning>,
    /// Keep the last resume point a direct parse offers (`events --follow` continues there).
    keep_resume: bool,
    resume: Option<scry_source::ResumePoint>,
}

impl EventSink for Collect<'_> {
    fn event(&mut self, e: Event) {
        if self.shadow_end.is_none() {
            self.scan.add(&e);
        } else {
            self.scan.total = self.scan.total.max(e.seq.saturating_add(1));
        }
        if !self.filters.accepts_fields(&e) {
            return;
        }
        if let Some(end) = self.shadow_end {
            let s = surface::surface_of(end, e.seq, e.surface);
            if !self.filters.accepts_surface(s) {
                return;
            }
        }
        let m = match &self.filters.text {
            Some(t) => match t.find(&e) {
                Some(m) => Some(m),
                None => return,
            },
            None => None,
        };
        self.total += 1;
        if self.tail {
            if self.rows.len() == self.limit {
                self.rows.pop_front();
                self.before += 1;
            }
        } else if e.seq < self.start {
            self.before += 1;
            return;
        }
        if self.rows.len() < self.limit {
            let provisional = self
                .shadow_end
                .map_or(e.surface, |end| surface::surface_of(end, e.seq, e.surface));
            self.rows
                .push_back((EventRow::of(&e, provisional, m), e.surface));
        } else if self.next.is_none() {
            self.next = Some(e.seq);
        }
    }
    fn warning(&mut self, w: Warning) {
        self.warnings.push(w);
    }
    fn wants_resume_points(&self) -> bool {
        self.keep_resume
    }
    fn resume_point(&mut self, point: scry_source::ResumePoint) {
        self.resume = Some(point);
    }
}

/// Surfaces only (the first pass when a surface filter needs them up front).
struct ScanOnly(SurfaceScan);

impl EventSink for ScanOnly {
    fn event(&mut self, e: Event) {
        self.0.add(&e);
    }
    fn warning(&mut self, _: Warning) {}
}

fn selection_key(filters: &Value, limit: usize) -> u64 {
    xxhash_rust::xxh3::xxh3_64(format!("events|{filters}|{limit}").as_bytes())
}

/// The events of session `id` that pass `q`, one page of at most `page.limit` rows.
pub fn events(
    ctx: &Context,
    id: &str,
    q: &EventQuery,
    page: &PageRequest,
) -> QueryResult<EventPage> {
    let (filters, opened) = prepare(ctx, id, q, page)?;
    Ok(page_of(&opened, &filters, page, false, false)?.page)
}

/// [`events`] of a session already opened, local or stored elsewhere (the team store, issue 22).
pub fn events_from(
    src: &dyn session_read::Streamed,
    q: &EventQuery,
    page: &PageRequest,
) -> QueryResult<EventPage> {
    check_limit(page)?;
    let filters = Filters::parse(q, Timestamp::now())?;
    Ok(page_of(src, &filters, page, false, false)?.page)
}

fn check_limit(page: &PageRequest) -> QueryResult<()> {
    if page.limit == 0 || page.limit > MAX_LIMIT {
        return Err(QueryError::usage(
            ErrorCode::InvalidPageSize,
            format!("invalid --limit {}: use 1 to {MAX_LIMIT}", page.limit),
        ));
    }
    Ok(())
}

/// Checks the page size and the filters, then opens the session.
fn prepare(
    ctx: &Context,
    id: &str,
    q: &EventQuery,
    page: &PageRequest,
) -> QueryResult<(Filters, session_read::Opened)> {
    check_limit(page)?;
    let filters = Filters::parse(q, Timestamp::now())?;
    let opened = session_read::open(ctx, id)?;
    Ok((filters, opened))
}

/// A page and what streaming the session left behind for following it.
struct Computed {
    page: EventPage,
    /// The surfaces folded over every event streamed.
    scan: SurfaceScan,
    /// The last resume point of a direct parse (when asked for).
    resume: Option<scry_source::ResumePoint>,
}

/// One page of the events of `opened` that pass `filters`.
/// One page of `opened`'s events passing `filters`: from `page`'s cursor, or with `tail` the
/// last page (the last `page.limit` rows that pass; no next cursor).
fn page_of(
    opened: &dyn session_read::Streamed,
    filters: &Filters,
    page: &PageRequest,
    keep_resume: bool,
    tail: bool,
) -> QueryResult<Computed> {
    let filters_json = filters.to_json();
    let selection = selection_key(&filters_json, page.limit);
    let cursor = page.cursor.as_deref().map(Cursor::decode).transpose()?;
    let fingerprint = opened.fingerprint();
    let uri = opened.uri();
    let start = match &cursor {
        Some(c) => c.check(&uri, fingerprint, selection)?.unit,
        None => 0,
    };
    let start = u32::try_from(start).unwrap_or(u32::MAX);
    let mut first_scan = None;
    if !filters.surfaces.is_empty() {
        let mut first = ScanOnly(SurfaceScan::default());
        opened.stream(&mut first)?;
        first_scan = Some(first.0);
    }
    let shadow_end = first_scan.as_ref().map(SurfaceScan::shadow_end);
    let mut sink = Collect {
        filters,
        shadow_end,
        scan: SurfaceScan::default(),
        start,
        limit: page.limit,
        tail,
        rows: std::collections::VecDeque::new(),
        total: 0,
        before: 0,
        next: None,
        warnings: Vec::new(),
        keep_resume,
        resume: None,
    };
    let header = opened.stream(&mut sink)?;
    let end = shadow_end.unwrap_or_else(|| sink.scan.shadow_end());
    let events: Vec<EventRow> = sink
        .rows
        .into_iter()
        .map(|(mut row, provider)| {
            row.surface = surface::surface_of(end, row.seq, provider);
            row
        })
        .collect();
    let next_cursor = sink.next.map(|seq| {
        Cursor {
            session: page::session_hash(&uri),
            source: fingerprint,
            selection,
            pos: Pos {
                unit: seq as usize,
                offset: 0,
            },
        }
        .encode()
    });
    let session_events = sink.scan.total;
    let page = EventPage {
        header,
        fingerprint: format!("{fingerprint:016x}"),
        availability: opened.availability(),
        filters: filters_json,
        events,
        total: sink.total,
        before: sink.before,
        session_events,
        limit: page.limit,
        next_cursor,
        warnings: sink.warnings,
    };
    // The second pass of a surface filter does not fold surfaces: the first pass did.
    let scan = first_scan.unwrap_or(sink.scan);
    Ok(Computed {
        page,
        scan,
        resume: sink.resume,
    })
}

impl EventPage {
    /// The JSON contract of `events --json`: `{"session", "fingerprint", "filters", "events":
    /// […], "total", "from", "to", "session_events", "limit", "next_cursor", "truncated",
    /// "warnings"}` (`from` / `to`: 1-based positions of this page among all matches).
    pub fn to_json(&self) -> Value {
        let shown = self.events.len() as u64;
        json!({
            "session": render::header_json(&self.header),
            "fingerprint": self.fingerprint,
            "filters": self.filters,
            "events": self.events,
            "total": self.total,
            "from": if shown == 0 { Value::Null } else { json!(self.before + 1) },
            "to": if shown == 0 { Value::Null } else { json!(self.before + shown) },
            "session_events": self.session_events,
            "limit": self.limit,
            "next_cursor": self.next_cursor,
            "truncated": self.next_cursor.is_some(),
            "warnings": render::warnings_json(&self.warnings),
        })
    }
}

impl Serialize for EventPage {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.to_json().serialize(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arg_paths_resolve() {
        let a = json!({"command": "ls", "edits": [{"old.s": "x"}], "n": {"k": "v"}});
        assert_eq!(arg_at(Some(&a), "args.command").as_deref(), Some("ls"));
        assert_eq!(
            arg_at(Some(&a), "args.edits[0].old.s").as_deref(),
            Some("x")
        );
        assert_eq!(arg_at(Some(&a), "args.n.k").as_deref(), Some("v"));
        assert_eq!(arg_at(Some(&a), "args.none"), None);
    }
}
