//! Paging of `scry turn` output: the output is a list of [`Unit`]s (an event's text, a tool
//! directory line, a raw record, an artifact), cut into pages of at most `--max-chars`
//! characters; a long unit is split inside its body. The opaque cursor binds the session, the
//! source fingerprint (size + mtime of the primary source), the selection and the position, so
//! a cursor is refused once the source changed.

use scry_model::ErrorCode;
use serde_json::Value;

use crate::error::{QueryError, QueryResult};

/// Which part of a turn's output a unit belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Group {
    /// Dialogue text or a full event.
    Events,
    /// One line of the tool-call directory.
    Tools,
}

/// One piece of output.
#[derive(Debug, Clone)]
pub struct Unit {
    /// The turn it belongs to.
    pub turn: u32,
    /// Where it is shown.
    pub group: Group,
    /// Its heading line (or the whole line for directory entries).
    pub head: String,
    /// Its body (may be split across pages).
    pub body: String,
    /// Structured form for `--json` (the body is added as `text`).
    pub json: Value,
}

impl Unit {
    fn cost_head(&self) -> usize {
        self.head.chars().count()
    }
    /// Length of the body in characters.
    pub fn body_len(&self) -> usize {
        self.body.chars().count()
    }
}

/// A position in the unit list.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Pos {
    /// Unit index.
    pub unit: usize,
    /// Character offset into that unit's body.
    pub offset: usize,
}

/// The part of one unit on a page.
#[derive(Debug, Clone, Copy)]
pub struct Slice {
    /// Unit index.
    pub unit: usize,
    /// First body character (inclusive).
    pub from: usize,
    /// Last body character (exclusive).
    pub to: usize,
}

/// A page cut: its slices and where the next page starts (`None`: the units ended on it).
pub type Paged = (Vec<Slice>, Option<Pos>);

/// Cuts one page starting at `start`; returns the slices and where the next page starts.
pub fn page(units: &[Unit], start: Pos, max: usize) -> (Vec<Slice>, Option<Pos>) {
    let mut pager = Pager::new(start, max);
    for u in units {
        if pager.done() {
            break;
        }
        pager.push(u);
    }
    pager.finish()
}

/// [`page`] over units handed over one at a time, in order from the first (index 0): the same
/// slices and next position, decided as soon as the units seen decide them.
#[derive(Debug)]
pub struct Pager {
    budget: usize,
    slices: Vec<Slice>,
    /// Index of the next unit handed over.
    seen: usize,
    /// The unit the page goes on with and the offset into it.
    at: Pos,
    /// `Some(next)` once the page is complete.
    next: Option<Option<Pos>>,
}

impl Pager {
    /// A page of at most `max` characters from `start`.
    pub fn new(start: Pos, max: usize) -> Pager {
        Pager {
            budget: max,
            slices: Vec::new(),
            seen: 0,
            at: start,
            next: None,
        }
    }

    /// Whether the page is complete (later units change nothing).
    pub fn done(&self) -> bool {
        self.next.is_some()
    }

    /// Hands over the next unit; returns whether part of it is on the page.
    pub fn push(&mut self, u: &Unit) -> bool {
        let i = self.seen;
        self.seen += 1;
        if self.done() || i < self.at.unit {
            return false;
        }
        let len = u.body_len();
        let off_now = self.at.offset.min(len);
        let cost = u.cost_head() + (len - off_now);
        let slice = |to| Slice {
            unit: i,
            from: off_now,
            to,
        };
        if cost <= self.budget {
            self.slices.push(slice(len));
            self.budget -= cost;
            self.at = Pos {
                unit: i + 1,
                offset: 0,
            };
            return true;
        }
        let room = self.budget.saturating_sub(u.cost_head());
        if room > 0 && len > off_now {
            let to = off_now + room;
            self.slices.push(slice(to));
            self.next = Some(Some(Pos {
                unit: i,
                offset: to,
            }));
            return true;
        }
        if self.slices.is_empty() {
            // Nothing fits: show the heading and at least one character to make progress.
            let to = (off_now + 1).min(len);
            self.slices.push(slice(to));
            if to < len {
                self.next = Some(Some(Pos {
                    unit: i,
                    offset: to,
                }));
            } else {
                self.at = Pos {
                    unit: i + 1,
                    offset: 0,
                };
            }
            return true;
        }
        self.next = Some(Some(Pos {
            unit: i,
            offset: off_now,
        }));
        false
    }

    /// The page's slices and where the next page starts (`None`: the units ended on it).
    pub fn finish(self) -> (Vec<Slice>, Option<Pos>) {
        (self.slices, self.next.flatten())
    }
}

/// The characters `from..to` of `s`.
pub fn chars(s: &str, from: usize, to: usize) -> &str {
    let byte = |n: usize| s.char_indices().nth(n).map_or(s.len(), |(b, _)| b);
    let (a, b) = (byte(from), byte(to));
    s.get(a..b).unwrap_or("")
}

/// What a cursor binds: hashes of the session uri, the source fingerprint (size + mtime of the
/// primary source) and the selection, plus the position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cursor {
    /// Hash of the session uri.
    pub session: u64,
    /// Hash of the primary source's size and mtime.
    pub source: u64,
    /// Hash of the selection arguments.
    pub selection: u64,
    /// Position.
    pub pos: Pos,
}

const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// Hash of a session uri, for cursors.
pub fn session_hash(uri: &str) -> u64 {
    xxhash_rust::xxh3::xxh3_64(uri.as_bytes())
}

/// Hash of a source fingerprint, for cursors.
pub fn source_hash(size: u64, mtime_ns: i64) -> u64 {
    let mut b = [0u8; 16];
    b[..8].copy_from_slice(&size.to_le_bytes());
    b[8..].copy_from_slice(&mtime_ns.to_le_bytes());
    xxhash_rust::xxh3::xxh3_64(&b)
}

impl Cursor {
    /// The opaque text form: `c1` + URL-safe base64 of the packed fields.
    pub fn encode(&self) -> String {
        let mut bytes = Vec::with_capacity(40);
        bytes.extend_from_slice(&self.session.to_le_bytes());
        bytes.extend_from_slice(&self.source.to_le_bytes());
        bytes.extend_from_slice(&self.selection.to_le_bytes());
        bytes.extend_from_slice(&(self.pos.unit as u64).to_le_bytes());
        bytes.extend_from_slice(&(self.pos.offset as u64).to_le_bytes());
        let mut s = String::from("c1");
        for chunk in bytes.chunks(3) {
            let n = chunk
                .iter()
                .enumerate()
                .fold(0u32, |acc, (i, b)| acc | (u32::from(*b) << (16 - 8 * i)));
            for i in 0..=chunk.len() {
                s.push(char::from(B64[((n >> (18 - 6 * i)) & 63) as usize]));
            }
        }
        s
    }

    /// Parses the opaque text form.
    pub fn decode(text: &str) -> QueryResult<Cursor> {
        let bad = || {
            QueryError::usage(
                ErrorCode::InvalidCursor,
                format!("invalid cursor '{}'", crate::render::clip(text, 40)),
            )
        };
        let body = text.trim().strip_prefix("c1").ok_or_else(bad)?;
        let mut bytes = Vec::new();
        for chunk in body.as_bytes().chunks(4) {
            let mut n = 0u32;
            for (i, c) in chunk.iter().enumerate() {
                let v = B64.iter().position(|b| b == c).ok_or_else(bad)? as u32;
                n |= v << (18 - 6 * i);
            }
            for i in 0..chunk.len().saturating_sub(1) {
                bytes.push((n >> (16 - 8 * i)) as u8);
            }
        }
        if bytes.len() != 40 {
            return Err(bad());
        }
        let word = |i: usize| {
            let mut b = [0u8; 8];
            b.copy_from_slice(&bytes[i * 8..i * 8 + 8]);
            u64::from_le_bytes(b)
        };
        Ok(Cursor {
            session: word(0),
            source: word(1),
            selection: word(2),
            pos: Pos {
                unit: usize::try_from(word(3)).map_err(|_| bad())?,
                offset: usize::try_from(word(4)).map_err(|_| bad())?,
            },
        })
    }

    /// Checks that the cursor belongs to this session, source version and selection.
    pub fn check(&self, uri: &str, source: u64, selection: u64) -> QueryResult<Pos> {
        if self.session != session_hash(uri) {
            return Err(QueryError::usage(
                ErrorCode::InvalidCursor,
                format!("the cursor was issued for another session, not {uri}"),
            ));
        }
        if self.source != source {
            return Err(QueryError::usage(
                ErrorCode::InvalidCursor,
                format!(
                    "the cursor is stale: the source of {uri} changed since it was issued; run the command again without --cursor"
                ),
            ));
        }
        if self.selection != selection {
            return Err(QueryError::usage(
                ErrorCode::InvalidCursor,
                "the cursor was issued for a different selection (turn, --event, --raw, …)",
            ));
        }
        Ok(self.pos)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn unit(head: &str, body: &str) -> Unit {
        Unit {
            turn: 1,
            group: Group::Events,
            head: head.into(),
            body: body.into(),
            json: json!({}),
        }
    }

    #[test]
    fn pages_cover_everything_once() {
        let units = vec![
            unit("h1", "abcdefghij"),
            unit("h2", "é€xyz"),
            unit("h3", ""),
        ];
        let mut pos = Pos::default();
        let mut seen = String::new();
        let mut pages = 0;
        loop {
            let (slices, next) = page(&units, pos, 6);
            pages += 1;
            assert!(!slices.is_empty());
            for s in &slices {
                seen.push_str(chars(&units[s.unit].body, s.from, s.to));
            }
            match next {
                Some(p) => pos = p,
                None => break,
            }
            assert!(pages < 50);
        }
        assert_eq!(seen, "abcdefghijé€xyz");
    }

    #[test]
    fn cursor_round_trip_and_staleness() {
        let c = Cursor {
            session: session_hash("claude:x"),
            source: source_hash(10, 5),
            selection: 7,
            pos: Pos { unit: 2, offset: 3 },
        };
        let d = Cursor::decode(&c.encode()).unwrap();
        assert_eq!(d, c);
        assert!(d.check("claude:x", source_hash(10, 5), 7).is_ok());
        assert!(d.check("claude:x", source_hash(11, 5), 7).is_err());
        assert!(d.check("claude:y", source_hash(10, 5), 7).is_err());
        assert!(d.check("claude:x", source_hash(10, 5), 8).is_err());
        assert!(Cursor::decode("c1zz").is_err());
        assert!(Cursor::decode("nope").is_err());
    }
}
