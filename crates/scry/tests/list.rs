//! `list` filters: the default scope is the current directory's subtree (not a string prefix),
//! `--scope` takes relative paths, `--global`, `--provider`, `--since`, `--limit`.

use crate::util::{claude_session, scry, scry_in};

fn uris(out: &crate::util::Out) -> Vec<String> {
    assert_eq!(out.code, 0, "{}", out.render());
    out.json()["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["uri"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn scope_filters_by_subtree() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let proj = h.join("proj");
    let sub = proj.join("sub");
    let sibling = h.join("project");
    for d in [&sub, &sibling] {
        std::fs::create_dir_all(d).unwrap();
    }
    let s = |p: &std::path::Path| p.display().to_string();
    claude_session(h, "5c0e0001-1111-4111-8111-111111111111", &s(&proj), 1);
    claude_session(h, "5c0e0002-1111-4111-8111-111111111111", &s(&sub), 1);
    claude_session(h, "5c0e0003-1111-4111-8111-111111111111", &s(&sibling), 1);

    let here = uris(&scry_in(h, &proj, &["list", "--json"]));
    assert_eq!(here.len(), 2, "{here:?}");
    assert!(here.iter().all(|u| !u.contains("5c0e0003")), "{here:?}");
    let deeper = uris(&scry_in(h, &sub, &["list", "--json"]));
    assert_eq!(deeper, vec!["claude:5c0e0002-1111-4111-8111-111111111111"]);
    let relative = uris(&scry_in(
        h,
        &sub,
        &["list", "--json", "--scope", "../../project"],
    ));
    assert_eq!(
        relative,
        vec!["claude:5c0e0003-1111-4111-8111-111111111111"]
    );
    assert_eq!(
        uris(&scry_in(h, &sub, &["list", "--json", "--global"])).len(),
        3
    );
    assert_eq!(
        uris(&scry_in(h, &sub, &["list", "--json", "--scope", "/"])).len(),
        3
    );
    assert_eq!(
        uris(&scry(h, &["list", "--json", "--global", "--limit", "1"])).len(),
        1
    );
    assert!(uris(&scry(
        h,
        &["list", "--json", "--global", "--provider", "codex"]
    ))
    .is_empty());
    // Sessions are dated 2026-11-20.
    assert_eq!(
        uris(&scry(
            h,
            &["list", "--json", "--global", "--since", "2026-11-19"]
        ))
        .len(),
        3
    );
    assert!(uris(&scry(
        h,
        &["list", "--json", "--global", "--since", "2026-11-21"]
    ))
    .is_empty());
}

#[test]
fn empty_home_lists_nothing_and_says_so() {
    let home = tempfile::tempdir().unwrap();
    let out = scry(home.path(), &["list"]);
    assert_eq!(out.code, 0, "{}", out.render());
    assert!(out.stdout.is_empty());
    assert!(out.stderr.contains("no sessions"), "{}", out.stderr);
    let out = scry(home.path(), &["list", "--json"]);
    assert_eq!(out.json()["sessions"], serde_json::json!([]));
}

#[test]
fn an_empty_global_list_does_not_suggest_global() {
    let tmp = tempfile::tempdir().unwrap();
    let here = scry(tmp.path(), &["list"]);
    assert_eq!(here.code, 0, "{}", here.render());
    assert!(
        here.stderr
            .contains("no sessions found in this scope (try --global)"),
        "{}",
        here.render()
    );
    for args in [
        &["list", "--global"][..],
        &["list", "--scope", "global"][..],
    ] {
        let out = scry(tmp.path(), args);
        assert_eq!(out.code, 0, "{}", out.render());
        assert!(
            out.stderr.contains("no sessions found\n"),
            "{}",
            out.render()
        );
        assert!(!out.stderr.contains("try --global"), "{}", out.render());
    }
}
