//! The application state: which screen is shown, the session list, the open session, the
//! search, the help overlay and the status line. Every read goes through scry-query's public
//! functions with the [`Context`] the command line built; the state changes only through
//! [`App`]'s methods (key handling in [`crate::keys`]), so tests drive it without a terminal.

use std::time::{Duration, Instant};

use scry_model::Timestamp;
use scry_query::{Context, ListQuery};

use crate::source::Source;

use crate::list::ListState;
use crate::search::SearchState;
use crate::session::SessionState;
use crate::theme::Theme;

/// How often the list and the open session are checked for changes on disk.
pub const POLL: Duration = Duration::from_millis(1500);
/// How long typing must pause before the search runs.
pub const DEBOUNCE: Duration = Duration::from_millis(250);

/// What `scry tui` starts with.
#[derive(Debug, Clone)]
pub struct Options {
    /// The list's filters (the flags of `scry list`).
    pub list: ListQuery,
    /// Colors on (false with `NO_COLOR` / `--no-color`).
    pub color: bool,
    /// "Now" for ages and usage; `None` = the clock (tests pin it).
    pub now: Option<Timestamp>,
}

/// The screen under the help overlay.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Screen {
    /// The session list.
    List,
    /// One session.
    Session,
    /// Search results.
    Search,
}

/// The whole state of the TUI.
pub struct App {
    /// Where sessions are read from.
    pub ctx: Source,
    /// Styles.
    pub theme: Theme,
    /// Pinned "now" (tests), else the clock.
    pub now: Option<Timestamp>,
    /// The screen shown.
    pub screen: Screen,
    /// The help overlay is open.
    pub help: bool,
    /// The session list.
    pub list: ListState,
    /// The open session.
    pub session: Option<SessionState>,
    /// The search.
    pub search: SearchState,
    /// One line of feedback (errors, "copied …").
    pub status: Option<String>,
    /// Quit requested.
    pub quit: bool,
    /// Text to put on the clipboard (OSC 52) at the next draw.
    pub clipboard: Option<String>,
    /// The uri of the session opened last (its resume command is printed on exit).
    pub last_opened: Option<scry_model::Header>,
    /// When the list / open session were last checked for changes.
    pub last_poll: Instant,
}

impl App {
    /// A new app; loads the list.
    pub fn new(ctx: Context, opts: Options) -> App {
        App::with_source(Source::local(ctx), opts)
    }

    /// A new app reading `source` (another store than this machine's: see [`Source`]); loads
    /// the list.
    pub fn with_source(source: Source, opts: Options) -> App {
        let mut app = App {
            ctx: source,
            theme: Theme::new(opts.color),
            now: opts.now,
            screen: Screen::List,
            help: false,
            list: ListState::new(opts.list),
            session: None,
            search: SearchState::default(),
            status: None,
            quit: false,
            clipboard: None,
            last_opened: None,
            last_poll: Instant::now(),
        };
        app.reload_list();
        app
    }

    /// "Now": pinned, or the clock.
    pub fn now(&self) -> Timestamp {
        self.now.unwrap_or_else(Timestamp::now)
    }

    /// Reloads the list (keeping the selected session selected when it is still listed).
    pub fn reload_list(&mut self) {
        if let Err(e) = self.list.load(&self.ctx) {
            self.status = Some(e);
        }
    }

    /// After the list's selection moved: loads the next page when it nears the last loaded
    /// row.
    pub fn list_moved(&mut self) {
        if let Err(e) = self.list.more_if_near_end(&self.ctx) {
            self.status = Some(e);
        }
    }

    /// Opens session `uri`, at turn `turn` and event `event` when given.
    pub fn open(&mut self, uri: &str, turn: Option<u32>, event: Option<u32>) {
        match SessionState::open(&self.ctx, uri, turn, event) {
            Ok(s) => {
                self.last_opened = Some(s.header.clone());
                self.session = Some(s);
                self.screen = Screen::Session;
                self.status = None;
            }
            Err(e) => self.status = Some(e),
        }
    }

    /// Time-driven work: the debounced search, and every [`POLL`] the live check of the list
    /// and the open session. Returns whether anything changed (a redraw is due).
    pub fn tick(&mut self, now: Instant) -> bool {
        let mut changed = false;
        if self.search.due(now) {
            self.search.run(&self.ctx);
            changed = true;
        }
        if now.duration_since(self.last_poll) >= POLL {
            self.last_poll = now;
            changed |= self.poll();
        }
        changed
    }

    /// Checks the list (when shown) and the open session for changes on disk and reloads what
    /// changed. Returns whether anything did.
    pub fn poll(&mut self) -> bool {
        let mut changed = false;
        // Sessions read from another store have no source file here to watch.
        if !self.ctx.reader.live() {
            return false;
        }
        if self.screen == Screen::List {
            let before = self.list.signature();
            if let Err(e) = self.list.load(&self.ctx) {
                self.status = Some(e);
            }
            if self.list.signature() != before {
                changed = true;
            }
        }
        if self.screen == Screen::Session {
            if let Some(s) = self.session.as_mut() {
                match s.refresh_if_changed(&self.ctx) {
                    Ok(c) => changed |= c,
                    Err(e) => {
                        self.status = Some(e);
                        changed = true;
                    }
                }
            }
        }
        changed
    }

    /// The resume command of the session opened last, as `scry resume` prints it, or why
    /// there is none.
    pub fn resume_line(&self) -> Option<Result<String, String>> {
        let h = self.last_opened.as_ref()?;
        if !h.live {
            return Some(Err(format!(
                "{}: its source is gone, so the agent can no longer resume it",
                h.uri
            )));
        }
        Some(scry_query::resume::line(h))
    }
}
