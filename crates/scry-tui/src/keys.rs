//! Key and mouse handling: one function per screen turns an input event into a change of the
//! [`App`] state (and the reads it needs). The help overlay takes the next key; `Ctrl-C`
//! quits from anywhere.

use std::time::Instant;

use ratatui::crossterm::event::{
    KeyCode, KeyEvent, KeyEventKind, KeyModifiers, MouseEvent, MouseEventKind,
};

use crate::app::{App, Screen};
use crate::ledger::Tab;

/// Lines or rows one mouse wheel step moves.
const WHEEL: isize = 3;

/// Handles one key press at `now`.
pub fn key(app: &mut App, k: KeyEvent, now: Instant) {
    if k.kind == KeyEventKind::Release {
        return;
    }
    if k.code == KeyCode::Char('c') && k.modifiers.contains(KeyModifiers::CONTROL) {
        app.quit = true;
        return;
    }
    if app.help {
        app.help = false;
        return;
    }
    app.status = None;
    match app.screen {
        Screen::List => list_key(app, k),
        Screen::Session => session_key(app, k),
        Screen::Search => search_key(app, k, now),
    }
}

/// Handles a mouse event: the wheel scrolls the list, the turn or the results.
pub fn mouse(app: &mut App, m: MouseEvent) {
    let d = match m.kind {
        MouseEventKind::ScrollDown => WHEEL,
        MouseEventKind::ScrollUp => -WHEEL,
        _ => return,
    };
    match app.screen {
        Screen::List => {
            app.list.move_by(d);
            app.list_moved();
        }
        Screen::Search => app.search.move_by(d.signum()),
        Screen::Session => {
            if let Some(s) = app.session.as_mut() {
                scroll(s, d);
            }
        }
    }
}

fn open_search(app: &mut App) {
    app.search.back = app.screen;
    app.search.base.provider = app.list.query.provider.clone();
    app.search.base.since = app.list.query.since.clone();
    app.screen = Screen::Search;
}

fn list_key(app: &mut App, k: KeyEvent) {
    let page = 10;
    match k.code {
        KeyCode::Char('q') | KeyCode::Esc => app.quit = true,
        KeyCode::Char('?') => app.help = true,
        KeyCode::Char('/') => open_search(app),
        KeyCode::Down | KeyCode::Char('j') => {
            app.list.move_by(1);
            app.list_moved();
        }
        KeyCode::Up | KeyCode::Char('k') => app.list.move_by(-1),
        KeyCode::Char('K') => {
            app.list.cycle_kind();
            app.reload_list();
        }
        KeyCode::PageDown => {
            app.list.move_by(page);
            app.list_moved();
        }
        KeyCode::PageUp => app.list.move_by(-page),
        KeyCode::Home => app.list.selected = 0,
        KeyCode::End => {
            app.list.move_by(isize::MAX / 2);
            app.list_moved();
        }
        KeyCode::Char('g') => {
            app.list.toggle_global();
            app.reload_list();
        }
        KeyCode::Char('a') => {
            app.list.cycle_provider();
            app.reload_list();
        }
        KeyCode::Char('s') => {
            app.list.cycle_since();
            app.reload_list();
        }
        KeyCode::Char('r') => app.reload_list(),
        KeyCode::Enter | KeyCode::Right | KeyCode::Char('l') => {
            if let Some(uri) = app.list.selected_uri() {
                app.open(&uri, None, None);
            }
        }
        _ => {}
    }
}

fn scroll(s: &mut crate::session::SessionState, d: isize) {
    if s.tab == Tab::Turn {
        s.follow = false;
        s.scroll = (s.scroll as isize + d).max(0) as usize;
    } else {
        s.ledger_scroll = (s.ledger_scroll as isize + d).max(0) as usize;
    }
}

fn session_key(app: &mut App, k: KeyEvent) {
    let ctx = app.ctx.clone();
    let now = app.now();
    let Some(s) = app.session.as_mut() else {
        app.screen = Screen::List;
        return;
    };
    let page = s.last_height.max(2) as isize - 1;
    let mut result = Ok(());
    match k.code {
        KeyCode::Char('q') | KeyCode::Esc | KeyCode::Backspace => {
            app.screen = Screen::List;
            return;
        }
        KeyCode::Char('?') => app.help = true,
        KeyCode::Char('/') => {
            open_search(app);
            return;
        }
        KeyCode::Down | KeyCode::Char('j') => scroll(s, 1),
        KeyCode::Up | KeyCode::Char('k') => scroll(s, -1),
        KeyCode::PageDown | KeyCode::Char(' ') => scroll(s, page),
        KeyCode::PageUp => scroll(s, -page),
        KeyCode::Home | KeyCode::Char('g') => {
            s.scroll = 0;
            s.ledger_scroll = 0;
            s.follow = false;
        }
        KeyCode::End | KeyCode::Char('G') => {
            s.scroll = s.last_len.saturating_sub(s.last_height);
        }
        KeyCode::Char(']') | KeyCode::Right => {
            s.tab = Tab::Turn;
            let i = s.turn + 1;
            result = s.goto_turn(&ctx, i);
        }
        KeyCode::Char('[') | KeyCode::Left => {
            s.tab = Tab::Turn;
            let i = s.turn.saturating_sub(1);
            result = s.goto_turn(&ctx, i);
        }
        KeyCode::Char('t') => s.focus_tool(true),
        KeyCode::Char('T') => s.focus_tool(false),
        KeyCode::Enter | KeyCode::Char('o') => result = s.toggle_focused(&ctx),
        KeyCode::Char('n') => result = s.jump_hit(&ctx, true),
        KeyCode::Char('N') => result = s.jump_hit(&ctx, false),
        KeyCode::Tab => s.tab = s.tab.step(true),
        KeyCode::BackTab => s.tab = s.tab.step(false),
        KeyCode::Char(c @ '1'..='5') => s.tab = Tab::ALL[c as usize - '1' as usize],
        KeyCode::Char('y') => {
            let top = crate::session_view::top_event(s, app.theme, s.last_width);
            let r = s.reference(top);
            app.status = Some(format!("copied {r}"));
            app.clipboard = Some(r);
        }
        _ => {}
    }
    if result.is_ok() {
        result = s.ensure_ledger(&ctx, now);
    }
    if let Err(e) = result {
        app.status = Some(e);
    }
}

fn search_key(app: &mut App, k: KeyEvent, now: Instant) {
    let s = &mut app.search;
    match k.code {
        KeyCode::Esc => app.screen = s.back,
        KeyCode::Enter => {
            if s.dirty.is_some() {
                s.run(&app.ctx);
            }
            let needle = s.ran.clone();
            if let Some((uri, turn, event)) = s.selected_target() {
                app.open(&uri, turn, event);
                if let Some(sess) = app
                    .session
                    .as_mut()
                    .filter(|_| app.screen == Screen::Session)
                {
                    let pos = (turn, event);
                    if let Err(e) = sess.load_hits(&app.ctx, &needle) {
                        app.status = Some(e);
                    }
                    if let (Some(t), Some(e)) = pos {
                        sess.hit = sess.hits.iter().position(|h| *h == (t, e));
                    }
                }
            }
        }
        KeyCode::Down => s.move_by(1),
        KeyCode::Up => s.move_by(-1),
        KeyCode::PageDown => s.move_by(10),
        KeyCode::PageUp => s.move_by(-10),
        KeyCode::Backspace => {
            s.input.pop();
            s.edited(now);
        }
        KeyCode::Char(c) if !k.modifiers.contains(KeyModifiers::CONTROL) => {
            s.input.push(c);
            s.edited(now);
        }
        _ => {}
    }
}
