//! The embedded demo corpus (`scry --demo`): the files of the repository's `demo/home/`, built
//! into the binary by `build.rs`, extracted once into a cache directory keyed by their content
//! hash (`$XDG_CACHE_HOME/scry/demo-<hash>/home`, else `~/.cache/…`, else the temp dir).
//!
//! Extraction writes into a private temporary directory and renames it into place, so two
//! processes extracting at once never see a half-written tree; every file gets the same fixed
//! mtime so output that shows file times stays stable.

use std::fs;
use std::io;
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use scry_source::Env;

include!(concat!(env!("OUT_DIR"), "/demo_files.rs"));

/// The mtime every extracted file gets: 2026-12-01T00:00:00Z.
const FIXED_MTIME_SECS: u64 = 1_796_083_200;

/// The demo HOME directory, extracting the embedded files first if needed.
pub fn home(process: &Env) -> io::Result<PathBuf> {
    let hash = content_hash();
    let mut last_err = None;
    for base in cache_bases(process) {
        match extract_into(&base, hash) {
            Ok(home) => return Ok(home),
            Err(e) => last_err = Some(e),
        }
    }
    Err(last_err.unwrap_or_else(|| io::Error::other("no cache directory available")))
}

/// The demo's index (`index.db` beside the extracted home, where `--demo` keeps it), if the demo
/// was extracted and indexed already; extracts nothing (shell completion reads it).
pub fn extracted_index(process: &Env) -> Option<PathBuf> {
    let hash = content_hash();
    cache_bases(process)
        .into_iter()
        .map(|base| base.join(format!("demo-{hash:016x}")).join("index.db"))
        .find(|p| p.is_file())
}

/// A hash over every embedded path and its bytes.
fn content_hash() -> u64 {
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    for (path, bytes) in DEMO_FILES {
        h.update(path.as_bytes());
        h.update(&(bytes.len() as u64).to_le_bytes());
        h.update(bytes);
    }
    h.digest()
}

/// Candidate cache directories, best first.
fn cache_bases(process: &Env) -> Vec<PathBuf> {
    let mut bases = Vec::new();
    if let Some(x) = process.var("XDG_CACHE_HOME").map(PathBuf::from) {
        if x.is_absolute() {
            bases.push(x.join("scry"));
        }
    }
    if process.home().is_absolute() && process.home() != Path::new("/") {
        bases.push(process.home().join(".cache/scry"));
    }
    bases.push(std::env::temp_dir().join("scry-cache"));
    bases
}

fn extract_into(base: &Path, hash: u64) -> io::Result<PathBuf> {
    let target = base.join(format!("demo-{hash:016x}"));
    let home = target.join("home");
    if home.is_dir() {
        return Ok(home);
    }
    fs::create_dir_all(base)?;
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let tmp = base.join(format!(
        ".demo-{hash:016x}-{}-{nanos}-{n}",
        std::process::id()
    ));
    let written = write_tree(&tmp.join("home"));
    if let Err(e) = written {
        let _ = fs::remove_dir_all(&tmp);
        return Err(e);
    }
    match fs::rename(&tmp, &target) {
        Ok(()) => Ok(home),
        Err(e) => {
            let _ = fs::remove_dir_all(&tmp);
            // Another process won the race: its tree is complete (rename is atomic).
            if home.is_dir() {
                Ok(home)
            } else {
                Err(e)
            }
        }
    }
}

fn write_tree(home: &Path) -> io::Result<()> {
    fs::create_dir_all(home)?;
    let mtime = UNIX_EPOCH + Duration::from_secs(FIXED_MTIME_SECS);
    for (rel, bytes) in DEMO_FILES {
        let rel = Path::new(rel);
        if rel.components().any(|c| !matches!(c, Component::Normal(_))) {
            continue;
        }
        let path = home.join(rel);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent)?;
        }
        fs::write(&path, bytes)?;
        let file = fs::File::options().write(true).open(&path)?;
        file.set_modified(mtime)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn concurrent_extraction_yields_one_complete_tree() {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().join("scry");
        let hash = content_hash();
        let handles: Vec<_> = (0..4)
            .map(|_| {
                let base = base.clone();
                std::thread::spawn(move || extract_into(&base, hash).unwrap())
            })
            .collect();
        let homes: Vec<PathBuf> = handles.into_iter().map(|h| h.join().unwrap()).collect();
        assert!(homes.windows(2).all(|w| w[0] == w[1]));
        for (rel, bytes) in DEMO_FILES {
            assert_eq!(&fs::read(homes[0].join(rel)).unwrap(), bytes);
        }
        let leftovers: Vec<_> = fs::read_dir(&base)
            .unwrap()
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().starts_with(".demo-"))
            .collect();
        assert!(leftovers.is_empty());
    }
}
