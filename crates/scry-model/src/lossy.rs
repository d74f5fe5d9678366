//! Paths serialized as text even when they are not valid UTF-8 (a directory name with Latin-1
//! bytes, say): serde refuses such a `PathBuf`, which made one odd file fail a whole JSON
//! answer or index build. The text is the lossy form (U+FFFD for each invalid sequence), for
//! display only: whoever opens the file keeps the exact path from discovery.

use std::path::{Path, PathBuf};

use serde::Serializer;

/// Serializes `paths` as strings, lossily.
pub fn paths<S: Serializer>(paths: &[PathBuf], s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(paths.iter().map(|p| p.to_string_lossy()))
}

/// Serializes `path` as a string, lossily.
pub fn path<S: Serializer>(path: &Path, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&path.to_string_lossy())
}

/// Serializes `path` as a string, lossily (`None` only when `skip_serializing_if` let it by).
pub fn opt_path<S: Serializer>(path: &Option<PathBuf>, s: S) -> Result<S::Ok, S::Error> {
    match path.as_deref().map(Path::to_string_lossy) {
        Some(p) => s.serialize_some(&p),
        None => s.serialize_none(),
    }
}

#[cfg(test)]
mod tests {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;

    use super::*;

    #[test]
    fn non_utf8_paths_serialize_lossily() {
        #[derive(serde::Serialize)]
        struct T {
            #[serde(serialize_with = "paths")]
            a: Vec<PathBuf>,
            #[serde(serialize_with = "opt_path")]
            b: Option<PathBuf>,
        }
        let bad = PathBuf::from(OsStr::from_bytes(b"/tmp/caf\xe9/x.jsonl"));
        let t = T {
            a: vec![bad.clone(), PathBuf::from("/ok")],
            b: Some(bad),
        };
        let v = serde_json::to_value(&t).unwrap();
        assert_eq!(v["a"][0], "/tmp/caf\u{fffd}/x.jsonl");
        assert_eq!(v["a"][1], "/ok");
        assert_eq!(v["b"], "/tmp/caf\u{fffd}/x.jsonl");
    }
}
