//! `scry skill install|status|uninstall [--agent a,b] [--copy] [--force] [--dry-run]` (S-A1):
//! one SKILL.md, shipped inside the binary (`assets/SKILL.md`), put into each agent's skills
//! directory as `<skills>/scry/SKILL.md`.
//!
//! Link mode (the default) writes the canonical copy once into scry's data directory
//! (`$XDG_DATA_HOME/scry/skill/scry/`) and symlinks each agent's `skills/scry` to it, so one
//! `scry skill install` after an upgrade refreshes every agent. `--copy` writes a real
//! directory instead (for agents or sandboxes that do not follow links).
//!
//! Ownership: a link to the canonical directory, or a `SKILL.md` carrying the
//! `scry-skill:` marker, is scry's; anything else at that path is a *foreign* file, which only
//! `--force` replaces (it is moved aside to `scry.bak…`, never deleted). `uninstall` removes
//! only what is scry's.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use clap::{Args, Subcommand};
use scry_model::ErrorCode;
use serde_json::{json, Value};

use crate::ctx::Ctx;
use crate::error::{CliError, CliResult};
use crate::output::Output;

/// The skill text, as shipped.
pub const SKILL_MD: &str = include_str!("../../assets/SKILL.md");
/// The line that marks a SKILL.md as scry's.
const MARKER: &str = "scry-skill:";

/// Arguments of `scry skill`.
#[derive(Debug, Args)]
pub struct SkillArgs {
    /// What to do
    #[command(subcommand)]
    pub action: SkillAction,
}

/// The `scry skill` actions.
#[derive(Debug, Subcommand)]
pub enum SkillAction {
    /// Link (or copy) SKILL.md into each installed agent's skills directory
    Install(SkillFlags),
    /// Show per agent: linked, copied, stale copy, foreign file, missing
    Status(SkillFlags),
    /// Remove what scry put there (never a foreign file)
    Uninstall(SkillFlags),
}

/// Flags every action takes.
#[derive(Debug, Args)]
pub struct SkillFlags {
    /// Only these agents (comma-separated: claude, codex, antigravity, grok, dsh, qwen, deepagents,
    /// deepagents:<name>); named agents are handled even when their home directory is absent
    #[arg(long, value_name = "A,B")]
    pub agent: Option<String>,
    /// Copy SKILL.md instead of linking to scry's canonical copy
    #[arg(long)]
    pub copy: bool,
    /// Replace a foreign file (it is moved aside to scry.bak…, never deleted)
    #[arg(long)]
    pub force: bool,
    /// Say what would be done, change nothing
    #[arg(long)]
    pub dry_run: bool,
}

/// One place a skill goes.
#[derive(Debug, Clone)]
struct Target {
    /// Agent name as `--agent` spells it.
    agent: String,
    /// The agent's home directory (its presence means "installed").
    home: PathBuf,
    /// `<skills>/scry`.
    path: PathBuf,
}

/// What is at a target path now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Linked,
    Copied,
    StaleCopy,
    StaleLink,
    Foreign,
    Missing,
}

impl State {
    fn as_str(self) -> &'static str {
        match self {
            State::Linked => "linked",
            State::Copied => "copied",
            State::StaleCopy => "stale copy",
            State::StaleLink => "stale link",
            State::Foreign => "foreign file",
            State::Missing => "missing",
        }
    }

    /// Whether scry put it there (and may replace or remove it).
    fn ours(self) -> bool {
        matches!(
            self,
            State::Linked | State::Copied | State::StaleCopy | State::StaleLink
        )
    }
}

/// Agents with a plain skills directory: (name, home relative to $HOME, skills dir relative
/// to the home).
const AGENTS: &[(&str, &str, &str)] = &[
    ("claude", ".claude", "skills"),
    ("codex", ".codex", "skills"),
    ("antigravity", ".gemini/antigravity", "skills"),
    ("grok", ".grok", "skills"),
    ("dsh", ".dsh", "skills"),
    // docs.github.com "Creating agent skills for Copilot CLI": personal skills in ~/.copilot/skills.
    ("copilot", ".copilot", "skills"),
    ("qwen", ".qwen", "skills"),
];

/// The canonical directory links point to.
fn canonical_dir(ctx: &Ctx) -> PathBuf {
    ctx.env.data_home().join("scry").join("skill").join("scry")
}

/// Every target, or the named ones; `named` says whether `--agent` chose them.
fn targets(ctx: &Ctx, agent: Option<&str>) -> CliResult<(Vec<Target>, bool)> {
    let home = ctx.env.home().to_path_buf();
    let mut all: Vec<Target> = AGENTS
        .iter()
        .map(|(name, h, skills)| Target {
            agent: (*name).to_string(),
            home: home.join(h),
            path: home.join(h).join(skills).join("scry"),
        })
        .collect();
    // Deep Agents: one skills directory per agent (`~/.deepagents/<agent>/skills`); the
    // default agent is `agent`.
    let da = home.join(".deepagents");
    let mut da_agents: Vec<String> = fs::read_dir(&da)
        .map(|rd| {
            rd.filter_map(Result::ok)
                .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
                .filter_map(|e| e.file_name().to_str().map(str::to_string))
                .filter(|n| !n.starts_with('.'))
                .collect()
        })
        .unwrap_or_default();
    da_agents.sort();
    if da_agents.is_empty() {
        da_agents.push("agent".into());
    }
    let da_target = |n: &str| Target {
        agent: format!("deepagents:{n}"),
        home: da.clone(),
        path: da.join(n).join("skills").join("scry"),
    };
    all.extend(da_agents.iter().map(|n| da_target(n)));
    let Some(list) = agent else {
        return Ok((all, false));
    };
    let mut chosen: Vec<Target> = Vec::new();
    for name in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let matched: Vec<Target> = if name == "deepagents" {
            all.iter()
                .filter(|t| t.agent.starts_with("deepagents:"))
                .cloned()
                .collect()
        } else if let Some(n) = name.strip_prefix("deepagents:") {
            if n.is_empty() || n.contains('/') || n.starts_with('.') {
                Vec::new()
            } else {
                vec![da_target(n)]
            }
        } else {
            all.iter().filter(|t| t.agent == name).cloned().collect()
        };
        if matched.is_empty() {
            return Err(CliError::usage(
                ErrorCode::InvalidFilter,
                format!(
                    "unknown agent {name:?} (known: claude, codex, antigravity, grok, dsh, qwen, deepagents, deepagents:<name>)"
                ),
            ));
        }
        for t in matched {
            if !chosen.iter().any(|c| c.path == t.path) {
                chosen.push(t);
            }
        }
    }
    Ok((chosen, true))
}

/// What is at `t.path` now.
fn state(t: &Target, canonical: &Path) -> State {
    let Ok(meta) = fs::symlink_metadata(&t.path) else {
        return State::Missing;
    };
    if meta.file_type().is_symlink() {
        let target = fs::read_link(&t.path).unwrap_or_default();
        let resolved = if target.is_absolute() {
            target
        } else {
            t.path.parent().map(|p| p.join(&target)).unwrap_or(target)
        };
        if same_path(&resolved, canonical) {
            return State::Linked;
        }
        return match fs::read_to_string(resolved.join("SKILL.md")) {
            Ok(s) if s.contains(MARKER) => State::StaleLink,
            _ => State::Foreign,
        };
    }
    if meta.is_dir() {
        return match fs::read_to_string(t.path.join("SKILL.md")) {
            Ok(s) if s == SKILL_MD => State::Copied,
            Ok(s) if s.contains(MARKER) => State::StaleCopy,
            _ => State::Foreign,
        };
    }
    State::Foreign
}

fn same_path(a: &Path, b: &Path) -> bool {
    a == b || matches!((fs::canonicalize(a), fs::canonicalize(b)), (Ok(x), Ok(y)) if x == y)
}

/// Runs `scry skill`.
pub fn run(ctx: &Ctx, args: &SkillArgs) -> CliResult<Output> {
    let (verb, flags) = match &args.action {
        SkillAction::Install(f) => ("install", f),
        SkillAction::Status(f) => ("status", f),
        SkillAction::Uninstall(f) => ("uninstall", f),
    };
    let (targets, named) = targets(ctx, flags.agent.as_deref())?;
    let canonical = canonical_dir(ctx);
    let mut rows: Vec<Value> = Vec::new();
    let mut notes: Vec<String> = Vec::new();
    let mut failures = 0usize;
    let mut canonical_written = false;
    for t in &targets {
        let present = t.home.is_dir();
        let before = state(t, &canonical);
        let (action, after) = if !present && !named && !before.ours() {
            ("skipped: agent not installed".to_string(), before)
        } else {
            match verb {
                "status" => (String::new(), before),
                "install" => {
                    if !flags.copy && !flags.dry_run && !canonical_written {
                        write_canonical(&canonical)?;
                        canonical_written = true;
                    }
                    match install_one(t, before, &canonical, flags) {
                        Ok(a) => (a, state_after(t, &canonical, flags.dry_run, before)),
                        Err(e) => {
                            failures += 1;
                            notes.push(format!("{}: {e}", t.agent));
                            (format!("failed: {e}"), before)
                        }
                    }
                }
                _ => match uninstall_one(t, before, flags.dry_run) {
                    Ok(a) => (a, state_after(t, &canonical, flags.dry_run, before)),
                    Err(e) => {
                        failures += 1;
                        notes.push(format!("{}: {e}", t.agent));
                        (format!("failed: {e}"), before)
                    }
                },
            }
        };
        if after == State::Foreign && verb != "uninstall" && !flags.force {
            notes.push(format!(
                "{}: {} is not scry's (left alone; --force moves it aside)",
                t.agent,
                t.path.display()
            ));
        }
        rows.push(json!({
            "agent": t.agent,
            "installed": present,
            "path": t.path,
            "state": if verb == "status" { before.as_str() } else { after.as_str() },
            "before": before.as_str(),
            "action": action,
        }));
    }
    if verb == "uninstall" && !named && !flags.dry_run && canonical.exists() {
        // Every agent was uninstalled: the canonical copy is scry's too.
        let still_linked = targets
            .iter()
            .any(|t| state(t, &canonical) == State::Linked);
        if !still_linked {
            fs::remove_dir_all(&canonical).map_err(|e| io_error(&canonical, e))?;
        }
    }
    let out = if ctx.json {
        crate::output::json_out(&json!({
            "action": verb,
            "dry_run": flags.dry_run,
            "mode": if flags.copy { "copy" } else { "link" },
            "canonical": canonical,
            "agents": rows,
        }))
    } else {
        text(verb, flags, &canonical, &rows)
    };
    if failures > 0 {
        return Err(CliError::new(
            ErrorCode::PersistenceFailure,
            format!("skill {verb}: {}", notes.join("; ")),
        ));
    }
    Ok(Output {
        stdout: out,
        stderr: notes.iter().map(|n| format!("note: {n}\n")).collect(),
    })
}

/// The state to report after an action (the same as before in a dry run).
fn state_after(t: &Target, canonical: &Path, dry_run: bool, before: State) -> State {
    if dry_run {
        before
    } else {
        state(t, canonical)
    }
}

fn io_error(p: &Path, e: io::Error) -> CliError {
    CliError::new(
        ErrorCode::PersistenceFailure,
        format!("{}: {e}", p.display()),
    )
}

/// Writes the canonical copy (when missing or different).
fn write_canonical(dir: &Path) -> CliResult<()> {
    let file = dir.join("SKILL.md");
    if fs::read_to_string(&file).is_ok_and(|s| s == SKILL_MD) {
        return Ok(());
    }
    fs::create_dir_all(dir).map_err(|e| io_error(dir, e))?;
    fs::write(&file, SKILL_MD).map_err(|e| io_error(&file, e))
}

/// Installs at one target; returns what was done (or would be, in a dry run).
fn install_one(t: &Target, before: State, canonical: &Path, f: &SkillFlags) -> io::Result<String> {
    let want = if f.copy { State::Copied } else { State::Linked };
    if before == want {
        return Ok("unchanged (up to date)".into());
    }
    let verb = if f.copy { "copy" } else { "link" };
    let mut action = match before {
        State::Missing => format!("{verb} created"),
        State::Foreign if !f.force => return Ok("skipped: foreign file (use --force)".into()),
        State::Foreign => format!("foreign file moved aside, {verb} created"),
        _ => format!("replaced {} with a {verb}", before.as_str()),
    };
    if f.dry_run {
        action = format!("would be: {action}");
        return Ok(action);
    }
    if before == State::Foreign {
        let aside = backup_path(&t.path);
        fs::rename(&t.path, &aside)?;
        action = format!("{action} ({} kept)", aside.display());
    } else if before.ours() {
        remove_ours(&t.path)?;
    }
    if let Some(parent) = t.path.parent() {
        fs::create_dir_all(parent)?;
    }
    if f.copy {
        fs::create_dir_all(&t.path)?;
        fs::write(t.path.join("SKILL.md"), SKILL_MD)?;
    } else {
        symlink_dir(canonical, &t.path)?;
    }
    Ok(action)
}

/// Uninstalls at one target.
fn uninstall_one(t: &Target, before: State, dry_run: bool) -> io::Result<String> {
    match before {
        State::Missing => Ok("nothing to remove".into()),
        State::Foreign => Ok("left alone: foreign file".into()),
        _ if dry_run => Ok(format!("would remove the {}", before.as_str())),
        _ => {
            remove_ours(&t.path)?;
            Ok(format!("removed the {}", before.as_str()))
        }
    }
}

/// Removes a link, or a copy: its SKILL.md, then the directory if nothing else is in it.
fn remove_ours(p: &Path) -> io::Result<()> {
    let meta = fs::symlink_metadata(p)?;
    if meta.file_type().is_symlink() || !meta.is_dir() {
        return fs::remove_file(p);
    }
    fs::remove_file(p.join("SKILL.md"))?;
    match fs::remove_dir(p) {
        Ok(()) => Ok(()),
        // Someone put other files beside it: keep them, and the directory.
        Err(_) => Ok(()),
    }
}

/// `scry.bak`, `scry.bak.1`, … — the first free name beside `p`.
fn backup_path(p: &Path) -> PathBuf {
    let base = p.with_extension("bak");
    if fs::symlink_metadata(&base).is_err() {
        return base;
    }
    (1..)
        .map(|i| p.with_extension(format!("bak.{i}")))
        .find(|c| fs::symlink_metadata(c).is_err())
        .unwrap_or(base)
}

#[cfg(unix)]
fn symlink_dir(target: &Path, link: &Path) -> io::Result<()> {
    std::os::unix::fs::symlink(target, link)
}

#[cfg(windows)]
fn symlink_dir(target: &Path, link: &Path) -> io::Result<()> {
    std::os::windows::fs::symlink_dir(target, link)
}

fn text(verb: &str, f: &SkillFlags, canonical: &Path, rows: &[Value]) -> String {
    let mut out = String::new();
    if f.dry_run {
        out.push_str("dry run: nothing is changed\n");
    }
    if verb == "install" && !f.copy {
        out.push_str(&format!(
            "canonical copy: {}\n",
            canonical.join("SKILL.md").display()
        ));
    }
    for r in rows {
        let agent = r["agent"].as_str().unwrap_or("");
        let path = r["path"].as_str().unwrap_or("");
        let state = r["state"].as_str().unwrap_or("");
        let action = r["action"].as_str().unwrap_or("");
        let mut line = format!("{agent:<18} {state:<13} {path}");
        if !action.is_empty() {
            line.push_str(&format!("  ({action})"));
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}
