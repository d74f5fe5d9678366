//! Following one session as it is written (issue 16): `scry events <id> --follow` and the
//! HTTP stream `GET /v1/sessions/{id}/stream`.
//!
//! [`follow()`] answers a first page, the last one (`tail -f`: the last `limit` events that
//! pass) unless a cursor or `--seq` says where to start, and hands back a [`Follow`]
//! that remembers how many of the session's events it has seen. [`Follow::poll`] is cheap when
//! nothing changed (a stat of the source and of a SQLite source's `-wal`); when the source
//! changed it reads only what was appended:
//!
//! - with the index: the one file is refreshed through the store's partial refresh (which
//!   continues an append-only file from its last resume point) and the new events are read
//!   back by seq;
//! - without it: the provider continues its parse from the last resume point the previous
//!   read offered ([`scry_source::Source::parse_into_from`]); a provider that cannot resume,
//!   or a read without a point, is parsed whole and the events already seen are skipped.
//!
//! Events are numbered by position (`seq`), so "new" means a seq at or past the count seen:
//! nothing is delivered twice and nothing is skipped. A line still being written is not an
//! event yet (the line readers hold back an unterminated last line that does not parse), so
//! it arrives once its newline does. A source that shrank, or whose bytes before the last read
//! changed (checked on its head and on the window before the old end, for providers whose
//! files are append-only), was truncated or rewritten: the update carries a one-line notice,
//! the session is read again in full, and only events past the count already seen are
//! delivered (a rewrite to fewer events delivers nothing; what is written after it is new).
//! A source that disappeared ends the follow ([`Update::gone`]).

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use scry_model::{Event, Warning};
use scry_source::{file_stat, EventSink, ResumePoint};
use xxhash_rust::xxh3::Xxh3;

use super::SurfaceScan;
use super::{page_of, prepare, surface, EventPage, EventQuery, EventRow, Filters, PageRequest};
use crate::error::QueryResult;
use crate::session_read::Opened;
use crate::Context;

/// Bytes of the head, and of the window before the old end, that prove a file was appended to
/// rather than rewritten.
const WINDOW: u64 = 4096;

/// Events read back from the index at once.
const CHUNK: u32 = 2000;

/// The first page (the last page of `events`, or the page of `page`'s cursor / `q`'s `--seq`)
/// and the handle that follows the session from there.
pub fn follow(
    ctx: &Context,
    id: &str,
    q: &EventQuery,
    page: &PageRequest,
) -> QueryResult<(EventPage, Follow)> {
    let (filters, opened) = prepare(ctx, id, q, page)?;
    let stat = change_stamp(&opened.file.path);
    // `tail -f`: the last page first, unless a cursor or `--seq` says where to start.
    let tail = page.cursor.is_none() && q.seq.is_none();
    let computed = page_of(&opened, &filters, page, opened.index.is_none(), tail)?;
    let seen = computed.scan.total;
    let size = stat.0;
    let follow = Follow {
        sig: signature(&opened.file.path, size),
        opened,
        filters,
        scan: computed.scan,
        seen,
        stat,
        size,
        resume: computed.resume,
        progress: ctx.progress.clone(),
    };
    Ok((computed.page, follow))
}

/// A [`Follow`] of session `id` from its current end, without a first page: a stream that
/// only wants what is written from now on. When the index holds the session this costs its
/// event count (no read of the events; compactions already in the session shadow only events
/// before them, so the new events' surfaces do not need them); otherwise it is [`follow()`]
/// with a one-row page (a direct read gives the resume point to continue from).
pub fn follow_live(ctx: &Context, id: &str, q: &EventQuery) -> QueryResult<Follow> {
    let page = PageRequest {
        limit: 1,
        cursor: None,
    };
    let (filters, opened) = prepare(ctx, id, q, &page)?;
    let counted = opened.reads().and_then(|store| {
        crate::indexed::lookup_uri(store, &opened.file).ok()??;
        store.event_count((&opened.file).into()).ok()
    });
    let Some(seen) = counted else {
        return Ok(follow(ctx, id, q, &page)?.1);
    };
    let stat = change_stamp(&opened.file.path);
    let mut scan = SurfaceScan::default();
    scan.total = seen;
    Ok(Follow {
        sig: signature(&opened.file.path, stat.0),
        opened,
        filters,
        scan,
        seen,
        stat,
        size: stat.0,
        resume: None,
        progress: ctx.progress.clone(),
    })
}

/// A session being followed (see the module documentation).
pub struct Follow {
    opened: Opened,
    filters: Filters,
    /// Surfaces folded over every event seen.
    scan: SurfaceScan,
    /// Events of the session seen so far: the seq of the next new one.
    seen: u32,
    /// [`change_stamp`] at the last read.
    stat: (u64, i64, u64, i64),
    /// Size of the source at the last read.
    size: u64,
    /// [`signature`] of the source at the last read.
    sig: Option<u64>,
    /// The last resume point of a direct read.
    resume: Option<ResumePoint>,
    /// Where the refreshes of the followed source report their progress.
    progress: crate::progress::Reporter,
}

/// What changed since the last poll.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Update {
    /// One line when the source was truncated or rewritten (it was read again in full).
    pub notice: Option<String>,
    /// The new events that pass the filters, in seq order.
    pub events: Vec<EventRow>,
    /// Events in the session now.
    pub session_events: u32,
    /// The source is gone: following ends.
    pub gone: bool,
}

/// What a follower of one session is told, as JSON: one shape for `events --follow --json`'s
/// notice lines and the session stream's `ready` / `notice` / `gone` / `events` messages
/// (issue 18). Absent fields are left out: the stream names the `session`, the CLI says
/// whether the source is `gone`.
#[derive(Debug, Default, serde::Serialize)]
pub struct FollowJson<'a> {
    /// `provider:id` (the stream's messages).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session: Option<&'a str>,
    /// The update's notice ([`Update::notice`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub notice: Option<&'a str>,
    /// The source is gone (the CLI's notice line).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gone: Option<bool>,
    /// The new events ([`Update::events`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub events: Option<&'a [EventRow]>,
    /// Events in the session now.
    pub session_events: u32,
}

impl FollowJson<'_> {
    /// As a JSON value (keys sorted, as every answer's).
    pub fn to_value(&self) -> serde_json::Value {
        serde_json::to_value(self).unwrap_or_default()
    }
}

impl Follow {
    /// `provider:id` of the session.
    pub fn uri(&self) -> String {
        format!("{}:{}", self.opened.file.provider, self.opened.file.id)
    }

    /// The session's source file.
    pub fn path(&self) -> &Path {
        &self.opened.file.path
    }

    /// Events of the session seen so far.
    pub fn seen(&self) -> u32 {
        self.seen
    }

    /// Whether the index serves this follow (else the source is parsed directly).
    pub fn indexed(&self) -> bool {
        self.opened.index.is_some()
    }

    /// Checks the source; `None` when it did not change since the last poll.
    pub fn poll(&mut self) -> QueryResult<Option<Update>> {
        let path = self.opened.file.path.clone();
        if !path.exists() {
            return Ok(Some(Update {
                notice: Some(format!("{} was deleted", path.display())),
                session_events: self.seen,
                gone: true,
                ..Update::default()
            }));
        }
        let stat = change_stamp(&path);
        if stat == self.stat {
            return Ok(None);
        }
        self.stat = stat;
        let (size, mtime) = file_stat(&path);
        self.opened.file.size = size;
        self.opened.file.mtime_ns = mtime;
        let append_only = self
            .opened
            .catalog
            .source(self.opened.file.provider)?
            .resume_support();
        let notice = if size < self.size {
            Some(format!(
                "{} was truncated ({} → {} bytes); read again",
                path.display(),
                self.size,
                size
            ))
        } else if append_only && signature(&path, self.size) != self.sig {
            Some(format!("{} was rewritten; read again", path.display()))
        } else {
            None
        };
        let whole = notice.is_some();
        if whole {
            self.resume = None;
            self.scan = SurfaceScan::default();
        }
        let from = self.seen;
        let mut sink = Tail {
            filters: &self.filters,
            scan: &mut self.scan,
            from,
            rebuild: whole,
            rows: Vec::new(),
            total: 0,
            keep_resume: false,
            resume: None,
        };
        if let Some(store) = self.opened.index.as_mut().filter(|_| !whole) {
            let file = self.opened.file.clone();
            // A read-only store (not the SQLite index) is read as it is.
            let refreshed = store.local_mut().is_none_or(|store| {
                crate::indexed::refresh_now(
                    &self.progress,
                    store,
                    self.opened.catalog.sources(),
                    std::slice::from_ref(&file),
                )
            });
            match refreshed.then(|| read_new(&**store, &file, from, &mut sink)) {
                Some(Ok(())) => {}
                // The index could not answer: read the source directly from now on.
                _ => {
                    self.opened.index = None;
                    sink.rows.clear();
                    sink.total = 0;
                    direct(&self.opened, None, &mut sink)?;
                }
            }
        } else if whole && self.opened.index.is_some() {
            let file = self.opened.file.clone();
            if let Some(store) = self.opened.index.as_mut().and_then(|s| s.local_mut()) {
                let _ = crate::indexed::refresh_now(
                    &self.progress,
                    store,
                    self.opened.catalog.sources(),
                    std::slice::from_ref(&file),
                );
            }
            self.opened.stream(&mut sink)?;
        } else {
            sink.keep_resume = true;
            let rp = if append_only {
                self.resume.clone()
            } else {
                None
            };
            direct(&self.opened, rp.as_ref(), &mut sink)?;
        }
        let total = sink.total;
        let rows = std::mem::take(&mut sink.rows);
        if let Some(rp) = sink.resume.take() {
            self.resume = Some(rp);
        }
        let seen = if whole { total } else { total.max(from) };
        self.seen = seen;
        self.size = size;
        self.sig = signature(&path, size);
        Ok(Some(Update {
            notice,
            events: rows,
            session_events: seen,
            gone: false,
        }))
    }
}

/// Reads the events of `file` from seq `from` on out of the (refreshed) index into `sink`;
/// `Err` when the index does not hold the session or cannot be read.
fn read_new(
    store: &dyn scry_store::SessionIndex,
    file: &scry_source::SourceFile,
    from: u32,
    sink: &mut Tail<'_>,
) -> Result<(), ()> {
    if crate::indexed::lookup_uri(store, file)
        .map_err(|_| ())?
        .is_none()
    {
        return Err(());
    }
    let n = store.event_count(file.into()).map_err(|_| ())?;
    sink.total = sink.total.max(n);
    let mut a = from;
    while a < n {
        let b = a.saturating_add(CHUNK - 1).min(n - 1);
        store
            .each_event(file.into(), a..=b, &mut |e| sink.event(e))
            .map_err(|_| ())?;
        a = b + 1;
    }
    Ok(())
}

/// Parses the source directly into `sink`: from `rp` when given (falling back to a whole parse
/// when the provider refuses), else whole.
fn direct(opened: &Opened, rp: Option<&ResumePoint>, sink: &mut Tail<'_>) -> QueryResult<()> {
    if let Some(rp) = rp {
        let source = opened.catalog.source(opened.file.provider)?;
        if scry_source::guard::parse_from(source, &opened.file, rp, sink).is_ok() {
            return Ok(());
        }
        sink.rows.clear();
        sink.total = 0;
    }
    opened.stream(sink).map(|_| ())
}

/// The sink of a poll: folds surfaces over the events not seen yet (every event when the scan
/// is rebuilt) and keeps the rows of those that pass the filters.
struct Tail<'a> {
    filters: &'a Filters,
    scan: &'a mut SurfaceScan,
    /// Events below this seq were seen before.
    from: u32,
    /// Fold every event (the session is read again from its start).
    rebuild: bool,
    rows: Vec<EventRow>,
    /// Events in the session as far as this read went.
    total: u32,
    keep_resume: bool,
    resume: Option<ResumePoint>,
}

impl EventSink for Tail<'_> {
    fn event(&mut self, e: Event) {
        self.total = self.total.max(e.seq.saturating_add(1));
        if e.seq < self.from {
            if self.rebuild {
                self.scan.add(&e);
            }
            return;
        }
        self.scan.add(&e);
        if !self.filters.accepts_fields(&e) {
            return;
        }
        let s = surface::surface_of(self.scan.shadow_end(), e.seq, e.surface);
        if !self.filters.accepts_surface(s) {
            return;
        }
        let m = match &self.filters.text {
            Some(t) => match t.find(&e) {
                Some(m) => Some(m),
                None => return,
            },
            None => None,
        };
        self.rows.push(EventRow::of(&e, s, m));
    }
    fn warning(&mut self, _: Warning) {}
    fn wants_resume_points(&self) -> bool {
        self.keep_resume
    }
    fn resume_point(&mut self, point: ResumePoint) {
        self.resume = Some(point);
    }
}

/// What tells that a source changed without opening it: size and mtime of the file and of its
/// SQLite write-ahead log (a WAL-mode store changes there first).
fn change_stamp(path: &Path) -> (u64, i64, u64, i64) {
    let (size, mtime) = file_stat(path);
    let mut wal = path.as_os_str().to_owned();
    wal.push("-wal");
    let (wal_size, wal_mtime) = file_stat(Path::new(&wal));
    (size, mtime, wal_size, wal_mtime)
}

/// xxh3 of the first [`WINDOW`] bytes of `path` and of the [`WINDOW`] bytes before `len`
/// (and of `len`): equal before and after a change when the change only appended.
fn signature(path: &Path, len: u64) -> Option<u64> {
    let mut f = File::open(path).ok()?;
    let mut h = Xxh3::new();
    h.update(&len.to_le_bytes());
    let head = len.min(WINDOW);
    let tail_start = len.saturating_sub(WINDOW).max(head);
    for (a, b) in [(0, head), (tail_start, len)] {
        f.seek(SeekFrom::Start(a)).ok()?;
        let mut buf = vec![0u8; usize::try_from(b - a).ok()?];
        f.read_exact(&mut buf).ok()?;
        h.update(&buf);
    }
    Some(h.digest())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signature_sees_rewrites_not_appends() {
        let tmp = tempfile::tempdir().unwrap();
        let p = tmp.path().join("s.jsonl");
        let mut body: Vec<u8> = (0..10_000u32).map(|i| (i % 251) as u8).collect();
        std::fs::write(&p, &body).unwrap();
        let before = signature(&p, body.len() as u64);
        assert!(before.is_some());
        body.extend_from_slice(b"appended\n");
        std::fs::write(&p, &body).unwrap();
        assert_eq!(signature(&p, 10_000), before);
        body[5_000] ^= 1;
        std::fs::write(&p, &body).unwrap();
        assert_eq!(signature(&p, 10_000), before, "the middle is not read");
        body[9_999] ^= 1;
        std::fs::write(&p, &body).unwrap();
        assert_ne!(signature(&p, 10_000), before);
        assert_eq!(signature(&p, 20_000), None, "shorter than the old end");
    }
}
