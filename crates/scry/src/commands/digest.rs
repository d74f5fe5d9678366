//! `scry digest <id> [--focus review|full]` (S-C7): the session as a short story — the goal,
//! one line per turn with its status (S-F5), the files changed, the failures and whether they
//! were fixed, and the final state (last successful command, last files written, commits, the
//! last answer). Every number comes from the same ledgers as `show`, `files`, `errors`.
//!
//! `review` (the default) keeps what a reviewer needs: project files only, unfixed failures in
//! full and fixed ones counted. `full` lists every group of files and every failure, with the
//! per-turn command / write counts and the tokens.

use clap::{Args, ValueEnum};
use scry_facts::files::FileSummary;
use scry_facts::overview::Overview;
use scry_facts::{overview_from, turn_summaries, Facts, FileGroup, TurnSummary};
use scry_model::{EventKind, Session};
use serde_json::json;

use super::loaded;
use super::Output;
use crate::app::Ctx;
use crate::error::CliResult;
use crate::render::{self, Style};

/// What the digest dwells on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Focus {
    /// Project files, unfixed failures, the final state
    Review,
    /// Everything: every file group, every failure, per-turn counts, tokens
    Full,
}

impl Focus {
    fn as_str(self) -> &'static str {
        match self {
            Focus::Review => "review",
            Focus::Full => "full",
        }
    }
}

/// Arguments of `scry digest`.
#[derive(Debug, Args)]
pub struct DigestArgs {
    /// Session: full id, provider:id, a unique prefix (≥ 6 characters), or a file path
    pub id: String,
    /// review (default) or full
    #[arg(long, value_enum, default_value = "review")]
    pub focus: Focus,
}

/// Runs `scry digest`.
pub fn run(ctx: &Ctx, args: &DigestArgs) -> CliResult<Output> {
    let l = loaded::load(ctx, &args.id)?;
    let d = Digest::of(&l.session, &l.facts, args.focus);
    if ctx.json {
        let mut body = d.to_json();
        // Issue 19: the session's USD, priced per request as `scry usage` prices it (additive).
        let table = scry_query::usage::prices(ctx);
        let mut cost = scry_query::usage::Cost::default();
        for e in &l.session.events {
            cost.push(e, &table);
        }
        if let Some(m) = body.as_object_mut() {
            m.insert("cost_usd".into(), json!(cost.usd));
            m.insert("unpriced".into(), json!(cost.unpriced));
        }
        let v = loaded::envelope(&l.session, "digest", body);
        return Ok(super::json_out(&v).into());
    }
    let mut out = vec![Style::new(ctx.color).bold(&loaded::title_line(&l.session))];
    out.extend(d.text(&l.session, &l.facts, Style::new(ctx.color)));
    out.extend(loaded::warnings_tail(&l.session));
    Ok(loaded::lines(out).into())
}

/// A computed digest.
pub struct Digest {
    focus: Focus,
    overview: Overview,
    turns: Vec<TurnSummary>,
    files: Vec<FileSummary>,
    final_answer: Option<String>,
}

impl Digest {
    /// The digest of a loaded session.
    pub fn of(session: &Session, facts: &Facts, focus: Focus) -> Digest {
        let overview = overview_from(session, facts);
        let turns = turn_summaries(session, facts)
            .into_iter()
            .filter(|t| t.turn > 0)
            .collect();
        let files = facts
            .files
            .files()
            .into_iter()
            .filter(|f| focus == Focus::Full || f.group == FileGroup::Project)
            .collect();
        let final_answer = session
            .events
            .iter()
            .rev()
            .find(|e| e.kind == EventKind::Assistant && !e.text.trim().is_empty())
            .map(|e| e.text.clone());
        Digest {
            focus,
            overview,
            turns,
            files,
            final_answer,
        }
    }

    /// The JSON form.
    pub fn to_json(&self) -> serde_json::Value {
        let o = &self.overview;
        json!({
            "focus": self.focus.as_str(),
            "goal": o.first_prompt,
            "turns": loaded::to_value(&self.turns),
            "files": loaded::to_value(&self.files),
            "files_changed": loaded::to_value(&o.files),
            "failures": o.failures,
            "failures_fixed": o.failures_fixed,
            "commands": o.commands,
            "commands_failed": o.commands_failed,
            "final": {
                "answer": self.final_answer,
                "last_successful_command": loaded::to_value(&o.last_successful_command),
                "last_files_written": loaded::to_value(&o.last_files_written),
                "commits": loaded::to_value(&o.commits),
                "jobs": loaded::to_value(&o.jobs),
            },
            "tokens": loaded::to_value(&o.tokens),
        })
    }

    /// Text lines for people (without the title line).
    pub fn text(&self, session: &Session, facts: &Facts, s: Style) -> Vec<String> {
        let o = &self.overview;
        let mut out = Vec::new();
        let h = &session.header;
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
        for t in &self.turns {
            out.push(turn_line(t, self.focus, s));
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
        for f in &self.files {
            let turns = if f.first_turn == f.last_turn {
                format!("T{}", f.first_turn)
            } else {
                format!("T{}–T{}", f.first_turn, f.last_turn)
            };
            let group = if self.focus == Focus::Full {
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
        for f in &facts.failures {
            if self.focus == Focus::Review && f.fixed_later() {
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
        if let Some(a) = &self.final_answer {
            for (i, line) in render::first_lines(a, 3, render::WIDTH - 10)
                .into_iter()
                .enumerate()
            {
                fin.push(format!("{:<10}{line}", if i == 0 { "final" } else { "" }));
            }
        }
        if self.focus == Focus::Full {
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
}

/// `[completed]`, `[failed_tail, no_response]`, `[nudged ×2]`.
pub fn status_label(t: &TurnSummary) -> String {
    let marks: Vec<String> = t
        .status
        .iter()
        .map(|m| {
            let name = crate::commands::loaded::to_value(&m.state)
                .as_str()
                .unwrap_or("?")
                .to_string();
            match m.count {
                Some(n) if n > 1 => format!("{name} ×{n}"),
                _ => name,
            }
        })
        .collect();
    if marks.is_empty() {
        "-".into()
    } else {
        marks.join(", ")
    }
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
