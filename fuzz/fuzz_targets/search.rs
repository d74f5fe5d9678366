//! The search planner and matcher (`scry_store` search: request validation, literal / regex /
//! terms matching, the trigram FTS narrowing, ranking, excerpts, cursors, self-echo folding),
//! differentially: every request built from the input runs both over an index
//! (`Store::search`, `Store::search_session`) and over the parsed sessions (`search_direct`,
//! `search_session_direct`), and the answers must be equal (SPEC P2, S-S5) — errors included.
//!
//! Input: five flag bytes (mode, case, sort, self-echo; area and kinds; limit; max hits;
//! context and scope), then the query text; further pieces split at 0xFF are the terms, and a
//! piece starting with `c:` is used as a cursor. The sessions searched are fixed: a handful of
//! Claude sessions with mixed scripts, regex metacharacters, tool calls and a `scry` self-echo,
//! indexed once per process.
#![no_main]

use std::cell::OnceCell;
use std::path::{Path, PathBuf};

use libfuzzer_sys::fuzz_target;
use scry_model::{EventKind, Session};
use scry_source::{Env, Source};
use scry_source_claude::ClaudeSource;
use scry_store::{
    search_direct, search_session_direct, Area, Caller, RefreshOptions, SearchRequest,
    SearchResponse, SessionSearch, SortOrder, Store, TermsOperator,
};
use serde_json::json;

const SID: [&str; 4] = [
    "0b9c7e52-4f3a-4d8e-9a61-2c5b8f0d7e11",
    "0b9c7e52-4f3a-4d8e-9a61-2c5b8f0d7e12",
    "0b9c7e52-4f3a-4d8e-9a61-2c5b8f0d7e13",
    "0b9c7e52-4f3a-4d8e-9a61-2c5b8f0d7e14",
];

/// Texts with case-folding traps (İ, ß, ſ, K-sign), CJK, emoji, FTS and regex syntax.
const TEXTS: &[&str] = &[
    "Fix the failing test in src/lib.rs: error[E0308] mismatched types",
    "İstanbul ıi İI straße STRASSE ſ K Kelvin ǅ ǆ Σίσυφος ΣΊΣΥΦΟΣ",
    "跨会话检索 会话 检索功能 日本語のテキスト 한국어 텍스트 🙂👍🏽 e\u{301}",
    "a OR b AND c NOT d NEAR(e f) \"quoted\" * ^ $ ( ) [ ] { } | \\ . + ?",
    "grep -rn 'fn main' . && cargo test --workspace 2>&1 | tail -5",
    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
    "the session index reads files from disk and never writes them",
    "\u{0}nul\u{1}ctl\u{7f}del \t tab \r\n crlf",
];

fn line(v: serde_json::Value) -> String {
    let mut s = v.to_string();
    s.push('\n');
    s
}

/// Writes the sessions (Claude layout) under `home`.
fn write_sessions(home: &Path) -> Vec<PathBuf> {
    let mut paths = Vec::new();
    for (n, sid) in SID.iter().enumerate() {
        let cwd = if n % 2 == 0 { "/work/a" } else { "/work/b/c" };
        let dir = home.join(format!(".claude/projects/-work-{n}"));
        std::fs::create_dir_all(&dir).expect("mkdir");
        let mut body = String::new();
        let mut seq = 0;
        let ts = |seq: &mut u32| {
            *seq += 1;
            format!("2026-11-2{n}T10:{:02}:{:02}.000Z", *seq / 60, *seq % 60)
        };
        for t in 0..3usize {
            let text = TEXTS[(n * 3 + t) % TEXTS.len()];
            body.push_str(&line(json!({
                "type": "user", "uuid": format!("u{n}-{t}"), "sessionId": sid, "cwd": cwd,
                "timestamp": ts(&mut seq), "version": "2.1.0",
                "message": {"role": "user", "content": format!("{text} (turn {t})")}
            })));
            let call = format!("toolu_{n}{t}");
            let command = if n == 3 && t == 2 {
                "scry search 'session index'".to_string()
            } else {
                TEXTS[(n + t + 4) % TEXTS.len()].to_string()
            };
            body.push_str(&line(json!({
                "type": "assistant", "uuid": format!("a{n}-{t}"), "sessionId": sid, "cwd": cwd,
                "timestamp": ts(&mut seq), "version": "2.1.0",
                "message": {"id": format!("msg_{n}{t}"), "role": "assistant", "model": "claude-test",
                    "content": [
                        {"type": "thinking", "thinking": TEXTS[(n + t + 1) % TEXTS.len()], "signature": "x"},
                        {"type": "text", "text": TEXTS[(n + t + 2) % TEXTS.len()]},
                        {"type": "tool_use", "id": call, "name": "Bash", "input": {"command": command}}
                    ],
                    "usage": {"input_tokens": 10, "output_tokens": 5}}
            })));
            body.push_str(&line(json!({
                "type": "user", "uuid": format!("r{n}-{t}"), "sessionId": sid, "cwd": cwd,
                "timestamp": ts(&mut seq), "version": "2.1.0",
                "message": {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": call, "is_error": t == 1,
                     "content": TEXTS[(n + t + 3) % TEXTS.len()]}
                ]}
            })));
        }
        let p = dir.join(format!("{sid}.jsonl"));
        std::fs::write(&p, body).expect("write session");
        paths.push(p);
    }
    paths
}

struct World {
    _dir: tempfile::TempDir,
    store: Store,
    sessions: Vec<Session>,
}

fn build() -> World {
    let dir = tempfile::tempdir().expect("tempdir");
    let home = dir.path().join("home");
    write_sessions(&home);
    let sources: Vec<Box<dyn Source>> = vec![Box::new(ClaudeSource)];
    let files = sources[0].discover(&Env::with_home(&home)).files;
    assert_eq!(files.len(), SID.len(), "fixture sessions not discovered");
    let mut sessions: Vec<Session> = files
        .iter()
        .map(|f| sources[0].parse(f).expect("fixture parses"))
        .collect();
    sessions.sort_by(|a, b| a.header.uri.cmp(&b.header.uri));
    let mut store = Store::open(&dir.path().join("index.db")).expect("open index");
    store
        .refresh(&sources, &files, &RefreshOptions::complete(), &mut |_| true)
        .expect("index fixture");
    World {
        _dir: dir,
        store,
        sessions,
    }
}

thread_local! {
    static WORLD: OnceCell<World> = const { OnceCell::new() };
}

/// The response with index-owned header fields as a parse has them, without the plan.
fn norm(mut r: SearchResponse) -> SearchResponse {
    for s in &mut r.sessions {
        s.header.persisted = false;
        s.header.live = true;
    }
    r.plan = scry_store::SearchPlan::Direct;
    r
}

fn norm_within(mut r: SessionSearch) -> SessionSearch {
    r.header.persisted = false;
    r.header.live = true;
    r
}

fn request(data: &[u8]) -> Option<SearchRequest> {
    let (flags, rest) = data.split_at_checked(5)?;
    let mut pieces = rest.split(|b| *b == 0xFF);
    let query = String::from_utf8_lossy(pieces.next().unwrap_or_default()).into_owned();
    let mut terms = Vec::new();
    let mut cursor = None;
    for p in pieces {
        let s = String::from_utf8_lossy(p).into_owned();
        match s.strip_prefix("c:") {
            Some(c) => cursor = Some(c.to_string()),
            None => terms.push(s),
        }
    }
    let mut req = match flags[0] % 3 {
        0 => SearchRequest::literal(query),
        1 => SearchRequest::regex(query),
        _ => {
            let op = if flags[0] & 0x08 != 0 {
                TermsOperator::Or
            } else {
                TermsOperator::And
            };
            terms.insert(0, query);
            SearchRequest::terms(terms, op)
        }
    };
    req.case_sensitive = flags[0] & 0x10 != 0;
    req.sort = if flags[0] & 0x20 != 0 {
        SortOrder::Time
    } else {
        SortOrder::Relevance
    };
    req.include_self = flags[0] & 0x40 != 0;
    if flags[0] & 0x80 != 0 {
        req.caller = Some(Caller {
            uri: format!("claude:{}", SID[3]),
            now: "2026-11-23T10:03:00Z".parse().ok()?,
        });
    }
    req.area = match flags[1] % 4 {
        0 => Area::Dialogue,
        1 => Area::Tools,
        2 => Area::Artifacts,
        _ => Area::All,
    };
    if flags[1] & 0x04 != 0 {
        req.kinds = EventKind::ALL
            .iter()
            .enumerate()
            .filter(|(i, _)| (flags[1] >> 3) & (1 << (i % 5)) != 0)
            .map(|(_, k)| *k)
            .collect();
    }
    // 0 and > 1000 are invalid on purpose: the error paths must agree too.
    req.limit = match flags[2] {
        0 => 0,
        255 => 1001,
        n => usize::from(n % 8) + 1,
    };
    req.max_hits = match flags[3] {
        0 => 0,
        255 => 10_001,
        n => usize::from(n % 16) + 1,
    };
    req.context = usize::from(flags[4] & 0x3F);
    req.filter.cwd_under = match flags[4] >> 6 {
        0 => None,
        1 => Some("/work/a".into()),
        2 => Some("/work/b".into()),
        _ => Some("/".into()),
    };
    req.cursor = cursor;
    Some(req)
}

fuzz_target!(
    init: {
        // Index the fixture and build the lazily compiled regexes before the first input, so
        // that one-time work does not count against libFuzzer's per-input timeout.
        WORLD.with(|cell| {
            let w = cell.get_or_init(build);
            let mut req = SearchRequest::literal("scry");
            req.caller = Some(Caller {
                uri: format!("claude:{}", SID[3]),
                now: "2026-11-23T10:03:00Z".parse().expect("timestamp"),
            });
            let _ = w.store.search(&req);
            let _ = search_direct(&w.sessions, &req);
        });
    },
    |data: &[u8]| {
    let Some(mut req) = request(data) else {
        return;
    };
    WORLD.with(|cell| {
        let w = cell.get_or_init(build);
        // Across sessions, following cursors for a few pages.
        for _page in 0..4 {
            let indexed = w.store.search(&req).map(norm);
            let direct = search_direct(&w.sessions, &req);
            match (&indexed, &direct) {
                (Ok(a), Ok(b)) => assert_eq!(a, b, "index and direct differ for {req:?}"),
                (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string(), "{req:?}"),
                _ => panic!("index {indexed:?} vs direct {direct:?} for {req:?}"),
            }
            match indexed.ok().and_then(|r| r.next_cursor) {
                Some(c) => req.cursor = Some(c),
                None => break,
            }
        }
        // Within one session.
        req.cursor = None;
        let s = &w.sessions[data.len() % w.sessions.len()];
        for _page in 0..4 {
            let indexed = w.store.search_session(&s.header.uri, &req).map(norm_within);
            let direct = search_session_direct(s, &req);
            match (&indexed, &direct) {
                (Ok(a), Ok(b)) => assert_eq!(a, b, "index and direct differ within for {req:?}"),
                (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string(), "{req:?}"),
                _ => panic!("index {indexed:?} vs direct {direct:?} within for {req:?}"),
            }
            match indexed.ok().and_then(|r| r.next_cursor) {
                Some(c) => req.cursor = Some(c),
                None => break,
            }
        }
    });
});
