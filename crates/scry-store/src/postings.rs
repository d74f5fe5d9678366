//! The candidate index's own posting lists (schema 12, issue 17): per trigram key
//! ([`crate::grams`]), the sorted ids of the candidate documents holding it — a group of a
//! session's blocks (the id of its first block, `sid << 32 | seq`) or a session's own document
//! (title and artifacts, `sid << 32 | 0xFFFF_FFFF`). They replaced a contentless FTS5 table
//! whose pending-term hash, sorts and segment merges were most of a cold index's writer.
//!
//! Stored in `grams(run, key, ids)`: each transaction's writes become one new *run* (one row
//! per key it touched, appended at the end of the table), and runs of similar size are merged
//! into one ([`crate::gramq`]), so a query reads a key's row in each of a few runs.
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

/// Candidates left at which a conjunction stops reading further keys' lists.
const FEW: usize = 8;
/// A key's list is read only while it is smaller than this many bytes per candidate left:
/// verifying a candidate group (a zstd block group and the regex) costs about what decoding
/// 16 KB of list does.
const BYTES_PER_CANDIDATE: usize = 16 << 10;

/// The document ids holding every key of at least one of the conjunctions `disj` (a superset
/// of the documents with a match; ids of deleted documents may be among them), sorted. Each
/// key's list is the union of its rows in every run; a conjunction reads its keys' lists
/// smallest first, intersecting as it goes, and stops once nothing is left, few candidates
/// are, or the next list costs more to read than the candidates left cost to verify.
///
/// The sizes only choose the order and the stop (any order gives a superset of the matches),
/// so they are estimated from one run, the one holding the most bytes, scaled to all runs: one
/// row lookup per key instead of one per key and run. A lookup in `grams` is dear: it is a
/// `WITHOUT ROWID` table whose rows carry their lists, so each key compared on the way down
/// the b-tree reads that row's whole list, overflow pages and all.
pub(crate) fn candidates(
    conn: &rusqlite::Connection,
    disj: &[Vec<u32>],
) -> crate::error::Result<Vec<i64>> {
    use crate::error::StoreError;
    use rusqlite::OptionalExtension;
    let fail = || StoreError::db("trigram candidates");
    let damaged =
        || StoreError::IndexBuild("the candidate index is damaged; re-index with --force".into());
    let (runs, run_bytes): (Vec<i64>, Vec<i64>) = {
        let mut st = conn
            .prepare_cached("SELECT run, bytes FROM gram_runs WHERE level >= 0 ORDER BY run")
            .map_err(fail())?;
        let rows = st
            .query_map([], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?)))
            .map_err(fail())?;
        rows.collect::<rusqlite::Result<Vec<_>>>()
            .map_err(fail())?
            .into_iter()
            .unzip()
    };
    // The run whose sizes stand for every run's, and the factor scaling them to all runs.
    let probe = run_bytes.iter().enumerate().max_by_key(|&(_, b)| *b);
    let (probe, scale) = match probe {
        Some((at, &b)) if b > 0 => (runs[at], run_bytes.iter().sum::<i64>() as f64 / b as f64),
        _ => (0, 1.0),
    };
    let mut size = conn
        .prepare_cached("SELECT length(ids) FROM grams WHERE run = ?1 AND key = ?2")
        .map_err(fail())?;
    let mut read = conn
        .prepare_cached("SELECT ids FROM grams WHERE run = ?1 AND key = ?2")
        .map_err(fail())?;
    let mut out: Vec<u64> = Vec::new();
    let (mut list, mut next) = (Vec::new(), Vec::new());
    for conj in disj {
        // Each key's estimated size over every run (its row's in the probe run, scaled); the
        // smallest lists are read first.
        let mut sized: Vec<(usize, u32)> = Vec::with_capacity(conj.len());
        for &key in conj {
            let n: Option<i64> = size
                .query_row(rusqlite::params![probe, key], |r| r.get(0))
                .optional()
                .map_err(fail())?;
            let n = usize::try_from(n.unwrap_or(0)).unwrap_or(0);
            sized.push(((n as f64 * scale) as usize, key));
        }
        sized.sort_unstable();
        let mut acc: Option<Vec<u64>> = None;
        for &(bytes, key) in &sized {
            // A superset is a right answer (the regex decides): once few candidates are left,
            // or the next list is far larger than verifying them costs, stop narrowing.
            if let Some(a) = &acc {
                if a.len() <= FEW || bytes > a.len().saturating_mul(BYTES_PER_CANDIDATE) {
                    break;
                }
            }
            list.clear();
            for &run in &runs {
                let mut rows = read.query(rusqlite::params![run, key]).map_err(fail())?;
                if let Some(r) = rows.next().map_err(fail())? {
                    let ids = r.get_ref(0).map_err(fail())?;
                    let ids = ids.as_blob().map_err(|_| damaged())?;
                    decode(ids, &mut list).map_err(|_| damaged())?;
                }
            }
            if !list.is_sorted() {
                list.sort_unstable();
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

    /// One run: (run, level, bytes, [(key, ids)]).
    type Run<'a> = (i64, i64, i64, &'a [(u32, &'a [i64])]);

    /// A connection holding `runs`.
    fn runs_db(runs: &[Run<'_>]) -> rusqlite::Connection {
        let conn = rusqlite::Connection::open_in_memory().unwrap();
        conn.execute_batch(
            "CREATE TABLE grams(run INTEGER NOT NULL, key INTEGER NOT NULL, ids BLOB NOT NULL,
                 PRIMARY KEY(run, key)) WITHOUT ROWID;
             CREATE TABLE gram_runs(run INTEGER PRIMARY KEY, level INTEGER NOT NULL,
                 bytes INTEGER NOT NULL);",
        )
        .unwrap();
        for &(run, level, bytes, rows) in runs {
            conn.execute(
                "INSERT INTO gram_runs VALUES(?1, ?2, ?3)",
                rusqlite::params![run, level, bytes],
            )
            .unwrap();
            for &(key, ids) in rows {
                let mut codes: Vec<u64> = ids.iter().map(|&i| code(i)).collect();
                codes.sort_unstable();
                let mut blob = Vec::new();
                encode(codes, &mut blob);
                conn.execute(
                    "INSERT INTO grams VALUES(?1, ?2, ?3)",
                    rusqlite::params![run, key, blob],
                )
                .unwrap();
            }
        }
        conn
    }

    #[test]
    fn sizes_estimated_from_the_largest_run_still_give_every_match() {
        let doc = |sid: i64| sid << 32 | 3;
        let many: Vec<i64> = (1..=300).map(doc).collect();
        let (d5, d7, d9) = (doc(5), doc(7), doc(9));
        let four: Vec<i64> = (400..=420).map(doc).collect();
        let five: Vec<i64> = (410..=430).map(doc).collect();
        // Run 1 is the probe (most bytes): key 2 is not in it at all, but is in the small runs;
        // key 1 is everywhere. Run 4 is still being written (level -1) and is not read.
        let conn = runs_db(&[
            (1, 2, 5000, &[(1, &many), (3, &[d7])]),
            (2, 0, 40, &[(1, &[d9]), (2, &[d5, d9]), (4, &four)]),
            (3, 0, 20, &[(2, &[d7]), (3, &[d9]), (5, &five)]),
            (4, -1, 9000, &[(2, &many), (3, &many)]),
        ]);
        // Key 2's list (the union over runs 1-3: d5, d7, d9) is estimated empty and read
        // first; three candidates are few, so key 1 is not read: a superset of {d9}, whose
        // verification is the caller's.
        let got = candidates(&conn, &[vec![1, 2]]).unwrap();
        assert_eq!(got, vec![d5, d7, d9]);
        // Key 2 is read first again, and its three candidates are few: key 3 is not read.
        assert_eq!(candidates(&conn, &[vec![2, 3]]).unwrap(), vec![d5, d7, d9]);
        // Two small lists of many candidates each: intersected.
        assert_eq!(
            candidates(&conn, &[vec![4, 5]]).unwrap(),
            (410..=420).map(doc).collect::<Vec<_>>()
        );
        // A key in no run: nothing, whatever the other keys hold; the union of conjunctions.
        assert!(candidates(&conn, &[vec![1, 99]]).unwrap().is_empty());
        assert_eq!(
            candidates(&conn, &[vec![1, 99], vec![3]]).unwrap(),
            vec![d7, d9]
        );
        // Every match is among the candidates, for every pair of keys.
        for a in 1..=3u32 {
            for b in 1..=3u32 {
                let got = candidates(&conn, &[vec![a, b]]).unwrap();
                let of = |k: u32| -> Vec<i64> {
                    let mut v: Vec<i64> = match k {
                        1 => many.iter().copied().chain([d9]).collect(),
                        2 => vec![d5, d7, d9],
                        _ => vec![d7, d9],
                    };
                    v.sort_unstable();
                    v
                };
                for id in of(a).iter().filter(|i| of(b).contains(i)) {
                    assert!(got.contains(id), "{a} {b}: {id} missing from {got:?}");
                }
            }
        }
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
    fn intersection() {
        let mut out = Vec::new();
        intersect(&[1, 3, 5, 7], &[2, 3, 7, 9], &mut out);
        assert_eq!(out, [3, 7]);
    }
}
