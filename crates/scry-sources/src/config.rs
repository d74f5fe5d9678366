//! The user's config file: `$XDG_CONFIG_HOME/scry/config.toml`, else `~/.config/scry/config.toml`
//! (from [`Env::config_home`]). Today it holds the source exclusions (see [`crate::exclude`]):
//!
//! ```toml
//! [exclude]
//! providers = ["cursor"]          # provider ids
//! paths = ["**/tmp/**"]           # path globs
//! projects = ["~/scratch"]        # working-directory subtrees
//!
//! [aider]
//! roots = ["~/src"]               # subtrees searched for `.aider.chat.history.md`
//! ```
//!
//! `[aider] roots` ([`project_dirs`]) tells discovery where Aider's project-local chat
//! histories are, beside the directory scry runs in.
//!
//! A missing file is no configuration. A file that cannot be read, is not valid TOML, has an
//! unknown key or a bad value is a [`ConfigError`] naming the file, the line and column, the key
//! and the offending value — never a panic, never silently ignored (a typo such as `provider =`
//! must not quietly leave a poison source in).

use std::collections::BTreeMap;
use std::ops::Range;
use std::path::{Path, PathBuf};

use scry_source::Env;
use serde::Deserialize;
use toml::Spanned;

use crate::Exclusions;

/// Why the configuration (file or flags) could not be used.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file exists but could not be read (permissions, a directory, not UTF-8).
    #[error("cannot read config file {}: {source}", path.display())]
    Read {
        /// The config file.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// The file is not valid TOML, has an unknown key, or a value is wrong.
    #[error("{}:{line}:{column}: {}{message}", path.display(), key.as_deref().map(|k| format!("key '{k}': ")).unwrap_or_default())]
    Invalid {
        /// The config file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// 1-based column (in characters).
        column: usize,
        /// The dotted key (`exclude.providers`), when known.
        key: Option<String>,
        /// What is wrong, naming the offending value.
        message: String,
    },
    /// A command-line flag's value is wrong.
    #[error("{flag}: {message}")]
    Flag {
        /// The flag (`--exclude-provider`).
        flag: &'static str,
        /// What is wrong, naming the offending value.
        message: String,
    },
}

/// Where the config file is looked for in `env`.
pub fn config_path(env: &Env) -> PathBuf {
    env.config_home().join("scry").join("config.toml")
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawConfig {
    #[serde(default)]
    exclude: RawExclude,
    #[serde(default)]
    aider: RawAider,
    #[serde(default)]
    pricing: BTreeMap<String, PriceOverride>,
}

/// A custom model price of the config file, USD per million tokens (`scry usage`):
///
/// ```toml
/// [pricing."my-model"]
/// input = 3.0
/// output = 15.0
/// cache_read = 0.3     # default: input
/// cache_write = 3.75   # default: input
/// cache_write_1h = 6.0 # default: cache_write
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct PriceOverride {
    /// Input, per million tokens.
    pub input: f64,
    /// Output (reasoning included), per million tokens.
    pub output: f64,
    /// Cache read, per million tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_read: Option<f64>,
    /// Cache write (5-minute), per million tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_write: Option<f64>,
    /// 1-hour cache write, per million tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_write_1h: Option<f64>,
}

/// The effective `[pricing."<model>"]` overrides of the config file at [`config_path`] (model
/// names as written); a missing file gives none. Errors as [`load`] gives them, plus a negative
/// or non-finite price.
pub fn pricing(env: &Env) -> Result<BTreeMap<String, PriceOverride>, ConfigError> {
    let path = config_path(env);
    match std::fs::read_to_string(&path) {
        Ok(text) => parse_pricing(&text, &path),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(BTreeMap::new()),
        Err(source) => Err(ConfigError::Read { path, source }),
    }
}

/// Parses the `[pricing]` tables of config `text` (read from `path`, used in errors).
pub fn parse_pricing(
    text: &str,
    path: &Path,
) -> Result<BTreeMap<String, PriceOverride>, ConfigError> {
    let raw: RawConfig = toml::from_str(text).map_err(|e| {
        let span = e.span().unwrap_or(0..0);
        let message = e.message().lines().next().unwrap_or("").trim().to_string();
        invalid(text, path, span.clone(), key_at(text, span.start), message)
    })?;
    for (model, p) in &raw.pricing {
        let values = [
            Some(p.input),
            Some(p.output),
            p.cache_read,
            p.cache_write,
            p.cache_write_1h,
        ];
        if let Some(v) = values
            .into_iter()
            .flatten()
            .find(|v| !v.is_finite() || *v < 0.0)
        {
            let at = text.find(model.as_str()).unwrap_or(0);
            return Err(invalid(
                text,
                path,
                at..at,
                Some(format!("pricing.\"{model}\"")),
                format!("price {v} is not a non-negative number of USD per million tokens"),
            ));
        }
    }
    Ok(raw.pricing)
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawAider {
    #[serde(default)]
    roots: Vec<Spanned<String>>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawExclude {
    #[serde(default)]
    providers: Vec<Spanned<String>>,
    #[serde(default)]
    paths: Vec<Spanned<String>>,
    #[serde(default)]
    projects: Vec<Spanned<String>>,
}

/// Reads the exclusions of the config file at [`config_path`]; a missing file gives none.
pub fn load(env: &Env) -> Result<Exclusions, ConfigError> {
    let path = config_path(env);
    match std::fs::read_to_string(&path) {
        Ok(text) => parse(&text, &path, env),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Exclusions::new()),
        Err(source) => Err(ConfigError::Read { path, source }),
    }
}

/// The `[aider] roots` of the config file at [`config_path`] (`~` expanded); a missing file
/// gives none. Errors as [`load`] gives them, plus a root that is not absolute.
pub fn project_dirs(env: &Env) -> Result<Vec<PathBuf>, ConfigError> {
    let path = config_path(env);
    match std::fs::read_to_string(&path) {
        Ok(text) => parse_project_dirs(&text, &path, env),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
        Err(source) => Err(ConfigError::Read { path, source }),
    }
}

/// Parses the `[aider] roots` of config `text` (read from `path`, used in errors).
pub fn parse_project_dirs(text: &str, path: &Path, env: &Env) -> Result<Vec<PathBuf>, ConfigError> {
    let raw: RawConfig = toml::from_str(text).map_err(|e| {
        let span = e.span().unwrap_or(0..0);
        let message = e.message().lines().next().unwrap_or("").trim().to_string();
        invalid(text, path, span.clone(), key_at(text, span.start), message)
    })?;
    let mut dirs = Vec::new();
    for v in &raw.aider.roots {
        let written = v.get_ref().trim();
        let expanded = match written.strip_prefix('~') {
            Some("") => env.home().to_path_buf(),
            Some(rest) if rest.starts_with('/') => env.home().join(&rest[1..]),
            _ => PathBuf::from(written),
        };
        if !expanded.is_absolute() {
            return Err(invalid(
                text,
                path,
                v.span(),
                Some("aider.roots".into()),
                format!("root '{written}' is not an absolute path (write it from / or ~/)"),
            ));
        }
        dirs.push(expanded);
    }
    Ok(dirs)
}

/// Parses config `text` (read from `path`, used in errors) into exclusions.
pub fn parse(text: &str, path: &Path, env: &Env) -> Result<Exclusions, ConfigError> {
    let raw: RawConfig = toml::from_str(text).map_err(|e| {
        let span = e.span().unwrap_or(0..0);
        let message = e.message().lines().next().unwrap_or("").trim().to_string();
        invalid(text, path, span.clone(), key_at(text, span.start), message)
    })?;
    let mut ex = Exclusions::new();
    let at = |v: &Spanned<String>, key: &str, message: String| {
        invalid(text, path, v.span(), Some(key.to_string()), message)
    };
    for v in &raw.exclude.providers {
        ex.exclude_provider(v.get_ref())
            .map_err(|m| at(v, "exclude.providers", m))?;
    }
    for v in &raw.exclude.paths {
        ex.exclude_path(v.get_ref(), env)
            .map_err(|m| at(v, "exclude.paths", m))?;
    }
    for v in &raw.exclude.projects {
        ex.exclude_project(v.get_ref(), env)
            .map_err(|m| at(v, "exclude.projects", m))?;
    }
    ex.set_config_file(Some(path.to_path_buf()));
    Ok(ex)
}

fn invalid(
    text: &str,
    path: &Path,
    span: Range<usize>,
    key: Option<String>,
    message: String,
) -> ConfigError {
    let (line, column) = line_col(text, span.start);
    ConfigError::Invalid {
        path: path.to_path_buf(),
        line,
        column,
        key,
        message,
    }
}

/// 1-based line and column (in characters) of byte `offset`.
fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = text.get(..offset).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = before.get(line_start..).map_or(0, |s| s.chars().count()) + 1;
    (line, column)
}

/// The dotted key a TOML error at byte `offset` belongs to, read from the text: the nearest
/// `key =` at or above that line (a multi-line array's value sits below its key) inside the
/// nearest `[table]` header above it, or that header itself.
fn key_at(text: &str, offset: usize) -> Option<String> {
    let (line, _) = line_col(text, offset);
    let lines: Vec<&str> = text.lines().take(line).collect();
    let mut key: Option<String> = None;
    for l in lines.iter().rev() {
        let t = l.trim();
        if let Some(h) = t.strip_prefix('[') {
            let table = h
                .trim_start_matches('[')
                .split(']')
                .next()
                .unwrap_or("")
                .trim();
            return Some(match key {
                Some(k) if !table.is_empty() => format!("{table}.{k}"),
                Some(k) => k,
                None => table.to_string(),
            });
        }
        if key.is_none() {
            if let Some((k, _)) = t.split_once('=') {
                let k = k.trim().trim_matches('"');
                if !k.is_empty() && !k.starts_with('#') && !k.contains(' ') {
                    key = Some(k.to_string());
                }
            }
        }
    }
    key
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_err(text: &str) -> String {
        let env = Env::with_home("/home/me");
        parse(text, Path::new("/c/config.toml"), &env)
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn full_file() {
        let env = Env::with_home("/home/me");
        let text = "# mine\n[exclude]\nproviders = [\"cursor\", \"grok\"]\npaths = [\"**/tmp/**\"]\nprojects = [\"~/scratch\"]\n";
        let ex = parse(text, Path::new("/c/config.toml"), &env).unwrap();
        let s = ex.summary();
        assert_eq!(s.config_file, Some(PathBuf::from("/c/config.toml")));
        assert_eq!(
            s.providers,
            vec![scry_model::ProviderId::Cursor, scry_model::ProviderId::Grok]
        );
        assert_eq!(s.paths, vec!["**/tmp/**".to_string()]);
        assert_eq!(s.projects, vec![PathBuf::from("/home/me/scratch")]);
        assert!(parse("", Path::new("/c"), &env).unwrap().is_empty());
        assert!(parse("[exclude]\n", Path::new("/c"), &env)
            .unwrap()
            .is_empty());
    }

    #[test]
    fn errors_name_line_and_key() {
        assert_eq!(
            parse_err("[exclude]\nprovider = [\"cursor\"]\n"),
            "/c/config.toml:2:1: key 'exclude.provider': unknown field `provider`, expected one of `providers`, `paths`, `projects`"
        );
        assert_eq!(
            parse_err("[exclude]\nproviders = \"cursor\"\n"),
            "/c/config.toml:2:13: key 'exclude.providers': invalid type: string \"cursor\", expected a sequence"
        );
        assert_eq!(
            parse_err("[exclude]\npaths = [\n  \"a\",\n  5,\n]\n"),
            "/c/config.toml:4:3: key 'exclude.paths': invalid type: integer `5`, expected a string"
        );
        assert_eq!(
            parse_err("[exclude]\nproviders = [\"claude\", \"curosr\"]\n"),
            format!(
                "/c/config.toml:2:24: key 'exclude.providers': unknown provider 'curosr' (known: {})",
                scry_model::ProviderId::ALL.map(|p| p.as_str()).join(", ")
            )
        );
        assert_eq!(
            parse_err("[exclude]\nprojects = [\"scratch\"]\n"),
            "/c/config.toml:2:13: key 'exclude.projects': project 'scratch' is not an absolute path (write it from / or ~/)"
        );
        assert_eq!(
            parse_err("[excludes]\n"),
            "/c/config.toml:1:2: key 'excludes': unknown field `excludes`, expected one of `exclude`, `aider`, `pricing`"
        );
        // `[pricing."<model>"]` (scry usage): known keys only, non-negative prices.
        let p = Path::new("/c/config.toml");
        let ok = parse_pricing(
            "[pricing.\"m-1\"]\ninput = 3\noutput = 15.0\ncache_write_1h = 6\n",
            p,
        )
        .expect("valid pricing");
        assert_eq!(ok["m-1"].input, 3.0);
        assert_eq!(ok["m-1"].cache_write_1h, Some(6.0));
        assert_eq!(ok["m-1"].cache_read, None);
        let e = parse_pricing("[pricing.m]\ninput = 1\noutput = 1\ncache = 2\n", p)
            .unwrap_err()
            .to_string();
        assert!(e.contains("unknown field `cache`"), "{e}");
        let e = parse_pricing("[pricing.m]\ninput = 1\noutput = -2\n", p)
            .unwrap_err()
            .to_string();
        assert!(e.contains("pricing.\"m\"") && e.contains("-2"), "{e}");
        let e = parse_err("[exclude\nproviders = []\n");
        assert!(e.starts_with("/c/config.toml:1:"), "{e}");
        let e = parse_err("[exclude]\npaths = [\"a/[b\"]\n");
        assert!(
            e.starts_with("/c/config.toml:2:10: key 'exclude.paths': invalid path glob 'a/[b': "),
            "{e}"
        );
    }

    #[test]
    fn aider_roots() {
        let env = Env::with_home("/home/me");
        let p = Path::new("/c/config.toml");
        let text = "[aider]\nroots = [\"~/src\", \"/srv/work\", \"~\"]\n";
        assert_eq!(
            parse_project_dirs(text, p, &env).unwrap(),
            vec![
                PathBuf::from("/home/me/src"),
                PathBuf::from("/srv/work"),
                PathBuf::from("/home/me")
            ]
        );
        // The exclusions of the same file still parse.
        assert!(parse(text, p, &env).unwrap().is_empty());
        assert!(parse_project_dirs("", p, &env).unwrap().is_empty());
        let e = parse_project_dirs("[aider]\nroots = [\"src\"]\n", p, &env)
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "/c/config.toml:2:10: key 'aider.roots': root 'src' is not an absolute path (write it from / or ~/)"
        );
        let e = parse_project_dirs("[aider]\nroot = []\n", p, &env)
            .unwrap_err()
            .to_string();
        assert!(e.contains("key 'aider.root': unknown field `root`"), "{e}");
    }

    #[test]
    fn line_col_counts_chars() {
        assert_eq!(line_col("ab\ncé=x", 7), (2, 4));
        assert_eq!(line_col("", 5), (1, 1));
    }
}
