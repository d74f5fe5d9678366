//! `scry man [--out DIR]`: roff man pages generated from the same grammar as `--help`
//! ([`crate::cli::command`], through clap_mangen), so the two never drift apart.
//!
//! Without `--out` the page of `scry` itself goes to stdout (`scry man | man -l -`); with it,
//! one page per command and subcommand (`scry.1`, `scry-list.1`, `scry-skill-install.1`, …) is
//! written into DIR (created when missing) and their paths are listed.

use std::path::PathBuf;

use clap::Args;
use scry_model::ErrorCode;

use crate::ctx::Ctx;
use crate::error::{CliError, CliResult};
use crate::output::Output;

/// Arguments of `scry man`.
#[derive(Debug, Args)]
#[command(after_help = "Install them where man finds them, e.g.:\n  \
scry man --out ~/.local/share/man/man1 && man scry-turn")]
pub struct ManArgs {
    /// Write one page per command into this directory instead of printing scry's own page.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
}

/// Prints scry's page, or writes every page into `--out`.
/// `grammar` is scry's whole grammar (`crate::cli::command`).
pub fn run(ctx: &Ctx, args: &ManArgs, grammar: clap::Command) -> CliResult<Output> {
    let mut cmd = grammar.disable_help_subcommand(true);
    cmd.build();
    let Some(dir) = &args.out else {
        let mut buf = Vec::new();
        clap_mangen::Man::new(cmd).render(&mut buf)?;
        return Ok(String::from_utf8_lossy(&buf).into_owned().into());
    };
    let fail = |e: std::io::Error| {
        CliError::new(
            ErrorCode::PersistenceFailure,
            format!("cannot write man pages into {}: {e}", dir.display()),
        )
    };
    std::fs::create_dir_all(dir).map_err(fail)?;
    let mut written = Vec::new();
    write_pages(&cmd, dir, &mut written).map_err(fail)?;
    if ctx.json {
        /// `man --out DIR --json`: the pages written.
        #[derive(serde::Serialize)]
        struct Pages<'a> {
            pages: &'a [PathBuf],
        }
        return Ok(crate::output::typed_out(&Pages { pages: &written }).into());
    }
    Ok(written
        .iter()
        .map(|p| format!("{}\n", p.display()))
        .collect::<String>()
        .into())
}

/// Writes the page of `cmd` and of each of its visible subcommands (depth first) into `dir`.
fn write_pages(
    cmd: &clap::Command,
    dir: &std::path::Path,
    written: &mut Vec<PathBuf>,
) -> std::io::Result<()> {
    written.push(clap_mangen::Man::new(cmd.clone()).generate_to(dir)?);
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        write_pages(sub, dir, written)?;
    }
    Ok(())
}
