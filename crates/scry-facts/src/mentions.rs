//! Candidate facts (S-F1): file paths only mentioned in dialogue text (`text:path-mention`).
//! They never enter the files ledger — a path gets there only when a write is proven — and a
//! path the ledger already holds is not repeated here. For a "resources" section that says
//! what was talked about, labelled as candidates.
//!
//! A mention is a path-like token in user or assistant text: it holds a `/` (and is not a URL,
//! a fraction like `1/2`, or an option) or is a bare name with a real extension
//! ([`crate::shell::ext`]), so `r.source` or `a.name` never count.

use std::collections::{BTreeMap, HashSet};
use std::sync::LazyLock;

use regex::Regex;
use scry_model::{EventKind, Session};
use serde::{Deserialize, Serialize};

use crate::files::FilesLedger;
use crate::paths::normalize;
use crate::provenance::{Origin, Provenance};
use crate::shell::ext::has_real_extension;

/// One mentioned path.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mention {
    /// The path as written.
    pub path: String,
    /// How many dialogue events mention it.
    pub count: usize,
    /// `candidate`, `text:path-mention`, the first mention's evidence.
    #[serde(flatten)]
    pub origin: Origin,
}

static TOKEN: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"[~A-Za-z0-9_./@+-]*[A-Za-z0-9_]\.?[A-Za-z0-9_]*").ok());

fn is_path_like(t: &str) -> bool {
    if t.len() < 3 || t.contains("://") || t.starts_with('-') || t.starts_with('@') {
        return false;
    }
    let name = t.rsplit('/').next().unwrap_or(t);
    if t.contains('/') {
        let digits_only = t
            .chars()
            .all(|c| c.is_ascii_digit() || c == '/' || c == '.');
        return !digits_only && !name.is_empty() && !t.contains("//");
    }
    has_real_extension(name)
}

/// Paths mentioned in the dialogue of `session` and not in `ledger`, in order of first mention.
pub fn path_mentions(session: &Session, ledger: &FilesLedger) -> Vec<Mention> {
    let Some(re) = TOKEN.as_ref() else {
        return Vec::new();
    };
    let written: HashSet<String> = ledger
        .writes
        .iter()
        .flat_map(|w| [w.path.clone(), w.display.clone()])
        .collect();
    let mut order: Vec<String> = Vec::new();
    let mut found: BTreeMap<String, Mention> = BTreeMap::new();
    for e in &session.events {
        if !matches!(e.kind, EventKind::User | EventKind::Assistant) {
            continue;
        }
        let mut in_event: HashSet<String> = HashSet::new();
        for m in re.find_iter(&e.text) {
            let t = m.as_str().trim_end_matches(['.', ',', ':', ';']);
            if !is_path_like(t) || !in_event.insert(t.to_string()) {
                continue;
            }
            let norm = normalize(t);
            if written.contains(t) || written.contains(&norm) {
                continue;
            }
            match found.get_mut(t) {
                Some(x) => x.count += 1,
                None => {
                    order.push(t.to_string());
                    found.insert(
                        t.to_string(),
                        Mention {
                            path: t.to_string(),
                            count: 1,
                            origin: Origin::new(Provenance::Candidate, "text:path-mention", e),
                        },
                    );
                }
            }
        }
    }
    order.into_iter().filter_map(|p| found.remove(&p)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::files::files_ledger;
    use crate::pairing::testkit::Script;
    use scry_model::{Header, ProviderId};
    use serde_json::json;

    #[test]
    fn mentions_are_candidates_and_skip_written_files() {
        let mut s = Script::default();
        s.user("Look at src/main.rs and docs/plan.md, not r.source or a.name; see https://x.io/a.md, 1/2.")
            .call("Write", "w", json!({"file_path": "/p/docs/plan.md"}))
            .result("Write", "w", "ok", None, Some(false))
            .assistant("Updated docs/plan.md; src/main.rs needs `Cargo.toml` too.");
        let mut h = Header::new(ProviderId::Claude, "x");
        h.cwd = Some("/p".into());
        let mut sess = Session::new(h);
        sess.events = s.events;
        let ledger = files_ledger(&sess);
        let m = path_mentions(&sess, &ledger);
        let got: Vec<(&str, usize)> = m.iter().map(|x| (x.path.as_str(), x.count)).collect();
        assert_eq!(got, vec![("src/main.rs", 2), ("Cargo.toml", 1)]);
        assert!(m
            .iter()
            .all(|x| x.origin.provenance == Provenance::Candidate));
        assert_eq!(m[0].origin.extractor, "text:path-mention");
        assert!(ledger
            .writes
            .iter()
            .all(|w| w.origin.provenance != Provenance::Candidate));
    }
}
