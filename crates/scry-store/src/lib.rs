//! The scry index (SPEC §4, §5): an embedded SQLite file that caches parsed sessions so lists,
//! reads and searches need no re-parse. Source files stay the only truth (P2): everything read
//! back equals a direct parse, and every answer can be recomputed without the index.
//!
//! The API in five calls:
//! ```no_run
//! # fn demo() -> Result<(), scry_store::StoreError> {
//! use scry_store::{default_db_path, RefreshOptions, SearchRequest, SessionFilter, Store};
//! let env = scry_source::Env::from_process();
//! let sources = scry_sources::registry();
//! let files: Vec<_> = scry_sources::discover_all(&sources, &env, &[])
//!     .into_iter().flat_map(|d| d.discovery.files).collect();
//! let mut store = Store::open(&default_db_path(&env))?;                      // create / upgrade
//! let report = store.refresh(&sources, &files, &RefreshOptions::complete(), &mut |_p| true)?;
//! let headers = store.headers(&SessionFilter::default(), 20, 0)?;           // list
//! let session = store.session(&headers[0].uri)?;                            // = direct parse
//! let found = store.search(&SearchRequest::literal("会话"))?;               // grouped hits
//! # let _ = (report, session, found); Ok(()) }
//! ```
//! - [`Store::refresh`] fingerprints every discovered file (size + mtime, then xxh3 of the first
//!   64 KB only when those changed) and re-parses only what changed; files that grew are
//!   continued from the last safe point when the provider supports resuming
//!   ([`scry_source::Source::parse_into_from`]); sources that vanished stay as `live: false`
//!   until [`Store::prune`] / [`Store::prune_archived`]; [`Store::archived`] lists them.
//! - Reading: [`Store::session`], [`Store::header`], [`Store::headers`] / [`Store::count`]
//!   with a [`SessionFilter`], [`Store::events`] (a seq window), [`Store::warnings`].
//! - Search: [`Store::search`] across sessions and [`Store::search_session`] within one, plus
//!   [`search_direct`] / [`search_session_direct`] over parsed sessions for `--no-index` —
//!   identical results (S-S5); [`search_one_direct`] answers as `search_direct` over one
//!   session read as it streams (twice), never held whole.
//!
//! No transaction holds the write lock much longer than half a second (WAL mode;
//! a refresh groups small sessions per commit, and writes a whole parse under a new session id
//! no reader can reach, committing between blocks, then swaps it in with one short
//! transaction), so a concurrent reader sees the old or the new version of a session, never half
//! of one, a waiting writer gets its turn, and a crash mid-index leaves a usable index.
//!
//! A session's identity is its source: two files holding one session id (a copied project
//! folder) are two sessions with the same uri, read by source ([`SessionRef::Source`]); a uri
//! they share is [`StoreError::AmbiguousSession`]. [`Store::search_sources`] searches the
//! sessions of the given (discovered) files only, as a direct search parses them.
//!
//! Errors are [`StoreError`]s carrying the closed codes of S-Q7.
//!
//! Wiring it into a front end:
//! - `index [--all] [--force] [--prune]`: discover, then [`Store::refresh`] with
//!   [`RefreshOptions::complete`] (or [`RefreshOptions::partial`] for a scope or one session;
//!   `force` for `--force`), drawing a bar from [`Progress::done`] / [`Progress::total`];
//!   then [`Store::prune_archived`] for `--prune` (`--older-than`, `--dry-run`). Report [`RefreshReport::failed`] as warnings.
//! - `--no-index`: parse the sessions and call [`search_direct`] / [`search_session_direct`] /
//!   [`SessionFilter::matches`]; the answers equal the indexed ones.
//! - Errors: [`StoreError::code`] gives the S-Q7 code; the CLI maps that code to its exit status.
//!
//! Header fields that belong to the index, not the source: `persisted` is `true` for every
//! session read from the index, and `live` says whether its source was present at the last
//! refresh (S-Q1, S-I6). Everything else equals the direct parse.

mod archive;
mod block;
mod carry;
mod codec;
mod error;
mod facts;
mod filter;
mod gramq;
#[doc(hidden)]
pub mod grams;
mod ingest;
mod integrity;
mod lease;
pub mod ledger;
mod listcache;
mod listing;
mod lookup;
pub mod postings;
mod read;
mod refresh;
mod revision;
mod schema;
mod search;
pub mod session_index;

use std::path::{Path, PathBuf};

use rusqlite::{Connection, OpenFlags};
use scry_source::Env;

pub use archive::{archive_at, ArchiveStats, ArchivedRow};
pub use codec::aux_text;
pub use error::{Result, StoreError};
pub use facts::{LayerVersions, SessionFacts};
pub use filter::{SessionFilter, TimeRange};
pub use integrity::{inspect, IndexHealth, APPLICATION_ID};
pub use lease::{lease_at, now_ms, pid_alive, Acquired, Lease, HEARTBEAT, LEASE_TTL};
pub use ledger::{StoredRequest, UsageSum, TIER_BOUNDS};
pub use listing::{IndexedSource, ListMode, ListSpec, PageRow};
pub use lookup::{LiveCwds, SourceCwd};
pub use read::{ListRow, SessionRef};
pub use refresh::{Action, FileError, Progress, RefreshOptions, RefreshReport};
pub use revision::{revisions_at, RevisionRow, RevisionStats};
pub use schema::{EDGE_VERSION, EXTRACTOR_VERSION, PARSER_VERSION, SCHEMA_VERSION};
pub use search::{
    search_direct, search_direct_each, search_one_direct, search_session_direct, Area, Caller,
    Count, EachError, Field, Hit, SearchMode, SearchPlan, SearchRequest, SearchResponse,
    SessionHits, SessionSearch, SortOrder, TermsOperator,
};
pub use session_index::SessionIndex;

/// How long a statement waits for another connection's lock (see [`Store::set_busy_timeout`]).
const BUSY_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

/// Runs `op` again while it fails with `SQLITE_BUSY` / `SQLITE_LOCKED`, for up to
/// [`BUSY_TIMEOUT`].
fn retry_busy<T>(mut op: impl FnMut() -> rusqlite::Result<T>) -> rusqlite::Result<T> {
    let start = std::time::Instant::now();
    loop {
        match op() {
            Err(e) if integrity::is_busy(&e) && start.elapsed() < BUSY_TIMEOUT => {
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
            other => return other,
        }
    }
}

/// Where the index lives: `$SCRY_DB` when set, else `$XDG_DATA_HOME/scry/index.db`
/// (`~/.local/share/scry/index.db`).
pub fn default_db_path(env: &Env) -> PathBuf {
    match env.var("SCRY_DB") {
        Some(p) => PathBuf::from(p),
        None => env.data_home().join("scry").join("index.db"),
    }
}

/// The connection's memory map of the index file (1 GiB; a bulk refresh turns it off while it
/// writes, `refresh::Unmapped`).
pub(crate) const MMAP_PRAGMA: &str = "PRAGMA mmap_size = 1073741824;";

/// An open index. Several `Store`s (threads or processes) may use one file: writers take turns
/// (a busy timeout of 10 s), readers never block and see whole sessions only.
pub struct Store {
    conn: Connection,
    path: PathBuf,
    versions: LayerVersions,
    /// How long a writer waits for another's lock ([`Store::set_busy_timeout`]).
    busy_wait: std::cell::Cell<std::time::Duration>,
    /// `list` counts read in a snapshot, stored after it ([`Store::save_list_counts`]).
    pending_counts: listcache::Pending,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store").field("path", &self.path).finish()
    }
}

impl Store {
    /// Opens (creating the file and its directory when missing) the index at `path`, in WAL
    /// mode, and brings its layout to the current versions: a schema version change drops and
    /// rebuilds everything (S-I1).
    ///
    /// A file that is not a scry index is refused with [`StoreError::NotAnIndex`] before
    /// anything is written to it (see [`inspect`]); an index of a release before application
    /// ids is adopted. SQLite corruption met while opening is [`StoreError::DamagedIndex`].
    pub fn open(path: &Path) -> Result<Store> {
        Store::open_with_versions(path, LayerVersions::default())
    }

    /// [`Store::open`] computing L2 / L3 with other layer versions than this build's: a test
    /// hook standing in for a release that bumps the extractor or edge version (stored facts of
    /// another version are cleared and recomputed from stored events).
    #[doc(hidden)]
    pub fn open_with_versions(path: &Path, versions: LayerVersions) -> Result<Store> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| {
                StoreError::IndexBuild(format!("cannot create {}: {e}", dir.display()))
            })?;
        }
        // Judged read-only before the first write (the WAL switch below rewrites the header).
        let owner = integrity::ownership(path)?;
        let ctx = format!("{}", path.display());
        let conn = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_WRITE
                | OpenFlags::SQLITE_OPEN_CREATE
                | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(StoreError::db(format!("open {ctx}")))?;
        conn.busy_timeout(BUSY_TIMEOUT)
            .map_err(StoreError::db(format!("configure {ctx}")))?;
        // Both may need an exclusive lock that SQLite refuses at once, without the busy
        // handler, when another opener of a new file holds a shared one: retried.
        retry_busy(|| {
            if owner == integrity::Ownership::Ours {
                return Ok(());
            }
            // Before WAL: on a new file this is the first write, so the id is in the main file
            // from the start (a crash before the first checkpoint cannot leave an id-less file).
            let id: i32 = conn.query_row("PRAGMA application_id", [], |r| r.get(0))?;
            if id != APPLICATION_ID {
                conn.pragma_update(None, "application_id", APPLICATION_ID)?;
            }
            Ok(())
        })
        .and_then(|()| {
            retry_busy(|| {
                conn.execute_batch(
                    "PRAGMA journal_mode = WAL;
                     PRAGMA synchronous = NORMAL;
                     PRAGMA temp_store = MEMORY;
                     PRAGMA cache_size = -32768;",
                )
                .and_then(|()| conn.execute_batch(MMAP_PRAGMA))
            })
        })
        .map_err(|e| StoreError::db(format!("configure {ctx}"))(e).in_index(path))?;
        conn.set_prepared_statement_cache_capacity(64);
        let mut store = Store {
            conn,
            path: path.to_path_buf(),
            versions,
            busy_wait: std::cell::Cell::new(BUSY_TIMEOUT),
            pending_counts: listcache::Pending::default(),
        };
        // Archived sessions have no source to rebuild from: read before a schema change drops
        // the tables, written back after (issue 20).
        let carried = carry::carry_out(&store);
        schema::ensure(&mut store.conn, versions).map_err(|e| e.in_index(path))?;
        carry::carry_in(&store, carried).map_err(|e| e.in_index(path))?;
        Ok(store)
    }

    /// How long a statement waits for another connection's lock before failing with an error
    /// for which [`StoreError::is_busy`] holds (10 s after [`Store::open`]). A caller that must
    /// not fail (`scry index`) retries such errors. Refresh and prune poll for the lock for
    /// the same time.
    pub fn set_busy_timeout(&self, timeout: std::time::Duration) -> Result<()> {
        self.busy_wait.set(timeout);
        self.conn
            .busy_timeout(timeout)
            .map_err(StoreError::db(format!("configure {}", self.path.display())))
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The stored layer versions: `[schema, parser, extractor, edge]`.
    pub fn versions(&self) -> Result<[i64; 4]> {
        schema::versions(&self.conn)
    }
}
