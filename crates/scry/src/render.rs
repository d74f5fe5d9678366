//! The CLI's text rendering: the plain helpers of [`scry_query::render`] (times, durations,
//! clipping, warnings) plus [`Style`], the ANSI colouring only a terminal front end applies.

pub use scry_query::render::*;

/// ANSI styling that is a no-op when color is off.
#[derive(Debug, Clone, Copy)]
pub struct Style {
    on: bool,
}

impl Style {
    /// Styling enabled or not.
    pub fn new(on: bool) -> Self {
        Style { on }
    }
    fn wrap(self, code: &str, s: &str) -> String {
        if self.on {
            format!("\x1b[{code}m{s}\x1b[0m")
        } else {
            s.to_string()
        }
    }
    /// Bold.
    pub fn bold(self, s: &str) -> String {
        self.wrap("1", s)
    }
    /// Dimmed.
    pub fn dim(self, s: &str) -> String {
        self.wrap("2", s)
    }
    /// Red (failures).
    pub fn red(self, s: &str) -> String {
        self.wrap("31", s)
    }
    /// Cyan (providers, ids).
    pub fn cyan(self, s: &str) -> String {
        self.wrap("36", s)
    }
}
