//! `scry usage daily | weekly | monthly | session | blocks | statusline` (issue 19): tokens and
//! USD per period, session or 5-hour block, from [`scry_query::usage`] (the same report the HTTP
//! API, MCP and the web page serve), priced from the embedded LiteLLM snapshot plus the config
//! file's `[pricing."<model>"]`. `statusline` reads Claude Code's statusline hook JSON on stdin
//! and prints one line: model, this session's cost, today's cost, the active block's burn rate.

use std::io::Read;

use clap::{Args, ValueEnum};
use jiff::tz::TimeZone;
use jiff::Timestamp;
use scry_model::ErrorCode;
use scry_query::usage::{dollars, By, Period, Pricing, UsageReport, UsageRequest, UsageRow};
use serde_json::Value;

use crate::ctx::Ctx;
use crate::error::{CliError, CliResult};
use crate::output::Output;
use crate::render::{self, Style};

/// Which report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum What {
    /// Per day
    Daily,
    /// Per week (starting Sunday)
    Weekly,
    /// Per month
    Monthly,
    /// Per session (subagents folded into their session; --split shows them apart)
    Session,
    /// Per 5-hour billing block, with the active block's burn rate and projection
    Blocks,
    /// One line for Claude Code's statusline hook (reads its JSON on stdin)
    Statusline,
}

/// Arguments of `scry usage`: the report (a positional that also names `statusline`) and the
/// query's request type (its flags defined once, in `scry_query::usage::UsageRequest`).
#[derive(Debug, Args)]
pub struct UsageArgs {
    /// The report
    #[arg(value_enum, default_value = "daily")]
    pub what: What,
    /// The report's filters and breakdown.
    #[command(flatten)]
    pub request: UsageRequest,
}

impl UsageArgs {
    /// The request these arguments ask for.
    pub fn request(&self) -> UsageRequest {
        let period = match self.what {
            What::Daily | What::Statusline => Period::Daily,
            What::Weekly => Period::Weekly,
            What::Monthly => Period::Monthly,
            What::Session => Period::Session,
            What::Blocks => Period::Blocks,
        };
        UsageRequest {
            period,
            ..self.request.clone()
        }
    }
}

/// What prices a report: the config file's custom prices, the clock.
pub fn pricing(ctx: &scry_query::Context) -> CliResult<Pricing> {
    Ok(Pricing {
        prices: custom_prices(ctx)?,
        now: None,
    })
}

/// The config file's custom prices (none for the demo, which ignores the config file).
pub fn custom_prices(
    ctx: &scry_query::Context,
) -> CliResult<std::collections::BTreeMap<String, scry_query::usage::CustomPrice>> {
    if ctx.demo {
        return Ok(Default::default());
    }
    scry_sources::config::pricing(&ctx.env)
        .map_err(|e| CliError::usage(ErrorCode::InvalidFilter, e.to_string()))
}

/// Runs `scry usage`.
pub fn run(ctx: &Ctx, args: &UsageArgs) -> CliResult<Output> {
    if args.what == What::Statusline {
        let mut input = String::new();
        std::io::stdin().read_to_string(&mut input).map_err(|e| {
            CliError::new(
                ErrorCode::PersistenceFailure,
                format!("cannot read stdin: {e}"),
            )
        })?;
        return statusline(ctx, args, &input);
    }
    let r = scry_query::usage::usage(ctx, &args.request(), &pricing(ctx)?)?;
    output(ctx, args, &r)
}

/// What `scry usage` prints of report `r` (local, or from a team store).
pub(super) fn output(ctx: &Ctx, args: &UsageArgs, r: &UsageReport) -> CliResult<Output> {
    if ctx.json {
        let v = serde_json::to_value(r).unwrap_or(Value::Null);
        return Ok(crate::output::json_out(&v).into());
    }
    let mut out = text(r, args.request.by.is_some(), Style::new(ctx.color));
    if r.rows.is_empty() {
        out = "no usage found\n".to_string();
    }
    Ok(Output::with_warnings(out, &r.warnings))
}

/// `$0.2205`, `unpriced`, or `$0.22 + unpriced`.
pub fn money(row: &UsageRow) -> String {
    match (row.cost_usd, row.unpriced.is_empty()) {
        (None, _) => "unpriced".to_string(),
        (Some(c), true) => dollars(c),
        (Some(c), false) => format!("{}+unpriced", dollars(c)),
    }
}

fn short(n: u64) -> String {
    render::thousands(n)
}

/// The report as a table.
pub fn text(r: &UsageReport, breakdown: bool, s: Style) -> String {
    let first = match r.report {
        Period::Daily => "Date",
        Period::Weekly => "Week of",
        Period::Monthly => "Month",
        Period::Session => "Session",
        Period::Blocks => "Block start (UTC)",
    };
    let mut lines: Vec<[String; 8]> = vec![[
        first.to_string(),
        match r.by {
            By::Model => "Models",
            By::Provider => "Providers",
            By::Project => "Projects",
            By::Machine => "Machines",
        }
        .to_string(),
        "Input".into(),
        "Output".into(),
        "Cache write".into(),
        "Cache read".into(),
        "Total".into(),
        "Cost".into(),
    ]];
    let row_cells = |label: String, parts: String, row: &UsageRow| -> [String; 8] {
        [
            label,
            parts,
            short(row.tokens.input),
            short(row.tokens.output),
            short(row.tokens.cache_write),
            short(row.tokens.cache_read),
            short(row.tokens.total),
            money(row),
        ]
    };
    for row in &r.rows {
        let label = match (&row.session, &row.block) {
            (Some(info), _) => {
                let mut l = format!("{}:{}", info.provider, render::clip(&info.id, 13));
                if info.folded > 0 {
                    l.push_str(&format!(" +{}", info.folded));
                }
                l
            }
            (_, Some(b)) => {
                let mut l = b.start.strftime("%Y-%m-%d %H:%M").to_string();
                if b.active {
                    l.push_str(" (active)");
                }
                l
            }
            _ => row.key.clone(),
        };
        let parts: Vec<String> = row.breakdown.iter().map(|p| p.key.clone()).collect();
        lines.push(row_cells(label, render::clip(&parts.join(", "), 40), row));
        if breakdown {
            for p in &row.breakdown {
                let cost = match (p.cost_usd, p.unpriced_tokens) {
                    (None, _) => "unpriced".to_string(),
                    (Some(c), None) => dollars(c),
                    (Some(c), Some(_)) => format!("{}+unpriced", dollars(c)),
                };
                lines.push([
                    String::new(),
                    format!("└ {}", render::clip(&p.key, 38)),
                    short(p.tokens.input),
                    short(p.tokens.output),
                    short(p.tokens.cache_write),
                    short(p.tokens.cache_read),
                    short(p.tokens.total),
                    cost,
                ]);
            }
        }
    }
    lines.push(row_cells("Total".into(), String::new(), &r.totals));
    let mut widths = [0usize; 8];
    for l in &lines {
        for (w, c) in widths.iter_mut().zip(l.iter()) {
            *w = (*w).max(c.chars().count());
        }
    }
    let mut out = String::new();
    let last = lines.len() - 1;
    for (i, l) in lines.iter().enumerate() {
        let mut line = String::new();
        for (j, (c, w)) in l.iter().zip(widths).enumerate() {
            let pad = w - c.chars().count();
            if j < 2 {
                line.push_str(c);
                line.push_str(&" ".repeat(pad));
            } else {
                line.push_str(&" ".repeat(pad));
                line.push_str(c);
            }
            line.push_str("  ");
        }
        let line = line.trim_end().to_string();
        out.push_str(&if i == 0 || i == last {
            s.bold(&line)
        } else {
            line
        });
        out.push('\n');
    }
    for row in &r.rows {
        if let Some(b) = &row.burn {
            out.push_str(&format!(
                "active block: ${:.2}/h, {} tokens/min, {} min left, projected ${:.2} / {} tokens\n",
                b.cost_per_hour,
                short(b.tokens_per_minute.round() as u64),
                b.minutes_left,
                b.projected_cost_usd,
                short(b.projected_tokens)
            ));
        }
    }
    if !r.totals.unpriced.is_empty() {
        let models: Vec<String> = r
            .totals
            .unpriced
            .iter()
            .map(|u| format!("{} ({} tokens)", u.model, short(u.tokens.total)))
            .collect();
        out.push_str(&s.dim(&format!(
            "unpriced (not in the cost): {}; set [pricing.\"<model>\"] in the config file\n",
            models.join(", ")
        )));
    }
    if r.subagents == Some("folded") {
        out.push_str(
            &s.dim("subagents are folded into their session (+N); --split shows them apart\n"),
        );
    }
    out.push_str(&s.dim(&format!(
        "prices: LiteLLM {} snapshot of {}{}; times in {}\n",
        r.prices.litellm,
        r.prices.date,
        if r.prices.custom > 0 {
            format!(", {} custom", r.prices.custom)
        } else {
            String::new()
        },
        r.timezone
    )));
    out
}

/// `scry usage statusline`: Claude Code's hook JSON in, one line out.
pub fn statusline(ctx: &Ctx, args: &UsageArgs, input: &str) -> CliResult<Output> {
    let hook: Value = serde_json::from_str(input.trim()).map_err(|e| {
        CliError::usage(
            ErrorCode::InvalidFilter,
            format!("statusline: stdin is not Claude Code's statusline JSON: {e}"),
        )
    })?;
    let model = hook
        .pointer("/model/display_name")
        .or_else(|| hook.pointer("/model/id"))
        .and_then(Value::as_str)
        .unwrap_or("?")
        .to_string();
    let session_id = hook
        .get("session_id")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    let tz = match &args.request.timezone {
        Some(n) => TimeZone::get(n).map_err(|_| {
            CliError::usage(
                ErrorCode::InvalidFilter,
                format!("invalid --timezone '{n}'"),
            )
        })?,
        None => TimeZone::system(),
    };
    let now = Timestamp::now();
    let req = UsageRequest {
        provider: args.request.provider.clone(),
        timezone: args.request.timezone.clone(),
        ..UsageRequest::default()
    };
    let pricing = Pricing {
        now: Some(now),
        ..pricing(ctx)?
    };
    let s = scry_query::usage::statusline(ctx, &req, &pricing, &tz, &session_id)?;
    let fmt = |c: Option<f64>| c.map_or("unpriced".to_string(), |c| format!("${c:.2}"));
    if ctx.json {
        let v = StatuslineJson {
            model: &model,
            session_id: &session_id,
            session_cost_usd: s.session_cost,
            today_cost_usd: s.today_cost,
            block: s.block.as_ref(),
        };
        return Ok(crate::output::typed_out(&v).into());
    }
    let mut line = format!(
        "{model} | {} session | {} today",
        fmt(s.session_cost),
        fmt(s.today_cost)
    );
    match &s.block {
        Some(b) => line.push_str(&format!(
            " | {} block ({}h {:02}m left) | ${:.2}/h",
            fmt(b.cost_usd),
            b.burn.minutes_left / 60,
            b.burn.minutes_left % 60,
            b.burn.cost_per_hour
        )),
        None => line.push_str(" | no active block"),
    }
    line.push('\n');
    Ok(line.into())
}

/// `usage statusline --json`: the model, the session and its cost, today's, the active block.
#[derive(serde::Serialize)]
struct StatuslineJson<'a> {
    model: &'a str,
    session_id: &'a str,
    session_cost_usd: Option<f64>,
    today_cost_usd: Option<f64>,
    block: Option<&'a scry_query::usage::statusline::BlockLine>,
}
