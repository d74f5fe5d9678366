//! Adversarial GitHub Copilot CLI sessions (issue 21), built from the corpus' real 1.0.102
//! session in its real layout (`~/.copilot/session-state/<id>/`): an event log with a JSON
//! value nested 100,000 deep, a garbage line, an unknown record type and a torn last line; a
//! `workspace.yaml` of binary garbage; a `session.db` that is not SQLite; a session directory
//! without an event log; an empty event log. Every case: no panic, no hang, warnings that name
//! the damaged file (and line), the rest of the session still read.

use super::*;

const SID: &str = "f596c862-f63a-4ce1-a6b7-43eb7ab0fa00";

fn real_session() -> PathBuf {
    corpus().join(format!("real/home/.copilot/session-state/{SID}"))
}

#[test]
fn damaged_copilot_session_reads_around_the_damage() {
    let c = Case::new();
    let dir = c.copy_from_corpus(&real_session(), &format!(".copilot/session-state/{SID}"));
    let log = dir.join("events.jsonl");
    let text = std::fs::read_to_string(&log).expect("read copy");
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let n = lines.len();
    // Line 2 (1-based; a permissions record) becomes a deep value, line 5 (a turn bracket)
    // garbage; an unknown type and a torn record go at the end.
    lines[1] = nested(100_000);
    lines[4] = "\u{0}\u{1}not json at all {".to_string();
    lines.push(
        r#"{"type":"session.future_thing","data":{},"id":"adv-1","timestamp":"2026-12-01T23:00:00Z","parentId":null}"#
            .to_string(),
    );
    let mut body = lines.join("\n");
    body.push_str("\n{\"type\":\"user.message\",\"data\":{\"content\":\"torn");
    std::fs::write(&log, body).expect("write");
    std::fs::write(
        dir.join("workspace.yaml"),
        [0xffu8, 0xfe, 0, 1, b':', b'\n', 0x80],
    )
    .expect("yaml");
    std::fs::write(
        dir.join("session.db"),
        "this is not a database\n".repeat(50),
    )
    .expect("db");
    // A directory without an event log, and one with an empty log.
    let bare = c
        .home()
        .join(".copilot/session-state/0e0c0b1e-0000-4000-8000-000000000001");
    std::fs::create_dir_all(&bare).expect("mkdir");
    std::fs::write(bare.join("workspace.yaml"), "id: x\ncwd: /nowhere\n").expect("yaml");
    let empty_id = "0e0c0b1e-0000-4000-8000-000000000002";
    let empty = c.home().join(format!(".copilot/session-state/{empty_id}"));
    std::fs::create_dir_all(&empty).expect("mkdir");
    std::fs::write(empty.join("events.jsonl"), "").expect("empty log");

    let list = c.check_common();
    let uris = uris(&list);
    assert!(uris.contains(&format!("copilot:{SID}")), "{list}");
    assert!(!uris
        .iter()
        .any(|u| u.contains("0e0c0b1e-0000-4000-8000-000000000001")));
    let show = c.scry(&["show", "--json", SID]);
    assert_eq!(show.out.code, 0, "{}", show.out.render());
    let w = assert_named(&[&show.out.stdout], "events.jsonl", "damaged events.jsonl");
    let located: Vec<u64> = w.iter().filter_map(|w| w["line"].as_u64()).collect();
    assert!(located.contains(&2) && located.contains(&5), "{w:?}");
    assert!(located.contains(&(n as u64 + 2)), "torn last line: {w:?}");
    assert_named(&[&show.out.stdout], "session.db", "session.db not SQLite");
    assert!(
        show.out.stdout.contains("session.future_thing"),
        "unknown type reported"
    );
    // The rest is still there: the four prompts and the failing command.
    let v = show.out.json();
    assert_eq!(v["stats"]["turns"], 4, "{}", show.out.render());
    let cmds = c.scry(&["commands", "--json", SID]);
    assert_eq!(cmds.out.code, 0, "{}", cmds.out.render());
    assert!(cmds.out.stdout.contains("cat missing.txt"));
    // Garbage workspace.yaml: the cwd comes from session.start.
    assert_eq!(v["session"]["cwd"], "/home/dev/new/work/proj-copilot");
    let empty_show = c.scry(&["show", "--json", empty_id]);
    assert_eq!(empty_show.out.code, 0, "{}", empty_show.out.render());
    assert_named(
        &[&empty_show.out.stdout],
        "events.jsonl",
        "empty events.jsonl",
    );
    for args in [
        vec!["turns", SID],
        vec!["turn", "--raw", SID, "1"],
        vec!["search", "--global", "--json", "missing.txt"],
    ] {
        let t = c.scry(&args);
        t.out.assert_no_panic();
        assert_eq!(t.out.code, 0, "{args:?}\n{}", t.out.render());
    }
}
