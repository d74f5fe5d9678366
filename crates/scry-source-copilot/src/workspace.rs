//! `workspace.yaml`: the few flat keys Copilot CLI writes beside a session's event log (`id`,
//! `cwd`, `git_root`, `branch`, `client_name`, `name`, `user_named`, `summary_count`,
//! `fork_count`, `created_at`, `updated_at`).
//!
//! A tiny reader instead of a YAML dependency: the file is one mapping of scalars, no nesting,
//! no anchors, no lists (1.0.102). Read here: plain scalars (continued on more-indented lines,
//! folded with spaces), single-quoted (`''` escapes) and double-quoted scalars (the usual
//! backslash escapes), block scalars (`|`, `>`, with `-` / `+` chomping) and `#` comments.
//! Anything else (a nested mapping, a list) is skipped line by line, never an error: the file
//! only completes what `events.jsonl` says.

use std::collections::BTreeMap;
use std::path::Path;

/// The keys of a `workspace.yaml`, values as strings.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Workspace {
    /// Every top-level key with a scalar value.
    pub keys: BTreeMap<String, String>,
}

impl Workspace {
    /// Reads `path`; `None` when it cannot be read (missing is normal for old sessions).
    pub fn read(path: &Path) -> Option<Workspace> {
        let bytes = std::fs::read(path).ok()?;
        Some(parse(&String::from_utf8_lossy(&bytes)))
    }

    /// A key's value, `None` when absent or empty.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.keys
            .get(key)
            .map(String::as_str)
            .filter(|v| !v.is_empty())
    }

    /// A boolean key (`true` / `false`).
    pub fn flag(&self, key: &str) -> Option<bool> {
        match self.get(key)? {
            "true" | "True" | "TRUE" => Some(true),
            "false" | "False" | "FALSE" => Some(false),
            _ => None,
        }
    }
}

/// Parses the text of a flat YAML mapping.
pub fn parse(text: &str) -> Workspace {
    let lines: Vec<&str> = text.lines().collect();
    let mut keys = BTreeMap::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i].trim_end_matches('\r');
        i += 1;
        if line.starts_with([' ', '\t', '#', '-']) || line.trim().is_empty() || line == "---" {
            continue;
        }
        let Some((key, rest)) = split_key(line) else {
            continue;
        };
        // Continuation lines: more indented than the key (which is at column 0), or blank.
        let start = i;
        while i < lines.len() {
            let l = lines[i].trim_end_matches('\r');
            if l.is_empty() || l.starts_with([' ', '\t']) {
                i += 1;
            } else {
                break;
            }
        }
        let more: Vec<&str> = lines[start..i]
            .iter()
            .map(|l| l.trim_end_matches('\r'))
            .collect();
        if let Some(v) = value(rest.trim(), &more) {
            keys.insert(key.to_string(), v);
        }
    }
    Workspace { keys }
}

/// `key: rest` (the key unquoted, plain); `None` for anything else.
fn split_key(line: &str) -> Option<(&str, &str)> {
    let (key, rest) = match line.split_once(": ") {
        Some(kr) => kr,
        None => (line.strip_suffix(':')?, ""),
    };
    let key = key.trim();
    (!key.is_empty() && !key.contains(['"', '\'', '{', '[', ' '])).then_some((key, rest))
}

/// The scalar that starts with `first` and continues on `more`; `None` for a nested mapping
/// or a list.
fn value(first: &str, more: &[&str]) -> Option<String> {
    if let Some(header) = first
        .strip_prefix('|')
        .map(|h| (true, h))
        .or_else(|| first.strip_prefix('>').map(|h| (false, h)))
    {
        return Some(block(header.0, header.1, more));
    }
    if let Some(body) = first.strip_prefix('\'') {
        return Some(single_quoted(&joined(body, more)));
    }
    if let Some(body) = first.strip_prefix('"') {
        return Some(double_quoted(&joined(body, more)));
    }
    let first = strip_comment(first);
    if first.is_empty() {
        // A nested mapping or list follows, or nothing: not a scalar we keep.
        return (more.iter().all(|l| l.trim().is_empty())).then(String::new);
    }
    Some(joined(first, more).trim().to_string())
}

/// A plain or quoted scalar's lines folded: single line breaks become spaces, blank lines
/// become newlines.
fn joined(first: &str, more: &[&str]) -> String {
    let mut out = first.to_string();
    let mut pending_newlines = 0;
    for l in more {
        let t = l.trim();
        if t.is_empty() {
            pending_newlines += 1;
            continue;
        }
        if pending_newlines > 0 {
            out.push_str(&"\n".repeat(pending_newlines));
            pending_newlines = 0;
        } else {
            out.push(' ');
        }
        out.push_str(t);
    }
    out
}

/// A plain scalar without a trailing ` # comment`.
fn strip_comment(s: &str) -> &str {
    match s.find(" #") {
        Some(i) => s[..i].trim_end(),
        None => s,
    }
}

/// The body of a single-quoted scalar (after the opening quote).
fn single_quoted(body: &str) -> String {
    let mut out = String::new();
    let mut chars = body.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\'' {
            if chars.peek() == Some(&'\'') {
                chars.next();
                out.push('\'');
            } else {
                break;
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// The body of a double-quoted scalar (after the opening quote), escapes decoded.
fn double_quoted(body: &str) -> String {
    let mut out = String::new();
    let mut chars = body.chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => break,
            '\\' => match chars.next() {
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                Some('r') => out.push('\r'),
                Some('0') => out.push('\0'),
                Some(' ') => out.push(' '),
                Some('/') => out.push('/'),
                Some('"') => out.push('"'),
                Some('\\') => out.push('\\'),
                Some(k @ ('x' | 'u' | 'U')) => {
                    let n = match k {
                        'x' => 2,
                        'u' => 4,
                        _ => 8,
                    };
                    let hex: String = chars.by_ref().take(n).collect();
                    match u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32) {
                        Some(ch) => out.push(ch),
                        None => out.push(char::REPLACEMENT_CHARACTER),
                    }
                }
                Some(other) => {
                    out.push('\\');
                    out.push(other);
                }
                None => {}
            },
            other => out.push(other),
        }
    }
    out
}

/// A block scalar: `literal` (`|`) keeps line breaks, folded (`>`) joins lines with spaces;
/// `header` holds the chomping indicator (`-` strips the final newline, `+` keeps all).
fn block(literal: bool, header: &str, more: &[&str]) -> String {
    let indent = more
        .iter()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    let body: Vec<&str> = more.iter().map(|l| l.get(indent..).unwrap_or("")).collect();
    let mut out = if literal {
        body.join("\n")
    } else {
        let mut s = String::new();
        for (n, l) in body.iter().enumerate() {
            if n > 0 {
                s.push(if l.is_empty() || body[n - 1].is_empty() {
                    '\n'
                } else {
                    ' '
                });
            }
            s.push_str(l);
        }
        s
    };
    let strip = header.contains('-');
    let keep = header.contains('+');
    if !keep {
        while out.ends_with('\n') {
            out.pop();
        }
        if !strip {
            out.push('\n');
        }
    }
    if strip || out == "\n" {
        out = out.trim_end_matches('\n').to_string();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shape_copilot_writes() {
        let w = parse(
            "id: 3d3522bb-747f\ncwd: /home/dev/proj\nbranch: master\n\
             name: 请帮我检查 (cross-session search). key: x\nuser_named: false\nsummary_count: 0\n",
        );
        assert_eq!(w.get("id"), Some("3d3522bb-747f"));
        assert_eq!(w.get("cwd"), Some("/home/dev/proj"));
        assert_eq!(
            w.get("name"),
            Some("请帮我检查 (cross-session search). key: x")
        );
        assert_eq!(w.flag("user_named"), Some(false));
        assert_eq!(w.get("missing"), None);
    }

    #[test]
    fn quoted_block_and_folded_values() {
        let w = parse(concat!(
            "a: 'it''s: here'\n",
            "b: \"tab\\there \\u00e9 \\\"q\\\"\"\n",
            "c: |-\n  line one\n  line two\n",
            "d: >\n  folded\n  text\n",
            "e: long plain\n  continued\n",
            "f: value # a comment\n",
            "nested:\n  x: 1\n",
            "- item\n",
            "g: \"two\n  lines\"\n",
        ));
        assert_eq!(w.get("a"), Some("it's: here"));
        assert_eq!(w.get("b"), Some("tab\there é \"q\""));
        assert_eq!(w.get("c"), Some("line one\nline two"));
        assert_eq!(w.get("d"), Some("folded text\n"));
        assert_eq!(w.get("e"), Some("long plain continued"));
        assert_eq!(w.get("f"), Some("value"));
        assert_eq!(w.get("nested"), None);
        assert_eq!(w.get("g"), Some("two lines"));
    }

    #[test]
    fn garbage_is_no_keys_not_a_panic() {
        for text in [
            "",
            ":",
            ": x",
            "\u{feff}",
            "a:\tb",
            "'q': 1",
            "a: \"unterminated",
            "a: |",
        ] {
            let _ = parse(text);
        }
        assert_eq!(parse("a: \"\\u12\"").get("a"), Some("\u{fffd}"));
    }
}
