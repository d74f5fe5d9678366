//! The round-trip law (S-I4) over every session of the shared corpus that a registered provider
//! reads: the session read back from the index deep-equals the direct parse. Index-owned header
//! fields are excepted: `persisted` (true when read from the index) and `live` (the index's
//! view of the source's presence).

use std::path::{Path, PathBuf};

use scry_model::Session;
use scry_source::{Env, Source, SourceFile};
use scry_store::{RefreshOptions, SessionFilter, Store};

pub use scry_testkit::corpus;

/// Every home directory of the corpus (real, real-older eras, the Deep Agents home).
fn homes() -> Vec<PathBuf> {
    let c = corpus();
    let mut homes = vec![c.join("real/home"), c.join("langgraph/dcode/home")];
    if let Ok(rd) = std::fs::read_dir(c.join("real-older")) {
        let mut older: Vec<PathBuf> = rd
            .flatten()
            .map(|e| e.path().join("home"))
            .filter(|p| p.is_dir())
            .collect();
        older.sort();
        homes.extend(older);
    }
    homes
}

/// Every corpus source: discovered in each home, plus loose third-party files recognized by
/// some provider's `detect()`.
pub fn corpus_files(sources: &[Box<dyn Source>]) -> Vec<SourceFile> {
    let mut files: Vec<SourceFile> = Vec::new();
    for home in homes() {
        let env = Env::with_home(&home);
        for d in scry_sources::discover_all(sources, &env, &[]) {
            files.extend(d.discovery.files);
        }
    }
    let mut loose = Vec::new();
    walk(&corpus().join("third-party"), &mut loose);
    loose.sort();
    for p in loose {
        if let Some(f) = sources.iter().find_map(|s| s.detect(&p)) {
            if !files.iter().any(|g| g.path == f.path && g.key == f.key) {
                files.push(f);
            }
        }
    }
    files
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    if let Ok(rd) = std::fs::read_dir(dir) {
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, out);
            } else {
                out.push(p);
            }
        }
    }
}

/// Parses every file directly; files whose parse fails are left out (the index skips them too).
pub fn parse_all(sources: &[Box<dyn Source>], files: &[SourceFile]) -> Vec<Session> {
    files
        .iter()
        .filter_map(|f| scry_sources::source_for(sources, f.provider)?.parse(f).ok())
        .collect()
}

/// The index-owned header fields set as a direct parse has them.
pub fn as_parsed(mut s: Session) -> Session {
    s.header.persisted = false;
    s.header.live = true;
    s
}

/// An index of the whole corpus and the direct parses it must equal (one per uri: when two
/// files yield the same uri, the index keeps the one refreshed last, and so does this list).
pub fn indexed_corpus(dir: &Path) -> (Store, Vec<Session>, usize) {
    let sources = scry_sources::registry();
    let files = corpus_files(&sources);
    let mut store = Store::open(&dir.join("index.db")).unwrap();
    let report = store
        .refresh(&sources, &files, &RefreshOptions::complete(), &mut |_| true)
        .unwrap();
    assert_eq!(
        report.parsed + report.failed.len(),
        files.len(),
        "{report:?}"
    );
    let mut direct: Vec<Session> = Vec::new();
    for s in parse_all(&sources, &files) {
        direct.retain(|d| d.header.uri != s.header.uri);
        direct.push(s);
    }
    (store, direct, files.len())
}

#[test]
fn every_corpus_session_reads_back_equal_to_its_parse() {
    let tmp = tempfile::tempdir().unwrap();
    let (store, direct, nfiles) = indexed_corpus(tmp.path());
    assert!(
        direct.len() >= 40,
        "only {} sessions from {nfiles} files",
        direct.len()
    );
    let indexed = store.count(&SessionFilter::default()).unwrap();
    assert_eq!(indexed, direct.len());
    let mut providers = std::collections::BTreeSet::new();
    for d in &direct {
        let s = store.session(&d.header.uri).unwrap();
        assert!(s.header.persisted && s.header.live);
        let s = as_parsed(s);
        assert_eq!(s.header, d.header, "{}", d.header.uri);
        assert_eq!(s.warnings, d.warnings, "{}", d.header.uri);
        assert_eq!(s.events.len(), d.events.len(), "{}", d.header.uri);
        for (a, b) in s.events.iter().zip(&d.events) {
            assert_eq!(a, b, "{} event {}", d.header.uri, b.seq);
        }
        providers.insert(d.header.provider);
    }
    eprintln!(
        "round-trip: {} sessions from {nfiles} files, providers {providers:?}",
        direct.len()
    );
    assert!(providers.len() >= 6, "{providers:?}");
}

#[test]
fn a_second_refresh_of_the_corpus_parses_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let (mut store, _, nfiles) = indexed_corpus(tmp.path());
    let sources = scry_sources::registry();
    let files = corpus_files(&sources);
    let r = store
        .refresh(&sources, &files, &RefreshOptions::complete(), &mut |_| true)
        .unwrap();
    assert_eq!(
        (r.parsed, r.resumed, r.hashed, r.bytes_hashed),
        (0, 0, 0, 0),
        "{r:?}"
    );
    assert_eq!(r.unchanged + r.failed.len(), nfiles);
}

#[test]
fn header_filters_and_event_windows_agree_with_the_parse() {
    use scry_model::{ProviderId, SessionKind};
    use scry_store::TimeRange;
    let tmp = tempfile::tempdir().unwrap();
    let (store, direct, _) = indexed_corpus(tmp.path());
    let mid = &direct[direct.len() / 3].header;
    let filters = vec![
        SessionFilter::default(),
        SessionFilter {
            providers: vec![ProviderId::Codex],
            ..Default::default()
        },
        SessionFilter {
            providers: vec![ProviderId::Claude, ProviderId::Gemini],
            ..Default::default()
        },
        SessionFilter {
            cwd_under: mid.cwd.clone(),
            ..Default::default()
        },
        SessionFilter {
            cwd_under: Some("/".into()),
            ..Default::default()
        },
        SessionFilter {
            cwd_under: Some("/home".into()),
            ..Default::default()
        },
        SessionFilter {
            created: TimeRange {
                from: mid.created,
                to: None,
            },
            ..Default::default()
        },
        SessionFilter {
            updated: TimeRange {
                from: None,
                to: mid.updated,
            },
            ..Default::default()
        },
        SessionFilter {
            updated: TimeRange {
                from: mid.updated,
                to: mid.updated,
            },
            ..Default::default()
        },
        SessionFilter {
            kinds: vec![SessionKind::Subagent, SessionKind::Fork],
            ..Default::default()
        },
        SessionFilter {
            kinds: vec![SessionKind::Main],
            live: Some(true),
            ..Default::default()
        },
        SessionFilter {
            live: Some(false),
            ..Default::default()
        },
        SessionFilter {
            uris: vec![mid.uri.clone(), "claude:nope".into()],
            ..Default::default()
        },
    ];
    let mut parents = direct
        .iter()
        .filter_map(|s| s.header.parent.clone().map(|p| (p, s.header.provider)));
    let mut filters = filters;
    if let Some((p, prov)) = parents.next() {
        filters.push(SessionFilter {
            parent: Some(p.clone()),
            ..Default::default()
        });
        filters.push(SessionFilter {
            parent: Some(format!("{}:{p}", prov.as_str())),
            ..Default::default()
        });
    }
    for f in &filters {
        let got: Vec<String> = store
            .headers(f, 100_000, 0)
            .unwrap()
            .into_iter()
            .map(|h| h.uri)
            .collect();
        let mut want: Vec<&scry_model::Header> = direct
            .iter()
            .map(|s| &s.header)
            .filter(|h| f.matches(h))
            .collect();
        want.sort_by(|a, b| {
            (a.updated.is_none(), std::cmp::Reverse(a.updated), &a.uri).cmp(&(
                b.updated.is_none(),
                std::cmp::Reverse(b.updated),
                &b.uri,
            ))
        });
        let want: Vec<String> = want.into_iter().map(|h| h.uri.clone()).collect();
        assert_eq!(got, want, "{f:?}");
        assert_eq!(store.count(f).unwrap(), want.len());
    }
    // Paging.
    let page2 = store.headers(&SessionFilter::default(), 5, 5).unwrap();
    let all = store.headers(&SessionFilter::default(), 10, 0).unwrap();
    assert_eq!(page2, all[5..].to_vec());
    // Event windows, clipped to the session; an inverted window is refused.
    let big = direct.iter().max_by_key(|s| s.events.len()).unwrap();
    let w = store.events(&big.header.uri, 2..=5).unwrap();
    assert_eq!(w, big.events[2..=5].to_vec());
    let n = big.events.len() as u32;
    assert_eq!(
        store.events(&big.header.uri, n - 2..=n + 50).unwrap(),
        big.events[(n - 2) as usize..].to_vec()
    );
    assert!(store
        .events(&big.header.uri, n + 1..=n + 3)
        .unwrap()
        .is_empty());
    #[allow(clippy::reversed_empty_ranges)]
    let inverted = store.events(&big.header.uri, 5..=2).unwrap_err();
    assert_eq!(inverted.code(), scry_model::ErrorCode::InvalidWindow);
    assert_eq!(
        store
            .headers(
                &SessionFilter {
                    updated: TimeRange {
                        from: mid.updated.map(|t| t + jiff::SignedDuration::from_secs(1)),
                        to: mid.updated
                    },
                    ..Default::default()
                },
                5,
                0
            )
            .map(|_| ())
            .unwrap_err()
            .code(),
        scry_model::ErrorCode::InvalidFilter
    );
}

#[test]
fn a_file_that_is_not_a_database_is_a_clear_error() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("index.db");
    std::fs::write(
        &db,
        b"this is not sqlite at all, just text that is long enough to be a header....",
    )
    .unwrap();
    let err = Store::open(&db).unwrap_err();
    assert_eq!(err.code(), scry_model::ErrorCode::PersistenceFailure);
    assert!(err.to_string().contains("index.db"), "{err}");
}
