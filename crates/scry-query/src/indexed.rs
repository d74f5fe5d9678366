//! Index access for the commands (SPEC S-I5, S-C8): where the index lives, opening it without
//! ever failing a read (an index that cannot be opened or refreshed turns into one warning on
//! stderr and a direct parse), refreshing the files a command touches, and reading sessions and
//! headers back.
//!
//! Location: `SCRY_DB`, else the platform data dir ([`scry_store::default_db_path`]); `--demo`
//! uses `index.db` beside the extracted demo home, never the user's index. `--no-index` opens
//! nothing.
//!
//! `list` pages in SQL when the index holds exactly the discovered set (`crate::list_sql`),
//! else reads its rows from the stored columns ([`headers_from`]); `--no-index` parses in full
//! to give the same rows. Headers read back are normalized to what a direct parse of a discovered file says
//! (`persisted: false`, `live: true`): the index owns those two flags, and the outputs of
//! `list` / `show` / `turns` / `turn` / `search` must be identical with and without `--no-index`
//! (S-I4).

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use scry_model::{Header, Warning};
use scry_source::{EventSink, Source, SourceFile};
use scry_sources::Exclusions;
use scry_store::{RefreshOptions, SessionIndex, Store, StoreError};

use crate::catalog::Entry;
use crate::error::QueryResult;
use crate::{Context, Index};

/// Events per read transaction while replaying a session; each is decoded one block at a time
/// and handed on ([`scry_store::Store::each_event`]), so memory does not grow with it.
const WINDOW: u32 = 2000;

/// Where this invocation's index lives (`None` with `--no-index`).
pub fn db_path(ctx: &Context) -> Option<PathBuf> {
    if ctx.no_index {
        return None;
    }
    if ctx.demo {
        let home = ctx.env.home();
        let dir = home.parent().unwrap_or(home);
        return Some(dir.join("index.db"));
    }
    Some(scry_store::default_db_path(&ctx.env))
}

/// Opens the index, or says on stderr why the sources are read directly instead (`Ok(None)`).
///
/// A file at the index location that is not a scry index is a configuration error: the
/// command fails (exit 1) with one line naming the file, which stays untouched. A damaged
/// index is replaced by a fresh one at once ([`recover`]; the command's own refresh then fills
/// it), so nothing is read from it.
pub fn open(ctx: &Context) -> QueryResult<Option<Index>> {
    // Another store stands behind the door ([`Context::store`]): it is opened instead.
    if let Some(seam) = &ctx.store {
        return seam.open(ctx);
    }
    Ok(open_local(ctx)?.map(|store| Box::new(store) as Index))
}

/// [`open`]'s SQLite index at [`db_path`] (never the context's other store): for the commands
/// that write it (`index`, `prune`, a push reading it whole).
pub fn open_local(ctx: &Context) -> QueryResult<Option<Store>> {
    let Some(path) = db_path(ctx) else {
        return Ok(None);
    };
    match Store::open(&path) {
        Ok(store) => Ok(Some(store)),
        Err(e @ StoreError::NotAnIndex { .. }) => Err(e.into()),
        Err(e) if e.is_corrupt() => Ok(recover(&path, &e, &[], &[])),
        Err(e) => {
            unavailable(&e);
            Ok(None)
        }
    }
}

/// The reads of an opened index, if any (`Option<&Index>` as the trait the readers take).
pub fn reads(index: &Option<Index>) -> Option<&dyn SessionIndex> {
    index.as_deref().map(|s| s as &dyn SessionIndex)
}

/// The one warning printed when the index cannot be used.
pub fn unavailable(e: &StoreError) {
    eprintln!("warning: index unavailable ({e}); reading the sources directly");
}

/// Replaces the damaged index at `path` by a fresh one holding `files`, built aside and swapped
/// in ([`Store::rebuild`]), after one warning naming the file; only archived sessions and
/// earlier revisions are read from the old file (a warning counts those it could not read).
/// `None` (with the [`unavailable`] warning) when the rebuild fails: the caller then parses
/// the sources directly.
pub fn recover(
    path: &Path,
    damage: &StoreError,
    sources: &[Box<dyn Source>],
    files: &[SourceFile],
) -> Option<Store> {
    let damage = match damage {
        StoreError::DamagedIndex { .. } => damage.to_string(),
        other => format!("index {} is damaged ({other})", path.display()),
    };
    eprintln!("warning: {damage}; rebuilding it from the sources");
    match Store::rebuild(
        path,
        sources,
        files,
        &RefreshOptions::partial(),
        &mut |_| true,
    ) {
        Ok((store, report)) => {
            if report.carry_lost > 0 {
                eprintln!(
                    "warning: {} archived sessions or earlier revisions could not be read from the damaged index and are lost",
                    report.carry_lost
                );
            }
            Some(store)
        }
        Err(e) => {
            unavailable(&e);
            None
        }
    }
}

/// Brings `files` up to date in the index (unchanged files are only stat'ed). A damaged index
/// is rebuilt with `files` and replaces `store` ([`recover`]); any other failure of the index
/// is reported and returns `false` (callers then parse directly).
///
/// Usually this is a stat per file; a first run or many changed sessions take longer, and the
/// context's [`crate::progress::Reporter`] is told the bytes done (the CLI shows a bar on a
/// terminal when it runs longer than a second).
///
/// Skipped (the index answers as it is) while a live watcher's lease covers this process's
/// roots and exclusions ([`crate::lease::covers`]; not under `--refresh`), and for a store
/// that is not the SQLite index ([`SessionIndex::local_mut`] `None`: read-only, read as it is).
pub fn refresh(
    ctx: &Context,
    store: &mut dyn SessionIndex,
    sources: &[Box<dyn Source>],
    files: &[SourceFile],
) -> bool {
    let Some(store) = store.local_mut() else {
        return true;
    };
    // A watcher keeps the roots under HOME and the configured ones current, not the histories
    // Aider keeps in the directory this command runs in: with any of those, check everything.
    let local = files
        .iter()
        .any(|f| f.provider == scry_model::ProviderId::Aider);
    if !local && crate::lease::covers(ctx, store) {
        return true;
    }
    refresh_now(&ctx.progress, store, sources, files)
}

/// [`refresh`] without the lease check: for a reader that saw `files` change on disk and must
/// not wait for the watcher to apply it (a follower of one session, `events --follow` and the
/// HTTP streams; the store's staged writes make the race with the watcher harmless).
pub fn refresh_now(
    progress: &crate::progress::Reporter,
    store: &mut Store,
    sources: &[Box<dyn Source>],
    files: &[SourceFile],
) -> bool {
    let mut bar = progress.begin("building the index (once; later commands read it)");
    bar.start(crate::progress::total_bytes(files));
    let result = store.refresh(sources, files, &RefreshOptions::partial(), &mut |p| {
        bar.advance(p.file.size);
        true
    });
    bar.finish();
    match result {
        Ok(_) => true,
        Err(e) if e.is_corrupt() => {
            let path = store.path().to_path_buf();
            match recover(&path, &e.in_index(&path), sources, files) {
                Some(fresh) => {
                    *store = fresh;
                    true
                }
                None => false,
            }
        }
        Err(e) => {
            unavailable(&e);
            false
        }
    }
}

/// [`refresh`] of files found after a first refresh of this run checked every indexed source
/// (the Aider histories [`crate::aider_cwds::add_refreshed`] adds): sources not given are left
/// alone ([`RefreshOptions::keep_unseen`]). `false` when the index failed (a damaged one is
/// not rebuilt from these few files: the caller parses directly).
pub fn refresh_added(
    ctx: &Context,
    store: &mut Store,
    sources: &[Box<dyn Source>],
    files: &[SourceFile],
) -> bool {
    if files.is_empty() {
        return true;
    }
    let opts = RefreshOptions {
        keep_unseen: true,
        ..RefreshOptions::partial()
    };
    let mut bar = ctx
        .progress
        .begin("building the index (once; later commands read it)");
    bar.start(crate::progress::total_bytes(files));
    let result = store.refresh(sources, files, &opts, &mut |p| {
        bar.advance(p.file.size);
        true
    });
    bar.finish();
    match result {
        Ok(_) => true,
        Err(e) => {
            unavailable(&e);
            false
        }
    }
}

/// [`uri_of`] with the store's error: `Err` when the index could not answer.
pub fn lookup_uri(
    store: &dyn SessionIndex,
    file: &SourceFile,
) -> Result<Option<String>, StoreError> {
    let path = file.path.to_string_lossy();
    store.uri_at(&path, file.key.as_deref().unwrap_or_default())
}

/// The uri of the session indexed from `file`, if it is indexed (`None` also when the index
/// cannot answer: see [`lookup_uri`]).
pub fn uri_of(store: &dyn SessionIndex, file: &SourceFile) -> Option<String> {
    lookup_uri(store, file).ok().flatten()
}

/// `files` less those whose indexed session's stored cwd lies in a project `ex` excludes: what a
/// search over the index may answer from when exclusions are in force (the index may hold
/// sessions another run indexed without them). Files not indexed yet stay.
pub fn kept_files(
    ex: &Exclusions,
    store: &dyn SessionIndex,
    files: &[SourceFile],
) -> Vec<SourceFile> {
    let Ok(rows) = store.source_cwds() else {
        return files.to_vec();
    };
    let excluded: HashSet<(String, String)> = rows
        .into_iter()
        .filter(|(_, _, cwd)| ex.project_of(cwd).is_some())
        .map(|(path, key, _)| (path, key))
        .collect();
    files
        .iter()
        .filter(|f| {
            let key = (
                f.path.to_string_lossy().into_owned(),
                f.key.clone().unwrap_or_default(),
            );
            !excluded.contains(&key)
        })
        .cloned()
        .collect()
}

/// The header as a direct parse of a present source gives it.
pub fn normalize(mut h: Header) -> Header {
    h.persisted = false;
    h.live = true;
    h
}

/// Replays the session indexed from `file` into `sink` (events in windows, then warnings) and
/// returns its normalized header. By source, not by uri: two files can hold one session id.
pub fn replay(
    store: &dyn SessionIndex,
    file: &SourceFile,
    sink: &mut dyn EventSink,
) -> Result<Header, StoreError> {
    replay_at(store, file.into(), sink)
}

/// [`replay`] of the stored session `at` names (an earlier revision, issue 20); the header as
/// a direct parse of the source then gave it.
pub fn replay_at(
    store: &dyn SessionIndex,
    at: scry_store::SessionRef<'_>,
    sink: &mut dyn EventSink,
) -> Result<Header, StoreError> {
    let header = store.header(at)?;
    let n = store.event_count(at)?;
    let mut from = 0u32;
    while from < n {
        let to = from.saturating_add(WINDOW - 1).min(n - 1);
        store.each_event(at, from..=to, &mut |e| sink.event(e))?;
        from = to + 1;
    }
    for w in store.warnings(at)? {
        sink.warning(w);
    }
    Ok(normalize(header))
}

/// Replays the session indexed from `file` into `sink` ([`replay`]); `Ok(None)` when the index
/// does not hold it. On an error, the number of events already delivered comes with it.
pub fn replay_file(
    store: &dyn SessionIndex,
    file: &SourceFile,
    sink: &mut dyn EventSink,
) -> Result<Option<Header>, (StoreError, usize)> {
    if lookup_uri(store, file).map_err(|e| (e, 0))?.is_none() {
        return Ok(None);
    }
    let mut counted = SkipSink::new(sink, 0);
    match replay(store, file, &mut counted) {
        Ok(h) => Ok(Some(h)),
        Err(e) => Err((e, counted.seen)),
    }
}

/// A sink that drops the first `skip` events and forwards the rest (and every warning):
/// continues a replay that stopped after `skip` events with a direct parse.
pub struct SkipSink<'a> {
    inner: &'a mut dyn EventSink,
    skip: usize,
    seen: usize,
}

impl<'a> SkipSink<'a> {
    /// Forwards to `inner` from the `skip`-th event on.
    pub fn new(inner: &'a mut dyn EventSink, skip: usize) -> Self {
        SkipSink {
            inner,
            skip,
            seen: 0,
        }
    }
}

impl EventSink for SkipSink<'_> {
    fn event(&mut self, event: scry_model::Event) {
        self.seen += 1;
        if self.seen > self.skip {
            self.inner.event(event);
        }
    }
    fn warning(&mut self, warning: Warning) {
        self.inner.warning(warning);
    }
    fn wants_resume_points(&self) -> bool {
        self.inner.wants_resume_points()
    }
    fn resume_point(&mut self, point: scry_source::ResumePoint) {
        self.inner.resume_point(point);
    }
}

/// The headers of `files` for `list`, and the index to complete the rows of a page from.
pub struct ListHeaders {
    /// One entry per listed session. Headers read from the index carry only what `list` sorts,
    /// filters and folds by (provider, id, uri, cwd, updated, kind, parent: the columns of
    /// [`scry_store::ListRow`]); [`ListHeaders::full`] completes the few rows that are shown.
    /// Headers parsed directly are complete already.
    pub entries: Vec<Entry>,
    /// Warnings of the direct parses.
    pub warnings: Vec<Warning>,
    /// The stored session of each entry read from the index, by (path, key).
    stored: HashMap<(String, String), i64>,
    /// The index, inside the read transaction the rows were read in, so the page's headers
    /// come from the same commit as the columns that sorted them.
    store: Option<Index>,
    /// The catalog's exclusions (a stored header of an excluded project is not used).
    exclusions: std::sync::Arc<Exclusions>,
}

impl ListHeaders {
    /// The usage sums and failed tool results of the session of `file`: from the index's
    /// ledger when it holds the session, else from a parse
    /// ([`sums_of_parse`], the same sums); `None` when neither can be read.
    pub fn ledger(
        &self,
        catalog: &crate::catalog::Catalog,
        file: &SourceFile,
    ) -> Option<(Vec<scry_store::UsageSum>, u64)> {
        if let Some(store) = &self.store {
            let key = (
                file.path.to_string_lossy().into_owned(),
                file.key.clone().unwrap_or_default(),
            );
            let sid = match self.stored.get(&key) {
                Some(sid) => Some(*sid),
                None => store.sid_by(file.into()).ok().flatten(),
            };
            if let Some(sid) = sid {
                let sums = store.usage_sums(sid).ok()?;
                let failures = store.failure_count(sid).ok()?;
                return Some((sums, failures));
            }
        }
        sums_of_parse(catalog, file)
    }

    /// `entry` with its whole stored header (unchanged when it was parsed directly, or when the
    /// stored header cannot be read or decoded).
    pub fn full(&self, entry: Entry) -> Entry {
        let key = (
            entry.file.path.to_string_lossy().into_owned(),
            entry.file.key.clone().unwrap_or_default(),
        );
        let header = match (&self.store, self.stored.get(&key)) {
            (Some(store), Some(sid)) => store.header_by_sid(*sid).ok(),
            _ => None,
        };
        match header.and_then(|h| crate::catalog::keep(&self.exclusions, &entry.file, normalize(h)))
        {
            Some(e) => e,
            None => entry,
        }
    }
}

/// The usage sums and failed tool results of the session parsed from `file` (no index),
/// summed as the ledger sums them so their cost equals [`crate::usage::Cost::of_sums`] of the indexed
/// session to the last digit; `None` when the file cannot be read.
fn sums_of_parse(
    catalog: &crate::catalog::Catalog,
    file: &SourceFile,
) -> Option<(Vec<scry_store::UsageSum>, u64)> {
    let source = catalog.source(file.provider).ok()?;
    let mut stored: Vec<scry_store::StoredRequest> = Vec::new();
    let mut failures = 0u64;
    let mut sink = LedgerSink {
        stored: &mut stored,
        failures: &mut failures,
    };
    scry_source::guard::parse(source, file, &mut sink).ok()?;
    Some((scry_store::ledger::sums_of(&stored), failures))
}

/// What [`sums_of_parse`] keeps of a parse: the requests and the failed tool results.
struct LedgerSink<'a> {
    stored: &'a mut Vec<scry_store::StoredRequest>,
    failures: &'a mut u64,
}

impl EventSink for LedgerSink<'_> {
    fn event(&mut self, e: scry_model::Event) {
        *self.failures += u64::from(scry_store::ledger::is_failed_result(&e));
        self.stored.extend(scry_store::StoredRequest::of(&e));
    }
    fn warning(&mut self, _w: Warning) {}
}

impl Drop for ListHeaders {
    fn drop(&mut self) {
        if let Some(store) = &self.store {
            // A read transaction has nothing to keep; closing the connection ends it too.
            store.end_read();
        }
    }
}

/// The header `list` needs for every session (sorting, filters, folding, short ids), from the
/// indexed columns: nothing else (titles, sources, models, lineage) is read for thousands of
/// rows of which a page shows twenty.
fn list_header(row: scry_store::ListRow) -> Header {
    let mut h = Header::new(row.provider, row.id);
    h.uri = row.uri;
    h.cwd = row.cwd;
    h.updated = row.updated;
    h.kind = row.kind;
    h.parent = row.parent;
    h
}

/// Headers of `files` for `list` (issue #5: list from the index; issue #16: from its columns).
/// The files are refreshed into the index on the way (S-I5; an unchanged file is only stat'ed)
/// and the rows come from the stored sessions' columns — the full parse's values. A file the
/// index does not hold (its parse failed, or `--no-index`, or the index is unusable) is parsed
/// in full directly, so the rows, and the warnings for unreadable files, are the same either
/// way (S-I4).
pub fn headers(
    ctx: &Context,
    catalog: &crate::catalog::Catalog,
    files: &[&SourceFile],
) -> QueryResult<ListHeaders> {
    let store = refreshed(ctx, catalog, files)?;
    Ok(headers_from(store, catalog, files))
}

/// Refreshes `files` of `catalog` (a selection of its files, in their order) into `store`
/// ([`refresh`]), or nothing when the catalog was taken from the index under a lease; `false`
/// when the index cannot be used.
pub fn refresh_catalog(
    ctx: &Context,
    store: &mut dyn SessionIndex,
    catalog: &crate::catalog::Catalog,
    files: &[&SourceFile],
) -> bool {
    if catalog.from_index {
        return true;
    }
    // `files` is a selection of the catalog's files in their order: all of them when as many
    // (a global `list`), refreshed without a copy of every `SourceFile`.
    if files.len() == catalog.files.len() {
        return refresh(ctx, store, catalog.sources(), &catalog.files);
    }
    let owned: Vec<SourceFile> = files.iter().map(|f| (*f).clone()).collect();
    refresh(ctx, store, catalog.sources(), &owned)
}

/// The index with `files` refreshed into it (S-I5), or `None` when there is none or it could not
/// be refreshed (said on stderr; the caller parses directly).
pub fn refreshed(
    ctx: &Context,
    catalog: &crate::catalog::Catalog,
    files: &[&SourceFile],
) -> QueryResult<Option<Index>> {
    let Some(mut store) = open(ctx)? else {
        return Ok(None);
    };
    Ok(refresh_catalog(ctx, &mut *store, catalog, files).then_some(store))
}

/// [`headers`] from an index already refreshed with `files` ([`refreshed`]).
pub fn headers_from(
    store: Option<Index>,
    catalog: &crate::catalog::Catalog,
    files: &[&SourceFile],
) -> ListHeaders {
    let mut rows: HashMap<(String, String), scry_store::ListRow> = HashMap::new();
    let mut kept: Option<Index> = None;
    if let Some(store) = store {
        match stored_rows(&*store, files) {
            Ok(r) => {
                rows = r;
                kept = Some(store);
            }
            Err(e) if e.is_corrupt() && store.local().is_some() => {
                // Rebuilding a damaged file is the SQLite store's own business.
                let path = store.local().map(|s| s.path().to_path_buf());
                drop(store);
                let owned: Vec<SourceFile> = files.iter().map(|f| (*f).clone()).collect();
                let fresh = path
                    .and_then(|path| recover(&path, &e.in_index(&path), catalog.sources(), &owned));
                if let Some(fresh) = fresh {
                    if let Ok(r) = stored_rows(&fresh, files) {
                        rows = r;
                        kept = Some(Box::new(fresh));
                    }
                }
            }
            Err(_) => {}
        }
    }
    let mut stored: HashMap<(String, String), i64> = HashMap::with_capacity(rows.len());
    let mut entries: Vec<Option<Entry>> = Vec::with_capacity(files.len());
    let mut missing: Vec<&SourceFile> = Vec::new();
    for f in files {
        let key = (
            f.path.to_string_lossy().into_owned(),
            f.key.clone().unwrap_or_default(),
        );
        match rows.get(&key).cloned() {
            Some(row) => {
                stored.insert(key, row.sid);
                entries.push(crate::catalog::keep(
                    catalog.exclusions(),
                    f,
                    normalize(list_header(row)),
                ));
            }
            None => {
                missing.push(f);
                entries.push(None);
            }
        }
    }
    let (parsed, warnings) = catalog.parse_headers(&missing);
    let mut out: Vec<Entry> = entries.into_iter().flatten().collect();
    out.extend(parsed.into_iter().map(|mut e| {
        e.header = normalize(e.header);
        e
    }));
    ListHeaders {
        entries: out,
        warnings,
        exclusions: catalog.exclusions.clone(),
        stored,
        store: kept,
    }
}

/// The list columns of each of `files` the index holds without a parse error, keyed by
/// (path, key), read in a read transaction left open for [`ListHeaders::full`]. Any error of
/// the index (a damaged page met mid-way included) is returned, never a partial map.
fn stored_rows(
    store: &dyn SessionIndex,
    files: &[&SourceFile],
) -> Result<HashMap<(String, String), scry_store::ListRow>, StoreError> {
    let wanted: HashSet<(Cow<'_, str>, &str)> = files
        .iter()
        .map(|f| {
            (
                f.path.to_string_lossy(),
                f.key.as_deref().unwrap_or_default(),
            )
        })
        .collect();
    store.begin_read()?;
    let mut out = HashMap::with_capacity(files.len());
    for row in store.list_rows()? {
        if wanted.contains(&(Cow::Borrowed(row.path.as_str()), row.key.as_str())) {
            out.insert((row.path.clone(), row.key.clone()), row);
        }
    }
    Ok(out)
}
