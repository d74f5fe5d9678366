//! Shell word quote removal and here-doc stripping on raw text.
//!
//! The parser ([`super::parse`]) keeps words as written (`'a b'`, `"x"`, `\$`); [`unquote`]
//! removes quoting the way the shell would before a command sees its arguments (parameter and
//! command substitutions are left as written: nothing is expanded). [`strip_heredocs`] removes
//! here-document bodies from raw command text: it serves the fallback tokenizer and anything
//! that must not mistake a here-doc payload for commands.

use std::sync::LazyLock;

use regex::Regex;

/// Removes shell quoting from one word: `'…'` literally, `"…"` with `\"`, `\\`, `\$`, `` \` ``
/// escapes, `$'…'` with the common C escapes, and backslash escapes outside quotes.
pub fn unquote(word: &str) -> String {
    let mut out = String::with_capacity(word.len());
    let mut chars = word.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                for d in chars.by_ref() {
                    if d == '\'' {
                        break;
                    }
                    out.push(d);
                }
            }
            '"' => {
                while let Some(d) = chars.next() {
                    match d {
                        '"' => break,
                        '\\' => match chars.peek() {
                            Some(&n) if "\"\\$`".contains(n) => {
                                out.push(n);
                                chars.next();
                            }
                            Some('\n') => {
                                chars.next();
                            }
                            _ => out.push('\\'),
                        },
                        _ => out.push(d),
                    }
                }
            }
            '$' if chars.peek() == Some(&'\'') => {
                chars.next();
                while let Some(d) = chars.next() {
                    match d {
                        '\'' => break,
                        '\\' => match chars.next() {
                            Some('n') => out.push('\n'),
                            Some('t') => out.push('\t'),
                            Some(n) => out.push(n),
                            None => {}
                        },
                        _ => out.push(d),
                    }
                }
            }
            '\\' => {
                if let Some(n) = chars.next() {
                    if n != '\n' {
                        out.push(n);
                    }
                }
            }
            _ => out.push(c),
        }
    }
    out
}

/// A here-document found in raw text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HereDoc {
    /// The delimiter word.
    pub delimiter: String,
    /// The body (without the closing delimiter line).
    pub body: String,
}

static HEREDOC_START: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r#"<<(-?)[ \t]*(?:'([^'\n]+)'|"([^"\n]+)"|\\?([A-Za-z_0-9][A-Za-z_0-9.-]*))"#).ok()
});

/// Removes here-document bodies from `text`: returns the text with every body (and its
/// closing delimiter line) removed, plus the bodies in order. `<<<` here-strings are left alone.
/// An unterminated here-doc swallows the rest of the text, as the shell would.
pub fn strip_heredocs(text: &str) -> (String, Vec<HereDoc>) {
    let Some(re) = HEREDOC_START.as_ref() else {
        return (text.to_string(), Vec::new());
    };
    let mut kept = String::with_capacity(text.len());
    let mut docs = Vec::new();
    let mut pending: Vec<(String, bool)> = Vec::new();
    let mut body = String::new();
    for line in text.split_inclusive('\n') {
        if let Some((delim, dash)) = pending.first().cloned() {
            let bare = line.trim_end_matches(['\n', '\r']);
            let cmp = if dash {
                bare.trim_start_matches('\t')
            } else {
                bare
            };
            if cmp == delim {
                docs.push(HereDoc {
                    delimiter: delim,
                    body: std::mem::take(&mut body),
                });
                pending.remove(0);
            } else {
                body.push_str(line);
            }
            continue;
        }
        kept.push_str(line);
        for cap in re.captures_iter(line) {
            let Some(whole) = cap.get(0) else { continue };
            // `<<<` is a here-string, not a here-doc.
            if whole.start() > 0 && line.as_bytes().get(whole.start() - 1) == Some(&b'<') {
                continue;
            }
            if line.as_bytes().get(whole.start() + 2) == Some(&b'<') {
                continue;
            }
            let delim = cap
                .get(2)
                .or_else(|| cap.get(3))
                .or_else(|| cap.get(4))
                .map(|m| m.as_str().to_string());
            if let Some(d) = delim {
                let dash = cap.get(1).is_some_and(|m| !m.as_str().is_empty());
                pending.push((d, dash));
            }
        }
    }
    if let Some((delim, _)) = pending.first() {
        docs.push(HereDoc {
            delimiter: delim.clone(),
            body,
        });
    }
    (kept, docs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unquote_handles_all_quote_styles() {
        assert_eq!(unquote("'a b'"), "a b");
        assert_eq!(unquote(r#""x \"y\" \$z""#), r#"x "y" $z"#);
        assert_eq!(unquote(r"a\ b"), "a b");
        assert_eq!(unquote("$'a\\nb'"), "a\nb");
        assert_eq!(unquote("pre'fix'\"ed\""), "prefixed");
        assert_eq!(unquote("$HOME/x"), "$HOME/x");
    }

    #[test]
    fn strips_bodies_and_keeps_commands() {
        let text = "cat > a.ts <<'EOF'\nconst f = (a, b) => b[1].length;\nssh root@10.0.0.1 'rm -rf /'\nEOF\necho done > b.txt\n";
        let (kept, docs) = strip_heredocs(text);
        assert_eq!(kept, "cat > a.ts <<'EOF'\necho done > b.txt\n");
        assert_eq!(docs.len(), 1);
        assert!(docs[0].body.contains("ssh root@10.0.0.1"));
    }

    #[test]
    fn dash_heredoc_and_here_string() {
        let (kept, docs) =
            strip_heredocs("cat <<-END >x.txt\n\tbody\n\tEND\npython3 <<< 'print(1)'\n");
        assert_eq!(kept, "cat <<-END >x.txt\npython3 <<< 'print(1)'\n");
        assert_eq!(docs[0].body, "\tbody\n");
    }

    #[test]
    fn unterminated_heredoc_swallows_rest() {
        let (kept, docs) = strip_heredocs("cat <<EOF > f.txt\nline > g.txt\n");
        assert_eq!(kept, "cat <<EOF > f.txt\n");
        assert_eq!(docs[0].body, "line > g.txt\n");
    }
}
