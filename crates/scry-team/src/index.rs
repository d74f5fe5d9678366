//! The team store behind scry-query's door (issue 18): [`TeamIndex`] implements
//! [`SessionIndex`] over the stored sessions of one machine (or all), read-only, so the query
//! layer's own readers — a session replayed window by window ([`scry_query::indexed::replay`]),
//! its usage sums, a search over given sources — answer from the team store as they answer
//! from the SQLite index. It is also what a [`scry_query::StoreSeam`] opens
//! ([`TeamIndex::seam`]).
//!
//! What it answers: a session's header, events, warnings, usage sums and failures, priced
//! requests, uri and key (by uri, by source, by its row id); the list columns and cwds of every
//! stored session of the view; a search over the sessions of given sources (scry's own
//! matcher over the stored bodies, read in batches: [`scry_store::search_direct_each`]).
//! What it does not: the SQL-paged list and search of a *discovered* set ([`ListSpec`]: the
//! team store holds pushed sessions, not a discovery), the fact layers, earlier revisions,
//! archived rows, the lease and the ledger's time windows — each refused with
//! [`StoreError::Other`] (or answered empty where empty is the truth: no archive, no
//! revision, no lease), so the query layer falls back as it does without an index. It never
//! writes ([`SessionIndex::local_mut`] stays `None`: the query layer never refreshes it).
//!
//! Session keys (`sid`) are the store's row ids. Two machines may hold the same source path:
//! a reference by uri or by source is then [`StoreError::AmbiguousSession`] unless the view
//! is bound to one machine ([`TeamIndex::new`]).

use std::borrow::BorrowMut;
use std::cell::RefCell;
use std::collections::HashSet;
use std::ops::RangeInclusive;

use scry_model::{ErrorCode, Event, Header, ProviderId, Session, Timestamp, Warning};
use scry_query::session_read::InIndex;
use scry_query::{QueryError, QueryResult};
use scry_source::SourceFile;
use scry_store::{
    ArchivedRow, IndexedSource, Lease, ListMode, ListRow, ListSpec, PageRow, RevisionRow,
    SearchRequest, SearchResponse, SessionFacts, SessionIndex, SessionRef, SourceCwd, StoreError,
    StoredRequest, UsageSum,
};

use crate::read::{Row, Store};
use crate::stored;

/// Sessions whose bodies one query reads while search streams them.
const BATCH: usize = 16;

/// The team store as a [`SessionIndex`]: the stored sessions of `machine` (all when `None`).
/// `S` is the open store, owned ([`Store`]) or borrowed (`&mut Store`).
pub struct TeamIndex<S = Store> {
    store: RefCell<S>,
    machine: Option<String>,
    /// The last session decoded (row id, session): a replay asks for its header, count,
    /// event windows and warnings in turn, and the body is decoded once.
    last: RefCell<Option<(i64, Session)>>,
}

impl<S: BorrowMut<Store>> TeamIndex<S> {
    /// The sessions of `store` pushed by `machine` (all machines when `None`).
    pub fn new(store: S, machine: Option<&str>) -> Self {
        TeamIndex {
            store: RefCell::new(store),
            machine: machine.map(str::to_string),
            last: RefCell::new(None),
        }
    }

    /// The open store itself.
    pub fn into_inner(self) -> S {
        self.store.into_inner()
    }

    /// `f` with the open store.
    fn store<T>(&self, f: impl FnOnce(&mut Store) -> T) -> T {
        let mut held = self.store.borrow_mut();
        f(BorrowMut::<Store>::borrow_mut(&mut *held))
    }

    fn rows(
        &self,
        filter: &str,
        params: &[&(dyn postgres::types::ToSql + Sync)],
    ) -> Result<Vec<Row>, StoreError> {
        let machine = &self.machine;
        let mut all: Vec<&(dyn postgres::types::ToSql + Sync)> = vec![machine];
        all.extend_from_slice(params);
        let filter = format!("($1::text IS NULL OR machine = $1) AND ({filter})");
        self.store(|s| s.rows(&filter, &all)).map_err(other)
    }

    /// The one stored row `at` names in this view.
    fn row(&self, at: SessionRef<'_>) -> Result<Row, StoreError> {
        let (name, mut rows) = match at {
            SessionRef::Uri(uri) => (uri.to_string(), self.rows("uri = $2", &[&uri])?),
            SessionRef::Source { path, key } => {
                let path = path.to_string_lossy().into_owned();
                let key = key.unwrap_or_default().to_string();
                (
                    path.clone(),
                    self.rows("path = $2 AND key = $3", &[&path, &key])?,
                )
            }
            SessionRef::Revision { path, .. } => {
                return Err(StoreError::SessionNotFound(format!(
                    "{} (the team store keeps no earlier revision)",
                    path.display()
                )))
            }
        };
        match rows.len() {
            0 => Err(StoreError::SessionNotFound(name)),
            1 => Ok(rows.remove(0)),
            _ => Err(StoreError::AmbiguousSession {
                uri: name,
                sources: rows
                    .iter()
                    .map(|r| format!("{}/{}", r.machine, r.path))
                    .collect(),
            }),
        }
    }

    /// `f` over the stored session `at` names (decoded once for consecutive reads of it).
    fn with<T>(
        &self,
        at: SessionRef<'_>,
        f: impl FnOnce(&Row, &Session) -> T,
    ) -> Result<T, StoreError> {
        let row = self.row(at)?;
        self.with_row(&row, f)
    }

    fn with_row<T>(&self, row: &Row, f: impl FnOnce(&Row, &Session) -> T) -> Result<T, StoreError> {
        let mut last = self.last.borrow_mut();
        if last.as_ref().is_none_or(|(id, _)| *id != row.id) {
            let session = self.store(|s| s.session(row));
            *last = Some((row.id, session.map_err(other)?));
        }
        let (_, session) = last.as_ref().expect("decoded above");
        Ok(f(row, session))
    }

    fn by_sid(&self, sid: i64) -> Result<Row, StoreError> {
        self.rows("id = $2", &[&sid])?
            .pop()
            .ok_or_else(|| StoreError::SessionNotFound(format!("session #{sid}")))
    }

    /// The rows of this view whose (path, key) is one of `sources`, by machine then row id.
    pub(crate) fn rows_of(&self, sources: &[SourceFile]) -> Result<Vec<Row>, StoreError> {
        let paths: Vec<String> = sources
            .iter()
            .map(|f| f.path.to_string_lossy().into_owned())
            .collect();
        let keys: Vec<String> = sources
            .iter()
            .map(|f| f.key.clone().unwrap_or_default())
            .collect();
        self.rows(
            "(path, key) IN (SELECT * FROM unnest($2::text[], $3::text[]))",
            &[&paths, &keys],
        )
    }

    /// scry's matcher over the stored sessions of `rows`, read in batches and matched one at
    /// a time ([`scry_store::search_direct_each`]): memory holds one batch of compressed
    /// bodies, one decoded session and the ranking's page, not every candidate.
    pub(crate) fn search_rows(
        &self,
        rows: &[Row],
        req: &SearchRequest,
    ) -> Result<SearchResponse, StoreError> {
        let batches = rows.chunks(BATCH).enumerate().flat_map(|(b, chunk)| {
            // A session replaced by a push since `rows` were read has a new id: left out.
            let read: Vec<QueryResult<(usize, Vec<u8>)>> = match self.store(|s| s.bodies(chunk)) {
                Ok(bodies) => bodies.into_iter().map(Ok).collect(),
                Err(e) => vec![Err(e)],
            };
            // Decoded one at a time, as the matcher asks.
            read.into_iter().map(move |item| {
                let (i, body) = item?;
                let decoded = stored::decode(&body)?;
                Ok((
                    b * BATCH + i,
                    Session {
                        header: chunk[i].header.clone(),
                        events: decoded.events,
                        warnings: decoded.warnings,
                    },
                ))
            })
        });
        let reread = |pos: usize| self.store(|s| s.session(&rows[pos]));
        scry_store::search_direct_each(req, batches, reread).map_err(|e| match e {
            scry_store::EachError::Search(e) => e,
            scry_store::EachError::Read(e) => other(e),
        })
    }
}

impl TeamIndex<Store> {
    /// A seam for [`scry_query::Context::store`] that opens the team store at `url` (the
    /// sessions of `machine`, all when `None`) for each operation.
    pub fn seam(url: &str, machine: Option<&str>) -> scry_query::StoreSeam {
        let (url, machine) = (url.to_string(), machine.map(str::to_string));
        scry_query::StoreSeam::new(move |_ctx| {
            let store = Store::open(&url)?;
            let index: scry_query::Index = Box::new(TeamIndex::new(store, machine.as_deref()));
            Ok(Some(index))
        })
    }
}

/// A query error of the team store as the trait reports it.
fn other(e: QueryError) -> StoreError {
    StoreError::Other {
        code: e.code,
        message: e.message,
    }
}

/// A read the team store does not answer (it holds pushed sessions, not a discovered set).
fn unsupported(what: &str) -> StoreError {
    StoreError::Other {
        code: ErrorCode::InvalidQuery,
        message: format!("the team store does not answer {what}"),
    }
}

impl<S: BorrowMut<Store>> SessionIndex for TeamIndex<S> {
    fn header(&self, at: SessionRef<'_>) -> scry_store::Result<Header> {
        Ok(self.row(at)?.header)
    }
    fn header_by_sid(&self, sid: i64) -> scry_store::Result<Header> {
        Ok(self.by_sid(sid)?.header)
    }
    fn event_count(&self, at: SessionRef<'_>) -> scry_store::Result<u32> {
        self.with(at, |_, s| u32::try_from(s.events.len()).unwrap_or(u32::MAX))
    }
    fn each_event(
        &self,
        at: SessionRef<'_>,
        range: RangeInclusive<u32>,
        f: &mut dyn FnMut(Event),
    ) -> scry_store::Result<()> {
        self.with(at, |_, s| {
            let (a, b) = (*range.start() as usize, *range.end() as usize);
            for e in s.events.iter().skip(a).take((b + 1).saturating_sub(a)) {
                f(e.clone());
            }
        })
    }
    fn warnings(&self, at: SessionRef<'_>) -> scry_store::Result<Vec<Warning>> {
        self.with(at, |_, s| s.warnings.clone())
    }
    fn facts(&self, _at: SessionRef<'_>) -> scry_store::Result<SessionFacts> {
        Err(unsupported(
            "the fact layers (they are computed from the read)",
        ))
    }

    fn list_rows(&self) -> scry_store::Result<Vec<ListRow>> {
        Ok(self
            .rows("TRUE", &[])?
            .into_iter()
            .map(|r| ListRow {
                path: r.path,
                key: r.key,
                sid: r.id,
                provider: r.header.provider,
                id: r.header.id,
                uri: r.header.uri,
                cwd: r.header.cwd,
                updated: r.header.updated,
                kind: r.header.kind,
                parent: r.header.parent,
            })
            .collect())
    }
    fn list_members(&self, _spec: &ListSpec) -> scry_store::Result<usize> {
        Err(unsupported("a discovered set"))
    }
    fn list_failed(&self, _spec: &ListSpec) -> scry_store::Result<bool> {
        Err(unsupported("a discovered set"))
    }
    fn list_counts(&self, _spec: &ListSpec, _mode: ListMode) -> scry_store::Result<(usize, usize)> {
        Err(unsupported("a discovered set"))
    }
    fn save_list_counts(&self) {}
    fn list_page(
        &self,
        _spec: &ListSpec,
        _mode: ListMode,
        _offset: usize,
        _limit: usize,
    ) -> scry_store::Result<Vec<PageRow>> {
        Err(unsupported("a discovered set"))
    }
    fn list_neighbours(&self, _spec: &ListSpec, _id: &str) -> scry_store::Result<Vec<String>> {
        Err(unsupported("a discovered set"))
    }
    fn usage_sums(&self, sid: i64) -> scry_store::Result<Vec<UsageSum>> {
        let row = self.by_sid(sid)?;
        self.with_row(&row, |_, s| {
            scry_query::usage::Cost::sums_of_events(&s.events).0
        })
    }
    fn failure_count(&self, sid: i64) -> scry_store::Result<u64> {
        let row = self.by_sid(sid)?;
        self.with_row(&row, |_, s| {
            scry_query::usage::Cost::sums_of_events(&s.events).1
        })
    }
    fn list_sources(&self, _spec: &ListSpec) -> scry_store::Result<Vec<IndexedSource>> {
        Err(unsupported("a discovered set"))
    }
    fn indexed_source(&self, _path: &str, _key: &str) -> scry_store::Result<Option<IndexedSource>> {
        Err(unsupported("discovery's view of a source"))
    }

    fn search_sources(
        &self,
        req: &SearchRequest,
        sources: &[SourceFile],
    ) -> scry_store::Result<SearchResponse> {
        let rows = self.rows_of(sources)?;
        self.search_rows(&rows, req)
    }
    fn search_listed(
        &self,
        _req: &SearchRequest,
        _spec: &ListSpec,
        _also: &[i64],
    ) -> scry_store::Result<SearchResponse> {
        Err(unsupported("a discovered set"))
    }
    fn search_revision(
        &self,
        _at: SessionRef<'_>,
        _req: &SearchRequest,
    ) -> scry_store::Result<SearchResponse> {
        Err(unsupported("earlier revisions"))
    }
    fn revisions(&self, _path: &str, _key: &str) -> scry_store::Result<Vec<RevisionRow>> {
        Ok(Vec::new())
    }

    fn archived(&self) -> scry_store::Result<Vec<ArchivedRow>> {
        Ok(Vec::new())
    }
    fn archived_source(&self, _path: &str, _key: &str) -> scry_store::Result<Option<ArchivedRow>> {
        Ok(None)
    }

    fn uri_at(&self, path: &str, key: &str) -> scry_store::Result<Option<String>> {
        let (path, key) = (path.to_string(), key.to_string());
        let mut rows = self.rows("path = $2 AND key = $3", &[&path, &key])?;
        match rows.len() {
            0 => Ok(None),
            1 => Ok(Some(rows.remove(0).header.uri)),
            _ => Err(StoreError::AmbiguousSession {
                uri: path,
                sources: rows.iter().map(|r| r.machine.clone()).collect(),
            }),
        }
    }
    fn source_cwds(&self) -> scry_store::Result<Vec<(String, String, String)>> {
        Ok(self
            .rows("TRUE", &[])?
            .into_iter()
            .filter_map(|r| Some((r.path, r.key, r.header.cwd?)))
            .collect())
    }
    fn live_cwds(&self, _except: ProviderId) -> scry_store::Result<Vec<(String, String)>> {
        // No source of the team store is live on this machine.
        Ok(Vec::new())
    }
    fn each_live_cwd(
        &self,
        _except: ProviderId,
        _each: &mut dyn FnMut(SourceCwd<'_>),
    ) -> scry_store::Result<()> {
        Ok(())
    }
    fn lease(&self) -> scry_store::Result<Option<Lease>> {
        Ok(None)
    }
    fn data_version(&self) -> scry_store::Result<i64> {
        Ok(0)
    }
    fn begin_read(&self) -> scry_store::Result<bool> {
        Ok(false)
    }
    fn end_read(&self) {}

    fn sid_by(&self, at: SessionRef<'_>) -> scry_store::Result<Option<i64>> {
        match self.row(at) {
            Ok(r) => Ok(Some(r.id)),
            Err(StoreError::SessionNotFound(_)) => Ok(None),
            Err(e) => Err(e),
        }
    }
    fn requests(
        &self,
        at: SessionRef<'_>,
    ) -> scry_store::Result<Option<(Header, Vec<StoredRequest>)>> {
        let row = match self.row(at) {
            Ok(r) => r,
            Err(StoreError::SessionNotFound(_)) => return Ok(None),
            Err(e) => return Err(e),
        };
        self.with_row(&row, |r, s| {
            let requests = s.events.iter().filter_map(StoredRequest::of).collect();
            Some((r.header.clone(), requests))
        })
    }
    fn sources_idle_since(
        &self,
        _since: Timestamp,
        _keep: Option<&str>,
    ) -> scry_store::Result<HashSet<(String, String)>> {
        Err(unsupported("the ledger's time windows"))
    }
    fn sources_active_since(
        &self,
        _since: Timestamp,
        _keep: Option<&str>,
    ) -> scry_store::Result<Vec<(IndexedSource, i64)>> {
        Err(unsupported("the ledger's time windows"))
    }
    fn sources_by_id(
        &self,
        _spec: &ListSpec,
        _provider: Option<ProviderId>,
        _id: &str,
        _prefix: bool,
    ) -> scry_store::Result<Option<Vec<IndexedSource>>> {
        Ok(None)
    }
}

/// `f` over the stored session `reference` names, read through the team store's
/// [`SessionIndex`] (bound to the machine that holds it: [`InIndex`] replays it window by
/// window as a local index replays a session), with its row; and its machine.
pub(crate) fn through<T>(
    store: &mut Store,
    reference: &str,
    f: impl FnOnce(&InIndex<'_>, &Row) -> QueryResult<T>,
) -> QueryResult<(T, String)> {
    let r = store.resolve(reference)?;
    let index = TeamIndex::new(&mut *store, Some(&r.machine));
    let session = InIndex {
        index: &index,
        path: std::path::PathBuf::from(&r.path),
        key: (!r.key.is_empty()).then(|| r.key.clone()),
        uri: r.header.uri.clone(),
        // The fingerprint the source had when pushed (hex of scry-query's
        // `source_fingerprint`).
        fingerprint: u64::from_str_radix(&r.fingerprint, 16).unwrap_or_default(),
        availability: crate::read::STORED,
    };
    let out = f(&session, &r)?;
    Ok((out, r.machine))
}
