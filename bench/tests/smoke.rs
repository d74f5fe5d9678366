//! Smoke test of the generator: a tiny corpus in a temp HOME has the agents' layouts, scry's own
//! discovery (`scry_sources::registry()`) finds exactly the files the manifest lists, and every
//! file parses with the prompt count and token totals the generator wrote.

use std::collections::HashMap;
use std::path::Path;

use scry_model::EventKind;
use scry_source::Env;

#[test]
fn tiny_corpus_is_found_and_parsed() {
    let home = tempfile::tempdir().expect("temp dir");
    let m = scry_bench::generate(scry_bench::Profile::Tiny, 7, home.path()).expect("generate");

    // Layout: one of each provider, in its real place.
    for p in ["claude", "codex", "gemini", "pi"] {
        assert!(m.count(p) >= 1, "no {p} session generated");
    }
    let h = home.path();
    assert!(h.join(".claude/projects").is_dir());
    assert!(h.join(".codex/sessions").is_dir());
    assert!(h.join(".gemini/projects.json").is_file());
    assert!(h.join(".pi/agent/sessions").is_dir());
    assert!(h.join(".scry-bench/manifest.json").is_file());
    for s in &m.sessions {
        let path = h.join(&s.path);
        let meta = std::fs::metadata(&path).expect("session file exists");
        assert_eq!(meta.len(), s.bytes, "{}", s.path);
        let mtime = meta
            .modified()
            .expect("mtime")
            .duration_since(std::time::UNIX_EPOCH)
            .expect("after epoch")
            .as_millis() as i64;
        assert_eq!(mtime, s.end_ms, "mtime of {}", s.path);
    }

    // Discovery by the product finds exactly the generated files.
    let env = Env::with_home(h);
    let sources = scry_sources::registry();
    let found = scry_sources::discover_all(&sources, &env, &[]);
    let by_path: HashMap<String, &scry_bench::SessionEntry> = m
        .sessions
        .iter()
        .map(|s| (rel(h, &h.join(&s.path)), s))
        .collect();
    let mut seen = 0;
    for pd in &found {
        for f in &pd.discovery.files {
            let key = rel(h, &f.path);
            let entry = by_path
                .get(&key)
                .unwrap_or_else(|| panic!("discovered a file the generator did not write: {key}"));
            assert_eq!(pd.provider.as_str(), entry.provider, "{key}");
            seen += 1;

            // Every file parses; prompts and tokens are what the generator wrote.
            let source = scry_sources::source_for(&sources, pd.provider).expect("registered");
            let session = source.parse(f).unwrap_or_else(|e| panic!("{key}: {e}"));
            if entry.kind == "fork" {
                continue; // copied parent history is the provider's business to fold
            }
            let prompts = session
                .events
                .iter()
                .filter(|e| e.kind == EventKind::User)
                .count() as u64;
            assert_eq!(prompts, entry.prompts, "prompts in {key}");
            let (mut input, mut output, mut cache_read, mut requests) = (0, 0, 0, 0);
            for u in session.events.iter().filter_map(|e| e.usage.as_ref()) {
                input += u.input;
                output += u.output;
                cache_read += u.cache_read;
                requests += 1;
            }
            assert_eq!(requests, entry.tokens.requests, "usage events in {key}");
            assert_eq!(input, entry.tokens.input, "input tokens in {key}");
            assert_eq!(output, entry.tokens.output, "output tokens in {key}");
            assert_eq!(cache_read, entry.tokens.cache_read, "cache reads in {key}");
        }
    }
    assert_eq!(seen, m.sessions.len(), "discovered vs generated files");
}

#[test]
fn same_seed_same_bytes() {
    let a = tempfile::tempdir().expect("temp dir");
    let b = tempfile::tempdir().expect("temp dir");
    let ma = scry_bench::generate(scry_bench::Profile::Tiny, 11, a.path()).expect("generate");
    let mb = scry_bench::generate(scry_bench::Profile::Tiny, 11, b.path()).expect("generate");
    assert_eq!(ma.sessions.len(), mb.sessions.len());
    for (x, y) in ma.sessions.iter().zip(&mb.sessions) {
        assert_eq!(x.path, y.path);
        let bx = std::fs::read(a.path().join(&x.path)).expect("read");
        let by = std::fs::read(b.path().join(&y.path)).expect("read");
        assert!(bx == by, "{} differs between runs", x.path);
    }
}

fn rel(home: &Path, p: &Path) -> String {
    p.strip_prefix(home)
        .unwrap_or(p)
        .to_string_lossy()
        .into_owned()
}
