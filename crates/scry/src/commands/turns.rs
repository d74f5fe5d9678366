//! `scry turns <id>` (S-C3, "layer 2"): one row per turn — time, duration, event range, tool
//! calls and failures, what the user said and what the agent answered (first lines). Streams
//! the session, keeping one small row per turn.

use clap::Args;
use std::collections::BTreeMap;

use scry_facts::{turn_summaries, Facts, TurnSummary};
use scry_model::{Event, EventKind, Header, Session, Timestamp, Warning};
use serde_json::{json, Value};

use super::Output;
use crate::app::Ctx;
use crate::error::CliResult;
use crate::render::{self, Style};
use crate::session_read::{self, FnSink};

/// Characters kept of a prompt or an answer per turn for JSON (which says `prompt_truncated` /
/// `answer_truncated` when cut; `turn` reads the whole text).
const KEEP_JSON: usize = 1000;
/// Characters kept for text output, which shows a first line and two lines at most.
const KEEP_TEXT: usize = 300;

/// The first `max` characters of `text`, and whether it was cut.
fn keep(text: &str, max: usize) -> (String, bool) {
    let mut it = text.chars();
    let kept: String = it.by_ref().take(max).collect();
    (kept, it.next().is_some())
}

/// Arguments of `scry turns`.
#[derive(Debug, Args)]
pub struct TurnsArgs {
    /// Session: full id, provider:id, a unique prefix (≥ 6 characters), or a file path
    pub id: String,
}

/// One turn's summary.
#[derive(Debug, Default)]
struct TurnRow {
    number: u32,
    first: u32,
    last: u32,
    start: Option<Timestamp>,
    end: Option<Timestamp>,
    tool_calls: u64,
    failures: u64,
    events: u64,
    prompt: Option<(String, bool)>,
    answer: Option<(String, bool)>,
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

/// Runs `scry turns`.
pub fn run(ctx: &Ctx, args: &TurnsArgs) -> CliResult<Output> {
    let opened = session_read::open(ctx, &args.id)?;
    let max = if ctx.json { KEEP_JSON } else { KEEP_TEXT };
    let mut rows: Vec<TurnRow> = Vec::new();
    let mut warnings: Vec<Warning> = Vec::new();
    let mut events: Vec<Event> = Vec::new();
    let header = {
        let mut sink = FnSink {
            on_event: |e: Event| {
                events.push(e.clone());
                if rows.last().is_none_or(|r| r.number != e.turn) {
                    rows.push(TurnRow {
                        number: e.turn,
                        first: e.seq,
                        ..TurnRow::default()
                    });
                }
                if let Some(r) = rows.last_mut() {
                    r.add(&e, max);
                }
            },
            on_warning: |w| warnings.push(w),
        };
        opened.stream(&mut sink)?
    };
    // Status with evidence (S-F5) and the per-turn ledger counts need the whole session.
    let session = Session {
        header,
        events,
        warnings: Vec::new(),
    };
    let facts = Facts::of(&session);
    let sums: BTreeMap<u32, TurnSummary> = turn_summaries(&session, &facts)
        .into_iter()
        .map(|t| (t.turn, t))
        .collect();
    let header = session.header;
    if ctx.json {
        return Ok(super::json_out(&to_json(&header, &rows, &sums, &warnings)).into());
    }
    Ok(text(
        &header,
        &rows,
        &sums,
        &warnings,
        Style::new(ctx.color),
    ))
}

fn to_json(
    h: &Header,
    rows: &[TurnRow],
    sums: &BTreeMap<u32, TurnSummary>,
    warnings: &[Warning],
) -> Value {
    let turns: Vec<Value> = rows
        .iter()
        .map(|r| {
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
        })
        .collect();
    json!({
        "session": render::header_json(h),
        "turns": turns,
        "warnings": render::warnings_json(warnings),
    })
}

fn text(
    h: &Header,
    rows: &[TurnRow],
    sums: &BTreeMap<u32, TurnSummary>,
    warnings: &[Warning],
    s: Style,
) -> Output {
    let mut out = String::new();
    out.push_str(&s.bold(&format!(
        "{}  {}",
        h.uri,
        render::clip(h.title.as_deref().unwrap_or("(untitled)"), 60)
    )));
    out.push('\n');
    for r in rows {
        let label = if r.number == 0 {
            "T0 (preamble)".to_string()
        } else {
            format!("T{}", r.number)
        };
        let dur = render::span_ms(r.start, r.end)
            .map(render::duration_ms)
            .unwrap_or_else(|| "-".into());
        let mut counts = render::count(r.tool_calls, "call");
        if r.failures > 0 {
            counts.push_str(&format!(", {}", s.red(&format!("{} failed", r.failures))));
        }
        let sum = sums.get(&r.number);
        if let Some(t) = sum.filter(|t| t.commands > 0) {
            counts.push_str(&format!(
                ", {}",
                render::count(t.commands as u64, "command")
            ));
        }
        if let Some(t) = sum.filter(|t| t.file_writes > 0) {
            counts.push_str(&format!(
                ", {}",
                render::count(t.file_writes as u64, "write")
            ));
        }
        let marks: Vec<String> = sum
            .map(|t| t.status.iter().map(mark_text).collect())
            .unwrap_or_default();
        if !marks.is_empty() {
            let bad = sum.is_some_and(|t| {
                t.status.iter().any(|m| {
                    !matches!(
                        m.state,
                        scry_facts::TurnState::Completed | scry_facts::TurnState::Nudged
                    )
                })
            });
            let label = format!("[{}]", marks.join(", "));
            counts.push_str(&format!("  {}", if bad { s.red(&label) } else { label }));
        }
        let line = format!(
            "{}  {}  {:>6}  E{}–E{}  {counts}",
            s.bold(&label),
            render::time(r.start),
            dur,
            r.first + 1,
            r.last + 1
        );
        out.push_str(&line);
        out.push('\n');
        if let Some((p, _)) = &r.prompt {
            out.push_str(&format!("  > {}\n", render::clip(p, render::WIDTH - 4)));
        }
        if let Some((a, _)) = &r.answer {
            for l in render::first_lines(a, 2, render::WIDTH - 4) {
                out.push_str(&format!("  < {l}\n"));
            }
        }
        for m in sum.map(|t| t.status.as_slice()).unwrap_or(&[]) {
            if m.state == scry_facts::TurnState::Completed {
                continue;
            }
            let ev: Vec<String> = m.evidence.iter().take(3).map(|e| e.handle()).collect();
            out.push_str(&format!(
                "  ! {}: {} ({})\n",
                mark_name(m),
                render::clip(&m.detail, render::WIDTH - 30),
                ev.join(", ")
            ));
        }
    }
    if rows.is_empty() {
        out.push_str("(no events)\n");
    }
    let notes: String = render::warnings_text(warnings, 5)
        .into_iter()
        .map(|l| format!("{l}\n"))
        .collect();
    Output {
        stdout: out,
        stderr: notes,
    }
}

/// The snake_case name of a status mark.
fn mark_name(m: &scry_facts::status::StatusMark) -> String {
    serde_json::to_value(m.state)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_else(|| "?".into())
}

/// `completed`, `nudged ×2`.
fn mark_text(m: &scry_facts::status::StatusMark) -> String {
    match m.count {
        Some(n) if n > 1 => format!("{} ×{n}", mark_name(m)),
        _ => mark_name(m),
    }
}
