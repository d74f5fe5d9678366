//! Lineage over session headers (SPEC S-Q6): ancestors nearest first, a forest of
//! descendants, and either the root or the first parent id that is not among the headers —
//! never both.
//!
//! A session's parent is [`scry_model::Header::parent`], else the target of its first
//! [`scry_model::Header::lineage`] link (subagent_of, forked_from, resumed_from,
//! compacted_into all point at the earlier session). Ids are native ids; a parent is looked up
//! in the same provider first, then in any. Cycles are cut (each session visited once).

use std::collections::{BTreeMap, HashSet};

use scry_model::Header;
use serde::{Deserialize, Serialize};

/// The parent id a header names.
pub fn parent_of(h: &Header) -> Option<&str> {
    h.parent
        .as_deref()
        .or_else(|| h.lineage.first().map(|l| l.target.as_str()))
        .filter(|p| !p.is_empty() && *p != h.id)
}

/// One descendant with its own descendants.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TraceNode {
    /// Session uri.
    pub uri: String,
    /// Native id.
    pub id: String,
    /// Its children.
    pub children: Vec<TraceNode>,
}

/// The lineage of one session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Trace {
    /// The traced session's uri.
    pub uri: String,
    /// Ancestors' uris, nearest first.
    pub ancestors: Vec<String>,
    /// Descendants.
    pub descendants: Vec<TraceNode>,
    /// The root's uri when the parent chain is complete (the session itself when it has no
    /// parent). Exclusive with `unresolved_parent`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub root: Option<String>,
    /// The first parent id not among the headers. Exclusive with `root`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unresolved_parent: Option<String>,
}

/// Lineage lookups over a set of headers.
pub struct Lineages<'a> {
    headers: &'a [Header],
    by_id: BTreeMap<&'a str, Vec<usize>>,
    children: BTreeMap<usize, Vec<usize>>,
}

impl<'a> Lineages<'a> {
    /// Indexes `headers`.
    pub fn new(headers: &'a [Header]) -> Self {
        let mut by_id: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
        for (i, h) in headers.iter().enumerate() {
            by_id.entry(h.id.as_str()).or_default().push(i);
        }
        let mut l = Lineages {
            headers,
            by_id,
            children: BTreeMap::new(),
        };
        for i in 0..headers.len() {
            if let Some(p) = l.parent_index(i) {
                l.children.entry(p).or_default().push(i);
            }
        }
        for kids in l.children.values_mut() {
            kids.sort_by(|a, b| {
                let (ha, hb) = (&headers[*a], &headers[*b]);
                ha.created
                    .cmp(&hb.created)
                    .then_with(|| ha.uri.cmp(&hb.uri))
            });
        }
        l
    }

    /// The header index for `id` (a native id or a uri).
    pub fn find(&self, id: &str) -> Option<usize> {
        if let Some(i) = self.headers.iter().position(|h| h.uri == id) {
            return Some(i);
        }
        self.by_id.get(id).and_then(|v| v.first().copied())
    }

    fn parent_index(&self, i: usize) -> Option<usize> {
        let h = self.headers.get(i)?;
        let p = parent_of(h)?;
        let cands = self.by_id.get(p)?;
        cands
            .iter()
            .copied()
            .find(|&c| {
                self.headers
                    .get(c)
                    .is_some_and(|x| x.provider == h.provider)
            })
            .or_else(|| cands.first().copied())
            .filter(|&c| c != i)
    }

    /// The lineage of `id`, or `None` when `id` is not among the headers.
    pub fn trace(&self, id: &str) -> Option<Trace> {
        let start = self.find(id)?;
        let mut ancestors = Vec::new();
        let mut seen: HashSet<usize> = HashSet::from([start]);
        let mut cur = start;
        let mut unresolved = None;
        while let Some(pid) = self.headers.get(cur).and_then(parent_of) {
            match self.parent_index(cur) {
                Some(p) if seen.insert(p) => {
                    ancestors.push(p);
                    cur = p;
                }
                Some(_) => break, // a cycle: stop at the last new session
                None => {
                    unresolved = Some(pid.to_string());
                    break;
                }
            }
        }
        let root = if unresolved.is_none() {
            self.headers.get(cur).map(|h| h.uri.clone())
        } else {
            None
        };
        let mut visited = HashSet::from([start]);
        Some(Trace {
            uri: self
                .headers
                .get(start)
                .map(|h| h.uri.clone())
                .unwrap_or_default(),
            ancestors: ancestors
                .iter()
                .filter_map(|&i| self.headers.get(i).map(|h| h.uri.clone()))
                .collect(),
            descendants: self.forest(start, &mut visited),
            root,
            unresolved_parent: unresolved,
        })
    }

    fn forest(&self, i: usize, visited: &mut HashSet<usize>) -> Vec<TraceNode> {
        let mut out = Vec::new();
        for &c in self.children.get(&i).map(Vec::as_slice).unwrap_or(&[]) {
            if !visited.insert(c) {
                continue;
            }
            let Some(h) = self.headers.get(c) else {
                continue;
            };
            out.push(TraceNode {
                uri: h.uri.clone(),
                id: h.id.clone(),
                children: self.forest(c, visited),
            });
        }
        out
    }
}

/// Shorthand for `Lineages::new(headers).trace(id)`.
pub fn trace(headers: &[Header], id: &str) -> Option<Trace> {
    Lineages::new(headers).trace(id)
}

#[cfg(test)]
mod tests {
    use super::*;
    use scry_model::{Lineage, LineageKind, ProviderId};

    fn h(id: &str, parent: Option<&str>) -> Header {
        let mut h = Header::new(ProviderId::Claude, id);
        h.parent = parent.map(str::to_string);
        h
    }

    #[test]
    fn ancestors_descendants_and_root() {
        let mut fork = h("d", None);
        fork.lineage.push(Lineage {
            kind: LineageKind::ForkedFrom,
            target: "b".into(),
            evidence: "session_meta.forked_from_id".into(),
        });
        let hs = vec![
            h("a", None),
            h("b", Some("a")),
            h("c", Some("b")),
            fork,
            h("e", Some("c")),
        ];
        let t = trace(&hs, "b").unwrap_or_else(|| panic!("b is known"));
        assert_eq!(t.ancestors, vec!["claude:a"]);
        assert_eq!(t.root.as_deref(), Some("claude:a"));
        assert_eq!(t.unresolved_parent, None);
        let kids: Vec<&str> = t.descendants.iter().map(|n| n.id.as_str()).collect();
        assert_eq!(kids, vec!["c", "d"]);
        assert_eq!(t.descendants[0].children[0].id, "e");
        let te = trace(&hs, "claude:e").unwrap_or_else(|| panic!("e is known"));
        assert_eq!(te.ancestors, vec!["claude:c", "claude:b", "claude:a"]);
        let ta = trace(&hs, "a").unwrap_or_else(|| panic!("a is known"));
        assert_eq!(ta.root.as_deref(), Some("claude:a"));
    }

    #[test]
    fn unresolved_parent_excludes_root_and_cycles_end() {
        let hs = vec![h("x", Some("gone")), h("y", Some("x"))];
        let t = trace(&hs, "y").unwrap_or_else(|| panic!("y is known"));
        assert_eq!(t.ancestors, vec!["claude:x"]);
        assert_eq!(t.root, None);
        assert_eq!(t.unresolved_parent.as_deref(), Some("gone"));
        let cyc = vec![h("p", Some("q")), h("q", Some("p"))];
        let t = trace(&cyc, "p").unwrap_or_else(|| panic!("p is known"));
        assert_eq!(t.ancestors, vec!["claude:q"]);
        assert!(t.root.is_some() ^ t.unresolved_parent.is_some());
        assert!(trace(&cyc, "nope").is_none());
    }
}
