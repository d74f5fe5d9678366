//! `list` as SQL over indexed columns (issue 16): a page of sessions, its folded children, the
//! total and the ids that decide the page's short ids, each read through an index so the cost
//! follows the page, not the number of sessions (the total and the membership count are
//! `count(*)`s over indexes).
//!
//! Which sessions a list holds is described by a [`ListSpec`]: the discovery roots a source must
//! lie in (its path is a root or below), the providers discovered, the scope (matched against
//! the stored `cwd` and against the source's stored `cwd_hint`, as discovery filters files
//! before opening them) and `--since`. Only live sources count. The caller checks with
//! [`Store::list_members`] and [`Store::list_failed`] that this is the discovered set and that
//! none failed its last parse before trusting a page (otherwise it reads every row as before).
//!
//! Folding mirrors `scry_query`'s in-memory `list`: main sessions and exec runs are roots
//! (exec runs hidden); any other kind folds under a listed root of the same provider whose id is
//! its `fold` column (the header's parent, else discovery's), or stands alone. Ties of
//! (`updated`, uri) are ordered by source path component-wise, in Rust.

use std::cmp::Ordering;
use std::collections::{BTreeMap, HashSet};
use std::path::Path;

use rusqlite::types::Value;
use rusqlite::{params, params_from_iter};
use scry_model::{ProviderId, SessionKind, Timestamp};

use crate::codec::time_to_i;
use crate::error::{Result, StoreError};
use crate::Store;

/// Which indexed sessions a `list` holds (before folding and paging).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ListSpec {
    /// Discovery roots (directories or database files, no trailing `/`): a source belongs when
    /// its path is a root or lies below one. Empty = nothing belongs.
    pub roots: Vec<String>,
    /// The providers discovered. Empty = nothing belongs.
    pub providers: Vec<ProviderId>,
    /// `None` = every directory; else sessions whose cwd is one of these directories (no
    /// trailing `/`) or below, and whose source's `cwd_hint`, when it has one, is too.
    pub scope: Option<Vec<String>>,
    /// Only sessions updated at or after this time.
    pub since: Option<Timestamp>,
}

/// How the listed sessions become rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListMode {
    /// Main sessions with other kinds folded under their parent, exec runs hidden.
    Fold,
    /// No folding: sessions of this kind (`None` = every kind).
    Kind(Option<SessionKind>),
}

/// One row of a page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageRow {
    /// The stored session (for [`Store::header_by_sid`]).
    pub sid: i64,
    /// The source file.
    pub path: String,
    /// Its key inside a multi-session store (`""` for a single-session file).
    pub key: String,
    /// The session's id.
    pub id: String,
    /// Children folded under this row, by kind (empty unless [`ListMode::Fold`]).
    pub children: BTreeMap<&'static str, usize>,
    /// The stored sessions of those children (for their cost), in list order.
    pub folded: Vec<i64>,
    recency: i64,
    uri: String,
    provider: String,
    kind: String,
}

/// A live source as the index holds it: what discovery said of it when it was last indexed,
/// completed by its session's columns. Under a watcher's lease this stands in for discovery
/// (`scry_query`'s catalog from the index): no source directory is listed or stat'ed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexedSource {
    /// The source file (or the database holding the session).
    pub path: String,
    /// Its key inside a multi-session store (`""` for a single-session file).
    pub key: String,
    /// The provider that owns it.
    pub provider: ProviderId,
    /// Size in bytes when last indexed.
    pub size: u64,
    /// Modification time (ns since the Unix epoch) when last indexed.
    pub mtime_ns: i64,
    /// The session's native id (`None` when its last parse failed: no session row).
    pub id: Option<String>,
    /// The session's kind (`None` likewise).
    pub kind: Option<SessionKind>,
    /// The parent `list` folds it under (the header's, else discovery's).
    pub parent: Option<String>,
    /// Discovery's `cwd_hint`.
    pub hint: Option<String>,
}

/// The columns of an [`IndexedSource`] (`f` = files, `s` = sessions, left-joined).
const SOURCE_COLS: &str = "SELECT f.path, f.key, f.provider, f.size, f.mtime_ns, s.native, s.kind,
    s.fold, s.hint FROM files f LEFT JOIN sessions s ON s.sid = f.sid WHERE f.live = 1 AND ";

pub(crate) fn indexed_source(r: &rusqlite::Row<'_>) -> rusqlite::Result<Option<IndexedSource>> {
    let provider: String = r.get(2)?;
    let Ok(provider) = provider.parse::<ProviderId>() else {
        return Ok(None);
    };
    let kind: Option<String> = r.get(6)?;
    Ok(Some(IndexedSource {
        path: r.get(0)?,
        key: r.get(1)?,
        provider,
        size: u64::try_from(r.get::<_, i64>(3)?).unwrap_or(0),
        mtime_ns: r.get(4)?,
        id: r.get(5)?,
        kind: kind.as_deref().and_then(crate::read::kind_of),
        parent: r.get(7)?,
        hint: r.get(8)?,
    }))
}

/// A SQL text with its `?` parameters in order.
#[derive(Default)]
struct Sql {
    text: String,
    params: Vec<Value>,
}

impl Sql {
    fn push(&mut self, s: &str) -> &mut Self {
        self.text.push_str(s);
        self
    }
    fn bind(&mut self, v: impl Into<Value>) -> &mut Self {
        self.text.push('?');
        self.params.push(v.into());
        self
    }
    /// `col` is `dir` or below it (`dir` has no trailing `/`): `dir/…` strings sort in
    /// `[dir/, dir0)`.
    fn under(&mut self, col: &str, dirs: &[String]) -> &mut Self {
        if dirs.is_empty() {
            return self.push("0");
        }
        self.push("(");
        for (i, d) in dirs.iter().enumerate() {
            if i > 0 {
                self.push(" OR ");
            }
            self.push(&format!("{col} = "))
                .bind(d.clone())
                .push(&format!(" OR ({col} >= "))
                .bind(format!("{d}/"))
                .push(&format!(" AND {col} < "))
                .bind(format!("{d}0"))
                .push(")");
        }
        self.push(")")
    }
}

/// The columns of a [`PageRow`].
const COLS: &str = "SELECT s.sid, f.path, f.key, s.provider, s.native, s.kind, s.uri, s.recency
    FROM sessions s CROSS JOIN files f WHERE ";

/// The first `want` rows of `mode` in index order (`sessions_recent`).
fn page_sql(spec: &ListSpec, mode: ListMode, want: usize) -> Sql {
    let mut q = Sql::default();
    q.push(COLS);
    spec.listed(&mut q, "s", "f");
    q.push(" AND ");
    spec.row(&mut q, "s", mode);
    q.push(" ORDER BY s.recency DESC, s.uri LIMIT ")
        .bind(i64::try_from(want).unwrap_or(i64::MAX));
    q
}

/// The count of every row of `mode` (the list's total).
fn total_sql(spec: &ListSpec, mode: ListMode) -> Sql {
    let mut q = Sql::default();
    q.push("SELECT count(*) FROM sessions s CROSS JOIN files f WHERE ");
    spec.listed(&mut q, "s", "f");
    q.push(" AND ");
    spec.row(&mut q, "s", mode);
    q
}

/// Candidate blocks of a leased search up to which only their sessions are asked whether
/// they are listed ([`Store::search_listed`]); above, every listed sid is read.
const LISTED_CANDIDATES_MAX: usize = 4096;

/// The kinds that are roots of folding.
const ROOTS: &str = "('main', 'exec')";

impl ListSpec {
    /// Appends: session `s` indexed from source `f` belongs to the discovered set this spec
    /// describes (roots, providers, the scope's `cwd_hint` filter).
    fn member(&self, q: &mut Sql, s: &str, f: &str) {
        // Sources whose last parse failed are not excluded here: the caller answers only when
        // none did ([`Store::list_failed`]), so `files_sid` covers the join.
        q.push(&format!("{f}.sid = {s}.sid AND {f}.live = 1 AND "));
        // `+`: never drive the query from the files' path index (every source lies in the
        // roots); the sessions' indexes give the order and the selective filters.
        q.under(&format!("+{f}.path"), &self.roots);
        q.push(" AND ");
        self.providers_in(q, s);
        if let Some(scope) = &self.scope {
            q.push(&format!(" AND ({s}.hint IS NULL OR "));
            q.under(&format!("{s}.hint"), scope);
            q.push(")");
        }
    }

    /// Appends: `t`'s provider is one of the spec's.
    fn providers_in(&self, q: &mut Sql, t: &str) {
        q.push(&format!("{t}.provider IN ("));
        if self.providers.is_empty() {
            q.push("NULL");
        }
        for (i, p) in self.providers.iter().enumerate() {
            if i > 0 {
                q.push(", ");
            }
            q.bind(p.as_str().to_string());
        }
        q.push(")");
    }

    /// Appends: `s` / `f` is listed (a member, in scope by its cwd, updated since).
    fn listed(&self, q: &mut Sql, s: &str, f: &str) {
        self.member(q, s, f);
        if let Some(scope) = &self.scope {
            q.push(" AND ");
            q.under(&format!("{s}.cwd"), scope);
        }
        if let Some(t) = self.since {
            q.push(&format!(" AND {s}.updated >= ")).bind(time_to_i(t));
        }
    }

    /// Appends: a listed root of `kinds` exists for the session `s` would fold under.
    fn root_exists(&self, q: &mut Sql, s: &str, kinds: &str) {
        q.push(&format!(
            "EXISTS (SELECT 1 FROM sessions r CROSS JOIN files rf WHERE r.native = {s}.fold
             AND r.provider = {s}.provider AND r.kind IN {kinds} AND "
        ));
        self.listed(q, "r", "rf");
        q.push(")");
    }

    /// Appends: `s` is a row of `mode` (a root shown, an orphan, or of the kind asked).
    fn row(&self, q: &mut Sql, s: &str, mode: ListMode) {
        match mode {
            ListMode::Kind(None) => {
                q.push("1");
            }
            ListMode::Kind(Some(k)) => {
                q.push(&format!("{s}.kind = ")).bind(k.as_str().to_string());
            }
            ListMode::Fold => {
                q.push(&format!(
                    "({s}.kind = 'main' OR ({s}.kind NOT IN {ROOTS} AND NOT "
                ));
                self.root_exists(q, s, ROOTS);
                q.push("))");
            }
        }
    }
}

fn fail(context: &'static str) -> impl Fn(rusqlite::Error) -> StoreError {
    move |source| StoreError::Persistence {
        context: context.into(),
        source,
    }
}

/// `list`'s order: newest first, then uri, then source path (component-wise, as `Path`
/// compares).
fn order(a: &PageRow, b: &PageRow) -> Ordering {
    b.recency
        .cmp(&a.recency)
        .then_with(|| a.uri.cmp(&b.uri))
        .then_with(|| Path::new(&a.path).cmp(Path::new(&b.path)))
}

/// How many leading path components two sources share.
fn shared(a: &str, b: &str) -> usize {
    Path::new(a)
        .components()
        .zip(Path::new(b).components())
        .take_while(|(x, y)| x == y)
        .count()
}

impl Store {
    fn sql_count(&self, q: &Sql, context: &'static str) -> Result<usize> {
        let n: i64 = self
            .conn
            .prepare_cached(&q.text)
            .and_then(|mut st| st.query_row(params_from_iter(q.params.iter()), |r| r.get(0)))
            .map_err(fail(context))?;
        Ok(usize::try_from(n).unwrap_or(0))
    }

    /// How many live sources belong to `spec`'s discovered set (roots, providers, `cwd_hint` scope;
    /// not the cwd scope or `--since`): equal to the number of discovered files when the index
    /// holds exactly them.
    /// Without a scope only the files' fingerprint index is read (every file row with a `sid`
    /// has its session row).
    ///
    /// Stored like [`Store::list_counts`] (then [`Store::save_list_counts`] is due).
    pub fn list_members(&self, spec: &ListSpec) -> Result<usize> {
        let q = members_sql(spec);
        let key = crate::listcache::key(&q.text, &q.params);
        let outer = self.conn.is_autocommit();
        let (n, _) = self.snapshot(|| {
            self.counted(key, || Ok((self.sql_count(&q, "count listed sources")?, 0)))
        })?;
        if outer {
            self.save_list_counts();
        }
        Ok(n)
    }
}

/// The count of `spec`'s members ([`Store::list_members`]).
fn members_sql(spec: &ListSpec) -> Sql {
    let mut q = Sql::default();
    if spec.scope.is_some() {
        q.push("SELECT count(*) FROM sessions s CROSS JOIN files f WHERE ");
        spec.member(&mut q, "s", "f");
    } else {
        q.push(
            "SELECT count(*) FROM files f INDEXED BY files_fingerprint
                 WHERE f.sid IS NOT NULL AND f.live = 1 AND ",
        );
        q.under("f.path", &spec.roots);
        q.push(" AND ");
        spec.providers_in(&mut q, "f");
    }
    q
}

impl Store {
    /// `spec` less the roots under which no live source is stored: the same sessions, and a
    /// statement with three comparisons per root left (a `list` of 18 roots spent ≈ 2 ms of
    /// a 16 ms warm answer parsing and planning them). Two index seeks per root; call in the
    /// read snapshot the list is read in.
    pub fn occupied(&self, spec: &ListSpec) -> Result<ListSpec> {
        let mut st = self
            .conn
            .prepare_cached(
                "SELECT EXISTS(SELECT 1 FROM files WHERE path = ?1 AND live = 1)
                     OR EXISTS(SELECT 1 FROM files WHERE path >= ?2 AND path < ?3 AND live = 1)",
            )
            .map_err(fail("find occupied roots"))?;
        let mut roots = Vec::with_capacity(spec.roots.len());
        for d in &spec.roots {
            let any: bool = st
                .query_row(params![d, format!("{d}/"), format!("{d}0")], |r| r.get(0))
                .map_err(fail("find occupied roots"))?;
            if any {
                roots.push(d.clone());
            }
        }
        Ok(ListSpec {
            roots,
            ..spec.clone()
        })
    }

    /// Whether a live source under `spec`'s roots, of its providers, failed its last parse
    /// (read through the partial index of failed files: no scan when none did). `list` parses
    /// such sources directly, for their warnings.
    pub fn list_failed(&self, spec: &ListSpec) -> Result<bool> {
        let mut q = Sql::default();
        // `INDEXED BY`: left to itself SQLite reads every file under the roots through the
        // path index (and each row for its `error`), ~30 ms on 20,000 files.
        q.push(
            "SELECT count(*) FROM files f INDEXED BY files_failed
             WHERE f.error IS NOT NULL AND f.live = 1 AND ",
        );
        q.under("f.path", &spec.roots);
        q.push(" AND ");
        spec.providers_in(&mut q, "f");
        Ok(self.sql_count(&q, "count failed sources")? > 0)
    }

    /// The rows of `mode` over every page (`total`) and the sessions folding hides (exec runs
    /// and the children folded under them).
    ///
    /// Without `--since` the counts are stored with the index's write generation
    /// ([`crate::listcache`]): while nothing is written, a later call of the same query reads
    /// them back instead of counting. Call [`Store::save_list_counts`] after the read
    /// transaction this runs in (done here when it runs in none).
    pub fn list_counts(&self, spec: &ListSpec, mode: ListMode) -> Result<(usize, usize)> {
        if spec.since.is_some() {
            return self.count_rows(spec, mode);
        }
        let outer = self.conn.is_autocommit();
        let counted = self.snapshot(|| {
            let q = total_sql(spec, mode);
            let key = crate::listcache::key(&q.text, &q.params);
            self.counted(key, || self.count_rows(spec, mode))
        })?;
        if outer {
            self.save_list_counts();
        }
        Ok(counted)
    }

    /// [`Store::list_counts`] counted over the rows.
    fn count_rows(&self, spec: &ListSpec, mode: ListMode) -> Result<(usize, usize)> {
        let q = total_sql(spec, mode);
        let total = self.sql_count(&q, "count list rows")?;
        if mode != ListMode::Fold {
            return Ok((total, 0));
        }
        let mut q = Sql::default();
        q.push("SELECT count(*) FROM sessions s CROSS JOIN files f WHERE ");
        spec.listed(&mut q, "s", "f");
        q.push(" AND (s.kind = 'exec' OR (s.kind NOT IN ('main', 'exec') AND ");
        spec.root_exists(&mut q, "s", "('exec')");
        q.push(" AND NOT ");
        spec.root_exists(&mut q, "s", "('main')");
        q.push("))");
        let hidden = self.sql_count(&q, "count hidden sessions")?;
        Ok((total, hidden))
    }

    fn page_rows(&self, q: &Sql) -> Result<Vec<PageRow>> {
        let mut st = self
            .conn
            .prepare_cached(&q.text)
            .map_err(fail("list a page"))?;
        let rows = st
            .query_map(params_from_iter(q.params.iter()), |r| {
                Ok(PageRow {
                    sid: r.get(0)?,
                    path: r.get(1)?,
                    key: r.get(2)?,
                    provider: r.get(3)?,
                    id: r.get(4)?,
                    kind: r.get(5)?,
                    uri: r.get(6)?,
                    recency: r.get(7)?,
                    children: BTreeMap::new(),
                    folded: Vec::new(),
                })
            })
            .map_err(fail("list a page"))?;
        rows.collect::<rusqlite::Result<_>>()
            .map_err(fail("list a page"))
    }

    /// Rows `offset..offset + limit` of `mode`, in `list`'s order, with their folded children.
    /// Reads `offset + limit` rows in index order (`sessions_recent`), plus the rest of a tie
    /// of (`updated`, uri) at the end, and one indexed lookup per row for its children.
    pub fn list_page(
        &self,
        spec: &ListSpec,
        mode: ListMode,
        offset: usize,
        limit: usize,
    ) -> Result<Vec<PageRow>> {
        let want = offset.saturating_add(limit);
        let mut rows = self.page_rows(&page_sql(spec, mode, want))?;
        if let Some(last) = rows.last().filter(|_| rows.len() == want) {
            // The rows tied with the last one may continue past the limit and sort before it
            // by path: read the whole tie.
            let (recency, uri) = (last.recency, last.uri.clone());
            rows.retain(|r| r.recency != recency || r.uri != uri);
            let mut q = Sql::default();
            q.push(COLS);
            spec.listed(&mut q, "s", "f");
            q.push(" AND ");
            spec.row(&mut q, "s", mode);
            q.push(" AND s.recency = ").bind(recency);
            q.push(" AND s.uri = ").bind(uri);
            rows.extend(self.page_rows(&q)?);
        }
        rows.sort_by(order);
        let mut rows: Vec<PageRow> = rows.into_iter().skip(offset).take(limit).collect();
        if mode == ListMode::Fold {
            for row in &mut rows {
                if row.kind == "main" {
                    (row.children, row.folded) = self.list_children(spec, row)?;
                }
            }
        }
        Ok(rows)
    }

    /// The children folded under `root`: listed sessions of a non-root kind whose fold parent
    /// is its id, each under the first (in list order) of the roots with that id whose source
    /// shares the longest path with the child's; and their sids.
    fn list_children(
        &self,
        spec: &ListSpec,
        root: &PageRow,
    ) -> Result<(BTreeMap<&'static str, usize>, Vec<i64>)> {
        let mut q = Sql::default();
        q.push(COLS)
            .push("s.fold = ")
            .bind(root.id.clone())
            .push(" AND s.provider = ")
            .bind(root.provider.clone())
            .push(&format!(" AND s.kind NOT IN {ROOTS} AND "));
        spec.listed(&mut q, "s", "f");
        let children = self.page_rows(&q)?;
        let mut out = BTreeMap::new();
        let mut sids = Vec::new();
        if children.is_empty() {
            return Ok((out, sids));
        }
        let mut q = Sql::default();
        q.push(COLS)
            .push("s.native = ")
            .bind(root.id.clone())
            .push(" AND s.provider = ")
            .bind(root.provider.clone())
            .push(&format!(" AND s.kind IN {ROOTS} AND "));
        spec.listed(&mut q, "s", "f");
        let mut roots = self.page_rows(&q)?;
        roots.sort_by(order);
        for child in children {
            let mut best: Option<(&PageRow, usize)> = None;
            for r in &roots {
                let n = shared(&r.path, &child.path);
                if best.is_none_or(|(_, m)| n > m) {
                    best = Some((r, n));
                }
            }
            let mine = best.is_none_or(|(r, _)| r.path == root.path && r.key == root.key);
            if !mine {
                continue;
            }
            if let Some(kind) = crate::read::kind_of(&child.kind) {
                *out.entry(kind.as_str()).or_default() += 1;
                sids.push(child.sid);
            }
        }
        Ok((out, sids))
    }

    /// The listed ids (any kind, before folding) nearest to `id` below and above it in byte
    /// order, other than `id` itself: the ids sharing the longest prefix with it, which alone
    /// decide its shortest unique prefix. Two indexed lookups on `native`.
    pub fn list_neighbours(&self, spec: &ListSpec, id: &str) -> Result<Vec<String>> {
        let mut out = Vec::new();
        for (op, dir) in [("<", "DESC"), (">", "ASC")] {
            let mut q = Sql::default();
            q.push("SELECT s.native FROM sessions s CROSS JOIN files f WHERE s.native ")
                .push(op)
                .push(" ")
                .bind(id.to_string())
                .push(" AND ");
            spec.listed(&mut q, "s", "f");
            q.push(&format!(" ORDER BY s.native {dir} LIMIT 1"));
            let found: Option<String> = self
                .conn
                .prepare_cached(&q.text)
                .and_then(|mut st| {
                    let mut rows = st.query(params_from_iter(q.params.iter()))?;
                    rows.next()?.map(|r| r.get(0)).transpose()
                })
                .map_err(fail("find neighbouring ids"))?;
            out.extend(found);
        }
        Ok(out)
    }

    /// Every live source under `spec`'s roots, of its providers (the scope and `--since` are
    /// not applied; sources whose last parse failed included): the discovered set as the
    /// index holds it, for a command answering under a watcher's lease. One pass over `files`.
    pub fn list_sources(&self, spec: &ListSpec) -> Result<Vec<IndexedSource>> {
        let mut q = Sql::default();
        q.push(SOURCE_COLS);
        q.under("f.path", &spec.roots);
        q.push(" AND ");
        spec.providers_in(&mut q, "f");
        q.push(" ORDER BY f.path, f.key");
        self.sources_of(&q)
    }

    /// The live source `path` / `key` as the index holds it (`None` when it holds none).
    pub fn indexed_source(&self, path: &str, key: &str) -> Result<Option<IndexedSource>> {
        let mut q = Sql::default();
        q.push(SOURCE_COLS)
            .push("f.path = ")
            .bind(path.to_string())
            .push(" AND f.key = ")
            .bind(key.to_string());
        Ok(self.sources_of(&q)?.pop())
    }

    fn sources_of(&self, q: &Sql) -> Result<Vec<IndexedSource>> {
        let mut st = self
            .conn
            .prepare_cached(&q.text)
            .map_err(fail("read indexed sources"))?;
        let rows = st
            .query_map(params_from_iter(q.params.iter()), indexed_source)
            .map_err(fail("read indexed sources"))?;
        let mut out = Vec::new();
        for r in rows {
            out.extend(r.map_err(fail("read indexed sources"))?);
        }
        Ok(out)
    }

    /// The sessions of `spec`'s discovered set as the index holds it (live sources under its
    /// roots, of its providers, with a `cwd_hint` in its scope): what a search may answer from
    /// under a watcher's lease. Reads the `files_sid` index only when there is no scope.
    pub fn list_sids(&self, spec: &ListSpec) -> Result<HashSet<i64>> {
        let mut q = Sql::default();
        if spec.scope.is_some() {
            q.push("SELECT s.sid FROM sessions s CROSS JOIN files f WHERE ");
            spec.member(&mut q, "s", "f");
        } else {
            q.push("SELECT f.sid FROM files f WHERE f.sid IS NOT NULL AND f.live = 1 AND ");
            q.under("f.path", &spec.roots);
            q.push(" AND ");
            spec.providers_in(&mut q, "f");
        }
        let mut st = self
            .conn
            .prepare_cached(&q.text)
            .map_err(fail("read listed sessions"))?;
        let rows = st
            .query_map(params_from_iter(q.params.iter()), |r| r.get::<_, i64>(0))
            .map_err(fail("read listed sessions"))?;
        rows.collect::<rusqlite::Result<_>>()
            .map_err(fail("read listed sessions"))
    }

    /// Which of the sessions `sids` belong to `spec`'s discovered set (as
    /// [`Store::list_sids`] says), asked of them alone: indexed lookups, a few hundred at a
    /// time.
    fn listed_among(&self, spec: &ListSpec, sids: &[i64]) -> Result<HashSet<i64>> {
        let mut out = HashSet::with_capacity(sids.len());
        for chunk in sids.chunks(500) {
            let mut q = Sql::default();
            if spec.scope.is_some() {
                q.push("SELECT s.sid FROM sessions s CROSS JOIN files f WHERE s.sid IN (");
            } else {
                q.push("SELECT f.sid FROM files f WHERE f.sid IN (");
            }
            for (i, sid) in chunk.iter().enumerate() {
                if i > 0 {
                    q.push(", ");
                }
                q.bind(*sid);
            }
            q.push(") AND ");
            if spec.scope.is_some() {
                spec.member(&mut q, "s", "f");
            } else {
                q.push("f.live = 1 AND ");
                q.under("+f.path", &spec.roots);
                q.push(" AND ");
                spec.providers_in(&mut q, "f");
            }
            let mut st = self
                .conn
                .prepare(&q.text)
                .map_err(fail("read listed sessions"))?;
            let rows = st
                .query_map(params_from_iter(q.params.iter()), |r| r.get::<_, i64>(0))
                .map_err(fail("read listed sessions"))?;
            for sid in rows {
                out.insert(sid.map_err(fail("read listed sessions"))?);
            }
        }
        Ok(out)
    }

    /// [`Store::search`] over the sessions of `spec`'s discovered set ([`Store::list_sids`])
    /// and the stored sessions `also` (archived ones), in one read snapshot: a search under a
    /// watcher's lease, with no discovery.
    pub fn search_listed(
        &self,
        req: &crate::SearchRequest,
        spec: &ListSpec,
        also: &[i64],
    ) -> Result<crate::SearchResponse> {
        self.snapshot(|| {
            // A selective query asks its few candidate sessions whether they are listed
            // instead of reading every listed sid.
            let mut sids = match self.candidate_sessions(req, LISTED_CANDIDATES_MAX)? {
                Some(mut candidates) => {
                    // A candidate earlier revision (issue 20) is listed when its source's
                    // current session is.
                    if req.filter.live != Some(true) {
                        let revs = crate::revision::scope_of(&self.conn, None)?;
                        let extra: Vec<i64> = candidates
                            .iter()
                            .filter_map(|c| revs.get(c).map(|r| r.0))
                            .collect();
                        candidates.extend(extra);
                        candidates.sort_unstable();
                        candidates.dedup();
                    }
                    self.listed_among(spec, &candidates)?
                }
                None => self.list_sids(spec)?,
            };
            sids.extend(also.iter().copied());
            self.search_unlocked(req, Some(sids))
        })
    }

    /// The page query's cost: the rows it returned, and SQLite's counters of rows stepped
    /// through by scans (`SQLITE_STMTSTATUS_FULLSCAN_STEP`) and of VM steps, plus its query
    /// plan (EXPLAIN QUERY PLAN, one line per step). A test hook: a page must cost O(page).
    #[doc(hidden)]
    pub fn list_page_cost(
        &self,
        spec: &ListSpec,
        mode: ListMode,
        limit: usize,
    ) -> Result<(usize, i32, i32, Vec<String>)> {
        let q = page_sql(spec, mode, limit);
        let mut st = self.conn.prepare(&q.text).map_err(fail("list a page"))?;
        let mut n = 0;
        {
            let mut rows = st
                .query(params_from_iter(q.params.iter()))
                .map_err(fail("list a page"))?;
            while rows.next().map_err(fail("list a page"))?.is_some() {
                n += 1;
            }
        }
        let scanned = st.get_status(rusqlite::StatementStatus::FullscanStep);
        let steps = st.get_status(rusqlite::StatementStatus::VmStep);
        let mut st = self
            .conn
            .prepare(&format!("EXPLAIN QUERY PLAN {}", q.text))
            .map_err(fail("explain"))?;
        let plan = st
            .query_map(params_from_iter(q.params.iter()), |r| r.get::<_, String>(3))
            .map_err(fail("explain"))?
            .collect::<rusqlite::Result<_>>()
            .map_err(fail("explain"))?;
        Ok((n, scanned, steps, plan))
    }
}
