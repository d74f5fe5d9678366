//! Search (S-C5, S-S1…S-S5, S-Q5): a [`SearchQuery`] (the CLI's flags) becomes one
//! [`SearchRequest`] that runs against the index (after refreshing the sessions in scope) or,
//! with `--no-index` or an unusable index, through [`search_direct`] over directly parsed
//! sessions — same answer. Two scopes: across sessions (grouped, ranked by the best event), and
//! within one session (`session`), which also returns that session's header even with zero
//! hits. The JSON leaves out the `plan` (how the index answered) so indexed and direct output
//! are identical.

use scry_model::{ErrorCode, EventKind, Header, Session, Timestamp};
use scry_source::SourceFile;
use scry_store::{
    search_direct, Area, Caller, Count, SearchMode, SearchRequest, SearchResponse, SessionFilter,
    SortOrder, TermsOperator, TimeRange,
};
use serde::{Serialize, Serializer};
use serde_json::{json, Value};

use crate::catalog::Catalog;
use crate::error::{QueryError, QueryResult};
use crate::filter::{self, Scope};
use crate::{indexed, render, Context};

/// What `search` is asked (its request type, issue 18): the CLI's flags and argument, the HTTP
/// parameters (`q` for `query`) and the MCP arguments (the tool's own `cursor` aside) of the
/// same names. A missing field takes its [`Default`].
#[derive(Debug, Clone, PartialEq, serde::Deserialize, Serialize)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default)]
pub struct SearchQuery {
    /// What to find: a literal string (spaces are not split), or a regex with --regex
    #[cfg_attr(
        feature = "cli",
        arg(required_unless_present = "terms", default_value = "")
    )]
    pub query: String,
    /// Read the query as a Rust regex
    #[cfg_attr(feature = "cli", arg(long))]
    pub regex: bool,
    /// Match case exactly (default: Unicode case-insensitive)
    #[cfg_attr(feature = "cli", arg(long))]
    pub case: bool,
    /// Several literal terms as a JSON array of strings, combined by --operator
    #[cfg_attr(feature = "cli", arg(long, value_name = "JSON"))]
    pub terms: Option<String>,
    /// How --terms combine within one event
    #[cfg_attr(feature = "cli", arg(long, value_enum, default_value = "and"))]
    pub operator: TermsOperator,
    /// Which content: dialogue (default), tools, artifacts, all (thinking only with --kind)
    #[cfg_attr(feature = "cli", arg(long, value_enum, default_value = "dialogue"))]
    pub area: Area,
    /// Only these event kinds (comma-separated: user,assistant,thinking,tool_call,…)
    #[cfg_attr(feature = "cli", arg(long, value_name = "K,…"))]
    pub kind: Option<String>,
    /// Directory subtree (a path, `cwd`, or `global`); default: every directory
    #[cfg_attr(feature = "cli", arg(long, value_name = "PATH|cwd|global"))]
    pub scope: Option<String>,
    /// Search every directory (same as `--scope global`)
    #[cfg_attr(feature = "cli", arg(long))]
    pub global: bool,
    /// Only sessions updated since then: 30m, 24h, 7d, 2w, or an ISO date / time
    #[cfg_attr(feature = "cli", arg(long, value_name = "WHEN"))]
    pub since: Option<String>,
    /// Only these providers (comma-separated)
    #[cfg_attr(feature = "cli", arg(long, value_name = "P,…"))]
    pub provider: Option<String>,
    /// Only this session (any reference `show` accepts)
    #[cfg_attr(feature = "cli", arg(long, value_name = "ID"))]
    pub session: Option<String>,
    /// Sessions per page
    #[cfg_attr(feature = "cli", arg(long, default_value_t = 20))]
    pub limit: usize,
    /// Hits shown per session (the totals still count every match)
    #[cfg_attr(feature = "cli", arg(long, default_value_t = 5))]
    pub max_hits: usize,
    /// Characters of context on each side of a match
    #[cfg_attr(feature = "cli", arg(long, default_value_t = 60))]
    pub context: usize,
    /// Order: relevance (best hit, then time) or time (newest session first)
    #[cfg_attr(feature = "cli", arg(long, value_enum, default_value = "relevance"))]
    pub sort: SortOrder,
    /// With --sort time: count every match (all) or only the sessions read for this page
    /// (page: newest first, up to the next page's first session; the totals are then a lower
    /// bound, marked total_exact: false)
    #[cfg_attr(feature = "cli", arg(long, value_enum, default_value = "all"))]
    pub count: Count,
    /// Show scry's own echoes in the caller's live session instead of folding them
    #[cfg_attr(feature = "cli", arg(long))]
    pub include_self: bool,
    /// Continue after a previous page
    #[cfg_attr(feature = "cli", arg(long, value_name = "C"))]
    pub cursor: Option<String>,
    /// Leave out sessions whose source the agent deleted (kept by the index and searched by
    /// default, marked "deleted <date>")
    #[cfg_attr(feature = "cli", arg(long))]
    pub live_only: bool,
    /// With --store: only this machine's sessions
    #[serde(default)]
    #[cfg_attr(feature = "cli", arg(long, value_name = "NAME"))]
    pub machine: Option<String>,
    /// Read earlier revision N of the session, kept by the index when its source was rewritten
    /// shorter or changed (1 = the most recent; 0 = the current session)
    #[serde(default)]
    #[cfg_attr(feature = "cli", arg(long, value_name = "N", default_value_t = 0))]
    pub revision: u32,
}

impl Default for SearchQuery {
    fn default() -> Self {
        SearchQuery {
            query: String::new(),
            regex: false,
            case: false,
            terms: None,
            operator: TermsOperator::And,
            area: Area::Dialogue,
            kind: None,
            scope: None,
            global: false,
            since: None,
            provider: None,
            session: None,
            limit: 20,
            max_hits: 5,
            context: 60,
            sort: SortOrder::Relevance,
            count: Count::All,
            include_self: false,
            cursor: None,
            live_only: false,
            machine: None,
            revision: 0,
        }
    }
}

/// The answer to a search.
#[derive(Debug, Clone)]
pub struct SearchResult {
    /// The engine's response (headers as stored; the JSON normalizes them).
    pub response: SearchResponse,
    /// The session of a within-session search (present even with zero hits).
    pub session: Option<Header>,
    /// Source fingerprint of each session in `response.sessions`, in order (S-Q3).
    pub fingerprints: Vec<String>,
    /// For each session in `response.sessions`, in order: when its source was found gone
    /// (`None` for a live session).
    pub deleted: Vec<Option<Timestamp>>,
}

impl SearchResult {
    /// The JSON contract of `search --json`.
    pub fn to_json(&self) -> Value {
        let r = &self.response;
        let sessions: Vec<Value> = r
            .sessions
            .iter()
            .zip(&self.fingerprints)
            .enumerate()
            .map(|(i, (s, fp))| {
                let mut v = json!({
                    "session": render::header_json(&crate::archive::shown(s.header.clone())),
                    "fingerprint": fp,
                    "score": s.score,
                    "hit_count": s.hit_count,
                    "hits": s.hits,
                    "has_more_hits": s.has_more_hits,
                });
                if let Some(Some(t)) = self.deleted.get(i) {
                    v["deleted"] = json!(t);
                }
                v
            })
            .collect();
        let mut out = json!({
            "sessions": sessions,
            "total_matches": r.total_matches,
            "total_sessions": r.total_sessions,
            "self_folded": r.self_folded,
            "next_cursor": r.next_cursor,
        });
        if !r.total_exact {
            // The totals count the sessions read for this page (`--count all` counts all).
            out["total_exact"] = json!(false);
        }
        if let Some(h) = &self.session {
            out["session"] = render::header_json(&crate::archive::shown(h.clone()));
        }
        out
    }
}

impl Serialize for SearchResult {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.to_json().serialize(s)
    }
}

/// Runs a search.
pub fn search(ctx: &Context, q: &SearchQuery) -> QueryResult<SearchResult> {
    let providers = filter::providers(q.provider.as_deref())?;
    let mut req = request(ctx, q, &providers)?;
    if ctx.revision > 0 {
        return search_revision(ctx, q, &req);
    }
    let scope = Scope::parse(q.scope.as_deref(), q.global, &ctx.cwd, true, !ctx.demo)?;
    // Under a watcher's lease a search across sessions asks the index alone: no discovery.
    // Archived sessions (unless `--live-only`) come from the index on every path; they are
    // added to the watched set as the discovering path adds them to the discovered files.
    let mut store = indexed::open(ctx)?;
    if q.session.is_none() {
        if let Some(s) = store
            .as_deref()
            .map(|s| s as &dyn scry_store::SessionIndex)
            .filter(|s| crate::lease::leased(ctx, *s, &providers))
        {
            // The filter as the other paths set it (a cursor binds it).
            req.filter.live = q.live_only.then_some(true);
            let archived = if q.live_only {
                Vec::new()
            } else {
                crate::archive::rows(&ctx.exclusions, s)
            };
            if let Some(response) = leased(ctx, s, &scope, &providers, &mut req, &archived)? {
                let gone = archived
                    .iter()
                    .map(|(row, f)| (f.path.clone(), row.deleted()))
                    .collect();
                return Ok(result(response, None, &gone));
            }
        }
    }
    // `--session` under a watcher's lease: the id resolved from the index, no discovery.
    let leased_one = match (&q.session, &store) {
        (Some(id), Some(s)) => Catalog::resolve_leased(ctx, &**s, &providers, id),
        _ => None,
    };
    // Without a lease a global search looks the Aider histories up after its refresh, as
    // `list` does ([`crate::aider_cwds::add_refreshed`]).
    let mut deferred = leased_one.is_none()
        && q.session.is_none()
        && matches!(scope, Scope::Global)
        && store
            .as_deref()
            .and_then(|s| s.local())
            .is_some_and(|s| crate::aider_cwds::deferrable(ctx, s, &providers));
    let (mut catalog, leased_one) = match leased_one {
        Some((catalog, file)) => (catalog, Some(file)),
        None if deferred => (Catalog::discovered(ctx, &providers), None),
        None => (
            Catalog::discover_with(
                ctx,
                &providers,
                store.as_deref().map(|s| s as &dyn scry_store::SessionIndex),
            ),
            None,
        ),
    };
    let mut files: Vec<SourceFile> = match &q.session {
        Some(_) if leased_one.is_some() => leased_one.into_iter().collect(),
        Some(id) => vec![catalog.resolve_ref(ctx, id)?],
        // Moved out, not copied: only the sources and the files in scope are used below.
        None => std::mem::take(&mut catalog.files)
            .into_iter()
            .filter(|f| f.cwd_hint.is_none() || scope.contains(f.cwd_hint.as_deref()))
            .collect(),
    };
    let mut session = None;
    if let Some(first) = files.first().filter(|_| q.session.is_some()) {
        // The session's uri and header from a header scan.
        let (entries, _) = catalog.scan(&[first]);
        if let Some(e) = entries.into_iter().next() {
            req.filter.uris = vec![e.header.uri.clone()];
            session = Some(e.header);
        }
    }
    let mut resp = None;
    let mut gone: std::collections::HashMap<std::path::PathBuf, Option<Timestamp>> =
        std::collections::HashMap::new();
    if let Some(mut store) = store.take() {
        // A session named by id whose source is gone: its header from the index, no refresh
        // (it would take the missing file for an unchanged one).
        let named = q.session.as_ref().and(files.first());
        let archived = named.and_then(|f| crate::archive::lookup(&*store, f));
        if let (Some(row), Some(f)) = (&archived, named) {
            gone.insert(f.path.clone(), row.deleted());
            if let Ok(h) = store.header(f.into()) {
                req.filter.uris = vec![h.uri.clone()];
                session = Some(crate::archive::mark(h));
            }
        }
        let live_n = if archived.is_some() { 0 } else { files.len() };
        let mut refreshed = indexed::refresh(ctx, &mut *store, catalog.sources(), &files[..live_n]);
        if let (true, true, Some(local)) = (refreshed, deferred, store.local_mut()) {
            catalog.files = std::mem::take(&mut files);
            let start = crate::aider_cwds::add_refreshed(&mut catalog, ctx, local);
            files = std::mem::take(&mut catalog.files);
            deferred = false;
            refreshed = indexed::refresh_added(ctx, local, catalog.sources(), &files[start..]);
        }
        if refreshed {
            req.filter.live = q.live_only.then_some(true);
            if !q.live_only && q.session.is_none() {
                for (row, f) in crate::archive::rows(&ctx.exclusions, &*store) {
                    gone.insert(f.path.clone(), row.deleted());
                    files.push(f);
                }
            }
            // The discovered files only, as the direct search below parses them; with
            // exclusions, less those whose stored session lies in an excluded project (the
            // index may hold sessions another run indexed without them).
            let kept;
            let searched: &[SourceFile] = if ctx.exclusions.is_empty() {
                &files
            } else {
                kept = indexed::kept_files(&ctx.exclusions, &*store, &files);
                &kept
            };
            match store.search_sources(&req, searched) {
                Ok(r) => resp = Some(r),
                // A damaged page met mid-search: nothing of this answer is used; a fresh index
                // of the same files answers instead (or, failing that, a direct parse).
                Err(e) if e.is_corrupt() && store.local().is_some() => {
                    let path = store
                        .local()
                        .map_or_else(Default::default, |s| s.path().to_path_buf());
                    drop(store);
                    let fresh = indexed::recover(
                        &path,
                        &e.in_index(&path),
                        catalog.sources(),
                        &files[..live_n.min(files.len())],
                    );
                    if let Some(fresh) = fresh {
                        match fresh.search_sources(&req, searched) {
                            Ok(r) => resp = Some(r),
                            Err(e) if e.is_corrupt() => indexed::unavailable(&e),
                            Err(e) => return Err(with_query(store_error(&e), &req)),
                        }
                    }
                }
                Err(e) => return Err(with_query(store_error(&e), &req)),
            }
        }
    }
    if deferred {
        // The refresh failed before the Aider histories were looked up: as without an index.
        catalog.files = std::mem::take(&mut files);
        crate::aider_cwds::add(&mut catalog, ctx, None);
        files = std::mem::take(&mut catalog.files);
    }
    let response = match resp {
        Some(r) => r,
        None => {
            // As the index path sets it (every parsed session is live): the cursor binds the
            // filter, so both paths must give the same one.
            req.filter.live = q.live_only.then_some(true);
            let direct = match (&q.session, files.as_slice()) {
                // One session: streamed (twice), never held whole (issue 17).
                (Some(_), [file]) => search_one(&catalog, file, &req),
                _ => search_direct(&parse_all(&catalog, &files), &req),
            };
            direct.map_err(|e| with_query(store_error(&e), &req))?
        }
    };
    Ok(result(response, session, &gone))
}

/// `search --session <id> --revision N` (issue 20): the hits of one earlier revision, each
/// marked superseded.
fn search_revision(
    ctx: &Context,
    q: &SearchQuery,
    req: &SearchRequest,
) -> QueryResult<SearchResult> {
    let Some(id) = &q.session else {
        return Err(QueryError::usage(
            ErrorCode::InvalidQuery,
            "--revision reads one session: give --session too",
        ));
    };
    let opened = crate::session_read::open(ctx, id)?;
    let (Some(rev), Some(store)) = (&opened.revision, opened.reads()) else {
        return Err(QueryError::new(
            ErrorCode::Aborted,
            "the index cannot be read",
        ));
    };
    let at = scry_store::SessionRef::Revision {
        path: &opened.file.path,
        key: opened.file.key.as_deref(),
        n: rev.n,
    };
    let header = store
        .header(at)
        .map_err(|e| QueryError::new(e.code(), e.to_string()))?;
    let response = store
        .search_revision(at, req)
        .map_err(|e| with_query(store_error(&e), req))?;
    Ok(result(
        response,
        Some(indexed::normalize(header)),
        &std::collections::HashMap::new(),
    ))
}

/// The answer around `response`: each session's fingerprint and, for an archived one, when
/// its source was found gone (`gone`, by primary source).
fn result(
    response: SearchResponse,
    session: Option<Header>,
    gone: &std::collections::HashMap<std::path::PathBuf, Option<Timestamp>>,
) -> SearchResult {
    let fingerprints = response
        .sessions
        .iter()
        .map(|s| {
            s.header
                .sources
                .first()
                .map(|p| crate::fingerprint_text(p))
                .unwrap_or_default()
        })
        .collect();
    let deleted = response
        .sessions
        .iter()
        .map(|s| {
            if s.header.live {
                return None;
            }
            s.header
                .sources
                .first()
                .and_then(|p| gone.get(p).copied().flatten())
        })
        .collect();
    SearchResult {
        response,
        session,
        fingerprints,
        deleted,
    }
}

/// A search across sessions under a watcher's lease: over the live sessions of the watched
/// roots as `store` holds them ([`crate::lease::spec`]) and the `archived` ones, in SQL when
/// no exclusion needs a file's path or project, else over the catalog the index holds with
/// the exclusions applied. `Ok(None)` when the index cannot answer (the caller discovers and
/// refreshes as without a lease); an invalid query is an error either way.
fn leased(
    ctx: &Context,
    store: &dyn scry_store::SessionIndex,
    scope: &Scope,
    providers: &[scry_model::ProviderId],
    req: &mut SearchRequest,
    archived: &[(scry_store::ArchivedRow, SourceFile)],
) -> QueryResult<Option<SearchResponse>> {
    let ex = &ctx.exclusions;
    let answer = if !ex.has_projects() && ex.summary().paths.is_empty() {
        let dirs = match scope {
            Scope::Global => None,
            Scope::Under(dirs) => Some(dirs.clone()),
        };
        let Some(spec) = crate::lease::spec(ctx, providers, dirs, None) else {
            return Ok(None);
        };
        let also: Vec<i64> = archived.iter().map(|(row, _)| row.sid).collect();
        store.search_listed(req, &spec, &also)
    } else {
        let Some(catalog) = Catalog::from_index(ctx, store, providers) else {
            return Ok(None);
        };
        let files: Vec<SourceFile> = catalog
            .files
            .into_iter()
            .filter(|f| f.cwd_hint.is_none() || scope.contains(f.cwd_hint.as_deref()))
            .chain(archived.iter().map(|(_, f)| f.clone()))
            .collect();
        store.search_sources(req, &indexed::kept_files(ex, store, &files))
    };
    match answer {
        Ok(r) => Ok(Some(r)),
        Err(e) if e.is_corrupt() => Ok(None),
        Err(e) if e.code() == ErrorCode::InvalidQuery => Err(with_query(store_error(&e), req)),
        Err(_) => Ok(None),
    }
}

/// Maps a store error onto a query error on one line: the regex engine's multi-line message
/// keeps its last line, the reason.
/// A store error as a query error.
pub fn store_error(e: &scry_store::StoreError) -> QueryError {
    let msg = e.to_string();
    let msg = match msg.lines().count() {
        0 | 1 => msg,
        _ => {
            let reason = msg.lines().last().unwrap_or_default().trim();
            let first = msg.lines().next().unwrap_or_default().trim();
            format!("{first} {}", reason.trim_start_matches("error: "))
        }
    };
    QueryError::new(e.code(), msg)
}

/// Names the offending query in an invalid-query error.
/// `e` with the regex named when the query was one (the message of an invalid regex).
pub fn with_query(mut e: QueryError, req: &SearchRequest) -> QueryError {
    if e.code == ErrorCode::InvalidQuery && req.mode == SearchMode::Regex {
        e.message = e.message.replacen(
            "invalid query:",
            &format!("invalid regex '{}':", req.query),
            1,
        );
    }
    e
}

/// The engine request `q` asks for (filters, mode, page); public for the team store
/// (issue 22), which runs it with [`search_direct`] over its candidate sessions.
pub fn request(
    ctx: &Context,
    q: &SearchQuery,
    providers: &[scry_model::ProviderId],
) -> QueryResult<SearchRequest> {
    let mut req = match &q.terms {
        Some(json) => {
            let terms: Vec<String> = serde_json::from_str(json).map_err(|e| {
                QueryError::usage(
                    ErrorCode::InvalidQuery,
                    format!("--terms '{json}' is not a JSON array of strings: {e}"),
                )
            })?;
            SearchRequest::terms(terms, q.operator)
        }
        None if q.regex => SearchRequest::regex(q.query.clone()),
        None => SearchRequest::literal(q.query.clone()),
    };
    if req.mode != SearchMode::Terms && req.query.is_empty() {
        return Err(QueryError::usage(
            ErrorCode::InvalidQuery,
            "the search query is empty",
        ));
    }
    req.case_sensitive = q.case;
    req.area = q.area;
    if let Some(kinds) = &q.kind {
        for k in kinds.split(',').map(str::trim) {
            let kind = EventKind::parse(k).ok_or_else(|| {
                QueryError::usage(
                    ErrorCode::InvalidFilter,
                    format!("unknown event kind '{k}'"),
                )
            })?;
            req.kinds.push(kind);
        }
    }
    let now = Timestamp::now();
    let scope = Scope::parse(q.scope.as_deref(), q.global, &ctx.cwd, true, !ctx.demo)?;
    req.filter = SessionFilter {
        providers: providers.to_vec(),
        cwd_under: match scope {
            Scope::Global => None,
            Scope::Under(forms) => forms.into_iter().next(),
        },
        updated: match &q.since {
            Some(s) => TimeRange::since(filter::since(s, now)?),
            None => TimeRange::default(),
        },
        ..SessionFilter::default()
    };
    req.since_spec = q.since.clone();
    req.limit = q.limit;
    req.max_hits = q.max_hits;
    req.context = q.context;
    req.sort = q.sort;
    req.count = q.count;
    req.cursor.clone_from(&q.cursor);
    req.include_self = q.include_self;
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

/// [`search_direct`] over [`parse_all`] of the one file `file`, its session streamed instead
/// of held ([`scry_store::search_one_direct`]): the same answer, memory bounded by the hits.
fn search_one(
    catalog: &Catalog,
    file: &SourceFile,
    req: &SearchRequest,
) -> scry_store::Result<SearchResponse> {
    let source = catalog.source(file.provider).ok();
    let ex = catalog.exclusions();
    scry_store::search_one_direct(req, |on_event| {
        let mut sink = crate::session_read::FnSink {
            on_event: |e| on_event(e),
            on_warning: |_| {},
        };
        let header = scry_source::guard::parse(source?, file, &mut sink).ok()?;
        crate::catalog::kept_header(ex, file, header)
    })
}

/// Parses every file directly (`--no-index`); a source that cannot be read is skipped, as the
/// index skips (and reports at `index`) a source it cannot parse.
fn parse_all(catalog: &Catalog, files: &[SourceFile]) -> Vec<Session> {
    let mut out = Vec::new();
    for file in files {
        let Ok(source) = catalog.source(file.provider) else {
            continue;
        };
        if let Ok(Ok(mut s)) = scry_source::guard::catch(|| source.parse(file)) {
            let ex = catalog.exclusions();
            if ex.has_projects()
                && s.header
                    .cwd
                    .as_deref()
                    .is_some_and(|c| ex.project_of(c).is_some())
            {
                continue;
            }
            if s.header.sources.is_empty() {
                s.header.sources.push(file.path.clone());
            }
            out.push(s);
        }
    }
    out
}
