//! Session id resolution (SPEC S-E3): a full native id, `provider:id`, a unique prefix of at
//! least six characters (ambiguity lists every candidate), or — on the command line only — a
//! path to a session file.
//!
//! Two entry points, so a front end cannot open a file by accident: [`resolve_id`] matches
//! references against discovered sources only (what the HTTP API, the web page and MCP use:
//! a path is just an id that matches nothing), and [`resolve`] also accepts a path, which is
//! opened only when `stat` says it is a regular file (a FIFO, device, socket or directory is
//! refused before anything opens it, so `scry show /dev/stdin` cannot block).

use std::path::Path;

use scry_model::ProviderId;
use scry_source::{Source, SourceFile};

/// Minimum length of an id prefix.
pub const MIN_PREFIX: usize = 6;

/// One session that matched an ambiguous reference.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    /// `provider:id`.
    pub uri: String,
    /// The primary source path.
    pub path: String,
}

/// Why an id could not be resolved to exactly one session.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ResolveError {
    /// Nothing matched.
    #[error("no session matches '{0}'")]
    NotFound(String),
    /// A prefix shorter than [`MIN_PREFIX`] that is not a full id.
    #[error("'{0}' is too short: give at least {MIN_PREFIX} characters of a session id")]
    TooShort(String),
    /// Several sessions matched.
    #[error("'{reference}' is ambiguous: {} sessions match ({})", candidates.len(), candidates.iter().map(|c| c.uri.as_str()).collect::<Vec<_>>().join(", "))]
    Ambiguous {
        /// What the user typed.
        reference: String,
        /// Every matching session.
        candidates: Vec<Candidate>,
    },
    /// `provider:` named no known provider.
    #[error("unknown provider '{0}' in '{1}'")]
    UnknownProvider(String, String),
    /// A path that exists but is not a regular file (FIFO, device, socket, directory): no
    /// session lives there, and it is never opened.
    #[error("'{path}' is a {what}, not a session file")]
    NotAFile {
        /// The path as given.
        path: String,
        /// What it is instead (`directory`, `FIFO`, `character device`, …).
        what: &'static str,
    },
}

/// Resolves `reference` against the discovered `files`, or as a path to a session file (the
/// command line's form). A path is looked at with `stat` first (following symlinks): only a
/// regular file goes on to be matched against discovered paths or recognized by the first
/// provider whose [`Source::detect`] accepts it; anything else is [`ResolveError::NotAFile`]
/// without being opened.
pub fn resolve(
    reference: &str,
    files: &[SourceFile],
    sources: &[Box<dyn Source>],
) -> Result<SourceFile, ResolveError> {
    let reference = reference.trim();
    let path = Path::new(reference);
    if looks_like_path(reference) {
        // `metadata` follows symlinks and opens nothing; a missing path falls through to ids.
        if let Ok(meta) = std::fs::metadata(path) {
            if !meta.is_file() {
                return Err(ResolveError::NotAFile {
                    path: reference.to_string(),
                    what: file_kind(&meta.file_type()),
                });
            }
            let canon = path.canonicalize().ok();
            if let Some(f) = files.iter().find(|f| {
                f.path == path
                    || canon
                        .as_ref()
                        .is_some_and(|c| f.path.canonicalize().ok().as_ref() == Some(c))
            }) {
                return Ok(f.clone());
            }
            for s in sources {
                if let Some(f) = s.detect(path) {
                    return Ok(f);
                }
            }
            return Err(ResolveError::NotFound(reference.to_string()));
        }
    }
    resolve_id(reference, files)
}

/// Whether the command line's [`resolve`] treats `reference` as a path (when it exists).
pub fn looks_like_path(reference: &str) -> bool {
    reference.contains('/') || reference.ends_with(".jsonl") || reference.ends_with(".json")
}

/// What a non-regular file is, for the error.
fn file_kind(t: &std::fs::FileType) -> &'static str {
    if t.is_dir() {
        return "directory";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "FIFO";
        } else if t.is_char_device() {
            return "character device";
        } else if t.is_block_device() {
            return "block device";
        } else if t.is_socket() {
            return "socket";
        }
    }
    "special file"
}

/// Resolves `reference` against the discovered `files` only: a full id, `provider:id` or a
/// unique prefix. Never looks at the file system, so a path (or anything else) that is no
/// discovered session's id is [`ResolveError::NotFound`]. What every front end but the
/// command line uses.
pub fn resolve_id(reference: &str, files: &[SourceFile]) -> Result<SourceFile, ResolveError> {
    let reference = reference.trim();
    let (provider, id) = match reference.split_once(':') {
        Some((p, rest)) if !p.is_empty() && !p.contains('/') => match p.parse::<ProviderId>() {
            Ok(pid) => (Some(pid), rest),
            Err(_) => {
                return Err(ResolveError::UnknownProvider(
                    p.to_string(),
                    reference.to_string(),
                ))
            }
        },
        _ => (None, reference),
    };
    let in_scope = |f: &&SourceFile| provider.is_none_or(|p| f.provider == p);

    let exact: Vec<&SourceFile> = files
        .iter()
        .filter(in_scope)
        .filter(|f| f.id == id)
        .collect();
    if exact.len() == 1 {
        return Ok(exact[0].clone());
    }
    if exact.len() > 1 {
        return Err(ambiguous(reference, &exact));
    }
    if id.chars().count() < MIN_PREFIX {
        return Err(ResolveError::TooShort(reference.to_string()));
    }
    let prefixed: Vec<&SourceFile> = files
        .iter()
        .filter(in_scope)
        .filter(|f| f.id.starts_with(id) || bare_id(&f.id).starts_with(id))
        .collect();
    match prefixed.len() {
        0 => Err(ResolveError::NotFound(reference.to_string())),
        1 => Ok(prefixed[0].clone()),
        _ => Err(ambiguous(reference, &prefixed)),
    }
}

/// The id without a decorative prefix some agents put before the uuid (DSH `session-<uuid>`,
/// Gemini/Codex-style `rollout-`), so users can type the uuid they see.
fn bare_id(id: &str) -> &str {
    id.strip_prefix("session-")
        .or_else(|| id.strip_prefix("rollout-"))
        .unwrap_or(id)
}

/// Every matching session once, by uri then path: two files holding one id (a copied project
/// folder) are two candidates told apart by their path; one file reached by two paths (a
/// symlinked directory) is one.
fn ambiguous(reference: &str, files: &[&SourceFile]) -> ResolveError {
    let mut seen = std::collections::HashSet::new();
    let mut candidates: Vec<Candidate> = files
        .iter()
        .filter(|f| {
            let real = f.path.canonicalize().unwrap_or_else(|_| f.path.clone());
            seen.insert((f.provider, f.id.clone(), real, f.key.clone()))
        })
        .map(|f| Candidate {
            uri: format!("{}:{}", f.provider, f.id),
            path: f.path.display().to_string(),
        })
        .collect();
    candidates.sort_by(|a, b| a.uri.cmp(&b.uri).then_with(|| a.path.cmp(&b.path)));
    candidates.dedup();
    ResolveError::Ambiguous {
        reference: reference.to_string(),
        candidates,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(p: ProviderId, id: &str) -> SourceFile {
        SourceFile::new(p, id, format!("/nonexistent/{id}.jsonl"))
    }

    #[test]
    fn full_prefix_provider_and_ambiguity() {
        let files = vec![
            file(ProviderId::Claude, "abcdef12-1"),
            file(ProviderId::Claude, "abcdef12-2"),
            file(ProviderId::Codex, "0123456789"),
            file(ProviderId::Dsh, "session-585b2c35-c272"),
        ];
        let none: Vec<Box<dyn Source>> = vec![];
        assert_eq!(
            resolve("abcdef12-1", &files, &none).unwrap().id,
            "abcdef12-1"
        );
        assert_eq!(
            resolve("codex:012345", &files, &none).unwrap().id,
            "0123456789"
        );
        assert!(matches!(
            resolve("claude:012345", &files, &none),
            Err(ResolveError::NotFound(_))
        ));
        match resolve("abcdef", &files, &none) {
            Err(ResolveError::Ambiguous { candidates, .. }) => assert_eq!(candidates.len(), 2),
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            resolve("abc", &files, &none),
            Err(ResolveError::TooShort(_))
        ));
        assert!(matches!(
            resolve("nope:abcdef", &files, &none),
            Err(ResolveError::UnknownProvider(..))
        ));
    }

    /// The id-only form never touches the file system: an existing session file's path (or a
    /// FIFO's) is not found unless it is a discovered id. The command line's form refuses what
    /// is not a regular file before opening it, and still recognizes a session file by path.
    #[test]
    fn paths_only_on_the_command_line_and_only_regular_files() {
        let dir = tempfile::tempdir().unwrap();
        let session = dir.path().join("abcdef12-1.jsonl");
        std::fs::write(&session, "{}\n").unwrap();
        let files = vec![SourceFile::new(ProviderId::Claude, "abcdef12-1", &session)];
        let none: Vec<Box<dyn Source>> = vec![];
        let as_text = session.display().to_string();
        assert!(matches!(
            resolve_id(&as_text, &files),
            Err(ResolveError::NotFound(_))
        ));
        assert_eq!(resolve(&as_text, &files, &none).unwrap().id, "abcdef12-1");
        let d = dir.path().display().to_string();
        match resolve(&d, &files, &none) {
            Err(ResolveError::NotAFile { what, .. }) => assert_eq!(what, "directory"),
            other => panic!("{other:?}"),
        }
        match resolve("/dev/null", &files, &none) {
            Err(ResolveError::NotAFile { what, .. }) => assert_eq!(what, "character device"),
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            resolve_id("/dev/null", &files),
            Err(ResolveError::NotFound(_))
        ));
    }
}
