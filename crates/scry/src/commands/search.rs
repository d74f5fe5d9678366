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
use scry_store::{Area, Hit, SortOrder, TermsOperator};

use crate::ctx::Ctx;
use crate::error::CliResult;
use crate::output::Output;
use crate::render::{self, Style};

/// Arguments of `scry search`.
#[derive(Debug, Args)]
pub struct SearchArgs {
    /// What to find: a literal string (spaces are not split), or a regex with --regex
    #[arg(required_unless_present = "terms", default_value = "")]
    pub query: String,
    /// Read the query as a Rust regex
    #[arg(long)]
    pub regex: bool,
    /// Match case exactly (default: Unicode case-insensitive)
    #[arg(long)]
    pub case: bool,
    /// Several literal terms as a JSON array of strings, combined by --operator
    #[arg(long, value_name = "JSON")]
    pub terms: Option<String>,
    /// How --terms combine within one event
    #[arg(long, value_enum, default_value = "and")]
    pub operator: OperatorArg,
    /// Which content: dialogue (default), tools, artifacts, all (thinking only with --kind)
    #[arg(long, value_enum, default_value = "dialogue")]
    pub area: AreaArg,
    /// Only these event kinds (comma-separated: user,assistant,thinking,tool_call,…)
    #[arg(long, value_name = "K,…")]
    pub kind: Option<String>,
    /// Directory subtree (a path, `cwd`, or `global`); default: every directory
    #[arg(long, value_name = "PATH|cwd|global")]
    pub scope: Option<String>,
    /// Search every directory (same as `--scope global`)
    #[arg(long)]
    pub global: bool,
    /// Only sessions updated since then: 30m, 24h, 7d, 2w, or an ISO date / time
    #[arg(long, value_name = "WHEN")]
    pub since: Option<String>,
    /// Only these providers (comma-separated)
    #[arg(long, value_name = "P,…")]
    pub provider: Option<String>,
    /// Only this session (any reference `show` accepts)
    #[arg(long, value_name = "ID")]
    pub session: Option<String>,
    /// Sessions per page
    #[arg(long, default_value_t = 20)]
    pub limit: usize,
    /// Hits shown per session (the totals still count every match)
    #[arg(long, default_value_t = 5)]
    pub max_hits: usize,
    /// Characters of context on each side of a match
    #[arg(long, default_value_t = 60)]
    pub context: usize,
    /// Order: relevance (best hit, then time) or time (newest session first)
    #[arg(long, value_enum, default_value = "relevance")]
    pub sort: SortArg,
    /// Show scry's own echoes in the caller's live session instead of folding them
    #[arg(long)]
    pub include_self: bool,
    /// Continue after a previous page
    #[arg(long, value_name = "C")]
    pub cursor: Option<String>,
    /// Leave out sessions whose source the agent deleted (kept by the index and searched by
    /// default, marked "deleted <date>")
    #[arg(long)]
    pub live_only: bool,
    /// With --store: only this machine's sessions
    #[arg(long, value_name = "NAME")]
    pub machine: Option<String>,
}

/// `--operator`.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum OperatorArg {
    /// Every term.
    And,
    /// Any term.
    Or,
}

/// `--area`.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum AreaArg {
    /// Prompts, answers, titles, summaries.
    Dialogue,
    /// Tool names, arguments, results.
    Tools,
    /// Artifact paths.
    Artifacts,
    /// Everything but thinking.
    All,
}

/// `--sort`.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum SortArg {
    /// Best hit first.
    Relevance,
    /// Newest session first.
    Time,
}

impl SearchArgs {
    /// The query these flags ask for.
    pub fn query(&self) -> SearchQuery {
        SearchQuery {
            query: self.query.clone(),
            regex: self.regex,
            case: self.case,
            terms: self.terms.clone(),
            operator: match self.operator {
                OperatorArg::And => TermsOperator::And,
                OperatorArg::Or => TermsOperator::Or,
            },
            area: match self.area {
                AreaArg::Dialogue => Area::Dialogue,
                AreaArg::Tools => Area::Tools,
                AreaArg::Artifacts => Area::Artifacts,
                AreaArg::All => Area::All,
            },
            kind: self.kind.clone(),
            scope: self.scope.clone(),
            global: self.global,
            since: self.since.clone(),
            provider: self.provider.clone(),
            session: self.session.clone(),
            limit: self.limit,
            max_hits: self.max_hits,
            context: self.context,
            sort: match self.sort {
                SortArg::Relevance => SortOrder::Relevance,
                SortArg::Time => SortOrder::Time,
            },
            include_self: self.include_self,
            cursor: self.cursor.clone(),
            live_only: self.live_only,
        }
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
        if !h.live {
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
        "{} {} in {}\n",
        r.total_matches,
        if r.total_matches == 1 {
            "match"
        } else {
            "matches"
        },
        render::count(r.total_sessions, "session")
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
