//! `scry tui` end to end: the real binary in a pseudo-terminal (80×24) on the demo sessions —
//! the list, `/` search as you type, Enter opens the session at the hit, Esc back, `q` quits
//! with status 0, the terminal restored (alternate screen left, mouse released) and the
//! resume command (or why there is none) printed after it. And without a terminal: one clear
//! line, no screen taken.

use std::process::Command;

use rexpect::process::WaitStatus;

use crate::util::scry;

#[test]
fn list_search_open_back_quit_in_a_pty() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg("stty rows 24 cols 80 && exec \"$0\" tui --demo")
        .arg(env!("CARGO_BIN_EXE_scry"))
        .env_clear()
        .env("HOME", h)
        .env("TZ", "UTC")
        .env("TERM", "xterm-256color")
        .env("PATH", "/usr/bin:/bin")
        .current_dir(h);
    let mut p = rexpect::session::spawn_command(cmd, Some(60_000)).expect("spawn in a pty");
    // The list: the top bar counts the demo's sessions.
    p.exp_regex(r"scry \S+ \d+ sessions")
        .expect("the list is drawn");
    p.exp_string("Enter open").expect("the list's keys");
    p.send("/").unwrap();
    p.flush().unwrap();
    p.exp_string("select").expect("the search screen");
    p.send("version").unwrap();
    p.flush().unwrap();
    p.exp_string("matches").expect("results appear as you type");
    p.send("\r").unwrap();
    p.flush().unwrap();
    p.exp_regex(r"turn \d+/\d+")
        .expect("the session opens at the hit");
    p.exp_string("ledgers").expect("the session's keys");
    p.send("\x1b").unwrap();
    p.flush().unwrap();
    p.exp_string("quit").expect("back in the list");
    p.send("q").unwrap();
    p.flush().unwrap();
    let rest = p.exp_eof().expect("scry exits");
    assert!(
        rest.contains("\x1b[?1049l"),
        "the alternate screen is left: {rest:?}"
    );
    assert!(
        rest.contains("\x1b[?1000l"),
        "mouse capture is released: {rest:?}"
    );
    assert!(
        rest.contains(" && ") || rest.contains("no resume command"),
        "the resume command of the session opened last: {rest:?}"
    );
    match p.process().wait().expect("wait") {
        WaitStatus::Exited(_, code) => assert_eq!(code, 0, "exit status"),
        other => panic!("scry tui did not exit normally: {other:?}"),
    }
}

#[test]
fn without_a_terminal_it_refuses_in_one_line() {
    let home = tempfile::tempdir().unwrap();
    let out = scry(home.path(), &["tui", "--demo"]);
    assert_eq!(out.code, 2, "{}", out.render());
    assert!(
        out.stderr.contains("scry tui needs a terminal"),
        "{}",
        out.render()
    );
    assert_eq!(out.stderr.lines().count(), 1, "{}", out.render());
    assert!(
        !out.stdout.contains("\x1b["),
        "no screen taken: {}",
        out.render()
    );
}
