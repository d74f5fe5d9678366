//! The `?` help overlay: every key of every screen, in a box centred over the screen.

use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Block, Borders, Clear, Paragraph};
use ratatui::Frame;

use crate::theme::Theme;

/// The keys, by screen: (key, what it does); an empty key starts a section.
pub const KEYS: &[(&str, &str)] = &[
    ("", "Everywhere"),
    ("?", "this help (any key closes it)"),
    ("/", "search every session"),
    ("q Esc", "back; quit from the list"),
    ("Ctrl-C", "quit"),
    ("", "Session list"),
    ("↑↓ j k", "move (mouse wheel too)"),
    ("PgUp PgDn", "page"),
    ("Enter", "open the session"),
    ("g", "this directory / every directory"),
    ("a s K", "cycle agent / since / kind"),
    ("r", "reload"),
    ("", "Session"),
    ("↑↓ j k", "scroll (mouse wheel too)"),
    ("[ ] ← →", "previous / next turn"),
    ("t T", "next / previous tool call"),
    ("Enter o", "expand the tool call to its output"),
    ("n N", "next / previous search hit"),
    ("Tab 1-5", "turns, commands, files, errors, usage"),
    ("y", "copy a reference (provider:id E<n>)"),
    ("", "Search"),
    ("type", "results as you type"),
    ("↑↓", "select a hit"),
    ("Enter", "open the session at the hit"),
];

/// Draws the help box over `area`.
pub fn draw(f: &mut Frame, area: Rect, theme: Theme) {
    let lines: Vec<Line> = KEYS
        .iter()
        .map(|(k, d)| {
            if k.is_empty() {
                Line::styled(d.to_string(), theme.heading())
            } else {
                Line::styled(format!("  {k:<10} {d}"), theme.text())
            }
        })
        .collect();
    let w = 52.min(area.width);
    let h = (lines.len() as u16 + 2).min(area.height);
    let r = Rect {
        x: area.x + (area.width - w) / 2,
        y: area.y + (area.height - h) / 2,
        width: w,
        height: h,
    };
    f.render_widget(Clear, r);
    f.render_widget(
        Paragraph::new(lines).block(Block::default().borders(Borders::ALL).title(" keys ")),
        r,
    );
}
