//! Index access for the commands (SPEC S-I5, S-C8): where the index lives, opening it without
//! ever failing a read (an index that cannot be opened or refreshed turns into one warning on
//! stderr and a direct parse), refreshing the files a command touches, and reading sessions and
//! headers back.
//!
//! Location: `SCRY_DB`, else the platform data dir ([`scry_store::default_db_path`]); `--demo`
//! uses `index.db` beside the extracted demo home, never the user's index. `--no-index` opens
//! nothing.
//!
//! Headers read back are normalized to what a direct parse of a discovered file says
//! (`persisted: false`, `live: true`): the index owns those two flags, and the outputs of
//! `list` / `show` / `turns` / `turn` / `search` must be identical with and without `--no-index`
//! (S-I4).

use std::io::IsTerminal;
use std::path::PathBuf;

use rusqlite::OptionalExtension;
use scry_model::{Header, Warning};
use scry_source::{EventSink, Source, SourceFile};
use scry_store::{RefreshOptions, Store, StoreError};

use crate::catalog::Entry;
use crate::Context;

/// Events read from the index per window while replaying a session (bounds memory).
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

/// Opens the index, or says on stderr why the sources are read directly instead.
pub fn open(ctx: &Context) -> Option<Store> {
    let path = db_path(ctx)?;
    match Store::open(&path) {
        Ok(store) => Some(store),
        Err(e) => {
            unavailable(&e);
            None
        }
    }
}

/// The one warning printed when the index cannot be used.
pub fn unavailable(e: &StoreError) {
    eprintln!("warning: index unavailable ({e}); reading the sources directly");
}

/// Brings `files` up to date in the index (unchanged files are only stat'ed). A failure of the
/// index itself is reported and returns `false` (callers then parse directly).
///
/// Usually this is a stat per file; when it runs longer than a second (a first run, many changed
/// sessions) and stderr is a terminal, a progress bar appears there and is cleared afterwards.
pub fn refresh(store: &mut Store, sources: &[Box<dyn Source>], files: &[SourceFile]) -> bool {
    let start = std::time::Instant::now();
    let terminal = std::io::stderr().is_terminal();
    let mut bar: Option<indicatif::ProgressBar> = None;
    let result = store.refresh(sources, files, &RefreshOptions::partial(), &mut |p| {
        if bar.is_none() && terminal && start.elapsed() > std::time::Duration::from_secs(1) {
            let b = indicatif::ProgressBar::new(p.total as u64);
            if let Ok(style) =
                indicatif::ProgressStyle::with_template("indexing {bar:30} {pos}/{len} {wide_msg}")
            {
                b.set_style(style);
            }
            bar = Some(b);
        }
        if let Some(b) = &bar {
            b.set_position(p.done as u64);
        }
        true
    });
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    match result {
        Ok(_) => true,
        Err(e) => {
            unavailable(&e);
            false
        }
    }
}

/// The uri of the session indexed from `file`, if it is indexed.
pub fn uri_of(store: &Store, file: &SourceFile) -> Option<String> {
    let path = file.path.to_string_lossy();
    let key = file.key.clone().unwrap_or_default();
    store
        .connection()
        .query_row(
            "SELECT s.uri FROM files f JOIN sessions s ON s.sid = f.fid
             WHERE f.path = ?1 AND f.key = ?2",
            rusqlite::params![path.as_ref(), key],
            |r| r.get::<_, String>(0),
        )
        .optional()
        .ok()
        .flatten()
}

/// The header as a direct parse of a present source gives it.
pub fn normalize(mut h: Header) -> Header {
    h.persisted = false;
    h.live = true;
    h
}

/// Replays session `uri` from the index into `sink` (events in windows, then warnings) and
/// returns its normalized header.
pub fn replay(store: &Store, uri: &str, sink: &mut dyn EventSink) -> Result<Header, StoreError> {
    let header = store.header(uri)?;
    let n = store.event_count(uri)?;
    let mut from = 0u32;
    while from < n {
        let to = from.saturating_add(WINDOW - 1).min(n - 1);
        for e in store.events(uri, from..=to)? {
            sink.event(e);
        }
        from = to + 1;
    }
    for w in store.warnings(uri)? {
        sink.warning(w);
    }
    Ok(normalize(header))
}

/// Headers of `files` for `list`. The files are refreshed into the index on the way (S-I5);
/// the rows still come from the header scans, because a stored header is the *full* parse's
/// (every model, every source file, the agent name) while a scan reads only the head — reading
/// rows from the stored headers would change `list --json` (richer) and break its equality with
/// `--no-index` unless that path parsed every session whole. Switching is one line here once the
/// `list --json` snapshot is re-accepted.
pub fn scan(
    ctx: &Context,
    catalog: &crate::catalog::Catalog,
    files: &[&SourceFile],
) -> (Vec<Entry>, Vec<Warning>) {
    if let Some(mut store) = open(ctx) {
        let owned: Vec<SourceFile> = files.iter().map(|f| (*f).clone()).collect();
        refresh(&mut store, catalog.sources(), &owned);
    }
    catalog.scan(files)
}
