//! The session view's tabs besides the turn: the commands, files and errors ledgers
//! ([`scry_query::commands`], [`scry_query::files`], [`scry_query::errors`]) and the session's
//! usage (its row of the per-session usage report), each read once when first shown and kept
//! as plain rows the view scrolls through.

use scry_model::{Header, Timestamp};
use scry_query::usage::{Period, Pricing, UsageRequest};
use scry_query::{CommandsRequest, ErrorsRequest, FilesRequest};

use crate::source::Source;

/// A tab of the session view.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Tab {
    /// The turn, turn by turn.
    Turn,
    /// The commands ledger.
    Commands,
    /// The files ledger.
    Files,
    /// The errors ledger.
    Errors,
    /// Tokens and cost.
    Usage,
}

impl Tab {
    /// Every tab in order.
    pub const ALL: [Tab; 5] = [
        Tab::Turn,
        Tab::Commands,
        Tab::Files,
        Tab::Errors,
        Tab::Usage,
    ];

    /// The tab's title.
    pub fn title(self) -> &'static str {
        match self {
            Tab::Turn => "Turns",
            Tab::Commands => "Commands",
            Tab::Files => "Files",
            Tab::Errors => "Errors",
            Tab::Usage => "Usage",
        }
    }

    /// The next (`forward`) or previous tab, wrapping.
    pub fn step(self, forward: bool) -> Tab {
        let i = Tab::ALL.iter().position(|t| *t == self).unwrap_or(0);
        let n = Tab::ALL.len();
        Tab::ALL[if forward {
            (i + 1) % n
        } else {
            (i + n - 1) % n
        }]
    }
}

/// How a row is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Look {
    /// A heading.
    Head,
    /// Plain.
    Plain,
    /// Secondary (output excerpts).
    Dim,
    /// A failure.
    Bad,
    /// A success.
    Good,
}

/// One row of a ledger tab.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    /// The text (one line).
    pub text: String,
    /// How it is drawn.
    pub look: Look,
}

fn row(text: impl Into<String>, look: Look) -> Row {
    Row {
        text: crate::text::one_line(&text.into()),
        look,
    }
}

fn excerpt_rows(out: &mut Vec<Row>, text: &str, n: usize) {
    for l in text.lines().filter(|l| !l.trim().is_empty()).take(n) {
        out.push(row(format!("      {l}"), Look::Dim));
    }
}

/// Reads tab `tab` of session `h` as rows.
pub fn load(ctx: &Source, tab: Tab, h: &Header, now: Timestamp) -> Result<Vec<Row>, String> {
    let id = h.uri.clone();
    let mut out = Vec::new();
    match tab {
        Tab::Turn => {}
        Tab::Commands => {
            let r = ctx
                .reader
                .commands(
                    &ctx.ctx,
                    &CommandsRequest {
                        id,
                        ..Default::default()
                    },
                )
                .map_err(|e| e.to_string())?;
            out.push(row(
                format!("{} commands, {} failed", r.total.commands, r.total.failed),
                Look::Head,
            ));
            for c in &r.commands {
                let exit = match c.exit_code {
                    Some(x) => format!("exit {x}"),
                    None => serde_json::to_value(c.outcome)
                        .ok()
                        .and_then(|v| v.as_str().map(str::to_string))
                        .unwrap_or_default(),
                };
                let look = if c.failed() { Look::Bad } else { Look::Plain };
                let ev = c
                    .result
                    .as_ref()
                    .map(|e| format!("E{}", e.event))
                    .unwrap_or_default();
                out.push(row(
                    format!("T{:<3} {:<8} {:<6} $ {}", c.turn, exit, ev, c.command),
                    look,
                ));
                if c.failed() {
                    if let Some(e) = c.stderr.as_ref().or(c.stdout.as_ref()) {
                        excerpt_rows(&mut out, &e.text, 3);
                    }
                }
            }
        }
        Tab::Files => {
            let r = ctx
                .reader
                .files(
                    &ctx.ctx,
                    &FilesRequest {
                        id,
                        ..Default::default()
                    },
                )
                .map_err(|e| e.to_string())?;
            out.push(row(
                format!(
                    "{} files written ({} writes)",
                    r.files.len(),
                    r.writes.len()
                ),
                Look::Head,
            ));
            for f in &r.files {
                let group = serde_json::to_value(f.group)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_string))
                    .unwrap_or_default();
                let turns = if f.first_turn == f.last_turn {
                    format!("T{}", f.first_turn)
                } else {
                    format!("T{}-{}", f.first_turn, f.last_turn)
                };
                out.push(row(
                    format!("{:<8} {:>3}× {:<8} {}", group, f.writes, turns, f.display),
                    Look::Plain,
                ));
            }
        }
        Tab::Errors => {
            let r = ctx
                .reader
                .errors(
                    &ctx.ctx,
                    &ErrorsRequest {
                        id,
                        ..Default::default()
                    },
                )
                .map_err(|e| e.to_string())?;
            out.push(row(
                format!(
                    "{} failures, {} fixed later",
                    r.total.failures, r.total.fixed_later
                ),
                Look::Head,
            ));
            for f in &r.failures {
                let what = f.command.clone().unwrap_or_else(|| f.tool.clone());
                let ev = f
                    .call
                    .as_ref()
                    .map(|e| format!("E{}", e.event))
                    .unwrap_or_default();
                let exit = f.exit_code.map(|x| format!("exit {x}")).unwrap_or_default();
                out.push(row(
                    format!("T{:<3} {:<6} {:<8} {}", f.turn, ev, exit, what),
                    Look::Bad,
                ));
                excerpt_rows(&mut out, &f.output.text, 3);
                match &f.fixed_by {
                    Some(e) => out.push(row(
                        format!("      fixed later: E{} (turn {})", e.event, e.turn),
                        Look::Good,
                    )),
                    None => out.push(row("      not fixed later", Look::Dim)),
                }
            }
        }
        Tab::Usage => {
            let req = UsageRequest {
                period: Period::Session,
                provider: Some(h.provider.as_str().to_string()),
                split: true,
                timezone: Some("UTC".into()),
                ..Default::default()
            };
            let pricing = Pricing {
                now: Some(now),
                ..Default::default()
            };
            let r = ctx
                .reader
                .usage(&ctx.ctx, &req, &pricing)
                .map_err(|e| e.to_string())?;
            match r.rows.iter().find(|r| r.key == h.uri) {
                None => out.push(row(
                    "no model requests with token counts in this session",
                    Look::Dim,
                )),
                Some(u) => {
                    let cost = u
                        .cost_usd
                        .map(|c| format!("${c:.4}"))
                        .unwrap_or_else(|| "not priced".into());
                    out.push(row(
                        format!("{} model requests · {cost}", u.requests),
                        Look::Head,
                    ));
                    let t = &u.tokens;
                    for (k, v) in [
                        ("input", t.input),
                        ("output", t.output),
                        ("cache read", t.cache_read),
                        ("cache write", t.cache_write),
                        ("reasoning", t.reasoning),
                        ("total", t.total),
                    ] {
                        out.push(row(
                            format!("  {k:<12} {:>12}", scry_query::render::thousands(v)),
                            Look::Plain,
                        ));
                    }
                    out.push(row("by model", Look::Head));
                    for p in &u.breakdown {
                        let c = p
                            .cost_usd
                            .map(|c| format!("${c:.4}"))
                            .unwrap_or_else(|| "not priced".into());
                        out.push(row(
                            format!(
                                "  {:<28} {:>4} req {:>12} tok  {c}",
                                p.key,
                                p.requests,
                                scry_query::render::thousands(p.tokens.total)
                            ),
                            Look::Plain,
                        ));
                    }
                }
            }
        }
    }
    Ok(out)
}
