//! Snapshots of the normalized events of every provider's corpus files: each session source
//! found under the real homes (`real/home`, `real-older/*/home`; Aider's histories under the
//! home as the directory scry runs in) and, for the providers without one there, their
//! third-party fixtures, rendered by [`scry_testkit::events::render`]: one snapshot file per
//! source (per stored session for multi-session stores).

use std::path::{Path, PathBuf};

use scry_model::ProviderId;
use scry_source::{Env, Source, SourceFile};

/// A source to snapshot: its snapshot name, the home (or fixture directory) it was found in.
struct Found {
    name: String,
    root: PathBuf,
    file: SourceFile,
}

/// The real homes of the corpus, each with a short era label.
fn homes() -> Vec<(String, PathBuf)> {
    let corpus = scry_testkit::corpus();
    // Canonical: some providers (Aider) name their sources by canonical path.
    let corpus = corpus.canonicalize().expect("the corpus");
    let mut out = vec![("real".to_string(), corpus.join("real/home"))];
    let mut older: Vec<PathBuf> = std::fs::read_dir(corpus.join("real-older"))
        .expect("real-older")
        .flatten()
        .map(|e| e.path().join("home"))
        .filter(|p| p.is_dir())
        .collect();
    older.sort();
    for home in older {
        let era = home.parent().and_then(Path::file_name).unwrap_or_default();
        out.push((format!("older-{}", era.to_string_lossy()), home));
    }
    out
}

fn source(id: ProviderId) -> Box<dyn Source> {
    scry_sources::registry()
        .into_iter()
        .find(|s| s.id() == id)
        .expect("registered")
}

/// `text` as a file-name part: path separators and anything unusual become `_`, leading dots
/// of path parts dropped.
fn slug(text: &str) -> String {
    text.split('/')
        .map(|part| part.trim_start_matches('.'))
        .collect::<Vec<_>>()
        .join("_")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "-_.".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// Every source of `id` in the corpus, in a stable order.
fn found(id: ProviderId) -> Vec<Found> {
    let src = source(id);
    let mut out = Vec::new();
    for (era, home) in homes() {
        let env = Env::with_home(&home).with_cwd(&home);
        let mut files = src.discover(&env).files;
        files.sort_by(|a, b| (&a.path, &a.key).cmp(&(&b.path, &b.key)));
        for file in files {
            let rel = file.path.strip_prefix(&home).unwrap_or(&file.path);
            let mut name = format!("{id}@{era}_{}", slug(&rel.to_string_lossy()));
            if let Some(k) = &file.key {
                name.push_str(&format!("_{}", slug(k)));
            }
            out.push(Found {
                name,
                root: home.clone(),
                file,
            });
        }
    }
    if out.is_empty() {
        let dir = scry_testkit::corpus()
            .join("third-party")
            .join(id.to_string());
        let mut paths = Vec::new();
        walk(&dir, &mut paths);
        paths.sort();
        for p in paths {
            // Antigravity's `detect` cannot recognize its flat third-party transcripts (no
            // layout around them): those are read as its own tests read them.
            let flat = id == ProviderId::Antigravity && p.extension().is_some_and(|x| x == "jsonl");
            let Some(file) = src.detect(&p).or_else(|| {
                flat.then(|| {
                    let stem = p.file_stem().unwrap_or_default().to_string_lossy();
                    SourceFile::new(id, stem, &p)
                })
            }) else {
                continue;
            };
            let rel = p.strip_prefix(&dir).unwrap_or(&p);
            out.push(Found {
                name: format!("{id}@third-party_{}", slug(&rel.to_string_lossy())),
                root: dir.clone(),
                file,
            });
        }
    }
    out
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            walk(&p, out);
        } else {
            out.push(p);
        }
    }
}

/// Snapshots every source of `id`; at least one must be found.
fn snapshot_all(id: ProviderId) {
    let all = found(id);
    assert!(!all.is_empty(), "no {id} source in the corpus");
    let src = source(id);
    let mut names = std::collections::BTreeSet::new();
    for f in all {
        assert!(names.insert(f.name.clone()), "two sources named {}", f.name);
        let text = match src.parse(&f.file) {
            Ok(session) => scry_testkit::events::render(&session, &f.root),
            Err(e) => format!(
                "error: {}",
                e.to_string()
                    .replace(f.root.to_string_lossy().as_ref(), "<root>")
            ),
        };
        insta::with_settings!({ omit_expression => true, prepend_module_to_snapshot => false }, {
            insta::assert_snapshot!(f.name, text);
        });
    }
}

macro_rules! providers {
    ($($test:ident => $id:ident),* $(,)?) => {
        $(
            #[test]
            fn $test() {
                snapshot_all(ProviderId::$id);
            }
        )*
    };
}

providers! {
    claude => Claude,
    codex => Codex,
    gemini => Gemini,
    antigravity => Antigravity,
    grok => Grok,
    dsh => Dsh,
    deepagents => Deepagents,
    opencode => Opencode,
    kilo => Kilo,
    pi => Pi,
    cursor => Cursor,
    copilot => Copilot,
    qwen => Qwen,
    continue_cli => Continue,
    aider => Aider,
}

/// MT-Agent has no file in the corpus's homes or third-party fixtures: nothing to snapshot,
/// and this says so (it fails once one appears, so it gets a snapshot test).
#[test]
fn mtagent_has_no_corpus_source_yet() {
    assert!(found(ProviderId::Mtagent).is_empty());
}
