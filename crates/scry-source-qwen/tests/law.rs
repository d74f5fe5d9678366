//! The resume law (SPEC S-I2) as the index applies it, on every Qwen Code file of the corpus
//! and the demo, through the shared harness ([`scry_testkit::law`]): parse a prefix cut at every
//! line end (and in the middle of every line) with resume points requested, keep what came
//! before the point, continue over the whole file → events, warnings and header equal a full
//! parse. Also chained, cut after cut.

use std::path::Path;

use scry_source::{Env, Source};
use scry_source_qwen::discover::classify;
use scry_source_qwen::QwenSource;
use scry_testkit::law;

/// Every line end, and the middle of every line (a torn tail), after the empty prefix.
fn every_cut(bytes: &[u8]) -> Vec<usize> {
    let mut at: Vec<usize> = vec![0];
    let mut start = 0;
    for end in law::line_ends(bytes) {
        at.push(start + (end - 1 - start) / 2);
        at.push(end);
        start = end;
    }
    at
}

/// The law on every file of `home`: (cuts, cuts that resumed).
fn check_home(home: &Path) -> (usize, usize) {
    let found = QwenSource.discover(&Env::with_home(home)).files;
    assert!(!found.is_empty());
    let (mut cuts, mut resumed) = (0, 0);
    for orig in found {
        let bytes = std::fs::read(&orig.path).unwrap();
        let t = law::check(
            &QwenSource,
            &orig.path,
            &|p| classify(p).expect("a Qwen Code path"),
            &every_cut(&bytes),
            3,
        );
        // Qwen Code always resumes from its own points: a refusal is a failure here.
        assert_eq!(t.refused, 0, "{}", orig.path.display());
        cuts += t.cuts;
        resumed += t.resumed;
    }
    (cuts, resumed)
}

#[test]
fn resume_law_on_the_corpus_and_the_demo() {
    let (cuts, resumed) = check_home(&scry_testkit::corpus().join("real/home"));
    // 69 lines over three files: 2 cuts per line plus the empty file, each.
    assert_eq!(cuts, 2 * (56 + 8 + 5) + 3);
    // A torn cut offers the point before its partial line, so every cut but the empty
    // prefixes (and torn first lines) resumes.
    assert!(resumed >= 56 + 8 + 5, "{resumed}");
    let (cuts, _) = check_home(&scry_testkit::demo().join("home"));
    assert_eq!(cuts, 2 * 16 + 1);
}
