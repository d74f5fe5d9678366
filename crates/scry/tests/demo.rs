//! Snapshots of every command on the embedded demo corpus (`--demo`): `list` in text and JSON,
//! and for each demo session one bundle with `show`, `turns`, `turn 1` (text and JSON) and
//! `turn 1 --raw`. A new demo session adds a new bundle snapshot (re-accept with `cargo insta`).

use crate::util::{all_uris, claude_session, redact, scry, scry_env};

fn snap_name(uri: &str) -> String {
    uri.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

#[test]
fn demo_list() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let mut all = String::new();
    for args in [
        vec!["list", "--demo"],
        vec!["list", "--demo", "--kind", "all"],
        vec!["list", "--demo", "--json"],
    ] {
        all.push_str(&format!("$ scry {}\n", args.join(" ")));
        all.push_str(&redact(&scry(h, &args).render(), h));
    }
    insta::assert_snapshot!("demo_list", all);
}

#[test]
fn demo_sessions() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    for uri in all_uris(h, true) {
        let mut all = String::new();
        let turns_json = scry(h, &["turns", "--demo", "--json", &uri]).json();
        let has_turn_1 = turns_json["turns"]
            .as_array()
            .is_some_and(|t| t.iter().any(|t| t["number"] == 1));
        let mut runs: Vec<Vec<&str>> = vec![
            vec!["show", "--demo", &uri],
            vec!["show", "--demo", "--json", &uri],
            vec!["turns", "--demo", &uri],
            vec!["turns", "--demo", "--json", &uri],
        ];
        if has_turn_1 {
            runs.push(vec!["turn", "--demo", &uri, "1"]);
            runs.push(vec!["turn", "--demo", "--json", &uri, "1"]);
            runs.push(vec!["turn", "--demo", "--raw", &uri, "1"]);
        }
        runs.push(vec!["turn", "--demo", &uri, "--event", "1-3"]);
        let artifact = turns_json["session"]["artifacts"][0]
            .as_str()
            .and_then(|a| a.rsplit('/').next())
            .map(str::to_string);
        if let Some(a) = &artifact {
            runs.push(vec!["turn", "--demo", &uri, "--artifact", a]);
        }
        for args in runs {
            let out = scry(h, &args);
            out.assert_no_panic();
            assert_eq!(out.code, 0, "scry {}:\n{}", args.join(" "), out.render());
            all.push_str(&format!("$ scry {}\n", args.join(" ")));
            all.push_str(&redact(&out.render(), h));
        }
        insta::assert_snapshot!(format!("demo_session@{}", snap_name(&uri)), all);
    }
}

#[test]
fn demo_ignores_the_real_environment() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let real = h.join("real-claude");
    let id = "1eaf0001-1111-4111-8111-111111111111";
    claude_session(&real, id, "/work/real", 1);
    let claude_dir = real.join(".claude");
    let vars = [("CLAUDE_CONFIG_DIR", claude_dir.as_path())];
    let own = scry_env(h, h, &vars, &["list", "--global", "--json"]);
    assert!(own.stdout.contains(id), "{}", own.render());
    let demo = scry_env(h, h, &vars, &["list", "--demo", "--json"]);
    assert_eq!(demo.code, 0, "{}", demo.render());
    assert!(
        !demo.stdout.contains(id),
        "the real CLAUDE_CONFIG_DIR leaked into --demo"
    );
    // Extracted files carry the fixed mtime 2026-12-01T00:00:00Z.
    let cache = h.join(".cache/scry");
    let file = walkdir::WalkDir::new(&cache)
        .into_iter()
        .flatten()
        // (the demo's own index, `index.db*` beside the extracted home, is not a demo file)
        .find(|e| {
            e.file_type().is_file() && !e.file_name().to_string_lossy().starts_with("index.db")
        })
        .expect("an extracted demo file");
    let mtime = file.metadata().unwrap().modified().unwrap();
    let secs = mtime
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    assert_eq!(secs, 1_796_083_200);
}

/// `--call` and `--locator` find exactly what `--event` showed, in every demo session.
#[test]
fn call_and_locator_point_back_to_their_events() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let mut checked = 0;
    for uri in all_uris(h, true) {
        let events = scry(h, &["turn", "--demo", "--json", &uri, "--event", "1-50"]);
        assert_eq!(events.code, 0, "{}", events.render());
        let v = events.json();
        let all: Vec<serde_json::Value> = v["turns"]
            .as_array()
            .into_iter()
            .flatten()
            .flat_map(|t| t["events"].as_array().cloned().unwrap_or_default())
            .collect();
        for e in &all {
            let locator = e["locator"].as_str().unwrap();
            let out = scry(h, &["turn", "--demo", "--json", &uri, "--locator", locator]);
            assert_eq!(out.code, 0, "{}", out.render());
            let found: Vec<u64> = out.json()["turns"]
                .as_array()
                .into_iter()
                .flatten()
                .flat_map(|t| t["events"].as_array().cloned().unwrap_or_default())
                .filter_map(|x| x["event"].as_u64())
                .collect();
            assert!(
                found.contains(&e["event"].as_u64().unwrap()),
                "{uri} {locator}"
            );
        }
        if let Some(call) = all.iter().find_map(|e| e["call_id"].as_str()) {
            let out = scry(h, &["turn", "--demo", "--json", &uri, "--call", call]);
            assert_eq!(out.code, 0, "{}", out.render());
            let v = out.json();
            let ids: Vec<&str> = v["turns"]
                .as_array()
                .into_iter()
                .flatten()
                .flat_map(|t| t["events"].as_array().into_iter().flatten())
                .filter_map(|x| x["call_id"].as_str())
                .collect();
            assert!(
                !ids.is_empty() && ids.iter().all(|i| *i == call),
                "{uri} {call}"
            );
            checked += 1;
        }
    }
    assert!(checked > 0, "no demo session has a tool call");
}
