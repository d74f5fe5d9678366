//! Session text made safe for the Markdown export: what an agent or a user wrote is Markdown
//! already and is kept as such, but no HTML in it may render (a `<script>` or an
//! `<img onerror>` in a session would run in a Markdown viewer), and no fence in it may open or
//! close a code block the export does not control.
//!
//! The rules, chosen so that a CommonMark / GFM renderer cannot see the text differently from
//! this module:
//! - a fenced code block (a line of three or more backticks or tildes, indented at most three
//!   spaces) is re-emitted at column 0 with a backtick fence longer than any backtick run in
//!   its body, and closed (an unclosed block runs to the end of the text, as in CommonMark).
//!   At column 0 it belongs to no list or quote, so only its own closing fence ends it; its
//!   body stays literal;
//! - everywhere else `<`, `>` and `&` become entities (leading `>` quote markers stay);
//! - an inline code span stays literal only when its closing backtick run is on the same line
//!   and its content has no `|` (a GFM table splits cells before it reads code spans); every
//!   other backtick becomes `&#96;`, and runs of three or more tildes become `&#126;`, so the
//!   text can open no fence and no code span of its own;
//! - backslash escapes are kept, except that an escaped `<`, `>`, `&` or backtick is written
//!   as its entity.
//!
//! Code inside list items indented four or more spaces, and indented code blocks, are escaped
//! like prose: they show entities literally (safe, only less pretty).

/// A backtick fence longer than every backtick run in `body` (at least three).
pub fn fence(body: &str) -> String {
    let mut longest = 0;
    let mut run = 0;
    for c in body.chars() {
        if c == '`' {
            run += 1;
            longest = longest.max(run);
        } else {
            run = 0;
        }
    }
    "`".repeat((longest + 1).max(3))
}

/// `s` as one inline code span, whatever it contains (an identifier: uri, directory, branch).
pub fn code_span(s: &str) -> String {
    let s = s.replace(['\n', '\r'], " ");
    let mut longest = 0;
    let mut run = 0;
    for c in s.chars() {
        if c == '`' {
            run += 1;
            longest = longest.max(run);
        } else {
            run = 0;
        }
    }
    let f = "`".repeat(longest + 1);
    if s.starts_with(['`', ' ']) || s.ends_with(['`', ' ']) {
        format!("{f} {s} {f}")
    } else {
        format!("{f}{s}{f}")
    }
}

/// An opening fence line.
struct Open {
    indent: usize,
    ch: char,
    len: usize,
    info: String,
}

/// The opening fence of a fenced code block, if `line` is one.
fn fence_open(line: &str) -> Option<Open> {
    let indent = line.len() - line.trim_start_matches(' ').len();
    if indent > 3 {
        return None;
    }
    let rest = &line[indent..];
    let ch = rest.chars().next().filter(|c| *c == '`' || *c == '~')?;
    let len = rest.len() - rest.trim_start_matches(ch).len();
    if len < 3 {
        return None;
    }
    let info = &rest[len..];
    if ch == '`' && info.contains('`') {
        return None;
    }
    let info = info
        .split_whitespace()
        .next()
        .unwrap_or("")
        .chars()
        .filter(|c| c.is_alphanumeric() || "+-_.#".contains(*c))
        .take(32)
        .collect();
    Some(Open {
        indent,
        ch,
        len,
        info,
    })
}

/// Whether `line` closes the block `open` started.
fn closes(line: &str, open: &Open) -> bool {
    let indent = line.len() - line.trim_start_matches(' ').len();
    if indent > 3 {
        return false;
    }
    let rest = &line[indent..];
    let len = rest.len() - rest.trim_start_matches(open.ch).len();
    len >= open.len && rest[len..].trim_matches([' ', '\t']).is_empty()
}

/// Session prose (user or assistant text) as Markdown that renders no HTML from the text.
pub fn prose(text: &str) -> String {
    let text = text.replace("\r\n", "\n").replace('\r', "\n");
    let lines: Vec<&str> = text.split('\n').collect();
    let mut out: Vec<String> = Vec::with_capacity(lines.len());
    let mut i = 0;
    while i < lines.len() {
        let Some(open) = fence_open(lines[i]) else {
            out.push(escape_line(lines[i]));
            i += 1;
            continue;
        };
        let mut body = Vec::new();
        let mut j = i + 1;
        while j < lines.len() && !closes(lines[j], &open) {
            // CommonMark removes up to the opening fence's indentation from each line.
            let l = lines[j];
            let strip = (l.len() - l.trim_start_matches(' ').len()).min(open.indent);
            body.push(&l[strip..]);
            j += 1;
        }
        let body = body.join("\n");
        let f = fence(&body);
        out.push(format!("{f}{}", open.info));
        if j > i + 1 {
            out.push(body);
        }
        out.push(f);
        i = j + 1;
    }
    out.join("\n")
}

/// One line of prose: entities for `<`, `>`, `&`; code spans kept only when certain.
fn escape_line(line: &str) -> String {
    let mut out = String::with_capacity(line.len() + 16);
    // Leading block quote markers (`>` with up to three spaces before, one space after).
    let mut rest = line;
    loop {
        let t = rest.trim_start_matches(' ');
        if rest.len() - t.len() > 3 || !t.starts_with('>') {
            break;
        }
        let after = &t[1..];
        let after = after.strip_prefix(' ').unwrap_or(after);
        out.push_str(&rest[..rest.len() - after.len()]);
        rest = after;
    }
    let b: Vec<char> = rest.chars().collect();
    let run = |from: usize, c: char| b[from..].iter().take_while(|x| **x == c).count();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            '\\' if b.get(i + 1).is_some_and(char::is_ascii_punctuation) => {
                match b[i + 1] {
                    '<' => out.push_str("&lt;"),
                    '>' => out.push_str("&gt;"),
                    '&' => out.push_str("&amp;"),
                    '`' => out.push_str("&#96;"),
                    d => {
                        out.push('\\');
                        out.push(d);
                    }
                }
                i += 2;
            }
            '`' => {
                let n = run(i, '`');
                let mut j = i + n;
                let mut close = None;
                while j < b.len() {
                    if b[j] == '`' {
                        let m = run(j, '`');
                        if m == n {
                            close = Some(j);
                            break;
                        }
                        j += m;
                    } else {
                        j += 1;
                    }
                }
                match close {
                    Some(c) if !b[i + n..c].contains(&'|') => {
                        out.extend(&b[i..c + n]);
                        i = c + n;
                    }
                    _ => {
                        out.push_str(&"&#96;".repeat(n));
                        i += n;
                    }
                }
            }
            '~' => {
                let n = run(i, '~');
                if n >= 3 {
                    out.push_str(&"&#126;".repeat(n));
                } else {
                    out.push_str(&"~".repeat(n));
                }
                i += n;
            }
            '<' => {
                out.push_str("&lt;");
                i += 1;
            }
            '>' => {
                out.push_str("&gt;");
                i += 1;
            }
            '&' => {
                out.push_str("&amp;");
                i += 1;
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fence_is_longer_than_inner_backticks() {
        assert_eq!(fence("plain"), "```");
        assert_eq!(fence("a ```` b"), "`````");
    }

    #[test]
    fn html_in_prose_becomes_entities() {
        assert_eq!(
            prose("<script>alert(1)</script> & <img src=x onerror=alert(1)>"),
            "&lt;script&gt;alert(1)&lt;/script&gt; &amp; &lt;img src=x onerror=alert(1)&gt;"
        );
        assert_eq!(prose("> quoted <b>"), "> quoted &lt;b&gt;");
        assert_eq!(prose("  > > two"), "  > > two");
        assert_eq!(prose(r"\<b\> \` \* \\`x`"), r"&lt;b&gt; &#96; \* \\`x`");
    }

    #[test]
    fn code_spans_stay_literal_only_on_one_line_without_pipes() {
        assert_eq!(
            prose("use `Vec<u8>` & ``a`b``"),
            "use `Vec<u8>` &amp; ``a`b``"
        );
        // Unclosed on its line: its backticks cannot pair with a later line's.
        assert_eq!(
            prose("a ` b\nc `<img src=x onerror=alert(1)>` d"),
            "a &#96; b\nc `<img src=x onerror=alert(1)>` d"
        );
        // A pipe: a GFM table would split the cell inside the span.
        assert_eq!(
            prose("| `x|<img src=x>` |"),
            "| &#96;x|&lt;img src=x&gt;&#96; |"
        );
        assert_eq!(prose("~~strike~~ ~~~"), "~~strike~~ &#126;&#126;&#126;");
    }

    #[test]
    fn fenced_blocks_are_re_emitted_at_column_zero_and_closed() {
        assert_eq!(
            prose("see:\n```rust\nlet v: Vec<u8> = vec![];\n```\nafter <b>"),
            "see:\n```rust\nlet v: Vec<u8> = vec![];\n```\nafter &lt;b&gt;"
        );
        // Unclosed: runs to the end, and is closed.
        assert_eq!(
            prose("x\n```\n<script>alert(1)</script>"),
            "x\n```\n<script>alert(1)</script>\n```"
        );
        // A longer inner run lengthens the fence; a tilde fence becomes a backtick one.
        assert_eq!(prose("~~~ sh\necho ```\n~~~"), "````sh\necho ```\n````");
        // Inside a list item: out at column 0 (indentation removed as CommonMark does).
        assert_eq!(
            prose("- item\n  ```\n<img src=x onerror=alert(1)>\n  ```"),
            "- item\n```\n<img src=x onerror=alert(1)>\n```"
        );
        // A fence the text opens inside a list can no longer close ours.
        assert_eq!(
            prose("- ```\n  ````x\n  ```\n  <img src=x onerror=alert(1)>\n  ````"),
            "- &#96;&#96;&#96;\n````x\n```\n<img src=x onerror=alert(1)>\n````"
        );
        // Backticks in the info string: not a fence (CommonMark), so escaped as prose.
        assert_eq!(prose("```a`b"), "&#96;&#96;&#96;a&#96;b");
        assert_eq!(prose("    ```\n<i>"), "    &#96;&#96;&#96;\n&lt;i&gt;");
    }

    #[test]
    fn code_span_holds_any_identifier() {
        assert_eq!(code_span("/tmp/x"), "`/tmp/x`");
        assert_eq!(code_span("a`<img>`"), "`` a`<img>` ``");
        assert_eq!(code_span("x\ny"), "`x y`");
    }
}
