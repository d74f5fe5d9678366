//! `scry commands <id> [--failed] [--turn n] [--host h]` (S-C6): the commands ledger (S-F2) —
//! every shell command with its outcome, exit code (unknown stays unknown), duration, host and
//! an output excerpt; JSON rows carry provenance, extractor and evidence handle (S-F1).

use clap::Args;
use scry_facts::{CommandFilter, CommandRow, Outcome, ReferenceCandidate};
use serde_json::json;

use super::loaded::{self, Loaded};
use super::Output;
use crate::app::Ctx;
use crate::error::CliResult;
use crate::render::{self, Style};

/// Arguments of `scry commands`.
#[derive(Debug, Args)]
pub struct CommandsArgs {
    /// Session: full id, provider:id, a unique prefix (≥ 6 characters), or a file path
    pub id: String,
    /// Only commands that failed (exit code ≠ 0, or the agent's error flag)
    #[arg(long)]
    pub failed: bool,
    /// Only commands of this turn
    #[arg(long, value_name = "N")]
    pub turn: Option<u32>,
    /// Only commands run on this host (ssh / scp; `user@host` accepted)
    #[arg(long, value_name = "HOST")]
    pub host: Option<String>,
}

/// Runs `scry commands`.
pub fn run(ctx: &Ctx, args: &CommandsArgs) -> CliResult<Output> {
    let mut l = loaded::load_ledgers(ctx, &args.id)?;
    use_index(ctx, &mut l);
    let filter = CommandFilter {
        failed: args.failed,
        turn: args.turn,
        host: args.host.clone(),
    };
    let rows = filter.apply(&l.facts.commands);
    if ctx.json {
        let v = loaded::envelope(
            &l.session,
            "commands",
            json!(rows.iter().map(loaded::to_value).collect::<Vec<_>>()),
        );
        let mut v = v;
        if let Some(m) = v.as_object_mut() {
            m.insert(
                "total".into(),
                json!({
                    "shown": rows.len(),
                    "commands": l.facts.commands.len(),
                    "failed": l.facts.commands.iter().filter(|c| c.failed()).count(),
                }),
            );
            m.insert(
                "filter".into(),
                json!({"failed": args.failed, "turn": args.turn, "host": args.host}),
            );
        }
        return Ok(super::json_out(&v).into());
    }
    Ok(text(&l, &rows, Style::new(ctx.color)).into())
}

/// When the index is in use and holds this very session (same header, same events), replaces
/// `l.facts` by the index's L2 facts (S-I1: computed from stored events, stored once) and returns
/// its L3 reference candidates; `None` (facts as computed from the read) otherwise. Either way
/// the output is the same as with `--no-index`.
pub fn use_index(ctx: &Ctx, l: &mut Loaded) -> Option<Vec<ReferenceCandidate>> {
    let path = crate::indexed::db_path(ctx)?;
    if !path.exists() {
        return None;
    }
    let store = scry_store::Store::open(&path).ok()?;
    // By uri, or, when two files hold this session id, by the source it was read from.
    let mut at = scry_store::SessionRef::Uri(&l.session.header.uri);
    if let Err(scry_store::StoreError::AmbiguousSession { .. }) = store.header(at) {
        at = scry_store::SessionRef::Source {
            path: l.session.header.sources.first()?,
            key: None,
        };
    }
    let stored = crate::indexed::normalize(store.header(at).ok()?);
    if stored != crate::indexed::normalize(l.session.header.clone())
        || usize::try_from(store.event_count(at).ok()?).ok()? != l.event_count
    {
        return None;
    }
    let layers = store.facts(at).ok()?;
    l.facts = layers.facts;
    Some(layers.references)
}

/// `exit 1`, `ok`, `error`, `?`, `no result`.
pub fn status(row: &CommandRow) -> String {
    match (row.outcome, row.exit_code) {
        (Outcome::Succeeded, Some(c)) | (Outcome::Failed, Some(c)) => format!("exit {c}"),
        (Outcome::Succeeded, None) => "ok".into(),
        (Outcome::Failed, None) => "error".into(),
        (Outcome::Unknown, _) => "?".into(),
        (Outcome::NoResult, _) => "no result".into(),
    }
}

fn text(l: &Loaded, rows: &[&CommandRow], s: Style) -> String {
    let all = &l.facts.commands;
    let failed = all.iter().filter(|c| c.failed()).count();
    let mut out = vec![s.bold(&loaded::title_line(&l.session))];
    let mut summary = format!(
        "{}, {failed} failed",
        render::count(all.len() as u64, "command")
    );
    if rows.len() != all.len() {
        summary.push_str(&format!(" — {} shown", rows.len()));
    }
    out.push(summary);
    for r in rows {
        let st = status(r);
        let st = if r.failed() {
            s.red(&format!("{st:<9}"))
        } else {
            format!("{st:<9}")
        };
        let mut extra = String::new();
        if let Some(h) = &r.host {
            extra.push_str(&format!("  @{h}"));
        }
        if r.background {
            extra.push_str("  (background)");
        }
        if let Some(d) = r.duration_ms {
            extra.push_str(&format!("  {}", render::duration_ms(d)));
        }
        out.push(format!(
            "{:<10} {st} {}{extra}  {}",
            r.origin.evidence.handle(),
            render::clip(&r.command, 70),
            s.dim(&r.tool)
        ));
        if r.failed() {
            let o = r.stderr.as_ref().or(r.stdout.as_ref());
            if let Some(o) = o.filter(|o| !o.text.trim().is_empty()) {
                let last = o.text.lines().rev().find(|x| !x.trim().is_empty());
                out.push(format!(
                    "{:<10} {}",
                    "",
                    render::clip(last.unwrap_or(""), render::WIDTH - 12)
                ));
            }
        }
    }
    out.extend(loaded::warnings_tail(&l.session));
    loaded::lines(out)
}
