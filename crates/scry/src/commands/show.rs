//! `scry show <id>` (S-C2, "layer 1"): a stats card — turns, events by kind, tool calls,
//! failures, tokens, models, titles, the goal, the final answer, the last failure, and where the
//! full record lives — plus the fact card from `scry-facts` (files changed by group, commands,
//! failures fixed later, commits, background jobs, last successful command, last files written),
//! whose numbers agree with `files`, `commands`, `errors` and `jobs`. Both are folded while the
//! events stream by (`scry_query::overview`); the session is never held whole.

use clap::Args;
use scry_facts::overview::Overview;
use scry_model::{EventKind, Header};

use crate::ctx::Ctx;
use crate::error::CliResult;
use crate::output::Output;
use crate::render::{self, Style};
use crate::stats::Stats;

/// Arguments of `scry show`.
#[derive(Debug, Args)]
pub struct ShowArgs {
    /// The session (the query's request type, `scry_query::ShowRequest`).
    #[command(flatten)]
    pub request: scry_query::ShowRequest,
}

/// Runs `scry show`.
pub fn run(ctx: &Ctx, args: &ShowArgs) -> CliResult<Output> {
    let ov = scry_query::overview(ctx, &args.request.id)?;
    if ctx.json {
        return Ok(crate::output::json_out(&ov.to_json()).into());
    }
    let mut out = text(
        &ov.header,
        &ov.stats,
        &ov.card,
        &ov.cost,
        Style::new(ctx.color),
    );
    if let Some(m) = ov.availability.archived {
        // Archived (S-I6): read from the index, the source is gone.
        let at = out.find('\n').map_or(out.len(), |i| i + 1);
        out.insert_str(
            at,
            &format!(
                "{:<10}{} (read from the index; `scry index --prune` removes it)\n",
                "source",
                m.text()
            ),
        );
    }
    // Issue 20: which revision this is, and the earlier ones the index keeps.
    let at = out.find('\n').map_or(out.len(), |i| i + 1);
    if let Some(n) = ov.availability.revision {
        out.insert_str(
            at,
            &format!(
                "{:<10}earlier revision {n}, superseded by a rewrite of the source (read from the index)\n",
                "revision"
            ),
        );
    } else if !ov.revisions.is_empty() {
        let newest = &ov.revisions[0];
        let when = newest.replaced_at.map_or_else(String::new, |t| {
            format!(", the last replaced {}", t.strftime("%Y-%m-%d %H:%M"))
        });
        out.insert_str(
            at,
            &format!(
                "{:<10}{} kept by the index{when} (--revision 1 to {})\n",
                "revisions",
                render::count(ov.revisions.len() as u64, "earlier revision"),
                ov.revisions.len()
            ),
        );
    }
    Ok(out.into())
}

pub(super) fn text(
    h: &Header,
    st: &Stats,
    o: &Overview,
    cost: &scry_query::usage::Cost,
    s: Style,
) -> String {
    let mut out = Vec::new();
    let field = |name: &str, value: String| format!("{:<10}{value}", name);
    out.push(s.bold(&format!(
        "{}  {}",
        h.uri,
        render::clip(h.title.as_deref().unwrap_or("(untitled)"), 60)
    )));
    let earlier: Vec<&String> = h
        .titles
        .iter()
        .filter(|t| Some(t.as_str()) != h.title.as_deref())
        .collect();
    if !earlier.is_empty() {
        let list: Vec<String> = earlier.iter().map(|t| render::clip(t, 40)).collect();
        out.push(field("titles", list.join(" → ")));
    }
    let mut kind = h.kind.as_str().to_string();
    if let Some(p) = &h.parent {
        kind.push_str(&format!(" of {p}"));
    }
    out.push(field("kind", kind));
    out.push(field("cwd", h.cwd.clone().unwrap_or_else(|| "-".into())));
    if let Some(b) = &h.git_branch {
        out.push(field("branch", b.clone()));
    }
    let dur = render::span_ms(h.created, h.updated)
        .map(|d| format!(" ({})", render::duration_ms(d)))
        .unwrap_or_default();
    out.push(field(
        "time",
        format!(
            "{} → {}{dur}",
            render::time(h.created),
            render::time(h.updated)
        ),
    ));
    if !h.models.is_empty() {
        out.push(field("models", h.models.join(", ")));
    }
    if let Some(v) = &h.agent_version {
        out.push(field("agent", v.clone()));
    }
    out.push(field("turns", st.turns.to_string()));
    let kinds: Vec<String> = EventKind::ALL
        .iter()
        .filter_map(|k| st.kinds.get(k).map(|n| format!("{} {n}", k.as_str())))
        .collect();
    out.push(field(
        "events",
        format!("{} — {}", st.events(), kinds.join(", ")),
    ));
    let mut tools: Vec<(&String, &u64)> = st.tools.iter().collect();
    tools.sort_by(|a, b| b.1.cmp(a.1).then_with(|| a.0.cmp(b.0)));
    let top: Vec<String> = tools
        .iter()
        .take(6)
        .map(|(t, n)| format!("{t} {n}"))
        .collect();
    let failed = if st.failures > 0 {
        s.red(&format!("{} failed", st.failures))
    } else {
        "0 failed".to_string()
    };
    let mut tool_line = format!("{}, {failed}", render::count(st.tool_calls(), "call"));
    if !top.is_empty() {
        tool_line.push_str(&format!(" ({})", top.join(", ")));
    }
    out.push(field("tools", render::clip(&tool_line, render::WIDTH + 20)));
    card_text(&mut out, o, s);
    out.push(field(
        "tokens",
        match st.tokens {
            Some(t) => format!(
                "input {} · output {} · cache read {} · cache write {} · reasoning {}",
                render::thousands(t.input),
                render::thousands(t.output),
                render::thousands(t.cache_read),
                render::thousands(t.cache_write),
                render::thousands(t.reasoning)
            ),
            None => "unknown (not recorded by the agent)".into(),
        },
    ));
    if st.tokens.is_some() {
        out.push(field("cost", cost_text(cost)));
    }
    if let Some(g) = &st.goal {
        block(&mut out, "goal", g, 3);
    }
    if let Some(a) = &st.answer {
        block(&mut out, "answer", a, 5);
    }
    if let Some(f) = &st.last_failure {
        let status = match f.exit_code {
            Some(c) => format!("exit {c}"),
            None => "error".into(),
        };
        let what = f
            .args
            .as_deref()
            .map(|a| format!(" `{}`", render::clip(a, 50)));
        out.push(field(
            "failed",
            format!(
                "E{} {}{} → {status}",
                f.seq + 1,
                f.tool.as_deref().unwrap_or("?"),
                what.unwrap_or_default()
            ),
        ));
        if !f.output.is_empty() {
            out.push(field("", render::clip(&f.output, render::WIDTH - 10)));
        }
    }
    anchors_text(&mut out, o);
    // The primary source and a few side files; JSON lists every one.
    const SHOWN_SOURCES: usize = 3;
    for (i, src) in h.sources.iter().take(SHOWN_SOURCES).enumerate() {
        out.push(field(
            if i == 0 { "source" } else { "" },
            src.display().to_string(),
        ));
    }
    if h.sources.len() > SHOWN_SOURCES {
        let more = h.sources.len() - SHOWN_SOURCES;
        out.push(field("", format!("… {more} more files (listed by --json)")));
    }
    if !h.artifacts.is_empty() {
        out.push(field("artifacts", h.artifacts.join(", ")));
    }
    let warn = render::warnings_text(&st.warnings, 5);
    if warn.is_empty() {
        out.push(field("warnings", "none".into()));
    } else {
        for (i, w) in warn.iter().enumerate() {
            out.push(field(if i == 0 { "warnings" } else { "" }, w.clone()));
        }
    }
    let mut text = out
        .into_iter()
        .map(|l| l.trim_end().to_string())
        .collect::<Vec<_>>()
        .join("\n");
    text.push('\n');
    text
}

fn block(out: &mut Vec<String>, name: &str, text: &str, lines: usize) {
    for (i, l) in render::first_lines(text, lines, render::WIDTH - 10)
        .into_iter()
        .enumerate()
    {
        out.push(format!("{:<10}{l}", if i == 0 { name } else { "" }));
    }
}

/// The fact card lines after `tools`: files by group, commands, failures fixed, commits, jobs.
fn card_text(out: &mut Vec<String>, o: &Overview, s: Style) {
    let field = |name: &str, value: String| format!("{:<10}{value}", name);
    let f = &o.files;
    out.push(field(
        "files",
        format!(
            "{} changed, {} — project {} ({}), runtime {} ({}), log {} ({})",
            render::count(f.files_changed as u64, "file"),
            render::count(f.write_events as u64, "write"),
            f.files_by_group.project,
            f.events_by_group.project,
            f.files_by_group.runtime,
            f.events_by_group.runtime,
            f.files_by_group.log,
            f.events_by_group.log
        ),
    ));
    let failed = if o.commands_failed > 0 {
        s.red(&format!("{} failed", o.commands_failed))
    } else {
        "0 failed".to_string()
    };
    out.push(field(
        "commands",
        format!(
            "{}, {failed} · failures {} ({} fixed later)",
            o.commands, o.failures, o.failures_fixed
        ),
    ));
    for c in &o.commits {
        out.push(field(
            "commit",
            format!(
                "{}{} ({})",
                c.sha
                    .as_deref()
                    .map(|x| format!("{x} "))
                    .unwrap_or_default(),
                render::clip(c.message.as_deref().unwrap_or(&c.command), 60),
                c.evidence.handle()
            ),
        ));
    }
    if o.jobs.total > 0 {
        let j = &o.jobs;
        out.push(field(
            "jobs",
            format!(
                "{} — completed {}, failed {}, killed {}, running {}, unknown {}",
                j.total, j.completed, j.failed, j.killed, j.running, j.unknown
            ),
        ));
    }
}

/// The final-state anchors: last successful command, last files written.
fn anchors_text(out: &mut Vec<String>, o: &Overview) {
    let field = |name: &str, value: String| format!("{:<10}{value}", name);
    if let Some(c) = &o.last_successful_command {
        out.push(field(
            "last ok",
            format!(
                "{} `{}`",
                c.evidence.handle(),
                render::clip(&c.command, render::WIDTH - 30)
            ),
        ));
    }
    if !o.last_files_written.is_empty() {
        let names: Vec<String> = o
            .last_files_written
            .iter()
            .map(|w| {
                format!(
                    "{} ({})",
                    render::clip_left(&w.display, 40),
                    w.origin.evidence.handle()
                )
            })
            .collect();
        out.push(field("wrote", format!("last {}", names.join(", "))));
    }
}

/// `$0.18`, `$0.18 + unpriced mock-coder`, or `unpriced (mock-coder)` (issue 19).
fn cost_text(c: &scry_query::usage::Cost) -> String {
    let models: Vec<&str> = c.unpriced.keys().map(String::as_str).collect();
    match (c.usd, models.is_empty()) {
        (Some(u), true) => scry_query::usage::dollars(u),
        (Some(u), false) => format!(
            "{} + unpriced {}",
            scry_query::usage::dollars(u),
            models.join(", ")
        ),
        (None, _) => format!("unpriced ({})", models.join(", ")),
    }
}
