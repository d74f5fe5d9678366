//! Resuming a parse of an append-only source (SPEC S-I2): what a provider hands back at a safe
//! point so an index can later continue from there instead of re-reading the whole file.
//!
//! The protocol, end to end:
//! 1. During a parse, a provider that supports resuming calls [`crate::Emitter::checkpoint`] at
//!    *safe points*: places where everything before `offset` has been consumed and every event
//!    that follows depends only on the bytes after `offset` plus the small provider `state` it
//!    hands over (open call ids, header facts seen so far, the line number …). The emitter adds
//!    its own counters ([`EmitterState`]) and passes a [`ResumePoint`] to the sink — but only when
//!    the sink asked for them ([`crate::EventSink::wants_resume_points`]), so ordinary parses pay
//!    nothing.
//! 2. The index keeps the last point together with a hash of the bytes before `offset`.
//! 3. When the file grew, the index verifies that hash; if the prefix is unchanged it drops the
//!    events and warnings emitted after the point (`emitter.events`, `emitter.warnings`), builds
//!    an emitter with [`crate::Emitter::resumed`] and calls
//!    [`crate::Source::parse_into_from`]. The provider seeks to `offset`, restores `state`, and
//!    emits exactly what a full parse would have emitted after that point, returning the full
//!    header. Any doubt (hash mismatch, shrink, provider error) means a full re-parse instead.

use scry_model::Timestamp;
use serde::{Deserialize, Serialize};

/// The [`crate::Emitter`]'s own counters at a safe point, so numbering (`seq`, turns) and the
/// header facts it completes (times, models, first prompt) continue seamlessly after a resume.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EmitterState {
    /// Events emitted before this point (the next event's `seq`).
    pub events: u32,
    /// Warnings emitted before this point.
    pub warnings: u64,
    /// The current turn number.
    pub turn: u32,
    /// Earliest event time so far.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created: Option<Timestamp>,
    /// Latest event time so far.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub updated: Option<Timestamp>,
    /// Models seen so far, in first-use order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub models: Vec<String>,
    /// The first prompt's title line, once seen.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_prompt: Option<String>,
}

/// An opaque place to continue a parse from (see the module docs).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResumePoint {
    /// Bytes of the primary file (as stored on disk) consumed before this point.
    pub offset: u64,
    /// The emitter's counters at this point.
    pub emitter: EmitterState,
    /// Provider-private state needed to continue; only the provider reads it.
    #[serde(default)]
    pub state: serde_json::Value,
}

/// A stable 64-bit hash (FNV-1a) of an id, for id sets a provider carries in its resume state:
/// the same on every platform and release, so a stored state stays meaningful.
pub fn id_hash(s: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in s.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Packs 64-bit values (id hashes a provider carries in its resume state) into a compact
/// base64 string of their little-endian bytes: 11 characters per value instead of up to 20
/// digits in a JSON array.
pub fn pack_u64s(values: &[u64]) -> String {
    let mut bytes = Vec::with_capacity(values.len() * 8);
    for v in values {
        bytes.extend_from_slice(&v.to_le_bytes());
    }
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..=chunk.len() {
            out.push(B64[((n >> (18 - 6 * i)) & 63) as usize] as char);
        }
    }
    out
}

/// The inverse of [`pack_u64s`]; `None` when `s` is not such a string.
pub fn unpack_u64s(s: &str) -> Option<Vec<u64>> {
    let mut bytes = Vec::with_capacity(s.len() * 3 / 4);
    let mut acc = 0u32;
    let mut bits = 0u32;
    for c in s.bytes() {
        let d = B64.iter().position(|x| *x == c)? as u32;
        acc = (acc << 6) | d;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            bytes.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    if bytes.len() % 8 != 0 {
        return None;
    }
    Some(
        bytes
            .chunks_exact(8)
            .map(|c| {
                let mut a = [0u8; 8];
                a.copy_from_slice(c);
                u64::from_le_bytes(a)
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packed_ids_round_trip() {
        for n in 0..6 {
            let v: Vec<u64> = (0..n).map(|i| u64::MAX / 7 * i + i).collect();
            let s = pack_u64s(&v);
            assert_eq!(unpack_u64s(&s), Some(v), "{s}");
        }
        assert_eq!(pack_u64s(&[0]).len(), 11);
        assert_eq!(unpack_u64s("!"), None);
        assert_eq!(unpack_u64s("AAAA"), None);
        assert_eq!(id_hash(""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(id_hash("a"), 0xaf63_dc4c_8601_ec8c);
    }
}
