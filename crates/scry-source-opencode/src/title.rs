//! Session titles: OpenCode's placeholder titles, generated titles and the title history.

use scry_model::{Header, SessionKind, TitleSource};

/// True for the placeholder OpenCode gives a session before a title is generated
/// (`New session - <ISO time>`, `Child session - <ISO time>`).
pub(crate) fn is_placeholder(title: &str) -> bool {
    ["New session - ", "Child session - "].iter().any(|p| {
        title
            .strip_prefix(p)
            .is_some_and(|rest| rest.len() >= 19 && rest.as_bytes().get(4) == Some(&b'-'))
    })
}

/// Sets `title`, `title_source` and `titles` on `h` from the current title and the history
/// (oldest first). A placeholder is kept in the history but never used as the title, so the
/// first prompt takes its place. Titles of subagent sessions are composed by the `task` tool
/// (`<description> (@<agent> subagent)`), so they count as metadata, not generated.
pub(crate) fn apply(h: &mut Header, current: Option<&str>, history: Vec<String>) {
    let current = current.map(str::trim).filter(|t| !t.is_empty());
    let mut titles = history;
    if let Some(t) = current {
        if titles.last().map(String::as_str) != Some(t) {
            titles.push(t.to_string());
        }
    }
    h.titles = titles;
    if let Some(t) = current.filter(|t| !is_placeholder(t)) {
        h.title = Some(t.to_string());
        h.title_source = Some(if h.kind == SessionKind::Subagent {
            TitleSource::Metadata
        } else {
            TitleSource::Generated
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders() {
        assert!(is_placeholder("New session - 2026-11-30T16:08:20.948Z"));
        assert!(is_placeholder("Child session - 2026-11-30T16:08:20.948Z"));
        assert!(!is_placeholder("New session - fix the parser"));
        assert!(!is_placeholder("Mock reply."));
    }
}
