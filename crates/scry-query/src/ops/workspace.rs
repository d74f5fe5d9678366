//! `workspace` (S-C7): the cross-agent story of one project — every session of every provider
//! whose working directory is in the subtree (default: the current directory; in the demo,
//! every demo session), one unified timeline of their turns, and file attribution from the
//! files ledgers: which session (and agent) wrote which file when.
//!
//! Each session streams once through a fact fold ([`super::fold_file`]: no session is held);
//! a session that cannot be read becomes a warning.

use std::collections::BTreeMap;

use scry_facts::{Failure, FileWrite, FoldedSession};
use scry_model::{Header, Session, Timestamp, Warning, WarningKind};
use serde::{Deserialize, Serialize};

use super::digest::{status_label, Digest, Focus};
use crate::catalog::Catalog;
use crate::filter::{self, Scope};
use crate::{Context, QueryResult};

/// What `workspace` is asked.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct WorkspaceRequest {
    /// Directory subtree (default: the current directory; `global` for every session)
    #[serde(default)]
    pub path: Option<String>,
    /// Only sessions updated since then: 30m, 24h, 7d, 2w, or an ISO date / time
    #[serde(default)]
    #[cfg_attr(feature = "cli", arg(long, value_name = "WHEN"))]
    pub since: Option<String>,
    /// Add each session's digest (review focus)
    #[serde(default)]
    #[cfg_attr(feature = "cli", arg(long))]
    pub digest: bool,
}

/// One session of the workspace.
#[derive(Debug, Clone, Serialize)]
pub struct Member {
    /// Its header.
    #[serde(serialize_with = "super::ser_header")]
    pub session: Header,
    /// The agent that wrote it ([`agent`]).
    pub agent: String,
    /// Turns.
    pub turns: u32,
    /// Distinct files written.
    pub files_changed: usize,
    /// Write events.
    pub write_events: usize,
    /// Shell commands.
    pub commands: usize,
    /// Failures.
    pub failures: usize,
    /// Reading warnings (a count).
    pub warnings: usize,
    /// Its digest (review focus), when asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub digest: Option<Digest>,
    /// Its failures (for the text form of the digest; the JSON counts them).
    #[serde(skip)]
    pub failure_rows: Vec<Failure>,
}

/// One timeline row: a turn of one session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Moment {
    /// When the turn started.
    pub time: Option<Timestamp>,
    /// The session uri.
    pub session: String,
    /// The turn number.
    pub turn: u32,
    /// What the user asked.
    pub prompt: Option<String>,
    /// The turn's status marks (`completed`, `failed_tail, no_response`, …).
    pub status: String,
    /// The evidence handle of its first event (`E12·T3`).
    pub evidence: String,
}

/// One write, attributed to its session and agent.
#[derive(Debug, Clone, Serialize)]
pub struct AttributedWrite {
    /// The write event.
    #[serde(flatten)]
    pub write: FileWrite,
    /// When it happened.
    pub time: Option<Timestamp>,
    /// The session uri.
    pub session: String,
    /// The agent that wrote.
    pub agent: String,
}

/// One file with every write of it, oldest first.
#[derive(Debug, Clone, Serialize)]
pub struct AttributedFile {
    /// The path (host-qualified when remote).
    pub path: String,
    /// The path relative to the workspace root when below it.
    pub display: String,
    /// Every write.
    pub writes: Vec<AttributedWrite>,
}

/// The answer of [`workspace`] (`scry workspace --json`).
#[derive(Debug, Clone, Serialize)]
pub struct WorkspaceReport {
    /// The subtree (`null`: every directory).
    pub root: Option<String>,
    /// Every session, oldest first.
    pub sessions: Vec<Member>,
    /// Every turn of every session, in time order.
    pub timeline: Vec<Moment>,
    /// Every file written, by path.
    pub files: Vec<AttributedFile>,
    /// Discovery, scan and reading warnings.
    #[serde(serialize_with = "super::ser_warnings")]
    pub warnings: Vec<Warning>,
}

/// The workspace of `req.path` (default: the current directory).
pub fn workspace(ctx: &Context, req: &WorkspaceRequest) -> QueryResult<WorkspaceReport> {
    let scope = Scope::parse(
        req.path.as_deref(),
        false,
        &ctx.cwd,
        ctx.demo && req.path.is_none(),
        !ctx.demo,
    )?;
    let since = match &req.since {
        Some(s) => Some(filter::since(s, Timestamp::now())?),
        None => None,
    };
    let catalog = Catalog::discover(ctx, &[]);
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
    let mut read: Vec<(Session, FoldedSession)> = Vec::new();
    for e in &entries {
        match super::fold_file(&catalog, &e.file) {
            Ok(pair) => read.push(pair),
            Err(err) => warnings.push(Warning::at(
                WarningKind::Unreadable,
                err.message,
                &e.file.path,
                None,
            )),
        }
    }
    let root = match &scope {
        Scope::Global => None,
        Scope::Under(forms) => forms.first().cloned(),
    };
    let timeline = timeline(&read);
    let files = attribution(&read, root.as_deref());
    let sessions = read
        .into_iter()
        .map(|(session, f)| Member {
            agent: agent(&session.header),
            turns: f.counts.turns,
            files_changed: f.facts.files.files().len(),
            write_events: f.facts.files.writes.len(),
            commands: f.facts.commands.len(),
            failures: f.facts.failures.len(),
            warnings: session.warnings.len(),
            digest: req
                .digest
                .then(|| Digest::folded(&session.header, &f, Focus::Review)),
            failure_rows: f.facts.failures,
            session: session.header,
        })
        .collect();
    Ok(WorkspaceReport {
        root,
        sessions,
        timeline,
        files,
        warnings,
    })
}

/// The agent that wrote: provider, plus the agent name or session kind when not `main`.
pub fn agent(h: &Header) -> String {
    let mut a = h.provider.as_str().to_string();
    if let Some(n) = h.agent_name.as_ref().filter(|n| *n != h.provider.as_str()) {
        a.push_str(&format!("/{n}"));
    } else if h.kind.as_str() != "main" {
        a.push_str(&format!("/{}", h.kind.as_str()));
    }
    a
}

fn timeline(members: &[(Session, FoldedSession)]) -> Vec<Moment> {
    let mut out = Vec::new();
    for (session, f) in members {
        for t in &f.turns {
            if t.turn == 0 {
                continue;
            }
            out.push(Moment {
                time: t.start,
                session: session.header.uri.clone(),
                turn: t.turn,
                prompt: t.user.clone(),
                status: status_label(t),
                evidence: format!("E{}·T{}", t.first_event, t.turn),
            });
        }
    }
    out.sort_by(|a, b| {
        (a.time.is_none(), a.time)
            .cmp(&(b.time.is_none(), b.time))
            .then_with(|| a.session.cmp(&b.session))
            .then_with(|| a.turn.cmp(&b.turn))
    });
    out
}

/// Writes per file path (host-qualified when remote), each list oldest first.
fn attribution(members: &[(Session, FoldedSession)], root: Option<&str>) -> Vec<AttributedFile> {
    let mut out: BTreeMap<String, Vec<AttributedWrite>> = BTreeMap::new();
    for (session, f) in members {
        for w in &f.facts.files.writes {
            let key = match &w.host {
                Some(h) => format!("{h}:{}", w.path),
                None => w.path.clone(),
            };
            let time = f
                .times
                .get(w.origin.evidence.seq() as usize)
                .copied()
                .flatten();
            out.entry(key).or_default().push(AttributedWrite {
                time,
                session: session.header.uri.clone(),
                agent: agent(&session.header),
                write: w.clone(),
            });
        }
    }
    out.into_iter()
        .map(|(path, mut writes)| {
            writes.sort_by(|a, b| {
                (a.time.is_none(), a.time)
                    .cmp(&(b.time.is_none(), b.time))
                    .then_with(|| a.session.cmp(&b.session))
            });
            AttributedFile {
                display: shown(&path, root),
                path,
                writes,
            }
        })
        .collect()
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
