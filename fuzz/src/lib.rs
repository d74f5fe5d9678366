//! Shared harness for the fuzz targets: a private fake HOME per process, writers that lay
//! the fuzz input out the way each agent stores sessions, and a driver that runs a provider
//! the way scry does (`discover` → `scan_header` + `parse_into`, and `detect` on each file).
//!
//! Multi-file layouts take their files from one input split at `0xFF` bytes (a byte that never
//! occurs in UTF-8 text, so seeds made from real files keep their content; see `run.sh`).

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use scry_model::{Event, Warning};
use scry_source::{Emitter, Env, EventSink, Source};

/// The separator between files in multi-file inputs.
pub const SEP: u8 = 0xFF;

/// This process's fake HOME (created once, under the system temp dir, removed by `run.sh`).
pub fn home() -> &'static Path {
    static HOME: OnceLock<PathBuf> = OnceLock::new();
    HOME.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("scry-fuzz-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).expect("create fuzz home");
        dir
    })
}

/// Empties the fake HOME (the previous input's files).
pub fn reset() -> &'static Path {
    let h = home();
    if let Ok(rd) = fs::read_dir(h) {
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                let _ = fs::remove_dir_all(&p);
            } else {
                let _ = fs::remove_file(&p);
            }
        }
    }
    h
}

/// Writes `bytes` at `rel` under the fake HOME, creating directories.
pub fn put(rel: &str, bytes: &[u8]) -> PathBuf {
    let p = home().join(rel);
    if let Some(dir) = p.parent() {
        fs::create_dir_all(dir).expect("create fuzz dir");
    }
    fs::write(&p, bytes).expect("write fuzz file");
    p
}

/// The input cut at [`SEP`] bytes, at most `max` pieces (the last keeps the rest).
pub fn split(data: &[u8], max: usize) -> Vec<&[u8]> {
    data.splitn(max, |b| *b == SEP).collect()
}

/// Whether the input is one JSON document rather than JSON lines: it starts with `{` and no
/// line after the first starts with `{`.
pub fn is_document(data: &[u8]) -> bool {
    let t = data.trim_ascii_start();
    t.first() == Some(&b'{') && !data.windows(2).any(|w| w == b"\n{")
}

/// A string field of a JSON document usable as a file or directory name, else `fallback`.
pub fn json_id(data: &[u8], field: &str, fallback: &str) -> String {
    serde_json::from_slice::<serde_json::Value>(data)
        .ok()
        .and_then(|v| v.get(field).and_then(|s| s.as_str()).map(str::to_string))
        .filter(|s| {
            !s.is_empty()
                && s.len() <= 64
                && s.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        })
        .unwrap_or_else(|| fallback.to_string())
}

/// A sink that only counts (the fuzz targets look for panics, hangs and blow-ups, not output).
#[derive(Default)]
pub struct Count {
    /// Events seen.
    pub events: usize,
    /// Warnings seen.
    pub warnings: usize,
}

impl EventSink for Count {
    fn event(&mut self, event: Event) {
        // Serializing exercises the model's own encoders on odd values.
        let _ = serde_json::to_vec(&event);
        self.events += 1;
    }
    fn warning(&mut self, _: Warning) {
        self.warnings += 1;
    }
}

/// Runs `src` over the fake HOME the way scry does: discovery, then for every session found a
/// header scan and a full parse; then `detect` (and a parse of what it returns) on each of
/// `files`.
pub fn drive(src: &dyn Source, files: &[PathBuf]) {
    let env = Env::with_home(home());
    let found = src.discover(&env);
    for f in &found.files {
        let _ = src.scan_header(f);
        let mut sink = Count::default();
        let mut out = Emitter::new(&mut sink);
        if let Ok(mut header) = src.parse_into(f, &mut out) {
            out.finish_header(&mut header);
            let _ = serde_json::to_vec(&header);
        }
    }
    for p in files {
        if let Some(f) = src.detect(p) {
            if !found.files.iter().any(|g| g.path == f.path) {
                let mut sink = Count::default();
                let mut out = Emitter::new(&mut sink);
                let _ = src.parse_into(&f, &mut out);
            }
        }
    }
}
