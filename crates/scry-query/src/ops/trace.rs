//! `trace` (S-Q6): lineage over the headers of every discovered session — ancestors nearest
//! first, the forest of descendants, and either the root or the first parent id that no
//! discovered session has (never both).

use scry_facts::{Lineages, Trace};
use scry_model::{ErrorCode, Header, Warning};
use serde::{Deserialize, Serialize};

use crate::catalog::Catalog;
use crate::{Context, QueryError, QueryResult};

/// What `trace` is asked.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TraceRequest {
    /// Session reference.
    pub id: String,
}

/// The answer of [`trace`] (`scry trace --json`).
#[derive(Debug, Clone, Serialize)]
pub struct TraceReport {
    /// The session's header (`null` when only its lineage is known).
    #[serde(serialize_with = "super::ser_opt_header")]
    pub session: Option<Header>,
    /// The lineage.
    pub trace: Trace,
    /// How many session headers were scanned.
    pub sessions_scanned: usize,
    /// Scan warnings.
    #[serde(serialize_with = "super::ser_warnings")]
    pub warnings: Vec<Warning>,
    /// Every scanned header (for labels in text output; not serialized).
    #[serde(skip)]
    pub headers: Vec<Header>,
}

/// The lineage of `req.id` among every discovered session.
pub fn trace(ctx: &Context, req: &TraceRequest) -> QueryResult<TraceReport> {
    let catalog = Catalog::discover(&ctx.env, &[]);
    let file = catalog.resolve_ref(ctx, &req.id)?;
    let all: Vec<_> = catalog.files.iter().collect();
    let (entries, scan_warnings) = catalog.scan(&all);
    let mut headers: Vec<Header> = entries.into_iter().map(|e| e.header).collect();
    let uri = Header::new(file.provider, file.id.clone()).uri;
    if !headers.iter().any(|h| h.uri == uri) {
        // A path given directly that discovery does not list: scan it too.
        let (extra, _) = catalog.scan(&[&file]);
        headers.extend(extra.into_iter().map(|e| e.header));
    }
    let archived = crate::archive::headers(ctx, &catalog, &headers);
    headers.extend(archived);
    let trace = Lineages::new(&headers).trace(&uri).ok_or_else(|| {
        QueryError::new(
            ErrorCode::SessionNotFound,
            format!("no readable header for '{}'", req.id),
        )
    })?;
    Ok(TraceReport {
        session: headers.iter().find(|h| h.uri == uri).cloned(),
        trace,
        sessions_scanned: headers.len(),
        warnings: scan_warnings,
        headers,
    })
}
