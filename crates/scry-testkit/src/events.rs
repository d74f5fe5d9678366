//! A parsed session as stable, readable text for snapshots: the header's identity, then one
//! line per event (seq, turn, kind, subtype, tool, error / exit code, surface, `@` when it has
//! a time, `$` when it carries token usage, the first [`TEXT`] characters of its text, or of
//! its arguments when it has no text) and one per warning. What changes between machines or
//! checkouts is left out or normalized: times are shown only as present (`@`) or absent,
//! and the directory the corpus lives in reads `<root>`.

use std::path::Path;

use scry_model::{Event, Session, Warning};
use serde::Serialize;

/// Characters of an event's text (and of titles and warnings) kept in a rendering.
pub const TEXT: usize = 80;

/// `session` rendered for a snapshot; `root` (the home it was read from) reads `<root>`.
pub fn render(session: &Session, root: &Path) -> String {
    let root = root.to_string_lossy();
    let norm = |s: &str| clip(&s.replace(root.as_ref(), "<root>"));
    let h = &session.header;
    let mut out = String::new();
    out.push_str(&format!("provider: {}\nid: {}\n", h.provider, h.id));
    out.push_str(&format!("kind: {}\n", name(&h.kind)));
    if let Some(p) = &h.parent {
        out.push_str(&format!("parent: {p}\n"));
    }
    if let Some(c) = &h.cwd {
        out.push_str(&format!("cwd: {}\n", norm(c)));
    }
    if let Some(t) = &h.title {
        out.push_str(&format!("title: {}\n", norm(t)));
    }
    if !h.models.is_empty() {
        out.push_str(&format!("models: {}\n", h.models.join(", ")));
    }
    if let Some(b) = &h.git_branch {
        out.push_str(&format!("branch: {b}\n"));
    }
    if let Some(v) = &h.agent_version {
        out.push_str(&format!("agent version: {v}\n"));
    }
    out.push_str(&format!(
        "times: {}{}\n",
        if h.created.is_some() { "created " } else { "" },
        if h.updated.is_some() { "updated" } else { "" }
    ));
    out.push_str(&format!(
        "events: {}, warnings: {}\n\n",
        session.events.len(),
        session.warnings.len()
    ));
    for e in &session.events {
        out.push_str(&event_line(e, &norm));
        out.push('\n');
    }
    if !session.warnings.is_empty() {
        out.push('\n');
        for w in &session.warnings {
            out.push_str(&warning_line(w, &norm));
            out.push('\n');
        }
    }
    out
}

fn event_line(e: &Event, norm: &dyn Fn(&str) -> String) -> String {
    let mut line = format!("{:>4} t{} {}", e.seq, e.turn, name(&e.kind));
    if let Some(s) = &e.subtype {
        line.push_str(&format!("/{s}"));
    }
    if let Some(t) = &e.tool {
        line.push_str(&format!(" [{t}]"));
    }
    if e.is_error == Some(true) {
        line.push_str(" error");
    }
    if let Some(c) = e.exit_code {
        line.push_str(&format!(" exit={c}"));
    }
    let surface = name(&e.surface);
    if surface != "current" {
        line.push_str(&format!(" ({surface})"));
    }
    if e.time.is_some() {
        line.push_str(" @");
    }
    if e.usage.is_some() {
        line.push_str(" $");
    }
    if !e.text.is_empty() {
        line.push_str(&format!(" | {}", norm(&e.text)));
    } else if let Some(args) = &e.args {
        line.push_str(&format!(" | {}", norm(&args.to_string())));
    }
    line
}

fn warning_line(w: &Warning, norm: &dyn Fn(&str) -> String) -> String {
    let at = w.line.map(|l| format!(" line {l}")).unwrap_or_default();
    format!("warning {}{at}: {}", name(&w.kind), norm(&w.message))
}

/// The serialized (JSON contract) name of a unit enum value.
fn name<T: Serialize>(v: &T) -> String {
    match serde_json::to_value(v) {
        Ok(serde_json::Value::String(s)) => s,
        Ok(other) => other.to_string(),
        Err(e) => format!("<{e}>"),
    }
}

/// One line of at most [`TEXT`] characters: line breaks and tabs shown as `⏎` / `→`, a cut
/// marked with `…`.
pub fn clip(text: &str) -> String {
    let flat: String = text
        .trim()
        .chars()
        .map(|c| match c {
            '\n' => '⏎',
            '\t' => '→',
            '\r' => ' ',
            c => c,
        })
        .collect();
    if flat.chars().count() <= TEXT {
        return flat;
    }
    let mut cut: String = flat.chars().take(TEXT).collect();
    cut.push('…');
    cut
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clip_flattens_and_cuts() {
        assert_eq!(clip("  a\nb\tc "), "a⏎b→c");
        let long = "é".repeat(TEXT + 5);
        let got = clip(&long);
        assert_eq!(got.chars().count(), TEXT + 1);
        assert!(got.ends_with('…'));
    }
}
