//! The L2 / L3 layers (S-I1): the facts and reference candidates stored per session equal what
//! scry-facts computes from the direct parse, and a new extractor / edge version recomputes them
//! from stored events alone — the source may be gone.

use scry_facts::{reference_candidates, Facts};
use scry_source::Env;
use scry_store::{LayerVersions, RefreshOptions, Store, EDGE_VERSION, EXTRACTOR_VERSION};

use crate::corpus::{corpus, indexed_corpus};

fn json<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_string(v).unwrap()
}

#[test]
fn stored_facts_equal_the_facts_of_the_parse_for_every_corpus_session() {
    let tmp = tempfile::tempdir().unwrap();
    let (store, direct, _) = indexed_corpus(tmp.path());
    let mut with_commands = 0;
    for d in &direct {
        let uri = &d.header.uri;
        let want_facts = json(&Facts::of(d));
        let want_refs = json(&reference_candidates(d));
        let first = store.facts(uri).unwrap();
        assert!(
            first.computed,
            "{uri}: nothing was stored before the first read"
        );
        assert_eq!(json(&first.facts), want_facts, "{uri}");
        assert_eq!(json(&first.references), want_refs, "{uri}");
        let again = store.facts(uri).unwrap();
        assert!(
            !again.computed,
            "{uri}: the second read comes from the L2 table"
        );
        assert_eq!(json(&again.facts), want_facts, "{uri}");
        assert_eq!(json(&again.references), want_refs, "{uri}");
        with_commands += usize::from(!first.facts.commands.is_empty());
    }
    assert!(
        with_commands >= 5,
        "only {with_commands} sessions ran commands"
    );
}

#[test]
fn a_version_bump_recomputes_facts_from_stored_events_without_the_source() {
    // A real Claude session with shell commands, copied into a HOME of our own so the source can
    // be deleted afterwards.
    let sources = scry_sources::registry();
    let real = corpus().join("real/home");
    let files: Vec<_> = scry_sources::discover_all(&sources, &Env::with_home(&real), &[])
        .into_iter()
        .flat_map(|d| d.discovery.files)
        .filter(|f| f.related.is_empty() && f.key.is_none())
        .collect();
    let (file, parsed) = files
        .iter()
        .find_map(|f| {
            let s = scry_sources::source_for(&sources, f.provider)?
                .parse(f)
                .ok()?;
            let facts = Facts::of(&s);
            (facts.commands.len() >= 3 && !facts.files.writes.is_empty()).then_some((f, s))
        })
        .expect("a corpus session with commands and file writes");
    let home = tempfile::tempdir().unwrap();
    let rel = file.path.strip_prefix(&real).unwrap();
    let copy = home.path().join(rel);
    std::fs::create_dir_all(copy.parent().unwrap()).unwrap();
    std::fs::copy(&file.path, &copy).unwrap();
    let env = Env::with_home(home.path());
    let mine: Vec<_> = scry_sources::discover_all(&sources, &env, &[])
        .into_iter()
        .flat_map(|d| d.discovery.files)
        .collect();
    assert_eq!(mine.len(), 1);
    let uri = parsed.header.uri.clone();
    let want_facts = json(&Facts::of(&parsed));
    let want_refs = json(&reference_candidates(&parsed));

    let db = home.path().join("index.db");
    {
        let mut store = Store::open(&db).unwrap();
        store
            .refresh(&sources, &mine, &RefreshOptions::complete(), &mut |_| true)
            .unwrap();
        assert_eq!(store.refresh_facts().unwrap(), 1);
        assert_eq!(store.refresh_facts().unwrap(), 0, "nothing left to compute");
        assert_eq!(json(&store.facts(&uri).unwrap().facts), want_facts);
    }

    // The source is gone: only stored events remain.
    std::fs::remove_file(&copy).unwrap();
    assert!(!copy.exists());

    let bumped = LayerVersions {
        extractor: EXTRACTOR_VERSION + 1,
        edge: EDGE_VERSION + 1,
    };
    let mut store = Store::open_with_versions(&db, bumped).unwrap();
    let v = store.versions().unwrap();
    assert_eq!((v[2], v[3]), (EXTRACTOR_VERSION + 1, EDGE_VERSION + 1));
    assert_eq!(
        store.refresh_facts().unwrap(),
        1,
        "the bump made the stored facts stale"
    );
    let got = store.facts(&uri).unwrap();
    assert!(!got.computed, "refresh_facts stored them");
    assert_eq!(json(&got.facts), want_facts);
    assert_eq!(json(&got.references), want_refs);

    // Back to this build's versions: recomputed once more, on first read, still equal.
    let store = Store::open(&db).unwrap();
    let got = store.facts(&uri).unwrap();
    assert!(got.computed);
    assert_eq!(json(&got.facts), want_facts);
}
