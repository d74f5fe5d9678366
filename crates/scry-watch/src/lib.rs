//! The scry watcher (issue 16): keeps the index current from OS file notifications and holds
//! the index's freshness lease ([`scry_store::Lease`]) while it runs, so read commands answer
//! from the index without their own freshness check. `scry watch` runs it in the foreground;
//! `scry serve`, `scry web` and `scry mcp` run it on a thread of their own.
//!
//! How a change is applied: notifications arrive from `notify` (inotify / FSEvents /
//! ReadDirectoryChangesW); opens and reads are dropped at once (inotify always reports them,
//! and the watcher's own discovery would otherwise wake it again), and the rest are gathered
//! until a quiet period of [`DEBOUNCE`] (at most [`BATCH_MAX`]) so the many events of one
//! write are one batch. Each batch names paths, the
//! paths name the providers whose roots hold them, and each such provider is discovered again
//! (directory walks and stat only). Files whose stat changed, new files and files a
//! notification named go to the store's refresh as one partial refresh — a grown file resumes
//! from its last safe point, a rewritten or truncated one is parsed whole; when files are gone
//! (deleted, renamed away) the provider's whole discovery goes to a refresh complete for that
//! provider, exactly as `scry index` marks vanished sources.
//!
//! Roots that cannot be watched (a watch error, the inotify limit) are checked again on every
//! heartbeat ([`scry_store::HEARTBEAT`]) by the same rediscovery, and roots that do not exist
//! yet are watched once they appear. Idle, the thread blocks on its channel: the heartbeat is
//! its only timer.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError, Sender};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use notify::event::{AccessKind, AccessMode};
use notify::{Event, EventKind, RecommendedWatcher, RecursiveMode, Watcher as _};
use scry_model::ProviderId;
use scry_source::{Env, Source, SourceFile};
use scry_sources::Exclusions;
use scry_store::{Acquired, Action, Lease, RefreshOptions, Store, HEARTBEAT};
use serde::Serialize;

/// The quiet period that ends a batch of notifications.
pub const DEBOUNCE: Duration = Duration::from_millis(50);
/// The longest a batch gathers (a file written without pause is still applied this often).
pub const BATCH_MAX: Duration = Duration::from_millis(500);

type FsResult = notify::Result<Event>;

/// What the watcher keeps current.
#[derive(Debug, Clone)]
pub struct Options {
    /// The environment whose providers' roots are watched.
    pub env: Env,
    /// Sources left out (as the commands leave them out).
    pub exclusions: Exclusions,
    /// The index.
    pub db: PathBuf,
}

/// How one root is followed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RootMode {
    /// OS notifications.
    Watched,
    /// It exists but could not be watched: checked on every heartbeat.
    Polled,
    /// It does not exist (yet): checked on every heartbeat, watched once it appears.
    Waiting,
}

/// One root of one provider.
#[derive(Debug, Clone, Serialize)]
pub struct RootState {
    /// The provider searching it.
    pub provider: ProviderId,
    /// The directory (or database file).
    pub path: PathBuf,
    /// How it is followed.
    pub mode: RootMode,
    /// Why it is polled (the watch error), if it is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// A file root: its directory is watched, not recursively.
    #[serde(skip)]
    is_file: bool,
}

/// What happened to one source.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ChangeKind {
    /// A new source, parsed.
    Created,
    /// Grown: continued from its last resume point.
    Appended,
    /// Rewritten, truncated or otherwise changed: parsed whole.
    Reparsed,
    /// Gone (deleted, renamed away, excluded): marked `live: false`.
    Vanished,
    /// Could not be parsed (its previous session, if any, stays).
    Failed,
}

/// One applied change.
#[derive(Debug, Clone, Serialize)]
pub struct Change {
    /// What happened.
    pub change: ChangeKind,
    /// Whose source.
    pub provider: ProviderId,
    /// The session's id as discovery names it.
    pub id: String,
    /// The source's path.
    pub path: PathBuf,
    /// Its key inside a multi-session store.
    pub key: Option<String>,
}

/// What the watcher tells its front end, from its own thread.
#[derive(Debug, Clone)]
pub enum Note {
    /// The index is current and the lease is held: every root and how it is followed, the
    /// number of sources, and how long the first refresh took.
    Ready {
        /// Every root.
        roots: Vec<RootState>,
        /// Sources discovered.
        files: usize,
        /// Duration of the first refresh.
        took: Duration,
    },
    /// A change was applied to the index.
    Change(Change),
    /// A root changed how it is followed (appeared, vanished, or could not be watched).
    Root(RootState),
    /// Something failed and was skipped (the watcher goes on).
    Warning(String),
    /// Another live process holds the lease for this index; this watcher ends.
    Held(Lease),
}

/// How the watcher's thread ended.
#[derive(Debug, Clone)]
pub enum Outcome {
    /// Stopped on request; the lease was released.
    Stopped,
    /// Another live process holds the lease for this index: nothing to do.
    Held(Lease),
    /// It could not run (the index cannot be opened, no watcher can be made).
    Failed(String),
}

enum Msg {
    Fs(FsResult),
    Stop,
}

/// Asks a running watcher to stop (cloneable; for signal handlers).
#[derive(Debug, Clone)]
pub struct Stopper(Sender<Msg>, Arc<AtomicBool>);

impl std::fmt::Debug for Msg {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Msg::Fs(_) => "Fs",
            Msg::Stop => "Stop",
        })
    }
}

impl Stopper {
    /// Stops the watcher (it releases the lease and its thread ends).
    pub fn stop(&self) {
        self.1.store(true, Ordering::Relaxed);
        let _ = self.0.send(Msg::Stop);
    }
}

/// A watcher running on its own thread. Dropping it stops it and waits for the thread.
#[derive(Debug)]
pub struct Watcher {
    stop: Stopper,
    thread: Option<JoinHandle<Outcome>>,
}

impl Watcher {
    /// Starts watching; `notes` is called from the watcher's thread.
    pub fn spawn(opts: Options, notes: impl FnMut(Note) + Send + 'static) -> Watcher {
        let (tx, rx) = channel();
        let fs_tx = tx.clone();
        let stopping = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&stopping);
        let thread = std::thread::Builder::new()
            .name("scry-watch".into())
            .spawn(move || run(opts, rx, fs_tx, flag, Box::new(notes)))
            .ok();
        Watcher {
            stop: Stopper(tx, stopping),
            thread,
        }
    }

    /// A handle that stops this watcher.
    pub fn stopper(&self) -> Stopper {
        self.stop.clone()
    }

    /// Waits until the thread ends (stopped, lease held elsewhere, or failed).
    pub fn join(mut self) -> Outcome {
        match self.thread.take().map(JoinHandle::join) {
            Some(Ok(o)) => o,
            Some(Err(_)) => Outcome::Failed("the watcher thread panicked".into()),
            None => Outcome::Failed("cannot start the watcher thread".into()),
        }
    }

    /// Stops the watcher and waits for it.
    pub fn stop(self) -> Outcome {
        self.stop.stop();
        self.join()
    }
}

impl Drop for Watcher {
    fn drop(&mut self) {
        if let Some(t) = self.thread.take() {
            self.stop.stop();
            let _ = t.join();
        }
    }
}

/// What a discovery found: (path, key) → (size, mtime, id).
type Seen = HashMap<(PathBuf, Option<String>), (u64, i64, String)>;

/// One provider: its roots and what its last discovery found.
struct Provider {
    id: ProviderId,
    roots: Vec<RootState>,
    seen: Seen,
}

type Notes = Box<dyn FnMut(Note) + Send>;

struct State {
    opts: Options,
    sources: Vec<Box<dyn Source>>,
    store: Store,
    providers: Vec<Provider>,
    watcher: RecommendedWatcher,
    notes: Notes,
    /// Set when a stop was asked: a long first refresh ends early.
    stopping: Arc<AtomicBool>,
}

fn run(
    opts: Options,
    rx: Receiver<Msg>,
    tx: Sender<Msg>,
    stopping: Arc<AtomicBool>,
    mut notes: Notes,
) -> Outcome {
    let store = match Store::open(&opts.db) {
        Ok(s) => s,
        Err(e) => return Outcome::Failed(format!("cannot open the index: {e}")),
    };
    if let Some(held) = live_other(&store) {
        notes(Note::Held(held));
        return Outcome::Held(held);
    }
    let watcher = match notify::recommended_watcher(move |r: FsResult| {
        if r.as_ref().is_ok_and(|e| !relevant(&e.kind)) {
            return;
        }
        let _ = tx.send(Msg::Fs(r));
    }) {
        Ok(w) => w,
        Err(e) => return Outcome::Failed(format!("cannot create a file watcher: {e}")),
    };
    let sources = scry_sources::registry();
    let providers = sources
        .iter()
        .filter(|s| !opts.exclusions.excludes_provider(s.id()))
        .map(|s| Provider {
            id: s.id(),
            roots: s
                .roots(&opts.env)
                .into_iter()
                .map(|r| RootState {
                    provider: s.id(),
                    path: r.path,
                    mode: RootMode::Waiting,
                    reason: None,
                    is_file: false,
                })
                .collect(),
            seen: HashMap::new(),
        })
        .collect();
    let digest = scry_query::lease::digest(&opts.env, &opts.exclusions);
    let mut st = State {
        opts,
        sources,
        store,
        providers,
        watcher,
        notes: Box::new(|_| {}),
        stopping,
    };
    // Watch first, then index: a change made while the first refresh runs is queued.
    for p in 0..st.providers.len() {
        for r in 0..st.providers[p].roots.len() {
            st.follow(p, r);
        }
    }
    let start = Instant::now();
    let files = st.first_refresh(&mut notes);
    if st.stopping.load(Ordering::Relaxed) {
        return Outcome::Stopped;
    }
    let (w, pl, wa) = st.counts();
    match st.store.acquire_lease(digest, w, pl, wa) {
        Ok(Acquired::Ours) => {}
        Ok(Acquired::HeldBy(l)) => {
            notes(Note::Held(l));
            return Outcome::Held(l);
        }
        Err(e) => return Outcome::Failed(format!("cannot take the lease: {e}")),
    }
    st.notes = notes;
    (st.notes)(Note::Ready {
        roots: st.providers.iter().flat_map(|p| p.roots.clone()).collect(),
        files,
        took: start.elapsed(),
    });
    let outcome = st.serve(&rx, digest);
    let _ = st.store.release_lease();
    outcome
}

/// The lease of another live process, if one holds this index.
fn live_other(store: &Store) -> Option<Lease> {
    store
        .lease()
        .ok()
        .flatten()
        .filter(|l| l.pid != std::process::id() && l.is_live(scry_store::now_ms()))
}

impl State {
    /// Root counts: watched, polled, waiting.
    fn counts(&self) -> (u32, u32, u32) {
        let mut c = (0, 0, 0);
        for r in self.providers.iter().flat_map(|p| &p.roots) {
            match r.mode {
                RootMode::Watched => c.0 += 1,
                RootMode::Polled => c.1 += 1,
                RootMode::Waiting => c.2 += 1,
            }
        }
        c
    }

    /// Starts following root `r` of provider `p` as it is now: watched when it exists and can
    /// be watched, polled when it exists and cannot, waiting when it does not exist.
    fn follow(&mut self, p: usize, r: usize) {
        let root = &mut self.providers[p].roots[r];
        let meta = std::fs::metadata(&root.path);
        let Ok(meta) = meta else {
            root.mode = RootMode::Waiting;
            root.reason = None;
            return;
        };
        root.is_file = meta.is_file();
        let (target, mode) = match (root.is_file, root.path.parent()) {
            (true, Some(dir)) => (dir.to_path_buf(), RecursiveMode::NonRecursive),
            _ => (root.path.clone(), RecursiveMode::Recursive),
        };
        match self.watcher.watch(&target, mode) {
            Ok(()) => {
                root.mode = RootMode::Watched;
                root.reason = None;
            }
            Err(e) => {
                let _ = self.watcher.unwatch(&target);
                root.mode = RootMode::Polled;
                root.reason = Some(e.to_string());
            }
        }
    }

    /// Indexes every discovered source as `scry index` does (complete: sources not found are
    /// marked vanished) and remembers what was found. Returns the number of sources.
    fn first_refresh(&mut self, notes: &mut Notes) -> usize {
        let only: Vec<ProviderId> = self.providers.iter().map(|p| p.id).collect();
        let found = scry_sources::discover_excluding(
            &self.sources,
            &self.opts.env,
            &only,
            &self.opts.exclusions,
        );
        let mut files = Vec::new();
        for pd in found {
            if let Some(p) = self.providers.iter_mut().find(|p| p.id == pd.provider) {
                p.seen = snapshot(&pd.discovery.files);
            }
            files.extend(pd.discovery.files);
        }
        let stopping = Arc::clone(&self.stopping);
        match self.store.refresh(
            &self.sources,
            &files,
            &RefreshOptions::complete_for(
                self.opts
                    .exclusions
                    .complete_providers(&scry_model::ProviderId::ALL),
            ),
            &mut |_| !stopping.load(Ordering::Relaxed),
        ) {
            Ok(_) | Err(scry_store::StoreError::Aborted) => {}
            Err(e) => notes(Note::Warning(format!("first refresh failed: {e}"))),
        }
        files.len()
    }

    /// The event loop: changes as they come, the heartbeat (and the polled roots) on time.
    fn serve(&mut self, rx: &Receiver<Msg>, digest: i64) -> Outcome {
        let mut beat = Instant::now();
        loop {
            let wait = HEARTBEAT.saturating_sub(beat.elapsed());
            match rx.recv_timeout(wait) {
                Ok(Msg::Stop) | Err(RecvTimeoutError::Disconnected) => return Outcome::Stopped,
                Ok(Msg::Fs(first)) => {
                    // Gather until quiet: one rediscovery per provider per batch.
                    let mut batch = vec![first];
                    let mut stop = false;
                    let since = Instant::now();
                    while since.elapsed() < BATCH_MAX {
                        match rx.recv_timeout(DEBOUNCE) {
                            Ok(Msg::Fs(r)) => batch.push(r),
                            Ok(Msg::Stop) | Err(RecvTimeoutError::Disconnected) => {
                                stop = true;
                                break;
                            }
                            Err(RecvTimeoutError::Timeout) => break,
                        }
                    }
                    self.apply(batch);
                    if stop {
                        return Outcome::Stopped;
                    }
                }
                Err(RecvTimeoutError::Timeout) => {}
            }
            if beat.elapsed() >= HEARTBEAT {
                beat = Instant::now();
                self.tick();
                if let Some(o) = self.heartbeat(digest) {
                    return o;
                }
            }
        }
    }

    /// Renews the lease (taking it again if it was lost, e.g. to an index rebuilt aside);
    /// `Some` when another process holds it now.
    fn heartbeat(&mut self, digest: i64) -> Option<Outcome> {
        let (w, p, wa) = self.counts();
        match self.store.renew_lease(w, p, wa) {
            Ok(true) => None,
            Ok(false) => match self.store.acquire_lease(digest, w, p, wa) {
                Ok(Acquired::HeldBy(l)) => {
                    (self.notes)(Note::Held(l));
                    Some(Outcome::Held(l))
                }
                Ok(Acquired::Ours) => None,
                Err(e) => {
                    (self.notes)(Note::Warning(format!("cannot renew the lease: {e}")));
                    None
                }
            },
            Err(e) => {
                (self.notes)(Note::Warning(format!("cannot renew the lease: {e}")));
                None
            }
        }
    }

    /// Every heartbeat: roots that appeared are followed, watched roots that disappeared wait
    /// for their return, and providers with polled roots are rediscovered.
    fn tick(&mut self) {
        for p in 0..self.providers.len() {
            let mut sync = false;
            for r in 0..self.providers[p].roots.len() {
                let root = &self.providers[p].roots[r];
                let exists = root.path.exists();
                let before = root.mode;
                match (before, exists) {
                    (RootMode::Waiting, true) => self.follow(p, r),
                    (RootMode::Watched | RootMode::Polled, false) => {
                        let root = &mut self.providers[p].roots[r];
                        let target = match (root.is_file, root.path.parent()) {
                            (true, Some(dir)) => dir.to_path_buf(),
                            _ => root.path.clone(),
                        };
                        let _ = self.watcher.unwatch(&target);
                        root.mode = RootMode::Waiting;
                    }
                    _ => {}
                }
                let now = self.providers[p].roots[r].mode;
                if now != before {
                    (self.notes)(Note::Root(self.providers[p].roots[r].clone()));
                    sync = true;
                }
                if now == RootMode::Polled {
                    sync = true;
                }
            }
            if sync {
                self.sync(p, &[]);
            }
        }
    }

    /// Applies a batch of debounced notifications.
    fn apply(&mut self, batch: Vec<FsResult>) {
        let mut paths: Vec<PathBuf> = Vec::new();
        let mut everything = false;
        for r in batch {
            match r {
                Ok(event) => {
                    everything |= event.need_rescan();
                    paths.extend(event.paths);
                }
                Err(e) => {
                    // An error (a queue overflow among them) may have lost events: look again
                    // at everything.
                    (self.notes)(Note::Warning(format!("file watcher: {e}")));
                    everything = true;
                }
            }
        }
        for p in 0..self.providers.len() {
            let hits: Vec<PathBuf> = paths
                .iter()
                .filter(|path| self.providers[p].roots.iter().any(|r| holds(r, path)))
                .cloned()
                .collect();
            if everything || !hits.is_empty() {
                self.sync(p, &hits);
            }
        }
    }

    /// Rediscovers provider `p` and brings the index up to date with what changed since its
    /// last discovery (and with the sources `hints` name).
    fn sync(&mut self, p: usize, hints: &[PathBuf]) {
        let id = self.providers[p].id;
        let found = scry_sources::discover_excluding(
            &self.sources,
            &self.opts.env,
            &[id],
            &self.opts.exclusions,
        );
        let files: Vec<SourceFile> = found
            .into_iter()
            .flat_map(|pd| pd.discovery.files)
            .collect();
        let now = snapshot(&files);
        let old = &self.providers[p].seen;
        let gone: Vec<((PathBuf, Option<String>), String)> = old
            .iter()
            .filter(|(k, _)| !now.contains_key(*k))
            .map(|(k, v)| (k.clone(), v.2.clone()))
            .collect();
        let changed: Vec<SourceFile> = files
            .iter()
            .filter(|f| {
                old.get(&(f.path.clone(), f.key.clone()))
                    .is_none_or(|s| (s.0, s.1) != (f.size, f.mtime_ns))
                    || hints.iter().any(|h| names(f, h))
            })
            .cloned()
            .collect();
        if changed.is_empty() && gone.is_empty() {
            self.providers[p].seen = now;
            return;
        }
        let (given, opts) = if gone.is_empty() {
            (changed, RefreshOptions::partial())
        } else {
            (
                files,
                RefreshOptions {
                    // Excluded is not gone: with path or project rules, only a file gone
                    // from disk is marked so.
                    complete_for: self.opts.exclusions.complete_providers(&[id]),
                    ..RefreshOptions::default()
                },
            )
        };
        let mut applied: Vec<Change> = Vec::new();
        let result = self.store.refresh(&self.sources, &given, &opts, &mut |pr| {
            let kind = match pr.action {
                Action::Unchanged => return true,
                Action::Resumed => ChangeKind::Appended,
                Action::Failed => ChangeKind::Failed,
                Action::Parsed
                    if old.contains_key(&(pr.file.path.clone(), pr.file.key.clone())) =>
                {
                    ChangeKind::Reparsed
                }
                Action::Parsed => ChangeKind::Created,
            };
            applied.push(change(kind, pr.file));
            true
        });
        match result {
            Ok(_) => {
                for ((path, key), native) in gone {
                    applied.push(Change {
                        change: ChangeKind::Vanished,
                        provider: id,
                        id: native,
                        path,
                        key,
                    });
                }
                self.providers[p].seen = now;
                for c in applied {
                    (self.notes)(Note::Change(c));
                }
            }
            // Left as it was: the next notification or heartbeat of a polled root retries.
            Err(e) => (self.notes)(Note::Warning(format!("{id}: refresh failed: {e}"))),
        }
    }
}

/// Whether a notification may mean a change: not an open, a read or a close after reading
/// (every read of a watched file, ours included, reports those).
fn relevant(kind: &EventKind) -> bool {
    match kind {
        EventKind::Access(AccessKind::Close(AccessMode::Write)) => true,
        EventKind::Access(_) => false,
        _ => true,
    }
}

fn change(kind: ChangeKind, f: &SourceFile) -> Change {
    Change {
        change: kind,
        provider: f.provider,
        id: f.id.clone(),
        path: f.path.clone(),
        key: f.key.clone(),
    }
}

/// What discovery found of `files`.
fn snapshot(files: &[SourceFile]) -> Seen {
    files
        .iter()
        .map(|f| {
            (
                (f.path.clone(), f.key.clone()),
                (f.size, f.mtime_ns, f.id.clone()),
            )
        })
        .collect()
}

/// Whether a notification for `path` concerns `root` (a path under a directory root; a
/// database root, its `-wal` / `-shm` / `-journal` side files).
fn holds(root: &RootState, path: &Path) -> bool {
    if root.is_file {
        let (Some(name), Some(dir)) = (root.path.file_name(), root.path.parent()) else {
            return false;
        };
        path.parent() == Some(dir)
            && path
                .file_name()
                .is_some_and(|n| n.as_encoded_bytes().starts_with(name.as_encoded_bytes()))
    } else {
        path.starts_with(&root.path)
    }
}

/// Whether a notification for `path` names source `f` (its file, a file inside its directory,
/// a side file, or a database's `-wal`).
fn names(f: &SourceFile, path: &Path) -> bool {
    if path.starts_with(&f.path) || f.related.iter().any(|r| r == path) {
        return true;
    }
    let (Some(name), Some(dir)) = (f.path.file_name(), f.path.parent()) else {
        return false;
    };
    path.parent() == Some(dir)
        && path
            .file_name()
            .is_some_and(|n| n.as_encoded_bytes().starts_with(name.as_encoded_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn root(path: &str, is_file: bool) -> RootState {
        RootState {
            provider: ProviderId::Pi,
            path: PathBuf::from(path),
            mode: RootMode::Watched,
            reason: None,
            is_file,
        }
    }

    #[test]
    fn a_notification_belongs_to_the_roots_that_hold_its_path() {
        let dir = root("/h/.pi/agent/sessions", false);
        assert!(holds(&dir, Path::new("/h/.pi/agent/sessions/x/a.jsonl")));
        assert!(!holds(&dir, Path::new("/h/.pi/agent/other")));
        let db = root("/h/.local/share/opencode/opencode.db", true);
        assert!(holds(
            &db,
            Path::new("/h/.local/share/opencode/opencode.db-wal")
        ));
        assert!(!holds(&db, Path::new("/h/.local/share/opencode/log.txt")));
    }

    #[test]
    fn opens_and_reads_are_not_changes() {
        use notify::event::{CreateKind, ModifyKind};
        assert!(!relevant(&EventKind::Access(AccessKind::Open(
            AccessMode::Any
        ))));
        assert!(!relevant(&EventKind::Access(AccessKind::Close(
            AccessMode::Read
        ))));
        assert!(relevant(&EventKind::Access(AccessKind::Close(
            AccessMode::Write
        ))));
        assert!(relevant(&EventKind::Modify(ModifyKind::Any)));
        assert!(relevant(&EventKind::Create(CreateKind::File)));
    }

    #[test]
    fn a_notification_names_a_source_by_its_file_side_files_or_wal() {
        let mut f = SourceFile::with_stat(ProviderId::Pi, "a", "/d/a.db", (0, 0));
        f.related.push(PathBuf::from("/d/side/a.json"));
        assert!(names(&f, Path::new("/d/a.db")));
        assert!(names(&f, Path::new("/d/a.db-wal")));
        assert!(names(&f, Path::new("/d/side/a.json")));
        assert!(!names(&f, Path::new("/d/b.db")));
    }
}
