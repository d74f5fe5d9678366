//! The trigram keys of the candidate index (`scry_store::grams`, schema 9), on their own: the
//! input is split at U+0001 into fields; every trigram of every field — as written and with its
//! ASCII letters' case swapped, as a case-insensitive query folds it — must have its query key
//! among the keys of the fields' document (a missing key would be a search that misses a
//! match: the regex only ever sees the candidates), every key is below `KEYS` and none is
//! repeated. A group's document is built by one reused set, merged from two (schema 11): it
//! must hold the same keys, and nothing of the set's previous document. The keys are exactly
//! those of each window of three characters keyed on its own (the byte walk's ASCII fast path
//! changes no key).
#![no_main]

use std::collections::HashSet;

use libfuzzer_sys::fuzz_target;
use scry_store::grams::{keys_of, query_key, GramSet, KEYS};

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
    let doc = keys_of(fields.iter().copied());
    let words: HashSet<u32> = doc.iter().copied().collect();
    assert_eq!(words.len(), doc.len(), "a key repeated");
    assert!(doc.iter().all(|k| *k < KEYS), "a key out of range");
    let mut grams = 0;
    // The plain walk: each window of three characters keyed on its own.
    let mut plain = HashSet::new();
    for f in &fields {
        let chars: Vec<char> = f.chars().collect();
        for win in chars.windows(3) {
            let g: String = win.iter().collect();
            plain.insert(query_key(&g).expect("three characters give a key"));
            for q in [g.clone(), swap_case(&g)] {
                let w = query_key(&q).expect("three characters give a key");
                assert!(words.contains(&w), "trigram {q:?} of {f:?} not indexed");
            }
            grams += 1;
        }
    }
    // Distinct words never outnumber the trigrams they come from, and are exactly their keys.
    assert!(words.len() <= grams);
    assert_eq!(words, plain, "the byte walk keys differ from the plain walk's");
    // A reused set (after a document of other text), merged from two halves of the fields.
    let mut set = GramSet::default();
    let mut scratch = Vec::new();
    set.add(&format!("{}#~", swap_case(&text)));
    set.take_keys(&mut scratch);
    let mut other = GramSet::default();
    for (i, f) in fields.iter().enumerate() {
        if i % 2 == 0 {
            set.add(f);
        } else {
            other.add(f);
        }
    }
    set.merge(&mut other);
    set.take_keys(&mut scratch);
    let grouped: HashSet<u32> = scratch.iter().copied().collect();
    assert_eq!(grouped, words, "a reused, merged set differs from one document");
});
