//! Building `scry turn` output units: which events a selection keeps while the session streams,
//! and how kept events become dialogue text, tool-directory lines, full event dumps or raw
//! records.

use std::collections::{BTreeMap, HashMap, HashSet};

use scry_model::{Event, EventKind, Header, RawRef, Timestamp, Warning};
use scry_source::EventSink;
use serde_json::{json, Value};

use crate::page::{Group, Unit};
use crate::render;
use crate::selection::{Span, MAX_EVENTS};
use crate::stats::short_args;

/// What to keep while streaming.
#[derive(Debug, Clone)]
pub enum Want {
    /// Every event of these turns (unclipped).
    Turns(Span),
    /// Events with these 1-based numbers.
    Events(Vec<Span>),
    /// Events with this locator (or its parts).
    Locator(String),
    /// The call and result with this call id.
    Call(String),
}

/// A sink that keeps the wanted events and counts the rest.
#[derive(Debug)]
pub struct Keep {
    want: Want,
    /// Events kept, in order.
    pub events: Vec<Event>,
    /// Every event seen.
    pub total: u32,
    /// Highest turn number.
    pub max_turn: u32,
    /// Whether there is a preamble (events before the first prompt).
    pub has_preamble: bool,
    /// Warnings from the parse.
    pub warnings: Vec<Warning>,
    /// With [`Keep::bounded`]: the most the kept events may weigh ([`weight`]) before they are
    /// let go (`overflow`), and what they weighed.
    limit: Option<usize>,
    weight: usize,
    /// The kept events passed the limit and were let go (the read then streams them again).
    pub overflow: bool,
    /// With [`Keep::bounded`]: the calls and results of every wanted event, kept or not.
    pub pairs: Pairs,
}

/// What an event kept by [`Keep`] is taken to weigh: its text and a fixed share for the rest.
fn weight(e: &Event) -> usize {
    e.text.len() + 1024
}

impl Keep {
    /// A sink for `want`.
    pub fn new(want: Want) -> Self {
        Keep {
            want,
            events: Vec::new(),
            total: 0,
            max_turn: 0,
            has_preamble: false,
            warnings: Vec::new(),
            limit: None,
            weight: 0,
            overflow: false,
            pairs: Pairs::default(),
        }
    }

    /// A sink for `want` that keeps wanted events weighing at most `limit` in all: past it,
    /// it lets them go and sets `overflow`, keeping counting and pairing calls with results.
    pub fn bounded(want: Want, limit: usize) -> Self {
        Keep {
            limit: Some(limit),
            ..Keep::new(want)
        }
    }

    fn wanted(&self, e: &Event) -> bool {
        match &self.want {
            Want::Turns(span) => span.contains(e.turn),
            Want::Events(spans) => {
                self.events.len() <= MAX_EVENTS && spans.iter().any(|s| s.contains(e.seq + 1))
            }
            Want::Locator(l) => {
                let have = e.locator.as_str();
                have == l
                    || have
                        .strip_prefix(l.as_str())
                        .is_some_and(|r| r.starts_with('#'))
            }
            Want::Call(id) => e.call_id.as_deref() == Some(id.as_str()),
        }
    }
}

impl EventSink for Keep {
    fn event(&mut self, e: Event) {
        self.total += 1;
        self.max_turn = self.max_turn.max(e.turn);
        if e.turn == 0 {
            self.has_preamble = true;
        }
        if !self.wanted(&e) {
            return;
        }
        if let Some(limit) = self.limit {
            self.pairs.add(&e);
            self.weight = self.weight.saturating_add(weight(&e));
            if self.weight > limit && !self.overflow {
                self.overflow = true;
                self.events = Vec::new();
            }
        }
        if !self.overflow {
            self.events.push(e);
        }
    }
    fn warning(&mut self, w: Warning) {
        self.warnings.push(w);
    }
}

/// Summary of one turn for its heading line.
#[derive(Debug, Clone, Default)]
pub struct TurnInfo {
    /// First and last seq.
    pub first: u32,
    /// Last seq.
    pub last: u32,
    /// Earliest event time.
    pub start: Option<Timestamp>,
    /// Tool calls.
    pub calls: u64,
    /// Failed results.
    pub failures: u64,
    /// Events not shown as dialogue, by kind (thinking, meta, …).
    pub hidden: BTreeMap<&'static str, u64>,
}

/// Heading facts for each turn of `events`.
pub fn turn_infos(events: &[Event]) -> BTreeMap<u32, TurnInfo> {
    let mut out: BTreeMap<u32, TurnInfo> = BTreeMap::new();
    for e in events {
        add_info(&mut out, e);
    }
    out
}

/// Adds event `e` to the heading facts of its turn ([`turn_infos`] one event at a time).
pub fn add_info(out: &mut BTreeMap<u32, TurnInfo>, e: &Event) {
    let t = out.entry(e.turn).or_insert_with(|| TurnInfo {
        first: e.seq,
        ..TurnInfo::default()
    });
    t.last = e.seq;
    if let Some(time) = e.time {
        t.start = Some(t.start.map_or(time, |s| s.min(time)));
    }
    match e.kind {
        EventKind::ToolCall => t.calls += 1,
        EventKind::ToolResult if e.is_failure() => t.failures += 1,
        _ => {}
    }
    if !matches!(
        e.kind,
        EventKind::User | EventKind::Assistant | EventKind::ToolCall | EventKind::ToolResult
    ) {
        *t.hidden.entry(e.kind.as_str()).or_default() += 1;
    }
}

/// What a tool-directory line shows of a call's result.
#[derive(Debug, Clone, Copy)]
pub struct ResultInfo {
    seq: u32,
    exit_code: Option<i64>,
    failed: bool,
}

impl ResultInfo {
    fn of(e: &Event) -> ResultInfo {
        ResultInfo {
            seq: e.seq,
            exit_code: e.exit_code,
            failed: e.is_failure(),
        }
    }
}

/// The tool calls and results of a selection by call id (a later result of an id replaces an
/// earlier one): what pairs a call with its result in the tool directory.
#[derive(Debug, Default)]
pub struct Pairs {
    results: HashMap<String, ResultInfo>,
    calls: HashSet<String>,
}

impl Pairs {
    /// Adds event `e` (in the session's order).
    pub fn add(&mut self, e: &Event) {
        let Some(id) = e.call_id.as_deref() else {
            return;
        };
        match e.kind {
            EventKind::ToolResult => {
                self.results.insert(id.to_string(), ResultInfo::of(e));
            }
            EventKind::ToolCall => {
                self.calls.insert(id.to_string());
            }
            _ => {}
        }
    }
}

fn status(result: Option<ResultInfo>) -> String {
    match result {
        None => "no result".into(),
        Some(r) => match (r.exit_code, r.failed) {
            (Some(c), _) => format!("exit {c}"),
            (None, true) => "error".into(),
            (None, false) => "ok".into(),
        },
    }
}

/// Dialogue units (user and assistant text) and tool-directory lines for the turn view.
pub fn dialogue_units(events: &[Event]) -> Vec<Unit> {
    let mut pairs = Pairs::default();
    for e in events {
        pairs.add(e);
    }
    let mut units = Vec::new();
    let mut turns: Vec<u32> = events.iter().map(|e| e.turn).collect();
    turns.dedup();
    for turn in turns {
        turn_units(
            &pairs,
            turn,
            events.iter().filter(|e| e.turn == turn),
            &mut units,
        );
    }
    units
}

/// The units of [`dialogue_units`] of turn `turn`, whose events `in_turn` yields in order, the
/// calls paired with their results by `pairs` (of the whole selection).
pub fn turn_units<'a>(
    pairs: &Pairs,
    turn: u32,
    in_turn: impl Iterator<Item = &'a Event> + Clone,
    units: &mut Vec<Unit>,
) {
    let in_turn = || in_turn.clone();
    {
        for e in in_turn().filter(|e| matches!(e.kind, EventKind::User | EventKind::Assistant)) {
            let time = e.time.map(|t| format!(" · {}", render::time(Some(t))));
            units.push(Unit {
                turn,
                group: Group::Events,
                head: format!(
                    "E{} {}{}",
                    e.seq + 1,
                    e.kind.as_str(),
                    time.unwrap_or_default()
                ),
                body: e.text.clone(),
                json: json!({
                    "seq": e.seq,
                    "event": e.seq + 1,
                    "kind": e.kind,
                    "subtype": e.subtype,
                    "time": e.time,
                    "locator": e.locator,
                }),
            });
        }
        for e in in_turn() {
            let (call, result) = match e.kind {
                EventKind::ToolCall => (
                    e,
                    e.call_id
                        .as_deref()
                        .and_then(|id| pairs.results.get(id).copied()),
                ),
                EventKind::ToolResult
                    if e.call_id
                        .as_deref()
                        .is_none_or(|id| !pairs.calls.contains(id)) =>
                {
                    (e, Some(ResultInfo::of(e)))
                }
                _ => continue,
            };
            let args = call
                .args
                .as_ref()
                .map(|a| short_args(a, 48))
                .unwrap_or_default();
            let st = if call.kind == EventKind::ToolResult {
                format!("result without a call: {}", status(result))
            } else {
                status(result)
            };
            let res_n = result
                .filter(|r| r.seq != call.seq)
                .map(|r| format!(" (E{})", r.seq + 1))
                .unwrap_or_default();
            let tool = call.tool.as_deref().unwrap_or("?");
            units.push(Unit {
                turn,
                group: Group::Tools,
                head: format!(
                    "  E{:<5} {} {} → {st}{res_n}",
                    call.seq + 1,
                    render::cell(tool, 14),
                    render::cell(&args, 48)
                ),
                body: String::new(),
                json: json!({
                    "seq": call.seq,
                    "event": call.seq + 1,
                    "tool": call.tool,
                    "call_id": call.call_id,
                    "args": args,
                    "status": st,
                    "result_event": result.map(|r| r.seq + 1),
                    "exit_code": result.and_then(|r| r.exit_code),
                    "failed": result.map(|r| r.failed),
                }),
            });
        }
    }
}

/// Full dumps of events (`--event`, `--locator`, `--call`).
pub fn full_units(events: &[Event]) -> Vec<Unit> {
    events
        .iter()
        .map(|e| {
            let mut head = format!("E{} {}", e.seq + 1, e.kind.as_str());
            if let Some(s) = &e.subtype {
                head.push_str(&format!("/{s}"));
            }
            if let Some(t) = &e.tool {
                head.push_str(&format!(" {t}"));
            }
            head.push_str(&format!(" · T{} · {}", e.turn, render::time(e.time)));
            let mut extra = Vec::new();
            if let Some(id) = &e.call_id {
                extra.push(format!("call {id}"));
            }
            if e.kind == EventKind::ToolResult {
                extra.push(status(Some(ResultInfo::of(e))));
            }
            if let Some(d) = e.duration_ms {
                extra.push(render::duration_ms(d));
            }
            if let Some(m) = &e.model {
                extra.push(m.clone());
            }
            extra.push(format!("locator {}", e.locator));
            head.push_str(&format!(" · {}", extra.join(" · ")));
            let mut body = e.text.clone();
            if let Some(a) = &e.args {
                let pretty = serde_json::to_string_pretty(a).unwrap_or_default();
                if !body.is_empty() {
                    body.push('\n');
                }
                body.push_str(&format!("args: {pretty}"));
            }
            let mut json = serde_json::to_value(e).unwrap_or_else(|_| json!({}));
            if let Value::Object(map) = &mut json {
                map.remove("text");
                map.insert("event".into(), json!(e.seq + 1));
            }
            Unit {
                turn: e.turn,
                group: Group::Events,
                head,
                body,
                json,
            }
        })
        .collect()
}

/// The original records behind `events` (one unit per distinct record).
pub fn raw_units(header: &Header, events: &[Event]) -> Vec<Unit> {
    let mut groups: Vec<(RawRef, Vec<&Event>)> = Vec::new();
    for e in events {
        let key = e.raw;
        match groups.iter_mut().find(|(r, _)| {
            r.len > 0 && (r.file, r.offset, r.len) == (key.file, key.offset, key.len)
        }) {
            Some((_, list)) => list.push(e),
            None => groups.push((key, vec![e])),
        }
    }
    let refs: Vec<RawRef> = groups.iter().map(|(r, _)| *r).collect();
    let texts = crate::raw::read_records(&header.sources, &refs);
    groups
        .iter()
        .zip(texts)
        .map(|((r, evs), text)| {
            let nums: Vec<u32> = evs.iter().map(|e| e.seq + 1).collect();
            let label = match (nums.first(), nums.last()) {
                (Some(a), Some(b)) if a != b => format!("E{a}–E{b}"),
                (Some(a), _) => format!("E{a}"),
                _ => String::new(),
            };
            let file = header.sources.get(r.file as usize);
            let place = file
                .map(|p| format!("{}:{}", p.display(), r.line))
                .unwrap_or_else(|| "?".into());
            let (body, error) = match text {
                Ok(t) => (t, None),
                Err(e) => (format!("(no raw record: {e})"), Some(e)),
            };
            Unit {
                turn: evs.first().map_or(0, |e| e.turn),
                group: Group::Events,
                head: format!("{label} raw {place}"),
                body,
                json: json!({
                    "events": nums,
                    "file": file,
                    "line": r.line,
                    "offset": r.offset,
                    "len": r.len,
                    "error": error,
                }),
            }
        })
        .collect()
}
