//! Reading one session: resolve the reference, then stream its events through a sink so memory
//! stays bounded by what the sink keeps (SPEC P6).

use scry_model::{ErrorCode, Event, Header, Warning};
use scry_source::guard::{self, Failure};
use scry_source::{EventSink, SourceFile};

use crate::catalog::Catalog;
use crate::error::{QueryError, QueryResult};
use crate::Context;

/// A resolved session source and the catalog it came from.
pub struct Opened {
    /// The catalog (providers and environment).
    pub catalog: Catalog,
    /// The session's source.
    pub file: SourceFile,
    /// The index, refreshed for this session (`None`: `--no-index`, or the index is unusable).
    pub index: Option<crate::Index>,
    /// The index's archived row when the session's source is gone (S-I6): read from the index
    /// only, never refreshed.
    pub archived: Option<scry_store::ArchivedRow>,
    /// The earlier revision read (`ctx.revision` > 0, issue 20): every read of this handle
    /// replays it from the index instead of the current session.
    pub revision: Option<scry_store::RevisionRow>,
    /// Set when a read met damage in `index` (already rebuilt on disk): later reads of this
    /// handle parse the source instead of meeting it again.
    damaged: std::cell::Cell<bool>,
}

/// Discovers every provider and resolves `reference` (S-E3). Under a watcher's lease an id is
/// resolved from the index instead ([`Catalog::resolve_leased`]: no discovery), and the
/// catalog holds that one session.
pub fn open(ctx: &Context, reference: &str) -> QueryResult<Opened> {
    let opened = crate::indexed::open(ctx);
    let leased = match &opened {
        Ok(Some(store)) => Catalog::resolve_leased(ctx, &**store, &[], reference),
        _ => None,
    };
    let (catalog, file) = match leased {
        Some(found) => found,
        None => {
            let catalog = Catalog::discover(ctx, &[]);
            let file = catalog.resolve_ref(ctx, reference)?;
            (catalog, file)
        }
    };
    let mut index = opened?;
    let archived = index
        .as_ref()
        .and_then(|store| crate::archive::lookup(&**store, &file));
    if let Some(store) = index.as_mut().filter(|_| archived.is_none()) {
        if !crate::indexed::refresh(
            ctx,
            &mut **store,
            catalog.sources(),
            std::slice::from_ref(&file),
        ) {
            index = None;
        }
    }
    let revision = match ctx.revision {
        0 => None,
        n => Some(revision(
            ctx,
            index.as_deref().map(|s| s as &dyn scry_store::SessionIndex),
            &file,
            n,
        )?),
    };
    Ok(Opened {
        catalog,
        file,
        index,
        archived,
        revision,
        damaged: std::cell::Cell::new(false),
    })
}

/// Earlier revision `n` of the session indexed from `file`, or one line saying why not
/// (exit 3 for a revision the index does not hold, 2 without the index).
pub fn revision(
    ctx: &Context,
    index: Option<&dyn scry_store::SessionIndex>,
    file: &SourceFile,
    n: u32,
) -> QueryResult<scry_store::RevisionRow> {
    let Some(store) = index else {
        let why = if ctx.no_index {
            "earlier revisions are kept by the index: --revision cannot be used with --no-index"
        } else {
            "earlier revisions are kept by the index, which cannot be opened"
        };
        return Err(QueryError::usage(ErrorCode::InvalidQuery, why));
    };
    let all = store
        .revisions(
            &file.path.to_string_lossy(),
            file.key.as_deref().unwrap_or(""),
        )
        .map_err(|e| QueryError::new(e.code(), e.to_string()))?;
    let count = all.len();
    all.into_iter().find(|r| r.n == n).ok_or_else(|| {
        let has = match count {
            0 => "it has no earlier revision".to_string(),
            1 => "it has 1 earlier revision: --revision 1".to_string(),
            k => format!("it has {k} earlier revisions: --revision 1 to {k}"),
        };
        QueryError::new(
            ErrorCode::SessionNotFound,
            format!("{}:{} has no revision {n} ({has})", file.provider, file.id),
        )
    })
}

impl Opened {
    /// The index's reads of this session (`None` without an index): every read of [`Opened`]
    /// goes through the [`scry_store::SessionIndex`] trait; only the refresh of a followed
    /// session and the rebuild of a damaged index need the SQLite store itself.
    pub fn reads(&self) -> Option<&dyn scry_store::SessionIndex> {
        self.index
            .as_deref()
            .map(|s| s as &dyn scry_store::SessionIndex)
    }

    /// Whether the source is present now and whether the index holds the session (S-Q1).
    pub fn availability(&self) -> crate::Availability {
        crate::Availability {
            live: self.file.path.exists(),
            persisted: self
                .reads()
                .is_some_and(|s| crate::indexed::uri_of(s, &self.file).is_some()),
            archived: self.archived.as_ref().map(crate::archive::Mark::of),
            revision: self.revision.as_ref().map(|r| r.n),
        }
    }

    /// The earlier revisions the index keeps of this session (issue 20), newest first; empty
    /// without the index.
    pub fn revisions(&self) -> Vec<scry_store::RevisionRow> {
        self.reads()
            .and_then(|s| {
                s.revisions(
                    &self.file.path.to_string_lossy(),
                    self.file.key.as_deref().unwrap_or(""),
                )
                .ok()
            })
            .unwrap_or_default()
    }

    /// Streams the whole session into `sink`; returns the completed header. A source that cannot
    /// be read at all is a runtime failure (exit 1); problems inside it arrive as warnings.
    pub fn stream(&self, sink: &mut dyn EventSink) -> QueryResult<Header> {
        // From the index when it holds the session (a source it could not parse is re-read
        // directly so the error is the direct one).
        if let (Some(rev), Some(store)) = (&self.revision, self.reads()) {
            // An earlier revision lives in the index only.
            let at = scry_store::SessionRef::Revision {
                path: &self.file.path,
                key: self.file.key.as_deref(),
                n: rev.n,
            };
            return crate::indexed::replay_at(store, at, sink)
                .map_err(|e| QueryError::new(e.code(), e.to_string()));
        }
        let mut skip = 0;
        if let Some(store) = self.reads().filter(|_| !self.damaged.get()) {
            match crate::indexed::replay_file(store, &self.file, sink) {
                Ok(Some(header)) if self.archived.is_some() => {
                    return Ok(crate::archive::mark(header))
                }
                Ok(Some(header)) => return Ok(header),
                Ok(None) => {}
                // A damaged index met mid-way: the events already delivered (whole windows that
                // read and decoded without error) are the session's first ones; the rest comes
                // from the source, after the index is rebuilt aside.
                Err((e, delivered)) if e.is_corrupt() => {
                    self.damaged.set(true);
                    // Rebuilding aside is the SQLite store's own business.
                    let local = self.index.as_ref().and_then(|s| s.local());
                    if let Some(path) = local.map(|s| s.path().to_path_buf()) {
                        let _ = crate::indexed::recover(
                            &path,
                            &e.in_index(&path),
                            self.catalog.sources(),
                            std::slice::from_ref(&self.file),
                        );
                    }
                    skip = delivered;
                }
                Err((e, _)) => return Err(QueryError::new(e.code(), e.to_string())),
            }
        }
        let mut rest = crate::indexed::SkipSink::new(sink, skip);
        let sink: &mut dyn EventSink = &mut rest;
        let source = self.catalog.source(self.file.provider)?;
        match guard::parse(source, &self.file, sink) {
            Ok(mut header) => {
                if header.sources.is_empty() {
                    header.sources.push(self.file.path.clone());
                }
                Ok(header)
            }
            Err(Failure::Source(e)) => {
                Err(QueryError::new(ErrorCode::CorruptSession, e.to_string()))
            }
            Err(Failure::Panic(_)) => Err(QueryError::new(
                ErrorCode::CorruptSession,
                format!(
                    "the {} reader crashed on {}",
                    self.file.provider,
                    self.file.path.display()
                ),
            )),
        }
    }
}

/// A sink that forwards to two closures (events, warnings).
pub struct FnSink<E, W> {
    /// Called for each event.
    pub on_event: E,
    /// Called for each warning.
    pub on_warning: W,
}

impl<E: FnMut(Event), W: FnMut(Warning)> EventSink for FnSink<E, W> {
    fn event(&mut self, event: Event) {
        (self.on_event)(event);
    }
    fn warning(&mut self, warning: Warning) {
        (self.on_warning)(warning);
    }
}

/// A session that can be streamed (more than once): a local source ([`Opened`]) or a copy held
/// elsewhere ([`Stored`]: the team store, issue 22). The reads that page with a cursor (`turn`,
/// `events`) take one, so they answer alike over either.
pub trait Streamed {
    /// Streams the whole session into `sink`; returns the completed header.
    fn stream(&self, sink: &mut dyn EventSink) -> QueryResult<Header>;
    /// The `provider:id` a cursor is bound to.
    fn uri(&self) -> String;
    /// The source fingerprint (S-Q3) a cursor is bound to.
    fn fingerprint(&self) -> u64;
    /// Live / persisted (S-Q1).
    fn availability(&self) -> crate::Availability;
    /// The local source, when there is one (raw records and artifacts are read from it).
    fn local(&self) -> Option<&Opened>;
}

impl Streamed for Opened {
    fn stream(&self, sink: &mut dyn EventSink) -> QueryResult<Header> {
        Opened::stream(self, sink)
    }
    fn uri(&self) -> String {
        format!("{}:{}", self.file.provider, self.file.id)
    }
    fn fingerprint(&self) -> u64 {
        crate::source_fingerprint(&self.file.path)
    }
    fn availability(&self) -> crate::Availability {
        Opened::availability(self)
    }
    fn local(&self) -> Option<&Opened> {
        Some(self)
    }
}

/// A session read in full from another store, with the fingerprint its source had there.
#[derive(Debug, Clone)]
pub struct Stored {
    /// The session.
    pub session: scry_model::Session,
    /// Its source's fingerprint when it was stored.
    pub fingerprint: u64,
    /// Live / persisted as that store tells.
    pub availability: crate::Availability,
}

impl Streamed for Stored {
    fn stream(&self, sink: &mut dyn EventSink) -> QueryResult<Header> {
        for e in &self.session.events {
            sink.event(e.clone());
        }
        for w in &self.session.warnings {
            sink.warning(w.clone());
        }
        Ok(self.session.header.clone())
    }
    fn uri(&self) -> String {
        self.session.header.uri.clone()
    }
    fn fingerprint(&self) -> u64 {
        self.fingerprint
    }
    fn availability(&self) -> crate::Availability {
        self.availability
    }
    fn local(&self) -> Option<&Opened> {
        None
    }
}

/// A session another store holds, read through its [`scry_store::SessionIndex`] (issue 18:
/// the team store behind the door): replayed window by window as the SQLite index replays a
/// session ([`crate::indexed::replay_at`]), with the fingerprint and availability that store
/// tells.
pub struct InIndex<'a> {
    /// The store's reads.
    pub index: &'a dyn scry_store::SessionIndex,
    /// The session's source (on the machine it came from).
    pub path: std::path::PathBuf,
    /// Its key inside a multi-session source.
    pub key: Option<String>,
    /// `provider:id`.
    pub uri: String,
    /// Its source's fingerprint when it was stored.
    pub fingerprint: u64,
    /// Live / persisted as that store tells.
    pub availability: crate::Availability,
}

impl Streamed for InIndex<'_> {
    fn stream(&self, sink: &mut dyn EventSink) -> QueryResult<Header> {
        let at = scry_store::SessionRef::Source {
            path: &self.path,
            key: self.key.as_deref(),
        };
        crate::indexed::replay_at(self.index, at, sink)
            .map_err(|e| QueryError::new(e.code(), e.to_string()))
    }
    fn uri(&self) -> String {
        self.uri.clone()
    }
    fn fingerprint(&self) -> u64 {
        self.fingerprint
    }
    fn availability(&self) -> crate::Availability {
        self.availability
    }
    fn local(&self) -> Option<&Opened> {
        None
    }
}
