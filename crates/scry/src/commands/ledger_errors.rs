//! `scry errors <id>` (S-C6): the errors ledger (S-F4) — every failing tool result (exit code
//! ≠ 0, or an unknown exit code with the agent's error flag), its output, and whether a later
//! call with the same command prefix / file succeeded ("fixed later").

use clap::Args;
use scry_facts::Failure;
use serde_json::json;

use super::loaded::{self, Loaded};
use super::Output;
use crate::app::Ctx;
use crate::error::CliResult;
use crate::render::{self, Style};

/// Arguments of `scry errors`.
#[derive(Debug, Args)]
pub struct ErrorsArgs {
    /// Session: full id, provider:id, a unique prefix (≥ 6 characters), or a file path
    pub id: String,
}

/// Runs `scry errors`.
pub fn run(ctx: &Ctx, args: &ErrorsArgs) -> CliResult<Output> {
    let mut l = loaded::load_ledgers(ctx, &args.id)?;
    super::ledger_commands::use_index(ctx, &mut l);
    if ctx.json {
        let fixed = l.facts.failures.iter().filter(|f| f.fixed_later()).count();
        let mut v = loaded::envelope(&l.session, "failures", loaded::to_value(&l.facts.failures));
        if let Some(m) = v.as_object_mut() {
            m.insert(
                "total".into(),
                json!({"failures": l.facts.failures.len(), "fixed_later": fixed}),
            );
        }
        return Ok(super::json_out(&v).into());
    }
    Ok(text(&l, Style::new(ctx.color)).into())
}

/// `exit 1` or `error`.
pub fn status(f: &Failure) -> String {
    match f.exit_code {
        Some(c) => format!("exit {c}"),
        None => "error".into(),
    }
}

/// `fixed by E12·T3` or `not fixed`.
pub fn fixed(f: &Failure) -> String {
    match &f.fixed_by {
        Some(e) => format!("fixed by {}", e.handle()),
        None => "not fixed".into(),
    }
}

fn text(l: &Loaded, s: Style) -> String {
    let fs = &l.facts.failures;
    let fixed_n = fs.iter().filter(|f| f.fixed_later()).count();
    let mut out = vec![s.bold(&loaded::title_line(&l.session))];
    out.push(format!(
        "{}, {fixed_n} fixed later",
        render::count(fs.len() as u64, "failure")
    ));
    for f in fs {
        let what = f
            .command
            .as_deref()
            .map(|c| format!(" `{}`", render::clip(c, 60)))
            .unwrap_or_default();
        out.push(format!(
            "{:<10} {} {}{what} → {}  ({})",
            f.origin.evidence.handle(),
            f.tool,
            s.red(&status(f)),
            if f.fixed_later() {
                fixed(f)
            } else {
                s.red(&fixed(f))
            },
            s.dim(&f.origin.extractor)
        ));
        let body: Vec<&str> = f
            .output
            .text
            .lines()
            .filter(|x| !x.trim().is_empty())
            .collect();
        let n = body.len();
        for line in body.iter().skip(n.saturating_sub(2)) {
            out.push(format!(
                "{:<10} {}",
                "",
                render::clip(line, render::WIDTH - 12)
            ));
        }
    }
    out.extend(loaded::warnings_tail(&l.session));
    loaded::lines(out)
}
