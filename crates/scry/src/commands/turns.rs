//! `scry turns <id>` (S-C3, "layer 2"): one row per turn — time, duration, event range, tool
//! calls and failures, what the user said and what the agent answered (first lines). Streams
//! the session, keeping one small row per turn; `--json` writes the rows as it makes them.

use clap::Args;
use std::collections::BTreeMap;

use scry_model::{Header, Warning};
use scry_query::turns::{TurnMarks, TurnRow, KEEP_JSON, KEEP_TEXT};

use crate::ctx::Ctx;
use crate::error::CliResult;
use crate::output::Output;
use crate::render::{self, Style};

/// Arguments of `scry turns`.
#[derive(Debug, Args)]
pub struct TurnsArgs {
    /// The session (the query's request type, `scry_query::TurnsRequest`).
    #[command(flatten)]
    pub request: scry_query::TurnsRequest,
}

/// Runs `scry turns`.
pub fn run(ctx: &Ctx, args: &TurnsArgs) -> CliResult<Output> {
    let keep = if ctx.json { KEEP_JSON } else { KEEP_TEXT };
    let dir = scry_query::turns(ctx, &args.request.id, keep)?;
    if ctx.json {
        // Written as the rows are made (the bytes of `json_out(&dir.to_json())`), not held as
        // one value and one string of every row.
        let mut out = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
        dir.write_json_pretty(&mut out)?;
        std::io::Write::flush(&mut out)?;
        return Ok(Output::default());
    }
    Ok(text(
        &dir.header,
        &dir.rows,
        &dir.sums,
        &dir.warnings,
        Style::new(ctx.color),
    ))
}

pub(super) fn text(
    h: &Header,
    rows: &[TurnRow],
    sums: &BTreeMap<u32, TurnMarks>,
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
    Output::with_warnings(out, warnings)
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
