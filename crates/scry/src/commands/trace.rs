//! `scry trace <id>` (S-Q6): lineage over the headers of every discovered session — ancestors
//! nearest first, the forest of descendants, and either the root or the first parent id that
//! no discovered session has (never both).

use clap::Args;
use scry_facts::lineage::TraceNode;
use scry_query::TraceRequest;

use super::loaded;
use crate::ctx::Ctx;
use crate::error::CliResult;
use crate::output::Output;
use crate::render::Style;

/// Arguments of `scry trace`: the request of the query operation, flattened (its fields are the
/// flags).
#[derive(Debug, Args)]
pub struct TraceArgs {
    /// The request.
    #[command(flatten)]
    pub request: TraceRequest,
}

/// Runs `scry trace`.
pub fn run(ctx: &Ctx, args: &TraceArgs) -> CliResult<Output> {
    let r = scry_query::trace(ctx, &args.request)?;
    if ctx.json {
        return Ok(loaded::report_json(&r).into());
    }
    let (trace, headers) = (&r.trace, &r.headers);
    let s = Style::new(ctx.color);
    let label = |u: &str| -> String {
        match headers.iter().find(|h| h.uri == u) {
            Some(h) => format!(
                "{u}  {} {}",
                h.kind.as_str(),
                crate::render::clip(h.title.as_deref().unwrap_or(""), 40)
            ),
            None => u.to_string(),
        }
    };
    let mut out = vec![s.bold(&label(&trace.uri))];
    match (&trace.root, &trace.unresolved_parent) {
        (Some(r), _) if *r == trace.uri => out.push("root      itself (no parent)".into()),
        (Some(r), _) => out.push(format!("root      {r}")),
        (None, Some(p)) => out.push(format!(
            "root      unknown: parent '{p}' is not among the discovered sessions"
        )),
        (None, None) => {}
    }
    if trace.ancestors.is_empty() {
        out.push("ancestors none".into());
    } else {
        for (i, a) in trace.ancestors.iter().enumerate() {
            out.push(format!(
                "{:<10}{}{}",
                if i == 0 { "ancestors" } else { "" },
                "↑ ".repeat(i + 1),
                label(a)
            ));
        }
    }
    if trace.descendants.is_empty() {
        out.push("descendants none".into());
    } else {
        out.push("descendants".into());
        fn walk(
            out: &mut Vec<String>,
            nodes: &[TraceNode],
            depth: usize,
            label: &dyn Fn(&str) -> String,
        ) {
            for n in nodes {
                out.push(format!("{}└ {}", "  ".repeat(depth + 1), label(&n.uri)));
                walk(out, &n.children, depth + 1, label);
            }
        }
        walk(&mut out, &trace.descendants, 0, &label);
    }
    Ok(loaded::lines(out).into())
}
