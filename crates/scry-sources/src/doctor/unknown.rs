//! Reading the record type and count out of an `UnknownRecord` warning's message.
//!
//! Providers emit one `UnknownRecord` warning per unknown type with its count, each in its own
//! words (checked against every provider crate in the workspace on 2026-11-30):
//!
//! | provider | message |
//! |---|---|
//! | claude | `record type 'T' is not known: N record(s) skipped, first at line L` |
//! | codex | `unknown record type 'T' (N×, first at line L); skipped` |
//! | gemini | `unknown record T seen N time(s); skipped` · `unknown message type 'T' seen N time(s); …` |
//! | antigravity | `unknown step type 'T' (N step(s)); …` |
//! | grok | `unknown chat_history item type 'T' (N item(s)); skipped` · `updates.jsonl kind 'T' (N line(s)) not mapped` |
//! | dsh | `unknown record type 'T' (N record(s)); skipped` |
//! | deepagents | `N message(s) of unknown type 'T' kept as meta events (first: message M)` |
//! | opencode, kilo | `unknown part type 'T': N part(s) not shown` |
//! | pi | `unknown entry type 'T' seen N time(s); skipped` |
//! | cursor | `unknown record shape 'T' seen N time(s); skipped` |
//! | copilot | `unknown event type 'T' seen N time(s); skipped` |
//! | qwen | `unknown record type 'T' seen N time(s); skipped` |
//! | continue | `unknown message role 'T' (N item(s)) kept as meta events, first at line L` |
//!
//! The convention they share, and which new providers should keep: the type in single quotes,
//! and the count as the first number outside the quotes (a line number may follow it).
//! Gemini's unquoted form (`unknown record T seen N time(s)`, T being a key list such as
//! `{a,b}`) is read by its own pattern. A message in neither form is reported raw.

/// The record type and count an `UnknownRecord` message states, if it follows the convention.
pub fn parse_unknown_record(message: &str) -> Option<(String, u64)> {
    if let Some(rest) = message.strip_prefix("unknown record ") {
        if let Some((ty, after)) = rest.rsplit_once(" seen ") {
            if !ty.contains('\'') {
                return Some((ty.to_string(), first_number(after)?));
            }
        }
    }
    let (before, rest) = message.split_once('\'')?;
    let (ty, after) = rest.split_once('\'')?;
    if ty.is_empty() {
        return None;
    }
    let count = first_number(before).or_else(|| first_number(after))?;
    Some((ty.to_string(), count))
}

/// The first run of ASCII digits in `s`, as a number.
fn first_number(s: &str) -> Option<u64> {
    let start = s.find(|c: char| c.is_ascii_digit())?;
    let digits: String = s
        .get(start..)?
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each message below is the provider's `format!` string (see the module table) filled in
    /// with type `t-1`, count 12 and line 345; the type carries a digit on purpose.
    #[test]
    fn every_provider_phrasing() {
        let cases = [
            "record type 't-1' is not known: 12 record(s) skipped, first at line 345",
            "unknown record type 't-1' (12×, first at line 345); skipped",
            "unknown message type 't-1' seen 12 time(s); kept as meta events",
            "unknown step type 't-1' (12 step(s)); read as tool-execution steps",
            "unknown chat_history item type 't-1' (12 item(s)); skipped",
            "updates.jsonl kind 't-1' (12 line(s)) not mapped",
            "unknown record type 't-1' (12 record(s)); skipped",
            "12 message(s) of unknown type 't-1' kept as meta events (first: message 345)",
            "unknown part type 't-1': 12 part(s) not shown",
            "unknown entry type 't-1' seen 12 time(s); skipped",
            "unknown message role 't-1' (12 item(s)) kept as meta events, first at line 345",
            "unknown record shape 't-1' seen 12 time(s); skipped",
            "unknown event type 't-1' seen 12 time(s); skipped",
        ];
        for m in cases {
            assert_eq!(
                parse_unknown_record(m),
                Some(("t-1".to_string(), 12)),
                "{m}"
            );
        }
        assert_eq!(
            parse_unknown_record("unknown record {a2,b} seen 12 time(s); skipped"),
            Some(("{a2,b}".to_string(), 12))
        );
        assert_eq!(
            parse_unknown_record(
                "unknown record $set.messages entry without id seen 3 time(s); skipped"
            ),
            Some(("$set.messages entry without id".to_string(), 3))
        );
    }

    #[test]
    fn other_messages_are_not_guessed() {
        assert_eq!(parse_unknown_record("something odd happened"), None);
        assert_eq!(parse_unknown_record("type 'x' without a count"), None);
        assert_eq!(parse_unknown_record("'' 3 times"), None);
        assert_eq!(parse_unknown_record("unterminated 'x 3"), None);
        assert_eq!(parse_unknown_record("n 99999999999999999999999 'x'"), None);
    }
}
