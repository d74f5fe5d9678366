//! Trigram keys of the candidate index (schema 9; since schema 12 the keys of our own posting
//! lists, [`crate::postings`]): the writer reduces each searchable field of a candidate
//! document to its set of distinct trigram keys (a 40 KB block of text has a few thousand
//! distinct trigrams but forty thousand positions; issue 17).
//!
//! A trigram's key folds ASCII letters to lower case and leaves every other character as it is;
//! three ASCII characters give an exact 21-bit key, anything else a 30-bit hash above those (a
//! collision only adds a candidate block: the regex stays the only authority on matches). The
//! query side ([`crate::search`]) builds its trigrams only from characters whose case variants
//! are none or one ASCII pair, so a case-insensitive match sees the same keys as the text.
//! Trigrams never span two fields: a match lies inside one field.
//!
//! Public only for the `grams` fuzz target; not a stable API.

/// Keys below this are three ASCII characters packed exactly.
const ASCII_KEYS: u32 = 1 << 21;
/// Keys are below this (30 bits).
pub const KEYS: u32 = 1 << 30;

fn fold(c: char) -> u32 {
    u32::from(c.to_ascii_lowercase())
}

/// The folded character (see [`fold`]) starting at byte `i` of valid UTF-8 `bytes`; moves `i`
/// past it. `i` must be below `bytes.len()` and on a character boundary.
#[inline]
fn next_char(bytes: &[u8], i: &mut usize) -> u32 {
    let b0 = bytes[*i];
    if b0 < 0x80 {
        *i += 1;
        return u32::from(b0.to_ascii_lowercase());
    }
    let cont = |j: usize| u32::from(bytes.get(*i + j).copied().unwrap_or(0x80) & 0x3f);
    let (c, len) = if b0 < 0xe0 {
        ((u32::from(b0) & 0x1f) << 6 | cont(1), 2)
    } else if b0 < 0xf0 {
        ((u32::from(b0) & 0x0f) << 12 | cont(1) << 6 | cont(2), 3)
    } else {
        (
            (u32::from(b0) & 0x07) << 18 | cont(1) << 12 | cont(2) << 6 | cont(3),
            4,
        )
    };
    *i += len;
    c
}

/// The key of the trigram of folded characters `a`, `b`, `c`.
fn key(a: u32, b: u32, c: u32) -> u32 {
    if a < 128 && b < 128 && c < 128 {
        return a << 14 | b << 7 | c;
    }
    let mut h = (u64::from(a) << 42) ^ (u64::from(b) << 21) ^ u64::from(c);
    // splitmix64 finalizer
    h = (h ^ (h >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    h = (h ^ (h >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    h ^= h >> 31;
    ASCII_KEYS + (h % u64::from(KEYS - ASCII_KEYS)) as u32
}

/// ASCII bytes keyed per slice of [`GramSet::add`]'s inner loop (bounds the key slots the
/// set keeps ahead of its distinct keys).
const CHUNK: usize = 16 * 1024;

/// The distinct trigram keys of a block's (or a group of blocks') fields, deduplicated as they
/// are added: ASCII keys through a bitmap (one bit test per position, no sort), the others
/// sorted when taken. Memory is the distinct keys, not the positions.
#[derive(Debug, Default)]
pub struct GramSet {
    /// One bit per ASCII key (allocated on first use, cleared key by key when taken).
    seen: Vec<u64>,
    /// The distinct ASCII keys in order of first occurrence: the first `ascii_len` entries;
    /// the ones past it are slots the loop writes every key into before it knows whether
    /// the key is new (no branch per position).
    ascii: Vec<u32>,
    /// How many entries of `ascii` are keys.
    ascii_len: usize,
    /// The other keys (hashed), with repeats.
    others: Vec<u32>,
    /// The Bloom filter of the keys added since the last [`GramSet::take_bloom`] (one block's
    /// keys, while the key lists above cover the block's whole group); [`BLOOM_WORDS`] words.
    bloom: Vec<u64>,
}

/// Words of a block's Bloom filter of its trigram keys: 16,384 bits, one hash (2 KB per block).
/// A 40 KB block holds ≈ 12,000 distinct keys, so a key it lacks passes for about one in two,
/// and a query's conjunction of up to a dozen keys for one block in a few thousand.
pub const BLOOM_WORDS: usize = 256;
/// Bytes of a stored Bloom filter.
pub const BLOOM_BYTES: usize = BLOOM_WORDS * 8;

/// The (word, bit) of key `k` in a block's Bloom filter.
#[inline]
fn bloom_bit(k: u32) -> (usize, u64) {
    let h = k.wrapping_mul(0x9E37_79B1) >> 18;
    ((h >> 6) as usize, 1u64 << (h & 63))
}

/// Whether the stored Bloom filter `bloom` ([`GramSet::take_bloom`]) may hold every key of
/// `keys`; a filter of another length (none stored) may hold anything.
pub fn bloom_may_hold(bloom: &[u8], keys: &[u32]) -> bool {
    if bloom.len() != BLOOM_BYTES {
        return true;
    }
    keys.iter().all(|&k| {
        let (word, bit) = bloom_bit(k);
        let w = u64::from_le_bytes(
            bloom[word * 8..word * 8 + 8]
                .try_into()
                .unwrap_or([0xff; 8]),
        );
        w & bit != 0
    })
}

impl GramSet {
    /// Adds the trigrams of one field.
    ///
    /// Walks the bytes: a run of ASCII bytes (most text) rolls the exact key along without
    /// decoding characters and records it without a branch (written into the next slot, which
    /// counts only when the key's bit was clear); any other character is decoded and keyed by
    /// [`key`], so every key equals the one [`query_key`] gives its three characters.
    pub fn add(&mut self, text: &str) {
        let bytes = text.as_bytes();
        let n = bytes.len();
        if n < 3 {
            // Fewer than three bytes hold fewer than three characters.
            return;
        }
        if self.seen.is_empty() {
            self.seen.resize((ASCII_KEYS / 64) as usize, 0);
        }
        if self.bloom.is_empty() {
            self.bloom.resize(BLOOM_WORDS, 0);
        }
        let mut i = 0;
        let mut a = next_char(bytes, &mut i);
        if i >= n {
            return;
        }
        let mut b = next_char(bytes, &mut i);
        while i < n {
            if a < 128 && b < 128 {
                // The last two characters packed; each ASCII byte shifts in the next one.
                let mut k = a << 7 | b;
                loop {
                    let end = n.min(i + CHUNK);
                    self.slots(end - i);
                    let (seen, ascii) = (&mut self.seen[..], &mut self.ascii[..]);
                    let bloom = &mut self.bloom[..];
                    let mut len = self.ascii_len;
                    while i < end {
                        let c = bytes[i];
                        if c >= 128 {
                            break;
                        }
                        k = (k << 7 | u32::from(c.to_ascii_lowercase())) & (ASCII_KEYS - 1);
                        let (word, bit) = ((k / 64) as usize, 1u64 << (k % 64));
                        let w = seen[word];
                        ascii[len] = k;
                        len += usize::from(w & bit == 0);
                        seen[word] = w | bit;
                        let (bw, bb) = bloom_bit(k);
                        bloom[bw & (BLOOM_WORDS - 1)] |= bb;
                        i += 1;
                    }
                    self.ascii_len = len;
                    if i < end || i >= n {
                        break;
                    }
                }
                a = k >> 7 & 127;
                b = k & 127;
                if i >= n {
                    break;
                }
            }
            let c = next_char(bytes, &mut i);
            let k = key(a, b, c);
            let (bw, bb) = bloom_bit(k);
            self.bloom[bw & (BLOOM_WORDS - 1)] |= bb;
            if k < ASCII_KEYS {
                self.add_ascii(k);
            } else {
                self.others.push(k);
            }
            a = b;
            b = c;
        }
        if self.others.len() > 1 << 16 {
            self.others.sort_unstable();
            self.others.dedup();
        }
    }

    /// Makes room for `n` more ASCII keys past the distinct ones.
    fn slots(&mut self, n: usize) {
        if self.ascii.len() < self.ascii_len + n {
            self.ascii.resize(self.ascii_len + n, 0);
        }
    }

    /// Adds an ASCII key (below [`ASCII_KEYS`]) unless it is already in.
    fn add_ascii(&mut self, k: u32) {
        let (word, bit) = ((k / 64) as usize, 1u64 << (k % 64));
        if self.seen[word] & bit == 0 {
            self.seen[word] |= bit;
            self.slots(1);
            self.ascii[self.ascii_len] = k;
            self.ascii_len += 1;
        }
    }

    /// Writes the Bloom filter of the keys added since the last call ([`BLOOM_BYTES`] bytes,
    /// little-endian words) into `out`, and empties it. [`GramSet::clear`] (and so
    /// [`GramSet::take_keys`]) empties it too: a closing block takes its filter before its
    /// group's keys.
    pub fn take_bloom(&mut self, out: &mut Vec<u8>) {
        out.clear();
        out.reserve(BLOOM_BYTES);
        if self.bloom.is_empty() {
            out.resize(BLOOM_BYTES, 0);
            return;
        }
        for w in &mut self.bloom {
            out.extend_from_slice(&w.to_le_bytes());
            *w = 0;
        }
    }

    /// Adds every key of `other`, and empties it.
    pub fn merge(&mut self, other: &mut GramSet) {
        if self.seen.is_empty() {
            self.seen.resize((ASCII_KEYS / 64) as usize, 0);
        }
        for &k in other.keys() {
            self.add_ascii(k);
        }
        self.others.extend_from_slice(&other.others);
        other.clear();
    }

    /// The distinct ASCII keys.
    fn keys(&self) -> &[u32] {
        &self.ascii[..self.ascii_len]
    }

    /// Whether no trigram was added.
    pub fn is_empty(&self) -> bool {
        self.ascii_len == 0 && self.others.is_empty()
    }

    /// Writes the distinct keys added into `out` (ASCII keys in order of first occurrence,
    /// then the others sorted), and forgets them.
    pub fn take_keys(&mut self, out: &mut Vec<u32>) {
        out.clear();
        out.extend_from_slice(self.keys());
        self.others.sort_unstable();
        self.others.dedup();
        out.extend_from_slice(&self.others);
        self.clear();
    }

    /// Forgets every key added.
    pub fn clear(&mut self) {
        for &k in &self.ascii[..self.ascii_len] {
            self.seen[(k / 64) as usize] = 0;
        }
        self.ascii_len = 0;
        self.others.clear();
        self.bloom.iter_mut().for_each(|w| *w = 0);
    }
}

/// The distinct keys of the trigrams of `fields` (each field on its own).
pub fn keys_of<'a>(fields: impl IntoIterator<Item = &'a str>) -> Vec<u32> {
    let mut set = GramSet::default();
    for f in fields {
        set.add(f);
    }
    let mut out = Vec::new();
    set.take_keys(&mut out);
    out
}

/// The key of one trigram (exactly three characters), as the writer keys it.
pub fn query_key(gram: &str) -> Option<u32> {
    let mut it = gram.chars().map(fold);
    let (Some(a), Some(b), Some(c), None) = (it.next(), it.next(), it.next(), it.next()) else {
        return None;
    };
    Some(key(a, b, c))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fold_and_keys() {
        assert_eq!(query_key("ABC"), query_key("abc"));
        assert_ne!(query_key("abd"), query_key("abc"));
        assert_eq!(query_key("会话跨"), query_key("会话跨"));
        assert_ne!(query_key("Äbc"), query_key("äbc"));
        assert!(query_key("ab").is_none());
        assert!(query_key("abcd").is_none());
        let doc = keys_of(["Hello hello", "x"]);
        // "hel", "ell", "llo", "lo ", "o h", " he": six distinct trigrams of the first field.
        assert_eq!(doc.len(), 6, "{doc:?}");
        for w in ["Hel", "llo", "o h"] {
            assert!(doc.iter().any(|d| Some(*d) == query_key(w)));
        }
        assert!(doc.iter().all(|k| *k < KEYS));
    }

    #[test]
    fn a_set_is_reused_and_merged_without_leftovers() {
        let sorted = |mut v: Vec<u32>| {
            v.sort_unstable();
            v
        };
        let mut set = GramSet::default();
        let mut doc = Vec::new();
        set.add("Hello world 会话跨");
        set.take_keys(&mut doc);
        assert_eq!(sorted(doc.clone()), sorted(keys_of(["Hello world 会话跨"])));
        // Nothing of the first document is left in the reused set.
        set.add("xyz");
        set.take_keys(&mut doc);
        assert_eq!(doc, keys_of(["xyz"]));
        let mut other = GramSet::default();
        set.add("abcd 会话跨");
        other.add("bcde 会话跨");
        set.merge(&mut other);
        assert!(other.is_empty());
        set.take_keys(&mut doc);
        assert_eq!(
            sorted(doc.clone()),
            sorted(keys_of(["abcd 会话跨", "bcde 会话跨"]))
        );
    }

    /// The keys of `text` the plain way: every window of three characters, folded and keyed
    /// (the implementation before the byte walk), in the order [`GramSet::take_keys`] gives.
    fn reference(fields: &[&str]) -> Vec<u32> {
        let mut ascii = Vec::new();
        let mut seen = std::collections::HashSet::new();
        let mut others = Vec::new();
        for f in fields {
            let chars: Vec<u32> = f.chars().map(fold).collect();
            for w in chars.windows(3) {
                let k = key(w[0], w[1], w[2]);
                if k >= ASCII_KEYS {
                    others.push(k);
                } else if seen.insert(k) {
                    ascii.push(k);
                }
            }
        }
        others.sort_unstable();
        others.dedup();
        ascii.extend(others);
        ascii
    }

    fn assert_like_reference(fields: &[&str]) {
        assert_eq!(
            keys_of(fields.iter().copied()),
            reference(fields),
            "{fields:?}"
        );
    }

    #[test]
    fn the_byte_walk_keys_as_the_plain_walk() {
        for s in [
            "",
            "a",
            "ab",
            "abc",
            "ABCD",
            "é",
            "éa",
            "aé",
            "abé",
            "éab",
            "aéb",
            "会话跨",
            "a会话跨z",
            "xy会",
            "会xy",
            "Hello, Wörld! 😀 ok 😀😀 İstanbul ǅ K",
            "\0\u{7f}\u{80}\u{7ff}\u{800}\u{ffff}\u{10000}\u{10ffff}abc\u{7f}\u{7f}",
        ] {
            assert_like_reference(&[s]);
            assert_like_reference(&[s, s, "tail ASCII text"]);
        }
    }

    #[test]
    fn the_byte_walk_keys_every_corpus_file_as_the_plain_walk() {
        let mut files = Vec::new();
        let mut dirs = vec![scry_testkit::corpus()];
        while let Some(d) = dirs.pop() {
            for e in std::fs::read_dir(&d).unwrap().flatten() {
                let p = e.path();
                if p.is_dir() {
                    dirs.push(p);
                } else {
                    files.push(p);
                }
            }
        }
        let (mut texts, mut bytes, mut non_ascii) = (0, 0, 0);
        for p in &files {
            // The text files (the databases' pages are mostly not text).
            let Ok(text) = String::from_utf8(std::fs::read(p).unwrap()) else {
                continue;
            };
            texts += 1;
            bytes += text.len();
            non_ascii += usize::from(!text.is_ascii());
            // Each line on its own and the whole file as one field.
            let lines: Vec<&str> = text.lines().collect();
            assert_like_reference(&lines);
            assert_like_reference(&[&text]);
            assert_bloom_holds(&lines);
        }
        assert!(
            texts > 100 && bytes > 1_000_000,
            "{texts} text files, {bytes} bytes"
        );
        assert!(non_ascii > 5, "{non_ascii} files with non-ASCII text");
    }

    /// A block's Bloom filter holds every key of its fields (a search never skips a block
    /// that has a match), for blocks of up to 40 KB of `lines` as the writer fills them.
    fn assert_bloom_holds(lines: &[&str]) {
        let mut set = GramSet::default();
        let (mut block, mut bytes, mut bloom) = (Vec::new(), 0, Vec::new());
        for (i, line) in lines.iter().enumerate() {
            set.add(line);
            block.push(*line);
            bytes += line.len();
            if bytes >= 40 << 10 || i + 1 == lines.len() {
                set.take_bloom(&mut bloom);
                let keys = reference(&block);
                assert!(
                    bloom_may_hold(&bloom, &keys),
                    "a key of the block is not in its filter"
                );
                // Only this block's keys: the filter was emptied for the next.
                set.take_bloom(&mut bloom);
                assert!(bloom.iter().all(|b| *b == 0));
                (block, bytes) = (Vec::new(), 0);
            }
        }
    }

    #[test]
    fn a_block_filter_holds_its_keys_and_mostly_not_others() {
        let mut set = GramSet::default();
        set.add("Hello world, again_iterator 会话跨");
        let mut bloom = Vec::new();
        set.take_bloom(&mut bloom);
        assert_eq!(bloom.len(), BLOOM_BYTES);
        assert!(bloom_may_hold(
            &bloom,
            &keys_of(["hello WORLD", "again_iter", "会话跨"])
        ));
        assert!(!bloom_may_hold(
            &bloom,
            &keys_of(["zebra quokka xylophone"])
        ));
        // No filter stored (an older row): anything may be there.
        assert!(bloom_may_hold(&[], &keys_of(["zebra"])));
        // The group's keys outlive the block's filter.
        set.add("zebra");
        set.take_bloom(&mut bloom);
        assert!(bloom_may_hold(&bloom, &keys_of(["zebra"])));
        assert!(!bloom_may_hold(&bloom, &keys_of(["hello world"])));
        let mut doc = Vec::new();
        set.take_keys(&mut doc);
        assert!(keys_of(["hello world", "zebra"])
            .iter()
            .all(|k| doc.contains(k)));
    }

    #[test]
    fn keys_stay_in_range() {
        for s in ["\u{10FFFF}\u{10FFFF}\u{10FFFF}", "\0\0\0", "a会\u{7f}"] {
            let mut it = s.chars().map(fold);
            let k = key(it.next().unwrap(), it.next().unwrap(), it.next().unwrap());
            assert!(k < KEYS);
        }
    }
}
