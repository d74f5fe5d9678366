//! The trigram keys of the candidate index (`scry_store::grams`, schema 9), on their own: the
//! input is split at U+0001 into fields; every trigram of every field — as written and with its
//! ASCII letters' case swapped, as a case-insensitive query folds it — must have its query word
//! among the words of the fields' document (a missing word would be a search that misses a
//! match: the regex only ever sees the candidates), and every word is six base-32 digits. A
//! group's document is built by one reused set, merged from two (schema 11): it must hold the
//! same words, and nothing of the set's previous document.
#![no_main]

use std::collections::HashSet;

use libfuzzer_sys::fuzz_target;
use scry_store::grams::{doc_of, query_word, GramSet};

fn swap_case(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_lowercase() {
                c.to_ascii_uppercase()
            } else {
                c.to_ascii_lowercase()
            }
        })
        .collect()
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let fields: Vec<&str> = text.split('\u{1}').collect();
    let doc = doc_of(fields.iter().copied());
    let words: HashSet<&str> = doc.split(' ').filter(|w| !w.is_empty()).collect();
    for w in &words {
        assert!(
            w.len() == 6 && w.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'v')),
            "bad word {w:?}"
        );
    }
    let mut grams = 0;
    for f in &fields {
        let chars: Vec<char> = f.chars().collect();
        for win in chars.windows(3) {
            let g: String = win.iter().collect();
            for q in [g.clone(), swap_case(&g)] {
                let w = query_word(&q).expect("three characters give a word");
                assert!(words.contains(w.as_str()), "trigram {q:?} of {f:?} not indexed");
            }
            grams += 1;
        }
    }
    // Distinct words never outnumber the trigrams they come from.
    assert!(words.len() <= grams);
    // A reused set (after a document of other text), merged from two halves of the fields.
    let mut set = GramSet::default();
    let mut scratch = String::new();
    set.add(&format!("{}#~", swap_case(&text)));
    set.take_doc(&mut scratch);
    let mut other = GramSet::default();
    for (i, f) in fields.iter().enumerate() {
        if i % 2 == 0 {
            set.add(f);
        } else {
            other.add(f);
        }
    }
    set.merge(&mut other);
    set.take_doc(&mut scratch);
    let grouped: HashSet<&str> = scratch.split(' ').filter(|w| !w.is_empty()).collect();
    assert_eq!(grouped, words, "a reused, merged set differs from one document");
});
