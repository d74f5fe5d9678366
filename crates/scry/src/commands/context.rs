//! `scry context <id> [--max-chars N]` (S-Q2): the hand-off pack — the current surface of the
//! session (what the model sees now: the last compaction summary and what follows, thinking and
//! log-only events left out), newest kept first when the budget is short.

use clap::Args;
use scry_facts::surfaces::PackItem;
use scry_query::ContextRequest;

use super::loaded;
use crate::ctx::Ctx;
use crate::error::CliResult;
use crate::output::Output;
use crate::render::{self, Style};

/// Arguments of `scry context`: the request of the query operation, flattened (its fields are the
/// flags).
#[derive(Debug, Args)]
pub struct ContextArgs {
    /// The request.
    #[command(flatten)]
    pub request: ContextRequest,
}

/// Runs `scry context`.
pub fn run(ctx: &Ctx, args: &ContextArgs) -> CliResult<Output> {
    let r = scry_query::context(ctx, &args.request)?;
    if ctx.json {
        return Ok(loaded::report_json(&r).into());
    }
    let pack = &r.context;
    let s = Style::new(ctx.color);
    let mut out = vec![s.bold(&loaded::title_of(&r.session))];
    out.push(format!(
        "current surface from E{} · {} · {} characters{}",
        pack.from_seq + 1,
        render::count(
            pack.items.len() as u64 + u64::from(pack.summary.is_some()),
            "event"
        ),
        render::thousands(pack.chars as u64),
        if pack.truncated {
            format!(
                " (truncated: {} older events left out)",
                pack.omitted_events
            )
        } else {
            String::new()
        }
    ));
    if let Some(sum) = &pack.summary {
        out.push(String::new());
        item(&mut out, "summary", sum, s);
    }
    for it in &pack.items {
        out.push(String::new());
        item(&mut out, "", it, s);
    }
    out.extend(loaded::warnings_of(&r.warnings));
    Ok(loaded::lines(out).into())
}

fn item(out: &mut Vec<String>, label: &str, it: &PackItem, s: Style) {
    let mut head = format!(
        "── {} {}",
        it.evidence.handle(),
        if label.is_empty() {
            it.kind.as_str()
        } else {
            label
        }
    );
    if let Some(t) = &it.tool {
        head.push_str(&format!(" {t}"));
    }
    if it.cut {
        head.push_str(" (cut)");
    }
    out.push(s.dim(&head));
    for line in render::safe_text(&it.text).lines() {
        out.push(line.to_string());
    }
}
