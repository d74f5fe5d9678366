//! The candidate index's own posting lists (schema 12, issue 17): per trigram key
//! ([`crate::grams`]), the sorted ids of the candidate documents holding it — a group of a
//! session's blocks (the id of its first block, `sid << 32 | seq`) or a session's own document
//! (title and artifacts, `sid << 32 | 0xFFFF_FFFF`). They replaced a contentless FTS5 table
//! whose pending-term hash, sorts and segment merges were most of a cold index's writer.
//!
//! Stored in `grams(id, dir, ids)` (schema 13): each transaction's writes become one new *run*,
//! and runs of similar size are merged into one ([`crate::gramq`]), so a query reads a key's
//! list in each of a few runs. A run is a sequence of *packs*, rows holding the lists of
//! consecutive keys (about [`PACK`] bytes of lists; a longer list is a pack of its own), so a
//! run costs one row insert per few KB instead of one per key: the row's id is
//! [`pack_id`]`(run, first key)`, `dir` the pack's directory (per key: its increase over the
//! previous key, the first's over the pack's first key being 0, then its list's length in
//! bytes, both LEB128 varints) and `ids` the lists, concatenated in key order. A key's list
//! in a run is found in the pack with the greatest id at most `pack_id(run, key)`.
//!
//! A row's `ids` is a *run list*: the document ids in increasing order of their *code*
//! `sid << 32 | (seq + 1) mod 2^32` (a session's own document sorts first), each written as two
//! LEB128 varints: the sid's increase over the previous entry's (the first entry: over 0), then
//! the code's low 32 bits when the sid increased, else their increase (at least 1). A session's
//! first group costs two bytes, as do most later ones.
//!
//! Public only for the fuzz target and the tests; not a stable API.

/// Sids are below this (an event id `sid << 32 | seq` is a positive i64).
const SID_LIMIT: u64 = 1 << 31;

/// The sort code of document id `id` (see the module doc).
pub fn code(id: i64) -> u64 {
    let sid = (id as u64) >> 32;
    (sid << 32) | u64::from((id as u32).wrapping_add(1))
}

/// The document id of sort code `code`.
pub fn id_of(code: u64) -> i64 {
    (((code >> 32) << 32) | u64::from((code as u32).wrapping_sub(1))) as i64
}

fn put(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn get(bytes: &[u8], at: &mut usize) -> Option<u64> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let b = *bytes.get(*at)?;
        *at += 1;
        let part = u64::from(b & 0x7f);
        if shift == 63 && part > 1 {
            return None;
        }
        v |= part << shift;
        if b & 0x80 == 0 {
            return Some(v);
        }
    }
    None
}

/// Appends the run list of `codes` (strictly increasing, sids below 2^31) to `out`.
pub fn encode(codes: impl IntoIterator<Item = u64>, out: &mut Vec<u8>) {
    let (mut sid, mut low) = (0u64, 0u64);
    for c in codes {
        let (s, l) = (c >> 32, c & 0xFFFF_FFFF);
        put(out, s.wrapping_sub(sid));
        put(
            out,
            if s != sid {
                l
            } else {
                l.wrapping_sub(low) & 0xFFFF_FFFF
            },
        );
        sid = s;
        low = l;
    }
}

/// Bytes of lists after which a pack is closed (the pack fits a 4 KB page with its directory).
pub const PACK: usize = 3 << 10;

/// The row id of run `run`'s pack whose first key is `key`.
pub fn pack_id(run: i64, key: u32) -> i64 {
    (run << 32) | i64::from(key)
}

/// Appends the directory entry of a list of `len` bytes whose key is `delta` above the previous
/// key of the pack (0 for the first).
pub fn dir_push(dir: &mut Vec<u8>, delta: u32, len: usize) {
    put(dir, u64::from(delta));
    put(dir, len as u64);
}

/// Appends the entries of the pack directory `dir` of a pack starting at key `first` to `out`:
/// (key, start, end) of each list in the pack's `ids`, starting at offset `base`; returns the
/// lists' total length. `Err` when the bytes are not a directory this module writes (keys not
/// increasing, past `u32`, lengths past `usize`).
pub fn unpack(
    first: u32,
    dir: &[u8],
    base: usize,
    out: &mut Vec<(u32, usize, usize)>,
) -> Result<usize, Damaged> {
    let (mut at, mut key, mut end) = (0usize, u64::from(first), base);
    let mut n = 0usize;
    while at < dir.len() {
        let delta = get(dir, &mut at).ok_or(Damaged)?;
        let len = get(dir, &mut at).ok_or(Damaged)?;
        if (n > 0) != (delta > 0) {
            return Err(Damaged);
        }
        key = key
            .checked_add(delta)
            .filter(|k| *k <= u64::from(u32::MAX))
            .ok_or(Damaged)?;
        let len = usize::try_from(len).map_err(|_| Damaged)?;
        let start = end;
        end = start.checked_add(len).ok_or(Damaged)?;
        out.push((key as u32, start, end));
        n += 1;
    }
    Ok(end - base)
}

/// Every (key, code) pair of the pack row `id` with directory `dir` and lists `ids`, appended
/// to `out` (for the tests that compare indexes).
pub fn pack_pairs(
    id: i64,
    dir: &[u8],
    ids: &[u8],
    out: &mut Vec<(u32, u64)>,
) -> Result<(), Damaged> {
    let mut lists = Vec::new();
    if unpack(id as u32, dir, 0, &mut lists)? != ids.len() {
        return Err(Damaged);
    }
    let mut codes = Vec::new();
    for (key, a, b) in lists {
        codes.clear();
        decode(&ids[a..b], &mut codes)?;
        out.extend(codes.iter().map(|&c| (key, c)));
    }
    Ok(())
}

/// Bytes that are not a run list this module writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Damaged;

/// Appends the codes of the run list `bytes` to `out`, in order; `Err` (and `out` holding what
/// decoded before the damage) when the bytes are not a run list this module writes.
pub fn decode(bytes: &[u8], out: &mut Vec<u64>) -> Result<(), Damaged> {
    let (mut at, mut sid, mut low) = (0usize, 0u64, 0u64);
    let mut first = true;
    while at < bytes.len() {
        let ds = get(bytes, &mut at).ok_or(Damaged)?;
        let v = get(bytes, &mut at).ok_or(Damaged)?;
        if ds > 0 || first {
            sid = sid
                .checked_add(ds)
                .filter(|s| *s < SID_LIMIT)
                .ok_or(Damaged)?;
            low = v;
        } else {
            low = low.checked_add(v).filter(|_| v > 0).ok_or(Damaged)?;
        }
        if low > 0xFFFF_FFFF {
            return Err(Damaged);
        }
        first = false;
        out.push(sid << 32 | low);
    }
    Ok(())
}

/// The codes in both `a` and `b` (each sorted), into `out`.
pub fn intersect(a: &[u64], b: &[u64], out: &mut Vec<u64>) {
    out.clear();
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                out.push(a[i]);
                i += 1;
                j += 1;
            }
        }
    }
}

/// Where a key's list is in one run: the pack's id and the list's range in its `ids`.
type Place = (i64, usize, usize);

/// Candidates left at which a conjunction stops reading further keys' lists.
const FEW: usize = 8;
/// A key's list is read only while it is smaller than this many bytes per candidate left:
/// verifying a candidate group (a zstd block group and the regex) costs about what decoding
/// 16 KB of list does.
const BYTES_PER_CANDIDATE: usize = 16 << 10;

/// The document ids holding every key of at least one of the conjunctions `disj` (a superset
/// of the documents with a match; ids of deleted documents may be among them), sorted. Each
/// key's list is the union of its lists in every run; a conjunction reads its keys' lists
/// smallest first (sizes from the packs' directories), intersecting as it goes, and stops once
/// nothing is left, few candidates are, or the next list costs more to read than the
/// candidates left cost to verify.
pub(crate) fn candidates(
    conn: &rusqlite::Connection,
    disj: &[Vec<u32>],
) -> crate::error::Result<Vec<i64>> {
    use crate::error::StoreError;
    let fail = || StoreError::db("trigram candidates");
    let damaged =
        || StoreError::IndexBuild("the candidate index is damaged; re-index with --force".into());
    let runs: Vec<i64> = {
        let mut st = conn
            .prepare_cached("SELECT run FROM gram_runs WHERE level >= 0 ORDER BY run")
            .map_err(fail())?;
        let rows = st.query_map([], |r| r.get(0)).map_err(fail())?;
        rows.collect::<rusqlite::Result<_>>().map_err(fail())?
    };
    let mut find = conn
        .prepare_cached(
            "SELECT id, dir FROM grams WHERE id BETWEEN ?1 AND ?2 ORDER BY id DESC LIMIT 1",
        )
        .map_err(fail())?;
    let mut read = conn
        .prepare_cached("SELECT ids FROM grams WHERE id = ?1")
        .map_err(fail())?;
    let mut out: Vec<u64> = Vec::new();
    let (mut list, mut next, mut entries) = (Vec::new(), Vec::new(), Vec::new());
    for conj in disj {
        // Where each key's list is in every run (pack id, range), and its total size, from the
        // packs' directories; the smallest lists are read first.
        let mut sized: Vec<(usize, u32, Vec<Place>)> = Vec::with_capacity(conj.len());
        for &key in conj {
            let (mut total, mut at) = (0usize, Vec::new());
            for &run in &runs {
                let mut rows = find
                    .query(rusqlite::params![pack_id(run, 0), pack_id(run, key)])
                    .map_err(fail())?;
                let Some(r) = rows.next().map_err(fail())? else {
                    continue;
                };
                let id: i64 = r.get(0).map_err(fail())?;
                let dir = r.get_ref(1).map_err(fail())?;
                let dir = dir.as_blob().map_err(|_| damaged())?;
                entries.clear();
                unpack(id as u32, dir, 0, &mut entries).map_err(|_| damaged())?;
                if let Ok(i) = entries.binary_search_by_key(&key, |e| e.0) {
                    let (_, a, b) = entries[i];
                    total += b - a;
                    at.push((id, a, b));
                }
            }
            sized.push((total, key, at));
        }
        sized.sort_unstable_by_key(|s| (s.0, s.1));
        let mut acc: Option<Vec<u64>> = None;
        for (bytes, _, at) in &sized {
            // A superset is a right answer (the regex decides): once few candidates are left,
            // or the next list is far larger than verifying them costs, stop narrowing.
            if let Some(a) = &acc {
                if a.len() <= FEW || *bytes > a.len().saturating_mul(BYTES_PER_CANDIDATE) {
                    break;
                }
            }
            list.clear();
            for &(id, a, b) in at {
                let mut rows = read.query([id]).map_err(fail())?;
                let r = rows.next().map_err(fail())?.ok_or_else(damaged)?;
                let ids = r.get_ref(0).map_err(fail())?;
                let ids = ids.as_blob().map_err(|_| damaged())?;
                let ids = ids.get(a..b).ok_or_else(damaged)?;
                decode(ids, &mut list).map_err(|_| damaged())?;
            }
            if !list.is_sorted() {
                list.sort();
            }
            list.dedup();
            acc = Some(match acc {
                None => std::mem::take(&mut list),
                Some(prev) => {
                    intersect(&prev, &list, &mut next);
                    std::mem::replace(&mut next, prev)
                }
            });
            if acc.as_ref().is_some_and(Vec::is_empty) {
                break;
            }
        }
        out.extend(acc.unwrap_or_default());
    }
    let mut ids: Vec<i64> = out.into_iter().map(id_of).collect();
    ids.sort_unstable();
    ids.dedup();
    Ok(ids)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_order_a_sessions_document_first_and_round_trip() {
        let ids = [
            1i64 << 32 | 0xFFFF_FFFF,
            1 << 32,
            1 << 32 | 17,
            2 << 32,
            (i64::from(i32::MAX)) << 32 | 0xFFFF_FFFE,
        ];
        let mut codes: Vec<u64> = ids.iter().map(|&i| code(i)).collect();
        assert!(codes.windows(2).all(|w| w[0] < w[1]), "{codes:?}");
        for &i in &ids {
            assert_eq!(id_of(code(i)), i);
        }
        let mut bytes = Vec::new();
        encode(codes.iter().copied(), &mut bytes);
        // Two bytes for each of the first four (the last sid's increase is large).
        assert!(bytes.len() < 4 * 2 + 6 + 6, "{}", bytes.len());
        let mut back = Vec::new();
        decode(&bytes, &mut back).unwrap();
        assert_eq!(back, codes);
        codes.clear();
        bytes.clear();
        encode(codes.iter().copied(), &mut bytes);
        assert!(bytes.is_empty());
        decode(&bytes, &mut back).unwrap();
    }

    #[test]
    fn damage_is_an_error_not_a_panic() {
        let mut out = Vec::new();
        // Truncated varint, a repeated code (increase 0), a sid past 2^31, a low part past u32.
        for bad in [
            &[0x80u8][..],
            &[1, 1, 0, 0],
            &[0xff, 0xff, 0xff, 0xff, 0x0f, 0],
            &[1, 0xff, 0xff, 0xff, 0xff, 0x1f],
            &[0xff; 11],
        ] {
            assert!(decode(bad, &mut out).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn pack_directories_round_trip_and_damage_is_an_error() {
        let mut dir = Vec::new();
        dir_push(&mut dir, 0, 3);
        dir_push(&mut dir, 5, 0);
        dir_push(&mut dir, 300, 2);
        let mut out = Vec::new();
        assert_eq!(unpack(7, &dir, 10, &mut out), Ok(5));
        assert_eq!(out, [(7, 10, 13), (12, 13, 13), (312, 13, 15)]);
        // A first key with an increase, a later key without one, a key past u32.
        let mut bad = Vec::new();
        dir_push(&mut bad, 1, 1);
        assert!(unpack(0, &bad, 0, &mut out).is_err());
        bad.clear();
        dir_push(&mut bad, 0, 1);
        dir_push(&mut bad, 0, 1);
        assert!(unpack(0, &bad, 0, &mut out).is_err());
        bad.clear();
        dir_push(&mut bad, 0, 1);
        dir_push(&mut bad, 2, 1);
        assert!(unpack(u32::MAX - 1, &bad, 0, &mut out).is_err());
        assert!(unpack(0, &[0x80], 0, &mut out).is_err());
    }

    #[test]
    fn intersection() {
        let mut out = Vec::new();
        intersect(&[1, 3, 5, 7], &[2, 3, 7, 9], &mut out);
        assert_eq!(out, [3, 7]);
    }
}
