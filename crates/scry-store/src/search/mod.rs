//! Search (SPEC §5, S-S1…S-S6): one request type, one response type, two scopes (across
//! sessions, grouped and ranked; within one session, header always returned — S-Q5), and two
//! back ends with identical answers: the index ([`crate::Store::search`]) and parsed sessions
//! ([`search_direct`], for `--no-index`).
//!
//! Semantics:
//! - `literal` (default): the query is one string, spaces included; `regex`: Rust `regex`
//!   syntax (an invalid pattern is `INVALID_QUERY` with the engine's message); `terms`: several
//!   literals combined with AND / OR over the fields of one event.
//! - Unicode case-insensitive unless `case_sensitive`; any script matches as a substring,
//!   1- and 2-character queries included. Empty matches (e.g. `a*`) are ignored.
//! - The regex engine is the single authority on what matches. The trigram FTS table only
//!   narrows candidates when the query (or a regex's required literal) has a run of ≥ 3
//!   characters whose case variants are none or one ASCII pair (the folding of the trigram keys,
//!   [`crate::grams`]); otherwise stored text is scanned. Query text is always data: FTS queries
//!   are built from quoted trigram words and passed as bound parameters.
//! - Areas: `dialogue` = user, assistant and compaction text plus session titles; `tools` = tool
//!   calls and results (text, tool name, argument values); `artifacts` = artifact paths; `all`
//!   = every kind but thinking, plus titles and artifacts. A non-empty `kinds` list replaces the
//!   area's event kinds (so `kinds: [thinking]` searches thinking) and leaves out session-level
//!   fields.
//! - A hit is one matching field of one event (or a session's title / artifact list).
//!   `total_matches` counts every hit in scope — no scan budget.
//! - Ranking: a BM25-like score per hit (term frequency saturated against field length, user
//!   prompts and titles boosted ×2, tool fields ×0.8, meta/system ×0.5); sessions by their best
//!   hit, then last update, then uri. `sort: time` orders sessions by last update and hits by
//!   position.
//! - Self-echo (S-S4): with a [`Caller`], hits in the caller's own session on a tool call whose
//!   arguments run `scry …` within the last five minutes (and on that call's results) are folded:
//!   left out and counted in `self_folded`, unless `include_self`.

mod collector;
mod each;
mod engine;
mod indexed;
mod matcher;
mod one;
mod streamed;

use scry_model::{EventKind, Header, Locator, ProviderId, Timestamp};
use serde::{Deserialize, Serialize};

use crate::filter::SessionFilter;

pub use each::{search_direct_each, EachError};
pub use engine::{search_direct, search_session_direct};
pub use one::search_one_direct;

/// How the query is interpreted.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SearchMode {
    /// One literal string (spaces are not split).
    #[default]
    Literal,
    /// A Rust regex.
    Regex,
    /// Several literals ([`SearchRequest::terms`]) combined by [`SearchRequest::operator`].
    Terms,
}

/// How terms combine within one event.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum TermsOperator {
    /// Every term occurs in some searched field of the event.
    #[default]
    #[cfg_attr(feature = "cli", value(help = "Every term"))]
    And,
    /// At least one term occurs.
    #[cfg_attr(feature = "cli", value(help = "Any term"))]
    Or,
}

/// Which content is searched.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Area {
    /// User / assistant / compaction text and titles.
    #[default]
    #[cfg_attr(feature = "cli", value(help = "Prompts, answers, titles, summaries"))]
    Dialogue,
    /// Tool names, arguments and results.
    #[cfg_attr(feature = "cli", value(help = "Tool names, arguments, results"))]
    Tools,
    /// Artifact paths.
    #[cfg_attr(feature = "cli", value(help = "Artifact paths"))]
    Artifacts,
    /// Everything but thinking.
    #[cfg_attr(feature = "cli", value(help = "Everything but thinking"))]
    All,
}

/// Result order.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum SortOrder {
    /// Best hit first, then most recent.
    #[default]
    #[cfg_attr(feature = "cli", value(help = "Best hit first"))]
    Relevance,
    /// Most recently updated session first; hits in session order.
    #[cfg_attr(feature = "cli", value(help = "Newest session first"))]
    Time,
}

/// How much of a `sort: time` search is counted.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Count {
    /// Sessions newest first only until the page and one more session with hits are found:
    /// past the last page the totals are a lower bound (`total_exact: false`). Relevance
    /// order ranks every session, so its totals are always exact. Asked for, never the
    /// default: SPEC S-S3 makes `total_matches` the true total.
    #[cfg_attr(
        feature = "cli",
        value(help = "Totals of the sessions read for the page")
    )]
    Page,
    /// Every session in scope is searched and counted (the default).
    #[default]
    #[cfg_attr(feature = "cli", value(help = "Every match counted"))]
    All,
}

/// Who is searching: the caller's own live session and the current time, for self-echo
/// folding (S-S4).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Caller {
    /// The caller's session uri (`provider:id`).
    pub uri: String,
    /// Now.
    pub now: Timestamp,
}

/// One search. [`SearchRequest::literal`] gives the defaults.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SearchRequest {
    /// The query (literal text or regex; ignored in terms mode).
    pub query: String,
    /// How `query` is read.
    pub mode: SearchMode,
    /// The terms for [`SearchMode::Terms`].
    pub terms: Vec<String>,
    /// How terms combine.
    pub operator: TermsOperator,
    /// Exact case (default: Unicode case-insensitive).
    pub case_sensitive: bool,
    /// Which content.
    pub area: Area,
    /// Only these event kinds (replaces the area's kinds; `thinking` only when listed).
    pub kinds: Vec<EventKind>,
    /// Which sessions (scope = `cwd_under`, since = `updated.from`, provider, session = `uris`).
    pub filter: SessionFilter,
    /// Sessions per page (1–1000; default 20). Within one session: hits per page is `max_hits`.
    pub limit: usize,
    /// Hits shown per session (1–10000; default 5). `total_matches` still counts all.
    pub max_hits: usize,
    /// Characters of context on each side of the first match in an excerpt (default 60).
    pub context: usize,
    /// Result order.
    pub sort: SortOrder,
    /// How much is counted (the totals of a `sort: time` search; see [`Count`]).
    #[serde(default)]
    pub count: Count,
    /// Continue after a previous page (the response's `next_cursor`).
    pub cursor: Option<String>,
    /// Show self-echo hits instead of folding them.
    pub include_self: bool,
    /// The caller, for self-echo folding.
    pub caller: Option<Caller>,
    /// The `since` as the user wrote it (`3d`, a date), when `filter.updated.from` was computed
    /// from it and the clock: cursors bind to this text, not to the instant, so the next page of
    /// `--since 3d` is still the same search a second later.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since_spec: Option<String>,
}

impl SearchRequest {
    /// A literal search for `query` with every default.
    pub fn literal(query: impl Into<String>) -> Self {
        SearchRequest {
            query: query.into(),
            mode: SearchMode::Literal,
            terms: Vec::new(),
            operator: TermsOperator::And,
            case_sensitive: false,
            area: Area::Dialogue,
            kinds: Vec::new(),
            filter: SessionFilter::default(),
            limit: 20,
            max_hits: 5,
            context: 60,
            sort: SortOrder::Relevance,
            count: Count::All,
            cursor: None,
            include_self: false,
            caller: None,
            since_spec: None,
        }
    }

    /// A regex search for `pattern`.
    pub fn regex(pattern: impl Into<String>) -> Self {
        SearchRequest {
            mode: SearchMode::Regex,
            ..SearchRequest::literal(pattern)
        }
    }

    /// A terms search.
    pub fn terms(terms: Vec<String>, operator: TermsOperator) -> Self {
        SearchRequest {
            mode: SearchMode::Terms,
            terms,
            operator,
            ..SearchRequest::literal("")
        }
    }
}

/// Which field of an event or session matched.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Field {
    /// The session title (a session-level hit: no turn, no event).
    Title,
    /// The session's artifact paths, one per line (session-level).
    Artifact,
    /// The event text (prompt, answer, tool output, …).
    Text,
    /// The tool name.
    Tool,
    /// The tool arguments' values, one per line (see [`crate::aux_text`]).
    Args,
}

/// One hit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Hit {
    /// The session's provider.
    pub provider: ProviderId,
    /// The session uri.
    pub uri: String,
    /// Turn number (`None` for session-level hits).
    pub turn: Option<u32>,
    /// 1-based event number (`seq + 1`; `None` for session-level hits).
    pub event: Option<u32>,
    /// The event's kind.
    pub kind: Option<EventKind>,
    /// The event's stable locator.
    pub locator: Option<Locator>,
    /// The event's time.
    pub time: Option<Timestamp>,
    /// Which field matched.
    pub field: Field,
    /// Matches as `[start, end)` character offsets into the field (at most 20).
    pub ranges: Vec<[usize; 2]>,
    /// More matches exist in the field than `ranges` shows.
    pub has_more_ranges: bool,
    /// Number of matches in the field.
    pub match_count: usize,
    /// Text around the first match (context characters on each side).
    pub excerpt: String,
    /// Character offset of `excerpt` in the field.
    pub excerpt_start: usize,
    /// Relevance score of this hit.
    pub score: f64,
    /// A command that reads the hit (`scry turn <uri> --event <e>` or `scry show <uri>`).
    pub command: String,
    /// The hit is scry's own echo in the caller's session (shown with `include_self`).
    pub self_echo: bool,
    /// The hit is in an earlier revision of its session (issue 20): text the source no longer
    /// has. Left out of the JSON when `false`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub superseded: bool,
    /// Which earlier revision (`--revision N`) holds a superseded hit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revision: Option<u32>,
}

/// The hits of one session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionHits {
    /// The session header.
    pub header: Header,
    /// The best hit's score.
    pub score: f64,
    /// Every hit in this session.
    pub hit_count: usize,
    /// The hits shown (at most `max_hits`).
    pub hits: Vec<Hit>,
    /// More hits exist than shown.
    pub has_more_hits: bool,
}

/// How the index answered (diagnostics; not part of the result's identity).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "plan")]
pub enum SearchPlan {
    /// Candidates from the trigram index, verified by the regex.
    Trigram {
        /// Trigram rows the FTS returned.
        candidates: u64,
    },
    /// Every stored text in scope was scanned.
    Scan,
    /// No index: parsed sessions were scanned.
    Direct,
}

/// The answer to a search across sessions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SearchResponse {
    /// This page of sessions, best first.
    pub sessions: Vec<SessionHits>,
    /// Hits in every session in scope (folded self-echo not included).
    pub total_matches: u64,
    /// Sessions with at least one hit.
    pub total_sessions: u64,
    /// `false` when the totals (and `self_folded`) are a lower bound: a `sort: time` search
    /// with `count: page` stopped after the sessions up to the first one of the next page.
    #[serde(default = "yes", skip_serializing_if = "Clone::clone")]
    pub total_exact: bool,
    /// Self-echo hits folded away.
    pub self_folded: u64,
    /// Cursor for the next page, when there is one.
    pub next_cursor: Option<String>,
    /// How it was answered.
    pub plan: SearchPlan,
}

fn yes() -> bool {
    true
}

/// The answer to a search within one session (S-Q5): the header even with zero hits.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionSearch {
    /// The session header.
    pub header: Header,
    /// This page of hits.
    pub hits: Vec<Hit>,
    /// Every hit in the session (folded self-echo not included).
    pub total_matches: u64,
    /// Self-echo hits folded away.
    pub self_folded: u64,
    /// Cursor for the next page of hits.
    pub next_cursor: Option<String>,
}
