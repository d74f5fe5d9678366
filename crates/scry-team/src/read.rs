//! Reading the team store: the same report types as the local index gives (scry-query's
//! [`SessionList`], [`Overview`], [`TurnsDir`], [`SearchResult`]), computed by scry-query's
//! own functions over the stored sessions, so the JSON equals the local answer for the same
//! sessions, plus the `machine` each session came from ([`Team::to_json`]).
//!
//! A session reference resolves across machines: `provider:id`, an id, or a unique id prefix;
//! `machine/reference` picks one machine's copy when several machines hold the session
//! (otherwise the answer is `AMBIGUOUS_ID` listing `machine/provider:id` candidates).
//!
//! Search: the `pg_trgm` GIN index of `scry_text` narrows the candidate sessions for literal
//! queries and terms of ASCII text; scry's own matcher ([`scry_store::search_direct`], the
//! engine the local search uses) then reads the candidates and decides, so the hits equal the
//! local ones. A regex, or a query with non-ASCII text (whose case folding PostgreSQL's
//! `ILIKE` does not share), reads every session in the filter.

use std::collections::{HashMap, VecDeque};
use std::path::PathBuf;

use postgres::types::ToSql;
use postgres::Client;
use scry_model::{ErrorCode, Header, ProviderId, Session};
use scry_query::catalog::Entry;
use scry_query::filter::{self, Scope};
use scry_query::{
    Availability, Context, ListQuery, Overview, QueryError, QueryResult, SearchQuery, SearchResult,
    SessionList, TurnsDir,
};
use scry_source::SourceFile;
use scry_store::{SearchMode, TermsOperator};
use serde_json::Value;

use scry_query::overview::overview_from;
use scry_query::session_read::Streamed;
use scry_query::turns::turns_from;
use scry_store::SessionIndex;

use crate::connect::{db_error, Target};
use crate::index::{through, TeamIndex};
use crate::stored;

/// A report from the team store and the machine of each session it holds, in the order of
/// the report's sessions.
#[derive(Debug)]
pub struct Team<T> {
    /// The report, as the local index would give it.
    pub report: T,
    /// The machine of each session (one for a one-session report).
    pub machines: Vec<String>,
}

/// How a report's JSON carries its sessions, for [`Team::to_json`].
pub trait Sessions {
    /// The report's JSON.
    fn json(&self) -> Value;
    /// The session objects in `v`, in order, where `machine` goes.
    fn session_objects(v: &mut Value) -> Vec<&mut Value>;
}

impl<T: Sessions> Team<T> {
    /// The report's JSON with `machine` added to each session object.
    pub fn to_json(&self) -> Value {
        let mut v = self.report.json();
        for (obj, m) in T::session_objects(&mut v).into_iter().zip(&self.machines) {
            if let Value::Object(map) = obj {
                map.insert("machine".into(), Value::String(m.clone()));
            }
        }
        v
    }
}

pub(crate) fn at_key<'a>(v: &'a mut Value, key: &str) -> Vec<&'a mut Value> {
    v.get_mut(key).into_iter().collect()
}

impl Sessions for SessionList {
    fn json(&self) -> Value {
        self.to_json()
    }
    fn session_objects(v: &mut Value) -> Vec<&mut Value> {
        match v.get_mut("sessions") {
            Some(Value::Array(rows)) => rows.iter_mut().collect(),
            _ => Vec::new(),
        }
    }
}

impl Sessions for SearchResult {
    fn json(&self) -> Value {
        self.to_json()
    }
    fn session_objects(v: &mut Value) -> Vec<&mut Value> {
        let within = v.get("session").is_some();
        if within {
            return at_key(v, "session");
        }
        match v.get_mut("sessions") {
            Some(Value::Array(rows)) => rows
                .iter_mut()
                .filter_map(|r| r.get_mut("session"))
                .collect(),
            _ => Vec::new(),
        }
    }
}

impl Sessions for Overview {
    fn json(&self) -> Value {
        self.to_json()
    }
    fn session_objects(v: &mut Value) -> Vec<&mut Value> {
        at_key(v, "session")
    }
}

impl Sessions for TurnsDir {
    fn json(&self) -> Value {
        self.to_json()
    }
    fn session_objects(v: &mut Value) -> Vec<&mut Value> {
        at_key(v, "session")
    }
}

/// An open team store (checked to be at this build's schema version).
pub struct Store {
    pub(crate) client: Client,
    target: Target,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store")
            .field("target", &self.target)
            .finish()
    }
}

/// One stored session's row (without its body).
#[derive(Debug, Clone)]
pub(crate) struct Row {
    pub(crate) id: i64,
    pub(crate) machine: String,
    pub(crate) path: String,
    pub(crate) key: String,
    pub(crate) fingerprint: String,
    pub(crate) size: i64,
    pub(crate) header: Header,
}

const ROW_COLS: &str = "id, machine, path, key, fingerprint, size, header";

fn row(r: &postgres::Row) -> QueryResult<Row> {
    Ok(Row {
        id: r.get(0),
        machine: r.get(1),
        path: r.get(2),
        key: r.get(3),
        fingerprint: r.get(4),
        size: r.get(5),
        header: stored::header_from(r.get(6))?,
    })
}

impl Row {
    fn entry(&self) -> Entry {
        let h = &self.header;
        Entry {
            file: SourceFile {
                provider: h.provider,
                id: h.id.clone(),
                path: PathBuf::from(&self.path),
                key: (!self.key.is_empty()).then(|| self.key.clone()),
                related: Vec::new(),
                size: self.size.max(0) as u64,
                mtime_ns: 0,
                kind: h.kind,
                parent: h.parent.clone(),
                cwd_hint: h.cwd.clone(),
            },
            header: h.clone(),
        }
    }

    /// What tells two listed sessions apart in a report: uri and primary source.
    fn ident(h: &Header) -> Ident {
        (h.uri.clone(), h.sources.first().cloned())
    }
}

/// The machines (and fingerprints) of the rows, to be taken in report order: a report holds
/// headers only, and two machines may hold the very same session (same uri and path).
struct Tags(HashMap<Ident, VecDeque<(String, String)>>);

/// A listed session's uri and primary source ([`Row::ident`]).
type Ident = (String, Option<PathBuf>);

impl Tags {
    fn of(rows: &[Row]) -> Tags {
        let mut map: HashMap<_, VecDeque<_>> = HashMap::new();
        for r in rows {
            map.entry(Row::ident(&r.header))
                .or_default()
                .push_back((r.machine.clone(), r.fingerprint.clone()));
        }
        Tags(map)
    }
    fn take(&mut self, h: &Header) -> (String, String) {
        self.0
            .get_mut(&Row::ident(h))
            .and_then(VecDeque::pop_front)
            .unwrap_or_default()
    }
}

impl Store {
    /// Connects to the team store at `url` and checks its schema version.
    pub fn open(url: &str) -> QueryResult<Store> {
        let (mut client, target) = crate::connect(url)?;
        crate::schema::check(&mut client, &target)?;
        Ok(Store { client, target })
    }

    /// Where the store is.
    pub fn target(&self) -> &Target {
        &self.target
    }

    pub(crate) fn rows(
        &mut self,
        filter: &str,
        params: &[&(dyn ToSql + Sync)],
    ) -> QueryResult<Vec<Row>> {
        let sql =
            format!("SELECT {ROW_COLS} FROM scry_sessions WHERE {filter} ORDER BY machine, id");
        let rows = self
            .client
            .query(&sql, params)
            .map_err(db_error("read sessions"))?;
        rows.iter().map(row).collect()
    }

    /// The stored rows of `machine` (all when `None`) and `providers` (all when empty).
    pub(crate) fn listed(
        &mut self,
        machine: Option<&str>,
        providers: &[ProviderId],
    ) -> QueryResult<Vec<Row>> {
        let names: Vec<String> = providers.iter().map(|p| p.as_str().to_string()).collect();
        let all = names.is_empty();
        self.rows(
            "($1::text IS NULL OR machine = $1) AND ($2 OR provider = ANY($3))",
            &[&machine, &all, &names],
        )
    }

    /// The compressed bodies of `rows` still stored, as (index in `rows`, body), in order.
    pub(crate) fn bodies(&mut self, rows: &[Row]) -> QueryResult<Vec<(usize, Vec<u8>)>> {
        let ids: Vec<i64> = rows.iter().map(|r| r.id).collect();
        let mut found: HashMap<i64, Vec<u8>> = self
            .client
            .query(
                "SELECT id, body FROM scry_sessions WHERE id = ANY($1)",
                &[&ids],
            )
            .map_err(db_error("read sessions"))?
            .into_iter()
            .map(|r| (r.get(0), r.get(1)))
            .collect();
        Ok(ids
            .iter()
            .enumerate()
            .filter_map(|(i, id)| found.remove(id).map(|body| (i, body)))
            .collect())
    }

    pub(crate) fn session(&mut self, r: &Row) -> QueryResult<Session> {
        let body: Vec<u8> = self
            .client
            .query_one("SELECT body FROM scry_sessions WHERE id = $1", &[&r.id])
            .map_err(db_error("read a session"))?
            .get(0);
        let b = stored::decode(&body)?;
        Ok(Session {
            header: r.header.clone(),
            events: b.events,
            warnings: b.warnings,
        })
    }

    /// Resolves `reference` (`[machine/]provider:id`, an id or a unique id prefix).
    pub(crate) fn resolve(&mut self, reference: &str) -> QueryResult<Row> {
        let (machine, rest) = match reference.split_once('/') {
            Some((m, r)) if !m.is_empty() && !r.is_empty() && !m.contains(':') => (Some(m), r),
            _ => (None, reference),
        };
        let (provider, id) = match rest.split_once(':') {
            Some((p, id)) => match p.parse::<ProviderId>() {
                Ok(p) => (Some(p.as_str().to_string()), id),
                Err(_) => (None, rest),
            },
            None => (None, rest),
        };
        let pattern = format!("{}%", like_escape(id));
        let mut rows = self.rows(
            "($1::text IS NULL OR machine = $1) AND ($2::text IS NULL OR provider = $2)
             AND native LIKE $3",
            &[&machine, &provider, &pattern],
        )?;
        if rows.iter().any(|r| r.header.id == id) {
            rows.retain(|r| r.header.id == id);
        }
        match rows.len() {
            0 => Err(QueryError::new(
                ErrorCode::SessionNotFound,
                format!("no session {reference:?} in the team store ({})", self.target),
            )),
            1 => Ok(rows.remove(0)),
            _ => Err(QueryError::ambiguous(
                format!(
                    "{reference:?} names {} sessions in the team store: add machine/ or more of the id",
                    rows.len()
                ),
                rows.iter()
                    .map(|r| format!("{}/{}", r.machine, r.header.uri))
                    .collect(),
            )),
        }
    }
}

/// `s` with `LIKE`'s wildcards escaped (the default escape character `\`).
fn like_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if matches!(c, '%' | '_' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// A stored session is persisted (the store holds it); its source is on another machine.
pub(crate) const STORED: Availability = Availability {
    live: false,
    persisted: true,
    archived: None,
    revision: None,
};

/// `list` from the team store (of one machine, or all).
pub fn list(
    ctx: &Context,
    store: &mut Store,
    q: &ListQuery,
    machine: Option<&str>,
) -> QueryResult<Team<SessionList>> {
    let mut scope = Scope::Global;
    let page = scry_query::list::Page::of(ctx, q, &mut scope)?;
    let providers = filter::providers(q.provider.as_deref())?;
    let rows = store.listed(machine, &providers)?;
    let mut tags = Tags::of(&rows);
    let entries: Vec<Entry> = rows.iter().map(Row::entry).collect();
    let fingerprints: HashMap<Ident, String> = rows
        .iter()
        .map(|r| (Row::ident(&r.header), r.fingerprint.clone()))
        .collect();
    let (mut list, folded) = page.assemble_folded(entries, Vec::new(), |e| {
        let fp = fingerprints
            .get(&Row::ident(&e.header))
            .cloned()
            .unwrap_or_default();
        (e, fp)
    });
    let machines: Vec<String> = list.rows.iter().map(|r| tags.take(&r.header).0).collect();
    // Each listed session's cost and failures with its folded children's, as the local list
    // carries them (one body read per session of the page).
    let prices = scry_query::usage::prices(ctx);
    let by_machine: HashMap<(&str, Ident), &Row> = rows
        .iter()
        .map(|r| ((r.machine.as_str(), Row::ident(&r.header)), r))
        .collect();
    let by_source: HashMap<(&str, &str, &str), &Row> = rows
        .iter()
        .map(|r| ((r.machine.as_str(), r.path.as_str(), r.key.as_str()), r))
        .collect();
    for ((row, m), children) in list.rows.iter_mut().zip(&machines).zip(&folded) {
        let Some(r) = by_machine.get(&(m.as_str(), Row::ident(&row.header))) else {
            continue;
        };
        let session = store.session(r)?;
        let (sums, mut failures) = scry_query::usage::Cost::sums_of_events(&session.events);
        let mut theirs = Vec::with_capacity(children.len());
        for child in children {
            let path = child.path.to_string_lossy();
            let key = (
                m.as_str(),
                path.as_ref(),
                child.key.as_deref().unwrap_or_default(),
            );
            if let Some(c) = by_source.get(&key) {
                let (s, f) = scry_query::usage::Cost::sums_of_events(&store.session(c)?.events);
                theirs.push(s);
                failures += f;
            }
        }
        let folds = !children.is_empty();
        row.cost = Some(scry_query::usage::Cost::of_row(
            &sums, &theirs, folds, &prices,
        ));
        row.failures = Some(failures);
    }
    Ok(Team {
        report: list,
        machines,
    })
}

/// `show` from the team store.
pub fn overview(ctx: &Context, store: &mut Store, reference: &str) -> QueryResult<Team<Overview>> {
    let (report, machine) = through(store, reference, |s, r| {
        overview_from(ctx, |sink| s.stream(sink), r.fingerprint.clone(), STORED)
    })?;
    Ok(Team {
        report,
        machines: vec![machine],
    })
}

/// `turns` from the team store.
pub fn turns(store: &mut Store, reference: &str, keep_chars: usize) -> QueryResult<Team<TurnsDir>> {
    let (report, machine) = through(store, reference, |s, r| {
        turns_from(
            |sink| s.stream(sink),
            keep_chars,
            r.fingerprint.clone(),
            STORED,
        )
    })?;
    Ok(Team {
        report,
        machines: vec![machine],
    })
}

/// The `ILIKE` / `LIKE` patterns whose every match a candidate must have (one per AND term),
/// or `None` when no pattern can narrow this query (a regex, non-ASCII text, OR terms).
fn narrowing(q: &SearchQuery, req: &scry_store::SearchRequest) -> Option<Vec<String>> {
    let texts: Vec<&str> = match req.mode {
        SearchMode::Regex => return None,
        SearchMode::Literal => vec![req.query.as_str()],
        SearchMode::Terms if req.operator == TermsOperator::And => {
            req.terms.iter().map(String::as_str).collect()
        }
        SearchMode::Terms => return None,
    };
    // The header is matched as JSON text, where `"` and `\\` are escaped: such terms read all.
    let usable = |t: &&str| {
        !t.is_empty()
            && (q.case || t.is_ascii())
            && !t.chars().any(|c| c == '"' || c == '\\' || c.is_control())
    };
    if texts.is_empty() || !texts.iter().all(usable) {
        return None;
    }
    Some(
        texts
            .iter()
            .map(|t| format!("%{}%", like_escape(t)))
            .collect(),
    )
}

/// `search` from the team store (of one machine, or all).
pub fn search(
    ctx: &Context,
    store: &mut Store,
    q: &SearchQuery,
    machine: Option<&str>,
) -> QueryResult<Team<SearchResult>> {
    let providers = filter::providers(q.provider.as_deref())?;
    let mut req = scry_query::search::request(ctx, q, &providers)?;
    let mut within = None;
    let mut view = machine.map(str::to_string);
    let rows: Vec<Row> = match &q.session {
        Some(reference) => {
            let r = store.resolve(reference)?;
            req.filter.uris = vec![r.header.uri.clone()];
            within = Some(r.header.clone());
            // The one machine's copy: the view is bound to it.
            view = Some(r.machine.clone());
            vec![r]
        }
        None => match narrowing(q, &req) {
            None => store.listed(machine, &providers)?,
            Some(patterns) => {
                // Only the candidates' rows are read (and their headers decoded).
                let ids: Vec<i64> = candidates(store, &patterns, q.case)?.into_iter().collect();
                let names: Vec<String> = providers.iter().map(|p| p.as_str().to_string()).collect();
                let all = names.is_empty();
                store.rows(
                    "id = ANY($4) AND ($1::text IS NULL OR machine = $1)
                     AND ($2 OR provider = ANY($3))",
                    &[&machine, &all, &names, &ids],
                )?
            }
        },
    };
    // Through the team store's `SessionIndex`, as the local search asks the SQLite index for
    // the sessions of its sources.
    let files: Vec<SourceFile> = rows.iter().map(|r| r.entry().file).collect();
    let response = TeamIndex::new(&mut *store, view.as_deref())
        .search_sources(&req, &files)
        .map_err(|e| scry_query::search::with_query(scry_query::search::store_error(&e), &req))?;
    let mut tags = Tags::of(&rows);
    let (mut machines, mut fingerprints) = (Vec::new(), Vec::new());
    for s in &response.sessions {
        let (m, fp) = tags.take(&s.header);
        machines.push(m);
        fingerprints.push(fp);
    }
    if within.is_some() {
        machines = rows.iter().map(|r| r.machine.clone()).collect();
    }
    let deleted = vec![None; response.sessions.len()];
    Ok(Team {
        report: SearchResult {
            response,
            session: within,
            fingerprints,
            deleted,
        },
        machines,
    })
}

/// The ids of the sessions where every pattern matches an event's text, or the header (title,
/// artifacts) — a superset of the sessions scry's matcher will find.
fn candidates(
    store: &mut Store,
    patterns: &[String],
    case: bool,
) -> QueryResult<std::collections::HashSet<i64>> {
    let op = if case { "LIKE" } else { "ILIKE" };
    let mut out: Option<std::collections::HashSet<i64>> = None;
    for p in patterns {
        let sql = format!(
            "SELECT DISTINCT session FROM scry_text WHERE text {op} $1
             UNION SELECT id FROM scry_sessions WHERE header {op} $1"
        );
        let ids: std::collections::HashSet<i64> = store
            .client
            .query(&sql, &[p])
            .map_err(db_error("search"))?
            .iter()
            .map(|r| r.get(0))
            .collect();
        out = Some(match out {
            None => ids,
            Some(prev) => prev.intersection(&ids).copied().collect(),
        });
    }
    Ok(out.unwrap_or_default())
}
