//! `graph` (S-C7, S-F6): one session's edges to other sessions — `references` /
//! `handoff_from` only from tool calls that really ran a session reader on a target (resolved
//! through the same id resolution as every command; unresolved targets make no edge), and the
//! lineage edges the provider recorded (subagent_of, forked_from, resumed_from,
//! compacted_into) — each with its evidence count.

use scry_facts::ReferenceCandidate;
use scry_facts::{lineage_edges, reference_edges_from, Edge};
use scry_model::{Header, Warning};
use serde::{Deserialize, Serialize};

use crate::catalog::Catalog;
use crate::{Context, QueryResult};

/// What `graph` is asked.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct GraphRequest {
    /// Session: full id, provider:id, a unique prefix (≥ 6 characters), or a file path
    pub id: String,
}

/// The reference calls a [`GraphReport`] saw.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Candidates {
    /// Reference calls seen.
    pub total: usize,
    /// Evidence that made an edge (resolved to a session).
    pub made_edges: usize,
    /// Every reference call, before resolution.
    pub items: Vec<ReferenceCandidate>,
}

/// The answer of [`graph`] (`scry graph --json`).
#[derive(Debug, Clone, Serialize)]
pub struct GraphReport {
    /// The session header.
    #[serde(serialize_with = "super::ser_header")]
    pub session: Header,
    /// Every edge.
    pub edges: Vec<Edge>,
    /// The reference calls seen.
    pub candidates: Candidates,
    /// Reading warnings.
    #[serde(serialize_with = "super::ser_warnings")]
    pub warnings: Vec<Warning>,
}

/// The uri a reference resolves to in `catalog`, if exactly one session matches. References
/// come from session text: an id, or the path of a discovered source (no path is opened).
pub fn resolve_uri(catalog: &Catalog, reference: &str) -> Option<String> {
    let f = catalog.resolve_recorded(reference).ok()?;
    Some(Header::new(f.provider, f.id).uri)
}

/// The edges of `req.id`. The session streams ([`super::load_folded`]): nothing holds it.
pub fn graph(ctx: &Context, req: &GraphRequest) -> QueryResult<GraphReport> {
    let mut l = super::load_folded(ctx, &req.id, false)?;
    if l.catalog.one {
        // Resolved from the index under a lease: the references need every session.
        l.catalog = Catalog::discover(ctx, &[]);
    }
    crate::archive::include(ctx, &mut l.catalog);
    // The L3 candidates from the index when it holds this session, else from the read.
    let candidates = match super::index_layers(ctx, &l.session.header, l.folded.events) {
        Some(layers) => layers.references,
        None => std::mem::take(&mut l.folded.candidates),
    };
    let h = &l.session.header;
    let mut edges: Vec<Edge> =
        reference_edges_from(&h.uri, candidates.clone(), |t| resolve_uri(&l.catalog, t));
    edges.extend(lineage_edges(h, |t| {
        resolve_uri(&l.catalog, &format!("{}:{t}", h.provider.as_str()))
            .or_else(|| resolve_uri(&l.catalog, t))
    }));
    let made_edges: usize = edges
        .iter()
        .filter(|e| e.field.is_none())
        .map(|e| e.count)
        .sum();
    Ok(GraphReport {
        edges,
        candidates: Candidates {
            total: candidates.len(),
            made_edges,
            items: candidates,
        },
        session: l.session.header,
        warnings: l.session.warnings,
    })
}
