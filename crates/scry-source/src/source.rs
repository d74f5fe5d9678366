//! The provider trait and the records discovery produces.

use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

use scry_model::{Header, ProviderId, Session, SessionKind, Warning};

use crate::{Emitter, Env, ResumePoint, SourceError};

/// A directory a provider looks in, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Root {
    /// The directory (or database file).
    pub path: PathBuf,
    /// The environment variable that chose it, if any (`CLAUDE_CONFIG_DIR`, `CODEX_HOME`, …).
    pub env_var: Option<String>,
    /// Whether it exists.
    pub exists: bool,
}

impl Root {
    /// A root at `path`, chosen by `env_var` (if any); `exists` is checked now.
    pub fn new(path: PathBuf, env_var: Option<&str>) -> Self {
        let exists = path.exists();
        Root {
            path,
            env_var: env_var.map(str::to_string),
            exists,
        }
    }
}

/// One session's source as found by discovery: paths and stat data only, nothing opened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceFile {
    /// The provider that owns it.
    pub provider: ProviderId,
    /// The session's native id as far as the path tells (file stem, directory name, db key).
    pub id: String,
    /// The primary file (or the database holding the session).
    pub path: PathBuf,
    /// The session's key inside a multi-session store (a SQLite thread / session id).
    pub key: Option<String>,
    /// Side files that belong to the session (read together with `path`).
    pub related: Vec<PathBuf>,
    /// Size of `path` in bytes.
    pub size: u64,
    /// Modification time of `path` in nanoseconds since the Unix epoch (0 if unknown).
    pub mtime_ns: i64,
    /// Kind as far as the path tells.
    pub kind: SessionKind,
    /// Parent session's native id as far as the path tells (subagent directories).
    pub parent: Option<String>,
    /// Working directory as far as the path tells without opening anything (e.g. Grok's
    /// percent-encoded directory name); lets scope filters skip files unopened.
    pub cwd_hint: Option<String>,
}

impl SourceFile {
    /// A main-session source at `path` with id `id`, stat data filled in (zeros when stat fails).
    pub fn new(provider: ProviderId, id: impl Into<String>, path: impl Into<PathBuf>) -> Self {
        let path = path.into();
        let stat = file_stat(&path);
        SourceFile::with_stat(provider, id, path, stat)
    }

    /// A main-session source at `path` with id `id` and stat data the caller already has
    /// (`(size, mtime_ns)`, as [`file_stat`] or [`entry_stat`] return): discovery that listed
    /// the directory does not stat the file a second time by path.
    pub fn with_stat(
        provider: ProviderId,
        id: impl Into<String>,
        path: impl Into<PathBuf>,
        (size, mtime_ns): (u64, i64),
    ) -> Self {
        SourceFile {
            provider,
            id: id.into(),
            path: path.into(),
            key: None,
            related: Vec::new(),
            size,
            mtime_ns,
            kind: SessionKind::Main,
            parent: None,
            cwd_hint: None,
        }
    }
}

/// Size and mtime (ns since epoch) of a path; zeros when it cannot be stat'ed.
pub fn file_stat(path: &Path) -> (u64, i64) {
    match std::fs::metadata(path) {
        Ok(m) => metadata_stat(&m),
        Err(_) => (0, 0),
    }
}

/// Size and mtime (ns since epoch) from metadata already read.
pub fn metadata_stat(m: &std::fs::Metadata) -> (u64, i64) {
    let mtime = m
        .modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map(|d| d.as_nanos() as i64)
        .unwrap_or(0);
    (m.len(), mtime)
}

/// What [`file_stat`] says of `entry.path()`, for an entry of a directory being listed: a
/// regular entry is stat'ed relative to the open directory (on Linux one `statx` of one name
/// instead of a lookup of every component of the path); a symbolic link (or an entry of
/// unknown type) is followed by path, as [`file_stat`] does. Zeros when it cannot be stat'ed.
pub fn entry_stat(entry: &std::fs::DirEntry) -> (u64, i64) {
    match entry.file_type() {
        Ok(t) if !t.is_symlink() => match entry.metadata() {
            Ok(m) => metadata_stat(&m),
            Err(_) => (0, 0),
        },
        _ => file_stat(&entry.path()),
    }
}

/// Lists `dir` for a provider's discovery; when it cannot be listed, pushes the one
/// "cannot list directory" warning naming it onto `warnings` and returns `None` (nothing is
/// lost silently, and discovery goes on with the next directory).
pub fn list_dir(dir: &Path, warnings: &mut Vec<Warning>) -> Option<std::fs::ReadDir> {
    match std::fs::read_dir(dir) {
        Ok(entries) => Some(entries),
        Err(_) => {
            warnings.push(Warning::at(
                scry_model::WarningKind::Unreadable,
                "cannot list directory",
                dir,
                None,
            ));
            None
        }
    }
}

/// What a provider's discovery found.
#[derive(Debug, Clone, Default)]
pub struct Discovery {
    /// Roots searched, existing or not.
    pub roots: Vec<Root>,
    /// Session sources found.
    pub files: Vec<SourceFile>,
    /// Problems met while walking (unreadable directories, loops).
    pub warnings: Vec<Warning>,
}

/// One agent's reader. Implementations live one per crate (`scry-source-<agent>`).
pub trait Source: Send + Sync {
    /// Which provider this is.
    fn id(&self) -> ProviderId;

    /// The roots this provider searches in `env` (env overrides first), existing or not.
    fn roots(&self, env: &Env) -> Vec<Root>;

    /// Finds session sources under the roots. Cheap: directory walks and stat only.
    fn discover(&self, env: &Env) -> Discovery;

    /// Recognizes a path given directly by the user (`scry show ./file.jsonl`), opening at most a
    /// small prefix of it. `None` when the file is not this provider's.
    fn detect(&self, path: &Path) -> Option<SourceFile> {
        let _ = path;
        None
    }

    /// The working directory a full parse of `file` would report, when a small read can tell
    /// for certain (a header line); `None` when it cannot (the caller then scans the header).
    /// For callers that need only the cwd of many files (Aider's project directories).
    fn probe_cwd(&self, file: &SourceFile) -> Option<String> {
        let _ = file;
        None
    }

    /// A bounded read for list views: id, cwd, title, times, model, branch. The default parses
    /// the whole session (into a counting sink, so memory stays flat); providers override it
    /// where the format allows a cheaper read.
    fn scan_header(&self, file: &SourceFile) -> Result<Header, SourceError> {
        struct Discard;
        impl crate::EventSink for Discard {
            fn event(&mut self, _: scry_model::Event) {}
            fn warning(&mut self, _: Warning) {}
        }
        let mut sink = Discard;
        let mut out = Emitter::new(&mut sink);
        let mut header = self.parse_into(file, &mut out)?;
        out.finish_header(&mut header);
        Ok(header)
    }

    /// Parses the whole session, streaming: every event and warning goes to `out` in order, and
    /// the returned header holds what the provider knows beyond the events (the caller completes
    /// it with [`Emitter::finish_header`]). Problems inside the source become warnings; only a
    /// source that cannot be read at all is an error. Buffer only what the format forces.
    fn parse_into(&self, file: &SourceFile, out: &mut Emitter<'_>) -> Result<Header, SourceError>;

    /// Whether this provider can continue a parse from a [`ResumePoint`] it handed out earlier
    /// (via [`Emitter::checkpoint`]). Default: no — an index then re-parses a grown file whole.
    fn resume_support(&self) -> bool {
        false
    }

    /// Continues a parse from `from` (see [`crate::resume`]): `out` was built with
    /// [`Emitter::resumed`] from `from.emitter`, and the caller has verified that the bytes of
    /// `file.path` before `from.offset` are unchanged. Emit exactly what a full parse would emit
    /// after that point and return the complete header (as [`Source::parse_into`] would). Only
    /// called when [`Source::resume_support`] is true; the default refuses, and callers then
    /// fall back to a full parse.
    fn parse_into_from(
        &self,
        file: &SourceFile,
        from: &ResumePoint,
        out: &mut Emitter<'_>,
    ) -> Result<Header, SourceError> {
        let _ = (from, out);
        Err(SourceError::format(
            &file.path,
            "this provider cannot resume a parse",
        ))
    }

    /// Parses the whole session into memory.
    fn parse(&self, file: &SourceFile) -> Result<Session, SourceError> {
        crate::collect(|out| self.parse_into(file, out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `entry_stat` of every entry of a directory, by name.
    fn listed(dir: &Path) -> Vec<(String, (u64, i64))> {
        let mut out: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| {
                let e = e.unwrap();
                (e.file_name().to_string_lossy().into_owned(), entry_stat(&e))
            })
            .collect();
        out.sort();
        out
    }

    #[test]
    fn entry_stat_says_what_file_stat_says_of_the_path() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        std::fs::write(dir.join("a.jsonl"), b"{}\n").unwrap();
        std::fs::write(dir.join("big.jsonl"), vec![b'x'; 70_000]).unwrap();
        std::fs::write(tmp.path().join("empty.jsonl"), b"").unwrap();
        std::fs::create_dir(dir.join("sub")).unwrap();
        #[cfg(unix)]
        {
            // A link is followed (to a file of another size), a dangling one is zeros.
            std::os::unix::fs::symlink(dir.join("big.jsonl"), dir.join("link.jsonl")).unwrap();
            std::os::unix::fs::symlink(dir.join("nowhere"), dir.join("dangling.jsonl")).unwrap();
        }
        let got = listed(dir);
        assert!(got.len() >= 4, "{got:?}");
        for (name, stat) in &got {
            assert_eq!(*stat, file_stat(&dir.join(name)), "{name}");
        }
        let by = |n: &str| got.iter().find(|(name, _)| name == n).map(|(_, s)| *s);
        assert_eq!(by("big.jsonl").unwrap().0, 70_000);
        assert!(by("big.jsonl").unwrap().1 > 0);
        #[cfg(unix)]
        {
            assert_eq!(by("link.jsonl"), by("big.jsonl"));
            assert_eq!(by("dangling.jsonl"), Some((0, 0)));
        }
    }

    #[test]
    fn with_stat_is_new_without_the_stat() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("s.jsonl");
        std::fs::write(&path, b"{}\n{}\n").unwrap();
        let stat = file_stat(&path);
        assert_eq!(
            SourceFile::with_stat(ProviderId::Pi, "s", &path, stat),
            SourceFile::new(ProviderId::Pi, "s", &path)
        );
    }
}
