//! Incremental refresh (SPEC S-I2, S-I5, S-I6): fingerprint every discovered source, re-parse
//! only what changed, continue append-only growth from the last safe point, and keep sessions
//! whose source vanished (flagged `live: false`) until [`Store::prune`].
//!
//! Fingerprint = size + mtime (stat, from discovery) + xxh3 of the first 64 KB + a stat
//! signature of the session's side files (and of a SQLite source's `-wal` file). Equal size and mtime → the file is not opened at all.
//! Otherwise the head is hashed: equal size and head (and, when a resume point exists, an equal
//! hash of the 64 KB before it) → only the mtime is updated (a `touch`). A grown file whose
//! provider supports resuming, and whose bytes before the last resume point hash the same, is
//! parsed from that point only; anything else is re-parsed whole.
//!
//! The write lock is held in short transactions (SPEC S-I5, issue 15): small sessions are
//! grouped, and a whole parse is written under a new sid that readers cannot reach, committing
//! between blocks ([`crate::ingest::Stage`]), then swapped in by one short transaction that also
//! checks no other writer swapped that source meanwhile. The replaced session's rows are deleted
//! afterwards in bounded steps. Only a resume (appending to the reachable session) stays in one
//! transaction, so it is taken only for at most [`RESUME_MAX_BYTES`] of new bytes.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rusqlite::{params, Connection, OptionalExtension};
use scry_model::ProviderId;
use scry_source::{ResumePoint, Source, SourceFile};

use crate::error::{Result, StoreError};
use crate::ingest::{collect_garbage, retire, Limits};
use crate::schema::PARSER_VERSION;
use crate::Store;

pub(crate) use sig::side_signature;
use sig::{head_hash, prefix_hash, related_signature};

mod lock;
mod pipe;
mod sig;
mod skip;
mod write;

pub(crate) use lock::YIELD;
pub(crate) use lock::{poll_when_busy, TxGuard, Unmapped};

/// How much of a file's head is hashed, and the size of the window before a resume point.
pub const HEAD_BYTES: u64 = 64 * 1024;

/// How a refresh treats what it was given.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RefreshOptions {
    /// Re-parse every given file even when its fingerprint is unchanged (`index --force`).
    pub force: bool,
    /// The given files are the complete discovery of every provider: an indexed source not
    /// among them is marked `live: false` (S-I6).
    pub complete_all: bool,
    /// The given files are the complete discovery of these providers.
    pub complete_for: Vec<ProviderId>,
    /// Test hook: commit a session written in several transactions after this many blocks
    /// (default: only the time limit, [`BATCH_TIME`]).
    #[doc(hidden)]
    pub commit_blocks: Option<u64>,
    /// Parse threads for the files parsed whole (`index --jobs`): 0 = one per available core,
    /// 1 = parse on the writing thread. The index written is the same either way.
    pub jobs: usize,
    /// Sources not given are left alone, gone or not: a second refresh in one run, of files
    /// found after a first one that checked every indexed source (the Aider histories a
    /// `list` looks up after its refresh). Without it a partial refresh stats every live
    /// indexed source it was not given.
    pub keep_unseen: bool,
}

impl RefreshOptions {
    /// A refresh given every discovered file of every provider (`index --all`).
    pub fn complete() -> Self {
        RefreshOptions {
            complete_all: true,
            ..Default::default()
        }
    }

    /// A refresh given every discovered file, complete for `providers` only: with exclusions or
    /// cwd-relative discovery, a source left out is not a source gone
    /// (`Exclusions::complete_providers` in scry-sources says which are complete).
    pub fn complete_for(providers: Vec<ProviderId>) -> Self {
        RefreshOptions {
            complete_for: providers,
            ..Default::default()
        }
    }

    /// A refresh of some files only (one session, one scope): sources not given are left alone
    /// unless their file is gone from disk.
    pub fn partial() -> Self {
        RefreshOptions::default()
    }
}

/// What happened to one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Fingerprint unchanged: not opened (or only its head hashed).
    Unchanged,
    /// Parsed from the start.
    Parsed,
    /// Parsed from the last resume point only.
    Resumed,
    /// Could not be parsed (see [`RefreshReport::failed`]).
    Failed,
}

/// Progress of a refresh, reported after each file.
#[derive(Debug, Clone, Copy)]
pub struct Progress<'a> {
    /// Files handled so far (this one included).
    pub done: usize,
    /// Files given.
    pub total: usize,
    /// The file just handled.
    pub file: &'a SourceFile,
    /// What happened to it.
    pub action: Action,
}

/// A source that could not be indexed; the refresh went on with the others.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileError {
    /// The source.
    pub path: PathBuf,
    /// Its key inside a multi-session store.
    pub key: Option<String>,
    /// Why.
    pub message: String,
}

/// What a refresh did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RefreshReport {
    /// Files given.
    pub files: usize,
    /// Files whose fingerprint was unchanged (nothing parsed).
    pub unchanged: usize,
    /// Of those, files whose size and mtime differed so the head was hashed.
    pub hashed: usize,
    /// Files parsed whole.
    pub parsed: usize,
    /// Files continued from a resume point.
    pub resumed: usize,
    /// Files that failed (their previous session, if any, stays indexed).
    pub failed: Vec<FileError>,
    /// Sessions newly marked `live: false` because their source is gone.
    pub vanished: usize,
    /// Sessions whose source came back (`live: true` again).
    pub revived: usize,
    /// Bytes the store itself read to fingerprint and verify (providers' reads not included).
    pub bytes_hashed: u64,
    /// Events written.
    pub events_written: u64,
    /// Transactions committed in the middle of writing one session (each kept the write lock
    /// at most about [`BATCH_TIME`]).
    pub staged_commits: u64,
    /// A rebuild only: archived sessions and earlier revisions read from the replaced file and
    /// kept in the new one.
    pub carried: usize,
    /// A rebuild only: archived sessions and earlier revisions the replaced file listed but
    /// could not give back (damaged), now lost.
    pub carry_lost: usize,
}

/// Events written before the refresh commits its transaction.
pub const BATCH_EVENTS: u64 = 50_000;
/// Time after which the refresh commits its transaction (also in the middle of a session).
pub const BATCH_TIME: Duration = Duration::from_millis(500);

/// Frees what a removal left behind (the blocks of retired sessions: prune, forget), in
/// transactions of at most [`BATCH_TIME`] each.
pub(crate) fn collect_removed(conn: &Connection) -> Result<usize> {
    collect_garbage(
        conn,
        Limits {
            time: BATCH_TIME,
            blocks: u64::MAX,
        },
    )
}
/// New bytes above which a grown file is re-parsed whole (in short transactions) instead of
/// resumed (one transaction).
pub const RESUME_MAX_BYTES: u64 = 16 << 20;

/// The open transaction of a refresh, and the fingerprint of every indexed source as the
/// transaction saw it when it began (read in one query: one lookup per file was most of a
/// warm refresh).
struct Batch<'c> {
    tx: &'c Connection,
    rows: FileRows,
    limits: Limits,
    /// When the current transaction began.
    since: Instant,
    /// A staged session committed: the rows read at the start may be stale, end the batch.
    restarted: bool,
    /// The files parsed ahead on parse threads, when there are any.
    pipe: Option<&'c mut pipe::Prefetch>,
    /// A live source has no discovery id stored (indexed before the `did` column): unchanged
    /// sources get theirs as they are checked.
    backfill: bool,
}

/// The columns of `files` a refresh reads, in [`FileRow::from_sql`]'s order: all in the
/// `files_fingerprint` index, so reading them never touches the resume points.
const FILE_COLUMNS: &str =
    "fid, size, mtime_ns, head_hash, related_sig, parser_version, prefix_hash, live, sid";

struct FileRow {
    fid: i64,
    /// The session indexed from this source.
    sid: Option<i64>,
    size: i64,
    mtime_ns: i64,
    head_hash: i64,
    related_sig: i64,
    parser_version: i64,
    prefix_hash: Option<i64>,
    live: bool,
}

impl FileRow {
    /// Reads [`FILE_COLUMNS`] starting at column `at`.
    fn from_sql(r: &rusqlite::Row<'_>, at: usize) -> rusqlite::Result<FileRow> {
        Ok(FileRow {
            fid: r.get(at)?,
            size: r.get(at + 1)?,
            mtime_ns: r.get(at + 2)?,
            head_hash: r.get(at + 3)?,
            related_sig: r.get(at + 4)?,
            parser_version: r.get(at + 5)?,
            prefix_hash: r.get(at + 6)?,
            live: r.get::<_, i64>(at + 7)? != 0,
            sid: r.get(at + 8)?,
        })
    }
}

/// Files left to refresh at or above which a batch reads the whole fingerprint table at once.
const BULK_MIN_FILES: usize = 64;

/// A given file's name in `files`: its path (lossy) and key (empty for none).
type Name<'a> = (Cow<'a, str>, &'a str);

/// Fingerprints read in bulk when a batch begins, matched to the given files while the table is
/// scanned (names borrowed from the rows, nothing allocated per file): each file's row waits in
/// its slot until the file is handled.
#[derive(Default)]
struct FileRows {
    /// The row of each given file, by its position in the refresh's `files` (taken when the
    /// file is handled; a file listed twice has a slot at its first position only).
    slots: Vec<Option<FileRow>>,
    /// Live rows of indexed sources that are not among the given files: (path, provider, row).
    others: Vec<(String, String, FileRow)>,
    /// Whether every row of the table was read (the others are then exactly the live indexed
    /// sources not given).
    all: bool,
}

/// A text column as `&str` without copying it.
pub(crate) fn text_ref<'r>(r: &'r rusqlite::Row<'_>, i: usize) -> rusqlite::Result<&'r str> {
    r.get_ref(i)?.as_str().map_err(|e| {
        rusqlite::Error::FromSqlConversionFailure(i, rusqlite::types::Type::Text, Box::new(e))
    })
}

impl FileRows {
    /// Every row of `files`, matched to `names[from..]`.
    fn read_all(tx: &Connection, names: &[Name<'_>], from: usize) -> Result<FileRows> {
        let given = names.len().saturating_sub(from);
        let mut plain: HashMap<&str, usize> = HashMap::with_capacity(given);
        let mut keyed: HashMap<(&str, &str), usize> = HashMap::new();
        for (i, (path, key)) in names.iter().enumerate().skip(from) {
            if key.is_empty() {
                plain.entry(path.as_ref()).or_insert(i);
            } else {
                keyed.entry((path.as_ref(), *key)).or_insert(i);
            }
        }
        let mut out = FileRows {
            slots: Vec::new(),
            others: Vec::new(),
            all: true,
        };
        out.slots.resize_with(names.len(), || None);
        let mut st = tx
            .prepare(&format!(
                "SELECT path, key, provider, {FILE_COLUMNS} FROM files"
            ))
            .map_err(StoreError::db("read file fingerprints"))?;
        let mut rows = st
            .query([])
            .map_err(StoreError::db("read file fingerprints"))?;
        while let Some(r) = rows
            .next()
            .map_err(StoreError::db("read file fingerprints"))?
        {
            let mut read = || -> rusqlite::Result<()> {
                let (path, key) = (text_ref(r, 0)?, text_ref(r, 1)?);
                let at = if key.is_empty() {
                    plain.get(path)
                } else {
                    keyed.get(&(path, key))
                };
                let row = FileRow::from_sql(r, 3)?;
                match at {
                    Some(&i) => out.slots[i] = Some(row),
                    None if row.live => {
                        out.others
                            .push((path.to_owned(), text_ref(r, 2)?.to_owned(), row));
                    }
                    None => {}
                }
                Ok(())
            };
            read().map_err(StoreError::db("read file fingerprints"))?;
        }
        Ok(out)
    }

    /// Takes the row of the file at position `at` out, if read.
    fn take(&mut self, at: usize) -> Option<FileRow> {
        self.slots.get_mut(at).and_then(Option::take)
    }
}

enum ParseOutcome {
    Done { events: u64 },
    ResumeRefused,
}

impl Store {
    /// Brings the index up to date with `files` (from [`scry_source::Source::discover`] /
    /// `scry_sources::discover_all`, or one file for a single session), using `sources` (the
    /// registry) to parse. `progress` is called after each file; returning `false` stops the
    /// refresh with [`StoreError::Aborted`] (what was done so far is kept). One failing source
    /// never stops the others: it is listed in [`RefreshReport::failed`].
    ///
    /// Writes are grouped: each session is written inside its own savepoint, and the enclosing
    /// transaction commits every [`BATCH_EVENTS`] events or [`BATCH_TIME`] — a reader sees the
    /// old or the new version of every session, never part of one.
    pub fn refresh(
        &mut self,
        sources: &[Box<dyn Source>],
        files: &[SourceFile],
        opts: &RefreshOptions,
        progress: &mut dyn FnMut(&Progress<'_>) -> bool,
    ) -> Result<RefreshReport> {
        let mut report = RefreshReport {
            files: files.len(),
            ..Default::default()
        };
        let limits = Limits {
            time: BATCH_TIME,
            blocks: opts.commit_blocks.unwrap_or(u64::MAX).max(1),
        };
        poll_when_busy(&self.conn, self.busy_wait.get())?;
        let sigs: Vec<i64> = files.iter().map(related_signature).collect();
        let conn = &self.conn;
        // Nothing written since a refresh of exactly these files: nothing to do ([`skip`]).
        let digest = (!opts.force && !opts.keep_unseen && files.len() >= BULK_MIN_FILES)
            .then(|| skip::digest(files, &sigs, opts));
        if digest.is_some_and(|d| skip::unchanged(conn, d)) {
            report.unchanged = files.len();
            for (i, file) in files.iter().enumerate() {
                let p = Progress {
                    done: i + 1,
                    total: files.len(),
                    file,
                    action: Action::Unchanged,
                };
                if !progress(&p) {
                    return Err(StoreError::Aborted);
                }
            }
            return Ok(report);
        }
        let names: Vec<Name<'_>> = files
            .iter()
            .map(|f| (f.path.to_string_lossy(), f.key.as_deref().unwrap_or("")))
            .collect();
        let mut unmapped = None;
        std::thread::scope(|scope| {
            let mut pipe: Option<pipe::Prefetch> = None;
            let mut i = 0;
            loop {
                if i > 0 {
                    std::thread::sleep(YIELD);
                }
                if pipe.is_some() && unmapped.is_none() {
                    unmapped = Some(Unmapped::new(conn)?);
                }
                let guard = TxGuard::begin(conn)?;
                // One scan of the table pays for many files; one file (`show`) looks itself up.
                let first = i == 0;
                let rows = if files.len() - i >= BULK_MIN_FILES {
                    FileRows::read_all(conn, &names, i)?
                } else {
                    FileRows::default()
                };
                if first {
                    pipe = pipe::start(scope, sources, files, &rows, opts);
                }
                let mut batch = Batch {
                    tx: conn,
                    rows,
                    limits,
                    since: Instant::now(),
                    restarted: false,
                    pipe: pipe.as_mut(),
                    backfill: crate::schema::missing_discovery_ids(conn)?,
                };
                let events_at_begin = report.events_written;
                let mut aborted = false;
                while i < files.len() {
                    let action = batch.refresh_file(
                        sources,
                        &files[i],
                        i,
                        (&names[i], sigs[i]),
                        opts,
                        &mut report,
                    )?;
                    let file = &files[i];
                    i += 1;
                    let p = Progress {
                        done: i,
                        total: files.len(),
                        file,
                        action,
                    };
                    if !progress(&p) {
                        aborted = true;
                        break;
                    }
                    if report.events_written - events_at_begin >= BATCH_EVENTS
                        || batch.since.elapsed() >= BATCH_TIME
                        || batch.restarted
                    {
                        break;
                    }
                }
                let done = i >= files.len() && !aborted;
                if done && !opts.keep_unseen {
                    if first && batch.rows.all && !batch.restarted {
                        // One transaction saw every file and every row: the other rows are
                        // exactly the indexed sources not given.
                        let others = std::mem::take(&mut batch.rows.others);
                        let kept = batch.mark_unseen(others, opts, &mut report)?;
                        // Every indexed source was checked and none is left live unseen:
                        // the same files next time find nothing to do.
                        if let Some(d) = digest.filter(|_| kept == 0) {
                            skip::store(conn, d)?;
                        }
                    } else {
                        let seen: HashSet<(&str, &str)> =
                            names.iter().map(|(p, k)| (p.as_ref(), *k)).collect();
                        batch.mark_vanished(&seen, opts, &mut report)?;
                    }
                }
                guard.commit()?;
                if aborted {
                    return Err(StoreError::Aborted);
                }
                if done {
                    return Ok(());
                }
            }
        })?;
        drop(unmapped);
        collect_garbage(&self.conn, limits)?;
        Ok(report)
    }
}
impl Store {
    /// Removes every session whose source is gone (`live: false`) and its file record
    /// (`index --prune`). Returns how many sessions were removed.
    pub fn prune(&mut self) -> Result<usize> {
        poll_when_busy(&self.conn, self.busy_wait.get())?;
        let guard = TxGuard::begin(&self.conn)?;
        let tx = &self.conn;
        type Vanished = (i64, Option<i64>, String, String);
        let fids: Vec<Vanished> = {
            let mut st = tx
                .prepare("SELECT fid, sid, path, key FROM files WHERE live = 0")
                .map_err(StoreError::db("list vanished"))?;
            let rows = st
                .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
                .map_err(StoreError::db("list vanished"))?;
            rows.collect::<rusqlite::Result<_>>()
                .map_err(StoreError::db("list vanished"))?
        };
        let mut removed = 0;
        for (fid, sid, path, key) in fids {
            crate::revision::drop_all(tx, &path, &key)?;
            if let Some(sid) = sid {
                let had: i64 = tx
                    .query_row("SELECT count(*) FROM sessions WHERE sid = ?1", [sid], |r| {
                        r.get(0)
                    })
                    .map_err(StoreError::db("count session"))?;
                retire(tx, sid)?;
                crate::archive::mark_back(tx, Some(sid))?;
                removed += usize::try_from(had).unwrap_or(0);
            }
            tx.execute("DELETE FROM files WHERE fid = ?1", [fid])
                .map_err(StoreError::db("delete file"))?;
        }
        guard.commit()?;
        crate::refresh::collect_removed(&self.conn)?;
        Ok(removed)
    }
}

impl Batch<'_> {
    /// The fingerprint of (`path`, `key`), the file at position `at`: from the rows read when
    /// the batch began, or, for a source written since (listed twice, or inserted by this
    /// batch), from the table.
    fn file_row(&mut self, at: usize, path: &str, key: &str) -> Result<Option<FileRow>> {
        if let Some(row) = self.rows.take(at) {
            return Ok(Some(row));
        }
        let mut st = self
            .tx
            .prepare_cached(&format!(
                "SELECT {FILE_COLUMNS} FROM files WHERE path = ?1 AND key = ?2"
            ))
            .map_err(StoreError::db("read file fingerprint"))?;
        st.query_row(params![path, key], |r| FileRow::from_sql(r, 0))
            .optional()
            .map_err(StoreError::db("read file fingerprint"))
    }

    /// The stored resume point of `fid`, if any and readable (read only for a changed file:
    /// it can be megabytes).
    fn resume_point(&self, fid: i64) -> Result<Option<ResumePoint>> {
        let mut st = self
            .tx
            .prepare_cached("SELECT resume FROM files WHERE fid = ?1")
            .map_err(StoreError::db("read resume point"))?;
        let json: Option<Option<String>> = st
            .query_row([fid], |r| r.get(0))
            .optional()
            .map_err(StoreError::db("read resume point"))?;
        Ok(json.flatten().and_then(|s| serde_json::from_str(&s).ok()))
    }

    fn refresh_file(
        &mut self,
        sources: &[Box<dyn Source>],
        file: &SourceFile,
        at: usize,
        (name, related_sig): (&Name<'_>, i64),
        opts: &RefreshOptions,
        report: &mut RefreshReport,
    ) -> Result<Action> {
        let (path, key) = (name.0.as_ref(), name.1);
        // Parsed ahead: used for a whole parse, read and dropped otherwise.
        let pieces = self.pipe.as_deref_mut().and_then(|p| p.take(at));
        let Some(source) = sources.iter().find(|s| s.id() == file.provider) else {
            report.failed.push(FileError {
                path: file.path.clone(),
                key: file.key.clone(),
                message: format!("no provider '{}' registered", file.provider),
            });
            return Ok(Action::Failed);
        };
        let source = source.as_ref();
        let row = self.file_row(at, path, key)?;
        let size = i64::try_from(file.size).unwrap_or(i64::MAX);
        let same_base = row.as_ref().is_some_and(|r| {
            !opts.force && r.parser_version == PARSER_VERSION && r.related_sig == related_sig
        });
        if let Some(r) = row.as_ref().filter(|_| same_base) {
            if r.size == size && r.mtime_ns == file.mtime_ns {
                self.revive(r, file, report)?;
                self.backfill_id(r, file)?;
                report.unchanged += 1;
                return Ok(Action::Unchanged);
            }
        }
        let head = head_hash(&file.path, &mut report.bytes_hashed);
        let resume = match &row {
            Some(r) => self.resume_point(r.fid)?,
            None => None,
        };
        // Whether the bytes before the last resume point are unchanged (computed once).
        let prefix_ok = match (row.as_ref().filter(|_| same_base), &resume) {
            (
                Some(FileRow {
                    prefix_hash: Some(ph),
                    ..
                }),
                Some(rp),
            ) => Some(prefix_hash(&file.path, rp.offset, &mut report.bytes_hashed) == Some(*ph)),
            _ => None,
        };
        if let Some(r) = row.as_ref().filter(|_| same_base) {
            if r.size == size && r.head_hash == head && prefix_ok != Some(false) {
                self.tx
                    .execute(
                        "UPDATE files SET mtime_ns = ?1 WHERE fid = ?2",
                        params![file.mtime_ns, r.fid],
                    )
                    .map_err(StoreError::db("update fingerprint"))?;
                self.revive(r, file, report)?;
                self.backfill_id(r, file)?;
                report.unchanged += 1;
                report.hashed += 1;
                return Ok(Action::Unchanged);
            }
        }
        let fp = (size, file.mtime_ns, head, related_sig);
        // Append-only growth: continue from the last safe point when its prefix is intact.
        if let Some(r) = row.as_ref().filter(|_| same_base) {
            if let (Some(rp), Some(true), true) = (&resume, prefix_ok, source.resume_support()) {
                // A resume appends in one transaction: only for a bounded amount of new bytes.
                let new_bytes = u64::try_from(size).unwrap_or(0).saturating_sub(rp.offset);
                if size >= r.size && new_bytes <= RESUME_MAX_BYTES {
                    match self.parse_file(source, file, Some(r), Some(rp), fp, None, report)? {
                        Ok(ParseOutcome::Done { events }) => {
                            report.resumed += 1;
                            report.events_written += events;
                            return Ok(Action::Resumed);
                        }
                        Ok(ParseOutcome::ResumeRefused) | Err(_) => {}
                    }
                }
            }
        }
        match self.parse_file(source, file, row.as_ref(), None, fp, pieces, report)? {
            Ok(ParseOutcome::Done { events }) => {
                report.parsed += 1;
                report.events_written += events;
                Ok(Action::Parsed)
            }
            Ok(ParseOutcome::ResumeRefused) => Ok(Action::Failed),
            Err(message) => {
                self.record_failure(file, path, key, row.as_ref().map(|r| r.fid), fp, &message)?;
                report.failed.push(FileError {
                    path: file.path.clone(),
                    key: file.key.clone(),
                    message,
                });
                Ok(Action::Failed)
            }
        }
    }

    /// Marks an archived source live again when its file is back. A source given whose file
    /// is gone (an archived session named by id) stays archived: its fingerprint is the stored
    /// one, not a sign of the file.
    fn revive(&self, r: &FileRow, file: &SourceFile, report: &mut RefreshReport) -> Result<()> {
        if !r.live && file.path.exists() {
            self.tx
                .execute("UPDATE files SET live = 1 WHERE fid = ?1", [r.fid])
                .map_err(StoreError::db("revive file"))?;
            let n = self
                .tx
                .execute("UPDATE sessions SET live = 1 WHERE sid = ?1", [r.sid])
                .map_err(StoreError::db("revive session"))?;
            crate::archive::mark_back(self.tx, r.sid)?;
            report.revived += n;
        }
        Ok(())
    }

    /// Stores discovery's id of an unchanged source whose row has none yet (see
    /// [`Batch::backfill`]; sources written by this build store theirs with the row).
    fn backfill_id(&self, r: &FileRow, file: &SourceFile) -> Result<()> {
        if self.backfill {
            self.tx
                .prepare_cached("UPDATE files SET did = ?1 WHERE fid = ?2 AND did IS NULL")
                .and_then(|mut st| st.execute(params![file.id, r.fid]))
                .map_err(StoreError::db("store discovery id"))?;
        }
        Ok(())
    }

    /// Remembers a failed parse with the file's fingerprint, so an unchanged broken source is not
    /// re-parsed on every refresh (a poison source must not loop). A previously indexed session
    /// of that file stays as it was.
    fn record_failure(
        &mut self,
        file: &SourceFile,
        path: &str,
        key: &str,
        fid: Option<i64>,
        fp: (i64, i64, i64, i64),
        message: &str,
    ) -> Result<()> {
        match fid {
            Some(fid) => self.tx.execute(
                "UPDATE files SET size = ?1, mtime_ns = ?2, head_hash = ?3, related_sig = ?4,
                     parser_version = ?5, error = ?6, did = ?8 WHERE fid = ?7",
                params![
                    fp.0,
                    fp.1,
                    fp.2,
                    fp.3,
                    PARSER_VERSION,
                    message,
                    fid,
                    file.id
                ],
            ),
            None => self.tx.execute(
                "INSERT INTO files(path, key, provider, size, mtime_ns, head_hash, related_sig,
                                   parser_version, error, did)
                 VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
                params![
                    path,
                    key,
                    file.provider.as_str(),
                    fp.0,
                    fp.1,
                    fp.2,
                    fp.3,
                    PARSER_VERSION,
                    message,
                    file.id
                ],
            ),
        }
        .map_err(StoreError::db("record parse failure"))?;
        Ok(())
    }

    /// [`Batch::mark_vanished`] given the live rows of the sources not given (`others`: read at
    /// the start of the one transaction that handled every file).
    fn mark_unseen(
        &mut self,
        others: Vec<(String, String, FileRow)>,
        opts: &RefreshOptions,
        report: &mut RefreshReport,
    ) -> Result<usize> {
        let mut kept = 0;
        for (path, provider, row) in others {
            if !self.vanish_unless_kept(row.fid, &path, &provider, row.sid, opts, report)? {
                kept += 1;
            }
        }
        Ok(kept)
    }

    /// Marks a source not given to this refresh (and its session) `live: false` when the
    /// refresh was complete for its provider, or when its file is gone.
    fn vanish_unless_kept(
        &mut self,
        fid: i64,
        path: &str,
        provider: &str,
        sid: Option<i64>,
        opts: &RefreshOptions,
        report: &mut RefreshReport,
    ) -> Result<bool> {
        let complete =
            opts.complete_all || opts.complete_for.iter().any(|p| p.as_str() == provider);
        let gone = complete || !Path::new(path).exists();
        if gone {
            self.tx
                .execute("UPDATE files SET live = 0 WHERE fid = ?1", [fid])
                .map_err(StoreError::db("mark vanished"))?;
            report.vanished += self
                .tx
                .execute("UPDATE sessions SET live = 0 WHERE sid = ?1", [sid])
                .map_err(StoreError::db("mark vanished"))?;
            crate::archive::mark_gone(self.tx, sid)?;
        }
        Ok(gone)
    }

    fn mark_vanished(
        &mut self,
        seen: &HashSet<(&str, &str)>,
        opts: &RefreshOptions,
        report: &mut RefreshReport,
    ) -> Result<()> {
        type Live = (i64, String, String, String, Option<i64>);
        let rows: Vec<Live> = {
            let mut st = self
                .tx
                .prepare("SELECT fid, path, key, provider, sid FROM files WHERE live = 1")
                .map_err(StoreError::db("list files"))?;
            let rows = st
                .query_map([], |r| {
                    Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
                })
                .map_err(StoreError::db("list files"))?;
            rows.collect::<rusqlite::Result<_>>()
                .map_err(StoreError::db("list files"))?
        };
        for (fid, path, key, provider, sid) in rows {
            if seen.contains(&(path.as_str(), key.as_str())) {
                continue;
            }
            self.vanish_unless_kept(fid, &path, &provider, sid, opts, report)?;
        }
        Ok(())
    }
}
