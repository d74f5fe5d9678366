//! Paging: following cursors page by page yields exactly the unpaged text, in text and JSON.

use serde_json::Value;

use crate::util::{claude_session, scry};

/// Concatenated event texts of a `turn --json` page, by event number.
fn texts(page: &Value, into: &mut Vec<(u64, String)>) {
    for t in page["turns"].as_array().into_iter().flatten() {
        for e in t["events"].as_array().into_iter().flatten() {
            let n = e["event"].as_u64().unwrap_or(0);
            let text = e["text"].as_str().unwrap_or("").to_string();
            match into.last_mut() {
                Some((last, acc)) if *last == n => acc.push_str(&text),
                _ => into.push((n, text)),
            }
        }
    }
}

#[test]
fn cursors_walk_the_whole_selection() {
    let home = tempfile::tempdir().unwrap();
    let id = "0a9e0001-1111-4111-8111-111111111111";
    claude_session(home.path(), id, "/work/p", 6);
    let whole = scry(home.path(), &["turn", "--json", id, "1-6"]);
    assert_eq!(whole.code, 0, "{}", whole.render());
    assert!(whole.json()["next_cursor"].is_null());
    let mut expected = Vec::new();
    texts(&whole.json(), &mut expected);
    assert_eq!(expected.len(), 12);

    for max in ["7", "25", "64"] {
        let mut got = Vec::new();
        let mut cursor: Option<String> = None;
        let mut pages = 0;
        loop {
            let mut args = vec!["turn", "--json", id, "1-6", "--max-chars", max];
            if let Some(c) = &cursor {
                args.push("--cursor");
                args.push(c);
            }
            let out = scry(home.path(), &args);
            assert_eq!(out.code, 0, "{}", out.render());
            let v = out.json();
            texts(&v, &mut got);
            pages += 1;
            assert!(pages < 500, "cursor does not advance");
            match v["next_cursor"].as_str() {
                Some(c) => cursor = Some(c.to_string()),
                None => break,
            }
        }
        assert!(pages > 1);
        assert_eq!(got, expected, "max-chars {max}");
    }
}

#[test]
fn text_pages_say_where_to_continue() {
    let home = tempfile::tempdir().unwrap();
    let id = "0a9e0002-1111-4111-8111-111111111111";
    claude_session(home.path(), id, "/work/p", 3);
    let out = scry(home.path(), &["turn", id, "1-3", "--max-chars", "20"]);
    assert_eq!(out.code, 0, "{}", out.render());
    assert!(
        out.stdout.contains("continue with --cursor c1"),
        "{}",
        out.stdout
    );
    let out = scry(home.path(), &["turn", id, "1-3", "--max-chars", "0"]);
    assert_eq!(out.code, 2);
}
