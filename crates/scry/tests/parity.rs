//! Parity (issue #7): on the demo corpus the JSON of `/v1/sessions`, `/v1/sessions/:id` and
//! `/v1/search` (and the turn directory and content) equals the CLI's `--json` for the same
//! query — both answer through the query crate. The server reveals session text (loopback) so
//! bodies are comparable byte for byte after parsing.

use serde_json::Value;

use crate::http::{enc, Server};
use crate::util::scry;

fn cli(home: &std::path::Path, args: &[&str]) -> Value {
    let mut all = vec!["--demo", "--json"];
    all.extend_from_slice(args);
    let out = scry(home, &all);
    assert_eq!(out.code, 0, "scry {}: {}", all.join(" "), out.render());
    out.json()
}

#[test]
fn http_json_equals_cli_json() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let srv = Server::start(h, &["--demo", "--reveal"]);
    let get = |path: &str| {
        let r = srv.get(path);
        assert_eq!(r.status, 200, "{path}: {}", r.body);
        r.json()
    };

    for (query, args) in [
        ("", vec!["list"]),
        (
            "?kind=all&limit=100",
            vec!["list", "--kind", "all", "--limit", "100"],
        ),
        (
            "?provider=claude,codex",
            vec!["list", "--provider", "claude,codex"],
        ),
        (
            "?since=2026-11-15&limit=3",
            vec!["list", "--since", "2026-11-15", "--limit", "3"],
        ),
    ] {
        assert_eq!(
            get(&format!("/v1/sessions{query}")),
            cli(h, &args),
            "list {query}"
        );
    }

    let uris: Vec<String> = cli(h, &["list", "--kind", "all", "--limit", "100"])["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["uri"].as_str().unwrap().to_string())
        .collect();
    assert!(uris.len() >= 13);
    for uri in &uris {
        let id = enc(uri);
        assert_eq!(
            get(&format!("/v1/sessions/{id}")),
            cli(h, &["show", uri]),
            "show {uri}"
        );
        assert_eq!(
            get(&format!("/v1/sessions/{id}/turns")),
            cli(h, &["turns", uri]),
            "turns {uri}"
        );
        assert_eq!(
            get(&format!("/v1/sessions/{id}/content?event=1-3")),
            cli(h, &["turn", uri, "--event", "1-3"]),
            "turn --event {uri}"
        );
    }

    for (query, args) in [
        ("q=password", vec!["search", "password"]),
        ("q=test&limit=2", vec!["search", "test", "--limit", "2"]),
        (
            "q=fix&provider=claude",
            vec!["search", "fix", "--provider", "claude"],
        ),
        ("q=err.r&regex=true", vec!["search", "err.r", "--regex"]),
        ("q=Fix&case=true", vec!["search", "Fix", "--case"]),
        (
            "q=cargo&area=tools",
            vec!["search", "cargo", "--area", "tools"],
        ),
        (
            "q=the&kind=assistant&sort=time",
            vec!["search", "the", "--kind", "assistant", "--sort", "time"],
        ),
        (
            "q=version&since=2026-11-14",
            vec!["search", "version", "--since", "2026-11-14"],
        ),
    ] {
        assert_eq!(
            get(&format!("/v1/search?{query}")),
            cli(h, &args),
            "search {query}"
        );
    }
    // A next page through the cursor, both ways.
    let first = cli(h, &["search", "the", "--limit", "1"]);
    let cursor = first["next_cursor"]
        .as_str()
        .expect("more than one session");
    assert_eq!(
        get(&format!("/v1/search?q=the&limit=1&cursor={}", enc(cursor))),
        cli(h, &["search", "the", "--limit", "1", "--cursor", cursor])
    );
}

/// The `command` of a search hit runs as printed (exit 0) and opens exactly the hit's event:
/// the one event it prints has the hit's number, locator and turn.
#[test]
fn search_hit_command_opens_its_event() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let found = cli(
        h,
        &["search", "password", "--area", "all", "--limit", "100"],
    );
    let mut checked = 0;
    for group in found["sessions"].as_array().expect("sessions") {
        for hit in group["hits"].as_array().expect("hits") {
            let Some(event) = hit["event"].as_u64() else {
                continue;
            };
            let command = hit["command"].as_str().expect("command");
            let words: Vec<&str> = command.split_whitespace().collect();
            assert_eq!(words.first(), Some(&"scry"), "{command}");
            // `cli` runs `scry --demo --json <words…>` and asserts exit 0.
            let read = cli(h, &words[1..]);
            let turns = read["turns"].as_array().expect("turns");
            let events: Vec<(&Value, &Value)> = turns
                .iter()
                .flat_map(|t| {
                    t["events"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .map(move |e| (t, e))
                })
                .collect();
            assert_eq!(events.len(), 1, "{command}: {read}");
            let (turn, ev) = events[0];
            assert_eq!(ev["event"].as_u64(), Some(event), "{command}");
            assert_eq!(ev["locator"], hit["locator"], "{command}");
            assert_eq!(turn["number"], hit["turn"], "{command}");
            checked += 1;
        }
    }
    // The demo has several "password" hits with an event (count of `scry --demo search
    // password --area all`, each hit naming an event).
    assert!(checked >= 3, "only {checked} hits checked: {found}");
}
