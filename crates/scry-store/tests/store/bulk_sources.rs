//! Many given sources at once (64 or more: the fingerprints, and the sessions of the given
//! sources, are matched to the files in one scan of `files`): a file given twice, a changed file
//! among unchanged ones, and a search over a subset of the indexed sources.

use scry_source::SourceFile;
use scry_store::{RefreshOptions, SearchRequest, Store};

use crate::lines::{line, Lines};

const FILES: usize = 90;
/// [`FILES`] as search totals count.
const TOTAL: u64 = FILES as u64;

fn marker(i: usize) -> String {
    format!("mark-{i:03}-x")
}

fn setup() -> (tempfile::TempDir, Lines, Store, Vec<SourceFile>) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("src");
    std::fs::create_dir_all(&dir).unwrap();
    for i in 0..FILES {
        let body = line("user", &format!("common {}", marker(i)), 1);
        std::fs::write(dir.join(format!("s{i:03}.jsonl")), body).unwrap();
    }
    let p = Lines::new(&dir);
    let mut store = Store::open(&tmp.path().join("index.db")).unwrap();
    let all = p.files();
    assert_eq!(all.len(), FILES);
    let r = store
        .refresh(&p.boxed(), &all, &RefreshOptions::complete(), &mut |_| true)
        .unwrap();
    assert_eq!(r.parsed, FILES, "{r:?}");
    (tmp, p, store, all)
}

#[test]
fn a_file_given_twice_and_a_changed_file_among_many() {
    let (_tmp, p, mut store, all) = setup();
    let grown = &all[7];
    let more = line("assistant", "appended-answer", 2);
    std::fs::OpenOptions::new()
        .append(true)
        .open(&grown.path)
        .and_then(|mut f| std::io::Write::write_all(&mut f, more.as_bytes()))
        .unwrap();
    // Discovery again (new size and mtime), with the grown file and another one listed twice.
    let mut given = p.files();
    given.push(given[7].clone());
    given.push(given[30].clone());
    let r = store
        .refresh(&p.boxed(), &given, &RefreshOptions::complete(), &mut |_| {
            true
        })
        .unwrap();
    assert_eq!(r.files, FILES + 2);
    assert_eq!(r.parsed + r.resumed, 1, "{r:?}");
    assert_eq!(r.unchanged, FILES + 1, "{r:?}");
    assert_eq!((r.vanished, r.revived), (0, 0), "{r:?}");
    let found = store
        .search_sources(&SearchRequest::literal("appended-answer"), &given)
        .unwrap();
    assert_eq!(found.total_sessions, 1);
    // Nothing changed: every file, the duplicates included, is unchanged and nothing vanishes.
    let r = store
        .refresh(&p.boxed(), &given, &RefreshOptions::complete(), &mut |_| {
            true
        })
        .unwrap();
    assert_eq!(
        (r.unchanged, r.parsed, r.resumed),
        (FILES + 2, 0, 0),
        "{r:?}"
    );
    assert_eq!(r.vanished, 0, "{r:?}");
}

#[test]
fn search_over_many_sources_answers_from_those_only() {
    let (_tmp, _p, store, all) = setup();
    let some: Vec<SourceFile> = all[10..].to_vec();
    assert!(some.len() > 64);
    let common = SearchRequest::literal("common");
    assert_eq!(
        store.search_sources(&common, &all).unwrap().total_sessions,
        TOTAL
    );
    assert_eq!(
        store.search_sources(&common, &some).unwrap().total_sessions,
        TOTAL - 10
    );
    for (i, want) in [(5, 0), (10, 1), (89, 1)] {
        let got = store
            .search_sources(&SearchRequest::literal(marker(i)), &some)
            .unwrap();
        assert_eq!(got.total_sessions, want, "{}", marker(i));
    }
    // A few sources (looked up one by one) answer the same way.
    let few = &all[3..6];
    assert_eq!(
        store.search_sources(&common, few).unwrap().total_sessions,
        3
    );
}
