//! One row of `list` ([`SessionRow`]: a session, the children folded under it, its size,
//! fingerprint, cost and failures) and its JSON. A leaf below `list` and its SQL page
//! (`list_sql`), which both build rows.

use std::collections::BTreeMap;

use scry_model::Header;
use serde_json::{json, Value};

use crate::render;

/// One row: a session and the children folded under it.
#[derive(Debug, Clone)]
pub struct SessionRow {
    /// The session's header.
    pub header: Header,
    /// Folded children by kind (`subagent: 2`).
    pub children: BTreeMap<&'static str, usize>,
    /// Size of the primary source in bytes.
    pub size: u64,
    /// The source fingerprint (S-Q3).
    pub fingerprint: String,
    /// The session's cost with the children folded under it (as `usage session` folds; the
    /// session's own in [`crate::usage::Cost::own`] when it folds any), from the index's usage
    /// ledger or, without an index, a parse; `None` when not known (then not in the JSON).
    pub cost: Option<crate::usage::Cost>,
    /// How many tool results of the session and its folded children failed (the ledger's
    /// count): `failures` in the JSON, the TUI's status column, the web list's mark. `None`
    /// when not known (then not in the JSON).
    pub failures: Option<u64>,
}

impl SessionRow {
    /// The JSON row: the header's fields, then `children`, `size`, `fingerprint`, `cost`
    /// (`{"usd": …, "unpriced": {model: tokens}, "own": {…}}`, as [`crate::usage::Cost`]: `usd`
    /// is `null` when no request was priced, never 0 for unpriced models; `own` only when
    /// children are folded) and `failures` (failed tool results, folded children included).
    pub fn to_json(&self) -> Value {
        let mut v = render::header_json(&self.header);
        if let Value::Object(map) = &mut v {
            map.insert("children".into(), json!(self.children));
            map.insert("size".into(), json!(self.size));
            map.insert("fingerprint".into(), json!(self.fingerprint));
            if let Some(c) = &self.cost {
                map.insert("cost".into(), json!(c));
            }
            if let Some(n) = self.failures {
                map.insert("failures".into(), json!(n));
            }
        }
        v
    }
}
