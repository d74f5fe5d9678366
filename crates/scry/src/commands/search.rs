//! `scry search` (S-C5, S-S1…S-S5): the flags map onto one [`SearchQuery`] that the query
//! crate answers from the index (after refreshing the sessions in scope) or, with `--no-index`
//! or an unusable index, over directly parsed sessions — same answer.
//!
//! Text output: one block per session (uri, title), each hit with turn / event, the matched
//! field, an excerpt and the command that reads it; the matches are highlighted in bold on a
//! terminal and wrapped in `[` `]` when piped (so a pipe still shows where they are). JSON: the
//! response with snake_case keys like every other command, headers as `list` prints them; the
//! `plan` (how the index answered) is left out so indexed and direct output are identical.

use clap::Args;
use scry_query::SearchQuery;
use scry_store::Hit;

use crate::ctx::Ctx;
use crate::error::CliResult;
use crate::output::Output;
use crate::render::{self, Style};

/// Arguments of `scry search`: the query's request type (its flags defined once, in
/// `scry_query::SearchQuery`, the team store's `machine` filter and `revision` among them).
#[derive(Debug, Args)]
pub struct SearchArgs {
    /// The search.
    #[command(flatten)]
    pub request: SearchQuery,
}

impl SearchArgs {
    /// The query these flags ask for.
    pub fn query(&self) -> SearchQuery {
        self.request.clone()
    }
}

/// Runs `scry search`.
pub fn run(ctx: &Ctx, args: &SearchArgs) -> CliResult<Output> {
    let result = scry_query::search(ctx, &args.query())?;
    if ctx.json {
        return Ok(crate::output::json_out(&result.to_json()).into());
    }
    Ok(text(&result, &[], Style::new(ctx.color), ctx.color))
}

/// The text of `search`; `machines` (one per session, from a team store) names each session
/// `machine/provider:id`, the reference that picks it in the store.
pub(super) fn text(
    result: &scry_query::SearchResult,
    machines: &[String],
    s: Style,
    color: bool,
) -> Output {
    let r = &result.response;
    let mut out = String::new();
    for (i, sh) in r.sessions.iter().enumerate() {
        let h = &sh.header;
        let uri = match machines.get(i) {
            Some(m) => format!("{m}/{}", h.uri),
            None => h.uri.clone(),
        };
        out.push_str(&s.bold(&format!(
            "{}  {}",
            uri,
            render::clip(h.title.as_deref().unwrap_or("(untitled)"), 60)
        )));
        let superseded = sh
            .hits
            .iter()
            .find(|x| x.superseded)
            .and_then(|x| x.revision);
        if let Some(n) = superseded {
            // An earlier revision (issue 20): text the source no longer has.
            out.push_str(&format!(
                "  {}",
                s.dim(&format!("[superseded: revision {n}]"))
            ));
        } else if !h.live {
            let mark = scry_query::archive::Mark {
                last_seen: None,
                deleted: result.deleted.get(i).copied().flatten(),
            };
            out.push_str(&format!("  {}", s.dim(&format!("[{}]", mark.text()))));
        }
        out.push_str(&format!(
            "  {}\n",
            s.dim(&render::count(sh.hit_count as u64, "hit"))
        ));
        for hit in &sh.hits {
            out.push_str(&hit_line(hit, s, color));
        }
        if sh.has_more_hits {
            out.push_str(&format!(
                "  … {} more in this session (raise --max-hits or --session {})\n",
                sh.hit_count.saturating_sub(sh.hits.len()),
                uri
            ));
        }
    }
    let mut notes = format!(
        "{}{} {} in {}{}\n",
        if r.total_exact { "" } else { "at least " },
        r.total_matches,
        if r.total_matches == 1 {
            "match"
        } else {
            "matches"
        },
        render::count(r.total_sessions, "session"),
        if r.total_exact {
            ""
        } else {
            " (read up to the next page; --count all counts every one)"
        }
    );
    if r.self_folded > 0 {
        notes.push_str(&format!(
            "{} of scry's own echo folded (--include-self)\n",
            render::count(r.self_folded, "hit")
        ));
    }
    if let Some(c) = &r.next_cursor {
        notes.push_str(&format!("more: --cursor {c}\n"));
    }
    Output {
        stdout: out,
        stderr: notes,
    }
}

fn hit_line(hit: &Hit, s: Style, color: bool) -> String {
    let place = match (hit.turn, hit.event) {
        (Some(t), Some(e)) => format!("T{t} E{e}"),
        (None, Some(e)) => format!("E{e}"),
        _ => "session".to_string(),
    };
    let kind = hit.kind.map(|k| k.as_str()).unwrap_or("");
    let field = serde_json::to_value(hit.field)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default();
    let excerpt = highlight(hit, color);
    let field = if hit.superseded {
        format!("{field} (superseded)")
    } else {
        field
    };
    format!(
        "  {}  {} {}  {}\n    {}\n",
        s.cyan(&place),
        kind,
        field,
        excerpt,
        s.dim(&hit.command)
    )
}

/// The excerpt on one line with the matches marked: bold on a terminal, `[…]` otherwise.
fn highlight(hit: &Hit, color: bool) -> String {
    let chars: Vec<char> = hit.excerpt.chars().collect();
    let len = chars.len();
    let mut marks: Vec<(usize, usize)> = hit
        .ranges
        .iter()
        .filter_map(|[a, b]| {
            let a = a.checked_sub(hit.excerpt_start)?;
            let b = b.saturating_sub(hit.excerpt_start).min(len);
            (a < b).then_some((a, b))
        })
        .collect();
    marks.sort_unstable();
    let (open, close) = if color {
        ("\u{1b}[1;33m", "\u{1b}[0m")
    } else {
        ("[", "]")
    };
    let mut out = String::new();
    let mut i = 0;
    for (a, b) in marks {
        if a < i {
            continue;
        }
        out.extend(chars[i..a].iter());
        out.push_str(open);
        out.extend(chars[a..b].iter());
        out.push_str(close);
        i = b;
    }
    out.extend(chars[i..].iter());
    out.replace(['\n', '\r', '\t'], " ")
}
