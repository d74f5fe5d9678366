//! The run lists of the candidate index (`scry_store::postings`, schema 12): the on-disk
//! encoding of each posting list row. Decoding arbitrary bytes never panics, and what decodes
//! is strictly increasing with sids below 2^31 (the readers intersect sorted lists); the codes
//! read from the input (8 bytes each, sorted and deduplicated, sid cut to 31 bits) encode and
//! decode back to themselves, and re-encoding a decoded list gives its bytes back exactly;
//! `id_of` undoes `code`, and `intersect` agrees with a set intersection. A pack directory
//! (schema 13) read from any bytes is an error or increasing keys over contiguous ranges, and
//! writing its entries back reads the same.
#![no_main]

use std::collections::BTreeSet;

use libfuzzer_sys::fuzz_target;
use scry_store::postings::{code, decode, dir_push, encode, id_of, intersect, unpack};

fuzz_target!(|data: &[u8]| {
    // Any bytes: an error or an increasing list, never a panic.
    let mut out = Vec::new();
    if decode(data, &mut out).is_ok() {
        assert!(out.windows(2).all(|w| w[0] < w[1]), "decoded out of order");
        assert!(out.iter().all(|c| c >> 32 < 1 << 31), "sid out of range");
        let mut again = Vec::new();
        encode(out.iter().copied(), &mut again);
        let mut back = Vec::new();
        decode(&again, &mut back).expect("an encoded list decodes");
        assert_eq!(back, out);
    }
    // Any bytes as a pack directory: an error, or keys increasing over contiguous ranges that
    // write back to the same entries.
    let mut lists = Vec::new();
    if let Ok(total) = unpack(7, data, 3, &mut lists) {
        assert!(lists.windows(2).all(|w| w[0].0 < w[1].0 && w[0].2 == w[1].1));
        assert_eq!(lists.first().map_or(7, |l| l.0), 7, "the first key is the pack's");
        assert_eq!(lists.first().map_or(3, |l| l.1), 3);
        assert_eq!(lists.last().map_or(3, |l| l.2), 3 + total);
        let mut again = Vec::new();
        let mut prev = 7;
        for &(k, a, b) in &lists {
            dir_push(&mut again, k - prev, b - a);
            prev = k;
        }
        let mut back = Vec::new();
        assert_eq!(unpack(7, &again, 3, &mut back), Ok(total));
        assert_eq!(back, lists);
    }
    // Codes from the input: a round trip.
    let codes: BTreeSet<u64> = data
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap()) & ((1 << 63) - 1))
        .collect();
    let codes: Vec<u64> = codes.into_iter().collect();
    let mut bytes = Vec::new();
    encode(codes.iter().copied(), &mut bytes);
    let mut back = Vec::new();
    decode(&bytes, &mut back).expect("an encoded list decodes");
    assert_eq!(back, codes);
    for &c in &codes {
        assert_eq!(code(id_of(c)), c, "code {c:#x}");
    }
    // Intersection of the two halves.
    let (a, b) = codes.split_at(codes.len() / 2);
    let b: Vec<u64> = b.iter().map(|c| c & !0xFF).collect::<BTreeSet<_>>().into_iter().collect();
    let mut both = Vec::new();
    intersect(a, &b, &mut both);
    let want: Vec<u64> = a.iter().filter(|c| b.binary_search(c).is_ok()).copied().collect();
    assert_eq!(both, want);
});
