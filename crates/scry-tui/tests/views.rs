//! TestBackend snapshots of every view on the demo sessions (the repository's `demo/home`,
//! copied with the fixed mtime `--demo` gives its files) at 80×24 and a wider size, and the
//! state transitions behind them, driven by keys as a person would. "Now" is pinned, and the
//! temporary home in the Aider session's directory is redacted, so the snapshots are stable.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use scry_query::{Context, ListQuery};
use scry_source::Env;
use scry_tui::ledger::Tab;
use scry_tui::{App, Options, Screen};

/// The mtime `scry --demo` gives every extracted file (2026-12-01T00:00:00Z).
const FIXED_MTIME_SECS: u64 = 1_796_083_200;

/// The demo home copied into a temporary directory, every file with the fixed mtime.
fn demo_home() -> (tempfile::TempDir, PathBuf) {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../demo/home");
    let tmp = tempfile::tempdir().expect("tempdir");
    let home = tmp.path().join("home");
    let mtime = SystemTime::UNIX_EPOCH + Duration::from_secs(FIXED_MTIME_SECS);
    for entry in walkdir::WalkDir::new(&src) {
        let entry = entry.expect("walk demo");
        let rel = entry.path().strip_prefix(&src).expect("prefix");
        let dst = home.join(rel);
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&dst).expect("mkdir");
        } else {
            std::fs::copy(entry.path(), &dst).expect("copy");
            let f = std::fs::File::options()
                .write(true)
                .open(&dst)
                .expect("open");
            f.set_modified(mtime).expect("mtime");
        }
    }
    (tmp, home)
}

fn app(home: &Path) -> App {
    let ctx = Context {
        demo: true,
        no_index: true,
        ..Context::new(
            Env::with_home(home.to_path_buf()).with_cwd(home.to_path_buf()),
            home.to_path_buf(),
        )
    };
    let mut app = App::new(
        ctx,
        Options {
            list: ListQuery::default(),
            color: false,
            now: Some("2026-12-02T00:00:00Z".parse().expect("now")),
        },
    );
    redact(&mut app, home);
    app
}

/// The temporary home inside directories shown (the demo's Aider project lies in it).
fn redact(app: &mut App, home: &Path) {
    let h = home.display().to_string();
    let fix = |c: &mut Option<String>| {
        if let Some(s) = c.as_mut() {
            *s = s.replace(&h, "/HOME");
        }
    };
    for r in &mut app.list.rows {
        fix(&mut r.header.cwd);
    }
    if let Some(s) = app.session.as_mut() {
        fix(&mut s.header.cwd);
    }
}

fn screen(app: &mut App, w: u16, h: u16) -> String {
    let mut t = Terminal::new(TestBackend::new(w, h)).expect("terminal");
    t.draw(|f| scry_tui::view::draw(f, app)).expect("draw");
    format!("{}", t.backend())
}

fn press(app: &mut App, code: KeyCode) {
    scry_tui::keys::key(app, KeyEvent::new(code, KeyModifiers::NONE), Instant::now());
}

fn chars(app: &mut App, s: &str) {
    for c in s.chars() {
        press(app, KeyCode::Char(c));
    }
}

/// Selects the list row of `provider` whose title contains `title`.
fn select(app: &mut App, provider: &str, title: &str) {
    let i = app
        .list
        .rows
        .iter()
        .position(|r| {
            r.header.provider.as_str() == provider
                && r.header.title.as_deref().unwrap_or("").contains(title)
        })
        .unwrap_or_else(|| panic!("no {provider} session titled {title}"));
    app.list.selected = i;
}

#[test]
fn list_and_help() {
    let (_tmp, home) = demo_home();
    let mut app = app(&home);
    assert!(app.list.rows.len() >= 18, "demo sessions listed");
    // Newest first.
    let times: Vec<_> = app.list.rows.iter().map(|r| r.header.updated).collect();
    assert!(times.windows(2).all(|w| w[0] >= w[1]));
    insta::assert_snapshot!("list_80x24", screen(&mut app, 80, 24));
    insta::assert_snapshot!("list_120x30", screen(&mut app, 120, 30));
    press(&mut app, KeyCode::Char('?'));
    assert!(app.help);
    insta::assert_snapshot!("help_80x24", screen(&mut app, 80, 24));
    press(&mut app, KeyCode::Char('x'));
    assert!(!app.help, "any key closes the help");
    assert!(!app.quit, "the key that closes the help does nothing else");
}

#[test]
fn list_keys_move_filter_and_quit() {
    let (_tmp, home) = demo_home();
    let mut app = app(&home);
    let n = app.list.rows.len();
    press(&mut app, KeyCode::Down);
    press(&mut app, KeyCode::Char('j'));
    assert_eq!(app.list.selected, 2);
    press(&mut app, KeyCode::Up);
    assert_eq!(app.list.selected, 1);
    press(&mut app, KeyCode::End);
    assert_eq!(app.list.selected, n - 1);
    press(&mut app, KeyCode::PageDown);
    assert_eq!(app.list.selected, n - 1, "clamped at the end");
    // `a` filters by the first agent seen, then the next.
    press(&mut app, KeyCode::Char('a'));
    let first = app.list.query.provider.clone().expect("a provider filter");
    assert!(app
        .list
        .rows
        .iter()
        .all(|r| r.header.provider.as_str() == first));
    // `K` lists every kind: the Deep Agents subagent shows as a row of its own.
    app.list.query.provider = None;
    for _ in 0..4 {
        press(&mut app, KeyCode::Char('K'));
    }
    assert_eq!(app.list.query.kind, Some(scry_query::KindFilter::All));
    assert!(app
        .list
        .rows
        .iter()
        .any(|r| r.header.kind == scry_model::SessionKind::Subagent));
    press(&mut app, KeyCode::Char('q'));
    assert!(app.quit);
}

#[test]
fn session_view_turns_tools_and_ledgers() {
    let (_tmp, home) = demo_home();
    let mut app = app(&home);
    select(&mut app, "claude", "empty password");
    press(&mut app, KeyCode::Enter);
    assert_eq!(app.screen, Screen::Session);
    redact(&mut app, &home);
    let s = app.session.as_ref().expect("open session");
    assert!(s.turns.len() >= 2, "the demo session has several turns");
    assert_eq!(s.turn_number(), Some(1));
    insta::assert_snapshot!("session_80x24", screen(&mut app, 80, 24));
    // Next turn, then back.
    press(&mut app, KeyCode::Char(']'));
    assert_eq!(app.session.as_ref().unwrap().turn_number(), Some(2));
    press(&mut app, KeyCode::Char('['));
    assert_eq!(app.session.as_ref().unwrap().turn_number(), Some(1));
    // Focus the first tool call and expand it to its output.
    press(&mut app, KeyCode::Char('t'));
    let s = app.session.as_ref().unwrap();
    let focus = s.focus.expect("a tool call is focused");
    assert_eq!(s.units[focus].group, scry_query::page::Group::Tools);
    press(&mut app, KeyCode::Enter);
    let s = app.session.as_ref().unwrap();
    assert_eq!(s.expanded.len(), 1, "the focused call is expanded");
    let full = s.expanded.values().next().unwrap();
    assert!(
        full.iter().any(|u| u.head.contains("tool_result")),
        "its output is read"
    );
    insta::assert_snapshot!("session_tool_expanded_120x30", screen(&mut app, 120, 30));
    press(&mut app, KeyCode::Char('o'));
    assert!(
        app.session.as_ref().unwrap().expanded.is_empty(),
        "collapsed again"
    );
    // The ledger tabs.
    press(&mut app, KeyCode::Char('2'));
    assert_eq!(app.session.as_ref().unwrap().tab, Tab::Commands);
    insta::assert_snapshot!("session_commands_80x24", screen(&mut app, 80, 24));
    press(&mut app, KeyCode::Tab);
    press(&mut app, KeyCode::Tab);
    assert_eq!(app.session.as_ref().unwrap().tab, Tab::Errors);
    insta::assert_snapshot!("session_errors_120x30", screen(&mut app, 120, 30));
    press(&mut app, KeyCode::Char('5'));
    insta::assert_snapshot!("session_usage_80x24", screen(&mut app, 80, 24));
    // A reference of the event in view goes to the clipboard.
    press(&mut app, KeyCode::Char('1'));
    press(&mut app, KeyCode::Char('y'));
    let r = app.clipboard.clone().expect("copied");
    assert!(r.starts_with("claude:") && r.contains(" E"), "{r}");
    // Back to the list; the resume command is the session's.
    press(&mut app, KeyCode::Esc);
    assert_eq!(app.screen, Screen::List);
    let line = app
        .resume_line()
        .expect("a session was opened")
        .expect("resumable");
    assert!(line.contains("claude --resume "), "{line}");
}

#[test]
fn search_opens_at_the_hit_and_steps_through_hits() {
    let (_tmp, home) = demo_home();
    let mut app = app(&home);
    press(&mut app, KeyCode::Char('/'));
    assert_eq!(app.screen, Screen::Search);
    chars(&mut app, "version");
    // Debounced: nothing runs while typing, then it runs once the pause is long enough.
    let typed = app.search.dirty.expect("typing marks the search due later");
    assert!(!app.search.due(typed) && app.search.result.is_none());
    let later = Instant::now() + Duration::from_secs(1);
    app.tick(later);
    let res = app
        .search
        .result
        .as_ref()
        .expect("search ran after the pause");
    assert!(
        res.response.sessions.len() >= 3,
        "several sessions mention --version"
    );
    assert_eq!(app.search.ran, "version");
    insta::assert_snapshot!("search_80x24", screen(&mut app, 80, 24));
    // The matches are marked (underlined, which survives NO_COLOR): the marked cells spell
    // the query.
    let mut t = Terminal::new(TestBackend::new(80, 24)).expect("terminal");
    t.draw(|f| scry_tui::view::draw(f, &mut app)).expect("draw");
    let buf = t.backend().buffer();
    let mut runs: Vec<String> = Vec::new();
    let mut prev = false;
    for x in 0..80u16 {
        let c = &buf[(x, 5)];
        let on = c.modifier.contains(ratatui::style::Modifier::UNDERLINED);
        if on && !prev {
            runs.push(String::new());
        }
        if on {
            runs.last_mut().unwrap().push_str(c.symbol());
        }
        prev = on;
    }
    assert!(!runs.is_empty(), "the hit's match is marked");
    assert!(
        runs.iter().all(|r| r.to_lowercase() == "version"),
        "only the matches are marked: {runs:?}"
    );
    insta::assert_snapshot!("search_120x30", screen(&mut app, 120, 30));
    press(&mut app, KeyCode::Down);
    assert_eq!(app.search.selected, 1);
    let (uri, turn, event) = app.search.selected_target().expect("a hit");
    press(&mut app, KeyCode::Enter);
    assert_eq!(app.screen, Screen::Session);
    let s = app.session.as_ref().expect("open");
    assert_eq!(s.uri, uri);
    assert_eq!(s.turn_number(), turn);
    assert!(!s.hits.is_empty(), "the hits inside the session are known");
    let at = s.hit.expect("the hit opened is the current one");
    assert_eq!(Some(s.hits[at].1), event);
    press(&mut app, KeyCode::Char('n'));
    let s = app.session.as_ref().unwrap();
    assert_eq!(s.hit, Some((at + 1) % s.hits.len()));
    press(&mut app, KeyCode::Char('N'));
    assert_eq!(app.session.as_ref().unwrap().hit, Some(at));
    // Esc leaves the session; `/` then Esc returns to where it was opened.
    press(&mut app, KeyCode::Esc);
    press(&mut app, KeyCode::Char('/'));
    press(&mut app, KeyCode::Esc);
    assert_eq!(app.screen, Screen::List);
}

#[test]
fn debounce_waits_for_a_pause() {
    let (_tmp, home) = demo_home();
    let mut app = app(&home);
    press(&mut app, KeyCode::Char('/'));
    let t0 = Instant::now();
    scry_tui::keys::key(
        &mut app,
        KeyEvent::new(KeyCode::Char('x'), KeyModifiers::NONE),
        t0,
    );
    assert!(!app.search.due(t0 + Duration::from_millis(100)));
    assert!(app.search.due(t0 + scry_tui::app::DEBOUNCE));
    app.search.input.clear();
    app.search.run(&app.ctx);
    assert!(
        app.search.result.is_none(),
        "an empty query shows no results"
    );
}

#[test]
fn the_list_pages_on_past_its_first_page_as_the_selection_nears_the_end() {
    let (_tmp, home) = demo_home();
    let mut all = app(&home);
    let want: Vec<String> = all.list.rows.iter().map(|r| r.header.uri.clone()).collect();
    assert!(
        all.list.next_cursor.is_none(),
        "the demo fits one page of 500"
    );
    let mut app = app(&home);
    app.list.query.limit = 5;
    app.reload_list();
    assert_eq!(app.list.rows.len(), 5);
    assert!(app.list.next_cursor.is_some());
    // Moving down loads the next pages (the selection is always near the end of five rows).
    press(&mut app, KeyCode::Down);
    assert_eq!(
        app.list.rows.len(),
        10,
        "the second page came with the first move"
    );
    for _ in 0..want.len() {
        press(&mut app, KeyCode::End);
    }
    let got: Vec<String> = app.list.rows.iter().map(|r| r.header.uri.clone()).collect();
    assert_eq!(got, want, "pages of 5 = one page of 500, in order");
    assert!(app.list.next_cursor.is_none());
    assert_eq!(app.list.selected, want.len() - 1);
    // A reload keeps every loaded page.
    app.reload_list();
    assert_eq!(app.list.rows.len(), want.len());
    // The status column: sessions with failed tool results show their count.
    let failed = all
        .list
        .rows
        .iter()
        .filter(|r| r.failures.unwrap_or(0) > 0)
        .count();
    assert!(failed >= 1, "a demo session has a failed tool result");
    let text = screen(&mut all, 120, 30);
    assert!(text.contains('✗'), "{text}");
    assert!(all.list.rows.iter().all(|r| r.cost.is_some()));
}
