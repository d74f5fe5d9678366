//! Finding Aider chat histories: bounded walks of the current directory's subtree and of the
//! configured project roots, plus `$AIDER_CHAT_HISTORY_FILE`; each history is split into one
//! [`SourceFile`] per launch (reading only the header lines).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use scry_model::{ProviderId, Warning, WarningKind};
use scry_source::{file_stat, Discovery, Env, Root, SourceFile};

use crate::parse;

/// The chat log Aider appends to in the project's git root.
pub const HISTORY_FILE: &str = ".aider.chat.history.md";

/// Aider's prompt history beside it (prompt_toolkit format).
pub const INPUT_HISTORY_FILE: &str = ".aider.input.history";

/// How deep below a root the walk goes (a root's own files are depth 0).
const MAX_DEPTH: usize = 5;

/// How many directories one discovery lists at most (running from `/` or a big HOME stays
/// quick; what lies beyond is found through a closer root).
const MAX_DIRS: usize = 5_000;

/// Directory names never entered: dependencies and build output (hidden ones are skipped too).
const SKIP: &[&str] = &[
    "node_modules",
    "target",
    "venv",
    "__pycache__",
    "site-packages",
];

/// The places Aider histories are looked for in `env`.
pub fn roots(env: &Env) -> Vec<Root> {
    let mut roots = Vec::new();
    if let Some(f) = env.var("AIDER_CHAT_HISTORY_FILE") {
        roots.push(Root::new(PathBuf::from(f), Some("AIDER_CHAT_HISTORY_FILE")));
    }
    if let Some(cwd) = env.cwd() {
        roots.push(Root::new(cwd.to_path_buf(), None));
    }
    if let Some(scope) = env.scope() {
        if env.cwd() != Some(scope) {
            roots.push(Root::new(scope.to_path_buf(), None));
        }
    }
    for d in env.project_dirs() {
        roots.push(Root::new(d.clone(), None));
    }
    roots
}

/// Every launch of every chat history under the roots of `env`.
pub fn discover(env: &Env) -> Discovery {
    let mut out = Discovery {
        roots: roots(env),
        ..Discovery::default()
    };
    let mut found: BTreeSet<PathBuf> = BTreeSet::new();
    let mut budget = MAX_DIRS;
    for root in out.roots.clone() {
        if !root.exists {
            continue;
        }
        if root.path.is_file() {
            found.insert(canonical(&root.path));
        } else {
            walk(&root.path, 0, &mut budget, &mut found, &mut out.warnings);
        }
    }
    for path in found {
        match sessions_of(&path) {
            Ok(files) => out.files.extend(files),
            Err(e) => out.warnings.push(Warning::at(
                WarningKind::Unreadable,
                format!("cannot read chat history: {e}"),
                &path,
                None,
            )),
        }
    }
    out
}

/// The launches of the chat histories directly in `dirs` (one stat of
/// `<dir>/.aider.chat.history.md` each, no walk): the project directories other agents'
/// sessions name as their working directory. Histories whose canonical path is in `known`
/// (already found by [`discover`]) are skipped; a directory without a history is silent.
pub fn in_dirs<'a>(
    dirs: impl IntoIterator<Item = &'a Path>,
    known: &BTreeSet<PathBuf>,
) -> Discovery {
    let mut out = Discovery::default();
    let mut found: BTreeSet<PathBuf> = BTreeSet::new();
    for dir in dirs {
        let path = dir.join(HISTORY_FILE);
        if !path.is_file() {
            continue;
        }
        let path = canonical(&path);
        if !known.contains(&path) {
            found.insert(path);
        }
    }
    for path in found {
        match sessions_of(&path) {
            Ok(files) => out.files.extend(files),
            Err(e) => out.warnings.push(Warning::at(
                WarningKind::Unreadable,
                format!("cannot read chat history: {e}"),
                &path,
                None,
            )),
        }
    }
    out
}

fn canonical(p: &Path) -> PathBuf {
    p.canonicalize().unwrap_or_else(|_| p.to_path_buf())
}

fn walk(
    dir: &Path,
    depth: usize,
    budget: &mut usize,
    found: &mut BTreeSet<PathBuf>,
    warnings: &mut Vec<Warning>,
) {
    if *budget == 0 {
        return;
    }
    *budget -= 1;
    let Ok(entries) = std::fs::read_dir(dir) else {
        if depth == 0 {
            warnings.push(Warning::at(
                WarningKind::Unreadable,
                "cannot list directory",
                dir,
                None,
            ));
        }
        return;
    };
    let mut subdirs = Vec::new();
    for e in entries.filter_map(Result::ok) {
        let name = e.file_name();
        let Ok(t) = e.file_type() else { continue };
        if name == HISTORY_FILE {
            if t.is_file() || (t.is_symlink() && e.path().is_file()) {
                found.insert(canonical(&e.path()));
            }
            continue;
        }
        // Real directories only: a link could lead out of the subtree or into a loop.
        if t.is_dir() && depth < MAX_DEPTH {
            let n = name.to_string_lossy();
            if !n.starts_with('.') && !SKIP.contains(&n.as_ref()) {
                subdirs.push(e.path());
            }
        }
    }
    subdirs.sort();
    for d in subdirs {
        walk(&d, depth + 1, budget, found, warnings);
    }
}

/// One [`SourceFile`] per launch of the chat history at `path` (reads the file, keeps only
/// where each `# aider chat started at` header is).
pub fn sessions_of(path: &Path) -> std::io::Result<Vec<SourceFile>> {
    let bytes = std::fs::read(path)?;
    let launches = parse::launches(&bytes);
    let stat = file_stat(path);
    let dir = path.parent().map(|d| d.to_string_lossy().into_owned());
    let input = path.with_file_name(INPUT_HISTORY_FILE);
    let ids = parse::launch_ids(path, &launches);
    Ok(ids
        .into_iter()
        .zip(&launches)
        .map(|(id, launch)| {
            let mut f = SourceFile::with_stat(ProviderId::Aider, id, path, stat);
            f.key = Some(parse::launch_key(launch));
            f.cwd_hint = dir.clone();
            if input.is_file() {
                f.related.push(input.clone());
            }
            f
        })
        .collect())
}
