//! [`SessionIndex`]: the reads the query layer (scry-query) asks of an index, as one trait, so
//! another store can stand behind the query door (a PostgreSQL team archive, issue 22). The
//! SQLite [`Store`] implements it by delegating to its own methods; writing (refresh, rebuild,
//! prune, the lease) stays store-specific.
//!
//! What a second store must implement, and keep equal to the SQLite store's answers (the JSON
//! of every operation is the same whichever store answers):
//! - **sessions**: [`SessionIndex::header`] / [`SessionIndex::header_by_sid`] (the stored
//!   header, `persisted: true`), [`SessionIndex::event_count`], [`SessionIndex::each_event`]
//!   (events of a seq window, in order, decoded one at a time), [`SessionIndex::warnings`],
//!   [`SessionIndex::facts`] (the L2 fact card);
//! - **list**: the indexed columns of every session ([`SessionIndex::list_rows`]) and the
//!   SQL-paged list of a discovered set ([`ListSpec`]: members, failed sources, counts, a page,
//!   the neighbours that make short ids unique, the live sources and one source by path / key)
//!   and each listed session's usage-ledger sums ([`SessionIndex::usage_sums`]);
//! - **search**: over given sources ([`SessionIndex::search_sources`]) or a listed set
//!   ([`SessionIndex::search_listed`]), with [`SearchRequest`]'s filters, cursor and budgets;
//! - **archive**: the rows whose source is gone ([`SessionIndex::archived`],
//!   [`SessionIndex::archived_source`]); **revisions** (issue 20): the earlier revisions of a
//!   source ([`SessionIndex::revisions`]), read and searched through [`SessionRef::Revision`]
//!   ([`SessionIndex::search_revision`]);
//! - **lookups**: the uri of a source, the stored working directories, the lease a watcher
//!   holds, a change counter ([`SessionIndex::data_version`]) and read snapshots
//!   ([`SessionIndex::begin_read`] / [`SessionIndex::end_read`]: reads in between see one
//!   commit; a store without transactions may make them no-ops).
//!
//! - **ledger**: a session's key ([`SessionIndex::sid_by`]), its priced requests
//!   ([`SessionIndex::requests`]) and the sources active / idle since a time (usage's window);
//! - **discovery by id**: the live sources whose discovery id matches
//!   ([`SessionIndex::sources_by_id`]; `None` when the store cannot stand in for discovery).
//!
//! Writing (refresh, rebuild, recover, the lease) is the SQLite store's own: a store that can
//! be written answers [`SessionIndex::local`] / [`SessionIndex::local_mut`] with itself; a
//! read-only store (the team store) keeps the defaults (`None`) and the query layer reads it
//! as it is, never refreshing it.
//!
//! `sid`s are the store's own stable session keys: they come from a row the same store gave
//! ([`ListRow::sid`], [`PageRow::sid`], [`ArchivedRow::sid`]) and mean nothing elsewhere.
//! Every method reports failure as a [`StoreError`] (its [`StoreError::code`] is the S-Q7 code
//! the query layer passes on). The trait is object safe: the query layer takes
//! `&dyn SessionIndex`.

use std::ops::RangeInclusive;

use scry_model::{Event, Header, ProviderId, Warning};
use scry_source::SourceFile;

use crate::{
    ArchivedRow, IndexedSource, Lease, ListMode, ListRow, ListSpec, PageRow, Result, RevisionRow,
    SearchRequest, SearchResponse, SessionFacts, SessionRef, SourceCwd, Store, StoredRequest,
    UsageSum,
};
use scry_model::Timestamp;
use std::collections::HashSet;

/// The read side of an index of sessions (see the module documentation).
pub trait SessionIndex {
    /// The stored header of a session (by uri or by source; an earlier revision by
    /// [`SessionRef::Revision`]).
    fn header(&self, at: SessionRef<'_>) -> Result<Header>;
    /// The stored header of session `sid`.
    fn header_by_sid(&self, sid: i64) -> Result<Header>;
    /// How many events the session holds.
    fn event_count(&self, at: SessionRef<'_>) -> Result<u32>;
    /// Hands `f` the session's events `range` (by seq), in order.
    fn each_event(
        &self,
        at: SessionRef<'_>,
        range: RangeInclusive<u32>,
        f: &mut dyn FnMut(Event),
    ) -> Result<()>;
    /// The session's parse warnings.
    fn warnings(&self, at: SessionRef<'_>) -> Result<Vec<Warning>>;
    /// The session's stored facts (L2).
    fn facts(&self, at: SessionRef<'_>) -> Result<SessionFacts>;

    /// The list columns of every indexed session.
    fn list_rows(&self) -> Result<Vec<ListRow>>;
    /// `spec` without the roots under which no live source is stored (the same set, in a
    /// shorter query: SQLite parses and plans every root's comparisons per statement). Call in
    /// the read snapshot the list is read in. A store that does not gain by it keeps `spec`.
    fn occupied(&self, spec: &ListSpec) -> Result<ListSpec> {
        Ok(spec.clone())
    }
    /// How many sessions `spec` holds.
    fn list_members(&self, spec: &ListSpec) -> Result<usize>;
    /// Whether a source of `spec` failed its last parse (the page would miss it).
    fn list_failed(&self, spec: &ListSpec) -> Result<bool>;
    /// `(rows, hidden by folding)` of `spec` in `mode`.
    fn list_counts(&self, spec: &ListSpec, mode: ListMode) -> Result<(usize, usize)>;
    /// Keeps the counts [`SessionIndex::list_counts`] computed for the next list while nothing
    /// is written (a store that counts cheaply does nothing).
    fn save_list_counts(&self);
    /// One page of `spec` in `mode`, newest first.
    fn list_page(
        &self,
        spec: &ListSpec,
        mode: ListMode,
        offset: usize,
        limit: usize,
    ) -> Result<Vec<PageRow>>;
    /// The ids listed next to `id` in `spec` (for unique short ids).
    fn list_neighbours(&self, spec: &ListSpec, id: &str) -> Result<Vec<String>>;
    /// The usage-ledger sums of session `sid` (per model and context tier, by model then
    /// tier; [`crate::ledger`]): its cost without reading its events.
    fn usage_sums(&self, sid: i64) -> Result<Vec<UsageSum>>;
    /// How many tool results of session `sid` failed (from the ledger: no event is read).
    fn failure_count(&self, sid: i64) -> Result<u64>;
    /// The live sources of `spec` as discovery last saw them.
    fn list_sources(&self, spec: &ListSpec) -> Result<Vec<IndexedSource>>;
    /// One indexed source by path and key (`""` for a file of its own).
    fn indexed_source(&self, path: &str, key: &str) -> Result<Option<IndexedSource>>;

    /// A search over the sessions indexed from `sources`.
    fn search_sources(&self, req: &SearchRequest, sources: &[SourceFile])
        -> Result<SearchResponse>;
    /// A search over the live sessions of `spec`, plus the sessions `also` names (archived
    /// ones a default search includes).
    fn search_listed(
        &self,
        req: &SearchRequest,
        spec: &ListSpec,
        also: &[i64],
    ) -> Result<SearchResponse>;

    /// Search within one stored session (an earlier revision, issue 20), with
    /// [`SearchRequest`]'s filters and budgets.
    fn search_revision(&self, at: SessionRef<'_>, req: &SearchRequest) -> Result<SearchResponse>;
    /// The earlier revisions kept of the source at `path` / `key` (issue 20), newest first.
    fn revisions(&self, path: &str, key: &str) -> Result<Vec<RevisionRow>>;

    /// The archived sessions (source gone).
    fn archived(&self) -> Result<Vec<ArchivedRow>>;
    /// The archived row of one source, if archived.
    fn archived_source(&self, path: &str, key: &str) -> Result<Option<ArchivedRow>>;

    /// The uri of the session indexed from a source, if indexed.
    fn uri_at(&self, path: &str, key: &str) -> Result<Option<String>>;
    /// `(path, key, cwd)` of every indexed source whose session has a working directory.
    fn source_cwds(&self) -> Result<Vec<(String, String, String)>>;
    /// `(provider, cwd)` of the live sessions of providers other than `except`.
    fn live_cwds(&self, except: ProviderId) -> Result<Vec<(String, String)>>;
    /// Every live source of providers other than `except`, by (path, key), with its cwd.
    fn each_live_cwd(&self, except: ProviderId, each: &mut dyn FnMut(SourceCwd<'_>)) -> Result<()>;
    /// The watcher's lease, live or not.
    fn lease(&self) -> Result<Option<Lease>>;
    /// A counter that changes when another writer commits.
    fn data_version(&self) -> Result<i64>;
    /// Starts a read snapshot when none is open; `true` when it started one.
    fn begin_read(&self) -> Result<bool>;
    /// Ends the open read snapshot, if any.
    fn end_read(&self);

    /// The key of the session at `at`, if stored.
    fn sid_by(&self, at: SessionRef<'_>) -> Result<Option<i64>>;
    /// The session's header and its priced requests from the ledger (`None` when not stored).
    fn requests(&self, at: SessionRef<'_>) -> Result<Option<(Header, Vec<StoredRequest>)>>;
    /// `(path, key)` of the sources whose sessions were last active before `since` (all but
    /// `keep`'s provider when given).
    fn sources_idle_since(
        &self,
        since: Timestamp,
        keep: Option<&str>,
    ) -> Result<HashSet<(String, String)>>;
    /// The sources with a request since `since`, with their session keys.
    fn sources_active_since(
        &self,
        since: Timestamp,
        keep: Option<&str>,
    ) -> Result<Vec<(IndexedSource, i64)>>;
    /// The live sources of `spec` whose discovery id is `id` (or starts with it when
    /// `prefix`), of `provider` when given; `None` when the store cannot stand in for
    /// discovery.
    fn sources_by_id(
        &self,
        spec: &ListSpec,
        provider: Option<ProviderId>,
        id: &str,
        prefix: bool,
    ) -> Result<Option<Vec<IndexedSource>>>;

    /// The SQLite store itself when this index is one (its file, refresh, rebuild, lease);
    /// `None` for a read-only store.
    fn local(&self) -> Option<&Store> {
        None
    }
    /// [`SessionIndex::local`], writable.
    fn local_mut(&mut self) -> Option<&mut Store> {
        None
    }
}

impl SessionIndex for Store {
    fn header(&self, at: SessionRef<'_>) -> Result<Header> {
        Store::header(self, at)
    }
    fn header_by_sid(&self, sid: i64) -> Result<Header> {
        Store::header_by_sid(self, sid)
    }
    fn event_count(&self, at: SessionRef<'_>) -> Result<u32> {
        Store::event_count(self, at)
    }
    fn each_event(
        &self,
        at: SessionRef<'_>,
        range: RangeInclusive<u32>,
        f: &mut dyn FnMut(Event),
    ) -> Result<()> {
        Store::each_event(self, at, range, f)
    }
    fn warnings(&self, at: SessionRef<'_>) -> Result<Vec<Warning>> {
        Store::warnings(self, at)
    }
    fn facts(&self, at: SessionRef<'_>) -> Result<SessionFacts> {
        Store::facts(self, at)
    }
    fn list_rows(&self) -> Result<Vec<ListRow>> {
        Store::list_rows(self)
    }
    fn occupied(&self, spec: &ListSpec) -> Result<ListSpec> {
        Store::occupied(self, spec)
    }
    fn list_members(&self, spec: &ListSpec) -> Result<usize> {
        Store::list_members(self, spec)
    }
    fn list_failed(&self, spec: &ListSpec) -> Result<bool> {
        Store::list_failed(self, spec)
    }
    fn list_counts(&self, spec: &ListSpec, mode: ListMode) -> Result<(usize, usize)> {
        Store::list_counts(self, spec, mode)
    }
    fn save_list_counts(&self) {
        Store::save_list_counts(self)
    }
    fn list_page(
        &self,
        spec: &ListSpec,
        mode: ListMode,
        offset: usize,
        limit: usize,
    ) -> Result<Vec<PageRow>> {
        Store::list_page(self, spec, mode, offset, limit)
    }

    fn usage_sums(&self, sid: i64) -> Result<Vec<UsageSum>> {
        Store::usage_sums(self, sid)
    }

    fn failure_count(&self, sid: i64) -> Result<u64> {
        Store::failure_count(self, sid)
    }
    fn list_neighbours(&self, spec: &ListSpec, id: &str) -> Result<Vec<String>> {
        Store::list_neighbours(self, spec, id)
    }
    fn list_sources(&self, spec: &ListSpec) -> Result<Vec<IndexedSource>> {
        Store::list_sources(self, spec)
    }
    fn indexed_source(&self, path: &str, key: &str) -> Result<Option<IndexedSource>> {
        Store::indexed_source(self, path, key)
    }
    fn search_sources(
        &self,
        req: &SearchRequest,
        sources: &[SourceFile],
    ) -> Result<SearchResponse> {
        Store::search_sources(self, req, sources)
    }
    fn search_listed(
        &self,
        req: &SearchRequest,
        spec: &ListSpec,
        also: &[i64],
    ) -> Result<SearchResponse> {
        Store::search_listed(self, req, spec, also)
    }
    fn search_revision(&self, at: SessionRef<'_>, req: &SearchRequest) -> Result<SearchResponse> {
        Store::search_revision(self, at, req)
    }
    fn revisions(&self, path: &str, key: &str) -> Result<Vec<RevisionRow>> {
        Store::revisions(self, path, key)
    }
    fn archived(&self) -> Result<Vec<ArchivedRow>> {
        Store::archived(self)
    }
    fn archived_source(&self, path: &str, key: &str) -> Result<Option<ArchivedRow>> {
        Store::archived_source(self, path, key)
    }
    fn uri_at(&self, path: &str, key: &str) -> Result<Option<String>> {
        Store::uri_at(self, path, key)
    }
    fn source_cwds(&self) -> Result<Vec<(String, String, String)>> {
        Store::source_cwds(self)
    }
    fn live_cwds(&self, except: ProviderId) -> Result<Vec<(String, String)>> {
        Store::live_cwds(self, except)
    }
    fn each_live_cwd(&self, except: ProviderId, each: &mut dyn FnMut(SourceCwd<'_>)) -> Result<()> {
        Store::each_live_cwd(self, except, each)
    }
    fn lease(&self) -> Result<Option<Lease>> {
        Store::lease(self)
    }
    fn data_version(&self) -> Result<i64> {
        Store::data_version(self)
    }
    fn begin_read(&self) -> Result<bool> {
        Store::begin_read(self)
    }
    fn end_read(&self) {
        Store::end_read(self)
    }
    fn sid_by(&self, at: SessionRef<'_>) -> Result<Option<i64>> {
        Store::sid_by(self, at)
    }
    fn requests(&self, at: SessionRef<'_>) -> Result<Option<(Header, Vec<StoredRequest>)>> {
        Store::requests(self, at)
    }
    fn sources_idle_since(
        &self,
        since: Timestamp,
        keep: Option<&str>,
    ) -> Result<HashSet<(String, String)>> {
        Store::sources_idle_since(self, since, keep)
    }
    fn sources_active_since(
        &self,
        since: Timestamp,
        keep: Option<&str>,
    ) -> Result<Vec<(IndexedSource, i64)>> {
        Store::sources_active_since(self, since, keep)
    }
    fn sources_by_id(
        &self,
        spec: &ListSpec,
        provider: Option<ProviderId>,
        id: &str,
        prefix: bool,
    ) -> Result<Option<Vec<IndexedSource>>> {
        Store::sources_by_id(self, spec, provider, id, prefix)
    }
    fn local(&self) -> Option<&Store> {
        Some(self)
    }
    fn local_mut(&mut self) -> Option<&mut Store> {
        Some(self)
    }
}
