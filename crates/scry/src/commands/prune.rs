//! What `index --prune [--older-than WHEN] [--dry-run]` reports (issue 20): the archived
//! sessions (source gone, kept by the index) it removed, or would remove, and the earlier
//! revisions of rewritten sources (`--older-than` by when each was replaced).

use scry_model::Timestamp;
use scry_store::{ArchivedRow, RevisionRow};
use serde::Serialize;

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

/// `prune --json` (also `index --prune --json`'s `prune`).
#[derive(Serialize)]
pub struct PrunedJson<'a> {
    dry_run: bool,
    sessions: Vec<PrunedSession<'a>>,
    revisions: Vec<PrunedRevision<'a>>,
}

/// One pruned archived session.
#[derive(Serialize)]
struct PrunedSession<'a> {
    uri: &'a str,
    path: &'a str,
    key: Option<&'a str>,
    events: u32,
    last_seen: Option<Timestamp>,
    deleted: Option<Timestamp>,
}

/// One pruned earlier revision.
#[derive(Serialize)]
struct PrunedRevision<'a> {
    path: &'a str,
    key: Option<&'a str>,
    revision: u32,
    events: u32,
    replaced_at: Option<Timestamp>,
}

impl Pruned {
    /// `{"dry_run", "sessions": [{"uri", "path", "key", "events", "last_seen", "deleted"}],
    /// "revisions": [{"path", "key", "revision", "events", "replaced_at"}]}`.
    pub fn json(&self) -> PrunedJson<'_> {
        fn key(k: &str) -> Option<&str> {
            (!k.is_empty()).then_some(k)
        }
        PrunedJson {
            dry_run: self.dry_run,
            sessions: self
                .rows
                .iter()
                .map(|r| PrunedSession {
                    uri: &r.uri,
                    path: &r.path,
                    key: key(&r.key),
                    events: r.events,
                    last_seen: r.last_seen,
                    deleted: r.deleted(),
                })
                .collect(),
            revisions: self
                .revisions
                .iter()
                .map(|r| PrunedRevision {
                    path: &r.path,
                    key: key(&r.key),
                    revision: r.n,
                    events: r.events,
                    replaced_at: r.replaced_at,
                })
                .collect(),
        }
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
