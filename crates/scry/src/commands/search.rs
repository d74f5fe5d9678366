//! `scry search` (S-C5, S-S1…S-S5): the flags map onto one [`SearchRequest`]; the request runs
//! against the index (after refreshing the sessions in scope) or, with `--no-index` or an
//! unusable index, through [`search_direct`] over directly parsed sessions — same answer.
//!
//! Text output: one block per session (uri, title), each hit with turn / event, the matched
//! field, an excerpt and the command that reads it; the matches are highlighted in bold on a
//! terminal and wrapped in `[` `]` when piped (so a pipe still shows where they are). JSON: the
//! response with snake_case keys like every other command, headers as `list` prints them; the
//! `plan` (how the index answered) is left out so indexed and direct output are identical.

use clap::Args;
use scry_model::{ErrorCode, EventKind, Session, Timestamp};
use scry_source::SourceFile;
use scry_store::{
    search_direct, Area, Caller, Hit, SearchMode, SearchRequest, SearchResponse, SessionFilter,
    SortOrder, TermsOperator, TimeRange,
};
use serde_json::{json, Value};

use super::Output;
use crate::app::Ctx;
use crate::catalog::Catalog;
use crate::error::{CliError, CliResult};
use crate::filter::{self, Scope};
use crate::indexed;
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

/// Runs `scry search`.
pub fn run(ctx: &Ctx, args: &SearchArgs) -> CliResult<Output> {
    let providers = filter::providers(args.provider.as_deref())?;
    let catalog = Catalog::discover(&ctx.env, &providers);
    let mut req = request(ctx, args, &providers)?;
    let scope = Scope::parse(
        args.scope.as_deref(),
        args.global,
        &ctx.cwd,
        true,
        !ctx.demo,
    )?;
    let files: Vec<SourceFile> = match &args.session {
        Some(id) => {
            let file = catalog.resolve(id)?;
            vec![file]
        }
        None => catalog
            .files
            .iter()
            .filter(|f| f.cwd_hint.is_none() || scope.contains(f.cwd_hint.as_deref()))
            .cloned()
            .collect(),
    };
    if let Some(first) = files.first().filter(|_| args.session.is_some()) {
        // The session's uri: from the index, else from a header scan.
        let (entries, _) = catalog.scan(&[first]);
        if let Some(e) = entries.first() {
            req.filter.uris = vec![e.header.uri.clone()];
        }
    }
    let mut resp = None;
    if let Some(mut store) = indexed::open(ctx) {
        if indexed::refresh(&mut store, catalog.sources(), &files) {
            req.filter.live = Some(true);
            match store.search(&req) {
                Ok(r) => resp = Some(r),
                Err(e) => return Err(with_query(store_error(&e), &req)),
            }
        }
    }
    let resp = match resp {
        Some(r) => r,
        None => {
            req.filter.live = Some(true);
            let sessions = parse_all(&catalog, &files);
            search_direct(&sessions, &req).map_err(|e| with_query(store_error(&e), &req))?
        }
    };
    if ctx.json {
        return Ok(super::json_out(&to_json(&resp)).into());
    }
    Ok(text(&resp, Style::new(ctx.color), ctx.color))
}

/// Maps a store error onto the CLI error (usage errors exit 2 through their code), on one line:
/// the regex engine's multi-line message keeps its last line, the reason.
fn store_error(e: &scry_store::StoreError) -> CliError {
    let msg = e.to_string();
    let msg = match msg.lines().count() {
        0 | 1 => msg,
        _ => {
            let reason = msg.lines().last().unwrap_or_default().trim();
            let first = msg.lines().next().unwrap_or_default().trim();
            format!("{first} {}", reason.trim_start_matches("error: "))
        }
    };
    CliError::new(e.code(), msg)
}

/// Names the offending query in an invalid-query error.
fn with_query(mut e: CliError, req: &SearchRequest) -> CliError {
    if let CliError::Failed(f) = &mut e {
        if f.code == ErrorCode::InvalidQuery && req.mode == SearchMode::Regex {
            f.message = f.message.replacen(
                "invalid query:",
                &format!("invalid regex '{}':", req.query),
                1,
            );
        }
    }
    e
}

fn request(
    ctx: &Ctx,
    args: &SearchArgs,
    providers: &[scry_model::ProviderId],
) -> CliResult<SearchRequest> {
    let mut req = match &args.terms {
        Some(json) => {
            let terms: Vec<String> = serde_json::from_str(json).map_err(|e| {
                CliError::usage(
                    ErrorCode::InvalidQuery,
                    format!("--terms '{json}' is not a JSON array of strings: {e}"),
                )
            })?;
            let op = match args.operator {
                OperatorArg::And => TermsOperator::And,
                OperatorArg::Or => TermsOperator::Or,
            };
            SearchRequest::terms(terms, op)
        }
        None if args.regex => SearchRequest::regex(args.query.clone()),
        None => SearchRequest::literal(args.query.clone()),
    };
    if req.mode != SearchMode::Terms && req.query.is_empty() {
        return Err(CliError::usage(
            ErrorCode::InvalidQuery,
            "the search query is empty",
        ));
    }
    req.case_sensitive = args.case;
    req.area = match args.area {
        AreaArg::Dialogue => Area::Dialogue,
        AreaArg::Tools => Area::Tools,
        AreaArg::Artifacts => Area::Artifacts,
        AreaArg::All => Area::All,
    };
    if let Some(kinds) = &args.kind {
        for k in kinds.split(',').map(str::trim) {
            let kind = EventKind::parse(k).ok_or_else(|| {
                CliError::usage(
                    ErrorCode::InvalidFilter,
                    format!("unknown event kind '{k}'"),
                )
            })?;
            req.kinds.push(kind);
        }
    }
    let now = Timestamp::now();
    let scope = Scope::parse(
        args.scope.as_deref(),
        args.global,
        &ctx.cwd,
        true,
        !ctx.demo,
    )?;
    req.filter = SessionFilter {
        providers: providers.to_vec(),
        cwd_under: match scope {
            Scope::Global => None,
            Scope::Under(forms) => forms.into_iter().next(),
        },
        updated: match &args.since {
            Some(s) => TimeRange::since(filter::since(s, now)?),
            None => TimeRange::default(),
        },
        ..SessionFilter::default()
    };
    req.limit = args.limit;
    req.max_hits = args.max_hits;
    req.context = args.context;
    req.sort = match args.sort {
        SortArg::Relevance => SortOrder::Relevance,
        SortArg::Time => SortOrder::Time,
    };
    req.cursor.clone_from(&args.cursor);
    req.include_self = args.include_self;
    // Self-echo (S-S4): the caller's live session when it names itself in SCRY_CALLER
    // (`provider:id`); no agent exports its session id to tools in a documented variable.
    req.caller = ctx
        .env
        .var("SCRY_CALLER")
        .filter(|u| !u.is_empty())
        .map(|uri| Caller {
            uri: uri.to_string(),
            now,
        });
    Ok(req)
}

/// Parses every file directly (`--no-index`); a source that cannot be read is skipped, as the
/// index skips (and reports at `index`) a source it cannot parse.
fn parse_all(catalog: &Catalog, files: &[SourceFile]) -> Vec<Session> {
    let mut out = Vec::new();
    for file in files {
        let Ok(source) = catalog.source(file.provider) else {
            continue;
        };
        let parsed = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| source.parse(file)));
        if let Ok(Ok(mut s)) = parsed {
            if s.header.sources.is_empty() {
                s.header.sources.push(file.path.clone());
            }
            out.push(s);
        }
    }
    out
}

fn to_json(r: &SearchResponse) -> Value {
    let sessions: Vec<Value> = r
        .sessions
        .iter()
        .map(|s| {
            json!({
                "session": render::header_json(&indexed::normalize(s.header.clone())),
                "score": s.score,
                "hit_count": s.hit_count,
                "hits": s.hits,
                "has_more_hits": s.has_more_hits,
            })
        })
        .collect();
    json!({
        "sessions": sessions,
        "total_matches": r.total_matches,
        "total_sessions": r.total_sessions,
        "self_folded": r.self_folded,
        "next_cursor": r.next_cursor,
    })
}

fn text(r: &SearchResponse, s: Style, color: bool) -> Output {
    let mut out = String::new();
    for sh in &r.sessions {
        let h = &sh.header;
        out.push_str(&s.bold(&format!(
            "{}  {}",
            h.uri,
            render::clip(h.title.as_deref().unwrap_or("(untitled)"), 60)
        )));
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
                h.uri
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
