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
    pub index: Option<scry_store::Store>,
    /// The index's archived row when the session's source is gone (S-I6): read from the index
    /// only, never refreshed.
    pub archived: Option<scry_store::ArchivedRow>,
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
        Ok(Some(store)) => Catalog::resolve_leased(ctx, store, &[], reference),
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
        .and_then(|store| crate::archive::lookup(store, &file));
    if let Some(store) = index.as_mut().filter(|_| archived.is_none()) {
        if !crate::indexed::refresh(ctx, store, catalog.sources(), std::slice::from_ref(&file)) {
            index = None;
        }
    }
    Ok(Opened {
        catalog,
        file,
        index,
        archived,
        damaged: std::cell::Cell::new(false),
    })
}

impl Opened {
    /// Whether the source is present now and whether the index holds the session (S-Q1).
    pub fn availability(&self) -> crate::Availability {
        crate::Availability {
            live: self.file.path.exists(),
            persisted: self
                .index
                .as_ref()
                .is_some_and(|s| crate::indexed::uri_of(s, &self.file).is_some()),
            archived: self.archived.as_ref().map(crate::archive::Mark::of),
        }
    }

    /// Streams the whole session into `sink`; returns the completed header. A source that cannot
    /// be read at all is a runtime failure (exit 1); problems inside it arrive as warnings.
    pub fn stream(&self, sink: &mut dyn EventSink) -> QueryResult<Header> {
        // From the index when it holds the session (a source it could not parse is re-read
        // directly so the error is the direct one).
        let mut skip = 0;
        if let Some(store) = self.index.as_ref().filter(|_| !self.damaged.get()) {
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
                    let path = store.path().to_path_buf();
                    let _ = crate::indexed::recover(
                        &path,
                        &e.in_index(&path),
                        self.catalog.sources(),
                        std::slice::from_ref(&self.file),
                    );
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
