//! Path resolution and grouping for the files ledger: project (under the session cwd; a `~/`
//! path counts when the cwd shows which home `~` is),
//! runtime (temp dirs, caches, home dotfiles, anything else outside the project, remote
//! hosts) and log (`*.log` files and anything under a `log/` or `logs/` directory).
//! Log wins over project, project over runtime, so every path gets exactly one group.

use serde::{Deserialize, Serialize};

/// The group of a written file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FileGroup {
    /// Under the session's working directory.
    Project,
    /// Temp files, caches, home dotfiles, other places outside the project, remote hosts.
    Runtime,
    /// Log files.
    Log,
}

impl FileGroup {
    /// Every group, in display order.
    pub const ALL: [FileGroup; 3] = [FileGroup::Project, FileGroup::Runtime, FileGroup::Log];

    /// The snake_case name.
    pub fn as_str(self) -> &'static str {
        match self {
            FileGroup::Project => "project",
            FileGroup::Runtime => "runtime",
            FileGroup::Log => "log",
        }
    }
}

/// Collapses `.` and `..` components lexically (never above the root).
pub fn normalize(path: &str) -> String {
    let abs = path.starts_with('/');
    let mut parts: Vec<&str> = Vec::new();
    for c in path.split('/') {
        match c {
            "" | "." => {}
            ".." => {
                if parts.last().is_some_and(|p| *p != ".." && *p != "~") {
                    parts.pop();
                } else if !abs {
                    parts.push("..");
                }
            }
            _ => parts.push(c),
        }
    }
    let joined = parts.join("/");
    if abs {
        format!("/{joined}")
    } else if joined.is_empty() {
        ".".to_string()
    } else {
        joined
    }
}

/// Resolves `path` against the command's directory `dir` (maybe relative) and the session
/// `cwd`. Absolute and `~` paths stay as they are (normalized); a relative path with no
/// absolute base stays relative.
pub fn resolve(path: &str, dir: Option<&str>, cwd: Option<&str>) -> String {
    if path.starts_with('/') || path.starts_with('~') {
        return normalize(path);
    }
    let base = match (dir, cwd) {
        (Some(d), _) if d.starts_with('/') || d.starts_with('~') => Some(d.to_string()),
        (Some(d), Some(c)) => Some(format!("{}/{}", c.trim_end_matches('/'), d)),
        (Some(d), None) => Some(d.to_string()),
        (None, Some(c)) => Some(c.to_string()),
        (None, None) => None,
    };
    match base {
        Some(b) => normalize(&format!("{}/{}", b.trim_end_matches('/'), path)),
        None => normalize(path),
    }
}

/// The group of a resolved `path` written on `host` (None = local) in a session at `cwd`.
pub fn group(path: &str, host: Option<&str>, cwd: Option<&str>) -> FileGroup {
    let name = path.rsplit('/').next().unwrap_or(path);
    let dirs: Vec<&str> = path.split('/').collect();
    let in_log_dir = dirs
        .iter()
        .take(dirs.len().saturating_sub(1))
        .any(|d| *d == "logs" || *d == "log");
    if name.to_ascii_lowercase().ends_with(".log") || in_log_dir {
        return FileGroup::Log;
    }
    if host.is_some() {
        return FileGroup::Runtime;
    }
    if under_project(path, cwd) {
        FileGroup::Project
    } else {
        FileGroup::Runtime
    }
}

/// True when `path` lies under `cwd` (a relative path that does not climb out counts as
/// under the project).
pub fn under_project(path: &str, cwd: Option<&str>) -> bool {
    if let Some(rest) = path.strip_prefix("~/") {
        // `~` is the home the cwd lies in (`/home/u`, `/Users/u`, `/root`), when it shows one.
        return match cwd.and_then(home_of) {
            Some(home) => under_project(&format!("{home}/{rest}"), cwd),
            None => false,
        };
    }
    if path.starts_with('~') {
        return false;
    }
    if !path.starts_with('/') {
        return !path.starts_with("..");
    }
    match cwd {
        Some(c) => {
            let c = normalize(c);
            let c = c.trim_end_matches('/');
            path == c || path.starts_with(&format!("{c}/"))
        }
        None => false,
    }
}

/// The home directory a path lies in, when its shape shows one: `/home/<user>`,
/// `/Users/<user>`, `/root`.
pub fn home_of(path: &str) -> Option<String> {
    let mut parts = path.split('/').skip(1);
    match (parts.next(), parts.next()) {
        (Some("root"), _) => Some("/root".to_string()),
        (Some(top @ ("home" | "Users")), Some(user)) if !user.is_empty() => {
            Some(format!("/{top}/{user}"))
        }
        _ => None,
    }
}

/// The path shown to people: relative to `cwd` for project files, `host:path` for remote ones.
pub fn display(path: &str, host: Option<&str>, cwd: Option<&str>) -> String {
    if let Some(h) = host {
        return format!("{h}:{path}");
    }
    if let Some(c) = cwd {
        let c = normalize(c);
        let c = c.trim_end_matches('/');
        if let Some(rest) = path.strip_prefix(&format!("{c}/")) {
            return rest.to_string();
        }
    }
    path.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolve_and_normalize() {
        assert_eq!(resolve("a/../b.txt", None, Some("/p")), "/p/b.txt");
        assert_eq!(
            resolve("build.log", Some("x"), Some("/p")),
            "/p/x/build.log"
        );
        assert_eq!(resolve("f.md", Some("/tmp"), Some("/p")), "/tmp/f.md");
        assert_eq!(resolve("~/.bashrc", None, Some("/p")), "~/.bashrc");
        assert_eq!(resolve("./f.md", None, None), "f.md");
        assert_eq!(normalize("/../a"), "/a");
    }

    #[test]
    fn groups() {
        let cwd = Some("/home/u/proj");
        assert_eq!(
            group("/home/u/proj/src/a.rs", None, cwd),
            FileGroup::Project
        );
        assert_eq!(group("/home/u/proj/build.log", None, cwd), FileGroup::Log);
        assert_eq!(group("/home/u/proj/logs/x.txt", None, cwd), FileGroup::Log);
        assert_eq!(group("/tmp/x.txt", None, cwd), FileGroup::Runtime);
        assert_eq!(group("~/.claude/plans/p.md", None, cwd), FileGroup::Runtime);
        assert_eq!(
            group("/home/u/projector/a.rs", None, cwd),
            FileGroup::Runtime
        );
        assert_eq!(
            group("/srv/app.conf", Some("web1"), cwd),
            FileGroup::Runtime
        );
        assert_eq!(group("rel.md", None, None), FileGroup::Project);
        assert_eq!(group("~/proj/src/b.rs", None, cwd), FileGroup::Project);
        assert_eq!(group("~/.bashrc", None, cwd), FileGroup::Runtime);
        assert_eq!(
            group("~/proj/a.rs", None, Some("/srv/x")),
            FileGroup::Runtime
        );
        assert_eq!(home_of("/Users/me/p").as_deref(), Some("/Users/me"));
        assert_eq!(display("/home/u/proj/src/a.rs", None, cwd), "src/a.rs");
        assert_eq!(display("/srv/a", Some("web1"), cwd), "web1:/srv/a");
    }
}
