//! Parse threads for a refresh (issue 17): the files a refresh will parse whole (new sources,
//! `--force`, a new parser version) are parsed ahead on worker threads, which also do the rest
//! of the per-event work — event encoding, block building, zstd and the trigram keys — and hand
//! each closed block ([`Sealed`]) to the one writer, the thread that owns the connection and
//! runs the refresh as before: it decides per file as it always did, allocates the sid, writes
//! the rows in file order and commits in the same staged short transactions. Sids, row ids and
//! stored bytes are those of a serial refresh.
//!
//! Worker `w` of `n` parses jobs `w, w + n, w + 2n, …` in order and sends their pieces over its
//! own bounded channel; the writer reads job `j` from channel `j % n`, so pieces arrive in file
//! order without a reorder buffer, and memory stays bounded by `n` channels of at most
//! [`AHEAD`] bytes of pieces each (a huge session streams through as it is parsed, never held
//! whole); the bound is in bytes, not pieces, so a worker runs well ahead while the writer
//! is in a long merge or commit. A job the writer
//! does not use after all (a source it finds unchanged) is read and dropped. When the writer
//! stops early its receivers go; a worker's next send fails and it stops after its current
//! parse.

use std::rc::Rc;
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::Scope;

use scry_model::{Event, Header, Warning};
use scry_source::{Emitter, EventSink, ResumePoint, Source, SourceFile};

use super::{FileRows, RefreshOptions};
use crate::block::{BlockBuf, Sealed};
use crate::error::StoreError;
use crate::grams::GramSet;
use crate::ingest::{push_event, warning_body};
use crate::schema::PARSER_VERSION;

/// Pieces a worker may have sent ahead of the writer, at most.
const PIECES: usize = 8192;
/// Bytes of pieces a worker may have sent ahead of the writer (one piece may pass it).
const AHEAD: usize = 32 << 20;

/// The bytes a worker has sent that the writer has not taken yet.
#[derive(Default)]
struct Budget {
    /// (bytes in flight, the writer is gone).
    state: Mutex<(usize, bool)>,
    taken: Condvar,
}

impl Budget {
    /// Waits until `bytes` more fit (or nothing is in flight, or the writer is gone).
    fn reserve(&self, bytes: usize) {
        let mut st = self
            .state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        while !st.1 && st.0 > 0 && st.0 + bytes > AHEAD {
            st = self
                .taken
                .wait(st)
                .unwrap_or_else(std::sync::PoisonError::into_inner);
        }
        st.0 += bytes;
    }

    fn release(&self, bytes: usize) {
        let mut st = self
            .state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        st.0 = st.0.saturating_sub(bytes);
        self.taken.notify_one();
    }

    fn close(&self) {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .1 = true;
        self.taken.notify_all();
    }
}

impl Piece {
    /// The heap bytes a piece holds, about.
    fn bytes(&self) -> usize {
        match self {
            Piece::Block(b) => {
                64 + b.blob.len()
                    + 4 * b.doc.len()
                    + 4 * b.failures.len()
                    + std::mem::size_of::<crate::ledger::StoredRequest>() * b.requests.len()
            }
            Piece::Doc(_, d) => 64 + 4 * d.len(),
            Piece::Warning(w) => 64 + w.len(),
            Piece::End(_) => 64,
        }
    }
}

/// What a parse thread hands the writer, in order.
pub(super) enum Piece {
    /// A closed block.
    Block(Sealed),
    /// The document of the session's last group, when its last block was sent before the
    /// session ended: (seq of the group's first block, document).
    Doc(u32, Vec<u32>),
    /// An encoded warning (the session's next).
    Warning(String),
    /// The end of the file's parse.
    End(Box<End>),
}

/// How a parse on a worker ended.
pub(super) struct End {
    /// The completed header and event count, or the provider's message.
    pub parsed: std::result::Result<(Header, u32), String>,
    /// The last resume point the provider offered.
    pub resume: Option<ResumePoint>,
    /// An encoding failure: fatal to the refresh, as when the writer parses itself.
    pub error: Option<StoreError>,
}

/// Starts the parse threads of a refresh of `files` (`rows`: their fingerprints, as the first
/// transaction read them) when `opts.jobs` allows more than one and at least two files will be
/// parsed whole for certain: new sources (no row), and every source with `force` or a row of
/// another parser version. `None`: the writer parses everything itself.
pub(super) fn start<'scope, 'env>(
    scope: &'scope Scope<'scope, 'env>,
    sources: &'env [Box<dyn Source>],
    files: &'env [SourceFile],
    rows: &FileRows,
    opts: &RefreshOptions,
) -> Option<Prefetch> {
    let workers = match opts.jobs {
        0 => std::thread::available_parallelism().map_or(1, std::num::NonZero::get),
        n => n,
    };
    if workers < 2 {
        return None;
    }
    let jobs: Vec<usize> = (0..files.len())
        .filter(|&i| {
            let file = &files[i];
            let whole = match rows.slots.get(i) {
                _ if opts.force => true,
                Some(Some(row)) => row.parser_version != PARSER_VERSION,
                // Read in bulk and absent: a new source.
                Some(None) => true,
                // Not read in bulk: unknown.
                None => false,
            };
            whole && sources.iter().any(|s| s.id() == file.provider)
        })
        .collect();
    (jobs.len() >= 2).then(|| Prefetch::start(scope, sources, files, jobs, workers))
}

/// The writer's end of the parse threads.
pub(super) struct Prefetch {
    /// Positions in the refresh's `files` of the jobs, ascending.
    jobs: Vec<usize>,
    /// The next job the writer reads.
    next: usize,
    /// One receiver per worker, and its bytes in flight.
    rxs: Vec<(Rc<Receiver<Piece>>, Arc<Budget>)>,
}

impl Drop for Prefetch {
    fn drop(&mut self) {
        // A worker waiting for room must not wait for a writer that is gone.
        for (_, budget) in &self.rxs {
            budget.close();
        }
    }
}

impl Prefetch {
    /// Starts `workers` parse threads in `scope` over `files[jobs[..]]`.
    pub(super) fn start<'scope, 'env>(
        scope: &'scope Scope<'scope, 'env>,
        sources: &'env [Box<dyn Source>],
        files: &'env [SourceFile],
        jobs: Vec<usize>,
        workers: usize,
    ) -> Prefetch {
        let workers = workers.clamp(1, jobs.len().max(1));
        let mut rxs = Vec::with_capacity(workers);
        for w in 0..workers {
            let (tx, rx) = sync_channel(PIECES);
            let budget = Arc::new(Budget::default());
            let mine: Vec<usize> = jobs.iter().skip(w).step_by(workers).copied().collect();
            let tx = Sender {
                tx,
                budget: Arc::clone(&budget),
            };
            scope.spawn(move || work(sources, files, &mine, &tx));
            rxs.push((Rc::new(rx), budget));
        }
        Prefetch { jobs, next: 0, rxs }
    }

    /// The pieces of the file at position `at`, when it was parsed ahead. Files must be asked
    /// for in ascending order.
    pub(super) fn take(&mut self, at: usize) -> Option<Pieces> {
        while self.jobs.get(self.next).is_some_and(|&j| j < at) {
            // Never asked for (not expected): read and drop it to reach the next.
            drop(self.pieces());
        }
        (self.jobs.get(self.next) == Some(&at)).then(|| self.pieces())
    }

    fn pieces(&mut self) -> Pieces {
        let (rx, budget) = &self.rxs[self.next % self.rxs.len()];
        let (rx, budget) = (Rc::clone(rx), Arc::clone(budget));
        self.next += 1;
        Pieces {
            rx,
            budget,
            ended: false,
        }
    }
}

/// One file's pieces as a worker sends them; what is left unread is read and dropped.
pub(super) struct Pieces {
    rx: Rc<Receiver<Piece>>,
    budget: Arc<Budget>,
    ended: bool,
}

impl Pieces {
    /// The next piece; `None` after the [`Piece::End`], or when the worker is gone.
    pub(super) fn next(&mut self) -> Option<Piece> {
        if self.ended {
            return None;
        }
        let p = self.rx.recv().ok();
        if let Some(p) = &p {
            self.budget.release(p.bytes());
        }
        self.ended = matches!(p, None | Some(Piece::End(_)));
        p
    }
}

impl Drop for Pieces {
    fn drop(&mut self) {
        while self.next().is_some() {}
    }
}

/// A worker's end of its channel.
struct Sender {
    tx: SyncSender<Piece>,
    budget: Arc<Budget>,
}

impl Sender {
    /// Sends `p` once its bytes fit; `Err` when the writer is gone.
    fn send(&self, p: Piece) -> Result<(), ()> {
        self.budget.reserve(p.bytes());
        self.tx.send(p).map_err(|_| ())
    }
}

/// A worker: parses its jobs in order, sending each one's pieces and its end.
fn work(sources: &[Box<dyn Source>], files: &[SourceFile], mine: &[usize], tx: &Sender) {
    // One trigram set for all the worker's files: its 256 KB bitmap is allocated and zeroed
    // once, not per file (emptied between files).
    let mut grams = GramSet::default();
    for &at in mine {
        let file = &files[at];
        let end = match sources.iter().find(|s| s.id() == file.provider) {
            Some(source) => {
                grams.clear();
                let mut sink = PipeSink {
                    tx,
                    block: BlockBuf {
                        grams: std::mem::take(&mut grams),
                        ..BlockBuf::default()
                    },
                    doc: Vec::new(),
                    error: None,
                    resume: None,
                    gone: false,
                };
                let parsed = {
                    let mut out = Emitter::new(&mut sink);
                    match source.parse_into(file, &mut out) {
                        Ok(mut header) => {
                            out.finish_header(&mut header);
                            Ok((header, out.count()))
                        }
                        Err(e) => Err(e.to_string()),
                    }
                };
                if parsed.is_ok() && sink.error.is_none() {
                    sink.seal(true);
                }
                grams = std::mem::take(&mut sink.block.grams);
                if sink.gone {
                    return;
                }
                End {
                    parsed,
                    resume: sink.resume,
                    error: sink.error,
                }
            }
            None => End {
                parsed: Err(format!("no provider '{}' registered", file.provider)),
                resume: None,
                error: None,
            },
        };
        if tx.send(Piece::End(Box::new(end))).is_err() {
            return;
        }
    }
}

/// The worker's sink: builds blocks as the writer's [`crate::ingest::IndexSink`] does and sends
/// each one closed.
struct PipeSink<'a> {
    tx: &'a Sender,
    block: BlockBuf,
    /// An allocation for the next block's candidate keys.
    doc: Vec<u32>,
    error: Option<StoreError>,
    resume: Option<ResumePoint>,
    /// The writer is gone: ignore the rest.
    gone: bool,
}

impl PipeSink<'_> {
    fn send(&mut self, p: Piece) {
        if self.tx.send(p).is_err() {
            self.gone = true;
        }
    }

    /// Sends the block being filled, if any; `last`: the session ends with it (the document
    /// of its group is sent too, also when no block was being filled).
    fn seal(&mut self, last: bool) {
        if self.gone {
            return;
        }
        if self.block.count > 0 {
            let sealed = self.block.seal(std::mem::take(&mut self.doc), last);
            self.send(Piece::Block(sealed));
        } else if last {
            let mut doc = Vec::new();
            if let Some(first) = self.block.close_group(&mut doc) {
                if !doc.is_empty() {
                    self.send(Piece::Doc(first, doc));
                }
            }
        }
    }

    fn live(&self) -> bool {
        self.error.is_none() && !self.gone
    }
}

impl EventSink for PipeSink<'_> {
    fn event(&mut self, event: Event) {
        if !self.live() {
            return;
        }
        match push_event(&mut self.block, event) {
            Ok(true) => self.seal(false),
            Ok(false) => {}
            Err(e) => self.error = Some(e),
        }
    }

    fn warning(&mut self, warning: Warning) {
        if !self.live() {
            return;
        }
        match warning_body(&warning) {
            Ok(body) => self.send(Piece::Warning(body)),
            Err(e) => self.error = Some(e),
        }
    }

    fn wants_resume_points(&self) -> bool {
        true
    }

    fn resume_point(&mut self, point: ResumePoint) {
        if !self.gone {
            self.resume = Some(point);
        }
    }
}
