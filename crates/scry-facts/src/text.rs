//! Small text helpers shared by the extractors: bounded excerpts and command prefixes.

use serde::{Deserialize, Serialize};

/// A bounded piece of a longer text. `truncated` says whether anything was cut (SPEC P4).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Excerpt {
    /// The kept text: the head and the tail joined by `\n…\n` when cut.
    pub text: String,
    /// True when the original was longer than the excerpt.
    pub truncated: bool,
    /// Length of the original text in characters.
    pub total_chars: usize,
}

/// Keeps the first `head` and the last `tail` characters of `s` (errors are usually at the end).
pub fn excerpt(s: &str, head: usize, tail: usize) -> Excerpt {
    let total = s.chars().count();
    if total <= head + tail {
        return Excerpt {
            text: s.to_string(),
            truncated: false,
            total_chars: total,
        };
    }
    let h: String = s.chars().take(head).collect();
    let t: String = s.chars().skip(total - tail).collect();
    Excerpt {
        text: format!("{h}\n…\n{t}"),
        truncated: true,
        total_chars: total,
    }
}

/// The first `n` whitespace-separated words of a command, used to match a failure with a later
/// run of "the same" command.
pub fn command_prefix(command: &str, n: usize) -> String {
    command
        .split_whitespace()
        .take(n)
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn excerpt_keeps_head_and_tail_and_flags_cut() {
        let e = excerpt("abcdefghij", 2, 3);
        assert_eq!(e.text, "ab\n…\nhij");
        assert!(e.truncated);
        assert_eq!(e.total_chars, 10);
        let whole = excerpt("héllo", 3, 3);
        assert!(!whole.truncated);
        assert_eq!(whole.text, "héllo");
    }

    #[test]
    fn prefix_takes_words() {
        assert_eq!(command_prefix("  cargo   test -p x", 2), "cargo test");
        assert_eq!(command_prefix("ls", 2), "ls");
    }
}
