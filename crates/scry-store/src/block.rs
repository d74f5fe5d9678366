//! Event blocks: a session's events are stored in runs of consecutive events ("blocks"), each
//! one zstd-compressed blob, instead of one row per event. Compressing many events together
//! shares their repeated JSON keys, tool names and paths (the index stays well below the source
//! size), a cold index writes a few rows per session instead of one per event, and a search
//! that nothing can narrow reads big sequential blobs at memory speed.
//!
//! A block's row id is the event id of its first event (`sid << 32 | seq`), so a session's blocks
//! are one contiguous row id range in order; `last` is the seq of its last event and `kinds` a
//! bitmask of the event kinds inside (scans skip blocks holding no wanted kind), plus
//! [`GROUP_START`] on the first block of each group: consecutive blocks of one session (at most
//! [`GROUP_BLOCKS`], closed once they hold [`GROUP_BYTES`]) share one candidate document
//! (schema 11), whose rowid is the id of the group's first block.
//!
//! A block has two sections, compressed separately so a search decompresses only what it
//! searches: the search section holds one record per event — `seq` u32, kind u8, turn u32, text
//! length u32 + text, aux length u32 (`u32::MAX` = none) + aux — and the rest section, per event
//! in the same order, the length (u32) and JSON of the event without its text. Integers are
//! little-endian. The stored blob is the stored length of the search section (u32), then each
//! section as a frame: a tag byte (0 = raw, 1 = zstd) then, for zstd, the raw length (u32) and
//! the zstd frame.

use crate::codec::kind_to_i;
use crate::grams::GramSet;

/// A block is closed once its raw records reach this many bytes (or the session ends).
pub(crate) const BLOCK_BYTES: usize = 64 * 1024;

/// A candidate document ([`crate::grams`]) covers a group of consecutive blocks of one session:
/// it closes after this many blocks (fewer (trigram, document) pairs to write: a
/// trigram of one block mostly recurs in its neighbours), ...
pub(crate) const GROUP_BLOCKS: u32 = 8;
/// ... or once its blocks hold this many raw bytes, so a candidate group stays cheap to verify.
pub(crate) const GROUP_BYTES: usize = 8 * BLOCK_BYTES;
/// The bit of `kinds` set on the first block of each group (above every kind's bit): the
/// group's document has that block's id as its rowid, and the group runs to the next block so
/// marked.
pub(crate) const GROUP_START: i64 = 1 << 62;

/// zstd level of blocks (level 1 is several hundred MB/s; higher levels barely shrink text).
const LEVEL: i32 = 1;

/// One event as stored in a block (borrowed from the decoded bytes).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Record<'a> {
    pub seq: u32,
    pub kind: i64,
    pub turn: u32,
    pub text: &'a str,
    pub aux: Option<&'a str>,
    pub rest: &'a str,
}

/// A block being filled by the writer.
#[derive(Debug, Default)]
pub(crate) struct BlockBuf {
    /// Raw search records.
    pub raw: Vec<u8>,
    /// Raw rest section.
    pub rest: Vec<u8>,
    /// Seq of the first record.
    pub first: u32,
    /// Seq of the last record.
    pub last: u32,
    /// Records held.
    pub count: u32,
    /// Bitmask of the kinds held (`1 << kind_to_i`).
    pub kinds: i64,
    /// The distinct trigrams of the searchable fields (text and aux) of the records of the
    /// group's blocks, for the candidate index ([`crate::grams`]).
    pub grams: GramSet,
    /// Blocks of the open group sealed so far (0: the next block starts a group).
    pub group_blocks: u32,
    /// Their raw bytes.
    pub group_bytes: usize,
    /// The seq of the open group's first block (its document's rowid).
    pub group_first: u32,
    /// The model requests among the records ([`crate::ledger`]), written with the block.
    pub requests: Vec<crate::ledger::StoredRequest>,
    /// The seqs of the failed tool results among the records.
    pub failures: Vec<u32>,
    /// Scratch for the aux text of the event being pushed (kept for its allocation).
    pub aux: String,
}

/// A closed block, ready for its `blocks` row and candidate keys: built by the writer or
/// by a parse thread ([`crate::refresh`]), written by the one writer.
#[derive(Debug)]
pub(crate) struct Sealed {
    /// Seq of the first event (with the sid, the row id).
    pub first: u32,
    /// Seq of the last event.
    pub last: u32,
    /// Bitmask of the kinds held.
    pub kinds: i64,
    /// Events held.
    pub count: u32,
    /// The stored blob ([`BlockBuf::encode`]).
    pub blob: Vec<u8>,
    /// The distinct trigram keys of the group this block closes (empty: it closes
    /// none, or the group has no text).
    pub doc: Vec<u32>,
    /// The seq of the first block of the group the document covers (with the sid, its rowid).
    pub doc_first: u32,
    /// The model requests among its events (rows of the usage ledger).
    pub requests: Vec<crate::ledger::StoredRequest>,
    /// The seqs of its failed tool results.
    pub failures: Vec<u32>,
    /// The Bloom filter of its own trigram keys ([`GramSet::take_bloom`]): a search tests a
    /// candidate group's blocks against it before decompressing them.
    pub bloom: Vec<u8>,
}

impl BlockBuf {
    /// Appends one event.
    pub fn push(&mut self, r: &Record<'_>) {
        put_str(&mut self.rest, Some(r.rest));
        self.push_search(r);
    }

    /// Appends one event whose rest JSON `rest` writes into the rest section (no string of its
    /// own); `r.rest` is not read. On an error the block is left as it was.
    pub fn push_writing<E>(
        &mut self,
        r: &Record<'_>,
        rest: impl FnOnce(&mut Vec<u8>) -> Result<(), E>,
    ) -> Result<(), E> {
        let at = self.rest.len();
        self.rest.extend_from_slice(&[0; 4]);
        if let Err(e) = rest(&mut self.rest) {
            self.rest.truncate(at);
            return Err(e);
        }
        let n = self.rest.len() - at - 4;
        let n = u32::try_from(n).unwrap_or(u32::MAX - 1).to_le_bytes();
        self.rest[at..at + 4].copy_from_slice(&n);
        self.push_search(r);
        Ok(())
    }

    /// The search record of `r`, its trigrams and the block's counters.
    fn push_search(&mut self, r: &Record<'_>) {
        if self.count == 0 {
            self.first = r.seq;
        }
        self.last = r.seq;
        self.count += 1;
        self.kinds |= 1i64 << r.kind.clamp(0, 61);
        let raw = &mut self.raw;
        raw.extend_from_slice(&r.seq.to_le_bytes());
        raw.push(u8::try_from(r.kind).unwrap_or(u8::MAX));
        raw.extend_from_slice(&r.turn.to_le_bytes());
        put_str(raw, Some(r.text));
        put_str(raw, r.aux);
        self.grams.add(r.text);
        if let Some(a) = r.aux {
            self.grams.add(a);
        }
    }

    /// Whether the block is full.
    pub fn full(&self) -> bool {
        self.raw.len() + self.rest.len() >= BLOCK_BYTES
    }

    /// The stored blob.
    pub fn encode(&self) -> Vec<u8> {
        let a = compress(&self.raw);
        let b = compress(&self.rest);
        let mut out = Vec::with_capacity(4 + a.len() + b.len());
        out.extend_from_slice(&u32::try_from(a.len()).unwrap_or(u32::MAX).to_le_bytes());
        out.extend_from_slice(&a);
        out.extend_from_slice(&b);
        out
    }

    /// Closes the block: its stored blob, and the candidate keys of its group (written into
    /// `doc`'s allocation) when the block closes the group — because the group is full, or
    /// `last` (the session's last block); then empties the buffer for the next.
    pub fn seal(&mut self, mut doc: Vec<u32>, last: bool) -> Sealed {
        doc.clear();
        let mut kinds = self.kinds;
        if self.group_blocks == 0 {
            kinds |= GROUP_START;
            self.group_first = self.first;
        }
        self.group_blocks += 1;
        self.group_bytes += self.raw.len() + self.rest.len();
        let doc_first = self.group_first;
        // The block's own filter first: closing the group empties the set.
        let mut bloom = Vec::new();
        self.grams.take_bloom(&mut bloom);
        if last || self.group_blocks >= GROUP_BLOCKS || self.group_bytes >= GROUP_BYTES {
            self.close_group(&mut doc);
        }
        let sealed = Sealed {
            first: self.first,
            last: self.last,
            kinds,
            count: self.count,
            blob: self.encode(),
            doc,
            doc_first,
            requests: std::mem::take(&mut self.requests),
            failures: std::mem::take(&mut self.failures),
            bloom,
        };
        self.clear();
        sealed
    }

    /// Ends the open group, if any: its document into `doc` (empty when it has no text), and
    /// the seq of its first block. For a session whose last block was sealed before it ended.
    pub fn close_group(&mut self, doc: &mut Vec<u32>) -> Option<u32> {
        doc.clear();
        if self.group_blocks == 0 {
            return None;
        }
        if !self.grams.is_empty() {
            self.grams.take_keys(doc);
        }
        self.group_blocks = 0;
        self.group_bytes = 0;
        Some(self.group_first)
    }

    /// Reopens the group that starts at seq `first` and whose `blocks` blocks (`bytes` raw
    /// bytes, their trigrams already added) are stored: a resumed parse continues it.
    pub fn reopen_group(&mut self, first: u32, blocks: u32, bytes: usize) {
        self.group_first = first;
        self.group_blocks = blocks;
        self.group_bytes = bytes;
    }

    /// Empties the buffer (keeping its allocations and the open group's trigrams).
    pub fn clear(&mut self) {
        self.raw.clear();
        self.rest.clear();
        self.requests.clear();
        self.failures.clear();
        self.count = 0;
        self.kinds = 0;
    }
}

fn put_str(raw: &mut Vec<u8>, s: Option<&str>) {
    match s {
        Some(s) => {
            raw.extend_from_slice(&u32::try_from(s.len()).unwrap_or(u32::MAX - 1).to_le_bytes());
            raw.extend_from_slice(s.as_bytes());
        }
        None => raw.extend_from_slice(&u32::MAX.to_le_bytes()),
    }
}

thread_local! {
    static COMPRESSOR: std::cell::RefCell<Option<zstd::bulk::Compressor<'static>>> =
        std::cell::RefCell::new(zstd::bulk::Compressor::new(LEVEL).ok());
    static DECOMPRESSOR: std::cell::RefCell<Option<zstd::bulk::Decompressor<'static>>> =
        std::cell::RefCell::new(zstd::bulk::Decompressor::new().ok());
}

/// The stored blob of raw records.
pub(crate) fn compress(raw: &[u8]) -> Vec<u8> {
    let n = u32::try_from(raw.len()).unwrap_or(u32::MAX);
    let z = COMPRESSOR.with(|c| c.borrow_mut().as_mut().map(|c| c.compress(raw)));
    if let Some(Ok(z)) = z {
        if z.len() + 5 < raw.len() + 1 {
            let mut out = Vec::with_capacity(z.len() + 5);
            out.push(1);
            out.extend_from_slice(&n.to_le_bytes());
            out.extend_from_slice(&z);
            return out;
        }
    }
    let mut out = Vec::with_capacity(raw.len() + 1);
    out.push(0);
    out.extend_from_slice(raw);
    out
}

/// The raw records of a stored blob into `out` (cleared first); `false` when it is damaged.
pub(crate) fn decompress_into(blob: &[u8], out: &mut Vec<u8>) -> bool {
    out.clear();
    let Some((&tag, data)) = blob.split_first() else {
        return false;
    };
    match tag {
        0 => {
            out.extend_from_slice(data);
            true
        }
        1 => {
            let Some(n) = data
                .get(..4)
                .and_then(|b| b.try_into().ok())
                .map(|b: [u8; 4]| u32::from_le_bytes(b) as usize)
            else {
                return false;
            };
            let body = data.get(4..).unwrap_or(&[]);
            out.reserve(n);
            DECOMPRESSOR.with(|d| {
                d.borrow_mut()
                    .as_mut()
                    .is_some_and(|d| d.decompress_to_buffer(body, out).is_ok_and(|m| m == n))
            })
        }
        _ => false,
    }
}

/// A decoded block: its search section, and its rest section when asked for.
#[derive(Debug, Default)]
pub(crate) struct Decoded {
    search: Vec<u8>,
    rest: Vec<u8>,
    with_rest: bool,
}

impl Decoded {
    /// Decodes `blob` (the rest section only `with_rest`); `false` when it is damaged.
    pub fn load(&mut self, blob: &[u8], with_rest: bool) -> bool {
        self.with_rest = with_rest;
        let Some(n) = blob
            .get(..4)
            .and_then(|b| b.try_into().ok())
            .map(|b: [u8; 4]| u32::from_le_bytes(b) as usize)
        else {
            return false;
        };
        let (Some(a), Some(b)) = (blob.get(4..4 + n), blob.get(4 + n..)) else {
            return false;
        };
        decompress_into(a, &mut self.search) && (!with_rest || decompress_into(b, &mut self.rest))
    }

    /// The raw bytes of the block as it was built (both sections; the rest section only when
    /// loaded).
    pub fn raw_len(&self) -> usize {
        self.search.len() + self.rest.len()
    }

    /// The decoded search section (for a prefilter).
    pub fn search_bytes(&self) -> &[u8] {
        &self.search
    }

    /// The records; `rest` is empty unless the block was loaded with its rest section.
    pub fn records(&self) -> Records<'_> {
        Records {
            data: &self.search,
            rest: self.with_rest.then_some(&self.rest[..]),
            broken: false,
        }
    }
}

/// Iterates the records of a decoded block; yields `Err(())` once on damage, then stops.
pub(crate) struct Records<'a> {
    data: &'a [u8],
    rest: Option<&'a [u8]>,
    broken: bool,
}

fn take<'a>(data: &mut &'a [u8], n: usize) -> Option<&'a [u8]> {
    let (a, b) = (data.get(..n)?, data.get(n..)?);
    *data = b;
    Some(a)
}

fn get_u32(data: &mut &[u8]) -> Option<u32> {
    take(data, 4)
        .and_then(|b| b.try_into().ok())
        .map(u32::from_le_bytes)
}

fn get_str<'a>(data: &mut &'a [u8]) -> Option<Option<&'a str>> {
    let n = get_u32(data)?;
    if n == u32::MAX {
        return Some(None);
    }
    let b = take(data, n as usize)?;
    std::str::from_utf8(b).ok().map(Some)
}

impl<'a> Records<'a> {
    fn record(&mut self) -> Option<Record<'a>> {
        let d = &mut self.data;
        let seq = get_u32(d)?;
        let kind = i64::from(*take(d, 1)?.first()?);
        let turn = get_u32(d)?;
        let text = get_str(d)??;
        let aux = get_str(d)?;
        let rest = match &mut self.rest {
            Some(r) => get_str(r)??,
            None => "",
        };
        Some(Record {
            seq,
            kind,
            turn,
            text,
            aux,
            rest,
        })
    }
}

impl<'a> Iterator for Records<'a> {
    type Item = Result<Record<'a>, ()>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.broken || self.data.is_empty() {
            return None;
        }
        match self.record() {
            Some(r) => Some(Ok(r)),
            None => {
                self.broken = true;
                Some(Err(()))
            }
        }
    }
}

/// The bit of `kind` in a block's `kinds` mask.
pub(crate) fn kind_bit(kind: scry_model::EventKind) -> i64 {
    1i64 << kind_to_i(kind).clamp(0, 61)
}
