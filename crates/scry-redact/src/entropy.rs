//! The high-entropy detector: a single byte scan that cuts the text into tokens of the
//! base64 / base64url / hex alphabet and flags the ones that look machine-random.
//!
//! A token is flagged when all of these hold:
//! - 24 to 1024 bytes long (shorter ones are too often words; longer ones are file payloads);
//! - an upper-case letter, a lower-case letter and a digit (so hex digests, UUIDs, snake_case
//!   and kebab-case names never qualify);
//! - the character class (upper / lower / digit / other) changes between at least 45 % of
//!   neighbouring characters (random base62 ≈ 62 %, camelCase identifiers ≈ 20–33 %);
//! - Shannon entropy ≥ 3.8 bits per character (≥ 4.2 from 32 bytes on).
//!
//! And none of these exclusions applies: hex-only (git SHAs, sha256), the payload of a
//! `data:…;base64,` URI, base64 image data (PNG/JPEG/GIF/WebP magic), Subresource-Integrity
//! and go.sum hashes (`sha512-…`, `h1:…`), SSH public keys (`ssh-rsa AAAA…`), record ids
//! that are random by design (`toolu_…`, `call_…`, `msg_…`, OpenCode's `ses_…`/`prt_…`), paths (two or more plain
//! lower-case words between slashes).
//!
//! JSON escapes (`\n`, `\"`, `\u0041`) separate tokens, so `\nAbC…` does not glue the `n`
//! onto a secret.

use std::ops::Range;

/// Minimum token length for the high-entropy rule.
const MIN_LEN: usize = 24;
/// Maximum token length for the high-entropy rule.
const MAX_LEN: usize = 1024;

fn is_token_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'=' | b'_' | b'-')
}

/// Appends the ranges of high-entropy tokens in `text` to `out`.
pub(crate) fn scan(text: &str, out: &mut Vec<Range<usize>>) {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let Some(&b) = bytes.get(i) else { break };
        if b == b'\\' {
            // A JSON escape: skip it whole (`\uXXXX` is six bytes).
            i += if bytes.get(i + 1) == Some(&b'u') {
                6
            } else {
                2
            };
            continue;
        }
        if !is_token_byte(b) {
            i += 1;
            continue;
        }
        let start = i;
        while let Some(&c) = bytes.get(i) {
            if c == b'=' {
                // `=` is base64 padding: it ends a token (`NAME=value` is two tokens).
                while bytes.get(i) == Some(&b'=') {
                    i += 1;
                }
                break;
            }
            if !is_token_byte(c) {
                break;
            }
            i += 1;
        }
        let token = &bytes[start..i];
        if looks_random(token) && !excluded(bytes, start, token) {
            out.push(start..i);
        }
    }
}

#[derive(PartialEq, Clone, Copy)]
enum Class {
    Upper,
    Lower,
    Digit,
    Other,
}

fn class(b: u8) -> Class {
    if b.is_ascii_uppercase() {
        Class::Upper
    } else if b.is_ascii_lowercase() {
        Class::Lower
    } else if b.is_ascii_digit() {
        Class::Digit
    } else {
        Class::Other
    }
}

/// Shannon entropy of `bytes` in bits per byte.
pub(crate) fn shannon(bytes: &[u8]) -> f64 {
    if bytes.is_empty() {
        return 0.0;
    }
    let mut counts = [0u32; 256];
    for &b in bytes {
        counts[b as usize] += 1;
    }
    let n = bytes.len() as f64;
    counts
        .iter()
        .filter(|&&c| c > 0)
        .map(|&c| {
            let p = f64::from(c) / n;
            -p * p.log2()
        })
        .sum()
}

fn looks_random(token: &[u8]) -> bool {
    // Padding does not count towards length or randomness.
    let core = match token.iter().rposition(|&b| b != b'=') {
        Some(last) => &token[..=last],
        None => return false,
    };
    if core.len() < MIN_LEN || core.len() > MAX_LEN {
        return false;
    }
    let (mut upper, mut lower, mut digit) = (false, false, false);
    for &b in core {
        match class(b) {
            Class::Upper => upper = true,
            Class::Lower => lower = true,
            Class::Digit => digit = true,
            Class::Other => {}
        }
    }
    if !(upper && lower && digit) {
        return false;
    }
    let changes = core
        .windows(2)
        .filter(|w| class(w[0]) != class(w[1]))
        .count();
    if (changes as f64) < 0.45 * (core.len() - 1) as f64 {
        return false;
    }
    let threshold = if core.len() >= 32 { 4.2 } else { 3.8 };
    shannon(core) >= threshold
}

/// Exclusions that depend on the token's shape or on what precedes it.
fn excluded(text: &[u8], start: usize, token: &[u8]) -> bool {
    // Hex digests and UUIDs (hex with dashes) — also the mixed-case ones.
    if token
        .iter()
        .all(|b| b.is_ascii_hexdigit() || *b == b'-' || *b == b'=')
    {
        return true;
    }
    const IMAGE_MAGIC: &[&[u8]] = &[
        b"iVBORw0KGgo",
        b"/9j/",
        b"R0lGOD",
        b"UklGR",
        b"Qk0",
        b"AAABAA",
    ];
    if IMAGE_MAGIC.iter().any(|m| token.starts_with(m)) {
        return true;
    }
    // Record ids that agents and APIs make random on purpose: tool-call, message, request,
    // response ids. Not secrets, and exports need them to pair calls with results.
    const ID_PREFIXES: &[&[u8]] = &[
        b"toolu_",
        b"srvtoolu_",
        b"call_",
        b"msg_",
        b"req_",
        b"resp_",
        b"chatcmpl-",
        b"fc_",
        b"rs_",
        b"ws_",
        b"file_",
        b"file-",
        b"run_",
        b"thread_",
        b"asst_",
        b"batch_",
        b"evt_",
    ];
    if ID_PREFIXES.iter().any(|m| token.starts_with(m)) || opencode_id(token) {
        return true;
    }
    // A path (`gemini/tmp/<hash>/chats/session-…`, Grok's `%2Fproject/<uuid>/chat_history`):
    // two or more plain segments between slashes — lower-case words (with `_`, `-`, `.`) or
    // hex ids (uuids). Random base64 almost never has even one.
    if token.contains(&b'/') {
        let plain = |seg: &[u8]| {
            let word = seg.iter().filter(|b| b.is_ascii_lowercase()).count() >= 3
                && seg
                    .iter()
                    .all(|b| b.is_ascii_lowercase() || matches!(b, b'_' | b'-' | b'.'));
            let hex = seg.len() >= 8 && seg.iter().all(|b| b.is_ascii_hexdigit() || *b == b'-');
            word || hex
        };
        let words = token.split(|&b| b == b'/').filter(|seg| plain(seg)).count();
        if words >= 2 {
            return true;
        }
    }
    const HASH_PREFIXES: &[&[u8]] = &[b"sha1-", b"sha256-", b"sha384-", b"sha512-"];
    if HASH_PREFIXES.iter().any(|m| token.starts_with(m)) {
        return true;
    }
    let before = &text[start.saturating_sub(64)..start];
    let before_lower: Vec<u8> = before.to_ascii_lowercase();
    if before_lower.ends_with(b"h1:") {
        return true;
    }
    if let Some(pos) = memfind(&before_lower, b";base64,") {
        // The token is the payload of a data URI when only token bytes lie between.
        if before[pos + 8..].iter().all(|&b| is_token_byte(b)) {
            return true;
        }
    }
    const SSH_KEYS: &[&[u8]] = &[
        b"ssh-rsa ",
        b"ssh-ed25519 ",
        b"ssh-dss ",
        b"ecdsa-sha2-nistp256 ",
        b"ecdsa-sha2-nistp384 ",
        b"ecdsa-sha2-nistp521 ",
    ];
    if token.starts_with(b"AAAA") && SSH_KEYS.iter().any(|k| before.ends_with(k)) {
        return true;
    }
    false
}

/// An OpenCode record id: `ses_`, `msg_`, `prt_`, `per_`, `que_`, `usr_`, `pty_`, `tool_` +
/// 12 hex digits (time and counter) + 14 random base62 characters (OpenCode's `Identifier`).
fn opencode_id(token: &[u8]) -> bool {
    const PREFIXES: &[&[u8]] = &[
        b"ses_", b"msg_", b"prt_", b"per_", b"que_", b"usr_", b"pty_", b"tool_",
    ];
    PREFIXES.iter().any(|p| {
        token.strip_prefix(*p).is_some_and(|rest| {
            rest.len() == 26
                && rest[..12].iter().all(u8::is_ascii_hexdigit)
                && rest[12..].iter().all(u8::is_ascii_alphanumeric)
        })
    })
}

/// Last position of `needle` in `hay`.
fn memfind(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).rposition(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flagged(s: &str) -> bool {
        let mut v = Vec::new();
        scan(s, &mut v);
        !v.is_empty()
    }

    #[test]
    fn random_tokens_flagged() {
        assert!(flagged("token x9Qm2ZtLw8Rv4KpN7sYb3HcJ6dFg1Ae5 end"));
        assert!(flagged("\\nx9Qm2ZtLw8Rv4KpN7sYb3HcJ6dFg1Ae5\\n"));
    }

    #[test]
    fn ordinary_tokens_pass() {
        assert!(!flagged("getUserAccountSettingsFromDatabase"));
        assert!(!flagged("base64EncodedSha256Digest"));
        assert!(!flagged("9b2a5c3e1f0d4b6a8c7e9f1a2b3c4d5e6f7a8b9c"));
        assert!(!flagged("550e8400-e29b-41d4-a716-446655440000"));
        assert!(!flagged("x86_64-unknown-linux-gnu"));
        assert!(!flagged("crates/scry-source-claude/src/mapping"));
        assert!(!flagged(
            "sessions/%2Ftmp%2Fproject/019f6851-7ec4-7ef0-97d3-03f3eee38755/chat_history"
        ));
        // OpenCode ids, also inside a locator.
        assert!(!flagged("ses_dd2c91f2cffe1k0KCFlrrjigz1"));
        assert!(!flagged("id:prt_22d36e8d2001y6D1Cm2w6cY3dT#0"));
        // … but not any random token behind one of their prefixes.
        assert!(flagged("ses_x9Qm2ZtLw8Rv4KpN7sYb3HcJ6dFg1Ae5"));
    }

    #[test]
    fn entropy_values() {
        assert_eq!(shannon(b"aaaa"), 0.0);
        assert!((shannon(b"abcd") - 2.0).abs() < 1e-9);
    }
}
