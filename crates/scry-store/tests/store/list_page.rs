//! `list` answered by SQL (issue 16, [`Store::list_page`]): on the corpus homes the page, the
//! counts and the neighbours equal what the in-memory list computes from every row, and on
//! 1,500 sessions a page is read through the recency index, stepping through O(page) rows.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use scry_model::SessionKind;
use scry_source::{Env, SourceFile};
use scry_store::{ListMode, ListRow, ListSpec, RefreshOptions, Store};

use crate::corpus::corpus;

/// Discovery of `home`: its files and the spec of all of them (global, no `--since`).
pub(crate) fn discover(home: &Path) -> (Vec<SourceFile>, ListSpec) {
    let sources = scry_sources::registry();
    let env = Env::with_home(home);
    let mut files = Vec::new();
    let mut spec = ListSpec::default();
    for d in scry_sources::discover_all(&sources, &env, &[]) {
        spec.providers.push(d.provider);
        for r in d.discovery.roots {
            spec.roots
                .push(r.path.to_string_lossy().trim_end_matches('/').to_string());
        }
        files.extend(d.discovery.files);
    }
    (files, spec)
}

pub(crate) fn indexed(files: &[SourceFile]) -> (tempfile::TempDir, Store) {
    let tmp = tempfile::tempdir().unwrap();
    let mut store = Store::open(&tmp.path().join("index.db")).unwrap();
    store
        .refresh(
            &scry_sources::registry(),
            files,
            &RefreshOptions::complete(),
            &mut |_| true,
        )
        .unwrap();
    (tmp, store)
}

/// The list order over rows read whole: newest first, uri, path component-wise.
fn sorted(mut rows: Vec<ListRow>) -> Vec<ListRow> {
    rows.sort_by(|a, b| {
        b.updated
            .cmp(&a.updated)
            .then_with(|| a.uri.cmp(&b.uri))
            .then_with(|| Path::new(&a.path).cmp(Path::new(&b.path)))
    });
    rows
}

#[test]
fn pages_counts_and_neighbours_equal_the_rows_read_whole_on_the_corpus() {
    let c = corpus();
    let mut homes = vec![c.join("real/home"), c.join("langgraph/dcode/home")];
    homes.extend(
        std::fs::read_dir(c.join("real-older"))
            .unwrap()
            .flatten()
            .map(|e| e.path().join("home"))
            .filter(|p| p.is_dir()),
    );
    let mut children_seen = 0;
    for home in homes {
        let (files, spec) = discover(&home);
        let (_tmp, store) = indexed(&files);
        let rows = sorted(store.list_rows().unwrap());
        assert!(!rows.is_empty(), "{}", home.display());
        assert!(!store.list_failed(&spec).unwrap(), "{}", home.display());
        assert_eq!(store.list_members(&spec).unwrap(), files.len());
        assert_eq!(rows.len(), files.len(), "{}", home.display());

        // Every kind, no folding: the rows in list order, page by page.
        let all = ListMode::Kind(None);
        assert_eq!(store.list_counts(&spec, all).unwrap(), (rows.len(), 0));
        for limit in [1, 2, 5, 1000] {
            let mut got = Vec::new();
            let mut offset = 0;
            while offset < rows.len() {
                let page = store.list_page(&spec, all, offset, limit).unwrap();
                assert!(page.len() <= limit);
                got.extend(page.into_iter().map(|r| (r.path, r.key)));
                offset += limit;
            }
            let want: Vec<(String, String)> = rows
                .iter()
                .map(|r| (r.path.clone(), r.key.clone()))
                .collect();
            assert_eq!(got, want, "{} limit {limit}", home.display());
        }

        // Folded: roots shown, exec runs hidden, children under a root of their parent's id
        // (the header's parent, else discovery's), orphans alone.
        let parent_of = |r: &ListRow| {
            r.parent.clone().or_else(|| {
                files
                    .iter()
                    .find(|f| f.path.to_string_lossy() == r.path)
                    .and_then(|f| f.parent.clone())
            })
        };
        let is_root = |k: SessionKind| matches!(k, SessionKind::Main | SessionKind::Exec);
        let root_kind = |r: &ListRow| {
            let p = parent_of(r)?;
            rows.iter()
                .find(|o| is_root(o.kind) && o.provider == r.provider && o.id == p)
                .map(|o| o.kind)
        };
        let mut shown = Vec::new();
        let mut hidden = 0;
        let mut kids: BTreeMap<(String, String), BTreeMap<&str, usize>> = BTreeMap::new();
        for r in &rows {
            match (r.kind, root_kind(r)) {
                (SessionKind::Main, _) => shown.push((r.path.clone(), r.key.clone())),
                (SessionKind::Exec, _) => hidden += 1,
                (_, None) => shown.push((r.path.clone(), r.key.clone())),
                (_, Some(SessionKind::Exec)) => hidden += 1,
                (_, Some(_)) => {
                    let p = parent_of(r).unwrap();
                    let root = rows
                        .iter()
                        .find(|o| {
                            o.kind == SessionKind::Main && o.provider == r.provider && o.id == p
                        })
                        .unwrap();
                    *kids
                        .entry((root.path.clone(), root.key.clone()))
                        .or_default()
                        .entry(r.kind.as_str())
                        .or_default() += 1;
                    children_seen += 1;
                }
            }
        }
        assert_eq!(
            store.list_counts(&spec, ListMode::Fold).unwrap(),
            (shown.len(), hidden),
            "{}",
            home.display()
        );
        let page = store.list_page(&spec, ListMode::Fold, 0, 1000).unwrap();
        let got: Vec<(String, String)> = page
            .iter()
            .map(|r| (r.path.clone(), r.key.clone()))
            .collect();
        assert_eq!(got, shown, "{}", home.display());
        for r in &page {
            let want = kids
                .get(&(r.path.clone(), r.key.clone()))
                .cloned()
                .unwrap_or_default();
            let got: BTreeMap<&str, usize> = r.children.iter().map(|(k, n)| (*k, *n)).collect();
            assert_eq!(got, want, "{}", r.path);
        }

        // Neighbours: the nearest other ids below and above in byte order.
        let mut ids: Vec<&str> = rows.iter().map(|r| r.id.as_str()).collect();
        ids.sort_unstable();
        ids.dedup();
        for (i, id) in ids.iter().enumerate() {
            let mut want = Vec::new();
            if i > 0 {
                want.push(ids[i - 1].to_string());
            }
            if let Some(next) = ids.get(i + 1) {
                want.push(next.to_string());
            }
            assert_eq!(store.list_neighbours(&spec, id).unwrap(), want);
        }
    }
    assert!(children_seen > 0, "no corpus session folded under a parent");
}

#[test]
fn a_source_outside_the_roots_or_scope_is_not_a_member() {
    let home = corpus().join("real/home");
    let (files, spec) = discover(&home);
    let (_tmp, store) = indexed(&files);
    let n = files.len();
    // Another home's roots: nothing of this index belongs.
    let mut other = spec.clone();
    other.roots = vec!["/nonexistent/home/.pi".into()];
    assert_eq!(store.list_members(&other).unwrap(), 0);
    // Fewer providers: fewer members.
    let mut pi = spec.clone();
    pi.providers.retain(|p| p.as_str() == "pi");
    let pis = files.iter().filter(|f| f.provider.as_str() == "pi").count();
    assert!(pis > 0 && pis < n);
    assert_eq!(store.list_members(&pi).unwrap(), pis);
    // A scope no session lies in lists nothing, and `--since` in the future neither.
    let mut nowhere = spec.clone();
    nowhere.scope = Some(vec!["/nowhere".into()]);
    assert_eq!(
        store.list_counts(&nowhere, ListMode::Kind(None)).unwrap(),
        (0, 0)
    );
    let mut later = spec;
    later.since = Some("2100-01-01T00:00:00Z".parse().unwrap());
    assert_eq!(
        store.list_counts(&later, ListMode::Kind(None)).unwrap(),
        (0, 0)
    );
    assert!(store
        .list_page(&later, ListMode::Fold, 0, 20)
        .unwrap()
        .is_empty());
}

/// Writes `n` small pi sessions under `home`, one minute apart, in seven project directories.
fn pi_home(home: &Path, n: usize) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for i in 0..n {
        let dir = home.join(format!(".pi/agent/sessions/--home-dev-p{}--", i % 7));
        std::fs::create_dir_all(&dir).unwrap();
        let id = format!("{i:08x}-0000-4000-8000-000000000000");
        let t = |s: usize| {
            let m = i + s;
            format!(
                "2026-11-{:02}T{:02}:{:02}:00.000Z",
                1 + m / 1440 % 28,
                m / 60 % 24,
                m % 60
            )
        };
        let lines = [
            format!(
                r#"{{"type":"session","version":3,"id":"{id}","timestamp":"{}","cwd":"/home/dev/p{}"}}"#,
                t(0),
                i % 7
            ),
            format!(
                r#"{{"type":"message","id":"a{i}","parentId":null,"timestamp":"{}","message":{{"role":"user","content":[{{"type":"text","text":"task {i}"}}],"timestamp":1}}}}"#,
                t(1)
            ),
        ];
        let path = dir.join(format!("x_{id}.jsonl"));
        std::fs::write(&path, lines.join("\n") + "\n").unwrap();
        out.push(path);
    }
    out
}

#[test]
fn a_page_of_many_sessions_steps_through_o_page_rows_in_index_order() {
    let home = tempfile::tempdir().unwrap();
    pi_home(home.path(), 1500);
    let (files, spec) = discover(home.path());
    assert_eq!(files.len(), 1500);
    let (_tmp, store) = indexed(&files);
    assert_eq!(store.list_members(&spec).unwrap(), 1500);
    assert_eq!(store.list_counts(&spec, ListMode::Fold).unwrap(), (1500, 0));
    for mode in [ListMode::Fold, ListMode::Kind(None)] {
        let (rows, scanned, steps, plan) = store.list_page_cost(&spec, mode, 20).unwrap();
        assert_eq!(rows, 20);
        let plan = plan.join("\n");
        assert!(plan.contains("sessions_recent"), "{plan}");
        assert!(
            !plan.contains("TEMP B-TREE"),
            "sorts instead of reading in order:\n{plan}"
        );
        // 20 rows read in order, not 1,500 (generous: a few steps per row for the joins).
        assert!(scanned <= 100, "{scanned} rows stepped through:\n{plan}");
        assert!(steps < 20_000, "{steps} VM steps for 20 rows");
    }
    // The newest first: the last session written is the newest.
    let page = store.list_page(&spec, ListMode::Fold, 0, 3).unwrap();
    let ids: Vec<&str> = page.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "000005db-0000-4000-8000-000000000000",
            "000005da-0000-4000-8000-000000000000",
            "000005d9-0000-4000-8000-000000000000"
        ]
    );
}
