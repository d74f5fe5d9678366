//! A `sort: time` search that counts the page only ([`super::Count::Page`]): the sessions in
//! scope are read newest first ([`session_order`]), each searched whole (its candidate groups,
//! or every block when the query cannot be narrowed), until the page and the first session of
//! the next page have hits. A common word then reads a page's worth of sessions, not the
//! archive. [`super::engine::rank`] makes of these sessions exactly what it makes of every
//! session's hits, so the answer equals the full search's (and `--no-index`'s) with the same
//! request; the totals are those of the sessions read, flagged `total_exact: false`.

use std::collections::{HashMap, HashSet};

use rusqlite::params;

use super::collector::Collector;
use super::engine::{session_order, Plan, SessionMatch};
use super::{SearchPlan, SearchRequest, SortOrder};
use crate::block::{kind_bit, Decoded};
use crate::error::{Result, StoreError};
use crate::filter::SessionFilter;
use crate::revision::RevScope;
use crate::Store;

impl Store {
    /// The hits of the sessions in scope, read in time order until `offset + limit + 1`
    /// sessions have hits (self-echo marked and, unless `include_self`, not counted).
    pub(super) fn search_streamed(
        &self,
        req: &SearchRequest,
        plan: &Plan,
        within: Option<&HashSet<i64>>,
        filter: Option<&SessionFilter>,
        revs: &RevScope,
        full: HashSet<i64>,
    ) -> Result<(Vec<SessionMatch>, SearchPlan)> {
        let cur = |sid: i64| revs.get(&sid).map_or(sid, |r| r.0);
        let mask = plan.kinds.iter().fold(0i64, |m, k| m | kind_bit(*k));
        // Candidate sessions, with their candidate groups when trigrams narrow the query.
        let mut groups: HashMap<i64, Vec<i64>> = HashMap::new();
        let (sids, used): (Vec<i64>, SearchPlan) = if let Some(q) = &plan.matcher.grams {
            let ids = self.trigram_ids(q)?;
            let candidates = ids.len() as u64;
            let admitted = match filter {
                Some(f) => {
                    Some(self.filter_candidates(f, within, ids.iter().map(|id| cur(id >> 32)))?)
                }
                None => None,
            };
            let scope = admitted.as_ref().or(within);
            for id in ids {
                let sid = id >> 32;
                if !scope.is_none_or(|s| s.contains(&cur(sid))) {
                    continue;
                }
                let g = groups.entry(sid).or_default();
                // A session's own document (titles, artifacts) is read with the session.
                if (id & 0xFFFF_FFFF) as u32 != u32::MAX {
                    g.push(id);
                }
            }
            for g in groups.values_mut() {
                g.sort_unstable();
            }
            (
                groups.keys().copied().collect(),
                SearchPlan::Trigram { candidates },
            )
        } else {
            let admitted = match filter {
                Some(f) => Some(self.filter_sids(f, within)?),
                None => None,
            };
            let sids = match admitted.as_ref().or(within) {
                Some(s) => s
                    .iter()
                    .copied()
                    .chain(
                        revs.iter()
                            .filter(|(_, r)| s.contains(&r.0))
                            .map(|(sid, _)| *sid),
                    )
                    .collect(),
                None => self
                    .all_sids()?
                    .into_iter()
                    .chain(revs.keys().copied())
                    .collect(),
            };
            (sids, SearchPlan::Scan)
        };
        let narrowed = matches!(used, SearchPlan::Trigram { .. });
        // Their order: newest first (then uri, source, sid), as `rank` orders them.
        let mut meta = self.session_meta(sids.iter().copied().filter(|s| !revs.contains_key(s)))?;
        meta.extend(self.revision_meta(sids.iter().copied().filter(|s| revs.contains_key(s)))?);
        let mut order: Vec<SessionMatch> = meta
            .into_iter()
            .map(|(sid, (uri, updated, source))| SessionMatch {
                key: sid,
                uri,
                source,
                updated,
                hits: Vec::new(),
                summary: None,
            })
            .collect();
        let by_time = session_order(SortOrder::Time);
        order.sort_by(|a, b| by_time((a, 0.0), (b, 0.0)));
        let need = plan.offset.saturating_add(req.limit).saturating_add(1);
        let mut keep = Collector::new(revs, Some((req.max_hits, req.sort)));
        keep.full = full;
        let mut raw = Decoded::default();
        let (mut out, mut matched) = (Vec::new(), 0usize);
        for mut m in order {
            let sid = m.key;
            if !plan.session_fields.is_empty() {
                keep.add(sid, self.session_level(plan, sid)?);
            }
            if mask != 0 {
                match groups.get(&sid) {
                    Some(starts) => {
                        for start in starts {
                            self.read_blocks(plan, *start, true, mask, &mut raw, &mut keep)?;
                        }
                    }
                    None if narrowed => {}
                    None => {
                        let start = crate::codec::event_id_range(sid).0;
                        self.read_blocks(plan, start, false, mask, &mut raw, &mut keep)?;
                    }
                }
            }
            let Some(acc) = keep.take(sid) else {
                continue;
            };
            m.summary = (!acc.all).then_some((acc.count, acc.best));
            m.hits = acc.hits;
            if acc.all {
                self.mark_self(req, std::slice::from_mut(&mut m))?;
            }
            let shown = match m.summary {
                Some((n, _)) => n,
                None if req.include_self => m.hits.len(),
                None => m.hits.iter().filter(|h| !h.self_echo).count(),
            };
            out.push(m);
            if shown > 0 {
                matched += 1;
                if matched >= need {
                    break;
                }
            }
        }
        Ok((out, used))
    }

    /// Every stored session's sid.
    fn all_sids(&self) -> Result<Vec<i64>> {
        let fail = || StoreError::db("scope sessions");
        let mut st = self
            .conn
            .prepare_cached("SELECT sid FROM sessions")
            .map_err(fail())?;
        let rows = st
            .query_map(params![], |r| r.get::<_, i64>(0))
            .map_err(fail())?;
        rows.collect::<rusqlite::Result<_>>().map_err(fail())
    }
}
