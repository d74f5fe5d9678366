//! `scry config [--edit]`: where the config file is and what scry makes of it — the effective
//! exclusions (file and `--exclude-*` flags), the Aider roots, the index — as text or `--json`;
//! `--edit` opens `$VISUAL` / `$EDITOR` on the file (a commented template when it is missing) and
//! checks it afterwards.
//!
//! An invalid file (bad TOML, an unknown key, a bad value) fails `scry config` like every other
//! command that reads it: one line naming the file, line, column and key, exit 2 (SPEC §3: bad
//! input is a usage error). Only `--edit` runs despite it, so the file can be fixed.

use std::path::{Path, PathBuf};

use clap::Args;
use scry_model::ErrorCode;
use serde_json::json;

use crate::ctx::Ctx;
use crate::error::{CliError, CliResult};
use crate::output::{json_out, Output};

/// Arguments of `scry config`.
#[derive(Debug, Args)]
pub struct ConfigArgs {
    /// Open the config file in $VISUAL or $EDITOR (else vi), creating it from a commented
    /// template when missing, and check it once the editor exits.
    #[arg(long)]
    pub edit: bool,
}

/// What `--edit` writes into a missing config file: every key, commented out.
pub const TEMPLATE: &str = "\
# scry's configuration (`scry config` shows what scry makes of it).
# Unknown keys are an error naming their line: a typo never passes silently.

[exclude]
# providers = [\"cursor\"]        # leave out every source of these providers
# paths = [\"**/tmp/**\"]         # leave out sources whose path matches a glob
# projects = [\"~/scratch\"]      # leave out sessions run in these subtrees

[aider]
# roots = [\"~/src\"]             # where to look for .aider.chat.history.md

# Custom prices for `scry usage`, USD per million tokens (over the embedded LiteLLM table):
# [pricing.\"my-model\"]
# input = 1.0
# output = 4.0
# cache_read = 0.1
# cache_write = 1.25
";

/// Prints the settings, or edits the file.
pub fn run(ctx: &Ctx, args: &ConfigArgs) -> CliResult<Output> {
    let process = scry_source::Env::from_process();
    let path = scry_sources::config::config_path(&process);
    if args.edit {
        return edit(&path, &process);
    }
    let exists = path.is_file();
    let ex = ctx.exclusions.summary();
    let roots: &[PathBuf] = if ctx.demo {
        &[]
    } else {
        ctx.env.project_dirs()
    };
    let index = crate::indexed::db_path(ctx);
    // `[pricing."<model>"]`: the custom prices `scry usage` applies over its embedded table.
    let pricing = super::usage::custom_prices(ctx)?;
    if ctx.json {
        return Ok(json_out(&json!({
            "config_file": path,
            "exists": exists,
            "read": exists && !ctx.demo,
            "index": index,
            "exclude": {
                "providers": ex.providers,
                "paths": ex.paths,
                "projects": ex.projects,
            },
            "aider": { "roots": roots },
            "pricing": pricing,
        }))
        .into());
    }
    let file = if ctx.demo {
        format!("{} (not read with --demo)", path.display())
    } else if exists {
        path.display().to_string()
    } else {
        format!(
            "{} (missing: `scry config --edit` creates it)",
            path.display()
        )
    };
    let list = |items: Vec<String>| {
        if items.is_empty() {
            "(none)".to_string()
        } else {
            items.join(", ")
        }
    };
    let shown = |p: &PathBuf| p.display().to_string();
    let rows = [
        ("config file", file),
        (
            "index",
            index
                .as_ref()
                .map_or("(none: --no-index)".to_string(), shown),
        ),
        (
            "exclude.providers",
            list(
                ex.providers
                    .iter()
                    .map(|p| p.as_str().to_string())
                    .collect(),
            ),
        ),
        ("exclude.paths", list(ex.paths.clone())),
        (
            "exclude.projects",
            list(ex.projects.iter().map(shown).collect()),
        ),
        ("aider.roots", list(roots.iter().map(shown).collect())),
    ];
    let per_m = |name: &str, v: Option<f64>| v.map(|x| format!("{name} ${x}/M"));
    let mut rows = rows.to_vec();
    if pricing.is_empty() {
        rows.push(("pricing", "(none: the embedded price table)".to_string()));
    }
    let priced: Vec<(String, String)> = pricing
        .iter()
        .map(|(model, p)| {
            let parts: Vec<String> = [
                per_m("input", Some(p.input)),
                per_m("output", Some(p.output)),
                per_m("cache read", p.cache_read),
                per_m("cache write", p.cache_write),
                per_m("1h cache write", p.cache_write_1h),
            ]
            .into_iter()
            .flatten()
            .collect();
            (format!("pricing.{model}"), parts.join(", "))
        })
        .collect();
    Ok(rows
        .iter()
        .map(|(k, v)| format!("{k:<18} {v}\n"))
        .chain(priced.iter().map(|(k, v)| format!("{k:<18} {v}\n")))
        .collect::<String>()
        .into())
}

/// Opens the editor on `path` (writing [`TEMPLATE`] first when it is missing), then parses the
/// file: its first error fails the command (exit 2) so a typo is seen at once.
fn edit(path: &Path, process: &scry_source::Env) -> CliResult<Output> {
    let io_fail = |what: &str, e: std::io::Error| {
        CliError::new(
            ErrorCode::PersistenceFailure,
            format!("cannot {what} {}: {e}", path.display()),
        )
    };
    let mut notes = String::new();
    if !path.exists() {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| io_fail("create the directory of", e))?;
        }
        std::fs::write(path, TEMPLATE).map_err(|e| io_fail("write", e))?;
        notes.push_str(&format!("created {} from a template\n", path.display()));
    }
    let editor = ["VISUAL", "EDITOR"]
        .iter()
        .filter_map(|k| process.var(k))
        .find(|v| !v.trim().is_empty())
        .unwrap_or("vi")
        .to_string();
    // Through the shell, as git does, so `EDITOR="code --wait"` works; the path is passed as
    // an argument, never spliced into the command text.
    let status = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("{editor} \"$1\""))
        .arg("sh")
        .arg(path)
        .status()
        .map_err(|e| {
            CliError::new(
                ErrorCode::Aborted,
                format!("cannot start editor '{editor}': {e}"),
            )
        })?;
    if !status.success() {
        return Err(CliError::new(
            ErrorCode::Aborted,
            format!("editor '{editor}' failed ({status}); the config file was not checked"),
        ));
    }
    scry_sources::config::project_dirs(process)
        .and_then(|_| scry_sources::config::load(process))
        .map_err(|e| CliError::usage(ErrorCode::InvalidFilter, e.to_string()))?;
    Ok(Output {
        stdout: format!("{} is valid\n", path.display()),
        stderr: notes,
    })
}
