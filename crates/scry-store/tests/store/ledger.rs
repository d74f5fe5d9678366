//! The usage ledger (issue 19): the request rows, per-(model, tier) sums and failed tool results
//! the index keeps per session equal what the session's parsed events carry, for every corpus session, and follow
//! a resumed parse (an appended Claude / Codex session of the corpus, cut in half then
//! completed).

use std::path::Path;

use scry_model::Session;
use scry_source::{Env, SourceFile};
use scry_store::ledger::{sums_of, StoredRequest};
use scry_store::{RefreshOptions, Store};

use crate::corpus::{corpus, indexed_corpus};

fn requests(s: &Session) -> Vec<StoredRequest> {
    s.events.iter().filter_map(StoredRequest::of).collect()
}

/// The ledger of the session `at` names equals `parsed`'s requests and their sums.
fn assert_ledger(store: &Store, at: &str, parsed: &Session) {
    let want = requests(parsed);
    let (_, got) = store.requests(at).unwrap().expect("indexed");
    assert_eq!(got, want, "{at}: requests");
    let sid = store.sid_by(at).unwrap().unwrap();
    assert_eq!(store.usage_sums(sid).unwrap(), sums_of(&want), "{at}: sums");
    let failed = parsed
        .events
        .iter()
        .filter(|e| scry_store::ledger::is_failed_result(e))
        .count() as u64;
    assert_eq!(store.failure_count(sid).unwrap(), failed, "{at}: failures");
}

#[test]
fn every_corpus_session_s_ledger_equals_its_parsed_requests() {
    let tmp = tempfile::tempdir().unwrap();
    let (store, direct, _) = indexed_corpus(tmp.path());
    let mut with_requests = 0;
    let mut with_failures = 0;
    let mut models = std::collections::BTreeSet::new();
    for d in &direct {
        assert_ledger(&store, &d.header.uri, d);
        let r = requests(d);
        with_requests += usize::from(!r.is_empty());
        with_failures += usize::from(d.events.iter().any(scry_store::ledger::is_failed_result));
        models.extend(r.into_iter().map(|r| r.model));
    }
    assert!(
        with_requests >= 15,
        "{with_requests} sessions with requests"
    );
    assert!(models.len() >= 8, "{models:?}");
    assert!(
        with_failures >= 3,
        "{with_failures} sessions with failed tool results"
    );
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let (src, dst) = (e.path(), to.join(e.file_name()));
        if e.file_type().unwrap().is_dir() {
            copy_dir(&src, &dst);
        } else {
            std::fs::copy(&src, &dst).unwrap();
        }
    }
}

#[test]
fn the_ledger_follows_a_resumed_parse() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    copy_dir(&corpus().join("real/home"), &home);
    let sources = scry_sources::registry();
    let discover = || -> Vec<SourceFile> {
        scry_sources::discover_all(&sources, &Env::with_home(&home), &[])
            .into_iter()
            .flat_map(|d| d.discovery.files)
            .collect()
    };
    // Claude and Codex main sessions, cut to their first half of lines.
    let mut cut: Vec<(SourceFile, String)> = Vec::new();
    for f in discover() {
        let name = f.path.to_string_lossy();
        let appendable = (name.contains("/.claude/") && !name.contains("/subagents/"))
            || name.contains("/.codex/sessions/");
        if !appendable || !name.ends_with(".jsonl") {
            continue;
        }
        let text = std::fs::read_to_string(&f.path).unwrap();
        let lines: Vec<&str> = text.split_inclusive('\n').collect();
        let half = lines.len() / 2;
        std::fs::write(&f.path, lines[..half].concat()).unwrap();
        cut.push((f, lines[half..].concat()));
    }
    assert!(cut.len() >= 3, "{} sessions cut", cut.len());
    let mut store = Store::open(&tmp.path().join("index.db")).unwrap();
    let opts = RefreshOptions::complete();
    store
        .refresh(&sources, &discover(), &opts, &mut |_| true)
        .unwrap();
    let check = |store: &Store| {
        for (f, _) in &cut {
            let src = scry_sources::source_for(&sources, f.provider).unwrap();
            let parsed = src.parse(f).unwrap();
            assert_ledger(store, &parsed.header.uri, &parsed);
        }
    };
    check(&store);
    for (f, rest) in &cut {
        use std::io::Write;
        std::fs::OpenOptions::new()
            .append(true)
            .open(&f.path)
            .unwrap()
            .write_all(rest.as_bytes())
            .unwrap();
    }
    let r = store
        .refresh(&sources, &discover(), &opts, &mut |_| true)
        .unwrap();
    assert!(r.resumed >= 3, "{r:?}");
    check(&store);
}
