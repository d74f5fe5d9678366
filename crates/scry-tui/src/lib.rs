//! `scry tui`: browse, search and read agent sessions in the terminal (issue 23).
//!
//! A full-screen app on ratatui + crossterm that reads only through scry-query's public
//! functions with the [`scry_query::Context`] the command line built (demo, exclusions, index
//! flags), like every other front end:
//!
//! - the session list ([`list`]): `list`'s filters, newest first, cost per session;
//! - a session ([`session`], [`session_view`]): turn by turn, tool calls expandable to their
//!   output, tabs for the commands / files / errors ledgers and usage ([`ledger`]);
//! - `/` search ([`search`]): live results grouped by session, matches highlighted, Enter
//!   opens the session at the hit, `n` / `N` step through the hits there;
//! - live updates: the list and the open session are re-read when their sources change;
//! - `y` copies a reference with OSC 52 ([`osc52`]); on exit the caller prints the resume
//!   command of the session opened last ([`App::resume_line`]).
//!
//! [`App`] holds the state and is driven by [`keys`]; [`view::draw`] renders it into any
//! ratatui backend (a `TestBackend` in the tests); [`term::run`] owns the real terminal.

pub mod app;
pub mod help;
pub mod keys;
pub mod ledger;
pub mod list;
pub mod osc52;
pub mod search;
pub mod session;
pub mod session_view;
pub mod source;
pub mod term;
pub mod text;
pub mod theme;
pub mod view;

pub use app::{App, Options, Screen};
pub use source::{Local, Reader, Source};

/// Runs the TUI on the process's terminal reading `source`; returns the app (its
/// [`App::resume_line`] is printed after the terminal is restored).
pub fn run(source: Source, opts: Options) -> std::io::Result<App> {
    let mut app = App::with_source(source, opts);
    term::run(&mut app)?;
    Ok(app)
}
