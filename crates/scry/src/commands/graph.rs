//! `scry graph <id>` (S-C7, S-F6): the session's edges to other sessions — `references` /
//! `handoff_from` only from tool calls that really ran a session reader on a target (resolved
//! through the same id resolution as every command; unresolved targets make no edge), and the
//! lineage edges the provider recorded (subagent_of, forked_from, resumed_from,
//! compacted_into) — each with its evidence count.

use clap::Args;
use scry_facts::{lineage_edges, reference_candidates, reference_edges_from, Edge};
use scry_model::Header;
use serde_json::json;

use super::loaded::{self};
use super::Output;
use crate::app::Ctx;
use crate::catalog::Catalog;
use crate::error::CliResult;
use crate::render::{self, Style};

/// Arguments of `scry graph`.
#[derive(Debug, Args)]
pub struct GraphArgs {
    /// Session: full id, provider:id, a unique prefix (≥ 6 characters), or a file path
    pub id: String,
}

/// The uri a reference resolves to in `catalog`, if exactly one session matches. References
/// come from session text: an id, or the path of a discovered source (no path is opened).
pub fn resolve_uri(catalog: &Catalog, reference: &str) -> Option<String> {
    let f = catalog.resolve_recorded(reference).ok()?;
    Some(Header::new(f.provider, f.id).uri)
}

/// Runs `scry graph`.
pub fn run(ctx: &Ctx, args: &GraphArgs) -> CliResult<Output> {
    let mut l = loaded::load(ctx, &args.id)?;
    scry_query::archive::include(ctx, &mut l.catalog);
    // The L3 candidates from the index when it holds this session, else from the read.
    let candidates = super::ledger_commands::use_index(ctx, &mut l)
        .unwrap_or_else(|| reference_candidates(&l.session));
    let h = &l.session.header;
    let mut edges: Vec<Edge> =
        reference_edges_from(&h.uri, candidates.clone(), |t| resolve_uri(&l.catalog, t));
    edges.extend(lineage_edges(h, |t| {
        resolve_uri(&l.catalog, &format!("{}:{t}", h.provider.as_str()))
            .or_else(|| resolve_uri(&l.catalog, t))
    }));
    let resolved: usize = edges
        .iter()
        .filter(|e| e.field.is_none())
        .map(|e| e.count)
        .sum();
    if ctx.json {
        let mut v = loaded::envelope(&l.session, "edges", loaded::to_value(&edges));
        if let Some(m) = v.as_object_mut() {
            m.insert(
                "candidates".into(),
                json!({"total": candidates.len(), "made_edges": resolved,
                       "items": loaded::to_value(&candidates)}),
            );
        }
        return Ok(super::json_out(&v).into());
    }
    let s = Style::new(ctx.color);
    let mut out = vec![s.bold(&loaded::title_line(&l.session))];
    out.push(format!(
        "{} ({} reference calls seen, {} resolved to a session)",
        render::count(edges.len() as u64, "edge"),
        candidates.len(),
        resolved
    ));
    for e in &edges {
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
    out.extend(loaded::warnings_tail(&l.session));
    Ok(loaded::lines(out).into())
}
