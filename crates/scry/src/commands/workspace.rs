//! `scry workspace [path] [--since …] [--digest]` (S-C7): the cross-agent story of one project —
//! every session of every provider whose working directory is in the subtree (default: the
//! current directory; with `--demo`, every demo session), one unified timeline of their turns,
//! and file attribution from the files ledgers: which session (and agent) wrote which file when.
//!
//! Each session streams once through a fact fold (no session is held); a session that cannot
//! be read becomes a warning.

use clap::Args;
use scry_query::ops::workspace::{WorkspaceReport, WorkspaceRequest};

use super::loaded;
use crate::ctx::Ctx;
use crate::error::CliResult;
use crate::output::Output;
use crate::render::{self, Style};

/// Arguments of `scry workspace`: the request of the query operation, flattened (its fields are the
/// flags).
#[derive(Debug, Args)]
pub struct WorkspaceArgs {
    /// The request.
    #[command(flatten)]
    pub request: WorkspaceRequest,
}

/// Runs `scry workspace`.
pub fn run(ctx: &Ctx, args: &WorkspaceArgs) -> CliResult<Output> {
    let r = scry_query::ops::workspace::workspace(ctx, &args.request)?;
    if ctx.json {
        return Ok(loaded::report_json(&r).into());
    }
    Ok(text(&r, Style::new(ctx.color)).into())
}

/// `codex:01a1cf09` — a uri short enough for a column (a `session-` / `ses_` prefix of the
/// id skipped, so the kept characters tell sessions apart).
fn short(uri: &str) -> String {
    match uri.split_once(':') {
        Some((p, id)) => {
            let id = id
                .strip_prefix("session-")
                .or_else(|| id.strip_prefix("ses_"))
                .unwrap_or(id);
            format!("{p}:{}", id.chars().take(8).collect::<String>())
        }
        None => uri.to_string(),
    }
}

fn text(r: &WorkspaceReport, s: Style) -> String {
    let root = r.root.as_deref();
    let mut agents: Vec<String> = r.sessions.iter().map(|m| m.agent.clone()).collect();
    agents.sort();
    agents.dedup();
    let uw = r
        .sessions
        .iter()
        .map(|m| short(&m.session.uri).chars().count())
        .max()
        .unwrap_or(0);
    let aw = agents.iter().map(|a| a.chars().count()).max().unwrap_or(0);
    let mut out = vec![s.bold(&format!(
        "workspace {} — {}, {}: {}",
        root.unwrap_or("(all directories)"),
        render::count(r.sessions.len() as u64, "session"),
        render::count(agents.len() as u64, "agent"),
        agents.join(", ")
    ))];
    out.push(String::new());
    out.push(s.bold("sessions"));
    for m in &r.sessions {
        let h = &m.session;
        out.push(format!(
            "  {}  {:<uw$} {:<aw$} {}, {} files, {} failed  {}",
            render::time(h.created),
            short(&h.uri),
            m.agent,
            render::count(u64::from(m.turns), "turn"),
            m.files_changed,
            m.failures,
            render::clip(h.title.as_deref().unwrap_or(""), 40)
        ));
    }
    out.push(String::new());
    out.push(s.bold("timeline"));
    for t in &r.timeline {
        out.push(format!(
            "  {}  {:<uw$} T{:<3} [{}] {}",
            render::time(t.time),
            short(&t.session),
            t.turn,
            t.status,
            loaded::one_line(t.prompt.as_deref().unwrap_or("-"), 50)
        ));
    }
    out.push(String::new());
    out.push(s.bold(&format!("files ({} written)", r.files.len())));
    for f in &r.files {
        out.push(format!("  {}", f.display));
        for a in &f.writes {
            out.push(format!(
                "    {}  {:<uw$} {:<aw$} {:<8} {}",
                render::time(a.time),
                short(&a.session),
                a.agent,
                a.write.op.as_str(),
                s.dim(&loaded::origin_text(&a.write.origin))
            ));
        }
    }
    for m in &r.sessions {
        if let Some(d) = &m.digest {
            out.push(String::new());
            out.push(s.bold(&format!("── {}", loaded::title_of(&m.session))));
            out.extend(super::digest::text(d, &m.session, &m.failure_rows, s));
        }
    }
    let w = render::warnings_text(&r.warnings, 3);
    if !w.is_empty() {
        out.push(String::new());
        out.extend(w.into_iter().map(|l| format!("warning: {l}")));
    }
    loaded::lines(out)
}
