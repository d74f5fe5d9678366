//! `scry events <id> --follow`: prints the last page of `scry events` (or the page its cursor
//! or `--seq` asks for), then every new event of
//! the session as it is written, until Ctrl-C (exit 0) or the source is deleted (one line,
//! exit 0). The source is stat'ed every [`POLL`]; a change is read through
//! [`scry_query::events::Follow::poll`] (the index's partial refresh, or the provider's
//! resume point without the index), so only what was appended is parsed and each event is
//! printed once. With `--json` every line is one JSON object: the page first, then one row per
//! new event (as in the page's `events`), and `{"notice": …}` lines for a truncated,
//! rewritten or deleted source.

use std::io::Write;
use std::time::Duration;

use scry_model::ErrorCode;
use scry_query::events::{FollowJson, Update};
use scry_query::{EventQuery, PageRequest};

use super::text::{page_text, row_text};
use crate::ctx::Ctx;
use crate::error::{CliError, CliResult};
use crate::output::Output;
use crate::render::Style;

/// How often the source is checked.
pub const POLL: Duration = Duration::from_millis(200);

/// Runs `scry events <id> --follow`.
pub fn run(ctx: &Ctx, id: &str, q: &EventQuery, page: &PageRequest, s: Style) -> CliResult<Output> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| CliError::new(ErrorCode::Aborted, format!("cannot follow: {e}")))?;
    runtime.block_on(async {
        let ctrl_c = tokio::signal::ctrl_c();
        tokio::pin!(ctrl_c);
        // Poll once so the handler is in place before anything is printed.
        tokio::select! {
            biased;
            _ = &mut ctrl_c => return Ok(Output::default()),
            _ = std::future::ready(()) => {}
        }
        let (first, mut follow) = scry_query::events::follow(ctx, id, q, page)?;
        let shown = if ctx.json {
            let mut line = first.to_json().to_string();
            line.push('\n');
            Output {
                stdout: line,
                stderr: Output::with_warnings(String::new(), &first.warnings).stderr,
            }
        } else {
            page_text(&first, s)
        };
        let mut err = std::io::stderr();
        let _ = err.write_all(shown.stderr.as_bytes());
        if !emit(&shown.stdout) {
            return Ok(Output::default());
        }
        let _ = writeln!(
            err,
            "following {} ({}); Ctrl-C to stop",
            follow.path().display(),
            if follow.indexed() {
                "through the index"
            } else {
                "reading the source"
            }
        );
        loop {
            tokio::select! {
                _ = &mut ctrl_c => return Ok(Output::default()),
                _ = tokio::time::sleep(POLL) => {}
            }
            let Some(update) = follow.poll()? else {
                continue;
            };
            if !emit(&render(&update, ctx.json, s)) || update.gone {
                return Ok(Output::default());
            }
        }
    })
}

/// What one update prints.
fn render(u: &Update, json: bool, s: Style) -> String {
    let mut out = String::new();
    if let Some(n) = &u.notice {
        if json {
            out.push_str(
                &FollowJson {
                    notice: Some(n),
                    gone: Some(u.gone),
                    session_events: u.session_events,
                    ..FollowJson::default()
                }
                .to_value()
                .to_string(),
            );
            out.push('\n');
        } else {
            let tail = if u.gone { "; stopped following" } else { "" };
            out.push_str(&s.dim(&format!("-- {n}{tail}")));
            out.push('\n');
        }
    }
    for r in &u.events {
        if json {
            out.push_str(&serde_json::to_string(r).unwrap_or_else(|_| "null".into()));
            out.push('\n');
        } else {
            out.push_str(&row_text(r, s));
        }
    }
    out
}

/// Writes to stdout and flushes; `false` once stdout is closed (a pipe reader went away).
fn emit(text: &str) -> bool {
    if text.is_empty() {
        return true;
    }
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes()).is_ok() && out.flush().is_ok()
}
