//! Trigram keys of the candidate index (schema 9): the writer reduces each searchable field to
//! its set of distinct trigrams itself and hands FTS5 one short ASCII word per distinct trigram
//! of a block, instead of the whole text for FTS5's trigram tokenizer to cut at every character.
//! A 40 KB block of text has a few thousand distinct trigrams but forty thousand positions, and
//! FTS5 spent most of a cold index hashing every position (issue 17).
//!
//! A trigram's key folds ASCII letters to lower case and leaves every other character as it is;
//! three ASCII characters give an exact 21-bit key, anything else a 30-bit hash above those (a
//! collision only adds a candidate block: the regex stays the only authority on matches). The
//! query side ([`crate::search`]) builds its trigrams only from characters whose case variants
//! are none or one ASCII pair, so a case-insensitive match sees the same keys as the text.
//! Keys are written as six base-32 digits (`0-9a-v`) separated by spaces, for the `ascii`
//! tokenizer. Trigrams never span two fields: a match lies inside one field.
//!
//! Public only for the `grams` fuzz target; not a stable API.

/// Keys below this are three ASCII characters packed exactly.
const ASCII_KEYS: u32 = 1 << 21;
/// Keys are below this (30 bits: six base-32 digits).
const KEYS: u32 = 1 << 30;

fn fold(c: char) -> u32 {
    u32::from(c.to_ascii_lowercase())
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

const DIGITS: &[u8; 32] = b"0123456789abcdefghijklmnopqrstuv";

/// Appends the word of `key` to `out`.
fn push_word(out: &mut String, key: u32) {
    for i in (0..6).rev() {
        out.push(char::from(DIGITS[(key >> (i * 5) & 31) as usize]));
    }
}

/// The distinct trigram keys of a block's (or a group of blocks') fields, deduplicated as they
/// are added: ASCII keys through a bitmap (one bit test per position, no sort), the others
/// sorted when taken. Memory is the distinct keys, not the positions.
#[derive(Debug, Default)]
pub struct GramSet {
    /// One bit per ASCII key (allocated on first use, cleared key by key when taken).
    seen: Vec<u64>,
    /// The distinct ASCII keys, in order of first occurrence.
    ascii: Vec<u32>,
    /// The other keys (hashed), with repeats.
    others: Vec<u32>,
}

impl GramSet {
    /// Adds the trigrams of one field.
    pub fn add(&mut self, text: &str) {
        let mut it = text.chars().map(fold);
        let (Some(mut a), Some(mut b)) = (it.next(), it.next()) else {
            return;
        };
        if self.seen.is_empty() {
            self.seen.resize((ASCII_KEYS / 64) as usize, 0);
        }
        for c in it {
            let k = key(a, b, c);
            if k < ASCII_KEYS {
                let (word, bit) = ((k / 64) as usize, 1u64 << (k % 64));
                if self.seen[word] & bit == 0 {
                    self.seen[word] |= bit;
                    self.ascii.push(k);
                }
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

    /// Adds every key of `other`, and empties it.
    pub fn merge(&mut self, other: &mut GramSet) {
        if self.seen.is_empty() {
            self.seen.resize((ASCII_KEYS / 64) as usize, 0);
        }
        for &k in &other.ascii {
            let (word, bit) = ((k / 64) as usize, 1u64 << (k % 64));
            if self.seen[word] & bit == 0 {
                self.seen[word] |= bit;
                self.ascii.push(k);
            }
        }
        self.others.extend_from_slice(&other.others);
        other.clear();
    }

    /// Whether no trigram was added.
    pub fn is_empty(&self) -> bool {
        self.ascii.is_empty() && self.others.is_empty()
    }

    /// Writes the FTS document of the distinct keys added (one word each) into `out`, and
    /// forgets them.
    pub fn take_doc(&mut self, out: &mut String) {
        out.clear();
        out.reserve(self.ascii.len() * 7);
        for &k in &self.ascii {
            if !out.is_empty() {
                out.push(' ');
            }
            push_word(out, k);
        }
        self.others.sort_unstable();
        self.others.dedup();
        for &k in &self.others {
            if !out.is_empty() {
                out.push(' ');
            }
            push_word(out, k);
        }
        self.clear();
    }

    /// Forgets every key added.
    pub fn clear(&mut self) {
        for &k in &self.ascii {
            self.seen[(k / 64) as usize] = 0;
        }
        self.ascii.clear();
        self.others.clear();
    }
}

/// The FTS document of the trigrams of `fields` (each field on its own).
pub fn doc_of<'a>(fields: impl IntoIterator<Item = &'a str>) -> String {
    let mut set = GramSet::default();
    for f in fields {
        set.add(f);
    }
    let mut out = String::new();
    set.take_doc(&mut out);
    out
}

/// The query word of one trigram (exactly three characters), as the writer keys it.
pub fn query_word(gram: &str) -> Option<String> {
    let mut it = gram.chars().map(fold);
    let (Some(a), Some(b), Some(c), None) = (it.next(), it.next(), it.next(), it.next()) else {
        return None;
    };
    let mut out = String::with_capacity(6);
    push_word(&mut out, key(a, b, c));
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fold_and_keys() {
        assert_eq!(query_word("ABC"), query_word("abc"));
        assert_ne!(query_word("abd"), query_word("abc"));
        assert_eq!(query_word("会话跨"), query_word("会话跨"));
        assert_ne!(query_word("Äbc"), query_word("äbc"));
        assert!(query_word("ab").is_none());
        assert!(query_word("abcd").is_none());
        let doc = doc_of(["Hello hello", "x"]);
        // "hel", "ell", "llo", "lo ", "o h", " he": six distinct trigrams of the first field.
        assert_eq!(doc.split(' ').count(), 6, "{doc}");
        for w in ["Hel", "llo", "o h"] {
            assert!(doc.split(' ').any(|d| Some(d) == query_word(w).as_deref()));
        }
        assert!(doc.split(' ').all(|w| w.len() == 6));
    }

    #[test]
    fn a_set_is_reused_and_merged_without_leftovers() {
        let words = |doc: &str| {
            let mut v: Vec<String> = doc.split(' ').map(str::to_string).collect();
            v.sort();
            v
        };
        let mut set = GramSet::default();
        let mut doc = String::new();
        set.add("Hello world 会话跨");
        set.take_doc(&mut doc);
        assert_eq!(words(&doc), words(&doc_of(["Hello world 会话跨"])));
        // Nothing of the first document is left in the reused set.
        set.add("xyz");
        set.take_doc(&mut doc);
        assert_eq!(doc, doc_of(["xyz"]));
        let mut other = GramSet::default();
        set.add("abcd 会话跨");
        other.add("bcde 会话跨");
        set.merge(&mut other);
        assert!(other.is_empty());
        set.take_doc(&mut doc);
        assert_eq!(words(&doc), words(&doc_of(["abcd 会话跨", "bcde 会话跨"])));
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
