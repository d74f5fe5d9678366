//! Error cases: each prints one `error: …` line naming the offending value, the right exit code
//! (2 usage, 3 not found / ambiguous) and, with `--json`, an error object on stdout.

use crate::util::{claude_session, scry};

fn home_with_two_sessions() -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    claude_session(
        home.path(),
        "abcdef01-1111-4111-8111-111111111111",
        "/work/a",
        2,
    );
    claude_session(
        home.path(),
        "abcdef01-2222-4222-8222-222222222222",
        "/work/a",
        1,
    );
    home
}

fn one_error_line(stderr: &str) -> &str {
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 1, "stderr: {stderr}");
    assert!(lines[0].starts_with("error: "), "{stderr}");
    lines[0]
}

#[test]
fn unknown_id_is_not_found() {
    let home = home_with_two_sessions();
    let out = scry(home.path(), &["show", "zzzzzzzz-nope"]);
    assert_eq!(out.code, 3, "{}", out.render());
    assert!(one_error_line(&out.stderr).contains("zzzzzzzz-nope"));
    let out = scry(home.path(), &["show", "--json", "zzzzzzzz-nope"]);
    assert_eq!(out.json()["error"]["code"], "SESSION_NOT_FOUND");
}

#[test]
fn ambiguous_prefix_lists_every_candidate() {
    let home = home_with_two_sessions();
    let out = scry(home.path(), &["turns", "abcdef01"]);
    assert_eq!(out.code, 3, "{}", out.render());
    let line = one_error_line(&out.stderr);
    assert!(
        line.contains("claude:abcdef01-1111-4111-8111-111111111111"),
        "{line}"
    );
    assert!(
        line.contains("claude:abcdef01-2222-4222-8222-222222222222"),
        "{line}"
    );
    let out = scry(home.path(), &["show", "--json", "abcdef01"]);
    let err = &out.json()["error"];
    assert_eq!(err["code"], "AMBIGUOUS_ID");
    assert_eq!(err["candidates"].as_array().map(Vec::len), Some(2));
    // A longer prefix resolves.
    let out = scry(home.path(), &["show", "abcdef01-2"]);
    assert_eq!(out.code, 0, "{}", out.render());
}

#[test]
fn too_short_prefix_is_a_usage_error() {
    let home = home_with_two_sessions();
    let out = scry(home.path(), &["show", "abc"]);
    assert_eq!(out.code, 2, "{}", out.render());
    assert!(one_error_line(&out.stderr).contains("'abc'"));
}

#[test]
fn nonexistent_scope_names_the_path() {
    let home = home_with_two_sessions();
    let out = scry(home.path(), &["list", "--scope", "/no/such/dir"]);
    assert_eq!(out.code, 2, "{}", out.render());
    assert!(one_error_line(&out.stderr).contains("/no/such/dir"));
    let out = scry(home.path(), &["list", "--json", "--scope", "/no/such/dir"]);
    assert_eq!(out.json()["error"]["code"], "INVALID_FILTER");
}

#[test]
fn bad_since_and_bad_provider() {
    let home = home_with_two_sessions();
    let out = scry(home.path(), &["list", "--since", "yesterday"]);
    assert_eq!(out.code, 2, "{}", out.render());
    assert!(one_error_line(&out.stderr).contains("yesterday"));
    let out = scry(home.path(), &["list", "--provider", "claude,nope"]);
    assert_eq!(out.code, 2, "{}", out.render());
    assert!(one_error_line(&out.stderr).contains("nope"));
}

#[test]
fn bad_ranges() {
    let home = home_with_two_sessions();
    claude_session(
        home.path(),
        "beef0001-1111-4111-8111-111111111111",
        "/work/b",
        40,
    );
    let id = "abcdef01-1111";
    for (args, needle) in [
        (vec!["turn", id, "5-2"], "5-2"),
        (vec!["turn", id, "9"], "turn 9"),
        (vec!["turn", id, "--event", "99"], "event 99"),
        (vec!["turn", id, "--event", "x"], "'x'"),
        (vec!["turn", "beef0001", "--event", "1-60"], "60 events"),
    ] {
        let out = scry(home.path(), &args);
        assert_eq!(out.code, 2, "{:?}\n{}", args, out.render());
        assert!(
            one_error_line(&out.stderr).contains(needle),
            "{}",
            out.stderr
        );
    }
    // A range reaching past the end is clipped, not refused.
    let out = scry(home.path(), &["turn", "--json", id, "--event", "3-400"]);
    assert_eq!(out.code, 0, "{}", out.render());
}

#[test]
fn stale_locator_and_unknown_call() {
    let home = home_with_two_sessions();
    let out = scry(
        home.path(),
        &["turn", "abcdef01-1111", "--locator", "id:gone"],
    );
    assert_eq!(out.code, 2, "{}", out.render());
    assert!(one_error_line(&out.stderr).contains("id:gone"));
    let out = scry(
        home.path(),
        &["turn", "--json", "abcdef01-1111", "--call", "nope"],
    );
    assert_eq!(out.code, 3, "{}", out.render());
    assert_eq!(out.json()["error"]["code"], "EVENT_NOT_FOUND");
}

#[test]
fn clap_errors_are_usage_errors_on_one_line() {
    let home = home_with_two_sessions();
    let out = scry(home.path(), &["list", "--bogus"]);
    assert_eq!(out.code, 2, "{}", out.render());
    assert!(one_error_line(&out.stderr).contains("--bogus"));
    let out = scry(home.path(), &["list", "--json", "--limit", "many"]);
    assert_eq!(out.code, 2);
    assert_eq!(out.json()["error"]["code"], "INVALID_QUERY");
    let out = scry(home.path(), &["--help"]);
    assert_eq!(out.code, 0);
}

#[test]
fn stale_cursor_is_refused_after_the_file_changed() {
    let home = tempfile::tempdir().unwrap();
    let id = "cafe0001-1111-4111-8111-111111111111";
    let path = claude_session(home.path(), id, "/work/c", 3);
    let out = scry(
        home.path(),
        &["turn", "--json", id, "1-3", "--max-chars", "10"],
    );
    assert_eq!(out.code, 0, "{}", out.render());
    let cursor = out.json()["next_cursor"].as_str().unwrap().to_string();
    let ok = scry(
        home.path(),
        &["turn", id, "1-3", "--max-chars", "10", "--cursor", &cursor],
    );
    assert_eq!(ok.code, 0, "{}", ok.render());
    // A cursor for another selection is refused too.
    let other = scry(home.path(), &["turn", id, "1", "--cursor", &cursor]);
    assert_eq!(other.code, 2, "{}", other.render());
    let mut body = std::fs::read_to_string(&path).unwrap();
    body.push_str(&crate::util::claude_line(
        "user", id, 50, "/work/c", "later",
    ));
    body.push('\n');
    std::fs::write(&path, body).unwrap();
    let out = scry(
        home.path(),
        &[
            "turn",
            "--json",
            id,
            "1-3",
            "--max-chars",
            "10",
            "--cursor",
            &cursor,
        ],
    );
    assert_eq!(out.code, 2, "{}", out.render());
    assert_eq!(out.json()["error"]["code"], "INVALID_CURSOR");
    assert!(out.stderr.contains("stale"), "{}", out.stderr);
    let out = scry(home.path(), &["turn", id, "1", "--cursor", "garbage"]);
    assert_eq!(out.code, 2);
}

#[test]
fn broken_pipe_exits_quietly() {
    use std::io::Read;
    use std::process::{Command, Stdio};
    let home = tempfile::tempdir().unwrap();
    let id = "b10e0001-1111-4111-8111-111111111111";
    let dir = home.path().join(".claude/projects/-test-proj");
    std::fs::create_dir_all(&dir).unwrap();
    let big = "y".repeat(4 * 1024 * 1024);
    let line = crate::util::claude_line("user", id, 0, "/work/p", &big);
    std::fs::write(dir.join(format!("{id}.jsonl")), format!("{line}\n")).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_scry"))
        .env_clear()
        .env("HOME", home.path())
        .args(["turn", id, "1", "--max-chars", "10000000"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = [0u8; 16];
    let mut stdout = child.stdout.take().unwrap();
    stdout.read_exact(&mut first).unwrap();
    drop(stdout);
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(0), "stderr: {stderr}");
    assert!(stderr.is_empty(), "stderr: {stderr}");
}

#[test]
fn every_reference_form_resolves() {
    let home = home_with_two_sessions();
    let h = home.path();
    let full = "abcdef01-1111-4111-8111-111111111111";
    let path = h.join(format!(".claude/projects/-test-proj/{full}.jsonl"));
    let path = path.display().to_string();
    for reference in [
        full,
        &format!("claude:{full}"),
        "claude:abcdef01-1",
        "abcdef01-11",
        path.as_str(),
    ] {
        let out = scry(h, &["show", "--json", reference]);
        assert_eq!(out.code, 0, "{reference}\n{}", out.render());
        assert_eq!(out.json()["session"]["uri"], format!("claude:{full}"));
    }
    let out = scry(h, &["show", "nope:abcdef01"]);
    assert_eq!(out.code, 2, "{}", out.render());
    assert!(one_error_line(&out.stderr).contains("nope"));
    let out = scry(h, &["show", "/no/such/file.jsonl"]);
    assert_eq!(out.code, 3, "{}", out.render());
}
