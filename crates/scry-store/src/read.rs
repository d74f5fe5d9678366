//! Reading sessions back (S-I4: deep-equal to the direct parse, except `live` / `persisted`,
//! which the index owns), listing headers with filters (S-Q4) and event windows.
//!
//! A stored session is named by a [`SessionRef`]: its uri, or the source it was indexed from.
//! Two sources can hold the same session id (a copied project folder); each is a session of its
//! own, reachable by its source, and a uri they share is ambiguous.

use std::ops::RangeInclusive;
use std::path::Path;

use std::collections::HashSet;

use rusqlite::{params, params_from_iter, OptionalExtension};
use scry_model::{Event, Header, ProviderId, Session, SessionKind, Timestamp, Warning};

use crate::block::{Decoded, Record};
use crate::codec::{event_from, event_id, event_id_range};
use crate::error::{Result, StoreError};
use crate::filter::SessionFilter;
use crate::Store;

/// The kind a `sessions.kind` column holds (written from [`SessionKind::as_str`]).
pub(crate) fn kind_of(s: &str) -> Option<SessionKind> {
    serde_json::from_value(serde_json::Value::String(s.to_string())).ok()
}

pub(crate) fn decode_header(uri: &str, json: &str, live: bool) -> Result<Header> {
    let mut h: Header = serde_json::from_str(json).map_err(|e| StoreError::CorruptSession {
        uri: uri.to_string(),
        message: format!("header does not decode: {e}"),
    })?;
    h.live = live;
    h.persisted = true;
    Ok(h)
}

/// Which stored session a read means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SessionRef<'a> {
    /// By uri (`provider:id`); [`StoreError::AmbiguousSession`] when several sources hold it.
    Uri(&'a str),
    /// The session indexed from this source (`key` inside a multi-session store).
    Source {
        /// The source file.
        path: &'a Path,
        /// Its key inside a multi-session store.
        key: Option<&'a str>,
    },
    /// Earlier revision `n` (1 = the most recent) of the session indexed from this source
    /// (issue 20): what the index held before the source was rewritten shorter or changed.
    Revision {
        /// The source file.
        path: &'a Path,
        /// Its key inside a multi-session store.
        key: Option<&'a str>,
        /// 1 = the most recent earlier revision, 2 = the one before, …
        n: u32,
    },
}

impl<'a> From<&'a str> for SessionRef<'a> {
    fn from(uri: &'a str) -> Self {
        SessionRef::Uri(uri)
    }
}

impl<'a> From<&'a String> for SessionRef<'a> {
    fn from(uri: &'a String) -> Self {
        SessionRef::Uri(uri)
    }
}

impl<'a> From<&'a scry_source::SourceFile> for SessionRef<'a> {
    fn from(file: &'a scry_source::SourceFile) -> Self {
        SessionRef::Source {
            path: &file.path,
            key: file.key.as_deref(),
        }
    }
}

impl std::fmt::Display for SessionRef<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SessionRef::Uri(uri) => f.write_str(uri),
            SessionRef::Source { path, key: None } => write!(f, "{}", path.display()),
            SessionRef::Source { path, key: Some(k) } => write!(f, "{} [{k}]", path.display()),
            SessionRef::Revision { path, key, n } => {
                write!(f, "revision {n} of {}", path.display())?;
                match key {
                    Some(k) => write!(f, " [{k}]"),
                    None => Ok(()),
                }
            }
        }
    }
}

/// What `list` sorts, filters and folds by for one indexed source, read from the columns of
/// `sessions` (never from the header JSON): see [`Store::list_rows`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListRow {
    /// The source file.
    pub path: String,
    /// Its key inside a multi-session store (`""` for a single-session file).
    pub key: String,
    /// The stored session's row id (for [`Store::header_by_sid`]).
    pub sid: i64,
    /// The provider.
    pub provider: ProviderId,
    /// The provider's session id.
    pub id: String,
    /// `provider:id`.
    pub uri: String,
    /// The working directory.
    pub cwd: Option<String>,
    /// Last update.
    pub updated: Option<Timestamp>,
    /// The session's kind.
    pub kind: SessionKind,
    /// The parent session's id, as the header says.
    pub parent: Option<String>,
}

impl Store {
    /// One [`ListRow`] per live source whose last parse succeeded (a source whose parse failed
    /// keeps its previous session indexed, but `list` parses it directly for its warnings), in
    /// no particular order. Reads the `files` fingerprint index, the partial index of failed
    /// files and the leading columns of each session row: no header JSON is read or decoded.
    /// Rows whose provider or kind this build does not know are left out (the caller parses
    /// those sources directly).
    pub fn list_rows(&self) -> Result<Vec<ListRow>> {
        let fail = |source| StoreError::Persistence {
            context: "list failed sources".into(),
            source,
        };
        let mut failed: HashSet<(String, String)> = HashSet::new();
        {
            let mut st = self
                .conn
                .prepare_cached("SELECT path, key FROM files WHERE error IS NOT NULL")
                .map_err(fail)?;
            let rows = st
                .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
                .map_err(fail)?;
            for row in rows {
                failed.insert(row.map_err(&fail)?);
            }
        }
        let fail = |source| StoreError::Persistence {
            context: "list sessions".into(),
            source,
        };
        let mut st = self
            .conn
            .prepare_cached(
                "SELECT f.path, f.key, s.sid, s.provider, s.native, s.uri, s.cwd, s.updated,
                        s.kind, s.parent
                 FROM files f JOIN sessions s ON s.sid = f.sid WHERE f.live = 1",
            )
            .map_err(StoreError::db("list sessions"))?;
        let mut rows = st.query([]).map_err(StoreError::db("list sessions"))?;
        let mut out = Vec::new();
        while let Some(r) = rows.next().map_err(&fail)? {
            let path: String = r.get(0).map_err(&fail)?;
            let key: String = r.get(1).map_err(&fail)?;
            if !failed.is_empty() && failed.contains(&(path.clone(), key.clone())) {
                continue;
            }
            let provider: String = r.get(3).map_err(&fail)?;
            let kind: String = r.get(8).map_err(&fail)?;
            let (Ok(provider), Some(kind)) = (provider.parse::<ProviderId>(), kind_of(&kind))
            else {
                continue;
            };
            let updated: Option<i64> = r.get(7).map_err(&fail)?;
            let updated = match updated {
                Some(ns) => match Timestamp::from_nanosecond(i128::from(ns)) {
                    Ok(t) => Some(t),
                    Err(_) => continue,
                },
                None => None,
            };
            out.push(ListRow {
                path,
                key,
                sid: r.get(2).map_err(&fail)?,
                provider,
                id: r.get(4).map_err(&fail)?,
                uri: r.get(5).map_err(&fail)?,
                cwd: r.get(6).map_err(&fail)?,
                updated,
                kind,
                parent: r.get(9).map_err(&fail)?,
            });
        }
        Ok(out)
    }

    /// The whole stored header of session `sid` (a [`ListRow::sid`]), as stored (`persisted`
    /// is `true`, `live` as last seen).
    pub fn header_by_sid(&self, sid: i64) -> Result<Header> {
        Ok(self.row_of(sid)?.0)
    }

    /// The sid, header and event count of the session `at` names.
    pub(crate) fn sid_of<'a>(&self, at: impl Into<SessionRef<'a>>) -> Result<(i64, Header, u32)> {
        let at = at.into();
        let row: Option<(i64, String, String, bool, u32)> = match at {
            SessionRef::Uri(uri) => {
                let mut st = self
                    .conn
                    .prepare_cached(
                        "SELECT s.sid, s.uri, s.header, s.live, s.events, f.path
                         FROM sessions s LEFT JOIN files f ON f.sid = s.sid
                         WHERE s.uri = ?1 ORDER BY f.path, f.key",
                    )
                    .map_err(StoreError::db("read session"))?;
                let rows = st
                    .query_map([uri], |r| {
                        Ok((
                            (
                                r.get(0)?,
                                r.get(1)?,
                                r.get(2)?,
                                r.get::<_, i64>(3)? != 0,
                                r.get(4)?,
                            ),
                            r.get::<_, Option<String>>(5)?,
                        ))
                    })
                    .map_err(StoreError::db("read session"))?;
                let mut rows = rows
                    .collect::<rusqlite::Result<Vec<_>>>()
                    .map_err(StoreError::db("read session"))?;
                if rows.len() > 1 {
                    return Err(StoreError::AmbiguousSession {
                        uri: uri.to_string(),
                        sources: rows.into_iter().map(|r| r.1.unwrap_or_default()).collect(),
                    });
                }
                rows.pop().map(|r| r.0)
            }
            SessionRef::Source { path, key } => self
                .conn
                .prepare_cached(
                    "SELECT s.sid, s.uri, s.header, s.live, s.events
                     FROM files f JOIN sessions s ON s.sid = f.sid
                     WHERE f.path = ?1 AND f.key = ?2",
                )
                .and_then(|mut st| {
                    st.query_row(
                        params![path.to_string_lossy(), key.unwrap_or_default()],
                        |r| {
                            Ok((
                                r.get(0)?,
                                r.get(1)?,
                                r.get(2)?,
                                r.get::<_, i64>(3)? != 0,
                                r.get(4)?,
                            ))
                        },
                    )
                    .optional()
                })
                .map_err(StoreError::db("read session"))?,
            SessionRef::Revision { path, key, n } => crate::revision::nth(
                &self.conn,
                &path.to_string_lossy(),
                key.unwrap_or_default(),
                n,
            )?
            .map(|(sid, uri, json, n)| (sid, uri, json, false, n)),
        };
        let (sid, uri, json, live, n) =
            row.ok_or_else(|| StoreError::SessionNotFound(at.to_string()))?;
        Ok((sid, decode_header(&uri, &json, live)?, n))
    }

    /// The header and event count of the stored session `sid`.
    /// An earlier revision (issue 20) is read from `revisions`, `live: false`.
    pub(crate) fn row_of(&self, sid: i64) -> Result<(Header, u32)> {
        let (uri, json, live, n): (String, String, bool, u32) = self
            .conn
            .prepare_cached(
                "SELECT uri, header, live, events FROM sessions WHERE sid = ?1
                 UNION ALL SELECT uri, header, 0, events FROM revisions WHERE sid = ?1",
            )
            .and_then(|mut st| {
                st.query_row([sid], |r| {
                    Ok((r.get(0)?, r.get(1)?, r.get::<_, i64>(2)? != 0, r.get(3)?))
                })
            })
            .map_err(StoreError::db("read session"))?;
        Ok((decode_header(&uri, &json, live)?, n))
    }

    /// The header of a session (by uri, `provider:id`, or by source).
    pub fn header<'a>(&self, at: impl Into<SessionRef<'a>>) -> Result<Header> {
        Ok(self.sid_of(at)?.1)
    }

    /// The whole session (by uri or by source), equal to a direct parse of its source when the
    /// source is unchanged (`persisted` is `true`, `live` as last seen).
    pub fn session<'a>(&self, at: impl Into<SessionRef<'a>>) -> Result<Session> {
        let at = at.into();
        self.snapshot(|| {
            let (sid, header, n) = self.sid_of(at)?;
            self.session_at(sid, header, n)
        })
    }

    /// The stored session `sid` whose header and event count were read already.
    pub(crate) fn session_at(&self, sid: i64, header: Header, n: u32) -> Result<Session> {
        let events = self.events_of(sid, &header.uri, 0, n.saturating_sub(1), n)?;
        let warnings = self.warnings_of(sid, &header.uri)?;
        Ok(Session {
            header,
            events,
            warnings,
        })
    }

    /// Runs several reads inside one read transaction, so they all see the same committed
    /// version of the index even while another connection refreshes it (S-I5). Without it, the
    /// header and the events of a session could come from two different commits.
    pub(crate) fn snapshot<T>(&self, f: impl FnOnce() -> Result<T>) -> Result<T> {
        if !self.conn.is_autocommit() {
            return f();
        }
        self.conn
            .execute_batch("BEGIN DEFERRED")
            .map_err(StoreError::db("begin read"))?;
        let out = f();
        // A read transaction has nothing to keep: ending it can only fail if the connection is
        // gone, and then the result of `f` already says so.
        let _ = self.conn.execute_batch("COMMIT");
        out
    }

    /// Events `from..=to` of session `sid` (`n` stored), decoded from its blocks.
    pub(crate) fn events_of(
        &self,
        sid: i64,
        uri: &str,
        from: u32,
        to: u32,
        n: u32,
    ) -> Result<Vec<Event>> {
        let mut out = Vec::new();
        if n == 0 {
            return Ok(out);
        }
        self.each_record(sid, uri, from, to, &mut |r| {
            out.push(event_from(uri, r.text.to_string(), r.rest)?);
            Ok(())
        })?;
        Ok(out)
    }

    /// Calls `f` for every stored record of session `sid` with `seq` in `from..=to`, in order.
    pub(crate) fn each_record(
        &self,
        sid: i64,
        uri: &str,
        from: u32,
        to: u32,
        f: &mut dyn FnMut(&Record<'_>) -> Result<()>,
    ) -> Result<()> {
        let (lo, _) = event_id_range(sid);
        let start: Option<i64> = self
            .conn
            .prepare_cached("SELECT max(id) FROM blocks WHERE id BETWEEN ?1 AND ?2")
            .and_then(|mut st| st.query_row(params![lo, event_id(sid, from)], |r| r.get(0)))
            .map_err(StoreError::db("read events"))?;
        let start = start.unwrap_or(lo);
        let mut st = self
            .conn
            .prepare_cached("SELECT data FROM blocks WHERE id BETWEEN ?1 AND ?2 ORDER BY id")
            .map_err(StoreError::db("read events"))?;
        let mut rows = st
            .query(params![start, event_id(sid, to)])
            .map_err(StoreError::db("read events"))?;
        let mut block = Decoded::default();
        let corrupt = |m: &str| StoreError::CorruptSession {
            uri: uri.to_string(),
            message: m.to_string(),
        };
        while let Some(r) = rows.next().map_err(StoreError::db("read events"))? {
            let data = r.get_ref(0).map_err(StoreError::db("read events"))?;
            let data = data.as_blob().map_err(|e| corrupt(&e.to_string()))?;
            if !block.load(data, true) {
                return Err(corrupt("event block does not decode"));
            }
            for rec in block.records() {
                let rec = rec.map_err(|()| corrupt("event block is damaged"))?;
                if rec.seq >= from && rec.seq <= to {
                    f(&rec)?;
                }
            }
        }
        Ok(())
    }

    fn warnings_of(&self, sid: i64, uri: &str) -> Result<Vec<Warning>> {
        let mut st = self
            .conn
            .prepare_cached("SELECT body FROM warnings WHERE sid = ?1 ORDER BY n")
            .map_err(StoreError::db("read warnings"))?;
        let rows = st
            .query_map([sid], |r| r.get::<_, String>(0))
            .map_err(StoreError::db("read warnings"))?;
        let mut out = Vec::new();
        for body in rows {
            let body = body.map_err(StoreError::db("read warnings"))?;
            out.push(
                serde_json::from_str(&body).map_err(|e| StoreError::CorruptSession {
                    uri: uri.to_string(),
                    message: format!("warning does not decode: {e}"),
                })?,
            );
        }
        Ok(out)
    }

    /// The warnings raised while parsing a session (by uri or by source).
    pub fn warnings<'a>(&self, at: impl Into<SessionRef<'a>>) -> Result<Vec<Warning>> {
        let at = at.into();
        self.snapshot(|| {
            let (sid, h, _) = self.sid_of(at)?;
            self.warnings_of(sid, &h.uri)
        })
    }

    /// The events of a session (by uri or by source) with `seq` in `range` (inclusive, clipped
    /// to the session). An inverted range is [`StoreError::InvalidWindow`].
    pub fn events<'a>(
        &self,
        at: impl Into<SessionRef<'a>>,
        range: RangeInclusive<u32>,
    ) -> Result<Vec<Event>> {
        let at = at.into();
        check_window(&range)?;
        self.snapshot(|| {
            let (sid, h, n) = self.sid_of(at)?;
            if *range.start() >= n {
                return Ok(Vec::new());
            }
            let to = (*range.end()).min(n.saturating_sub(1));
            self.events_of(sid, &h.uri, *range.start(), to, n)
        })
    }

    /// Hands each event of a session (by uri or by source) with `seq` in `range` (inclusive,
    /// clipped to the session) to `f`, in order, decoding one block at a time: memory is one
    /// block and one event, however many events the range holds (a reader that streams the
    /// session need not hold a window of it). An inverted range is
    /// [`StoreError::InvalidWindow`]; on an error, the events already handed over stay handed.
    pub fn each_event<'a>(
        &self,
        at: impl Into<SessionRef<'a>>,
        range: RangeInclusive<u32>,
        f: &mut dyn FnMut(Event),
    ) -> Result<()> {
        let at = at.into();
        check_window(&range)?;
        self.snapshot(|| {
            let (sid, h, n) = self.sid_of(at)?;
            if n == 0 || *range.start() >= n {
                return Ok(());
            }
            let to = (*range.end()).min(n.saturating_sub(1));
            let uri = h.uri.clone();
            self.each_record(sid, &uri, *range.start(), to, &mut |r| {
                f(event_from(&uri, r.text.to_string(), r.rest)?);
                Ok(())
            })
        })
    }

    /// Headers of the sessions matching `filter`, most recently updated first (sessions without
    /// a time last, then by uri), `limit` of them after skipping `offset`.
    pub fn headers(
        &self,
        filter: &SessionFilter,
        limit: usize,
        offset: usize,
    ) -> Result<Vec<Header>> {
        filter.validate()?;
        let (cond, mut params) = filter.to_sql();
        params.push(rusqlite::types::Value::Integer(
            i64::try_from(limit).unwrap_or(i64::MAX),
        ));
        params.push(rusqlite::types::Value::Integer(
            i64::try_from(offset).unwrap_or(i64::MAX),
        ));
        let n = params.len();
        let sql = format!(
            "SELECT uri, header, live FROM sessions WHERE {cond}
             ORDER BY recency DESC, uri LIMIT ?{} OFFSET ?{}",
            n - 1,
            n
        );
        let mut st = self
            .conn
            .prepare_cached(&sql)
            .map_err(StoreError::db("list sessions"))?;
        let mut rows = st
            .query(params_from_iter(params))
            .map_err(StoreError::db("list sessions"))?;
        let mut out = Vec::new();
        while let Some(r) = rows.next().map_err(StoreError::db("list sessions"))? {
            let uri: String = r.get(0).map_err(StoreError::db("list sessions"))?;
            let json: String = r.get(1).map_err(StoreError::db("list sessions"))?;
            let live = r
                .get::<_, i64>(2)
                .map_err(StoreError::db("list sessions"))?
                != 0;
            out.push(decode_header(&uri, &json, live)?);
        }
        Ok(out)
    }

    /// How many sessions match `filter`.
    pub fn count(&self, filter: &SessionFilter) -> Result<usize> {
        filter.validate()?;
        let (cond, params) = filter.to_sql();
        let n: i64 = self
            .conn
            .query_row(
                &format!("SELECT count(*) FROM sessions WHERE {cond}"),
                params_from_iter(params),
                |r| r.get(0),
            )
            .map_err(StoreError::db("count sessions"))?;
        Ok(usize::try_from(n).unwrap_or(0))
    }

    /// Number of events stored for a session (by uri or by source).
    pub fn event_count<'a>(&self, at: impl Into<SessionRef<'a>>) -> Result<u32> {
        Ok(self.sid_of(at)?.2)
    }

    /// Bytes used by the database file (main file; the WAL is checkpointed into it over time).
    pub fn size_bytes(&self) -> Result<u64> {
        let pages: i64 = self
            .conn
            .query_row("PRAGMA page_count", [], |r| r.get(0))
            .map_err(StoreError::db("page count"))?;
        let size: i64 = self
            .conn
            .query_row("PRAGMA page_size", [], |r| r.get(0))
            .map_err(StoreError::db("page size"))?;
        Ok(u64::try_from(pages * size).unwrap_or(0))
    }

    #[allow(dead_code)]
    pub(crate) fn event_range(&self, sid: i64) -> (i64, i64) {
        event_id_range(sid)
    }
}

/// An inverted `seq` range is [`StoreError::InvalidWindow`].
fn check_window(range: &RangeInclusive<u32>) -> Result<()> {
    if range.start() > range.end() {
        return Err(StoreError::InvalidWindow(format!(
            "seq range {}-{} starts after it ends",
            range.start(),
            range.end()
        )));
    }
    Ok(())
}
