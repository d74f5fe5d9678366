//! Styles of every view, and `NO_COLOR`: with color off every style is plain except bold,
//! reverse video (the selection) and underline (search matches), which carry meaning without
//! color.

use ratatui::style::{Color, Modifier, Style};

/// The styles the views draw with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Theme {
    /// Whether colors are used (false under `NO_COLOR` / `--no-color`).
    pub color: bool,
}

impl Theme {
    /// A theme with or without colors.
    pub fn new(color: bool) -> Theme {
        Theme { color }
    }

    fn fg(self, c: Color) -> Style {
        if self.color {
            Style::default().fg(c)
        } else {
            Style::default()
        }
    }

    /// Plain text.
    pub fn text(self) -> Style {
        Style::default()
    }
    /// Secondary text (times, paths, counts).
    pub fn dim(self) -> Style {
        if self.color {
            Style::default().fg(Color::DarkGray)
        } else {
            Style::default()
        }
    }
    /// Provider names.
    pub fn provider(self) -> Style {
        self.fg(Color::Cyan)
    }
    /// Headings (event heads, section titles).
    pub fn heading(self) -> Style {
        Style::default().add_modifier(Modifier::BOLD)
    }
    /// The user's prompts.
    pub fn user(self) -> Style {
        self.fg(Color::Green).add_modifier(Modifier::BOLD)
    }
    /// The assistant's answers.
    pub fn assistant(self) -> Style {
        self.fg(Color::Blue).add_modifier(Modifier::BOLD)
    }
    /// Tool calls.
    pub fn tool(self) -> Style {
        self.fg(Color::Yellow)
    }
    /// Failures.
    pub fn bad(self) -> Style {
        self.fg(Color::Red)
    }
    /// Success marks.
    pub fn good(self) -> Style {
        self.fg(Color::Green)
    }
    /// The selected row / focused item.
    pub fn selected(self) -> Style {
        Style::default().add_modifier(Modifier::REVERSED)
    }
    /// A search match.
    pub fn matched(self) -> Style {
        let s = Style::default().add_modifier(Modifier::BOLD | Modifier::UNDERLINED);
        if self.color {
            s.fg(Color::Black).bg(Color::Yellow)
        } else {
            s
        }
    }
    /// The top and bottom bars.
    pub fn bar(self) -> Style {
        if self.color {
            Style::default().fg(Color::Black).bg(Color::Gray)
        } else {
            Style::default().add_modifier(Modifier::REVERSED)
        }
    }
}
