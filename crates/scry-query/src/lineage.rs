//! Lineage (S-Q6): over the headers of every discovered session, a session's ancestors nearest
//! first, the forest of its descendants, and either the root or the first parent id that no
//! discovered session has (never both).

use scry_facts::lineage::Trace;
use scry_facts::Lineages;
use scry_model::{ErrorCode, Header, Warning};
use serde::{Serialize, Serializer};
use serde_json::{json, Value};

use crate::catalog::Catalog;
use crate::error::{QueryError, QueryResult};
use crate::{render, Context};

/// A session's lineage.
#[derive(Debug, Clone)]
pub struct Lineage {
    /// The session's header.
    pub header: Option<Header>,
    /// Ancestors, descendants, root or unresolved parent.
    pub trace: Trace,
    /// Every header scanned (labels for the uris of the trace).
    pub headers: Vec<Header>,
    /// Scan warnings.
    pub warnings: Vec<Warning>,
}

/// What `lineage` is asked (its request type, issue 18): the HTTP path's `{id}` of
/// `/v1/sessions/{id}/lineage`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct LineageRequest {
    /// Session: full id, provider:id, a unique prefix (≥ 6 characters), or a file path
    pub id: String,
}

/// The lineage of session `reference`.
pub fn lineage(ctx: &Context, reference: &str) -> QueryResult<Lineage> {
    let catalog = Catalog::discover(ctx, &[]);
    let file = catalog.resolve_ref(ctx, reference)?;
    let all: Vec<_> = catalog.files.iter().collect();
    let (entries, warnings) = catalog.scan(&all);
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
            format!("no readable header for '{reference}'"),
        )
    })?;
    let header = headers.iter().find(|h| h.uri == uri).cloned();
    Ok(Lineage {
        header,
        trace,
        headers,
        warnings,
    })
}

impl Lineage {
    /// The JSON contract of `trace --json`.
    pub fn to_json(&self) -> Value {
        json!({
            "session": self.header.as_ref().map(render::header_json),
            "trace": serde_json::to_value(&self.trace).unwrap_or(Value::Null),
            "warnings": render::warnings_json(&self.warnings),
            "sessions_scanned": self.headers.len(),
        })
    }
}

impl Serialize for Lineage {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.to_json().serialize(s)
    }
}
