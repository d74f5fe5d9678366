//! The team store behind scry-query's door (issue 18), against a real private PostgreSQL
//! cluster: with [`Context::store`] set to [`TeamIndex::seam`], scry-query's own operations
//! (`list`, `show`, `turns`, `search`) read the sessions the team store holds through
//! [`scry_store::SessionIndex`] instead of the SQLite index, and answer as the local index
//! does; a source rewritten after the push shows the team store's copy (the read-only store
//! is never refreshed), so the answer did come from it.
//!
//! Skipped (with a line on stderr) when PostgreSQL is not installed, unless
//! `SCRY_REQUIRE_POSTGRES=1`.

use std::path::Path;

use scry_query::{Context, KindFilter, ListQuery, SearchQuery};
use scry_source::Env;
use scry_team::cluster::Cluster;
use scry_team::index::TeamIndex;
use scry_team::PushOptions;

/// Copies the directory tree `from` to `to` (the corpus stays read-only).
fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for entry in std::fs::read_dir(from).expect("read dir") {
        let entry = entry.expect("entry");
        let target = to.join(entry.file_name());
        let kind = entry.file_type().expect("file type");
        if kind.is_dir() {
            copy_tree(&entry.path(), &target);
        } else if kind.is_file() {
            std::fs::copy(entry.path(), &target).expect("copy");
        }
    }
}

#[test]
fn the_query_door_reads_the_team_store_through_the_trait() {
    let Some(cluster) = Cluster::start() else {
        return;
    };
    let url = cluster.create_db();
    let dir = tempfile::tempdir().expect("tempdir");
    let home = dir.path().join("home");
    copy_tree(&scry_testkit::corpus().join("real/home"), &home);
    let env = Env::with_home(&home)
        .var_set("SCRY_DB", dir.path().join("index.db").to_string_lossy())
        .with_cwd(&home);
    let local = Context::new(env, home.clone());
    let opts = PushOptions {
        machine: "alpha".into(),
        reveal: true,
        abort_after: None,
    };
    scry_team::push(&local, &url, &opts).expect("push");
    let team = Context {
        store: Some(TeamIndex::seam(&url, None)),
        ..local.clone()
    };

    let q = ListQuery {
        global: true,
        kind: Some(KindFilter::All),
        limit: 100_000,
        ..ListQuery::default()
    };
    let listed = scry_query::list(&local, &q).expect("local list");
    assert_eq!(
        scry_query::list(&team, &q).expect("team list").to_json(),
        listed.to_json(),
        "list"
    );
    assert!(listed.rows.len() > 5, "the corpus home lists sessions");
    for row in &listed.rows {
        let uri = &row.header.uri;
        let l = scry_query::overview(&local, uri).expect("local show");
        let t = scry_query::overview(&team, uri).expect("team show");
        assert_eq!(t.to_json(), l.to_json(), "show {uri}");
        let l = scry_query::turns(&local, uri, 200).expect("local turns");
        let t = scry_query::turns(&team, uri, 200).expect("team turns");
        assert_eq!(t.to_json(), l.to_json(), "turns {uri}");
    }
    let search: SearchQuery =
        serde_json::from_value(serde_json::json!({"query": "the", "global": true}))
            .expect("search request");
    assert_eq!(
        scry_query::search(&team, &search)
            .expect("team search")
            .to_json(),
        scry_query::search(&local, &search)
            .expect("local search")
            .to_json(),
        "search"
    );

    // A source rewritten shorter after the push: the local index reads the new file, the team
    // store still holds (and serves) what was pushed.
    let claude = listed
        .rows
        .iter()
        .filter(|r| r.header.uri.starts_with("claude:"))
        .filter_map(|r| {
            let path = r.header.sources.first()?.clone();
            let text = std::fs::read_to_string(&path).ok()?;
            (text.lines().count() >= 6).then_some((r.header.uri.clone(), path, text))
        })
        .next();
    let (uri, path, text) = claude.expect("a Claude session of six lines or more");
    let before = scry_query::overview(&local, &uri).expect("show before");
    let half: Vec<&str> = text.lines().take(text.lines().count() / 2).collect();
    std::fs::write(&path, half.join("\n") + "\n").expect("rewrite");
    let now = scry_query::overview(&local, &uri).expect("local show after");
    let stored = scry_query::overview(&team, &uri).expect("team show after");
    let events = |o: &scry_query::Overview| o.to_json()["stats"]["events"].clone();
    assert_ne!(
        events(&now),
        events(&before),
        "the local answer reads the rewritten file"
    );
    assert_eq!(
        events(&stored),
        events(&before),
        "the team store serves the pushed copy"
    );
}
