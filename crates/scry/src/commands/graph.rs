//! `scry graph <id>` (S-C7, S-F6): the session's edges to other sessions — `references` /
//! `handoff_from` only from tool calls that really ran a session reader on a target (resolved
//! through the same id resolution as every command; unresolved targets make no edge), and the
//! lineage edges the provider recorded (subagent_of, forked_from, resumed_from,
//! compacted_into) — each with its evidence count.

use clap::Args;
use scry_query::GraphRequest;

use super::loaded;
use crate::ctx::Ctx;
use crate::error::CliResult;
use crate::output::Output;
use crate::render::{self, Style};

/// Arguments of `scry graph`: the request of the query operation, flattened (its fields are the
/// flags).
#[derive(Debug, Args)]
pub struct GraphArgs {
    /// The request.
    #[command(flatten)]
    pub request: GraphRequest,
}

/// Runs `scry graph`.
pub fn run(ctx: &Ctx, args: &GraphArgs) -> CliResult<Output> {
    let r = scry_query::graph(ctx, &args.request)?;
    if ctx.json {
        return Ok(loaded::report_json(&r).into());
    }
    let edges = &r.edges;
    let s = Style::new(ctx.color);
    let mut out = vec![s.bold(&loaded::title_of(&r.session))];
    out.push(format!(
        "{} ({} reference calls seen, {} resolved to a session)",
        render::count(edges.len() as u64, "edge"),
        r.candidates.total,
        r.candidates.made_edges
    ));
    for e in edges {
        let kind = loaded::to_value(&e.kind);
        let why = match &e.field {
            Some(f) => format!("field {f}"),
            None => {
                let handles: Vec<String> = e.evidence.iter().map(|x| x.handle()).collect();
                let mut verbs = e.verbs.clone();
                verbs.dedup();
                format!(
                    "×{} ({}) {}",
                    e.count,
                    verbs.join(", "),
                    render::clip(&handles.join(", "), 40)
                )
            }
        };
        out.push(format!(
            "{:<15} {}  {}",
            kind.as_str().unwrap_or("?"),
            e.to,
            s.dim(&why)
        ));
    }
    out.extend(loaded::warnings_of(&r.warnings));
    Ok(loaded::lines(out).into())
}
