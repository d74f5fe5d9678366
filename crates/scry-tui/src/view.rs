//! The frame: a top bar (where you are, the list's filters), the screen, and a bottom bar
//! (the status message, else the main keys), with the help overlay on top when open.

use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::Paragraph;
use ratatui::Frame;

use crate::app::{App, Screen};
use crate::text::clip;

/// Draws the whole app into the frame.
pub fn draw(f: &mut Frame, app: &mut App) {
    let area = f.area();
    if area.height < 3 || area.width < 10 {
        f.render_widget(Paragraph::new("scry: terminal too small"), area);
        return;
    }
    let w = area.width as usize;
    let theme = app.theme;
    let top = match app.screen {
        Screen::List => format!(
            " scry · {} sessions · {}",
            app.list.total,
            app.list.filters_text()
        ),
        Screen::Session => " scry · session".to_string(),
        Screen::Search => " scry · search".to_string(),
    };
    f.render_widget(
        Paragraph::new(Line::styled(format!("{:<w$}", clip(&top, w)), theme.bar())),
        Rect { height: 1, ..area },
    );
    let main = Rect {
        y: area.y + 1,
        height: area.height - 2,
        ..area
    };
    match app.screen {
        Screen::List => {
            let now = app.now();
            crate::list::draw(f, main, &mut app.list, theme, now);
        }
        Screen::Session => {
            if let Some(s) = app.session.as_mut() {
                crate::session_view::draw(f, main, s, theme);
            }
        }
        Screen::Search => crate::search::draw(f, main, &mut app.search, theme),
    }
    let keys = match app.screen {
        Screen::List => "Enter open  / search  g scope  a agent  s since  K kind  ? help  q quit",
        Screen::Session => {
            "[ ] turn  t tool  Enter expand  n/N hit  Tab ledgers  y copy  ? help  q back"
        }
        Screen::Search => "type to search  ↑↓ select  Enter open  Esc back",
    };
    let bottom = match &app.status {
        Some(s) => format!(" {}", crate::text::one_line(s)),
        None => format!(" {keys}"),
    };
    f.render_widget(
        Paragraph::new(Line::styled(
            format!("{:<w$}", clip(&bottom, w)),
            theme.bar(),
        )),
        Rect {
            y: area.y + area.height - 1,
            height: 1,
            ..area
        },
    );
    if app.help {
        crate::help::draw(f, area, theme);
    }
}
