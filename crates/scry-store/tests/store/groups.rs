//! Candidate groups (schema 11): consecutive blocks of a session share one trigram document
//! (its keys in our own posting lists since schema 12).
//! A resumed session reopens its last, unfilled group, so after any sequence of appends the
//! candidate documents (every (document, trigram) pair) and the group starts equal those of a
//! clean build of the final file, and every appended event is found by an indexed search.

use std::fs::OpenOptions;
use std::io::Write;
use std::path::Path;

use scry_store::{RefreshOptions, SearchRequest, Store};

use crate::lines::{line, Lines};

fn refresh(store: &mut Store, p: &Lines) -> scry_store::RefreshReport {
    store
        .refresh(
            &p.boxed(),
            &p.files(),
            &RefreshOptions::complete(),
            &mut |_| true,
        )
        .unwrap()
}

/// Every distinct (document, trigram key) pair of the candidate index (the union of every
/// run: which run holds a pair depends on when transactions committed), and every group start,
/// in order.
pub(crate) fn candidate_rows(db: &Path) -> (Vec<(i64, u32)>, Vec<i64>) {
    let conn = rusqlite::Connection::open(db).unwrap();
    let mut pairs = Vec::new();
    let mut st = conn.prepare("SELECT id, dir, ids FROM grams").unwrap();
    let mut rows = st.query([]).unwrap();
    let mut kc = Vec::new();
    while let Some(r) = rows.next().unwrap() {
        kc.clear();
        scry_store::postings::pack_pairs(
            r.get(0).unwrap(),
            r.get_ref(1).unwrap().as_blob().unwrap(),
            r.get_ref(2).unwrap().as_blob().unwrap(),
            &mut kc,
        )
        .expect("every stored pack decodes");
        pairs.extend(
            kc.iter()
                .map(|&(key, c)| (scry_store::postings::id_of(c), key)),
        );
    }
    drop(rows);
    drop(st);
    pairs.sort_unstable();
    pairs.dedup();
    let starts = conn
        .prepare("SELECT id FROM blocks WHERE kinds & (1 << 62) != 0 ORDER BY id")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<rusqlite::Result<Vec<_>>>()
        .unwrap();
    (pairs, starts)
}

/// The text of line `i`: a marker of its own and ~12 KB of words that vary with `i`.
fn text(i: u64) -> String {
    let mut t = format!("mark{i}zq ");
    for j in 0..1500 {
        t.push_str(&format!("w{} ", (i * 7919 + j * 104_729) % 100_003));
    }
    t
}

#[test]
fn appends_reopen_the_last_group_and_equal_a_clean_build() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("src");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("s.jsonl");
    // A first prompt of its own (a session's title is searched too).
    std::fs::write(&path, line("user", "start", 1_789_999_999)).unwrap();
    let p = Lines::new(&dir);
    let db = tmp.path().join("index.db");
    let mut store = Store::open(&db).unwrap();
    let mut n = 0u64;
    // Steps of 1..13 lines (≈ 12 KB each, ≈ 5 per block, 8 blocks per group): appends end
    // inside a group, at a block boundary and past a full group.
    for (step, add) in [3u64, 1, 13, 7, 40, 2, 9, 30, 1, 5, 57, 3, 24]
        .into_iter()
        .enumerate()
    {
        let mut f = OpenOptions::new().append(true).open(&path).unwrap();
        for i in n..n + add {
            let kind = if i % 2 == 0 { "user" } else { "assistant" };
            f.write_all(line(kind, &text(i), 1_790_000_000 + i as i64).as_bytes())
                .unwrap();
        }
        drop(f);
        n += add;
        let r = refresh(&mut store, &p);
        if step > 0 {
            assert_eq!(r.resumed, 1, "step {step}: {r:?}");
        }
        for i in [0, n / 2, n - 1] {
            let found = store
                .search(&SearchRequest::literal(format!("mark{i}zq ")))
                .unwrap();
            assert_eq!(found.total_matches, 1, "step {step}: mark{i}zq");
            assert!(
                matches!(found.plan, scry_store::SearchPlan::Trigram { .. }),
                "{:?}",
                found.plan
            );
        }
    }
    let (pairs, starts) = candidate_rows(&db);
    assert!(starts.len() >= 3, "{} groups", starts.len());
    let clean_db = tmp.path().join("clean.db");
    let mut clean = Store::open(&clean_db).unwrap();
    refresh(&mut clean, &p);
    let (clean_pairs, clean_starts) = candidate_rows(&clean_db);
    // Sids differ (a clean build writes the session under sid 1): compare seqs.
    let seqs = |v: &[i64]| v.iter().map(|id| id & 0xFFFF_FFFF).collect::<Vec<_>>();
    assert_eq!(seqs(&starts), seqs(&clean_starts));
    let strip = |v: Vec<(i64, u32)>| {
        let mut v: Vec<(i64, u32)> = v.into_iter().map(|(d, t)| (d & 0xFFFF_FFFF, t)).collect();
        v.sort();
        v
    };
    assert!(
        strip(pairs) == strip(clean_pairs),
        "candidate documents differ from a clean build"
    );
    for i in 0..n {
        let found = store
            .search(&SearchRequest::literal(format!("mark{i}zq ")))
            .unwrap();
        assert_eq!(found.total_matches, 1, "mark{i}zq");
    }
}

/// `(run, level)` of every candidate run.
fn runs(db: &Path) -> Vec<(i64, i64)> {
    let conn = rusqlite::Connection::open(db).unwrap();
    let mut st = conn
        .prepare("SELECT run, level FROM gram_runs ORDER BY level, run")
        .unwrap();
    let rows = st.query_map([], |r| Ok((r.get(0)?, r.get(1)?))).unwrap();
    rows.collect::<rusqlite::Result<_>>().unwrap()
}

/// One transaction writes one run of the candidate index (one row per key it touched: what
/// FTS5's 64 MB `hashsize` gave before schema 12, a segment per transaction), and a session
/// committed block by block writes many runs that merge as levels fill: no level holds
/// [`FANOUT`] runs, the runs stay far fewer than the commits, and the candidate pairs are
/// those of the one-transaction build.
#[test]
fn a_transaction_writes_one_run_and_full_levels_merge() {
    const FANOUT: usize = 8;
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("src");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("s.jsonl");
    let mut body = line("user", "start", 1_789_999_999);
    for i in 0..700u64 {
        let kind = if i % 2 == 0 { "user" } else { "assistant" };
        body.push_str(&line(kind, &text(i), 1_790_000_000 + i as i64));
    }
    std::fs::write(&path, body).unwrap();
    let p = Lines::new(&dir);
    let one_db = tmp.path().join("one.db");
    let mut one = Store::open(&one_db).unwrap();
    let r = refresh(&mut one, &p);
    // At most one run per transaction (runs are only merged past FANOUT of a level).
    assert!(runs(&one_db).len() as u64 <= r.staged_commits + 1, "{r:?}");
    let many_db = tmp.path().join("many.db");
    let mut many = Store::open(&many_db).unwrap();
    let opts = RefreshOptions {
        commit_blocks: Some(1),
        ..RefreshOptions::complete()
    };
    let r = many
        .refresh(&p.boxed(), &p.files(), &opts, &mut |_| true)
        .unwrap();
    let runs = runs(&many_db);
    assert!(r.staged_commits >= 100, "{r:?}");
    for level in runs.chunk_by(|a, b| a.1 == b.1) {
        assert!(level.len() < FANOUT, "{runs:?}");
    }
    // Run numbers are never reused: each merge of FANOUT runs leaves FANOUT - 1 fewer.
    let written = runs.iter().map(|r| r.0).max().unwrap();
    assert!(written as usize >= runs.len() + FANOUT, "{runs:?}");
    let strip = |(pairs, starts): (Vec<(i64, u32)>, Vec<i64>)| {
        let pairs: Vec<(i64, u32)> = pairs
            .into_iter()
            .map(|(d, t)| (d & 0xFFFF_FFFF, t))
            .collect();
        (
            pairs,
            starts
                .into_iter()
                .map(|id| id & 0xFFFF_FFFF)
                .collect::<Vec<_>>(),
        )
    };
    let (a, b) = (
        strip(candidate_rows(&many_db)),
        strip(candidate_rows(&one_db)),
    );
    assert_eq!(a.1, b.1);
    assert!(
        a.0 == b.0,
        "candidate pairs differ from a one-transaction build"
    );
    for i in [0, 350, 699] {
        let found = many
            .search(&SearchRequest::literal(format!("mark{i}zq ")))
            .unwrap();
        assert_eq!(found.total_matches, 1, "mark{i}zq");
    }
}
