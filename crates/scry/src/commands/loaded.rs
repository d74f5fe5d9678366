//! Shared by the fact commands (`commands`, `files`, `errors`, `jobs`, `digest`, `graph`,
//! `context`, `workspace`): read one whole session into memory, compute its facts once
//! ([`scry_facts::Facts::of`]), and the small text / JSON pieces every ledger prints alike.
//!
//! `commands`, `files`, `errors` and `jobs` read through [`load_ledgers`]: the ledgers are
//! folded while events stream ([`scry_facts::LedgerFold`], checked equal to [`Facts::of`] on
//! every corpus session), so memory grows with the ledger rows, not with the session. The
//! others (`digest`, `graph`, `context`, `workspace`) still hold the whole session.

use std::panic::{catch_unwind, AssertUnwindSafe};

use scry_facts::{Facts, Origin};
use scry_model::{ErrorCode, Event, Header, Session, Warning};
use scry_source::{Emitter, SourceFile};
use serde_json::{json, Value};

use crate::app::Ctx;
use crate::catalog::Catalog;
use crate::error::{CliError, CliResult};
use crate::render;
use crate::session_read::{self, FnSink, Opened};

/// One session read in full, with its facts.
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
pub fn load(ctx: &Ctx, reference: &str) -> CliResult<Loaded> {
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

/// Resolves `reference` and folds the session's ledgers while its events stream; the returned
/// session holds the header and warnings but no events, and `facts.statuses` is empty.
pub fn load_ledgers(ctx: &Ctx, reference: &str) -> CliResult<Loaded> {
    let opened = session_read::open(ctx, reference)?;
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
        opened.stream(&mut sink)?
    };
    let ledgers = fold.finish(&header);
    Ok(Loaded {
        catalog: opened.catalog,
        session: Session {
            header,
            events: Vec::new(),
            warnings,
        },
        facts: Facts {
            files: ledgers.files,
            commands: ledgers.commands,
            failures: ledgers.failures,
            jobs: ledgers.jobs,
            statuses: Vec::new(),
            tokens: ledgers.tokens,
        },
        event_count: count,
    })
}

/// Streams `opened` into a [`Session`].
pub fn read(opened: &Opened) -> CliResult<Session> {
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
pub fn read_file(catalog: &Catalog, file: &SourceFile) -> CliResult<Session> {
    let source = catalog.source(file.provider)?;
    let mut events: Vec<Event> = Vec::new();
    let mut warnings: Vec<Warning> = Vec::new();
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        let mut sink = FnSink {
            on_event: |e: Event| events.push(e),
            on_warning: |w: Warning| warnings.push(w),
        };
        let mut out = Emitter::new(&mut sink);
        let mut header = source.parse_into(file, &mut out)?;
        out.finish_header(&mut header);
        Ok::<Header, scry_source::SourceError>(header)
    }));
    let mut header = match outcome {
        Ok(Ok(h)) => h,
        Ok(Err(e)) => return Err(CliError::new(ErrorCode::CorruptSession, e.to_string())),
        Err(_) => {
            return Err(CliError::new(
                ErrorCode::CorruptSession,
                format!(
                    "the {} reader crashed on {}",
                    file.provider,
                    file.path.display()
                ),
            ))
        }
    };
    if header.sources.is_empty() {
        header.sources.push(file.path.clone());
    }
    Ok(Session {
        header,
        events,
        warnings,
    })
}

/// The JSON envelope every fact command prints: the session header, then `key: value`, then
/// the reading warnings.
pub fn envelope(session: &Session, key: &str, value: Value) -> Value {
    let mut v = json!({ "session": render::header_json(&session.header) });
    if let Some(map) = v.as_object_mut() {
        map.insert(key.to_string(), value);
        map.insert(
            "warnings".to_string(),
            render::warnings_json(&session.warnings),
        );
    }
    v
}

/// `serde_json::to_value` that never fails the command (a value that cannot be serialized
/// becomes `null`).
pub fn to_value<T: serde::Serialize>(v: &T) -> Value {
    serde_json::to_value(v).unwrap_or(Value::Null)
}

/// The first line of text output: the session uri and title.
pub fn title_line(session: &Session) -> String {
    let h = &session.header;
    format!(
        "{}  {}",
        h.uri,
        render::clip(h.title.as_deref().unwrap_or("(untitled)"), 60)
    )
}

/// `E12·T3 observed tool:Write` — the provenance suffix of a text row.
pub fn origin_text(o: &Origin) -> String {
    format!(
        "{} {} {}",
        o.evidence.handle(),
        o.provenance.as_str(),
        o.extractor
    )
}

/// Warnings for the bottom of a text output (none → nothing).
pub fn warnings_tail(session: &Session) -> Vec<String> {
    let w = render::warnings_text(&session.warnings, 3);
    w.into_iter().map(|l| format!("warning: {l}")).collect()
}

/// Joins lines with trailing spaces trimmed and a final newline.
pub fn lines(out: Vec<String>) -> String {
    let mut text = out
        .into_iter()
        .map(|l| l.trim_end().to_string())
        .collect::<Vec<_>>()
        .join("\n");
    text.push('\n');
    text
}

/// One line of `text` (first line, control characters made visible, clipped to `max`).
pub fn one_line(text: &str, max: usize) -> String {
    let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    render::clip(&render::safe_text(first.trim()), max)
}
