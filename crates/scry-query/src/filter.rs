//! Session-level filters of `list` (S-C1): scope subtree, providers, time window, kind — parsed
//! from flags with errors that name the offending value.

use std::path::{Component, Path, PathBuf};

use scry_model::{ErrorCode, Header, ProviderId, SessionKind, Timestamp};

use crate::error::{QueryError, QueryResult};

/// Which sessions' working directories are in view.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Scope {
    /// Every session.
    Global,
    /// Sessions whose cwd is one of these directories or below (the path as given and its
    /// canonical form).
    Under(Vec<String>),
}

impl Scope {
    /// Parses `--scope` / `--global`. `cwd` resolves relative paths and the `cwd` keyword;
    /// `must_exist` refuses a path that is not a directory on this machine.
    pub fn parse(
        value: Option<&str>,
        global: bool,
        cwd: &Path,
        default_global: bool,
        must_exist: bool,
    ) -> QueryResult<Scope> {
        if global {
            return Ok(Scope::Global);
        }
        let value = match value {
            Some(v) => v,
            None if default_global => return Ok(Scope::Global),
            None => "cwd",
        };
        let path = match value {
            "global" | "/" => return Ok(Scope::Global),
            "cwd" | "." => cwd.to_path_buf(),
            v => clean(&cwd.join(v)),
        };
        if must_exist && !path.is_dir() {
            return Err(QueryError::usage(
                ErrorCode::InvalidFilter,
                format!("scope '{value}' is not an existing directory"),
            ));
        }
        let mut forms = vec![strip_slash(&path.to_string_lossy())];
        if let Ok(canon) = path.canonicalize() {
            let c = strip_slash(&canon.to_string_lossy());
            if !forms.contains(&c) {
                forms.push(c);
            }
        }
        if forms.iter().any(|f| f.is_empty()) {
            return Ok(Scope::Global);
        }
        Ok(Scope::Under(forms))
    }

    /// Whether a session with working directory `cwd` is in scope.
    pub fn contains(&self, cwd: Option<&str>) -> bool {
        match self {
            Scope::Global => true,
            Scope::Under(roots) => cwd.is_some_and(|c| {
                let c = strip_slash(c);
                roots.iter().any(|r| {
                    c == *r || (c.starts_with(r.as_str()) && c[r.len()..].starts_with('/'))
                })
            }),
        }
    }
}

fn strip_slash(s: &str) -> String {
    s.trim_end_matches('/').to_string()
}

/// Removes `.` and resolves `..` lexically.
fn clean(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// Parses `--provider a,b`.
pub fn providers(value: Option<&str>) -> QueryResult<Vec<ProviderId>> {
    let Some(value) = value else {
        return Ok(Vec::new());
    };
    value
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| {
            s.parse::<ProviderId>()
                .map_err(|e| QueryError::usage(ErrorCode::InvalidFilter, e.to_string()))
        })
        .collect()
}

/// Parses `--since 30m|24h|7d|2w|ISO date|ISO time` relative to `now`.
pub fn since(value: &str, now: Timestamp) -> QueryResult<Timestamp> {
    let v = value.trim();
    let bad = || {
        QueryError::usage(
            ErrorCode::InvalidWindow,
            format!(
                "invalid --since '{value}': use a duration like 30m, 24h, 7d, 2w or an ISO date"
            ),
        )
    };
    if let Some((num, unit)) = v
        .char_indices()
        .last()
        .filter(|(_, c)| c.is_ascii_alphabetic())
        .map(|(i, c)| (&v[..i], c))
    {
        if let Ok(n) = num.parse::<i64>() {
            let secs = match unit {
                's' => 1,
                'm' => 60,
                'h' => 3600,
                'd' => 86_400,
                'w' => 7 * 86_400,
                _ => return Err(bad()),
            };
            let span = jiff::SignedDuration::from_secs(n.checked_mul(secs).ok_or_else(bad)?);
            if n < 0 {
                return Err(bad());
            }
            return now.checked_sub(span).map_err(|_| bad());
        }
    }
    if let Ok(date) = v.parse::<jiff::civil::Date>() {
        return date
            .to_zoned(jiff::tz::TimeZone::UTC)
            .map(|z| z.timestamp())
            .map_err(|_| bad());
    }
    scry_source::time::parse_str(v)
        .filter(|_| v.contains('-'))
        .ok_or_else(bad)
}

/// `--kind`: which session kinds `list` shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum KindFilter {
    /// Main sessions only.
    Main,
    /// Subagent sessions only.
    Subagent,
    /// Forks only.
    Fork,
    /// One-shot (exec) runs only.
    Exec,
    /// Everything, unfolded.
    All,
}

impl KindFilter {
    /// Whether a header passes (folding is handled separately).
    pub fn accepts(self, h: &Header) -> bool {
        match self {
            KindFilter::Main => h.kind == SessionKind::Main,
            KindFilter::Subagent => h.kind == SessionKind::Subagent,
            KindFilter::Fork => h.kind == SessionKind::Fork,
            KindFilter::Exec => h.kind == SessionKind::Exec,
            KindFilter::All => true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scope_is_a_subtree_not_a_prefix() {
        let s = Scope::Under(vec!["/home/a/proj".into()]);
        assert!(s.contains(Some("/home/a/proj")));
        assert!(s.contains(Some("/home/a/proj/sub/")));
        assert!(!s.contains(Some("/home/a/project")));
        assert!(!s.contains(None));
        assert!(Scope::Global.contains(None));
    }

    #[test]
    fn since_shapes() {
        let now: Timestamp = "2026-11-30T12:00:00Z".parse().unwrap();
        assert_eq!(
            since("24h", now).unwrap(),
            "2026-11-29T12:00:00Z".parse::<Timestamp>().unwrap()
        );
        assert_eq!(
            since("2026-11-01", now).unwrap(),
            "2026-11-01T00:00:00Z".parse::<Timestamp>().unwrap()
        );
        assert!(since("2026-11-30T10:00:00Z", now).is_ok());
        for bad in ["yesterday", "7x", "", "-3d", "12"] {
            assert!(since(bad, now).is_err(), "{bad}");
        }
    }
}
