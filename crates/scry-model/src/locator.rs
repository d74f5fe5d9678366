//! Stable event references (SPEC S-E2).

use std::fmt;

use serde::{Deserialize, Serialize};

/// A stable reference to one event that survives appends to its source.
///
/// Two shapes, both plain strings so they can be passed on the command line:
/// - `id:<native id>[#<part>]` when the agent gave the record an id (Claude `uuid`, Gemini
///   message id, …); `part` distinguishes several events made from one record (content blocks).
/// - `r<record>:<checksum>[#<part>]` otherwise: the 1-based record (line) number plus a short
///   checksum of the record's bytes, so a rewritten record is detected and refused, never silently
///   re-pointed.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Locator(pub String);

impl Locator {
    /// A locator from the agent's own record id, with an optional part index.
    pub fn native(id: &str, part: Option<usize>) -> Self {
        match part {
            Some(p) => Locator(format!("id:{id}#{p}")),
            None => Locator(format!("id:{id}")),
        }
    }

    /// A locator from a record number and the record's raw bytes.
    pub fn record(record: u64, bytes: &[u8], part: Option<usize>) -> Self {
        let sum = checksum(bytes);
        match part {
            Some(p) => Locator(format!("r{record}:{sum:08x}#{p}")),
            None => Locator(format!("r{record}:{sum:08x}")),
        }
    }

    /// The locator text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Locator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// FNV-1a folded to 32 bits: small, dependency-free and stable across versions and platforms.
pub fn checksum(bytes: &[u8]) -> u32 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    (h ^ (h >> 32)) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn record_locator_changes_with_bytes() {
        let a = Locator::record(3, b"{\"a\":1}", None);
        let b = Locator::record(3, b"{\"a\":2}", None);
        assert_ne!(a, b);
        assert!(a.as_str().starts_with("r3:"));
    }

    #[test]
    fn native_locator_keeps_id_and_part() {
        assert_eq!(Locator::native("abc", Some(2)).as_str(), "id:abc#2");
        assert_eq!(Locator::native("abc", None).as_str(), "id:abc");
    }
}
