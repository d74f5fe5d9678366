//! Listing sessions (S-C1, S-Q4): the sessions of a scope, newest first, children folded under
//! their parent unless a kind is asked for, paged with a cursor bound to the query.

use std::collections::{BTreeMap, HashMap};

use scry_model::{ErrorCode, Header, ProviderId, SessionKind, Timestamp, Warning};
use serde::{Serialize, Serializer};
use serde_json::{json, Value};

use crate::catalog::{Catalog, Entry};
use crate::error::{QueryError, QueryResult};
use crate::filter::{self, KindFilter, Scope};
use crate::page::{Cursor, Pos};
use crate::{render, Context};

pub use crate::session_row::SessionRow;

/// What to list; the fields are the CLI's flags.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ListQuery {
    /// Directory subtree (a path, `cwd`, `global`); `None` = the current directory (every
    /// directory on the demo corpus).
    pub scope: Option<String>,
    /// Every directory (`--global`).
    pub global: bool,
    /// Providers, comma-separated (`claude,codex`).
    pub provider: Option<String>,
    /// Updated since: `30m`, `24h`, `7d`, `2w` or an ISO date / time.
    pub since: Option<String>,
    /// Session kinds; `None` = main sessions with children folded under their parent.
    pub kind: Option<KindFilter>,
    /// Rows per page.
    pub limit: usize,
    /// Continue after a previous page (`next_cursor`).
    pub cursor: Option<String>,
    /// Include archived sessions (source gone, kept by the index: S-I6); `--kind all`
    /// includes them too.
    pub archived: bool,
}

/// The session filters of `list` (scope, providers, since, kind), shared by `scry list`, its
/// HTTP and MCP front ends and `scry tui`: each flag defined once.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Deserialize, Serialize)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default)]
pub struct ListFilter {
    /// Directory subtree to list (a path, `cwd`, or `global`); default: the current directory
    #[cfg_attr(feature = "cli", arg(long, value_name = "PATH|cwd|global"))]
    pub scope: Option<String>,
    /// List sessions from every directory (same as `--scope global`)
    #[cfg_attr(feature = "cli", arg(long))]
    pub global: bool,
    /// Only these providers (comma-separated: claude,codex,…)
    #[cfg_attr(feature = "cli", arg(long, value_name = "P,…"))]
    pub provider: Option<String>,
    /// Only sessions updated since then: 30m, 24h, 7d, 2w, or an ISO date / time
    #[cfg_attr(feature = "cli", arg(long, value_name = "WHEN"))]
    pub since: Option<String>,
    /// Session kinds to list; default: main sessions with children folded under their parent
    #[cfg_attr(feature = "cli", arg(long, value_enum))]
    pub kind: Option<KindFilter>,
}

impl ListFilter {
    /// Whether the list is over every directory.
    pub fn global(&self) -> bool {
        self.global || self.scope.as_deref() == Some("global")
    }

    /// The first page of `limit` sessions these filters ask for.
    pub fn query(&self, limit: usize) -> ListQuery {
        ListQuery {
            scope: self.scope.clone(),
            global: self.global,
            provider: self.provider.clone(),
            since: self.since.clone(),
            kind: self.kind,
            limit,
            cursor: None,
            archived: false,
        }
    }
}

/// What `list` is asked (its request type, issue 18): the CLI's flags, the HTTP parameters and
/// the MCP arguments (the tool's own `cursor` aside) of the same names; [`ListRequest::query`]
/// is the [`ListQuery`] it asks for.
#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize, Serialize)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default)]
pub struct ListRequest {
    /// Show at most this many sessions
    #[cfg_attr(feature = "cli", arg(long, default_value_t = 20))]
    pub limit: usize,
    /// Which sessions (scope, providers, since, kind).
    #[cfg_attr(feature = "cli", command(flatten))]
    #[serde(flatten)]
    pub filter: ListFilter,
    /// Continue after a previous page (the `next_cursor` of `--json`)
    #[cfg_attr(feature = "cli", arg(long, value_name = "C"))]
    pub cursor: Option<String>,
    /// Include sessions whose source the agent deleted, kept by the index until
    /// `index --prune` (marked "deleted <date>"; `--kind all` includes them too)
    #[cfg_attr(feature = "cli", arg(long))]
    pub archived: bool,
    /// With --store: only this machine's sessions
    #[serde(default)]
    #[cfg_attr(feature = "cli", arg(long, value_name = "NAME"))]
    pub machine: Option<String>,
}

impl Default for ListRequest {
    fn default() -> Self {
        ListRequest {
            limit: 20,
            filter: ListFilter::default(),
            cursor: None,
            archived: false,
            machine: None,
        }
    }
}

impl ListRequest {
    /// The query this request asks for.
    pub fn query(&self) -> ListQuery {
        ListQuery {
            cursor: self.cursor.clone(),
            archived: self.archived,
            ..self.filter.query(self.limit)
        }
    }
}

/// A page of sessions.
#[derive(Debug, Clone)]
pub struct SessionList {
    /// The rows of this page.
    pub rows: Vec<SessionRow>,
    /// Listed sessions' native ids (for unique short ids in text output): every one, or, when
    /// the index answered the page, the page's and each one's nearest neighbours in byte order
    /// (the ids sharing the longest prefix with it: the only ones a short id depends on).
    pub ids: Vec<String>,
    /// Rows in the whole result (every page).
    pub total: usize,
    /// Rows before this page.
    pub offset: usize,
    /// Sessions hidden by folding (exec runs and their children).
    pub hidden: usize,
    /// Discovery and scan warnings.
    pub warnings: Vec<Warning>,
    /// The cursor of the next page.
    pub next_cursor: Option<String>,
    /// The archived rows of this page, by their primary source: when each was last seen and
    /// found gone.
    pub archived: HashMap<std::path::PathBuf, crate::archive::Mark>,
}

impl SessionList {
    /// The archive mark of `row` when it is an archived session.
    pub fn mark(&self, row: &SessionRow) -> Option<&crate::archive::Mark> {
        if row.header.live {
            return None;
        }
        row.header
            .sources
            .first()
            .and_then(|p| self.archived.get(p))
    }

    /// The JSON contract of `list --json` (an archived row adds `last_seen` and `deleted`).
    pub fn to_json(&self) -> Value {
        let sessions: Vec<Value> = self
            .rows
            .iter()
            .map(|r| {
                let mut v = r.to_json();
                if let Some(m) = self.mark(r) {
                    m.add_to(&mut v);
                }
                v
            })
            .collect();
        json!({
            "sessions": sessions,
            "total": self.total,
            "hidden": self.hidden,
            "next_cursor": self.next_cursor,
            "warnings": render::warnings_json(&self.warnings),
        })
    }
}

impl Serialize for SessionList {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.to_json().serialize(s)
    }
}

/// Lists sessions per `q`.
pub fn list(ctx: &Context, q: &ListQuery) -> QueryResult<SessionList> {
    if q.limit == 0 {
        return Err(QueryError::usage(
            ErrorCode::InvalidPageSize,
            "--limit must be at least 1",
        ));
    }
    let scope = Scope::parse(q.scope.as_deref(), q.global, &ctx.cwd, ctx.demo, !ctx.demo)?;
    let providers = filter::providers(q.provider.as_deref())?;
    let since = match &q.since {
        Some(s) => Some(filter::since(s, Timestamp::now())?),
        None => None,
    };
    let key = query_key(q, &scope);
    let offset = match &q.cursor {
        Some(c) => Cursor::decode(c)?.check("list", 0, key)?.unit,
        None => 0,
    };
    let prices = crate::usage::prices(ctx);
    let ask = crate::list_sql::Ask {
        prices: &prices,
        exclusions: &ctx.exclusions,
        scope: &scope,
        since,
        kind: q.kind,
        offset,
        limit: q.limit,
    };
    let with_archived = q.archived || q.kind == Some(KindFilter::All);
    // Under a watcher's lease the index is the discovered set: no discovery, and `list` is
    // one SQL page when nothing needs a file's path or header (nor archived rows to merge).
    let mut store = crate::indexed::open(ctx)?;
    let leased =
        crate::indexed::reads(&store).is_some_and(|s| crate::lease::leased(ctx, s, &providers));
    if let Some(s) = crate::indexed::reads(&store)
        .filter(|_| leased)
        .filter(|s| !with_archived || crate::archive::rows(&ctx.exclusions, *s).is_empty())
    {
        let dirs = match &scope {
            Scope::Global => None,
            Scope::Under(dirs) => Some(dirs.clone()),
        };
        if let Some(page) = crate::lease::spec(ctx, &providers, dirs, since)
            .and_then(|spec| crate::list_sql::leased_page(s, &spec, &ask))
        {
            return Ok(from_page(page, key, offset, q.limit, Vec::new()));
        }
    }
    let from_index = match crate::indexed::reads(&store).filter(|_| leased) {
        Some(s) => Catalog::from_index(ctx, s, &providers),
        None => None,
    };
    // Without a lease the Aider histories are looked up after the refresh, when the index
    // holds every other discovered source as it is (one comparison of each file with its row,
    // the refresh's, instead of two). Only the local SQLite index is refreshed.
    let deferred = from_index.is_none()
        && store
            .as_deref()
            .and_then(|s| s.local())
            .is_some_and(|s| crate::aider_cwds::deferrable(ctx, s, &providers));
    let mut catalog = from_index.unwrap_or_else(|| match deferred {
        true => Catalog::discovered(ctx, &providers),
        false => Catalog::discover_with(ctx, &providers, crate::indexed::reads(&store)),
    });
    let in_scope = |f: &&scry_source::SourceFile| {
        f.cwd_hint.is_none() || scope.contains(f.cwd_hint.as_deref())
    };
    if let Some(mut s) = store.take() {
        let candidates: Vec<_> = catalog.files.iter().filter(in_scope).collect();
        store = crate::indexed::refresh_catalog(ctx, &mut *s, &catalog, &candidates).then_some(s);
    }
    if deferred {
        match store.take() {
            Some(mut s) => {
                let kept = match s.local_mut() {
                    Some(local) => {
                        let start = crate::aider_cwds::add_refreshed(&mut catalog, ctx, local);
                        let added: Vec<_> = catalog.files[start..]
                            .iter()
                            .filter(in_scope)
                            .cloned()
                            .collect();
                        crate::indexed::refresh_added(ctx, local, catalog.sources(), &added)
                    }
                    None => {
                        crate::aider_cwds::add(&mut catalog, ctx, Some(&*s));
                        true
                    }
                };
                store = kept.then_some(s);
            }
            None => crate::aider_cwds::add(&mut catalog, ctx, None),
        }
    }
    let candidates: Vec<_> = catalog.files.iter().filter(in_scope).collect();
    // Archived sessions come from the index only (a separate query, merged below).
    let archived: Vec<(Entry, crate::archive::Mark)> = match crate::indexed::reads(&store) {
        Some(s) if with_archived => crate::archive::entries(&ctx.exclusions, s)
            .into_iter()
            .filter(|(e, _)| providers.is_empty() || providers.contains(&e.header.provider))
            .collect(),
        _ => Vec::new(),
    };
    // The SQL page when there is nothing archived to merge.
    if let Some(store) = crate::indexed::reads(&store).filter(|_| archived.is_empty()) {
        if let Some(page) = crate::list_sql::page(store, &catalog, &candidates, &ask) {
            return Ok(from_page(page, key, offset, q.limit, catalog.warnings));
        }
    }
    let mut listed = crate::indexed::headers_from(store, &catalog, &candidates);
    let mut warnings = catalog.warnings.clone();
    warnings.append(&mut listed.warnings);

    let mut marks: HashMap<std::path::PathBuf, crate::archive::Mark> = HashMap::new();
    let entries: Vec<Entry> = std::mem::take(&mut listed.entries)
        .into_iter()
        .chain(archived.into_iter().map(|(e, m)| {
            if let Some(p) = e.header.sources.first() {
                marks.insert(p.clone(), m);
            }
            e
        }))
        .collect();
    let page = Page {
        query: q,
        scope: &scope,
        since,
        offset,
        key,
    };
    let mut files: Vec<scry_source::SourceFile> = Vec::new();
    let (mut list, folded) = page.assemble_folded(entries, warnings, |entry| {
        let entry = listed.full(entry);
        files.push(entry.file.clone());
        let fingerprint = crate::fingerprint_text(&entry.file.path);
        (entry, fingerprint)
    });
    // The page's cost and failures, its folded children's included: from the usage ledger, or
    // a parse of the page's rows and their children without an index.
    for ((row, file), children) in list.rows.iter_mut().zip(&files).zip(&folded) {
        let Some((sums, mut failures)) = listed.ledger(&catalog, file) else {
            continue;
        };
        let mut theirs = Vec::with_capacity(children.len());
        for child in children {
            if let Some((s, f)) = listed.ledger(&catalog, child) {
                theirs.push(s);
                failures += f;
            }
        }
        let folds = !children.is_empty();
        row.cost = Some(crate::usage::Cost::of_row(&sums, &theirs, folds, &prices));
        row.failures = Some(failures);
    }
    list.archived = marks;
    Ok(list)
}

/// A list page over entries gathered elsewhere (the team store, issue 22): the query, its
/// parsed scope and time, the page's offset and the cursor key ([`Page::of`]).
#[derive(Debug)]
pub struct Page<'a> {
    /// The query.
    pub query: &'a ListQuery,
    /// Its scope.
    pub scope: &'a Scope,
    /// Its `--since` time.
    pub since: Option<Timestamp>,
    /// Rows before this page (from the cursor).
    pub offset: usize,
    /// What the cursor binds.
    pub key: u64,
}

impl<'a> Page<'a> {
    /// Parses `q`'s scope and `--since` and checks its cursor, as [`list`] does; `scope` is
    /// where the parsed scope is kept.
    pub fn of(ctx: &Context, q: &'a ListQuery, scope: &'a mut Scope) -> QueryResult<Page<'a>> {
        if q.limit == 0 {
            return Err(QueryError::usage(
                ErrorCode::InvalidPageSize,
                "--limit must be at least 1",
            ));
        }
        *scope = Scope::parse(q.scope.as_deref(), q.global, &ctx.cwd, ctx.demo, !ctx.demo)?;
        filter::providers(q.provider.as_deref())?;
        let since = match &q.since {
            Some(s) => Some(filter::since(s, Timestamp::now())?),
            None => None,
        };
        let key = query_key(q, scope);
        let offset = match &q.cursor {
            Some(c) => Cursor::decode(c)?.check("list", 0, key)?.unit,
            None => 0,
        };
        Ok(Page {
            query: q,
            scope,
            since,
            offset,
            key,
        })
    }

    /// The page of `entries` (every session of the providers asked, any scope): filtered by
    /// scope and time, sorted newest first, folded per the kind filter, then cut to the page;
    /// `finish` completes a listed entry and gives its fingerprint.
    pub fn assemble(
        &self,
        entries: Vec<Entry>,
        warnings: Vec<Warning>,
        finish: impl FnMut(Entry) -> (Entry, String),
    ) -> SessionList {
        self.assemble_folded(entries, warnings, finish).0
    }

    /// [`Page::assemble`], and the sources of the children folded under each row of the page
    /// (in row order).
    pub fn assemble_folded(
        &self,
        entries: Vec<Entry>,
        warnings: Vec<Warning>,
        mut finish: impl FnMut(Entry) -> (Entry, String),
    ) -> (SessionList, Vec<Vec<scry_source::SourceFile>>) {
        let (q, scope, since, offset, key) =
            (self.query, self.scope, self.since, self.offset, self.key);
        let mut entries: Vec<Entry> = entries
            .into_iter()
            .filter(|e| scope.contains(e.header.cwd.as_deref()))
            .filter(|e| since.is_none_or(|s| e.header.updated.is_some_and(|u| u >= s)))
            .collect();
        // Ties (one session id in two files) by source path, so the order never depends on
        // which sessions came from the index and which were parsed.
        entries.sort_by(|a, b| {
            b.header
                .updated
                .cmp(&a.header.updated)
                .then_with(|| a.header.uri.cmp(&b.header.uri))
                .then_with(|| a.file.path.cmp(&b.file.path))
        });
        let ids: Vec<String> = entries.iter().map(|e| e.header.id.clone()).collect();
        let (rows, hidden) = fold(entries, q.kind);
        let total = rows.len();
        let next_cursor = next_cursor(key, offset, q.limit, total);
        let mut folded = Vec::new();
        let rows: Vec<SessionRow> = rows
            .into_iter()
            .skip(offset)
            .take(q.limit)
            .map(|(entry, children, files)| {
                let (entry, fingerprint) = finish(entry);
                folded.push(files);
                SessionRow {
                    fingerprint,
                    size: entry.file.size,
                    header: entry.header,
                    children,
                    cost: None,
                    failures: None,
                }
            })
            .collect();
        let list = SessionList {
            rows,
            ids,
            total,
            offset,
            hidden,
            warnings,
            next_cursor,
            archived: HashMap::new(),
        };
        (list, folded)
    }
}

/// The list an SQL page answers (no archived rows: those are merged on the other path).
fn from_page(
    page: crate::list_sql::Page,
    key: u64,
    offset: usize,
    limit: usize,
    warnings: Vec<Warning>,
) -> SessionList {
    SessionList {
        next_cursor: next_cursor(key, offset, limit, page.total),
        rows: page.rows,
        ids: page.ids,
        total: page.total,
        offset,
        hidden: page.hidden,
        warnings,
        archived: HashMap::new(),
    }
}

/// The cursor of the page after `offset..offset + limit`, if rows remain.
fn next_cursor(key: u64, offset: usize, limit: usize, total: usize) -> Option<String> {
    let end = offset.saturating_add(limit);
    (end < total).then(|| {
        Cursor {
            session: crate::page::session_hash("list"),
            source: 0,
            selection: key,
            pos: Pos {
                unit: end,
                offset: 0,
            },
        }
        .encode()
    })
}

/// What a list cursor binds: every filter and the page size (not the position).
fn query_key(q: &ListQuery, scope: &Scope) -> u64 {
    let key = format!(
        "{scope:?}|{:?}|{:?}|{:?}|{}|{}",
        q.provider, q.since, q.kind, q.limit, q.archived
    );
    xxhash_rust::xxh3::xxh3_64(key.as_bytes())
}

/// A row, the children folded under it by kind, and their sources.
type Row = (
    Entry,
    BTreeMap<&'static str, usize>,
    Vec<scry_source::SourceFile>,
);

/// Applies the kind filter; by default folds non-main sessions under a listed parent and hides
/// exec runs without one. Returns the rows and how many sessions were hidden.
fn fold(entries: Vec<Entry>, kind: Option<KindFilter>) -> (Vec<Row>, usize) {
    if let Some(k) = kind {
        let rows = entries
            .into_iter()
            .filter(|e| k.accepts(&e.header))
            .map(|entry| (entry, BTreeMap::new(), Vec::new()))
            .collect();
        return (rows, 0);
    }
    // Roots are main sessions and exec runs (exec runs are hidden unless `--kind` asks);
    // other kinds fold under a root of the same provider, or stand alone when it is not listed.
    let is_root = |h: &Header| matches!(h.kind, SessionKind::Main | SessionKind::Exec);
    let (roots, children): (Vec<Entry>, Vec<Entry>) =
        entries.into_iter().partition(|e| is_root(&e.header));
    let mut roots: Vec<Row> = roots
        .into_iter()
        .map(|entry| (entry, BTreeMap::new(), Vec::new()))
        .collect();
    // The roots of each (provider, id): a child folds under one (a map, not a scan of every
    // root per child — that was quadratic on large homes). When several files hold that id (a
    // copied project folder), under the one whose source shares the longest path with the
    // child's (a subagent file lives beside its parent's).
    let mut root_of: HashMap<(ProviderId, String), Vec<usize>> =
        HashMap::with_capacity(roots.len());
    for (i, (r, _, _)) in roots.iter().enumerate() {
        root_of
            .entry((r.header.provider, r.header.id.clone()))
            .or_default()
            .push(i);
    }
    let mut orphans = Vec::new();
    for child in children {
        let h = &child.header;
        let shared = |i: &usize| {
            roots.get(*i).map_or(0, |(r, _, _)| {
                r.file
                    .path
                    .components()
                    .zip(child.file.path.components())
                    .take_while(|(a, b)| a == b)
                    .count()
            })
        };
        let parent = h
            .parent
            .as_ref()
            .and_then(|p| root_of.get(&(h.provider, p.clone())))
            .and_then(|candidates| {
                // The first of the closest (max_by_key keeps the last of equals).
                candidates.iter().rev().max_by_key(|i| shared(i)).copied()
            })
            .and_then(|i| roots.get_mut(i));
        match parent {
            Some((_, kids, files)) => {
                *kids.entry(h.kind.as_str()).or_default() += 1;
                files.push(child.file);
            }
            None => orphans.push(child),
        }
    }
    let mut hidden = 0;
    let mut rows: Vec<Row> = Vec::new();
    for row in roots {
        if row.0.header.kind == SessionKind::Exec {
            hidden += 1 + row.1.values().sum::<usize>();
        } else {
            rows.push(row);
        }
    }
    for entry in orphans {
        rows.push((entry, BTreeMap::new(), Vec::new()));
    }
    rows.sort_by(|a, b| {
        b.0.header
            .updated
            .cmp(&a.0.header.updated)
            .then_with(|| a.0.header.uri.cmp(&b.0.header.uri))
            .then_with(|| a.0.file.path.cmp(&b.0.file.path))
    });
    (rows, hidden)
}
