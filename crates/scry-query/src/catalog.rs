//! The session catalog: every provider's discovery over one [`scry_source::Env`] (after the
//! context's exclusions), header scans of the found sources, and id resolution. Failures stay local: a provider's discovery warnings and each
//! source's scan error become warnings, never a stopped run (the query crate will take this over).
//!
//! Header scans run on a few scoped threads pulling from a shared counter (no extra crate): the
//! scans are independent, mostly I/O plus JSON decoding, and the result is sorted afterwards so
//! the output does not depend on scheduling.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use scry_model::{ErrorCode, Header, ProviderId, Warning, WarningKind};
use scry_source::guard::{self, Failure};
use scry_source::{Source, SourceError, SourceFile};
use scry_sources::{
    discover_excluding, looks_like_path, registry, resolve_id, source_for, Exclusions, MIN_PREFIX,
};

use crate::error::{QueryError, QueryResult};
use crate::Context;

/// Discovered sources of every provider in one environment.
pub struct Catalog {
    sources: Vec<Box<dyn Source>>,
    /// Every session source found.
    pub files: Vec<SourceFile>,
    /// Discovery problems (unreadable directories, loops, …).
    pub warnings: Vec<Warning>,
    /// The roots searched (existing or not), of every provider discovered.
    pub roots: Vec<std::path::PathBuf>,
    /// The providers discovered (asked for and not excluded).
    pub providers: Vec<ProviderId>,
    /// Taken from the index under a watcher's lease ([`Catalog::from_index`]): current as the
    /// watcher keeps it, so no refresh is due.
    pub from_index: bool,
    /// Holds only the session an id resolved to ([`Catalog::resolve_leased`]), not every
    /// discovered source: resolving further ids needs a whole catalog.
    pub one: bool,
    /// The exclusions applied (the context's).
    pub(crate) exclusions: Arc<Exclusions>,
}

/// A scanned session: its source and header.
#[derive(Debug, Clone)]
pub struct Entry {
    /// Where it was found.
    pub file: SourceFile,
    /// What the header scan read.
    pub header: Header,
}

impl Catalog {
    /// Discovery of the providers in `only` (all when empty) in `ctx`'s environment, after
    /// its exclusions, without the Aider sessions of other providers' working directories
    /// ([`Catalog::discover`], in `discover.rs`, adds those).
    pub(crate) fn discovered(ctx: &Context, only: &[ProviderId]) -> Catalog {
        let env = &ctx.env;
        let sources = registry();
        let mut files = Vec::new();
        let mut warnings = Vec::new();
        let mut roots = Vec::new();
        let mut providers = Vec::new();
        for pd in discover_excluding(&sources, env, only, &ctx.exclusions) {
            providers.push(pd.provider);
            roots.extend(pd.discovery.roots.into_iter().map(|r| r.path));
            if files.is_empty() {
                files = pd.discovery.files;
            } else {
                files.extend(pd.discovery.files);
            }
            warnings.extend(pd.discovery.warnings);
        }
        Catalog {
            sources,
            files,
            warnings,
            roots,
            providers,
            from_index: false,
            one: false,
            exclusions: ctx.exclusions.clone(),
        }
    }

    /// The catalog `store` holds under a watcher's lease for the providers in `only` (all when
    /// empty): its live sources under the watched roots ([`crate::lease::spec`]), after the
    /// exclusions, as discovery last saw them. Lists no directory and stats no file; no
    /// discovery warnings. `None` when the index cannot say (the caller discovers instead).
    pub fn from_index(
        ctx: &Context,
        store: &dyn scry_store::SessionIndex,
        only: &[ProviderId],
    ) -> Option<Catalog> {
        let spec = crate::lease::spec(ctx, only, None, None)?;
        let rows = store.list_sources(&spec).ok()?;
        let ex = &ctx.exclusions;
        let files = rows
            .into_iter()
            .map(indexed_file)
            .filter(|f| ex.check(f).is_none())
            .collect();
        Some(Catalog {
            sources: registry(),
            files,
            warnings: Vec::new(),
            roots: spec.roots.iter().map(std::path::PathBuf::from).collect(),
            providers: spec.providers,
            from_index: true,
            one: false,
            exclusions: ctx.exclusions.clone(),
        })
    }

    /// A catalog of `files` found some other way than discovery (a statusline's active
    /// sources, [`crate::usage::statusline`]): the registry's sources to parse them with, the
    /// context's exclusions, no warnings.
    pub(crate) fn of_files(ctx: &Context, files: Vec<SourceFile>, from_index: bool) -> Catalog {
        Catalog {
            sources: registry(),
            files,
            warnings: Vec::new(),
            roots: Vec::new(),
            providers: Vec::new(),
            from_index,
            one: false,
            exclusions: ctx.exclusions.clone(),
        }
    }

    /// Resolves the id `reference` (S-E3 without the path form) from the index alone, under a
    /// watcher's lease covering this process ([`crate::lease::leased`]): the live sources of
    /// the watched roots of the providers in `only` (all when empty) whose stored discovery id
    /// could match ([`scry_store::SessionIndex::sources_by_id`], indexed reads), after the exclusions.
    /// No directory is listed and no file is stat'ed. The catalog returned holds that one file.
    ///
    /// `None` whenever the index cannot give the answer discovery would, and the caller
    /// discovers as before: no covering lease, a path on the command line, a reference that
    /// does not resolve to exactly one session here (not found: an Aider history of the cwd or
    /// an archived session may still match; ambiguous or too short: the error names what
    /// discovery found), or a candidate the index cannot stand in for (see `sources_by_id`).
    pub fn resolve_leased(
        ctx: &Context,
        store: &dyn scry_store::SessionIndex,
        only: &[ProviderId],
        reference: &str,
    ) -> Option<(Catalog, SourceFile)> {
        let reference = reference.trim();
        if (ctx.path_refs && looks_like_path(reference)) || !crate::lease::leased(ctx, store, only)
        {
            return None;
        }
        let (provider, id) = match reference.split_once(':') {
            Some((p, rest)) if !p.is_empty() && !p.contains('/') => {
                (Some(p.parse::<ProviderId>().ok()?), rest)
            }
            _ => (None, reference),
        };
        let spec = crate::lease::spec(ctx, only, None, None)?;
        let prefix = id.chars().count() >= MIN_PREFIX;
        let rows = store.sources_by_id(&spec, provider, id, prefix).ok()??;
        let ex = &ctx.exclusions;
        let files: Vec<SourceFile> = rows
            .into_iter()
            .map(indexed_file)
            .filter(|f| ex.check(f).is_none())
            .collect();
        let file = resolve_id(reference, &files).ok()?;
        let catalog = Catalog {
            sources: registry(),
            files: vec![file.clone()],
            warnings: Vec::new(),
            roots: spec.roots.iter().map(std::path::PathBuf::from).collect(),
            providers: spec.providers,
            from_index: true,
            one: true,
            exclusions: ctx.exclusions.clone(),
        };
        let file = catalog.admit(reference, file).ok()?;
        Some((catalog, file))
    }

    /// The exclusions this catalog was discovered with (the context's).
    pub fn exclusions(&self) -> &Exclusions {
        &self.exclusions
    }

    /// Every provider implementation (for the index refresh).
    pub fn sources(&self) -> &[Box<dyn Source>] {
        &self.sources
    }

    /// The provider implementation of `id`.
    pub fn source(&self, id: ProviderId) -> QueryResult<&dyn Source> {
        source_for(&self.sources, id).ok_or_else(|| {
            QueryError::new(
                scry_model::ErrorCode::SessionNotFound,
                format!("provider '{id}' is not available in this build"),
            )
        })
    }

    /// Resolves a session id (S-E3 without the path form) against discovery only: a full id,
    /// `provider:id` or a unique prefix of a discovered, not excluded session. Opens no file
    /// named by `reference`; a path is not found. For ids found in session text (the graph's
    /// references) and for every front end but the command line.
    pub fn resolve(&self, reference: &str) -> QueryResult<SourceFile> {
        self.admit(reference, resolve_id(reference, &self.files)?)
    }

    /// Resolves a reference found in session text (a reader call's target): an id as
    /// [`Catalog::resolve`] does, or the exact path of a discovered source. Compares strings
    /// only: nothing named by `reference` is looked at or opened.
    pub fn resolve_recorded(&self, reference: &str) -> QueryResult<SourceFile> {
        let wanted = std::path::Path::new(reference.trim());
        match self.files.iter().find(|f| f.path == wanted) {
            Some(f) => self.admit(reference, f.clone()),
            None => self.resolve(reference),
        }
    }

    /// `file` when the exclusions in force keep it, else not found (as if never discovered):
    /// provider and path globs from discovery data, an excluded project from the `cwd_hint`
    /// or, without one, from a bounded header scan.
    pub(crate) fn admit(&self, reference: &str, file: SourceFile) -> QueryResult<SourceFile> {
        let ex = self.exclusions();
        if ex.is_empty() {
            return Ok(file);
        }
        let excluded = || {
            QueryError::new(
                ErrorCode::SessionNotFound,
                format!("no session matches '{}' (it is excluded)", reference.trim()),
            )
        };
        if ex.check(&file).is_some() {
            return Err(excluded());
        }
        if ex.has_projects() && file.cwd_hint.is_none() {
            // Unreadable: let the read report it; read and dropped by `keep`: excluded.
            let (kept, warnings) = self.scan(&[&file]);
            if kept.is_empty() && warnings.is_empty() {
                return Err(excluded());
            }
        }
        Ok(file)
    }

    /// Scans the headers of `files` in parallel; failures become warnings.
    pub fn scan(&self, files: &[&SourceFile]) -> (Vec<Entry>, Vec<Warning>) {
        self.each(files, |f| self.scan_one(f))
    }

    /// Parses `files` in full in parallel (events discarded) for the headers the index stores:
    /// every model, every source, the agent name, completed times. Failures become warnings.
    pub fn parse_headers(&self, files: &[&SourceFile]) -> (Vec<Entry>, Vec<Warning>) {
        self.each(files, |f| self.parse_one(f))
    }

    /// Runs `read` over `files` on a few threads; keeps input order, drops sessions of excluded
    /// projects, and turns failures into warnings.
    fn each(
        &self,
        files: &[&SourceFile],
        read: impl Fn(&SourceFile) -> Result<Header, Warning> + Sync,
    ) -> (Vec<Entry>, Vec<Warning>) {
        let next = AtomicUsize::new(0);
        let results: Mutex<Vec<(usize, Result<Header, Warning>)>> = Mutex::new(Vec::new());
        let workers = std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
            .clamp(1, 8)
            .min(files.len().max(1));
        std::thread::scope(|scope| {
            for _ in 0..workers {
                scope.spawn(|| loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(file) = files.get(i) else { break };
                    let r = read(file);
                    if let Ok(mut guard) = results.lock() {
                        guard.push((i, r));
                    }
                });
            }
        });
        let mut results = results.into_inner().unwrap_or_default();
        results.sort_by_key(|(i, _)| *i);
        let mut entries = Vec::new();
        let mut warnings = Vec::new();
        for (i, r) in results {
            match (r, files.get(i)) {
                (Ok(header), Some(file)) => {
                    if let Some(e) = keep(self.exclusions(), file, header) {
                        entries.push(e);
                    }
                }
                (Err(w), _) => warnings.push(w),
                _ => {}
            }
        }
        (entries, warnings)
    }

    fn parse_one(&self, file: &SourceFile) -> Result<Header, Warning> {
        let source = self
            .source(file.provider)
            .map_err(|_| Warning::at(WarningKind::Other, "no provider", &file.path, None))?;
        match guard::parse(source, file, &mut Discard) {
            Ok(h) => Ok(h),
            Err(Failure::Source(e)) => Err(source_warning(&e, file)),
            Err(Failure::Panic(_)) => Err(Warning::at(
                WarningKind::Other,
                format!("the {} reader crashed on this file", file.provider),
                &file.path,
                None,
            )),
        }
    }

    fn scan_one(&self, file: &SourceFile) -> Result<Header, Warning> {
        let source = self
            .source(file.provider)
            .map_err(|_| Warning::at(WarningKind::Other, "no provider", &file.path, None))?;
        match guard::scan_header(source, file) {
            Ok(mut h) => {
                if h.updated.is_none() {
                    complete_times(source, file, &mut h);
                }
                Ok(h)
            }
            Err(Failure::Source(e)) => Err(source_warning(&e, file)),
            Err(Failure::Panic(_)) => Err(Warning::at(
                WarningKind::Other,
                format!("the {} reader crashed on this file", file.provider),
                &file.path,
                None,
            )),
        }
    }
}

/// The entry for a header read from `file` (scanned, parsed or stored): the primary source when
/// the header lists none, the parent discovery knows when the header has none; `None` when the
/// session's project is excluded by `ex`.
pub fn keep(ex: &Exclusions, file: &SourceFile, header: Header) -> Option<Entry> {
    let mut header = kept_header(ex, file, header)?;
    if header.parent.is_none() {
        header.parent.clone_from(&file.parent);
    }
    Some(Entry {
        file: file.clone(),
        header,
    })
}

/// `header` read from `file` with the primary source filled in when it lists none; `None`
/// when the session's project is excluded by `ex`.
pub(crate) fn kept_header(
    ex: &Exclusions,
    file: &SourceFile,
    mut header: Header,
) -> Option<Header> {
    if ex.has_projects()
        && header
            .cwd
            .as_deref()
            .is_some_and(|c| ex.project_of(c).is_some())
    {
        return None;
    }
    if header.sources.is_empty() {
        header.sources.push(file.path.clone());
    }
    Some(header)
}

/// A header scan that found no times (a provider whose cheap scan skips them): stream the
/// session once through a discarding sink so `list` can sort and filter by time. Times only come
/// from the records; nothing is invented when the parse finds none.
fn complete_times(source: &dyn Source, file: &SourceFile, h: &mut Header) {
    if let Ok(full) = guard::parse(source, file, &mut Discard) {
        if let Some(t) = full.created {
            h.touch(t);
        }
        if let Some(t) = full.updated {
            h.touch(t);
        }
        for m in &full.models {
            h.add_model(m);
        }
    }
}

/// A sink that drops what it is sent (a parse read for its header only).
struct Discard;

impl scry_source::EventSink for Discard {
    fn event(&mut self, _: scry_model::Event) {}
    fn warning(&mut self, _: Warning) {}
}

/// The [`SourceFile`] discovery gave for a source the index holds: its stat data as last
/// indexed, its session's id, kind and fold parent, its `cwd_hint`. Side files are not stored
/// (`related` is empty): they matter only to a parse, and a leased command parses only sources
/// whose last parse failed (for their warnings).
pub fn indexed_file(s: scry_store::IndexedSource) -> SourceFile {
    let path = std::path::PathBuf::from(s.path);
    let id = s.id.unwrap_or_else(|| {
        path.file_stem()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    });
    SourceFile {
        provider: s.provider,
        id,
        path,
        key: (!s.key.is_empty()).then_some(s.key),
        related: Vec::new(),
        size: s.size,
        mtime_ns: s.mtime_ns,
        kind: s.kind.unwrap_or_default(),
        parent: s.parent,
        cwd_hint: s.hint,
    }
}

/// A warning for a source that could not be read at all.
pub fn source_warning(e: &SourceError, file: &SourceFile) -> Warning {
    let kind = match e {
        SourceError::Io { .. } => WarningKind::Unreadable,
        _ => WarningKind::CorruptRecord,
    };
    Warning::at(kind, e.to_string(), &file.path, None)
}
