//! Writing sessions: the index writer is an [`EventSink`], so a parse streams straight into the
//! open transaction and the store never holds a whole session in memory.

use rusqlite::{params, Connection};
use scry_model::{Event, Header, Warning};
use scry_source::{EventSink, ResumePoint};

use crate::codec::{
    aux_text, encode_body, event_id, event_id_range, kind_to_i, rest_json, session_doc_id,
    surface_to_i, time_to_i,
};
use crate::error::{Result, StoreError};

/// Streams one session's events and warnings into the `events`, `events_fts` and `warnings`
/// tables of an open transaction.
pub(crate) struct IndexSink<'t> {
    tx: &'t Connection,
    sid: i64,
    next_warning: u64,
    /// The first write error; later events are dropped and the transaction is rolled back.
    pub(crate) error: Option<StoreError>,
    /// The last safe point the provider handed out.
    pub(crate) resume: Option<ResumePoint>,
    /// Events written.
    pub(crate) written: u64,
}

impl<'t> IndexSink<'t> {
    /// A sink for session `sid` whose first new warning gets number `next_warning`.
    pub(crate) fn new(tx: &'t Connection, sid: i64, next_warning: u64) -> Self {
        IndexSink {
            tx,
            sid,
            next_warning,
            error: None,
            resume: None,
            written: 0,
        }
    }

    fn write_event(&mut self, mut event: Event) -> Result<()> {
        let id = event_id(self.sid, event.seq);
        let aux = aux_text(&event);
        let (text, rest) = rest_json(&mut event)?;
        let mut st = self
            .tx
            .prepare_cached(
                "INSERT INTO events(id, kind, turn, time, surface, body, aux)
                 VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            )
            .map_err(StoreError::db("prepare event insert"))?;
        st.execute(params![
            id,
            kind_to_i(event.kind),
            event.turn,
            event.time.map(time_to_i),
            surface_to_i(event.surface),
            encode_body(&text, &rest),
            &aux
        ])
        .map_err(StoreError::db("insert event"))?;
        let doc = match &aux {
            Some(a) => format!("{text}\n{a}"),
            None => text,
        };
        if doc.chars().nth(2).is_some() {
            let mut st = self
                .tx
                .prepare_cached("INSERT INTO events_fts(rowid, doc) VALUES(?1, ?2)")
                .map_err(StoreError::db("prepare fts insert"))?;
            st.execute(params![id, doc])
                .map_err(StoreError::db("insert fts row"))?;
        }
        self.written += 1;
        Ok(())
    }

    fn write_warning(&mut self, w: Warning) -> Result<()> {
        let body = serde_json::to_string(&w)
            .map_err(|e| StoreError::IndexBuild(format!("cannot encode warning: {e}")))?;
        let mut st = self
            .tx
            .prepare_cached("INSERT INTO warnings(sid, n, body) VALUES(?1, ?2, ?3)")
            .map_err(StoreError::db("prepare warning insert"))?;
        st.execute(params![self.sid, self.next_warning as i64, body])
            .map_err(StoreError::db("insert warning"))?;
        self.next_warning += 1;
        Ok(())
    }
}

impl EventSink for IndexSink<'_> {
    fn event(&mut self, event: Event) {
        if self.error.is_none() {
            if let Err(e) = self.write_event(event) {
                self.error = Some(e);
            }
        }
    }

    fn warning(&mut self, warning: Warning) {
        if self.error.is_none() {
            if let Err(e) = self.write_warning(warning) {
                self.error = Some(e);
            }
        }
    }

    fn wants_resume_points(&self) -> bool {
        true
    }

    fn resume_point(&mut self, point: ResumePoint) {
        self.resume = Some(point);
    }
}

/// Deletes a session's events from `from_seq` on and its warnings from number `from_warning` on
/// (everything with zeros), including their FTS rows.
pub(crate) fn delete_tail(
    tx: &Connection,
    sid: i64,
    from_seq: u32,
    from_warning: u64,
) -> Result<()> {
    let (_, hi) = event_id_range(sid);
    let lo = event_id(sid, from_seq);
    {
        let ids: Vec<i64> = {
            let mut st = tx
                .prepare_cached("SELECT id FROM events WHERE id BETWEEN ?1 AND ?2")
                .map_err(StoreError::db("list events"))?;
            let rows = st
                .query_map(params![lo, hi], |r| r.get(0))
                .map_err(StoreError::db("list events"))?;
            rows.collect::<rusqlite::Result<_>>()
                .map_err(StoreError::db("list events"))?
        };
        let mut del = tx
            .prepare_cached("DELETE FROM events_fts WHERE rowid = ?1")
            .map_err(StoreError::db("prepare fts delete"))?;
        for id in ids {
            del.execute([id])
                .map_err(StoreError::db("delete fts row"))?;
        }
    }
    tx.execute(
        "DELETE FROM events WHERE id BETWEEN ?1 AND ?2",
        params![lo, hi],
    )
    .map_err(StoreError::db("delete events"))?;
    tx.execute(
        "DELETE FROM warnings WHERE sid = ?1 AND n >= ?2",
        params![sid, from_warning as i64],
    )
    .map_err(StoreError::db("delete warnings"))?;
    Ok(())
}

/// Deletes a whole session (row, events, FTS rows, warnings, facts).
pub(crate) fn delete_session(tx: &Connection, sid: i64) -> Result<()> {
    delete_tail(tx, sid, 0, 0)?;
    tx.execute(
        "DELETE FROM events_fts WHERE rowid = ?1",
        [session_doc_id(sid)],
    )
    .map_err(StoreError::db("delete fts row"))?;
    tx.execute("DELETE FROM sessions WHERE sid = ?1", [sid])
        .map_err(StoreError::db("delete session"))?;
    tx.execute("DELETE FROM facts WHERE sid = ?1", [sid])
        .map_err(StoreError::db("delete facts"))?;
    Ok(())
}

/// Writes (or replaces) the `sessions` row of `sid` and its title / artifact FTS document. A
/// different session that had the same uri is removed first (the newest parse wins).
pub(crate) fn write_header(
    tx: &Connection,
    sid: i64,
    header: &Header,
    events: u32,
    live: bool,
) -> Result<()> {
    let other: Option<i64> = tx
        .query_row(
            "SELECT sid FROM sessions WHERE uri = ?1 AND sid <> ?2",
            params![header.uri, sid],
            |r| r.get(0),
        )
        .ok();
    if let Some(other) = other {
        delete_session(tx, other)?;
    }
    let json = serde_json::to_string(header)
        .map_err(|e| StoreError::IndexBuild(format!("cannot encode header: {e}")))?;
    let artifacts = (!header.artifacts.is_empty()).then(|| header.artifacts.join("\n"));
    tx.execute(
        "INSERT INTO sessions(sid, uri, provider, cwd, created, updated, kind, parent, live,
                              title, artifacts, events, header, recency)
         VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)
         ON CONFLICT(sid) DO UPDATE SET uri = excluded.uri, provider = excluded.provider,
             cwd = excluded.cwd, created = excluded.created, updated = excluded.updated,
             kind = excluded.kind, parent = excluded.parent, live = excluded.live,
             title = excluded.title, artifacts = excluded.artifacts, events = excluded.events,
             header = excluded.header, recency = excluded.recency",
        params![
            sid,
            header.uri,
            header.provider.as_str(),
            header.cwd,
            header.created.map(time_to_i),
            header.updated.map(time_to_i),
            header.kind.as_str(),
            header.parent,
            live,
            header.title,
            artifacts,
            events,
            json,
            header.updated.map_or(i64::MIN, time_to_i)
        ],
    )
    .map_err(StoreError::db("write session"))?;
    let doc_id = session_doc_id(sid);
    tx.execute("DELETE FROM events_fts WHERE rowid = ?1", [doc_id])
        .map_err(StoreError::db("delete fts row"))?;
    let doc = format!(
        "{}\n{}",
        header.title.as_deref().unwrap_or(""),
        artifacts.as_deref().unwrap_or("")
    );
    if doc.chars().nth(2).is_some() {
        tx.execute(
            "INSERT INTO events_fts(rowid, doc) VALUES(?1, ?2)",
            params![doc_id, doc],
        )
        .map_err(StoreError::db("insert fts row"))?;
    }
    Ok(())
}
