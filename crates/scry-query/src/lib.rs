//! The query API of scry (SPEC §7, S-Q1…S-Q7): the one door to sessions for every front end —
//! the CLI, the HTTP API (`scry serve`), the web page and MCP all call these functions, so they
//! give the same answers.
//!
//! - [`list()`]: sessions in a scope with the S-Q4 session filters and cursor paging;
//! - [`overview()`]: one session's header, stats and fact card (`show`);
//! - [`turns()`]: the turn directory (`turns`);
//! - [`read()`] / [`event_window()`]: turns, events, a locator, one tool call, an artifact or
//!   the raw records, paged with cursors that are refused once the source changed (`turn`);
//! - [`search()`]: across sessions or within one (S-Q5);
//! - [`events()`] / [`relations()`]: one session's events by seq, time, kind, surface and text
//!   (S-Q4), and one event's replacement chain and source / derived events (S-Q6);
//! - [`lineage()`]: ancestors, descendants, root or first unresolvable parent (S-Q6);
//! - [`commands()`], [`files()`], [`errors()`], [`jobs()`]: the ledgers of one session;
//!   [`graph()`]: its edges to other sessions; [`trace()`]: its lineage among every discovered
//!   session; [`context()`]: its hand-off pack; [`digest()`]: its short story;
//!   [`workspace()`]: every session of a subtree (module [`ops`], one typed request each);
//! - [`headers()`]: batch reads, one result per input in order, a failure rejecting only its
//!   own entry.
//!
//! Every result is a serde type whose JSON is exactly what the CLI's `--json` prints, and
//! carries the session header and the source fingerprint it was computed from (S-Q3). Every
//! failure is a [`QueryError`] with a closed [`scry_model::ErrorCode`] (S-Q7).
//!
//! Live-first (S-Q1): reads refresh the index for the sessions they touch and prefer the live
//! source; a result's [`Availability`] says whether its source is present now (`live`) and
//! whether the index holds it (`persisted`).
//!
//! The index is read through [`scry_store::SessionIndex`] (the trait another store implements
//! to stand here, issue 22) by the read helpers (`indexed::replay`, `archive::rows`, the SQL
//! list page, lease checks, the Aider cwd walk); opening, refreshing and rebuilding stay with
//! the SQLite [`scry_store::Store`]. No UI lives here: progress goes through
//! [`progress::Reporter`], errors carry only their [`scry_model::ErrorCode`], and exclusions
//! come in the [`Context`]. The JSON keeps the header's `live` / `persisted`
//! as a direct parse says them, so output is identical with and without the index (SPEC P2).

pub mod aider_cwds;
pub mod archive;
pub mod batch;
pub mod catalog;
pub mod error;
pub mod events;
pub mod filter;
pub mod indexed;
pub mod lease;
pub mod lineage;
pub mod list;
mod list_sql;
pub mod ops;
pub mod overview;
pub mod page;
pub mod progress;
pub mod raw;
pub mod read;
pub mod render;
pub mod resume;
pub mod search;
pub mod selection;
pub mod session_read;
pub mod stats;
pub mod turn_build;
pub mod turns;
pub mod usage;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use scry_source::{file_stat, Env};
use scry_sources::Exclusions;
use serde::Serialize;

pub use batch::{headers, Batch, BatchEntry};
pub use error::{QueryError, QueryResult};
pub use events::{events, relations, EventPage, EventQuery, EventsRequest, PageRequest, Relations};
pub use filter::{KindFilter, Scope};
pub use lineage::{lineage, Lineage};
pub use list::{list, ListFilter, ListQuery, ListRequest, SessionList, SessionRow};
pub use ops::commands::{commands, CommandsReport, CommandsRequest};
pub use ops::context::{context, ContextReport, ContextRequest};
pub use ops::digest::{digest, DigestReport, DigestRequest};
pub use ops::doctor::{doctor, DoctorReport, DoctorRequest};
pub use ops::errors::{errors, ErrorsReport, ErrorsRequest};
pub use ops::files::{files, FilesReport, FilesRequest, GroupFilter};
pub use ops::graph::{graph, GraphReport, GraphRequest};
pub use ops::jobs::{jobs, JobsReport, JobsRequest};
pub use ops::trace::{trace, TraceReport, TraceRequest};
pub use ops::workspace::{workspace, WorkspaceReport, WorkspaceRequest};
pub use overview::{overview, Overview, ShowRequest};
pub use read::{event_window, read, ReadRequest, Selector, TurnPage, TurnRequest};
pub use search::{search, SearchQuery, SearchResult};
pub use turns::{turns, TurnRow, TurnsDir, TurnsRequest};

/// Where and how sessions are read: the environment providers see, the current directory (the
/// default scope), the demo flag and whether the index may be used. Cheap to clone; an HTTP
/// server keeps one and hands a clone to every request.
#[derive(Debug, Clone)]
pub struct Context {
    /// The environment providers see (process, or the demo home with no variables).
    pub env: Env,
    /// The current directory (the default `list` scope).
    pub cwd: PathBuf,
    /// Reading the embedded demo corpus (index beside the demo home; no scope must exist).
    pub demo: bool,
    /// Read the sources directly: never open the index.
    pub no_index: bool,
    /// A session reference may be a path to a session file (S-E3's last form), opened only
    /// when it is a regular file. Only the command line sets it: the HTTP API, the web page and
    /// MCP resolve ids from discovery alone, so a request can never name a file to open
    /// (see [`catalog::Catalog::resolve_ref`]).
    pub path_refs: bool,
    /// What discovery leaves out (config file + `--exclude-*` flags): applied before any file
    /// is opened, by every operation run with this context.
    pub exclusions: Arc<Exclusions>,
    /// The digest of a watcher's lease this context may rely on instead of refreshing
    /// ([`lease::digest`] of `env` and `exclusions`); `None` when every refresh runs
    /// (`--refresh`, library users, tests). See [`lease::covers`].
    pub lease: Option<i64>,
    /// Where long work (the implicit index refresh) reports its progress; silent by default.
    pub progress: progress::Reporter,
    /// Which revision of a session the per-session reads open (issue 20): 0 = the current
    /// one, N = the N-th most recent earlier revision (kept by the index when the source was
    /// rewritten shorter or changed; see [`session_read::open`]).
    pub revision: u32,
}

impl Context {
    /// A context reading `env` with nothing excluded, the index used without a lease, no
    /// progress shown, references by id only, and `cwd` as the default scope.
    pub fn new(env: Env, cwd: PathBuf) -> Context {
        Context {
            env,
            cwd,
            demo: false,
            no_index: false,
            path_refs: false,
            exclusions: Arc::new(Exclusions::new()),
            lease: None,
            progress: progress::Reporter::silent(),
            revision: 0,
        }
    }
}

/// Whether a session's source is present now and whether the index holds it (S-Q1).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Availability {
    /// The source file is present now.
    pub live: bool,
    /// The index holds the session.
    pub persisted: bool,
    /// An archived session (source gone, read from the index): when and where it was last
    /// seen / found gone (S-I6).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub archived: Option<archive::Mark>,
    /// The earlier revision read (`--revision N`), when not the current session (issue 20).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub revision: Option<u32>,
}

/// The source fingerprint a result was computed from (S-Q3) and a cursor binds: a hash of the
/// size and mtime of the primary source, and of its SQLite write-ahead log when there is one (a
/// WAL-mode store changes there first).
pub fn source_fingerprint(path: &Path) -> u64 {
    let (size, mtime) = file_stat(path);
    let mut wal = path.as_os_str().to_owned();
    wal.push("-wal");
    let (wal_size, wal_mtime) = file_stat(Path::new(&wal));
    page::source_hash(
        size ^ wal_size.rotate_left(32),
        mtime ^ wal_mtime.rotate_left(17),
    )
}

/// [`source_fingerprint`] in its text form (16 hex digits), as results carry it.
pub fn fingerprint_text(path: &Path) -> String {
    format!("{:016x}", source_fingerprint(path))
}
