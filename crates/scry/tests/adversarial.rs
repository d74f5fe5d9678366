//! Damaged input at the CLI level (SPEC S-R1): torn last line, corrupt middle line, NUL bytes,
//! invalid UTF-8, a 50 MB single line, an empty file, a directory and a dangling symlink named
//! like session files, a directory symlink loop. No panic; the damaged sessions carry the right
//! warnings; the good session is still listed and readable.

use std::path::Path;

use serde_json::Value;

use crate::util::{claude_line, claude_session, scry};

const CWD: &str = "/work/adv";

fn id(n: u32) -> String {
    format!("{n:08x}-0000-4000-8000-000000000000")
}

fn write(dir: &Path, n: u32, bytes: &[u8]) {
    std::fs::write(dir.join(format!("{}.jsonl", id(n))), bytes).unwrap();
}

fn lines(n: u32, count: u32) -> String {
    let mut s = String::new();
    for i in 0..count {
        let kind = if i % 2 == 0 { "user" } else { "assistant" };
        s.push_str(&claude_line(kind, &id(n), i, CWD, &format!("text {i}")));
        s.push('\n');
    }
    s
}

fn damaged_home() -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    claude_session(home.path(), &id(1), CWD, 2);
    let dir = home.path().join(".claude/projects/-test-proj");
    // 2: torn last line.
    write(
        &dir,
        2,
        format!("{}{{\"type\":\"user\",\"uuid\":", lines(2, 2)).as_bytes(),
    );
    // 3: corrupt middle line.
    let good = lines(3, 2);
    let mut parts = good.lines();
    let body = format!(
        "{}\n{{oops not json\n{}\n",
        parts.next().unwrap(),
        parts.next().unwrap()
    );
    write(&dir, 3, body.as_bytes());
    // 4: raw NUL bytes inside a string.
    let nul = claude_line("user", &id(4), 0, CWD, "a\u{1}b").replace("\\u0001", "\0");
    write(&dir, 4, format!("{nul}\n").as_bytes());
    // 5: invalid UTF-8 inside a string.
    let mut bad = claude_line("user", &id(5), 0, CWD, "a@b").into_bytes();
    if let Some(p) = bad.iter().position(|b| *b == b'@') {
        bad[p] = 0xff;
    }
    bad.push(b'\n');
    write(&dir, 5, &bad);
    // 6: one 50 MB line.
    let big = "x".repeat(50 * 1024 * 1024);
    write(
        &dir,
        6,
        format!("{}\n", claude_line("user", &id(6), 0, CWD, &big)).as_bytes(),
    );
    // 7: empty file.
    write(&dir, 7, b"");
    // 8: a directory named like a session file.
    std::fs::create_dir_all(dir.join(format!("{}.jsonl", id(8)))).unwrap();
    // 9: a dangling symlink named like a session file.
    std::os::unix::fs::symlink("/nonexistent/target", dir.join(format!("{}.jsonl", id(9))))
        .unwrap();
    // A directory symlink loop.
    std::os::unix::fs::symlink("..", dir.join("loop")).unwrap();
    home
}

fn warning_kinds(show: &Value) -> Vec<String> {
    show["warnings"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|w| w["kind"].as_str().map(str::to_string))
        .collect()
}

#[test]
fn damaged_sources_never_panic_and_good_ones_stay_listed() {
    let home = damaged_home();
    let h = home.path();
    let list = scry(h, &["list", "--global", "--json", "--kind", "all"]);
    list.assert_no_panic();
    assert_eq!(list.code, 0, "{}", list.render());
    let v = list.json();
    let uris: Vec<&str> = v["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|s| s["uri"].as_str())
        .collect();
    assert!(
        uris.contains(&format!("claude:{}", id(1)).as_str()),
        "{uris:?}"
    );
    // The dangling symlink and the loop are reported, located, as unreadable.
    let warned: Vec<String> = v["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|w| w["kind"] == "unreadable")
        .filter_map(|w| w["file"].as_str().map(str::to_string))
        .collect();
    assert!(
        warned
            .iter()
            .any(|f| f.ends_with(&format!("{}.jsonl", id(9)))),
        "{warned:?}"
    );
    assert!(warned.iter().any(|f| f.ends_with("/loop")), "{warned:?}");
    let text = scry(h, &["list", "--global"]);
    text.assert_no_panic();
    assert_eq!(text.code, 0);

    for n in 1..=9 {
        for args in [
            vec!["show", "--json"],
            vec!["turns"],
            vec!["turn", "--raw", "--event", "1-3"],
            vec!["turn", "1"],
        ] {
            let mut args = args.clone();
            let i = id(n);
            args.push(&i);
            let out = scry(h, &args);
            out.assert_no_panic();
            assert!(
                [0, 1, 2, 3].contains(&out.code),
                "{args:?}\n{}",
                out.render()
            );
            if out.code != 0 {
                assert!(out.stderr.starts_with("error: "), "{}", out.render());
            }
        }
    }
    let show = |n: u32| scry(h, &["show", "--json", &id(n)]);
    assert_eq!(show(1).code, 0);
    assert!(warning_kinds(&show(1).json()).is_empty());
    let torn = show(2);
    assert_eq!(torn.code, 0, "{}", torn.render());
    assert!(warning_kinds(&torn.json()).contains(&"incomplete_tail".to_string()));
    assert_eq!(torn.json()["stats"]["turns"], 1);
    let corrupt = show(3);
    assert_eq!(corrupt.code, 0, "{}", corrupt.render());
    let w = &corrupt.json()["warnings"][0];
    assert_eq!(w["kind"], "corrupt_record");
    assert_eq!(w["line"], 2);
    let utf8 = show(5);
    assert_eq!(utf8.code, 0, "{}", utf8.render());
    assert!(warning_kinds(&utf8.json()).contains(&"invalid_utf8".to_string()));
    let big = scry(h, &["turn", "--json", &id(6), "1", "--max-chars", "1000"]);
    assert_eq!(big.code, 0, "{}", big.render());
    assert!(big.json()["next_cursor"].is_string());
    assert_eq!(
        big.json()["turns"][0]["events"][0]["text_len"],
        50 * 1024 * 1024
    );
}

fn codex_line(ts: &str, kind: &str, payload: serde_json::Value) -> String {
    serde_json::json!({"timestamp": ts, "type": kind, "payload": payload}).to_string()
}

#[test]
fn damaged_codex_rollout_keeps_its_good_records() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let dir = h.join(".codex/sessions/2026/11/20");
    std::fs::create_dir_all(&dir).unwrap();
    let sid = "01a20000-0000-7000-8000-000000000001";
    let user = |n: u32, text: &str| {
        codex_line(
            &format!("2026-11-20T10:00:0{n}Z"),
            "response_item",
            serde_json::json!({"type": "message", "role": "user",
                "content": [{"type": "input_text", "text": text}]}),
        )
    };
    let meta = codex_line(
        "2026-11-20T10:00:00Z",
        "session_meta",
        serde_json::json!({"id": sid, "timestamp": "2026-11-20T10:00:00Z", "cwd": CWD,
            "originator": "codex-tui", "cli_version": "0.171.0", "source": "cli"}),
    );
    let nul = user(3, "with a\u{1}nul").replace("\\u0001", "\0");
    let body = format!(
        "{meta}\n{}\n{{broken\n{nul}\n{}\n{{\"timestamp\":\"2026-11-20T10:00:09Z\",\"type\":",
        user(1, "first prompt"),
        user(4, "last prompt")
    );
    std::fs::write(
        dir.join(format!("rollout-2026-11-20T10-00-00-{sid}.jsonl")),
        body,
    )
    .unwrap();
    let list = scry(h, &["list", "--global", "--json"]);
    list.assert_no_panic();
    assert_eq!(list.code, 0, "{}", list.render());
    let show = scry(h, &["show", "--json", sid]);
    show.assert_no_panic();
    assert_eq!(show.code, 0, "{}", show.render());
    let v = show.json();
    let kinds = warning_kinds(&v);
    assert!(kinds.contains(&"corrupt_record".to_string()), "{kinds:?}");
    assert!(kinds.contains(&"incomplete_tail".to_string()), "{kinds:?}");
    assert_eq!(v["stats"]["events"]["user"], 3, "{}", show.render());
    for args in [
        vec!["turns", sid],
        vec!["turn", sid, "1-3"],
        vec!["turn", "--raw", sid, "2"],
    ] {
        let out = scry(h, &args);
        out.assert_no_panic();
        assert_eq!(out.code, 0, "{args:?}\n{}", out.render());
    }
}
