//! Leaving sources out (SPEC §1, agentsview #1416): by provider, by path glob, or by project.
//!
//! Exclusions come from the config file (`[exclude]`, see [`crate::config`]) plus command-line
//! flags, which add to the config. They are applied to discovery results, before any session
//! file is opened:
//!
//! - **provider** (`cursor`): the provider's discovery does not even run ([`discover_excluding`]).
//! - **path glob** (`**/tmp/**`): matched against [`SourceFile::path`] *and each of its parent
//!   directories*, so a glob naming a directory leaves out everything beneath it. A glob without
//!   `/` matches a file or directory name anywhere (`*.zst`, `scratch-*`); a glob with `/` that is
//!   not absolute and does not start with `**` is taken as `**/<glob>`. `*` and `?` stay within
//!   one path component; `**` crosses components. A leading `~/` is the home directory.
//! - **project** (`/home/me/scratch`): a working directory subtree. Decided on
//!   [`SourceFile::cwd_hint`] when discovery knows the cwd without opening anything (Gemini,
//!   Grok, OpenCode, Deep Agents); for the others the cwd is only known from the records, so the
//!   caller checks [`Exclusions::project_of`] on the header after the bounded header scan —
//!   such a file is opened for its header but never fully parsed. To keep a source from being
//!   opened at all, exclude it by provider or path.

use std::path::{Component, Path, PathBuf};

use globset::{GlobBuilder, GlobMatcher};
use scry_model::{ProviderId, Warning, WarningKind};
use scry_source::{guard, Discovery, Env, Source, SourceFile};
use serde::Serialize;

use crate::ProviderDiscovery;

/// One path glob, as written and compiled.
#[derive(Debug, Clone)]
struct PathGlob {
    /// As the user wrote it.
    written: String,
    matcher: GlobMatcher,
    /// No `/` in the glob: matched against each component name.
    name_only: bool,
}

/// Why a source was left out.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "by", content = "value", rename_all = "snake_case")]
pub enum Excluded {
    /// Its provider is excluded.
    Provider(ProviderId),
    /// Its path (or a parent directory) matches this glob, as written.
    Path(String),
    /// Its working directory lies in this project directory.
    Project(PathBuf),
}

impl std::fmt::Display for Excluded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Excluded::Provider(p) => write!(f, "provider {p}"),
            Excluded::Path(g) => write!(f, "path {g}"),
            Excluded::Project(p) => write!(f, "project {}", p.display()),
        }
    }
}

/// What to leave out. Build with [`Exclusions::load`] (config file + flags) or the `exclude_*`
/// methods; an empty value excludes nothing.
#[derive(Debug, Clone, Default)]
pub struct Exclusions {
    providers: Vec<ProviderId>,
    paths: Vec<PathGlob>,
    projects: Vec<PathBuf>,
    config_file: Option<PathBuf>,
}

/// The command-line side of the exclusions (`--exclude-provider`, `--exclude-path`,
/// `--exclude-project`), each flag repeatable. Values add to the config file's.
#[derive(Debug, Clone, Default)]
pub struct ExcludeFlags {
    /// `--exclude-provider NAME`.
    pub providers: Vec<String>,
    /// `--exclude-path GLOB`.
    pub paths: Vec<String>,
    /// `--exclude-project DIR` (absolute, or starting with `~/`).
    pub projects: Vec<String>,
}

/// What [`Exclusions`] holds, for `--json` output and the doctor report.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ExclusionsSummary {
    /// The config file they were read from (`None`: no config file was found).
    pub config_file: Option<PathBuf>,
    /// Excluded providers.
    pub providers: Vec<ProviderId>,
    /// Path globs, as written.
    pub paths: Vec<String>,
    /// Project directories (home-expanded).
    pub projects: Vec<PathBuf>,
}

impl Exclusions {
    /// Nothing excluded.
    pub fn new() -> Self {
        Self::default()
    }

    /// The config file (`$XDG_CONFIG_HOME/scry/config.toml`, else `~/.config/scry/config.toml`;
    /// a missing file is no exclusion) plus `flags`, which add to it. Errors name the file, line
    /// and key, or the flag, and the offending value.
    pub fn load(env: &Env, flags: &ExcludeFlags) -> Result<Exclusions, crate::ConfigError> {
        let mut ex = crate::config::load(env)?;
        ex.add_flags(env, flags)?;
        Ok(ex)
    }

    /// Adds the command-line flags.
    pub fn add_flags(&mut self, env: &Env, flags: &ExcludeFlags) -> Result<(), crate::ConfigError> {
        let flag =
            |flag: &'static str| move |message: String| crate::ConfigError::Flag { flag, message };
        for p in &flags.providers {
            self.exclude_provider(p)
                .map_err(flag("--exclude-provider"))?;
        }
        for g in &flags.paths {
            self.exclude_path(g, env).map_err(flag("--exclude-path"))?;
        }
        for d in &flags.projects {
            self.exclude_project(d, env)
                .map_err(flag("--exclude-project"))?;
        }
        Ok(())
    }

    /// Excludes a provider by its id (`claude`, `cursor`, …). An unknown name is an error
    /// naming it and listing the known ones.
    pub fn exclude_provider(&mut self, name: &str) -> Result<(), String> {
        let id: ProviderId = name
            .parse()
            .map_err(|e: scry_model::ParseProviderError| e.to_string())?;
        if !self.providers.contains(&id) {
            self.providers.push(id);
        }
        Ok(())
    }

    /// Excludes every source whose path, or a parent directory of it, matches `glob` (see the
    /// module docs for the syntax). An invalid glob is an error naming it.
    pub fn exclude_path(&mut self, glob: &str, env: &Env) -> Result<(), String> {
        let written = glob.trim();
        if written.is_empty() {
            return Err("empty path glob".to_string());
        }
        let expanded = expand_home(written, env);
        let name_only = !expanded.contains('/');
        let pattern = if name_only || expanded.starts_with('/') || expanded.starts_with("**") {
            expanded
        } else {
            format!("**/{expanded}")
        };
        let matcher = GlobBuilder::new(&pattern)
            .literal_separator(true)
            .build()
            .map_err(|e| format!("invalid path glob '{written}': {}", e.kind()))?
            .compile_matcher();
        if !self.paths.iter().any(|p| p.written == written) {
            self.paths.push(PathGlob {
                written: written.to_string(),
                matcher,
                name_only,
            });
        }
        Ok(())
    }

    /// Excludes every session whose working directory is `dir` or lies beneath it. `dir` must
    /// be absolute or start with `~/`.
    pub fn exclude_project(&mut self, dir: &str, env: &Env) -> Result<(), String> {
        let written = dir.trim();
        let expanded = PathBuf::from(expand_home(written, env));
        if !expanded.is_absolute() {
            return Err(format!(
                "project '{written}' is not an absolute path (write it from / or ~/)"
            ));
        }
        let normal = normalize(&expanded);
        if !self.projects.contains(&normal) {
            self.projects.push(normal);
        }
        Ok(())
    }

    /// Records the config file these exclusions came from (shown by `doctor`).
    pub fn set_config_file(&mut self, path: Option<PathBuf>) {
        self.config_file = path;
    }

    /// Whether nothing is excluded.
    pub fn is_empty(&self) -> bool {
        self.providers.is_empty() && self.paths.is_empty() && self.projects.is_empty()
    }

    /// For a refresh given every discovered file of `all`: the providers whose discovery is then
    /// complete, so that an indexed source of theirs not discovered has vanished. Excluded is
    /// not vanished: with path or project rules any provider may have sources left out, so none
    /// is complete (sources are then marked gone only when their file is); with provider rules,
    /// every provider but the excluded ones. Aider is never complete: its histories are found
    /// under the directory a command runs in, so another directory's run does not list them.
    pub fn complete_providers(&self, all: &[ProviderId]) -> Vec<ProviderId> {
        if !self.paths.is_empty() || !self.projects.is_empty() {
            return Vec::new();
        }
        all.iter()
            .copied()
            .filter(|p| !self.providers.contains(p) && *p != ProviderId::Aider)
            .collect()
    }

    /// Whether project exclusions exist (callers then check headers of files without a
    /// `cwd_hint` with [`Exclusions::project_of`]).
    pub fn has_projects(&self) -> bool {
        !self.projects.is_empty()
    }

    /// Whether `provider` is excluded as a whole.
    pub fn excludes_provider(&self, provider: ProviderId) -> bool {
        self.providers.contains(&provider)
    }

    /// Why `file` is excluded, decided from discovery data only (provider, path, `cwd_hint`);
    /// `None` when it is kept. Opens nothing.
    pub fn check(&self, file: &SourceFile) -> Option<Excluded> {
        if self.excludes_provider(file.provider) {
            return Some(Excluded::Provider(file.provider));
        }
        if let Some(g) = self.path_glob_of(&file.path) {
            return Some(Excluded::Path(g.to_string()));
        }
        let cwd = file.cwd_hint.as_deref()?;
        self.project_of(cwd)
            .map(|p| Excluded::Project(p.to_path_buf()))
    }

    /// The glob (as written) that excludes `path`, if any: `path` itself or a parent directory
    /// matches.
    pub fn path_glob_of(&self, path: &Path) -> Option<&str> {
        if self.paths.is_empty() {
            return None;
        }
        let path = normalize(path);
        for dir in path.ancestors() {
            if dir.as_os_str().is_empty() || dir == Path::new("/") {
                break;
            }
            for g in &self.paths {
                let hit = if g.name_only {
                    dir.file_name().is_some_and(|n| g.matcher.is_match(n))
                } else {
                    g.matcher.is_match(dir)
                };
                if hit {
                    return Some(&g.written);
                }
            }
        }
        None
    }

    /// The excluded project that contains working directory `cwd`, if any.
    pub fn project_of(&self, cwd: &str) -> Option<&Path> {
        if self.projects.is_empty() || cwd.is_empty() {
            return None;
        }
        let cwd = normalize(Path::new(cwd));
        self.projects
            .iter()
            .find(|p| cwd.starts_with(p))
            .map(PathBuf::as_path)
    }

    /// Splits `files` into kept and excluded (with the reason), from discovery data only.
    pub fn partition(
        &self,
        files: Vec<SourceFile>,
    ) -> (Vec<SourceFile>, Vec<(SourceFile, Excluded)>) {
        // Nothing to decide per path (the common case): the files stay where they are,
        // instead of every one being moved into a new vector (20,000 pi files: 3 % of a
        // no-watcher `list`).
        if self.paths.is_empty()
            && self.projects.is_empty()
            && !files.iter().any(|f| self.excludes_provider(f.provider))
        {
            return (files, Vec::new());
        }
        let mut kept = Vec::with_capacity(files.len());
        let mut out = Vec::new();
        for f in files {
            match self.check(&f) {
                Some(why) => out.push((f, why)),
                None => kept.push(f),
            }
        }
        (kept, out)
    }

    /// What is excluded, for display.
    pub fn summary(&self) -> ExclusionsSummary {
        ExclusionsSummary {
            config_file: self.config_file.clone(),
            providers: self.providers.clone(),
            paths: self.paths.iter().map(|p| p.written.clone()).collect(),
            projects: self.projects.clone(),
        }
    }
}

/// [`crate::discover_all`] with exclusions: excluded providers are not asked to discover at
/// all, and excluded files are dropped before anything is opened. A provider whose discovery
/// panics yields an empty discovery with that panic as a warning, and the others go on. Project exclusions of files
/// without a `cwd_hint` remain for the caller (see [`Exclusions::project_of`]).
pub fn discover_excluding(
    sources: &[Box<dyn Source>],
    env: &Env,
    only: &[ProviderId],
    exclusions: &Exclusions,
) -> Vec<ProviderDiscovery> {
    sources
        .iter()
        .filter(|s| only.is_empty() || only.contains(&s.id()))
        .filter(|s| !exclusions.excludes_provider(s.id()))
        .map(|s| {
            // A provider whose discovery panics (a bug) must not take the others down: its
            // roots are still listed, with the panic as a warning.
            let mut discovery = guard::catch(|| s.discover(env)).unwrap_or_else(|text| Discovery {
                roots: guard::catch(|| s.roots(env)).unwrap_or_default(),
                files: Vec::new(),
                warnings: vec![Warning::new(
                    WarningKind::Other,
                    format!("{} discovery panicked (a bug in scry): {}", s.id(), text),
                )],
            });
            let files = std::mem::take(&mut discovery.files);
            discovery.files = exclusions.partition(files).0;
            ProviderDiscovery {
                provider: s.id(),
                discovery,
            }
        })
        .collect()
}

/// `~` or `~/…` → the home directory.
fn expand_home(s: &str, env: &Env) -> String {
    if s == "~" {
        return env.home().display().to_string();
    }
    match s.strip_prefix("~/") {
        Some(rest) => env.home().join(rest).display().to_string(),
        None => s.to_string(),
    }
}

/// Lexical clean-up: drops `.` components and trailing slashes, resolves `..` textually.
/// Never touches the file system (excluded paths must not be opened or stat'ed).
fn normalize(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env() -> Env {
        Env::with_home("/home/me")
    }

    fn file(p: ProviderId, path: &str, cwd: Option<&str>) -> SourceFile {
        let mut f = SourceFile::new(p, "x", path);
        f.cwd_hint = cwd.map(String::from);
        f
    }

    #[test]
    fn glob_forms() {
        let mut ex = Exclusions::new();
        ex.exclude_path("**/tmp/**", &env()).unwrap();
        ex.exclude_path("*.zst", &env()).unwrap();
        ex.exclude_path("projects/-home-me-scratch", &env())
            .unwrap();
        ex.exclude_path("~/.codex/archived_sessions", &env())
            .unwrap();
        let hit = |p: &str| ex.path_glob_of(Path::new(p)).map(String::from);
        assert_eq!(hit("/a/tmp/b/s.jsonl").as_deref(), Some("**/tmp/**"));
        assert_eq!(hit("/a/b/s.jsonl.zst").as_deref(), Some("*.zst"));
        assert_eq!(
            hit("/home/me/.claude/projects/-home-me-scratch/s.jsonl").as_deref(),
            Some("projects/-home-me-scratch")
        );
        assert_eq!(
            hit("/home/me/.codex/archived_sessions/2026/rollout-1.jsonl").as_deref(),
            Some("~/.codex/archived_sessions")
        );
        assert_eq!(hit("/a/tmpx/s.jsonl"), None);
        assert_eq!(
            hit("/home/me/.claude/projects/-home-me-scratch2/s.jsonl"),
            None
        );
        assert_eq!(hit("/home/me/.codex/sessions/2026/rollout-1.jsonl"), None);
    }

    #[test]
    fn star_stays_in_one_component() {
        let mut ex = Exclusions::new();
        ex.exclude_path("/data/*.jsonl", &env()).unwrap();
        assert!(ex.path_glob_of(Path::new("/data/a.jsonl")).is_some());
        assert!(ex.path_glob_of(Path::new("/data/sub/a.jsonl")).is_none());
    }

    #[test]
    fn projects_are_subtrees() {
        let mut ex = Exclusions::new();
        ex.exclude_project("~/scratch/", &env()).unwrap();
        assert!(ex.project_of("/home/me/scratch").is_some());
        assert!(ex.project_of("/home/me/scratch/a/b").is_some());
        assert!(ex.project_of("/home/me/scratch/./a/../b").is_some());
        assert!(ex.project_of("/home/me/scratchpad").is_none());
        assert!(ex.project_of("").is_none());
        let err = ex.exclude_project("rel/dir", &env()).unwrap_err();
        assert_eq!(
            err,
            "project 'rel/dir' is not an absolute path (write it from / or ~/)"
        );
    }

    #[test]
    fn check_order_and_reasons() {
        let mut ex = Exclusions::new();
        ex.exclude_provider("Cursor").unwrap();
        ex.exclude_path("**/junk/**", &env()).unwrap();
        ex.exclude_project("/w/scratch", &env()).unwrap();
        assert_eq!(
            ex.check(&file(ProviderId::Cursor, "/x/a.jsonl", None)),
            Some(Excluded::Provider(ProviderId::Cursor))
        );
        assert_eq!(
            ex.check(&file(ProviderId::Claude, "/x/junk/a.jsonl", None)),
            Some(Excluded::Path("**/junk/**".into()))
        );
        assert_eq!(
            ex.check(&file(ProviderId::Grok, "/x/a", Some("/w/scratch/p"))),
            Some(Excluded::Project("/w/scratch".into()))
        );
        assert_eq!(
            ex.check(&file(ProviderId::Grok, "/x/a", Some("/w/other"))),
            None
        );
        assert_eq!(
            ex.check(&file(ProviderId::Claude, "/x/a.jsonl", None)),
            None
        );
    }

    #[test]
    fn bad_values_are_named() {
        let mut ex = Exclusions::new();
        let e = ex.exclude_provider("curosr").unwrap_err();
        assert!(
            e.starts_with("unknown provider 'curosr' (known: claude, codex,"),
            "{e}"
        );
        let e = ex.exclude_path("a/{b", &env()).unwrap_err();
        assert!(e.starts_with("invalid path glob 'a/{b': "), "{e}");
        assert!(ex.exclude_path("  ", &env()).is_err());
        assert!(ex.is_empty());
    }
}
