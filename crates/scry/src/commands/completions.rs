//! `scry completions <shell>`: the shell's registration script for scry's completions, and the
//! dynamic completers it calls back into.
//!
//! The script is clap_complete's environment protocol (the same text `SCRY_COMPLETE=<shell> scry`
//! prints): on each TAB the shell runs `SCRY_COMPLETE=<shell> scry -- <words…>`, and `app::run` answers
//! with the candidates before parsing anything. Subcommands and flags come from the grammar
//! ([`crate::cli::command`]); session references come from the index ([`complete_session`]) and
//! provider options from the providers the index holds sessions of, with their counts (every
//! known provider when there is no index: [`complete_providers`]).
//!
//! Completing a session id reads the index read-only with one SQL prefix query on the indexed
//! `native` column: no refresh, no discovery, and no index is ever created by a completion (no
//! index file: no candidates).

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};
use clap_complete::engine::{CompletionCandidate, PathCompleter, ValueCompleter};
use clap_complete::env::EnvCompleter;
use rusqlite::{Connection, OpenFlags};
use scry_model::ProviderId;
use scry_source::Env;

use crate::ctx::Ctx;
use crate::error::CliResult;
use crate::output::Output;

/// The environment variable of clap_complete's protocol: scry's own name rather than the
/// default `COMPLETE`, so a stray `COMPLETE` in someone's environment cannot hijack every run.
pub const VAR: &str = "SCRY_COMPLETE";
/// Candidates offered for an empty word (the most recent sessions).
const RECENT: usize = 50;
/// Candidates offered for a prefix (in id order).
const MAX: usize = 200;

/// Arguments of `scry completions`.
#[derive(Debug, Args)]
#[command(
    after_help = "Enable them for every new shell (the script calls back into scry, \
so session ids complete from the index):\n  \
bash:        echo 'source <(scry completions bash)' >> ~/.bashrc\n  \
zsh:         echo 'source <(scry completions zsh)' >> ~/.zshrc\n  \
fish:        echo 'scry completions fish | source' >> ~/.config/fish/config.fish\n  \
elvish:      echo 'eval (scry completions elvish | slurp)' >> ~/.config/elvish/rc.elv\n  \
powershell:  Add-Content $PROFILE 'scry completions powershell | Out-String | Invoke-Expression'"
)]
pub struct CompletionsArgs {
    /// The shell to print the script for.
    #[arg(value_enum)]
    pub shell: Shell,
}

/// A shell scry can complete in.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum Shell {
    /// GNU bash.
    Bash,
    /// Z shell.
    Zsh,
    /// fish.
    Fish,
    /// PowerShell.
    Powershell,
    /// Elvish.
    Elvish,
}

/// Prints the registration script of `args.shell`.
pub fn run(_ctx: &Ctx, args: &CompletionsArgs) -> CliResult<Output> {
    let shell: &dyn EnvCompleter = match args.shell {
        Shell::Bash => &clap_complete::env::Bash,
        Shell::Zsh => &clap_complete::env::Zsh,
        Shell::Fish => &clap_complete::env::Fish,
        Shell::Powershell => &clap_complete::env::Powershell,
        Shell::Elvish => &clap_complete::env::Elvish,
    };
    let mut buf = Vec::new();
    shell.write_registration(VAR, "scry", "scry", &completer_path(), &mut buf)?;
    Ok(String::from_utf8_lossy(&buf).into_owned().into())
}

/// The program the script calls back: this binary as it was invoked (made absolute when it was
/// given as a relative path such as `./target/debug/scry`), as `COMPLETE=<shell> scry` does.
fn completer_path() -> String {
    let arg0 = std::env::args_os()
        .next()
        .unwrap_or_else(|| OsString::from("scry"));
    let path = PathBuf::from(arg0);
    let path = if path.components().count() > 1 && path.is_relative() {
        std::env::current_dir().map_or(path.clone(), |d| d.join(&path))
    } else {
        path
    };
    path.to_string_lossy().into_owned()
}

/// Completes a session reference: ids from the index starting with the word (`provider:id`
/// when the word starts with a provider and a colon), or file paths when the word looks like one.
pub fn complete_session(current: &OsStr) -> Vec<CompletionCandidate> {
    let Some(word) = current.to_str() else {
        return Vec::new();
    };
    if word.starts_with(['/', '.', '~']) || word.contains('/') {
        return PathCompleter::any().complete(current);
    }
    let Some(db) = index_path() else {
        return Vec::new();
    };
    session_candidates(&db, word).unwrap_or_default()
}

/// Completes a provider option, after the last comma of a list: the providers the index holds
/// sessions of (with their counts), or every known provider when there is no index.
pub fn complete_providers(current: &OsStr) -> Vec<CompletionCandidate> {
    provider_candidates(index_path().as_deref(), &current.to_string_lossy())
}

/// [`complete_providers`] over the index at `db` (`None`, or an index that cannot be read:
/// every known provider).
fn provider_candidates(db: Option<&Path>, word: &str) -> Vec<CompletionCandidate> {
    let (done, last) = match word.rfind(',') {
        Some(i) => (&word[..=i], &word[i + 1..]),
        None => ("", word),
    };
    let indexed = db.and_then(|db| indexed_providers(db).ok());
    let names: Vec<(String, Option<String>)> = match indexed {
        Some(counts) if !counts.is_empty() => counts
            .into_iter()
            .map(|(p, n)| {
                let help = format!("{n} session{}", if n == 1 { "" } else { "s" });
                (p, Some(help))
            })
            .collect(),
        _ => ProviderId::ALL
            .iter()
            .map(|p| (p.as_str().to_string(), None))
            .collect(),
    };
    names
        .into_iter()
        .filter(|(p, _)| p.starts_with(last))
        .map(|(p, help)| CompletionCandidate::new(format!("{done}{p}")).help(help.map(Into::into)))
        .collect()
}

/// The providers with sessions in the index at `db` (archived ones included: they read too),
/// and how many, by name.
fn indexed_providers(db: &Path) -> rusqlite::Result<Vec<(String, u64)>> {
    let conn = Connection::open_with_flags(
        db,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    let mut stmt = conn.prepare(
        // The covering recency index holds `provider`: a scan of it, not of the wide rows.
        "SELECT provider, count(*) FROM sessions INDEXED BY sessions_recent \
         GROUP BY provider ORDER BY provider",
    )?;
    let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
    rows.collect()
}

/// The index this completion reads: the demo's when the words being completed hold `--demo`
/// (and the demo was extracted already), else `SCRY_DB` or the platform data dir. `None` when
/// the file does not exist: a completion never creates an index.
fn index_path() -> Option<PathBuf> {
    let process = Env::from_process();
    let words: Vec<OsString> = std::env::args_os().skip(1).collect();
    let path = if words.iter().any(|w| w == "--demo") {
        crate::demo::extracted_index(&process)?
    } else {
        scry_store::default_db_path(&process)
    };
    path.is_file().then_some(path)
}

/// Sessions of the index at `db` whose id starts with `word` (the most recent ones for an empty
/// word), each with its provider and title as the description shells show beside it.
fn session_candidates(db: &Path, word: &str) -> rusqlite::Result<Vec<CompletionCandidate>> {
    let conn = Connection::open_with_flags(
        db,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    let (provider, prefix) = match word.split_once(':') {
        Some((p, rest)) if p.parse::<ProviderId>().is_ok() => (Some(p), rest),
        _ => (None, word),
    };
    let rows: Vec<(String, String, Option<String>)> = if prefix.is_empty() && provider.is_none() {
        let mut stmt = conn.prepare(
            "SELECT native, provider, title FROM sessions WHERE live = 1 \
             ORDER BY recency DESC LIMIT ?1",
        )?;
        let rows = stmt.query_map([RECENT as i64], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
        rows.collect::<rusqlite::Result<_>>()?
    } else {
        // A range on the indexed column instead of LIKE (which is case-insensitive and so
        // cannot use the index): every string with the prefix sorts in [prefix, prefix+U+10FFFF).
        let mut stmt = conn.prepare(
            "SELECT native, provider, title FROM sessions \
             WHERE native >= ?1 AND native < ?2 AND live = 1 AND (?3 IS NULL OR provider = ?3) \
             ORDER BY native LIMIT ?4",
        )?;
        let upper = format!("{prefix}\u{10FFFF}");
        let rows = stmt.query_map(
            rusqlite::params![prefix, upper, provider, MAX as i64],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )?;
        rows.collect::<rusqlite::Result<_>>()?
    };
    let mut seen = std::collections::HashSet::new();
    Ok(rows
        .into_iter()
        .filter_map(|(native, prov, title)| {
            let value = match provider {
                Some(p) => format!("{p}:{native}"),
                None => native,
            };
            seen.insert(value.clone()).then(|| {
                let help = match title.as_deref().map(str::trim).filter(|t| !t.is_empty()) {
                    Some(t) => format!("{prov}: {}", one_line(t)),
                    None => prov,
                };
                CompletionCandidate::new(value).help(Some(help.into()))
            })
        })
        .collect())
}

/// A title on one line of at most 60 characters (shells show descriptions beside the value).
fn one_line(title: &str) -> String {
    let flat: String = title.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() > 60 {
        let cut: String = flat.chars().take(59).collect();
        format!("{cut}…")
    } else {
        flat
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(c: &[CompletionCandidate]) -> Vec<String> {
        c.iter()
            .map(|c| c.get_value().to_string_lossy().into_owned())
            .collect()
    }

    #[test]
    fn providers_complete_after_the_last_comma() {
        assert_eq!(values(&provider_candidates(None, "cl")), ["claude"]);
        let v = values(&provider_candidates(None, "claude,co"));
        assert!(v.contains(&"claude,codex".to_string()), "{v:?}");
        assert!(v.iter().all(|s| s.starts_with("claude,co")), "{v:?}");
    }

    #[test]
    fn providers_complete_from_the_index_with_their_counts() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("index.db");
        let conn = Connection::open(&db).unwrap();
        conn.execute_batch(
            "CREATE TABLE sessions(native TEXT, provider TEXT, live INTEGER);
             CREATE INDEX sessions_recent ON sessions(provider);
             INSERT INTO sessions VALUES ('a', 'codex', 1), ('b', 'claude', 1),
               ('c', 'claude', 1), ('d', 'pi', 0);",
        )
        .unwrap();
        drop(conn);
        let c = provider_candidates(Some(&db), "");
        assert_eq!(values(&c), ["claude", "codex", "pi"]);
        assert_eq!(
            c[0].get_help().map(|h| h.to_string()).as_deref(),
            Some("2 sessions")
        );
        assert_eq!(
            values(&provider_candidates(Some(&db), "pi,c")),
            ["pi,claude", "pi,codex"]
        );
        // No such index: every known provider.
        let all = provider_candidates(Some(&dir.path().join("none.db")), "");
        assert_eq!(all.len(), ProviderId::ALL.len());
    }

    #[test]
    fn prefix_query_reads_ids_with_that_prefix_only() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("index.db");
        let conn = Connection::open(&db).unwrap();
        conn.execute_batch(
            "CREATE TABLE sessions(native TEXT, provider TEXT, title TEXT, live INTEGER, \
             recency INTEGER);
             INSERT INTO sessions VALUES ('abc123', 'claude', 'fix the\nbuild', 1, 3),
               ('abd999', 'codex', NULL, 1, 2), ('abc777', 'pi', 'gone', 0, 1),
               ('zzz', 'pi', '', 1, 4);",
        )
        .unwrap();
        drop(conn);
        let c = session_candidates(&db, "abc").unwrap();
        assert_eq!(values(&c), ["abc123"]);
        assert_eq!(
            c[0].get_help().map(|h| h.to_string()).as_deref(),
            Some("claude: fix the build")
        );
        assert_eq!(
            values(&session_candidates(&db, "ab").unwrap()),
            ["abc123", "abd999"]
        );
        assert_eq!(
            values(&session_candidates(&db, "codex:ab").unwrap()),
            ["codex:abd999"]
        );
        // An empty word offers the most recent sessions first.
        assert_eq!(
            values(&session_candidates(&db, "").unwrap()),
            ["zzz", "abc123", "abd999"]
        );
        assert!(session_candidates(&dir.path().join("none.db"), "a").is_err());
    }
}
