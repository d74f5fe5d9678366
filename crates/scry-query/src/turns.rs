//! The turn directory of one session (S-C3, "layer 2"): per turn its time, duration, event
//! range, tool calls and failures, commands and file writes, what the user said and what the
//! agent answered (first characters), and a status with evidence (S-F5).

use std::collections::BTreeMap;

use scry_facts::status::{status_skeleton, turn_statuses, StatusMark};
use scry_facts::LedgerFold;
use scry_model::{Event, EventKind, Header, Timestamp, Warning};
use serde::{Serialize, Serializer};
use serde_json::{json, Value};

use crate::error::QueryResult;
use crate::session_read::{self, FnSink};
use crate::{render, Availability, Context};

/// What `turns` is asked (its request type, issue 18): `scry turns`'s argument, the HTTP path's
/// `{id}` and the MCP argument of the same name.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct TurnsRequest {
    /// Session: full id, provider:id, a unique prefix (≥ 6 characters), or a file path
    pub id: String,
    /// Read earlier revision N of the session, kept by the index when its source was rewritten
    /// shorter or changed (1 = the most recent; 0 = the current session)
    #[serde(default)]
    #[cfg_attr(feature = "cli", arg(long, value_name = "N", default_value_t = 0))]
    pub revision: u32,
}

/// Characters kept of a prompt or an answer per turn for JSON (which says `prompt_truncated` /
/// `answer_truncated` when cut; a turn read gives the whole text).
pub const KEEP_JSON: usize = 1000;
/// Characters kept for text output, which shows a first line and two lines at most.
pub const KEEP_TEXT: usize = 300;

/// The first `max` characters of `text`, and whether it was cut.
fn keep(text: &str, max: usize) -> (String, bool) {
    let mut it = text.chars();
    let kept: String = it.by_ref().take(max).collect();
    (kept, it.next().is_some())
}

/// One turn's summary.
#[derive(Debug, Default, Clone)]
pub struct TurnRow {
    /// Turn number (0 = the preamble).
    pub number: u32,
    /// First seq (0-based).
    pub first: u32,
    /// Last seq (0-based).
    pub last: u32,
    /// Earliest event time.
    pub start: Option<Timestamp>,
    /// Latest event time.
    pub end: Option<Timestamp>,
    /// Tool calls.
    pub tool_calls: u64,
    /// Failed tool results.
    pub failures: u64,
    /// Events in the turn.
    pub events: u64,
    /// The prompt (kept characters) and whether it was cut.
    pub prompt: Option<(String, bool)>,
    /// The last answer (kept characters) and whether it was cut.
    pub answer: Option<(String, bool)>,
}

impl TurnRow {
    fn add(&mut self, e: &Event, max: usize) {
        self.last = e.seq;
        self.events += 1;
        if let Some(t) = e.time {
            self.start = Some(self.start.map_or(t, |s| s.min(t)));
            self.end = Some(self.end.map_or(t, |s| s.max(t)));
        }
        match e.kind {
            EventKind::User if self.prompt.is_none() => {
                self.prompt = Some(keep(&e.text, max));
            }
            EventKind::Assistant if !e.text.trim().is_empty() => {
                self.answer = Some(keep(&e.text, max));
            }
            EventKind::ToolCall => self.tool_calls += 1,
            EventKind::ToolResult if e.is_failure() => self.failures += 1,
            _ => {}
        }
    }
}

/// What the turn directory shows of a turn beyond its row: its ledger counts and its status.
#[derive(Debug, Clone, Default)]
pub struct TurnMarks {
    /// File writes made in the turn (the files ledger's rows).
    pub file_writes: usize,
    /// Shell commands run in the turn (the commands ledger's rows).
    pub commands: usize,
    /// Its status marks with evidence (S-F5).
    pub status: Vec<StatusMark>,
}

/// A session's turn directory.
#[derive(Debug)]
pub struct TurnsDir {
    /// The header it was computed from.
    pub header: Header,
    /// One row per turn.
    pub rows: Vec<TurnRow>,
    /// Status, commands and writes per turn number.
    pub sums: BTreeMap<u32, TurnMarks>,
    /// Read warnings.
    pub warnings: Vec<Warning>,
    /// The source fingerprint (S-Q3).
    pub fingerprint: String,
    /// Live / persisted (S-Q1).
    pub availability: Availability,
    /// The earlier revisions the index keeps of the session (issue 20), newest first: the page
    /// links them from the turn directory without a second request.
    pub revisions: Vec<scry_store::RevisionRow>,
}

/// Reads session `reference` into its turn directory, keeping `keep_chars` characters of each
/// prompt and answer ([`KEEP_JSON`] for the JSON contract). The session streams: each turn
/// keeps one row, the ledgers fold as events pass ([`LedgerFold::for_card`], whose rows and
/// turns are the ledgers'), and the statuses read a [`status_skeleton`] of each event.
pub fn turns(ctx: &Context, reference: &str, keep_chars: usize) -> QueryResult<TurnsDir> {
    let opened = session_read::open(ctx, reference)?;
    let fingerprint = crate::fingerprint_text(&opened.file.path);
    let mut dir = turns_from(
        |sink| opened.stream(sink),
        keep_chars,
        fingerprint,
        opened.availability(),
    )?;
    dir.revisions = opened.revisions();
    Ok(dir)
}

/// The turn directory of the session `stream` delivers ([`turns`] over any store: the team
/// store, issue 22), with the fingerprint and availability the caller knows.
pub fn turns_from(
    stream: impl FnOnce(&mut dyn scry_source::EventSink) -> QueryResult<Header>,
    keep_chars: usize,
    fingerprint: String,
    availability: Availability,
) -> QueryResult<TurnsDir> {
    let mut rows: Vec<TurnRow> = Vec::new();
    let mut warnings: Vec<Warning> = Vec::new();
    let mut skeletons: Vec<Event> = Vec::new();
    let mut fold = LedgerFold::for_card();
    let header = {
        let mut sink = FnSink {
            on_event: |e: Event| {
                if rows.last().is_none_or(|r| r.number != e.turn) {
                    rows.push(TurnRow {
                        number: e.turn,
                        first: e.seq,
                        ..TurnRow::default()
                    });
                }
                if let Some(r) = rows.last_mut() {
                    r.add(&e, keep_chars);
                }
                fold.push(&e);
                skeletons.push(status_skeleton(e));
            },
            on_warning: |w| warnings.push(w),
        };
        stream(&mut sink)?
    };
    let ledgers = fold.finish(&header);
    let mut sums: BTreeMap<u32, TurnMarks> = rows
        .iter()
        .map(|r| (r.number, TurnMarks::default()))
        .collect();
    for w in &ledgers.files.writes {
        if let Some(t) = sums.get_mut(&w.turn) {
            t.file_writes += 1;
        }
    }
    for c in &ledgers.commands {
        if let Some(t) = sums.get_mut(&c.turn) {
            t.commands += 1;
        }
    }
    drop(ledgers);
    for st in turn_statuses(&skeletons) {
        if let Some(t) = sums.get_mut(&st.turn) {
            if t.status.is_empty() {
                t.status = st.marks;
            }
        }
    }
    Ok(TurnsDir {
        header,
        rows,
        sums,
        warnings,
        fingerprint,
        availability,
        revisions: Vec::new(),
    })
}

impl TurnsDir {
    /// The JSON of one turn row (an item of `turns` in [`TurnsDir::to_json`]).
    fn row_json(&self, r: &TurnRow) -> Value {
        let sums = &self.sums;
        json!({
            "number": r.number,
            "start": r.first,
            "end": r.last,
            "first_event": r.first + 1,
            "last_event": r.last + 1,
            "events": r.events,
            "time": r.start,
            "end_time": r.end,
            "duration_ms": render::span_ms(r.start, r.end),
            "tool_calls": r.tool_calls,
            "failures": r.failures,
            "prompt": r.prompt.as_ref().map(|p| &p.0),
            "prompt_truncated": r.prompt.as_ref().is_some_and(|p| p.1),
            "answer": r.answer.as_ref().map(|a| &a.0),
            "answer_truncated": r.answer.as_ref().is_some_and(|a| a.1),
            "file_writes": sums.get(&r.number).map_or(0, |t| t.file_writes),
            "commands": sums.get(&r.number).map_or(0, |t| t.commands),
            "status": sums.get(&r.number).map(|t| &t.status),
        })
    }

    /// [`TurnsDir::to_json`] with `turns` left `null` (filled by the caller).
    fn frame_json(&self) -> Value {
        let mut v = json!({
            "session": render::header_json(&self.header),
            "fingerprint": self.fingerprint,
            "turns": Value::Null,
            "warnings": render::warnings_json(&self.warnings),
        });
        // Issue 20: present only when there are any, as in `show`.
        if !self.revisions.is_empty() {
            v["revisions"] = self
                .revisions
                .iter()
                .map(|r| json!({"n": r.n, "replaced_at": r.replaced_at, "events": r.events}))
                .collect();
        }
        v
    }

    /// The JSON contract of `turns --json`.
    pub fn to_json(&self) -> Value {
        let mut v = self.frame_json();
        v["turns"] = Value::Array(self.rows.iter().map(|r| self.row_json(r)).collect());
        v
    }

    /// Writes [`TurnsDir::to_json`] pretty-printed and followed by a newline (the bytes of
    /// `serde_json::to_string_pretty(&self.to_json())` + `\n`) without building the JSON of
    /// every row at once: each row's value is made, written and dropped in turn.
    pub fn write_json_pretty(&self, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        serde_json::to_writer_pretty(&mut *out, &Streamed(self)).map_err(std::io::Error::from)?;
        out.write_all(b"\n")
    }
}

/// [`TurnsDir::to_json`] as a serializer sees it, its rows made one by one: the frame's keys in
/// the frame's own order (so the bytes equal the value's whatever the map order), `turns` a
/// sequence of [`TurnsDir::row_json`].
struct Streamed<'a>(&'a TurnsDir);

/// The rows of [`Streamed`].
struct Rows<'a>(&'a TurnsDir);

impl Serialize for Streamed<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let frame = self.0.frame_json();
        let Value::Object(m) = &frame else {
            return frame.serialize(s);
        };
        let mut map = s.serialize_map(Some(m.len()))?;
        for (k, v) in m {
            if k == "turns" {
                map.serialize_entry(k, &Rows(self.0))?;
            } else {
                map.serialize_entry(k, v)?;
            }
        }
        map.end()
    }
}

impl Serialize for Rows<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        let mut seq = s.serialize_seq(Some(self.0.rows.len()))?;
        for r in &self.0.rows {
            seq.serialize_element(&self.0.row_json(r))?;
        }
        seq.end()
    }
}

impl Serialize for TurnsDir {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.to_json().serialize(s)
    }
}
