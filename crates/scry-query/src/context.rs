//! The context every query runs in ([`Context`]: environment, current directory, demo, index
//! flags, exclusions, lease, progress, revision) and the source fingerprint results and
//! cursors bind ([`source_fingerprint`]). A leaf of the crate: every module imports it, it
//! imports no module of the crate that imports it.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use scry_source::{file_stat, Env};
use scry_sources::Exclusions;

use scry_store::SessionIndex;

use crate::error::QueryResult;
use crate::{page, progress};

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
    /// The store the query door reads instead of the SQLite index (issue 18: another store
    /// behind the door, such as the team store); `None` = the SQLite index at
    /// [`crate::indexed::db_path`]. See [`crate::indexed::open`].
    pub store: Option<StoreSeam>,
}

/// An index of sessions as the query layer holds it: the reads of [`SessionIndex`], and, when
/// it is the SQLite store, its refresh ([`SessionIndex::local_mut`]).
pub type Index = Box<dyn SessionIndex + Send>;

/// Opens the index a query reads in place of the SQLite one ([`Context::store`]): called once
/// per operation, like the SQLite index is opened once per operation. `Ok(None)` reads the
/// sources directly, as without an index.
#[derive(Clone)]
pub struct StoreSeam(pub Arc<OpenIndex>);

/// What a [`StoreSeam`] calls to open its index.
pub type OpenIndex = dyn Fn(&Context) -> QueryResult<Option<Index>> + Send + Sync;

impl StoreSeam {
    /// A seam that opens the index with `open`.
    pub fn new(
        open: impl Fn(&Context) -> QueryResult<Option<Index>> + Send + Sync + 'static,
    ) -> Self {
        StoreSeam(Arc::new(open))
    }
    /// Opens the index.
    pub fn open(&self, ctx: &Context) -> QueryResult<Option<Index>> {
        (self.0)(ctx)
    }
}

impl std::fmt::Debug for StoreSeam {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("StoreSeam")
    }
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
            store: None,
        }
    }
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
