//! The environment a provider may consult: the home directory and environment variables.
//!
//! Providers never read the process environment themselves; the binary builds an [`Env`] once
//! (or a test builds one pointing at a corpus) and passes it down.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Home directory plus a snapshot of environment variables.
#[derive(Debug, Clone, Default)]
pub struct Env {
    home: PathBuf,
    vars: BTreeMap<String, String>,
    cwd: Option<PathBuf>,
    scope: Option<PathBuf>,
    project_dirs: Vec<PathBuf>,
}

impl Env {
    /// An environment with `home` and no variables.
    pub fn with_home(home: impl Into<PathBuf>) -> Self {
        Env {
            home: home.into(),
            vars: BTreeMap::new(),
            cwd: None,
            scope: None,
            project_dirs: Vec::new(),
        }
    }

    /// The current process's environment (`HOME`, every variable and the current directory).
    /// `HOME` is kept byte for
    /// byte even when it is not UTF-8; other variables whose name or value is not UTF-8 are
    /// left out (`std::env::vars` would panic on them).
    pub fn from_process() -> Self {
        let mut home = None;
        let mut vars = BTreeMap::new();
        for (k, v) in std::env::vars_os() {
            if k == "HOME" {
                home = Some(PathBuf::from(&v));
            }
            if let (Ok(k), Ok(v)) = (k.into_string(), v.into_string()) {
                vars.insert(k, v);
            }
        }
        let home = home.unwrap_or_else(|| PathBuf::from("/"));
        Env {
            home,
            vars,
            cwd: std::env::current_dir().ok(),
            scope: None,
            project_dirs: Vec::new(),
        }
    }

    /// Adds or replaces a variable (builder style).
    pub fn var_set(mut self, key: &str, value: impl Into<String>) -> Self {
        self.vars.insert(key.to_string(), value.into());
        self
    }

    /// Sets the directory scry runs in (builder style); see [`Env::cwd`].
    pub fn with_cwd(mut self, dir: impl Into<PathBuf>) -> Self {
        self.cwd = Some(dir.into());
        self
    }

    /// Forgets the directory scry runs in and the command's scope (builder style): for what
    /// must not depend on them, such as a watcher started in one directory serving commands run
    /// in others.
    pub fn without_cwd(mut self) -> Self {
        self.cwd = None;
        self.scope = None;
        self
    }

    /// Sets the directory subtree the command was asked about (`--scope <dir>`, builder style);
    /// see [`Env::scope`].
    pub fn with_scope(mut self, dir: impl Into<PathBuf>) -> Self {
        self.scope = Some(dir.into());
        self
    }

    /// The directory a command's `--scope` names, when it names one: providers whose sessions
    /// live inside project directories (Aider) look in its subtree as they do in [`Env::cwd`]'s.
    pub fn scope(&self) -> Option<&Path> {
        self.scope.as_deref()
    }

    /// Adds directories configured as holding project-local agent files (builder style); see
    /// [`Env::project_dirs`].
    pub fn with_project_dirs(mut self, dirs: impl IntoIterator<Item = PathBuf>) -> Self {
        self.project_dirs.extend(dirs);
        self
    }

    /// The directory scry runs in, when known: providers whose sessions live inside project
    /// directories rather than under HOME (Aider) look in its subtree. `None` for a built
    /// environment (tests, the demo) unless set with [`Env::with_cwd`].
    pub fn cwd(&self) -> Option<&Path> {
        self.cwd.as_deref()
    }

    /// Extra directories (from the config file) whose subtrees hold project-local agent files.
    pub fn project_dirs(&self) -> &[PathBuf] {
        &self.project_dirs
    }

    /// The home directory.
    pub fn home(&self) -> &Path {
        &self.home
    }

    /// A variable's value; empty values count as unset.
    pub fn var(&self, key: &str) -> Option<&str> {
        self.vars
            .get(key)
            .map(String::as_str)
            .filter(|v| !v.is_empty())
    }

    /// `$XDG_DATA_HOME` or `~/.local/share`.
    pub fn data_home(&self) -> PathBuf {
        self.var("XDG_DATA_HOME")
            .map(PathBuf::from)
            .unwrap_or_else(|| self.home.join(".local/share"))
    }

    /// `$XDG_CONFIG_HOME` or `~/.config`.
    pub fn config_home(&self) -> PathBuf {
        self.var("XDG_CONFIG_HOME")
            .map(PathBuf::from)
            .unwrap_or_else(|| self.home.join(".config"))
    }
}
