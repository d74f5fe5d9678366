//! Batch reads (S-Q5): the headers of many sessions in one call, one result per input in input
//! order; a reference that fails (not found, ambiguous, unreadable) rejects only its own entry.

use scry_model::{ErrorCode, Header};
use serde::{Serialize, Serializer};
use serde_json::{json, Value};

use crate::catalog::Catalog;
use crate::error::{QueryError, QueryResult};
use crate::{render, Context};

/// One input's outcome.
#[derive(Debug, Clone)]
pub struct BatchEntry {
    /// The reference as given.
    pub reference: String,
    /// Its header and source fingerprint, or why not.
    pub result: Result<(Header, String), QueryError>,
}

/// The outcome of a batch read.
#[derive(Debug, Clone)]
pub struct Batch {
    /// One entry per input, in input order.
    pub entries: Vec<BatchEntry>,
}

/// At most this many references per batch.
pub const MAX_BATCH: usize = 500;

/// What `/v1/headers` is asked (its request type, issue 18): the HTTP parameter of the same
/// name.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct HeadersRequest {
    /// Session references, comma-separated (at most 500)
    #[serde(default)]
    #[cfg_attr(feature = "cli", arg(long, value_name = "ID,…"))]
    pub ids: String,
}

impl HeadersRequest {
    /// The references, in order, blanks dropped.
    pub fn references(&self) -> Vec<String> {
        self.ids
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect()
    }
}

/// Reads the headers (a header scan each: title, cwd, times, kind, parent) of `references`.
pub fn headers(ctx: &Context, references: &[String]) -> QueryResult<Batch> {
    if references.len() > MAX_BATCH {
        return Err(QueryError::usage(
            ErrorCode::InvalidPageSize,
            format!(
                "{} references; at most {MAX_BATCH} per batch",
                references.len()
            ),
        ));
    }
    // Under a watcher's lease each id is resolved from the index (no discovery) and its one
    // file header scanned as below; any reference the index cannot answer as discovery would
    // (see `Catalog::resolve_leased`) takes one discovery, made at most once.
    let store = crate::indexed::open(ctx).ok().flatten();
    let mut discovered: Option<Catalog> = None;
    let entries = references
        .iter()
        .map(|r| {
            let leased =
                crate::indexed::reads(&store).and_then(|s| Catalog::resolve_leased(ctx, s, &[], r));
            let result = match leased {
                Some((catalog, file)) => scan_one(ctx, &catalog, file, r),
                None => {
                    let catalog = discovered.get_or_insert_with(|| Catalog::discover(ctx, &[]));
                    catalog
                        .resolve_ref(ctx, r)
                        .and_then(|file| scan_one(ctx, catalog, file, r))
                }
            };
            BatchEntry {
                reference: r.clone(),
                result,
            }
        })
        .collect();
    Ok(Batch { entries })
}

/// The header of `file` (`reference` resolved): the index's for an archived session, else a
/// header scan.
fn scan_one(
    ctx: &Context,
    catalog: &Catalog,
    file: scry_source::SourceFile,
    reference: &str,
) -> QueryResult<(Header, String)> {
    if file.key.is_some() || !file.path.exists() {
        // Archived (S-I6): the header the index keeps.
        if let Some(store) = crate::indexed::open(ctx)? {
            if crate::archive::lookup(&*store, &file).is_some() {
                if let Ok(h) = store.header((&file).into()) {
                    return Ok((h, crate::fingerprint_text(&file.path)));
                }
            }
        }
    }
    let (entries, warnings) = catalog.scan(&[&file]);
    match entries.into_iter().next() {
        Some(e) => Ok((e.header, crate::fingerprint_text(&file.path))),
        None => Err(QueryError::new(
            ErrorCode::CorruptSession,
            warnings.first().map_or_else(
                || format!("cannot read the header of '{reference}'"),
                |w| w.to_string(),
            ),
        )),
    }
}

impl Batch {
    /// `{"results": [{"ref", "session", "fingerprint"} | {"ref", "error": {…}}]}`.
    pub fn to_json(&self) -> Value {
        let results: Vec<Value> = self
            .entries
            .iter()
            .map(|e| match &e.result {
                Ok((h, fp)) => json!({
                    "ref": e.reference,
                    "session": render::header_json(h),
                    "fingerprint": fp,
                }),
                Err(err) => {
                    let mut v = err.to_json();
                    v["ref"] = json!(e.reference);
                    v
                }
            })
            .collect();
        json!({ "results": results })
    }
}

impl Serialize for Batch {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.to_json().serialize(s)
    }
}
