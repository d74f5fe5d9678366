//! Text helpers shared by the views: wrapping to a width, clipping with an ellipsis, relative
//! ages against an injected "now", and splitting a line into spans with search matches marked.

use ratatui::style::Style;
use ratatui::text::Span;
use scry_model::Timestamp;

/// Display width of `s` in terminal cells (characters; wide characters count one, the
/// terminal clips what overflows).
pub fn width(s: &str) -> usize {
    s.chars().count()
}

/// `s` cut to `max` characters, the last one replaced by `…` when cut.
pub fn clip(s: &str, max: usize) -> String {
    if max == 0 {
        return String::new();
    }
    if width(s) <= max {
        return s.to_string();
    }
    let mut out: String = s.chars().take(max - 1).collect();
    out.push('…');
    out
}

/// `s` clipped and padded with spaces to exactly `w` characters.
pub fn cell(s: &str, w: usize) -> String {
    let c = clip(s, w);
    let pad = w.saturating_sub(width(&c));
    format!("{c}{}", " ".repeat(pad))
}

/// `s` cut from the left to `max` characters (paths keep their end), `…` first when cut.
pub fn clip_left(s: &str, max: usize) -> String {
    let n = width(s);
    if n <= max || max == 0 {
        return if max == 0 {
            String::new()
        } else {
            s.to_string()
        };
    }
    let tail: String = s.chars().skip(n - (max - 1)).collect();
    format!("…{tail}")
}

/// `text` as lines of at most `w` characters: split at newlines, then at the last space that
/// fits (a word longer than the line is cut). Tabs become four spaces; other control
/// characters are dropped so they cannot move the terminal's cursor.
pub fn wrap(text: &str, w: usize) -> Vec<String> {
    let w = w.max(1);
    let mut out = Vec::new();
    for raw in text.split('\n') {
        let line: String = raw
            .replace('\t', "    ")
            .chars()
            .filter(|c| !c.is_control())
            .collect();
        let chars: Vec<char> = line.chars().collect();
        if chars.is_empty() {
            out.push(String::new());
            continue;
        }
        let mut start = 0;
        while start < chars.len() {
            let end = (start + w).min(chars.len());
            if end == chars.len() {
                out.push(chars[start..end].iter().collect());
                break;
            }
            // The last space within the line or right after it: the line ends before it.
            match (start + 1..=end).rev().find(|&i| chars[i] == ' ') {
                Some(sp) => {
                    let l: String = chars[start..sp].iter().collect();
                    out.push(l.trim_end().to_string());
                    start = sp + 1;
                }
                None => {
                    out.push(chars[start..end].iter().collect());
                    start = end;
                }
            }
        }
    }
    out
}

/// One line of text: control characters dropped (newlines become spaces).
pub fn one_line(s: &str) -> String {
    s.chars()
        .map(|c| if c == '\n' || c == '\t' { ' ' } else { c })
        .filter(|c| !c.is_control())
        .collect()
}

/// How long before `now` `t` was: `12s`, `5m`, `3h`, `4d`, `6w` (`-` when unknown).
pub fn age(t: Option<Timestamp>, now: Timestamp) -> String {
    let Some(t) = t else { return "-".into() };
    let s = (now.as_second() - t.as_second()).max(0);
    match s {
        s if s < 60 => format!("{s}s"),
        s if s < 3600 => format!("{}m", s / 60),
        s if s < 86_400 => format!("{}h", s / 3600),
        s if s < 14 * 86_400 => format!("{}d", s / 86_400),
        s => format!("{}w", s / (7 * 86_400)),
    }
}

/// Spans of `line` with every case-insensitive occurrence of `needle` in `hit` style, the rest
/// in `base`.
pub fn highlight(line: &str, needle: &str, base: Style, hit: Style) -> Vec<Span<'static>> {
    let ranges = find_all(line, needle);
    spans_with(line, &ranges, base, hit)
}

/// Character ranges `[start, end)` of the case-insensitive occurrences of `needle` in `line`.
pub fn find_all(line: &str, needle: &str) -> Vec<(usize, usize)> {
    let needle: Vec<char> = needle.chars().flat_map(char::to_lowercase).collect();
    let hay: Vec<char> = line.chars().collect();
    let lower: Vec<char> = hay
        .iter()
        .map(|c| c.to_lowercase().next().unwrap_or(*c))
        .collect();
    let mut out = Vec::new();
    if needle.is_empty() || needle.len() > lower.len() {
        return out;
    }
    let mut i = 0;
    while i + needle.len() <= lower.len() {
        if lower[i..i + needle.len()] == needle[..] {
            out.push((i, i + needle.len()));
            i += needle.len();
        } else {
            i += 1;
        }
    }
    out
}

/// Spans of `line` with the character ranges in `hit` style.
pub fn spans_with(
    line: &str,
    ranges: &[(usize, usize)],
    base: Style,
    hit: Style,
) -> Vec<Span<'static>> {
    let chars: Vec<char> = line.chars().collect();
    let mut out = Vec::new();
    let mut pos = 0;
    for &(a, b) in ranges {
        let (a, b) = (a.min(chars.len()), b.min(chars.len()));
        if a < pos || a >= b {
            continue;
        }
        if a > pos {
            out.push(Span::styled(chars[pos..a].iter().collect::<String>(), base));
        }
        out.push(Span::styled(chars[a..b].iter().collect::<String>(), hit));
        pos = b;
    }
    if pos < chars.len() {
        out.push(Span::styled(chars[pos..].iter().collect::<String>(), base));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wraps_at_spaces_and_cuts_long_words() {
        assert_eq!(wrap("hello world foo", 11), vec!["hello world", "foo"]);
        assert_eq!(wrap("abcdefgh", 3), vec!["abc", "def", "gh"]);
        assert_eq!(wrap("a\n\nb", 5), vec!["a", "", "b"]);
        assert_eq!(wrap("x\u{1b}[2Jy", 10), vec!["x[2Jy"]);
    }

    #[test]
    fn clipping() {
        assert_eq!(clip("abcdef", 4), "abc…");
        assert_eq!(cell("ab", 4), "ab  ");
        assert_eq!(clip_left("/a/b/c/d", 5), "…/c/d");
    }

    #[test]
    fn finds_matches_case_insensitively() {
        assert_eq!(
            find_all("Foo foo FOO", "foo"),
            vec![(0, 3), (4, 7), (8, 11)]
        );
        assert!(find_all("abc", "").is_empty());
        let spans = highlight("a Foo b", "foo", Style::default(), Style::default());
        let texts: Vec<_> = spans.iter().map(|s| s.content.to_string()).collect();
        assert_eq!(texts, vec!["a ", "Foo", " b"]);
    }

    #[test]
    fn ages() {
        let now: Timestamp = "2026-12-01T00:00:00Z".parse().unwrap();
        let t = |s: &str| Some(s.parse::<Timestamp>().unwrap());
        assert_eq!(age(t("2026-11-30T23:59:30Z"), now), "30s");
        assert_eq!(age(t("2026-11-30T21:00:00Z"), now), "3h");
        assert_eq!(age(t("2026-11-20T00:00:00Z"), now), "11d");
        assert_eq!(age(None, now), "-");
    }
}
