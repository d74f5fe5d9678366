//! What `index --prune [--older-than WHEN] [--dry-run]` reports (issue 20): the archived
//! sessions (source gone, kept by the index) it removed, or would remove.

use scry_store::ArchivedRow;
use serde_json::{json, Value};

use crate::render;

/// The sessions a prune removed (or, with `dry_run`, would remove).
pub struct Pruned {
    /// The archived sessions chosen.
    pub rows: Vec<ArchivedRow>,
    /// Nothing was removed.
    pub dry_run: bool,
}

impl Pruned {
    /// `{"dry_run", "sessions": [{"uri", "path", "key", "events", "last_seen", "deleted"}]}`.
    pub fn to_json(&self) -> Value {
        let sessions: Vec<Value> = self
            .rows
            .iter()
            .map(|r| {
                json!({
                    "uri": r.uri,
                    "path": r.path,
                    "key": (!r.key.is_empty()).then_some(&r.key),
                    "events": r.events,
                    "last_seen": r.last_seen,
                    "deleted": r.deleted(),
                })
            })
            .collect();
        json!({ "dry_run": self.dry_run, "sessions": sessions })
    }

    /// One line of totals, then one line per session.
    pub fn text(&self) -> String {
        let n = self.rows.len();
        let what = render::count(n as u64, "session");
        let mut out = if self.dry_run {
            format!("would prune {what} whose source is gone (dry run: nothing removed)\n")
        } else {
            format!("pruned {what} whose source is gone\n")
        };
        for r in &self.rows {
            let mark = scry_query::archive::Mark {
                last_seen: r.last_seen,
                deleted: r.deleted(),
            };
            out.push_str(&format!("  {}  {}  {}\n", r.uri, mark.text(), r.path));
        }
        out
    }
}
