//! Identifier shapes: what the value of an identifier field (a session uri, a path, a cursor,
//! a time) may look like and still keep its random-looking parts when redacted.
//!
//! Only the high-entropy finding is ever waived, and only for a value of one of these shapes:
//! a provider key, a bearer token, a JWT, a private key or a password in a URL is redacted
//! inside an identifier field as anywhere else. A value of no identifier shape (a random
//! token under a tool argument named `id` or `to`) is treated as text.

/// Whether `s` has the shape of an identifier whose random-looking parts are not secrets:
/// - hex digits and dashes (uuids, digests, fingerprints);
/// - an RFC 3339 time (`2026-11-30T16:08:20.948Z`);
/// - a scry paging cursor (`c1` + 54 URL-safe base64 characters, or `n.c1…` from MCP);
/// - a plain path: rooted (`/`, `~/`, `./`, `../`, `C:\`, `C:/`, `\\server`), on one line.
pub(crate) fn is_identifier(s: &str) -> bool {
    !s.is_empty() && (is_hex_id(s) || is_time(s) || is_cursor(s) || is_path(s))
}

fn is_hex_id(s: &str) -> bool {
    s.bytes().all(|b| b.is_ascii_hexdigit() || b == b'-')
}

fn is_time(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() >= 10
        && b[..4].iter().all(u8::is_ascii_digit)
        && b[4] == b'-'
        && b.iter()
            .all(|c| c.is_ascii_digit() || matches!(c, b'-' | b':' | b'.' | b'T' | b'Z' | b'+'))
}

fn is_cursor(s: &str) -> bool {
    let body = s.strip_prefix("n.").unwrap_or(s);
    body.strip_prefix("c1").is_some_and(|rest| {
        rest.len() == 54
            && rest
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    })
}

fn is_path(s: &str) -> bool {
    let b = s.as_bytes();
    let rooted = s.starts_with('/')
        || s.starts_with("~/")
        || s.starts_with("./")
        || s.starts_with("../")
        || s.starts_with("\\\\")
        || (b.len() >= 3
            && b[0].is_ascii_alphabetic()
            && b[1] == b':'
            && (b[2] == b'\\' || b[2] == b'/'));
    rooted && !s.contains("://") && !s.chars().any(char::is_control)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes() {
        assert!(is_identifier("4f1c2a9e-7b3d-4c8e-9a21-5d6e7f809a1b"));
        assert!(is_identifier("2026-11-30T16:08:20.948Z"));
        assert!(is_identifier("2026-11-30T16:08:20+02:00"));
        let cursor = format!("c1{}", "Ab3_-".repeat(10) + "Xy9z");
        assert!(is_identifier(&cursor));
        assert!(is_identifier(&format!("n.{cursor}")));
        assert!(is_identifier(
            "/tmp/%2Ftmp%2Fproject/019f6851-7ec4-7ef0-97d3-03f3eee38755/chat_history.jsonl"
        ));
        assert!(is_identifier(
            "C:\\Users\\dev\\x9Qm2ZtLw8Rv4KpN7sYb3HcJ6dFg1Ae5"
        ));
        assert!(is_identifier("~/work/project"));
    }

    #[test]
    fn not_shapes() {
        // A random token, a credential pair, a URL, code, a path with a line break.
        assert!(!is_identifier(""));
        assert!(!is_identifier("x9Qm2ZtLw8Rv4KpN7sYb3HcJ6dFg1Ae5"));
        assert!(!is_identifier("admin:x9Qm2ZtLw8Rv4KpN7sYb3HcJ6dFg1Ae5"));
        assert!(!is_identifier(
            "https://x9Qm2ZtLw8Rv4KpN7sYb3HcJ6dFg1Ae5.example.com/"
        ));
        assert!(!is_identifier(
            "openai.api_key='x9Qm2ZtLw8Rv4KpN7sYb3HcJ6dFg1Ae5'"
        ));
        assert!(!is_identifier("/tmp/a\nx9Qm2ZtLw8Rv4KpN7sYb3HcJ6dFg1Ae5"));
        assert!(!is_identifier("c1short"));
    }
}
