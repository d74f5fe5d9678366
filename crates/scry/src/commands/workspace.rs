//! `scry workspace [path] [--since …] [--digest]` (S-C7): the cross-agent story of one project —
//! every session of every provider whose working directory is in the subtree (default: the
//! current directory; with `--demo`, every demo session), one unified timeline of their turns,
//! and file attribution from the files ledgers: which session (and agent) wrote which file when.
//!
//! Each session is read in full once; a session that cannot be read becomes a warning.

use std::collections::BTreeMap;

use clap::Args;
use scry_facts::{turn_summaries, Facts, FileWrite};
use scry_model::{Session, Timestamp, Warning, WarningKind};
use serde_json::{json, Value};

use super::digest::{status_label, Digest, Focus};
use super::loaded;
use super::Output;
use crate::app::Ctx;
use crate::catalog::Catalog;
use crate::error::CliResult;
use crate::filter::{self, Scope};
use crate::render::{self, Style};

/// Arguments of `scry workspace`.
#[derive(Debug, Args)]
pub struct WorkspaceArgs {
    /// Directory subtree (default: the current directory; `global` for every session)
    pub path: Option<String>,
    /// Only sessions updated since then: 30m, 24h, 7d, 2w, or an ISO date / time
    #[arg(long, value_name = "WHEN")]
    pub since: Option<String>,
    /// Add each session's digest (review focus)
    #[arg(long)]
    pub digest: bool,
}

/// One session of the workspace.
struct Member {
    session: Session,
    facts: Facts,
}

/// One timeline row: a turn of one session.
struct Moment {
    time: Option<Timestamp>,
    uri: String,
    turn: u32,
    prompt: Option<String>,
    status: String,
    handle: String,
}

/// One write, attributed.
struct Attributed<'a> {
    time: Option<Timestamp>,
    uri: &'a str,
    agent: String,
    write: &'a FileWrite,
}

/// Runs `scry workspace`.
pub fn run(ctx: &Ctx, args: &WorkspaceArgs) -> CliResult<Output> {
    let scope = Scope::parse(
        args.path.as_deref(),
        false,
        &ctx.cwd,
        ctx.demo && args.path.is_none(),
        !ctx.demo,
    )?;
    let since = match &args.since {
        Some(s) => Some(filter::since(s, Timestamp::now())?),
        None => None,
    };
    let catalog = Catalog::discover(&ctx.env, &[]);
    let candidates: Vec<_> = catalog
        .files
        .iter()
        .filter(|f| f.cwd_hint.is_none() || scope.contains(f.cwd_hint.as_deref()))
        .collect();
    let (entries, scan_warnings) = catalog.scan(&candidates);
    let mut warnings: Vec<Warning> = catalog.warnings.clone();
    warnings.extend(scan_warnings);
    let mut entries: Vec<_> = entries
        .into_iter()
        .filter(|e| scope.contains(e.header.cwd.as_deref()))
        .filter(|e| since.is_none_or(|s| e.header.updated.is_some_and(|u| u >= s)))
        .collect();
    entries.sort_by(|a, b| {
        a.header
            .created
            .cmp(&b.header.created)
            .then_with(|| a.header.uri.cmp(&b.header.uri))
    });
    let mut members = Vec::new();
    for e in &entries {
        match loaded::read_file(&catalog, &e.file) {
            Ok(session) => {
                let facts = Facts::of(&session);
                members.push(Member { session, facts });
            }
            Err(err) => warnings.push(Warning::at(
                WarningKind::Unreadable,
                err.message().unwrap_or("unreadable").to_string(),
                &e.file.path,
                None,
            )),
        }
    }
    let timeline = timeline(&members);
    let files = attribution(&members);
    let root = match &scope {
        Scope::Global => None,
        Scope::Under(forms) => forms.first().cloned(),
    };
    if ctx.json {
        return Ok(super::json_out(&to_json(
            &members,
            &timeline,
            &files,
            root.as_deref(),
            args.digest,
            &warnings,
        ))
        .into());
    }
    Ok(text(
        &members,
        &timeline,
        &files,
        root.as_deref(),
        args.digest,
        &warnings,
        Style::new(ctx.color),
    )
    .into())
}

/// The agent that wrote: provider, plus the agent name or session kind when not `main`.
fn agent(s: &Session) -> String {
    let h = &s.header;
    let mut a = h.provider.as_str().to_string();
    if let Some(n) = h.agent_name.as_ref().filter(|n| *n != h.provider.as_str()) {
        a.push_str(&format!("/{n}"));
    } else if h.kind.as_str() != "main" {
        a.push_str(&format!("/{}", h.kind.as_str()));
    }
    a
}

fn timeline(members: &[Member]) -> Vec<Moment> {
    let mut out = Vec::new();
    for m in members {
        for t in turn_summaries(&m.session, &m.facts) {
            if t.turn == 0 {
                continue;
            }
            out.push(Moment {
                time: t.start,
                uri: m.session.header.uri.clone(),
                turn: t.turn,
                prompt: t.user.clone(),
                status: status_label(&t),
                handle: format!("E{}·T{}", t.first_event, t.turn),
            });
        }
    }
    out.sort_by(|a, b| {
        (a.time.is_none(), a.time)
            .cmp(&(b.time.is_none(), b.time))
            .then_with(|| a.uri.cmp(&b.uri))
            .then_with(|| a.turn.cmp(&b.turn))
    });
    out
}

/// Writes per file path (host-qualified when remote), each list oldest first.
fn attribution(members: &[Member]) -> BTreeMap<String, Vec<Attributed<'_>>> {
    let mut out: BTreeMap<String, Vec<Attributed<'_>>> = BTreeMap::new();
    for m in members {
        for w in &m.facts.files.writes {
            let key = match &w.host {
                Some(h) => format!("{h}:{}", w.path),
                None => w.path.clone(),
            };
            let time = m
                .session
                .events
                .get(w.origin.evidence.seq() as usize)
                .and_then(|e| e.time);
            out.entry(key).or_default().push(Attributed {
                time,
                uri: &m.session.header.uri,
                agent: agent(&m.session),
                write: w,
            });
        }
    }
    for v in out.values_mut() {
        v.sort_by(|a, b| {
            (a.time.is_none(), a.time)
                .cmp(&(b.time.is_none(), b.time))
                .then_with(|| a.uri.cmp(b.uri))
        });
    }
    out
}

/// `path` relative to the workspace root when below it.
fn shown(path: &str, root: Option<&str>) -> String {
    match root {
        Some(r) => match path.strip_prefix(r) {
            Some(rest) if rest.starts_with('/') => rest.trim_start_matches('/').to_string(),
            _ => path.to_string(),
        },
        None => path.to_string(),
    }
}

fn to_json(
    members: &[Member],
    timeline: &[Moment],
    files: &BTreeMap<String, Vec<Attributed<'_>>>,
    root: Option<&str>,
    digest: bool,
    warnings: &[Warning],
) -> Value {
    let sessions: Vec<Value> = members
        .iter()
        .map(|m| {
            let mut v = json!({
                "session": render::header_json(&m.session.header),
                "agent": agent(&m.session),
                "turns": m.session.turn_count(),
                "files_changed": m.facts.files.files().len(),
                "write_events": m.facts.files.writes.len(),
                "commands": m.facts.commands.len(),
                "failures": m.facts.failures.len(),
                "warnings": m.session.warnings.len(),
            });
            if digest {
                if let Some(o) = v.as_object_mut() {
                    o.insert(
                        "digest".into(),
                        Digest::of(&m.session, &m.facts, Focus::Review).to_json(),
                    );
                }
            }
            v
        })
        .collect();
    let timeline: Vec<Value> = timeline
        .iter()
        .map(|t| {
            json!({
                "time": t.time, "session": t.uri, "turn": t.turn,
                "prompt": t.prompt, "status": t.status, "evidence": t.handle,
            })
        })
        .collect();
    let files: Vec<Value> = files
        .iter()
        .map(|(path, ws)| {
            json!({
                "path": path,
                "display": shown(path, root),
                "writes": ws.iter().map(|a| {
                    let mut w = loaded::to_value(a.write);
                    if let Some(o) = w.as_object_mut() {
                        o.insert("time".into(), json!(a.time));
                        o.insert("session".into(), json!(a.uri));
                        o.insert("agent".into(), json!(a.agent));
                    }
                    w
                }).collect::<Vec<_>>(),
            })
        })
        .collect();
    json!({
        "root": root,
        "sessions": sessions,
        "timeline": timeline,
        "files": files,
        "warnings": render::warnings_json(warnings),
    })
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

fn text(
    members: &[Member],
    timeline: &[Moment],
    files: &BTreeMap<String, Vec<Attributed<'_>>>,
    root: Option<&str>,
    digest: bool,
    warnings: &[Warning],
    s: Style,
) -> String {
    let mut agents: Vec<String> = members.iter().map(|m| agent(&m.session)).collect();
    agents.sort();
    agents.dedup();
    let uw = members
        .iter()
        .map(|m| short(&m.session.header.uri).chars().count())
        .max()
        .unwrap_or(0);
    let aw = agents.iter().map(|a| a.chars().count()).max().unwrap_or(0);
    let mut out = vec![s.bold(&format!(
        "workspace {} — {}, {}: {}",
        root.unwrap_or("(all directories)"),
        render::count(members.len() as u64, "session"),
        render::count(agents.len() as u64, "agent"),
        agents.join(", ")
    ))];
    out.push(String::new());
    out.push(s.bold("sessions"));
    for m in members {
        let h = &m.session.header;
        out.push(format!(
            "  {}  {:<uw$} {:<aw$} {}, {} files, {} failed  {}",
            render::time(h.created),
            short(&h.uri),
            agent(&m.session),
            render::count(u64::from(m.session.turn_count()), "turn"),
            m.facts.files.files().len(),
            m.facts.failures.len(),
            render::clip(h.title.as_deref().unwrap_or(""), 40)
        ));
    }
    out.push(String::new());
    out.push(s.bold("timeline"));
    for t in timeline {
        out.push(format!(
            "  {}  {:<uw$} T{:<3} [{}] {}",
            render::time(t.time),
            short(&t.uri),
            t.turn,
            t.status,
            loaded::one_line(t.prompt.as_deref().unwrap_or("-"), 50)
        ));
    }
    out.push(String::new());
    out.push(s.bold(&format!("files ({} written)", files.len())));
    for (path, ws) in files {
        out.push(format!("  {}", shown(path, root)));
        for a in ws {
            out.push(format!(
                "    {}  {:<uw$} {:<aw$} {:<8} {}",
                render::time(a.time),
                short(a.uri),
                a.agent,
                a.write.op.as_str(),
                s.dim(&loaded::origin_text(&a.write.origin))
            ));
        }
    }
    if digest {
        for m in members {
            out.push(String::new());
            out.push(s.bold(&format!("── {}", loaded::title_line(&m.session))));
            out.extend(
                Digest::of(&m.session, &m.facts, Focus::Review).text(&m.session, &m.facts, s),
            );
        }
    }
    let w = render::warnings_text(warnings, 3);
    if !w.is_empty() {
        out.push(String::new());
        out.extend(w.into_iter().map(|l| format!("warning: {l}")));
    }
    loaded::lines(out)
}
