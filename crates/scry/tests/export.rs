//! `scry export`: the HTML of a demo session opens in headless Chromium with no network request
//! (checked in Chromium's own net log) and shows every turn; Markdown and JSON carry every turn
//! too; `--redact` leaves none of the secrets planted in a session, in any format, tool output
//! included; `--output` writes the file.
//!
//! Chromium: `SCRY_REQUIRE_BROWSER=1` makes a missing browser a failure (CI); otherwise the
//! browser test skips with a loud note.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::util::{claude_line, scry};

/// Secrets planted in test sessions (formats `scry-redact` recognizes; all invented).
pub const SECRETS: [&str; 4] = [
    "sk-ant-api03-Zq8vN2xKp4LmT7wRy5sB1cD9fG3hJ6kA0eU-xVbNmQ2rT8yW4",
    "ghp_4fJ9kL2mN7pQ1rS6tU3vW8xY5zA0bC2dE4fG",
    "AKIAZ7Q4RT2M8XK3VN6P",
    "postgres://admin:Tr0ub4dor-Secret-77@db.internal:5432/app",
];

const DEMO: &str = "claude:4f1c2a9e-7b3d-4c8e-9a21-5d6e7f809a1b";

fn chromium() -> Option<PathBuf> {
    for name in ["chromium", "chromium-browser", "google-chrome", "chrome"] {
        if let Ok(out) = Command::new("sh")
            .arg("-c")
            .arg(format!("command -v {name}"))
            .output()
        {
            let p = String::from_utf8_lossy(&out.stdout).trim().to_string();
            if out.status.success() && !p.is_empty() {
                return Some(PathBuf::from(p));
            }
        }
    }
    None
}

/// Chromium's own background services (clock, accounts, variations, updates) talk to Google
/// hosts whatever page is open; they are not requests of the page. The page itself holds no
/// URL at all (checked in `export_formats_carry_every_turn_and_escape_html`).
fn browser_service(url: &str) -> bool {
    let host = url
        .split("://")
        .nth(1)
        .and_then(|r| r.split(['/', ':', '?']).next())
        .unwrap_or("");
    [
        "google.com",
        "googleapis.com",
        "gstatic.com",
        "gvt1.com",
        "gvt2.com",
    ]
    .iter()
    .any(|d| host == *d || host.ends_with(&format!(".{d}")))
}

/// The turn numbers `scry turns --json` reports for a demo session.
fn demo_turns(home: &Path, uri: &str) -> Vec<u64> {
    let out = scry(home, &["--demo", "turns", uri, "--json"]);
    assert_eq!(out.code, 0, "{}", out.render());
    out.json()["turns"]
        .as_array()
        .expect("turns")
        .iter()
        .filter_map(|t| t["number"].as_u64())
        .collect()
}

#[test]
fn export_html_opens_in_chromium_without_requests_and_shows_every_turn() {
    let Some(browser) = chromium() else {
        if std::env::var("SCRY_REQUIRE_BROWSER").is_ok_and(|v| v == "1") {
            panic!("SCRY_REQUIRE_BROWSER=1 but no chromium on PATH");
        }
        eprintln!("!!!!! SKIPPED export_html_opens_in_chromium…: no chromium on PATH (set SCRY_REQUIRE_BROWSER=1 to make this fail)");
        return;
    };
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let out_dir = tempfile::tempdir().unwrap();
    let url_re = regex::Regex::new(r#""(?:url|original_url)"\s*:\s*"([^"]+)""#).unwrap();
    for uri in [DEMO, "codex:01a1cf09-1bf0-7a3c-89d2-1f04be6c1d7e"] {
        let file = out_dir.path().join("session.html");
        let f = file.to_string_lossy().into_owned();
        let out = scry(
            h,
            &["--demo", "export", uri, "--format", "html", "--output", &f],
        );
        assert_eq!(out.code, 0, "{}", out.render());
        let profile = tempfile::tempdir().unwrap();
        let netlog = profile.path().join("net.json");
        let run = Command::new(&browser)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
                "--disable-dev-shm-usage",
                "--no-pings",
                "--disable-features=NetworkTimeServiceQuerying,OptimizationHints,MediaRouter",
            ])
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .arg(format!("--log-net-log={}", netlog.display()))
            .arg("--dump-dom")
            .arg(format!("file://{f}"))
            .output()
            .expect("run chromium");
        let dom = String::from_utf8_lossy(&run.stdout);
        assert!(
            run.status.success(),
            "chromium failed: {}",
            String::from_utf8_lossy(&run.stderr)
        );
        for n in demo_turns(h, uri) {
            assert!(
                dom.contains(&format!("id=\"turn-{n}\"")),
                "{uri}: turn {n} missing in the DOM"
            );
        }
        assert!(dom.contains("<details"), "tool calls are collapsible");
        // The net log names every URL the browser touched: only the file itself.
        let log = std::fs::read_to_string(&netlog).expect("net log written");
        let urls: Vec<String> = url_re
            .captures_iter(&log)
            .map(|c| c[1].to_string())
            .collect();
        let foreign: Vec<&String> = urls
            .iter()
            .filter(|u| {
                !u.starts_with("file://") && !u.starts_with("data:") && !u.starts_with("chrome")
            })
            // The browser's own clock query (network time service), not made by the page; the
            // page's CSP (`default-src 'none'`) forbids any request of its own.
            .filter(|u| !browser_service(u))
            .collect();
        assert!(
            foreign.is_empty(),
            "{uri}: requests other than the file: {foreign:?}"
        );
        // A real net log (file loads are not network requests and do not appear in it).
        assert!(log.contains("\"events\""), "not a net log");
    }
}

#[test]
fn export_formats_carry_every_turn_and_escape_html() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let turns = demo_turns(h, DEMO);
    assert!(turns.len() >= 2);
    let html = scry(h, &["--demo", "export", DEMO, "--format", "html"]);
    assert_eq!(html.code, 0, "{}", html.render());
    let page = &html.stdout;
    assert!(page.starts_with("<!DOCTYPE html>"));
    assert!(page.contains("Content-Security-Policy"));
    for bad in [
        "<script", "<link", "<img", "src=", "http://", "https://", "@import", "url(",
    ] {
        assert!(!page.contains(bad), "the page holds {bad:?}");
    }
    let md = scry(h, &["--demo", "export", DEMO, "--format", "md"]);
    assert_eq!(md.code, 0, "{}", md.render());
    for n in &turns {
        assert!(page.contains(&format!("<section id=\"turn-{n}\">")));
        assert!(md.stdout.contains(&format!("## Turn {n}")));
    }
    assert!(md.stdout.contains("<details><summary>Bash"));
    let js = scry(h, &["--demo", "export", DEMO, "--format", "json"]);
    assert_eq!(js.code, 0, "{}", js.render());
    let v = js.json();
    assert_eq!(v["session"]["uri"], Value::from(DEMO));
    let events = v["events"].as_array().expect("events");
    let shown = scry(h, &["--demo", "show", DEMO, "--json"]).json();
    let by_kind: u64 = shown["stats"]["events_by_kind"]
        .as_object()
        .map(|m| m.values().filter_map(Value::as_u64).sum())
        .unwrap_or(events.len() as u64);
    assert_eq!(events.len() as u64, by_kind, "every event exported");
    let last_turn = events.iter().filter_map(|e| e["turn"].as_u64()).max();
    assert_eq!(last_turn, turns.last().copied());
}

/// A session with secrets in the prompt, the answer, a tool call's arguments and its output.
fn planted_home() -> (tempfile::TempDir, String) {
    let home = tempfile::tempdir().unwrap();
    let dir = home.path().join(".claude/projects/-work-app");
    std::fs::create_dir_all(&dir).unwrap();
    let id = "5ec0e7aa-1111-4222-8333-944455556666";
    let cwd = "/work/app";
    let mut lines = vec![
        claude_line(
            "user",
            id,
            0,
            cwd,
            &format!("deploy with key {} please", SECRETS[0]),
        ),
        claude_line(
            "assistant",
            id,
            1,
            cwd,
            "Checking the environment.\n```sh\nenv | grep KEY\n```",
        ),
    ];
    let call = serde_json::json!({
        "type": "assistant", "uuid": "a-call", "sessionId": id, "cwd": cwd,
        "timestamp": "2026-11-20T10:02:00.000Z", "version": "2.1.0",
        "message": {"id": "msg-call", "role": "assistant", "model": "claude-test",
            "content": [{"type": "tool_use", "id": "toolu_1", "name": "Bash",
                "input": {"command": format!("GITHUB_TOKEN={} git push", SECRETS[1])}}],
            "usage": {"input_tokens": 10, "output_tokens": 5}}
    });
    let result = serde_json::json!({
        "type": "user", "uuid": "u-result", "sessionId": id, "cwd": cwd,
        "timestamp": "2026-11-20T10:03:00.000Z", "version": "2.1.0",
        "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1",
            "content": format!("AWS_ACCESS_KEY_ID={}\nDATABASE_URL={}\n<script>alert(1)</script>", SECRETS[2], SECRETS[3]),
            "is_error": false}]}
    });
    lines.push(call.to_string());
    lines.push(result.to_string());
    lines.push(claude_line("assistant", id, 4, cwd, "Pushed."));
    std::fs::write(dir.join(format!("{id}.jsonl")), lines.join("\n") + "\n").unwrap();
    (home, id.to_string())
}

#[test]
fn export_redact_leaves_no_planted_secret() {
    let (home, id) = planted_home();
    let h = home.path();
    for format in ["md", "html", "json"] {
        // Without --redact the secrets are there (the plant works) …
        let plain = scry(h, &["export", &id, "--format", format]);
        assert_eq!(plain.code, 0, "{}", plain.render());
        assert!(
            plain.stdout.contains(SECRETS[1]),
            "{format}: planted secret not exported"
        );
        // … and with it none is left, in any string, tool output included.
        let red = scry(h, &["export", &id, "--format", format, "--redact"]);
        assert_eq!(red.code, 0, "{}", red.render());
        for s in SECRETS {
            assert!(!red.stdout.contains(s), "{format} --redact leaks {s}");
        }
        assert!(red.stdout.contains("[redacted:"), "{format}");
        assert!(red.stderr.contains("redacted"), "{format}: {}", red.stderr);
        if format == "html" {
            assert!(!red.stdout.contains("<script>"), "session text is escaped");
            assert!(red.stdout.contains("&lt;script&gt;"));
        }
    }
    let out = tempfile::tempdir().unwrap();
    let f = out.path().join("s.md");
    let fs = f.to_string_lossy().into_owned();
    let r = scry(h, &["export", &id, "--redact", "--output", &fs, "--json"]);
    assert_eq!(r.code, 0, "{}", r.render());
    assert_eq!(r.json()["output"], Value::from(fs.clone()));
    let written = std::fs::read_to_string(&f).unwrap();
    assert!(written.contains("## Turn 1") && !written.contains(SECRETS[0]));
}

#[test]
fn export_errors() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let r = scry(
        h,
        &["--demo", "export", "claude:nope-nope", "--format", "html"],
    );
    assert_eq!(r.code, 3, "{}", r.render());
    let r = scry(h, &["--demo", "export", DEMO, "--format", "pdf"]);
    assert_eq!(r.code, 2, "{}", r.render());
    let r = scry(
        h,
        &[
            "--demo",
            "export",
            DEMO,
            "--output",
            "/nonexistent-dir/x.md",
        ],
    );
    assert_eq!(r.code, 1, "{}", r.render());
    assert!(r.stderr.contains("/nonexistent-dir/x.md"));
}
