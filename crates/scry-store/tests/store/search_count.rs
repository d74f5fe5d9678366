//! `count: page` (the default) against `count: all` on the corpus: a `sort: time` search that
//! reads sessions newest first only until its page is full shows the same sessions, hits and
//! cursors as the search that reads and counts every session; its totals are a lower bound,
//! flagged `total_exact: false` exactly when there is a next page, and equal the full totals
//! otherwise. Relevance order always counts every session. The index, `--no-index` and the
//! one-session-at-a-time search (team store) answer the same with either count.

use scry_store::{
    search_direct, search_direct_each, Area, Count, SearchRequest, SearchResponse, SortOrder,
};

use crate::corpus::indexed_corpus;

fn norm(mut r: SearchResponse) -> SearchResponse {
    for s in &mut r.sessions {
        s.header.persisted = false;
        s.header.live = true;
    }
    r.plan = scry_store::SearchPlan::Direct;
    r
}

/// Every page of `req` (index, direct and one-at-a-time answers compared on each).
fn pages(
    store: &scry_store::Store,
    direct: &[scry_model::Session],
    req: &SearchRequest,
) -> Vec<SearchResponse> {
    let mut out = Vec::new();
    let mut req = req.clone();
    loop {
        let a = norm(store.search(&req).unwrap());
        let b = search_direct(direct, &req).unwrap();
        assert_eq!(a, b, "index vs direct, {req:?}");
        let each = direct.iter().cloned().enumerate().map(Ok::<_, ()>);
        let c = search_direct_each(&req, each, |i| Ok::<_, ()>(direct[i].clone())).unwrap();
        assert_eq!(c, b, "one at a time vs direct, {req:?}");
        let next = a.next_cursor.clone();
        out.push(a);
        match next {
            Some(c) if out.len() < 400 => req.cursor = Some(c),
            _ => break,
        }
    }
    out
}

#[test]
fn page_count_shows_what_the_full_count_shows_and_bounds_its_totals() {
    let tmp = tempfile::tempdir().unwrap();
    let (store, direct, _) = indexed_corpus(tmp.path());
    let mut partial = 0;
    for (q, regex) in [
        ("the", false),
        ("error", false),
        ("file", false),
        ("a", false),
        ("会话", false),
        (r"\d{3,}", true),
        ("zzqx-not-there", false),
    ] {
        for area in [Area::Dialogue, Area::All] {
            for (limit, max_hits) in [(1, 1), (3, 2), (7, 5)] {
                let base = SearchRequest {
                    area,
                    limit,
                    max_hits,
                    sort: SortOrder::Time,
                    count: Count::Page,
                    ..if regex {
                        SearchRequest::regex(q)
                    } else {
                        SearchRequest::literal(q)
                    }
                };
                let page = pages(&store, &direct, &base);
                let all = pages(
                    &store,
                    &direct,
                    &SearchRequest {
                        count: Count::All,
                        ..base.clone()
                    },
                );
                assert_eq!(page.len(), all.len(), "{q}");
                let total = &all[0];
                for (p, a) in page.iter().zip(&all) {
                    // The page itself is the same: sessions, scores, hits, excerpts.
                    assert_eq!(p.sessions, a.sessions, "{q} {area:?} {limit}");
                    assert!(a.total_exact);
                    assert_eq!(
                        (a.total_matches, a.total_sessions),
                        (total.total_matches, total.total_sessions)
                    );
                    assert_eq!(p.total_exact, p.next_cursor.is_none(), "{q}");
                    if p.total_exact {
                        assert_eq!(
                            (p.total_matches, p.total_sessions),
                            (a.total_matches, a.total_sessions),
                            "{q}"
                        );
                    } else {
                        partial += 1;
                        assert!(p.total_matches <= a.total_matches, "{q}");
                        assert!(p.total_sessions <= a.total_sessions, "{q}");
                        // Counted: the sessions up to the next page's first one.
                        let shown: usize = page
                            .iter()
                            .take_while(|x| !std::ptr::eq(*x, p))
                            .map(|x| x.sessions.len())
                            .sum::<usize>()
                            + p.sessions.len();
                        assert_eq!(p.total_sessions as usize, shown + 1, "{q}");
                    }
                }
                // Relevance order counts every session whatever `count` says.
                let rel = SearchRequest {
                    sort: SortOrder::Relevance,
                    ..base.clone()
                };
                let r = norm(store.search(&rel).unwrap());
                assert!(r.total_exact);
                assert_eq!(
                    (r.total_matches, r.total_sessions),
                    (total.total_matches, total.total_sessions)
                );
            }
        }
    }
    assert!(partial > 20, "{partial} partial pages");
}
