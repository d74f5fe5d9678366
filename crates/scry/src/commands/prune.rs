//! What `index --prune [--older-than WHEN] [--dry-run]` reports (issue 20): the archived
//! sessions (source gone, kept by the index) it removed, or would remove, and the earlier
//! revisions of rewritten sources (`--older-than` by when each was replaced).

use scry_store::{ArchivedRow, RevisionRow};
use serde_json::{json, Value};

use crate::render;

/// The sessions a prune removed (or, with `dry_run`, would remove).
pub struct Pruned {
    /// The archived sessions chosen.
    pub rows: Vec<ArchivedRow>,
    /// The earlier revisions chosen.
    pub revisions: Vec<RevisionRow>,
    /// Nothing was removed.
    pub dry_run: bool,
}

impl Pruned {
    /// `{"dry_run", "sessions": [{"uri", "path", "key", "events", "last_seen", "deleted"}],
    /// "revisions": [{"path", "key", "revision", "events", "replaced_at"}]}`.
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
        let revisions: Vec<Value> = self
            .revisions
            .iter()
            .map(|r| {
                json!({
                    "path": r.path,
                    "key": (!r.key.is_empty()).then_some(&r.key),
                    "revision": r.n,
                    "events": r.events,
                    "replaced_at": r.replaced_at,
                })
            })
            .collect();
        json!({ "dry_run": self.dry_run, "sessions": sessions, "revisions": revisions })
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
        if !self.revisions.is_empty() {
            let what = render::count(self.revisions.len() as u64, "earlier revision");
            out.push_str(&if self.dry_run {
                format!("would prune {what} of rewritten sources\n")
            } else {
                format!("pruned {what} of rewritten sources\n")
            });
            for r in &self.revisions {
                let when = r
                    .replaced_at
                    .map_or_else(String::new, |t| t.strftime("%Y-%m-%d").to_string());
                out.push_str(&format!(
                    "  revision {}  replaced {when}  {} events  {}\n",
                    r.n, r.events, r.path
                ));
            }
        }
        out
    }
}
