//! Embeds the demo corpus (`demo/home/` at the repository root, laid out as a HOME directory)
//! into the binary: writes `$OUT_DIR/demo_files.rs`, a sorted table of
//! `(relative path, include_bytes!(absolute path))` that `scry --demo` extracts at run time.
//!
//! A hand-written walk (instead of `include_dir` / `rust-embed`) keeps the build free of extra
//! crates; cargo re-runs it whenever anything under the directory changes.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn main() {
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    let root = manifest.join("../../demo/home");
    println!("cargo:rerun-if-changed={}", root.display());
    let mut files = Vec::new();
    walk(&root, &root, &mut files);
    files.sort();
    let mut out =
        String::from("/// Every demo file: path relative to the demo HOME, and its bytes.\n");
    out.push_str("pub static DEMO_FILES: &[(&str, &[u8])] = &[\n");
    for (rel, abs) in &files {
        println!("cargo:rerun-if-changed={}", abs.display());
        let _ = writeln!(
            out,
            "    ({rel:?}, include_bytes!({:?})),",
            abs.display().to_string()
        );
    }
    out.push_str("];\n");
    let out_dir = PathBuf::from(std::env::var_os("OUT_DIR").unwrap_or_default());
    if let Err(e) = std::fs::write(out_dir.join("demo_files.rs"), out) {
        panic!("cannot write demo table: {e}");
    }
}

/// Collects regular files below `dir` (symlinks are not followed; `.keep` markers are skipped).
fn walk(root: &Path, dir: &Path, out: &mut Vec<(String, PathBuf)>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let Ok(ft) = entry.file_type() else { continue };
        if ft.is_dir() {
            println!("cargo:rerun-if-changed={}", path.display());
            walk(root, &path, out);
        } else if ft.is_file() && entry.file_name() != ".keep" {
            if let Ok(rel) = path.strip_prefix(root) {
                let rel = rel.to_string_lossy().replace('\\', "/");
                let abs = path.canonicalize().unwrap_or(path.clone());
                out.push((rel, abs));
            }
        }
    }
}
