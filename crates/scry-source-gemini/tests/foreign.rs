//! Files of other agents in the corpus are never claimed by this reader's `detect`.

use std::path::{Path, PathBuf};

use scry_source::Source;
use scry_source_gemini::GeminiSource;

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            walk(&p, out);
        } else {
            out.push(p);
        }
    }
}

#[test]
fn other_agents_files_are_not_detected() {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus");
    let mut files = Vec::new();
    for entry in std::fs::read_dir(corpus.join("third-party"))
        .unwrap()
        .flatten()
    {
        if entry.file_name() != "gemini" {
            walk(&entry.path(), &mut files);
        }
    }
    for entry in std::fs::read_dir(corpus.join("real/home"))
        .unwrap()
        .flatten()
    {
        if entry.file_name() != ".gemini" {
            walk(&entry.path(), &mut files);
        }
    }
    for dir in std::fs::read_dir(corpus.join("real-older"))
        .unwrap()
        .flatten()
    {
        if !dir.file_name().to_string_lossy().starts_with("gemini") {
            walk(&dir.path(), &mut files);
        }
    }
    assert!(files.len() > 20);
    for f in files {
        assert!(GeminiSource.detect(&f).is_none(), "claimed {}", f.display());
    }
}
