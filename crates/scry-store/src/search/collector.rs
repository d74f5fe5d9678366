//! Hits collected per session while a search reads its candidates: every hit where it is
//! needed (one session, the caller's own sessions for self-echo folding), else only the count,
//! the best score and the hits a page could show.

use std::collections::{HashMap, HashSet};

use super::engine::{hit_order, RawHit};
use super::SortOrder;
use crate::revision::RevScope;

/// The hits of one session as they are collected.
pub(crate) struct Acc {
    /// Every hit (`all`), else the best `max_hits` in the shown order.
    pub hits: Vec<RawHit>,
    /// Hits found.
    pub count: usize,
    /// The best hit's score.
    pub best: f64,
    /// `hits` holds every hit.
    pub all: bool,
}

/// Collects hits per session: every hit within one session and in the caller's own sessions
/// (self-echo folding needs them), else only the count, the best score and the hits a page
/// could show, so a common word does not keep a `RawHit` per match in memory.
pub(crate) struct Collector<'a> {
    pub by_sid: HashMap<i64, Acc>,
    /// `(max_hits, order)` of the shown hits; `None`: keep every hit.
    top: Option<(usize, SortOrder)>,
    /// Sessions that keep every hit.
    pub full: HashSet<i64>,
    revs: &'a RevScope,
}

impl<'a> Collector<'a> {
    pub fn new(revs: &'a RevScope, top: Option<(usize, SortOrder)>) -> Self {
        Collector {
            by_sid: HashMap::new(),
            top,
            full: HashSet::new(),
            revs,
        }
    }

    /// Adds hits of session `sid`. A revision's hits on the events it shares with its
    /// successor are the successor's: left out.
    pub fn add(&mut self, sid: i64, hits: Vec<RawHit>) {
        if hits.is_empty() {
            return;
        }
        let common = self.revs.get(&sid).map(|r| r.2);
        let top = self.top.filter(|_| !self.full.contains(&sid));
        let acc = self.by_sid.entry(sid).or_insert_with(|| Acc {
            hits: Vec::new(),
            count: 0,
            best: f64::MIN,
            all: top.is_none(),
        });
        for h in hits {
            if common.is_some_and(|c| h.seq.is_none_or(|q| q < c)) {
                continue;
            }
            acc.count += 1;
            acc.best = acc.best.max(h.score);
            acc.hits.push(h);
            if let Some((k, sort)) = top {
                if acc.hits.len() >= k.saturating_mul(2).max(16) {
                    acc.hits.sort_by(hit_order(sort));
                    acc.hits.truncate(k);
                }
            }
        }
    }

    /// Drops sessions left without hits and puts kept hits in the shown order.
    pub(crate) fn finish(&mut self) {
        self.by_sid.retain(|_, a| a.count > 0);
        for a in self.by_sid.values_mut() {
            settle(self.top, a);
        }
    }

    /// The hits of session `sid` (in the shown order), when it has any.
    pub fn take(&mut self, sid: i64) -> Option<Acc> {
        let mut a = self.by_sid.remove(&sid).filter(|a| a.count > 0)?;
        settle(self.top, &mut a);
        Some(a)
    }
}

/// Every hit in position order, or the best `max_hits` in the shown order.
fn settle(top: Option<(usize, SortOrder)>, a: &mut Acc) {
    match top {
        Some((k, sort)) if !a.all => {
            a.hits.sort_by(hit_order(sort));
            a.hits.truncate(k);
        }
        _ => a
            .hits
            .sort_by_key(|h| (h.seq.map_or(0, |s| i64::from(s) + 1), h.field)),
    }
}
