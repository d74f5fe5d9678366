//! `scry files <id> [--group project|runtime|log|all]` (S-C6): the files ledger (S-F3) — every
//! write event (observed from file tools, derived from shell commands), grouped project /
//! runtime / log, with the distinct files per group. The counts are the overview's (`show`).

use clap::{Args, ValueEnum};
use scry_facts::{FileGroup, FileWrite};
use serde_json::json;

use super::loaded::{self, Loaded};
use super::Output;
use crate::app::Ctx;
use crate::error::CliResult;
use crate::render::{self, Style};

/// Which group of files to show.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum GroupArg {
    /// Under the session's working directory
    Project,
    /// Temp files, caches, home dotfiles, remote hosts
    Runtime,
    /// Log files
    Log,
    /// Every group
    All,
}

impl GroupArg {
    fn group(self) -> Option<FileGroup> {
        match self {
            GroupArg::Project => Some(FileGroup::Project),
            GroupArg::Runtime => Some(FileGroup::Runtime),
            GroupArg::Log => Some(FileGroup::Log),
            GroupArg::All => None,
        }
    }
}

/// Arguments of `scry files`.
#[derive(Debug, Args)]
pub struct FilesArgs {
    /// Session: full id, provider:id, a unique prefix (≥ 6 characters), or a file path
    pub id: String,
    /// Which files: project, runtime, log, or all
    #[arg(long, value_enum, default_value = "all")]
    pub group: GroupArg,
}

/// Runs `scry files`.
pub fn run(ctx: &Ctx, args: &FilesArgs) -> CliResult<Output> {
    let mut l = loaded::load_ledgers(ctx, &args.id)?;
    super::ledger_commands::use_index(ctx, &mut l);
    let g = args.group.group();
    let writes = l.facts.files.group(g);
    if ctx.json {
        let files: Vec<_> = l
            .facts
            .files
            .files()
            .into_iter()
            .filter(|f| g.is_none_or(|g| f.group == g))
            .collect();
        let mut v = loaded::envelope(
            &l.session,
            "writes",
            json!(writes.iter().map(loaded::to_value).collect::<Vec<_>>()),
        );
        if let Some(m) = v.as_object_mut() {
            m.insert(
                "group".into(),
                json!(g.map(FileGroup::as_str).unwrap_or("all")),
            );
            m.insert("files".into(), loaded::to_value(&files));
            m.insert(
                "counts".into(),
                json!({
                    "write_events": loaded::to_value(&l.facts.files.write_counts()),
                    "files": loaded::to_value(&l.facts.files.file_counts()),
                }),
            );
        }
        return Ok(super::json_out(&v).into());
    }
    Ok(text(&l, g, &writes, Style::new(ctx.color)).into())
}

fn text(l: &Loaded, g: Option<FileGroup>, writes: &[&FileWrite], s: Style) -> String {
    let fc = l.facts.files.file_counts();
    let wc = l.facts.files.write_counts();
    let mut out = vec![s.bold(&loaded::title_line(&l.session))];
    out.push(format!(
        "{} changed, {} — project {} ({}), runtime {} ({}), log {} ({})",
        render::count(fc.total as u64, "file"),
        render::count(wc.total as u64, "write"),
        fc.project,
        wc.project,
        fc.runtime,
        wc.runtime,
        fc.log,
        wc.log
    ));
    for group in FileGroup::ALL {
        if g.is_some_and(|x| x != group) {
            continue;
        }
        let rows: Vec<&&FileWrite> = writes.iter().filter(|w| w.group == group).collect();
        if rows.is_empty() {
            continue;
        }
        out.push(s.bold(group.as_str()));
        for w in rows {
            out.push(format!(
                "  {:<10} {:<8} {}  {}",
                w.origin.evidence.handle(),
                w.op.as_str(),
                render::clip_left(&w.display, 60),
                s.dim(&format!(
                    "{} {}",
                    w.origin.provenance.as_str(),
                    w.origin.extractor
                ))
            ));
        }
    }
    if writes.is_empty() {
        out.push(match g {
            Some(g) => format!("no {} files written", g.as_str()),
            None => "no files written".into(),
        });
    }
    out.extend(loaded::warnings_tail(&l.session));
    loaded::lines(out)
}
