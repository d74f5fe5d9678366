//! [`search_direct`](super::search_direct) over sessions read one at a time, for a back end
//! whose sessions live elsewhere (the team store on PostgreSQL): each session is matched and
//! dropped, keeping only what ranking needs — its hit count, best score, self-echo count and the
//! hits it could show (`max_hits`, in the shown order) — and only the best `offset + limit`
//! sessions; the page's sessions are read again to show their hits. Memory is bounded by the
//! largest session and the page, not by the number of candidates. The answer equals
//! `search_direct` over the same sessions in the same order (keys are the positions).

use scry_model::Session;

use super::engine::{
    counts_page, direct_hits, direct_show, hit_order, make_cursor, session_order, Plan,
    SessionMatch,
};
use super::{SearchPlan, SearchRequest, SearchResponse, SessionHits};
use crate::codec::time_to_i;
use crate::error::StoreError;

/// Why [`search_direct_each`] failed: the request (a bad regex, cursor…) or reading a session.
#[derive(Debug)]
pub enum EachError<E> {
    /// The request is invalid, as [`super::search_direct`] reports it.
    Search(StoreError),
    /// Reading a session failed.
    Read(E),
}

/// A matched session, reduced to what ranking and showing need.
struct Kept {
    m: SessionMatch,
    best: f64,
    count: usize,
    more: bool,
    /// Self-echo hits folded away in this session.
    folded: u64,
}

/// Searches the sessions `sessions` yields as `(position, session)` (positions increasing from
/// 0, as the slice `search_direct` would take), reading a page's session again by its position
/// with `reread`.
pub fn search_direct_each<E>(
    req: &SearchRequest,
    sessions: impl Iterator<Item = Result<(usize, Session), E>>,
    mut reread: impl FnMut(usize) -> Result<Session, E>,
) -> Result<SearchResponse, EachError<E>> {
    let plan = Plan::new(req, false).map_err(EachError::Search)?;
    let keep = plan.offset.saturating_add(req.limit);
    // With `count: page` in time order the totals stop at the first session of the next page.
    let partial = counts_page(req);
    let keep_n = keep + usize::from(partial);
    let mut folded_only: Vec<Kept> = Vec::new();
    let order = session_order(req.sort);
    let by_order = |a: &Kept, b: &Kept| order((&a.m, a.best), (&b.m, b.best));
    let (mut kept, mut matched, mut total_matches, mut folded) = (Vec::new(), 0usize, 0u64, 0u64);
    for item in sessions {
        let (pos, s) = item.map_err(EachError::Read)?;
        if !req.filter.matches(&s.header) {
            continue;
        }
        let mut hits = direct_hits(&plan, req, &s);
        let mut own = 0u64;
        if !req.include_self {
            let before = hits.len();
            hits.retain(|h| !h.self_echo);
            own = (before - hits.len()) as u64;
            folded += own;
        }
        let session = |hits| SessionMatch {
            key: pos as i64,
            uri: s.header.uri.clone(),
            source: s
                .header
                .sources
                .first()
                .map(|p| p.to_string_lossy().into_owned())
                .unwrap_or_default(),
            updated: s.header.updated.map(time_to_i),
            hits,
            summary: None,
        };
        if hits.is_empty() {
            if partial && own > 0 {
                folded_only.push(Kept {
                    m: session(Vec::new()),
                    best: f64::MIN,
                    count: 0,
                    more: false,
                    folded: own,
                });
            }
            continue;
        }
        matched += 1;
        let count = hits.len();
        total_matches += count as u64;
        let best = hits.iter().map(|h| h.score).fold(f64::MIN, f64::max);
        hits.sort_by(hit_order(req.sort));
        hits.truncate(req.max_hits);
        kept.push(Kept {
            m: SessionMatch {
                summary: Some((count, best)),
                ..session(hits)
            },
            best,
            count,
            more: count > req.max_hits,
            folded: own,
        });
        if kept.len() > keep_n.saturating_mul(2).max(64) {
            kept.sort_by(by_order);
            kept.truncate(keep_n);
        }
    }
    kept.sort_by(by_order);
    kept.truncate(keep_n);
    let mut total_exact = true;
    let mut total_sessions = matched as u64;
    if partial && kept.len() > keep {
        // As `rank`: the sessions up to the next page's first one, in order.
        let last = &kept[keep];
        total_matches = kept.iter().map(|k| k.count as u64).sum();
        folded = kept.iter().map(|k| k.folded).sum::<u64>()
            + folded_only
                .iter()
                .filter(|f| by_order(f, last) != std::cmp::Ordering::Greater)
                .map(|f| f.folded)
                .sum::<u64>();
        total_sessions = kept.len() as u64;
        total_exact = false;
        kept.truncate(keep);
    }
    let next_cursor = (matched > keep).then(|| make_cursor(keep, plan.binding));
    let mut out = Vec::new();
    for k in kept.into_iter().skip(plan.offset) {
        let s = reread(usize::try_from(k.m.key).unwrap_or(0)).map_err(EachError::Read)?;
        out.push(SessionHits {
            hits: k.m.hits.iter().map(|h| direct_show(req, &s, h)).collect(),
            header: s.header,
            score: k.best,
            hit_count: k.count,
            has_more_hits: k.more,
        });
    }
    Ok(SearchResponse {
        sessions: out,
        total_matches,
        total_sessions,
        self_folded: folded,
        total_exact,
        next_cursor,
        plan: SearchPlan::Direct,
    })
}
