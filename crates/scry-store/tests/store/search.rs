//! Search (S-S1…S-S6): the index answers exactly what a direct scan of the parsed sessions
//! answers (same sessions, hits, ranges, excerpts, order), on the corpus and on generated
//! sessions; no scan budget; CJK substrings of any length; query text is data; cursors; self-echo.

use scry_model::{ErrorCode, EventKind, ProviderId};
use scry_source::Source;
use scry_store::{
    search_direct, search_direct_each, search_one_direct, search_session_direct, Area, Caller,
    Count, SearchMode, SearchRequest, SearchResponse, SessionFilter, SortOrder, Store,
    TermsOperator, TimeRange,
};
use serde_json::json;

use crate::corpus::{as_parsed, indexed_corpus};
use crate::lines::{call, line, result, Lines};

/// The response with index-owned header fields as a parse has them, without the plan.
fn norm(mut r: SearchResponse) -> SearchResponse {
    for s in &mut r.sessions {
        s.header.persisted = false;
        s.header.live = true;
    }
    r.plan = scry_store::SearchPlan::Direct;
    r
}

fn same(store: &Store, direct: &[scry_model::Session], req: &SearchRequest) -> SearchResponse {
    let a = norm(store.search(req).unwrap());
    let b = search_direct(direct, req).unwrap();
    assert_eq!(a, b, "request {req:?}");
    assert_eq!(streamed(direct, req), b, "streamed, request {req:?}");
    one_by_one(direct, req);
    a
}

/// `search_one_direct` of each session, its events streamed, equals `search_direct` of that
/// session alone; it reads the session a second time only to show event hits.
fn one_by_one(direct: &[scry_model::Session], req: &SearchRequest) {
    for s in direct {
        let reads = std::cell::Cell::new(0usize);
        let r = search_one_direct(req, |on_event| {
            reads.set(reads.get() + 1);
            for e in &s.events {
                on_event(e.clone());
            }
            Some(s.header.clone())
        })
        .unwrap();
        let b = search_direct(std::slice::from_ref(s), req).unwrap();
        let shows_events = b
            .sessions
            .iter()
            .flat_map(|x| &x.hits)
            .any(|h| h.event.is_some());
        assert_eq!(r, b, "one session {}, request {req:?}", s.header.uri);
        assert_eq!(
            reads.get(),
            1 + usize::from(shows_events),
            "{}",
            s.header.uri
        );
    }
    // A session that cannot be read answers as a search over none.
    let none = search_one_direct(req, |_| None).unwrap();
    assert_eq!(none, search_direct(&[], req).unwrap());
}

/// `search_direct_each` over `direct` read one session at a time (what the team store does).
fn streamed(direct: &[scry_model::Session], req: &SearchRequest) -> SearchResponse {
    let reads = std::cell::Cell::new(0usize);
    let each = direct.iter().cloned().enumerate().map(|item| {
        reads.set(reads.get() + 1);
        Ok::<_, ()>(item)
    });
    let r = search_direct_each(req, each, |i| Ok::<_, ()>(direct[i].clone()))
        .map_err(|e| format!("{e:?}"))
        .unwrap();
    assert_eq!(reads.get(), direct.len());
    r
}

fn requests() -> Vec<SearchRequest> {
    let mut v = Vec::new();
    for q in [
        "the",
        "The",
        "error",
        "ls",
        "a",
        "会话",
        "会",
        "跨会话检索",
        "src/",
        "\"",
        "*",
        "NEAR",
        "OR",
        "-",
        "(",
        "a OR b",
        "file",
        "README",
        "Warmup",
        "test",
    ] {
        for area in [Area::Dialogue, Area::Tools, Area::All, Area::Artifacts] {
            v.push(SearchRequest {
                area,
                limit: 1000,
                max_hits: 10_000,
                ..SearchRequest::literal(q)
            });
        }
        v.push(SearchRequest {
            case_sensitive: true,
            area: Area::All,
            limit: 1000,
            ..SearchRequest::literal(q)
        });
        v.push(SearchRequest {
            kinds: vec![EventKind::Thinking],
            limit: 1000,
            ..SearchRequest::literal(q)
        });
        v.push(SearchRequest {
            sort: SortOrder::Time,
            area: Area::All,
            limit: 7,
            ..SearchRequest::literal(q)
        });
    }
    for re in [
        r"err(or)?s?\b",
        r"\d{3,}",
        r"src/.*\.rs",
        "(foo|bar)",
        r"(?i)ERROR:\s+\w+",
        ".",
        "README\\.md",
        "会话|检索",
    ] {
        v.push(SearchRequest {
            area: Area::All,
            limit: 1000,
            max_hits: 10_000,
            ..SearchRequest::regex(re)
        });
        v.push(SearchRequest {
            area: Area::Tools,
            case_sensitive: true,
            ..SearchRequest::regex(re)
        });
    }
    for (terms, op) in [
        (vec!["file", "read"], TermsOperator::And),
        (vec!["file", "read"], TermsOperator::Or),
        (vec!["error", "会话"], TermsOperator::Or),
        (vec!["a", "the"], TermsOperator::And),
    ] {
        let terms: Vec<String> = terms.into_iter().map(String::from).collect();
        v.push(SearchRequest {
            area: Area::All,
            limit: 1000,
            ..SearchRequest::terms(terms.clone(), op)
        });
        v.push(SearchRequest {
            area: Area::Dialogue,
            ..SearchRequest::terms(terms, op)
        });
    }
    v
}

#[test]
fn corpus_search_with_the_index_equals_the_direct_scan() {
    let tmp = tempfile::tempdir().unwrap();
    let (store, direct, _) = indexed_corpus(tmp.path());
    let mut nonzero = 0;
    let mut narrowed = 0;
    for req in requests() {
        let r = same(&store, &direct, &req);
        if r.total_matches > 0 {
            nonzero += 1;
        }
        if matches!(
            store.search(&req).unwrap().plan,
            scry_store::SearchPlan::Trigram { .. }
        ) {
            narrowed += 1;
        }
        // total_matches is the true total: the sum of every session's hits.
        let all = SearchRequest {
            limit: 1000,
            max_hits: 10_000,
            cursor: None,
            ..req.clone()
        };
        let full = store.search(&all).unwrap();
        assert_eq!(
            full.total_matches,
            full.sessions
                .iter()
                .map(|s| s.hit_count as u64)
                .sum::<u64>()
        );
    }
    eprintln!(
        "{} requests, {nonzero} with hits, {narrowed} narrowed by trigrams",
        requests().len()
    );
    assert!(nonzero > 40);
    assert!(narrowed > 20);
    // Session filters: provider, scope, since, session.
    let some = &direct[direct.len() / 2].header;
    let filters = [
        SessionFilter {
            providers: vec![ProviderId::Claude, ProviderId::Codex],
            ..Default::default()
        },
        SessionFilter {
            cwd_under: some.cwd.clone(),
            ..Default::default()
        },
        SessionFilter {
            updated: TimeRange {
                from: some.updated,
                to: None,
            },
            ..Default::default()
        },
        SessionFilter {
            uris: vec![some.uri.clone()],
            ..Default::default()
        },
    ];
    for filter in filters {
        for q in ["the", "a", "会话"] {
            let req = SearchRequest {
                filter: filter.clone(),
                area: Area::All,
                limit: 1000,
                ..SearchRequest::literal(q)
            };
            let r = same(&store, &direct, &req);
            assert!(r
                .sessions
                .iter()
                .all(|s| filter
                    .matches(&as_parsed(scry_model::Session::new(s.header.clone())).header)));
        }
    }
}

/// N generated sessions in the test format: each holds a common word, its own number, CJK text,
/// injection-looking text and a tool call.
fn generated(n: usize) -> (tempfile::TempDir, Lines, Vec<scry_model::Session>, Store) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("src");
    std::fs::create_dir_all(&dir).unwrap();
    for i in 0..n {
        let mut body = line(
            "user",
            &format!("please find the haystack number {i} 跨会话检索"),
            1_700_000_000 + i as i64,
        );
        body += &line(
            "thinking",
            "secret thoughts about the haystack",
            1_700_000_001 + i as i64,
        );
        body += &call(
            "Bash",
            json!({"command": format!("grep -n needle-{i} src/main.rs")}),
            &format!("c{i}"),
            1_700_000_002 + i as i64,
        );
        body += &result(
            "Bash",
            &format!("src/main.rs:{i}: let needle = \"NEAR(a b)\" OR -x * (y"),
            &format!("c{i}"),
            1_700_000_003 + i as i64,
        );
        body += &line(
            "assistant",
            &format!("Found it: Haystack {i}. 会话 done. ſtraße Kelvin"),
            1_700_000_004 + i as i64,
        );
        std::fs::write(dir.join(format!("g{i:04}.jsonl")), body).unwrap();
    }
    let p = Lines::new(&dir);
    let mut store = Store::open(&tmp.path().join("index.db")).unwrap();
    store
        .refresh(
            &p.boxed(),
            &p.files(),
            &scry_store::RefreshOptions::complete(),
            &mut |_| true,
        )
        .unwrap();
    let sources = p.boxed();
    let direct: Vec<_> = p
        .files()
        .iter()
        .map(|f| sources[0].parse(f).unwrap())
        .collect();
    (tmp, p, direct, store)
}

#[test]
fn every_generated_session_is_searched_no_budget() {
    let n = 300;
    let (_tmp, _p, direct, store) = generated(n);
    for q in ["haystack", "会", "会话", "跨会话检索", "Haystack 1"] {
        let req = SearchRequest {
            limit: 1000,
            ..SearchRequest::literal(q)
        };
        let r = same(&store, &direct, &req);
        if q != "Haystack 1" {
            assert_eq!(r.total_sessions as usize, n, "{q}");
            assert_eq!(r.sessions.len(), n);
        }
    }
    // 1- and 2-character CJK queries find 「跨会话检索」 in every prompt.
    let r = store
        .search(&SearchRequest {
            limit: 1000,
            kinds: vec![EventKind::User],
            ..SearchRequest::literal("会话")
        })
        .unwrap();
    assert_eq!(r.total_matches as usize, n);
    for s in &r.sessions {
        let h = &s.hits[0];
        let text = &store.session(&h.uri).unwrap().events[h.event.unwrap() as usize - 1].text;
        let chars: Vec<char> = text.chars().collect();
        let [a, b] = h.ranges[0];
        assert_eq!(chars[a..b].iter().collect::<String>(), "会话");
        let ex: Vec<char> = h.excerpt.chars().collect();
        assert_eq!(
            ex[a - h.excerpt_start..b - h.excerpt_start]
                .iter()
                .collect::<String>(),
            "会话"
        );
    }
    // Case-insensitive by default, Unicode too: ſ and the Kelvin sign K fold to s and k.
    let r = same(
        &store,
        &direct,
        &SearchRequest {
            limit: 1000,
            ..SearchRequest::literal("STRASSE")
        },
    );
    assert_eq!(
        r.total_sessions, 0,
        "full case folding (ß → ss) is not simple folding"
    );
    let r = same(
        &store,
        &direct,
        &SearchRequest {
            limit: 1000,
            ..SearchRequest::literal("strasse")
        },
    );
    assert_eq!(r.total_sessions, 0);
    let r = same(
        &store,
        &direct,
        &SearchRequest {
            limit: 1000,
            ..SearchRequest::literal("STRAßE")
        },
    );
    assert_eq!(r.total_sessions as usize, n);
    let r = same(
        &store,
        &direct,
        &SearchRequest {
            limit: 1000,
            ..SearchRequest::literal("kelvin")
        },
    );
    assert_eq!(r.total_sessions as usize, n);
    let r = same(
        &store,
        &direct,
        &SearchRequest {
            limit: 1000,
            case_sensitive: true,
            ..SearchRequest::literal("haystack")
        },
    );
    assert_eq!(
        r.total_matches as usize,
        2 * n,
        "only the prompts (and titles) have lower-case haystack"
    );
    // Thinking only when asked for.
    let r = same(
        &store,
        &direct,
        &SearchRequest {
            limit: 1000,
            area: Area::All,
            ..SearchRequest::literal("secret thoughts")
        },
    );
    assert_eq!(r.total_matches, 0);
    let r = same(
        &store,
        &direct,
        &SearchRequest {
            limit: 1000,
            kinds: vec![EventKind::Thinking],
            ..SearchRequest::literal("secret thoughts")
        },
    );
    assert_eq!(r.total_matches as usize, n);
    // Tools area: arguments, tool names, results.
    let r = same(
        &store,
        &direct,
        &SearchRequest {
            limit: 1000,
            area: Area::Tools,
            ..SearchRequest::literal("needle-7 ")
        },
    );
    assert_eq!(r.total_matches, 1);
    let hit = &r.sessions[0].hits[0];
    assert_eq!(hit.field, scry_store::Field::Args);
    assert_eq!(hit.command, "scry turn mtagent:g0007 --event 3");
    assert_eq!(hit.event, Some(3));
    let r = same(
        &store,
        &direct,
        &SearchRequest {
            limit: 1000,
            area: Area::Tools,
            ..SearchRequest::literal("bash")
        },
    );
    assert_eq!(
        r.total_matches as usize,
        2 * n,
        "tool name on the call and the result"
    );
    // Regexes with and without a required literal.
    for re in [
        r"needle-\d+ src",
        r"Haystack \d{2}\b",
        r"(needle|haystack)",
        r"\d+:",
    ] {
        same(
            &store,
            &direct,
            &SearchRequest {
                limit: 1000,
                area: Area::All,
                ..SearchRequest::regex(re)
            },
        );
    }
    // Terms.
    let t = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let r = same(
        &store,
        &direct,
        &SearchRequest {
            limit: 1000,
            area: Area::All,
            ..SearchRequest::terms(t(&["needle", "grep"]), TermsOperator::And)
        },
    );
    assert_eq!(r.total_sessions as usize, n);
    let r = same(
        &store,
        &direct,
        &SearchRequest {
            limit: 1000,
            area: Area::All,
            ..SearchRequest::terms(t(&["needle-5 ", "needle-6 "]), TermsOperator::Or)
        },
    );
    assert_eq!(r.total_sessions, 2);
    let r = same(
        &store,
        &direct,
        &SearchRequest {
            limit: 1000,
            area: Area::All,
            ..SearchRequest::terms(t(&["haystack", "grep"]), TermsOperator::And)
        },
    );
    assert_eq!(r.total_matches, 0, "AND holds within one event");
}

#[test]
fn query_text_is_data_never_fts_syntax() {
    let (_tmp, _p, direct, store) = generated(20);
    for q in [
        "\"NEAR(a b)\"",
        "NEAR(a b)",
        "OR -x",
        "* (y",
        "\"",
        "'",
        "a\" OR \"b",
        "needle*",
        "-x *",
        "(",
        ")",
        "NOT",
        "AND",
        "haystack OR x",
        "{}",
        "^",
        "'; DROP TABLE events; --",
    ] {
        for area in [Area::All, Area::Tools] {
            let req = SearchRequest {
                limit: 1000,
                area,
                ..SearchRequest::literal(q)
            };
            let r = same(&store, &direct, &req);
            if q == "NEAR(a b)" || q == "OR -x" || q == "* (y" {
                assert_eq!(r.total_matches, 20, "{q}");
            }
        }
    }
    assert_eq!(
        store.count(&SessionFilter::default()).unwrap(),
        20,
        "tables intact"
    );
}

#[test]
fn cursors_page_through_and_refuse_other_queries() {
    let (_tmp, _p, direct, store) = generated(25);
    let base = SearchRequest {
        limit: 4,
        ..SearchRequest::literal("haystack")
    };
    let mut uris = Vec::new();
    let mut req = base.clone();
    loop {
        let a = norm(store.search(&req).unwrap());
        let b = search_direct(&direct, &req).unwrap();
        assert_eq!(a, b);
        assert_eq!(streamed(&direct, &req), b);
        uris.extend(a.sessions.iter().map(|s| s.header.uri.clone()));
        match a.next_cursor {
            Some(c) => req.cursor = Some(c),
            None => break,
        }
    }
    assert_eq!(uris.len(), 25);
    let full = store
        .search(&SearchRequest {
            limit: 100,
            ..base.clone()
        })
        .unwrap();
    let all: Vec<String> = full.sessions.iter().map(|s| s.header.uri.clone()).collect();
    assert_eq!(uris, all);
    let first = store.search(&base).unwrap();
    let cursor = first.next_cursor.unwrap();
    for other in [
        SearchRequest {
            cursor: Some(cursor.clone()),
            ..SearchRequest::literal("needle")
        },
        SearchRequest {
            cursor: Some(cursor.clone()),
            limit: 5,
            ..base.clone()
        },
        SearchRequest {
            cursor: Some(cursor.clone()),
            area: Area::All,
            ..base.clone()
        },
        SearchRequest {
            cursor: Some("garbage".into()),
            ..base.clone()
        },
    ] {
        assert_eq!(
            store.search(&other).unwrap_err().code(),
            ErrorCode::InvalidCursor
        );
    }
    let bad = store
        .search(&SearchRequest::regex("(unclosed"))
        .unwrap_err();
    assert_eq!(bad.code(), ErrorCode::InvalidQuery);
    assert!(bad.to_string().contains("unclosed"), "{bad}");
    assert_eq!(
        store
            .search(&SearchRequest::literal(""))
            .unwrap_err()
            .code(),
        ErrorCode::InvalidQuery
    );
    assert_eq!(
        store
            .search(&SearchRequest { limit: 0, ..base })
            .unwrap_err()
            .code(),
        ErrorCode::InvalidPageSize
    );
}

#[test]
fn within_one_session_returns_the_header_even_without_hits() {
    let (_tmp, _p, direct, store) = generated(3);
    let req = SearchRequest {
        max_hits: 1,
        area: Area::All,
        ..SearchRequest::literal("haystack")
    };
    let a = store.search_session("mtagent:g0001", &req).unwrap();
    let b = search_session_direct(&direct[1], &req).unwrap();
    assert_eq!(a.total_matches, b.total_matches);
    assert_eq!(a.hits, b.hits);
    assert_eq!(a.total_matches, 3, "prompt, title, answer");
    assert!(a.next_cursor.is_some());
    let none = store
        .search_session("mtagent:g0001", &SearchRequest::literal("zzzz"))
        .unwrap();
    assert_eq!(
        (none.header.uri.as_str(), none.hits.len()),
        ("mtagent:g0001", 0)
    );
    assert_eq!(
        store
            .search_session("mtagent:nope", &req)
            .unwrap_err()
            .code(),
        ErrorCode::SessionNotFound
    );
}

#[test]
fn self_echo_in_the_callers_live_session_is_folded_and_counted() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("src");
    std::fs::create_dir_all(&dir).unwrap();
    let now = 1_800_000_000;
    let mut body = line("user", "look for the marmalade recipe", now - 3600);
    body += &call(
        "Bash",
        json!({"command": "scry search marmalade --global"}),
        "c1",
        now - 60,
    );
    body += &result(
        "Bash",
        "1 hit: look for the marmalade recipe",
        "c1",
        now - 59,
    );
    body += &call(
        "Bash",
        json!({"command": "scry search marmalade"}),
        "c0",
        now - 3000,
    );
    std::fs::write(dir.join("me.jsonl"), body).unwrap();
    std::fs::write(dir.join("other.jsonl"), line("user", "marmalade", now - 10)).unwrap();
    let p = Lines::new(&dir);
    let mut store = Store::open(&tmp.path().join("index.db")).unwrap();
    store
        .refresh(
            &p.boxed(),
            &p.files(),
            &scry_store::RefreshOptions::complete(),
            &mut |_| true,
        )
        .unwrap();
    let direct: Vec<_> = p.files().iter().map(|f| p.parse(f).unwrap()).collect();
    let caller = Caller {
        uri: "mtagent:me".into(),
        now: jiff::Timestamp::from_second(now).unwrap(),
    };
    let req = SearchRequest {
        area: Area::All,
        caller: Some(caller),
        ..SearchRequest::literal("marmalade")
    };
    let r = same(&store, &direct, &req);
    // Folded: the recent call (args) and its result. Kept: the prompt and the title of both
    // sessions, and the old call (50 minutes ago).
    assert_eq!(r.self_folded, 2);
    assert_eq!(r.total_matches, 5);
    let shown = same(
        &store,
        &direct,
        &SearchRequest {
            include_self: true,
            ..req.clone()
        },
    );
    assert_eq!((shown.self_folded, shown.total_matches), (0, 7));
    assert_eq!(
        shown
            .sessions
            .iter()
            .flat_map(|s| &s.hits)
            .filter(|h| h.self_echo)
            .count(),
        2
    );
    let _ = SearchMode::Literal;
}

#[test]
fn streamed_search_keeps_a_page_of_many_sessions_and_equals_the_direct_one() {
    // More matching sessions than the streamed search keeps between two trims (64).
    let (_tmp, _p, direct, _store) = generated(150);
    for sort in [SortOrder::Relevance, SortOrder::Time] {
        let mut req = SearchRequest {
            limit: 7,
            max_hits: 1,
            sort,
            // Every session counted (`count: page` in time order: tests/store/search_count.rs).
            count: Count::All,
            area: Area::All,
            ..SearchRequest::literal("haystack")
        };
        let mut pages = 0;
        loop {
            let b = search_direct(&direct, &req).unwrap();
            assert_eq!(streamed(&direct, &req), b, "{req:?}");
            assert_eq!(b.total_sessions, 150);
            pages += 1;
            match b.next_cursor {
                Some(c) => req.cursor = Some(c),
                None => break,
            }
        }
        assert_eq!(pages, 22, "150 sessions in pages of 7");
    }
    // A bad regex is the request's error, not a read's.
    let bad = SearchRequest {
        mode: SearchMode::Regex,
        ..SearchRequest::literal("(")
    };
    let e = search_direct_each(
        &bad,
        direct.iter().cloned().enumerate().map(Ok::<_, ()>),
        |i| Ok(direct[i].clone()),
    );
    assert!(matches!(e, Err(scry_store::EachError::Search(_))));
    // A read error stops the search and is returned as such.
    let failing = std::iter::once(Err::<(usize, scry_model::Session), &str>("gone"));
    let e = search_direct_each(&SearchRequest::literal("haystack"), failing, |_| {
        Err("gone")
    });
    assert!(matches!(e, Err(scry_store::EachError::Read("gone"))));
}
