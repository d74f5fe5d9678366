//! The terminal: raw mode, the alternate screen and mouse capture on the way in; the same
//! undone on the way out — on a normal exit, on an error, and on a panic (a hook that
//! restores the terminal before the default hook prints the message). The event loop waits
//! for input at most until the next tick (debounced search, live poll).

use std::io::{self, Write};
use std::time::{Duration, Instant};

use ratatui::backend::CrosstermBackend;
use ratatui::crossterm::event::{self, DisableMouseCapture, EnableMouseCapture, Event};
use ratatui::crossterm::execute;
use ratatui::crossterm::terminal::{
    disable_raw_mode, enable_raw_mode, EnterAlternateScreen, LeaveAlternateScreen,
};
use ratatui::Terminal;

use crate::app::App;

/// Longest wait for input before the app's timers are checked.
const TICK: Duration = Duration::from_millis(100);

/// Undoes [`enter`]: leaves the alternate screen, releases the mouse, shows the cursor and
/// ends raw mode. Safe to call twice.
pub fn restore() {
    let mut out = io::stdout();
    let _ = execute!(
        out,
        DisableMouseCapture,
        LeaveAlternateScreen,
        ratatui::crossterm::cursor::Show
    );
    let _ = disable_raw_mode();
    let _ = out.flush();
}

fn enter() -> io::Result<()> {
    enable_raw_mode()?;
    let mut out = io::stdout();
    execute!(out, EnterAlternateScreen, EnableMouseCapture)?;
    Ok(())
}

/// Restores the terminal on drop (an early return or an error on the way).
struct Guard;

impl Drop for Guard {
    fn drop(&mut self) {
        restore();
    }
}

/// Runs `app` on the process's terminal until it quits.
pub fn run(app: &mut App) -> io::Result<()> {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        restore();
        previous(info);
    }));
    enter()?;
    let _guard = Guard;
    let mut terminal = Terminal::new(CrosstermBackend::new(io::stdout()))?;
    let mut dirty = true;
    while !app.quit {
        if dirty {
            terminal.draw(|f| crate::view::draw(f, app))?;
            if let Some(text) = app.clipboard.take() {
                let mut out = io::stdout();
                out.write_all(crate::osc52::sequence(&text).as_bytes())?;
                out.flush()?;
            }
            dirty = false;
        }
        if event::poll(TICK)? {
            match event::read()? {
                Event::Key(k) => crate::keys::key(app, k, Instant::now()),
                Event::Mouse(m) => crate::keys::mouse(app, m),
                Event::Resize(..) => terminal.autoresize()?,
                _ => continue,
            }
            dirty = true;
        }
        dirty |= app.tick(Instant::now());
    }
    Ok(())
}
