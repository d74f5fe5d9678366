//! `scry digest <id> [--focus review|full]` (S-C7): the session as a short story — the goal,
//! one line per turn with its status (S-F5), the files changed, the failures and whether they
//! were fixed, and the final state (last successful command, last files written, commits, the
//! last answer). Every number comes from the same ledgers as `show`, `files`, `errors`.
//!
//! `review` (the default) keeps what a reviewer needs: project files only, unfixed failures in
//! full and fixed ones counted. `full` lists every group of files and every failure, with the
//! per-turn command / write counts and the tokens.

use clap::Args;
use scry_facts::{Failure, TurnSummary};
use scry_model::Header;
use scry_query::ops::digest::{status_label, Digest, DigestRequest, Focus};

use super::loaded;
use crate::ctx::Ctx;
use crate::error::CliResult;
use crate::output::Output;
use crate::render::{self, Style};

/// Arguments of `scry digest`: the request of the query operation, flattened (its fields are the
/// flags).
#[derive(Debug, Args)]
pub struct DigestArgs {
    /// The request.
    #[command(flatten)]
    pub request: DigestRequest,
}

/// Runs `scry digest`.
pub fn run(ctx: &Ctx, args: &DigestArgs) -> CliResult<Output> {
    let r = scry_query::ops::digest::digest(ctx, &args.request)?;
    if ctx.json {
        return Ok(loaded::report_json(&r).into());
    }
    let s = Style::new(ctx.color);
    let mut out = vec![s.bold(&loaded::title_of(&r.session))];
    out.extend(text(&r.digest, &r.session, &r.failures, s));
    out.extend(loaded::warnings_of(&r.warnings));
    Ok(loaded::lines(out).into())
}

/// Text lines of a digest for people (without the title line).
pub fn text(d: &Digest, h: &Header, failures: &[Failure], s: Style) -> Vec<String> {
    let o = &d.overview;
    let mut out = Vec::new();
    out.push(format!(
        "{} · {} · {} → {}",
        h.cwd.as_deref().unwrap_or("-"),
        render::count(u64::from(o.turns), "turn"),
        render::time(h.created),
        render::time(h.updated)
    ));
    if let Some(g) = &o.first_prompt {
        out.push(format!(
            "goal      {}",
            loaded::one_line(g, render::WIDTH - 10)
        ));
    }
    out.push(String::new());
    for t in &d.turns {
        out.push(turn_line(t, d.focus, s));
    }
    out.push(String::new());
    out.push(format!(
        "files     {} changed ({} writes): project {}, runtime {}, log {}",
        o.files.files_changed,
        o.files.write_events,
        o.files.files_by_group.project,
        o.files.files_by_group.runtime,
        o.files.files_by_group.log
    ));
    for f in &d.files {
        let turns = if f.first_turn == f.last_turn {
            format!("T{}", f.first_turn)
        } else {
            format!("T{}–T{}", f.first_turn, f.last_turn)
        };
        let group = if d.focus == Focus::Full {
            format!("{:<8}", f.group.as_str())
        } else {
            String::new()
        };
        out.push(format!(
            "          {group}{} ×{} {turns}",
            render::clip_left(&f.display, 60),
            f.writes
        ));
    }
    out.push(format!(
        "failures  {} ({} fixed later) · commands {} ({} failed)",
        o.failures, o.failures_fixed, o.commands, o.commands_failed
    ));
    for f in failures {
        if d.focus == Focus::Review && f.fixed_later() {
            continue;
        }
        let what = f
            .command
            .as_deref()
            .map(|c| format!(" `{}`", render::clip(c, 50)))
            .unwrap_or_default();
        let fixed = super::ledger_errors::fixed(f);
        out.push(format!(
            "          {} {}{what} {} → {}",
            f.origin.evidence.handle(),
            f.tool,
            super::ledger_errors::status(f),
            if f.fixed_later() {
                fixed
            } else {
                s.red(&fixed)
            }
        ));
    }
    out.push(String::new());
    let mut fin = Vec::new();
    if let Some(c) = &o.last_successful_command {
        fin.push(format!(
            "last ok   {} `{}`",
            c.evidence.handle(),
            render::clip(&c.command, 60)
        ));
    }
    if !o.last_files_written.is_empty() {
        let names: Vec<String> = o
            .last_files_written
            .iter()
            .map(|w| render::clip_left(&w.display, 40))
            .collect();
        fin.push(format!("last files {}", names.join(", ")));
    }
    for c in &o.commits {
        fin.push(format!(
            "commit    {} {}{}",
            c.evidence.handle(),
            c.sha
                .as_deref()
                .map(|x| format!("{x} "))
                .unwrap_or_default(),
            render::clip(c.message.as_deref().unwrap_or(&c.command), 60)
        ));
    }
    if o.jobs.total > 0 {
        fin.push(format!(
            "jobs      {} (completed {}, failed {}, killed {}, running {}, unknown {})",
            o.jobs.total,
            o.jobs.completed,
            o.jobs.failed,
            o.jobs.killed,
            o.jobs.running,
            o.jobs.unknown
        ));
    }
    if let Some(a) = &d.final_answer {
        for (i, line) in render::first_lines(a, 3, render::WIDTH - 10)
            .into_iter()
            .enumerate()
        {
            fin.push(format!("{:<10}{line}", if i == 0 { "final" } else { "" }));
        }
    }
    if d.focus == Focus::Full {
        fin.push(format!(
            "tokens    {}",
            match o.tokens {
                Some(t) => format!(
                    "input {} · output {} · cache read {} · cache write {}",
                    render::thousands(t.input),
                    render::thousands(t.output),
                    render::thousands(t.cache_read),
                    render::thousands(t.cache_write)
                ),
                None => "unknown".into(),
            }
        ));
    }
    out.extend(fin);
    out
}

fn turn_line(t: &TurnSummary, focus: Focus, s: Style) -> String {
    let user = t
        .user
        .as_deref()
        .map(|u| loaded::one_line(u, 48))
        .unwrap_or_else(|| "-".into());
    let answer = t
        .answer
        .as_deref()
        .map(|a| format!(" → {}", loaded::one_line(a, 40)))
        .unwrap_or_default();
    let counts = if focus == Focus::Full {
        format!(
            "  ({} cmd, {} writes, {} failed)",
            t.commands, t.file_writes, t.failures
        )
    } else if t.failures > 0 {
        format!("  ({} failed)", t.failures)
    } else {
        String::new()
    };
    let status = status_label(t);
    let bad = t.status.iter().any(|m| {
        !matches!(
            m.state,
            scry_facts::TurnState::Completed | scry_facts::TurnState::Nudged
        )
    });
    let status = if bad {
        s.red(&format!("[{status}]"))
    } else {
        format!("[{status}]")
    };
    format!("T{:<3} {status} {user}{answer}{counts}", t.turn)
}
