//! The fact operations of the query door (issue 18): the ledgers (`commands`, `files`,
//! `errors`, `jobs`), `graph`, `trace`, `context`, `digest` and `workspace`, and `doctor`. Each is one typed
//! function `op(ctx, &OpRequest) -> QueryResult<OpReport>` in its own module; the report is a
//! `Serialize` struct whose JSON (through `serde_json::Value`, keys sorted) is exactly what the
//! CLI prints with `--json`. The CLI renders its text from the same report; the HTTP API and
//! MCP serialize it — no front end runs another front end's argument parser.
//!
//! This module holds what the operations share: reading one session in full or folding its
//! ledgers or every fact while it streams ([`load`], [`load_ledgers`], [`load_folded`]: no
//! per-session operation holds the session, issue 17), taking the facts from the index when
//! it holds the very same session ([`use_index`]), and the serializers of the envelope every
//! fact answer carries (`session` header, `warnings`).

pub mod commands;
pub mod context;
pub mod digest;
pub mod doctor;
pub mod errors;
pub mod files;
pub mod graph;
pub mod jobs;
pub mod trace;
pub mod workspace;

use scry_facts::{Facts, FoldedSession, ReferenceCandidate, SessionFold};
use scry_model::{ErrorCode, Event, Header, Session, Warning};
use scry_source::guard::{self, Failure};
use scry_source::SourceFile;
use serde::Serializer;

use crate::catalog::Catalog;
use crate::session_read::{self, FnSink, Opened, Streamed};
use crate::{Context, QueryError, QueryResult};

/// One session read in full (or its ledgers folded), with its facts.
pub struct Loaded {
    /// The catalog it was resolved in (every provider's discovery).
    pub catalog: Catalog,
    /// The session.
    pub session: Session,
    /// Every fact of it (from [`load_ledgers`]: the ledgers only, no turn statuses).
    pub facts: Facts,
    /// How many events the session has (`session.events` is empty after [`load_ledgers`]).
    pub event_count: usize,
}

/// Resolves `reference` and reads the whole session.
pub fn load(ctx: &Context, reference: &str) -> QueryResult<Loaded> {
    let opened = session_read::open(ctx, reference)?;
    let session = read(&opened)?;
    let facts = Facts::of(&session);
    Ok(Loaded {
        catalog: opened.catalog,
        event_count: session.events.len(),
        session,
        facts,
    })
}

/// Resolves `reference` and folds the session's ledgers while its events stream
/// ([`scry_facts::LedgerFold`], checked equal to [`Facts::of`] on every corpus session): memory
/// grows with the ledger rows, not with the session. The returned session holds the header and
/// warnings but no events, and `facts.statuses` is empty.
pub fn load_ledgers(ctx: &Context, reference: &str) -> QueryResult<Loaded> {
    let opened = session_read::open(ctx, reference)?;
    let (session, facts, event_count) = fold_ledgers(&opened)?;
    Ok(Loaded {
        catalog: opened.catalog,
        session,
        facts,
        event_count,
    })
}

/// Folds the ledgers of the session `src` streams (local, or stored elsewhere: the team
/// store, issue 22): the session's header and warnings without events, its ledger facts
/// (`statuses` empty) and how many events it has.
pub fn fold_ledgers(src: &dyn Streamed) -> QueryResult<(Session, Facts, usize)> {
    let mut fold = scry_facts::LedgerFold::new();
    let mut count = 0usize;
    let mut warnings: Vec<Warning> = Vec::new();
    let header = {
        let mut sink = FnSink {
            on_event: |e: Event| {
                fold.push(&e);
                count += 1;
            },
            on_warning: |w: Warning| warnings.push(w),
        };
        src.stream(&mut sink)?
    };
    let ledgers = fold.finish(&header);
    let session = Session {
        header,
        events: Vec::new(),
        warnings,
    };
    let facts = Facts {
        files: ledgers.files,
        commands: ledgers.commands,
        failures: ledgers.failures,
        jobs: ledgers.jobs,
        statuses: Vec::new(),
        tokens: ledgers.tokens,
    };
    Ok((session, facts, count))
}

/// One session whose facts were folded while it streamed ([`load_folded`]).
pub struct Folded {
    /// The catalog it was resolved in (every provider's discovery).
    pub catalog: Catalog,
    /// The session's header and warnings (no events).
    pub session: Session,
    /// Its facts, turn summaries, last answer, reference candidates, event times.
    pub folded: FoldedSession,
    /// Its USD, when asked for ([`load_folded`]'s `prices`).
    pub cost: crate::usage::Cost,
}

/// Resolves `reference` and folds every fact of the session while its events stream
/// ([`SessionFold`], checked equal to the whole-session functions on every corpus session):
/// memory grows with the ledger rows and a skeleton of each event, not with the session's
/// text. `prices` also sums its cost as `scry usage` prices it.
pub fn load_folded(ctx: &Context, reference: &str, prices: bool) -> QueryResult<Folded> {
    let opened = session_read::open(ctx, reference)?;
    let table = prices.then(|| crate::usage::prices(ctx));
    let mut cost = crate::usage::Cost::default();
    let mut fold = SessionFold::new();
    let mut warnings: Vec<Warning> = Vec::new();
    let header = {
        let mut sink = FnSink {
            on_event: |e: Event| {
                if let Some(t) = &table {
                    cost.push(&e, t);
                }
                fold.push(e);
            },
            on_warning: |w: Warning| warnings.push(w),
        };
        opened.stream(&mut sink)?
    };
    let folded = fold.finish(&header);
    Ok(Folded {
        catalog: opened.catalog,
        session: Session {
            header,
            events: Vec::new(),
            warnings,
        },
        folded,
        cost,
    })
}

/// Folds every fact of `file` (found in `catalog`) while it is parsed, as [`load_folded`]
/// does; a source that cannot be read, or whose reader panics, is an error for this session
/// only (as [`read_file`]).
pub fn fold_file(catalog: &Catalog, file: &SourceFile) -> QueryResult<(Session, FoldedSession)> {
    let source = catalog.source(file.provider)?;
    let mut fold = SessionFold::new();
    let mut warnings: Vec<Warning> = Vec::new();
    let mut sink = FnSink {
        on_event: |e: Event| fold.push(e),
        on_warning: |w: Warning| warnings.push(w),
    };
    let parsed = guard::parse(source, file, &mut sink);
    let mut header = parsed_header(parsed, file)?;
    if header.sources.is_empty() {
        header.sources.push(file.path.clone());
    }
    let folded = fold.finish(&header);
    Ok((
        Session {
            header,
            events: Vec::new(),
            warnings,
        },
        folded,
    ))
}

/// The header of a guarded parse of `file`, or the error that names it.
fn parsed_header(parsed: Result<Header, Failure>, file: &SourceFile) -> QueryResult<Header> {
    match parsed {
        Ok(h) => Ok(h),
        Err(Failure::Source(e)) => Err(QueryError::new(ErrorCode::CorruptSession, e.to_string())),
        Err(Failure::Panic(_)) => Err(QueryError::new(
            ErrorCode::CorruptSession,
            format!(
                "the {} reader crashed on {}",
                file.provider,
                file.path.display()
            ),
        )),
    }
}

/// Streams `opened` into a [`Session`].
pub fn read(opened: &Opened) -> QueryResult<Session> {
    let mut events: Vec<Event> = Vec::new();
    let mut warnings: Vec<Warning> = Vec::new();
    let header = {
        let mut sink = FnSink {
            on_event: |e: Event| events.push(e),
            on_warning: |w: Warning| warnings.push(w),
        };
        opened.stream(&mut sink)?
    };
    Ok(Session {
        header,
        events,
        warnings,
    })
}

/// Reads `file` (found in `catalog`) into a [`Session`]; a source that cannot be read, or whose
/// reader panics, is an error for this session only.
pub fn read_file(catalog: &Catalog, file: &SourceFile) -> QueryResult<Session> {
    let source = catalog.source(file.provider)?;
    let mut events: Vec<Event> = Vec::new();
    let mut warnings: Vec<Warning> = Vec::new();
    let mut sink = FnSink {
        on_event: |e: Event| events.push(e),
        on_warning: |w: Warning| warnings.push(w),
    };
    let mut header = parsed_header(guard::parse(source, file, &mut sink), file)?;
    if header.sources.is_empty() {
        header.sources.push(file.path.clone());
    }
    Ok(Session {
        header,
        events,
        warnings,
    })
}

/// When the index is in use and holds this very session (same header, same events), replaces
/// `l.facts` by the index's L2 facts (S-I1: computed from stored events, stored once) and returns
/// its L3 reference candidates; `None` (facts as computed from the read) otherwise. Either way
/// the answer is the same as with `--no-index`.
pub fn use_index(ctx: &Context, l: &mut Loaded) -> Option<Vec<ReferenceCandidate>> {
    let layers = index_layers(ctx, &l.session.header, l.event_count)?;
    l.facts = layers.facts;
    Some(layers.references)
}

/// The index's stored fact layers of the session with `header` and `event_count` events, when
/// the index is in use and holds this very session ([`use_index`]).
pub fn index_layers(
    ctx: &Context,
    header: &Header,
    event_count: usize,
) -> Option<scry_store::SessionFacts> {
    if ctx.revision > 0 {
        // An earlier revision: its facts come from the read (the stored ones by uri are the
        // current session's).
        return None;
    }
    // The context's other store when one stands behind the door, else the SQLite file when
    // there is one (never created, refreshed or rebuilt here).
    let store: crate::Index = match &ctx.store {
        Some(seam) => seam.open(ctx).ok()??,
        None => {
            let path = crate::indexed::db_path(ctx)?;
            if !path.exists() {
                return None;
            }
            Box::new(scry_store::Store::open(&path).ok()?)
        }
    };
    // By uri, or, when two files hold this session id, by the source it was read from.
    let mut at = scry_store::SessionRef::Uri(&header.uri);
    if let Err(scry_store::StoreError::AmbiguousSession { .. }) = store.header(at) {
        at = scry_store::SessionRef::Source {
            path: header.sources.first()?,
            key: None,
        };
    }
    let stored = crate::indexed::normalize(store.header(at).ok()?);
    if stored != crate::indexed::normalize(header.clone())
        || usize::try_from(store.event_count(at).ok()?).ok()? != event_count
    {
        return None;
    }
    store.facts(at).ok()
}

/// Serializes a header as every answer shows it ([`crate::render::header_json`]: the optional
/// fields present as `null`).
pub fn ser_header<S: Serializer>(h: &Header, s: S) -> Result<S::Ok, S::Error> {
    serde::Serialize::serialize(&crate::render::header_json(h), s)
}

/// Serializes an optional header like [`ser_header`] (`null` when absent).
pub fn ser_opt_header<S: Serializer>(h: &Option<Header>, s: S) -> Result<S::Ok, S::Error> {
    match h {
        Some(h) => ser_header(h, s),
        None => s.serialize_none(),
    }
}

/// Serializes reading warnings as every answer shows them.
pub fn ser_warnings<S: Serializer>(w: &[Warning], s: S) -> Result<S::Ok, S::Error> {
    serde::Serialize::serialize(&crate::render::warnings_json(w), s)
}

/// The JSON value of a report (`null` if it cannot be serialized, which no report does).
pub fn to_json<T: serde::Serialize>(report: &T) -> serde_json::Value {
    serde_json::to_value(report).unwrap_or(serde_json::Value::Null)
}
