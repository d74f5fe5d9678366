//! `scry list` (S-C1): recent sessions in a scope, newest first, children folded under their
//! parent unless `--kind` asks otherwise.

use std::collections::BTreeMap;

use clap::Args;
use scry_model::SessionKind;
use scry_query::{ListQuery, ListRequest, SessionList};

use crate::ctx::Ctx;
use crate::error::CliResult;
use crate::output::Output;
use crate::render::{self, Style};

/// Arguments of `scry list`: the query's request type (its flags defined once, in
/// `scry_query::ListRequest`, the team store's `machine` filter among them).
#[derive(Debug, Args)]
pub struct ListArgs {
    /// The list.
    #[command(flatten)]
    pub request: ListRequest,
}

/// Runs `scry list`.
pub fn run(ctx: &Ctx, args: &ListArgs) -> CliResult<Output> {
    let list = scry_query::list(ctx, &args.query())?;
    if ctx.json {
        return Ok(crate::output::json_out(&list.to_json()).into());
    }
    Ok(text(
        &list,
        args.request.filter.global(),
        &[],
        Style::new(ctx.color),
    ))
}

impl ListArgs {
    /// The query these flags ask for.
    pub fn query(&self) -> ListQuery {
        self.request.query()
    }
}

fn children_label(children: &BTreeMap<&'static str, usize>) -> String {
    children
        .iter()
        .map(|(k, n)| format!("+{n} {k}{}", if *n == 1 { "" } else { "s" }))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The shortest prefix of `id` (at least 8 characters, at most 24) that no other id shares.
fn short_id(id: &str, all: &[String]) -> String {
    let n = id.chars().count();
    // A word prefix such as `session-` or `ses_` does not count towards the 8 characters.
    let word = id
        .char_indices()
        .find(|(_, c)| !c.is_ascii_alphabetic())
        .filter(|(i, c)| *i > 0 && matches!(c, '-' | '_'))
        .map_or(0, |(i, _)| i + 1);
    let mut len = (word + 8).min(n);
    while len < n.min(word + 16) {
        let prefix: String = id.chars().take(len).collect();
        if !all.iter().any(|o| o != id && o.starts_with(&prefix)) {
            break;
        }
        len += 1;
    }
    id.chars().take(len).collect()
}

/// The text of `list`; `machines` (one per row, from a team store) adds a machine column.
pub(super) fn text(list: &SessionList, global: bool, machines: &[String], s: Style) -> Output {
    let (rows, ids, hidden, warnings) = (&list.rows, &list.ids, list.hidden, &list.warnings);
    let mut out = String::new();
    let mut notes = String::new();
    if rows.is_empty() {
        notes.push_str(if global {
            "no sessions found\n"
        } else {
            "no sessions found in this scope (try --global)\n"
        });
    }
    let pw = rows
        .iter()
        .map(|r| r.header.provider.as_str().len())
        .max()
        .unwrap_or(6)
        .max(6);
    let shorts: Vec<String> = rows.iter().map(|r| short_id(&r.header.id, ids)).collect();
    let iw = shorts
        .iter()
        .map(|s| s.chars().count())
        .max()
        .unwrap_or(8)
        .max(8);
    // A team store's machine column (with its gap), after the time.
    let mw = machines
        .iter()
        .map(|m| m.chars().count())
        .max()
        .map_or(0, |w| w.clamp(7, 16) + 2);
    // time 16 + provider + id + four gaps of 2 = the fixed part; title and cwd share the rest.
    let free = render::WIDTH.saturating_sub(16 + mw + pw + iw + 8);
    let cwd_w = free * 2 / 5;
    let title_w = free - cwd_w;
    for (i, (row, id)) in rows.iter().zip(&shorts).enumerate() {
        let h = &row.header;
        let mut title = h.title.clone().unwrap_or_else(|| "(untitled)".into());
        if h.kind != SessionKind::Main {
            title = format!("[{}] {title}", h.kind.as_str());
        }
        if let Some(m) = list.mark(row) {
            title = format!("[{}] {title}", m.text());
        }
        let label = children_label(&row.children);
        let title = if label.is_empty() {
            render::cell(&title, title_w)
        } else {
            let room = title_w.saturating_sub(label.chars().count() + 1);
            let t = render::clip(&title, room);
            let pad = title_w.saturating_sub(t.chars().count() + 1 + label.chars().count());
            format!("{t}{} {}", " ".repeat(pad), s.dim(&label))
        };
        let cwd = render::clip_left(h.cwd.as_deref().unwrap_or("-"), cwd_w);
        let machine = match machines.get(i) {
            Some(m) => format!("{}  ", render::cell(m, mw - 2)),
            None => String::new(),
        };
        let line = format!(
            "{}  {machine}{}  {}  {}  {}",
            render::cell(&render::time(h.updated), 16),
            s.cyan(&render::cell(h.provider.as_str(), pw)),
            render::cell(id, iw),
            title,
            cwd
        );
        out.push_str(line.trim_end());
        out.push('\n');
    }
    if let Some(c) = &list.next_cursor {
        let more = list.total.saturating_sub(list.offset + rows.len());
        notes.push_str(&format!(
            "… {more} more (raise --limit, or continue with --cursor {c})\n"
        ));
    }
    if hidden > 0 {
        notes.push_str(&format!(
            "{hidden} one-shot (exec) sessions and their children hidden (--kind all or --kind exec)\n"
        ));
    }
    for line in render::warnings_text(warnings, 3) {
        notes.push_str(&line);
        notes.push('\n');
    }
    Output {
        stdout: out,
        stderr: notes,
    }
}
