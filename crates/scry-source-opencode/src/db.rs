//! The SQLite store (`opencode.db`, OpenCode ≥ 1.2): read-only access, session listing, the
//! session header and the streaming read of a session's messages and parts.
//!
//! Checked against the schema written by OpenCode 1.18.33 (tables `session`, `message`, `part`,
//! `event`, `session_message`, `todo`, …). Columns are looked up by name, so older 1.x schemas
//! that lack some of them still read.
//!
//! The database is opened through [`scry_source::sqlite::open_snapshot`]: read-only and
//! immutable in place when there is no live `-wal` (nothing is written, locked or created next
//! to it, SPEC P1), else through a private copy of the database and its `-wal` so the rows the
//! agent has not checkpointed yet are read too. A `-wal` that could not be read that way is
//! reported as a warning, so missing rows are never silent.
//!
//! Kilo CLI writes the same tables (`kilo.db`); the [`Flavor`] names the agent.

use std::collections::HashSet;
use std::path::Path;

use rusqlite::types::ValueRef;
use rusqlite::{Connection, OptionalExtension};
use scry_model::{Header, Lineage, LineageKind, RawRef, SessionKind, Warning, WarningKind};
use scry_source::json::str_of;
use scry_source::sqlite::{open_snapshot, Snapshot};
use scry_source::{Emitter, SourceError};
use serde_json::Value;

use crate::map::{ts, Mapper, MessageRec, PartRec, Place};
use crate::title;
use crate::Flavor;

/// Opens `path` read-only, with the rows of a live `-wal` (see the module doc).
pub(crate) fn open(path: &Path, flavor: Flavor) -> Result<Snapshot, SourceError> {
    open_snapshot(path).map_err(|e| {
        SourceError::format(path, format!("cannot read {} database: {e}", flavor.agent))
    })
}

/// An SQLite error on `path` as a format error naming the file.
pub(crate) fn sql_err(path: &Path, flavor: Flavor, e: rusqlite::Error) -> SourceError {
    SourceError::format(path, format!("cannot read {} database: {e}", flavor.agent))
}

/// The column names of `table` (empty when the table does not exist).
pub(crate) fn columns(conn: &Connection, table: &str) -> HashSet<String> {
    let mut out = HashSet::new();
    let sql = format!("PRAGMA table_info(\"{table}\")");
    if let Ok(mut stmt) = conn.prepare(&sql) {
        if let Ok(rows) = stmt.query_map([], |r| r.get::<_, String>(1)) {
            out.extend(rows.flatten());
        }
    }
    out
}

/// `col` when the table has it, else `NULL` (so one query serves several schema versions).
fn col(cols: &HashSet<String>, name: &str) -> String {
    if cols.contains(name) {
        format!("\"{name}\"")
    } else {
        "NULL".to_string()
    }
}

/// One session row as listed by discovery.
#[derive(Debug, Clone)]
pub(crate) struct SessionRow {
    pub id: String,
    pub parent: Option<String>,
    pub directory: Option<String>,
    pub updated_ms: Option<i64>,
}

/// Lists the sessions of a database (one small query).
pub(crate) fn list_sessions(path: &Path, flavor: Flavor) -> Result<Vec<SessionRow>, SourceError> {
    let conn = open(path, flavor)?;
    let cols = columns(&conn, "session");
    if !cols.contains("id") {
        return Err(SourceError::format(path, "no 'session' table"));
    }
    let sql = format!(
        "SELECT id, {}, {}, {} FROM session",
        col(&cols, "parent_id"),
        col(&cols, "directory"),
        col(&cols, "time_updated")
    );
    let mut stmt = conn.prepare(&sql).map_err(|e| sql_err(path, flavor, e))?;
    let rows = stmt
        .query_map([], |r| {
            Ok(SessionRow {
                id: text_of(r.get_ref(0)?).unwrap_or_default(),
                parent: text_of(r.get_ref(1)?).filter(|s| !s.is_empty()),
                directory: text_of(r.get_ref(2)?).filter(|s| !s.is_empty()),
                updated_ms: r.get_ref(3)?.as_i64().ok(),
            })
        })
        .map_err(|e| sql_err(path, flavor, e))?;
    Ok(rows.flatten().filter(|s| !s.id.is_empty()).collect())
}

/// Builds the header of session `id` from its `session` row (plus title history from the
/// `event` log and the branch of its workspace, when those tables exist).
pub(crate) fn header(
    conn: &Connection,
    path: &Path,
    flavor: Flavor,
    id: &str,
) -> Result<Header, SourceError> {
    let cols = columns(conn, "session");
    let sql = format!(
        "SELECT {}, {}, {}, {}, {}, {}, {}, {}, {} FROM session WHERE id = ?1",
        col(&cols, "parent_id"),
        col(&cols, "directory"),
        col(&cols, "title"),
        col(&cols, "version"),
        col(&cols, "time_created"),
        col(&cols, "time_updated"),
        col(&cols, "agent"),
        col(&cols, "model"),
        col(&cols, "workspace_id"),
    );
    type Row = (
        Option<String>,
        Option<String>,
        Option<String>,
        Option<String>,
        Option<i64>,
        Option<i64>,
        Option<String>,
        Option<String>,
        Option<String>,
    );
    let row: Option<Row> = conn
        .query_row(&sql, [id], |r| {
            Ok((
                text_of(r.get_ref(0)?),
                text_of(r.get_ref(1)?),
                text_of(r.get_ref(2)?),
                text_of(r.get_ref(3)?),
                r.get_ref(4)?.as_i64().ok(),
                r.get_ref(5)?.as_i64().ok(),
                text_of(r.get_ref(6)?),
                text_of(r.get_ref(7)?),
                text_of(r.get_ref(8)?),
            ))
        })
        .optional()
        .map_err(|e| sql_err(path, flavor, e))?;
    let Some((parent, dir, title_now, version, created, updated, agent, model, ws)) = row else {
        return Err(SourceError::NotFound {
            path: path.to_path_buf(),
            key: id.to_string(),
        });
    };

    let mut h = Header::new(flavor.provider, id);
    h.sources.push(path.to_path_buf());
    h.cwd = dir.filter(|d| !d.is_empty());
    h.agent_version = version.filter(|v| !v.is_empty());
    h.agent_name = agent.filter(|a| !a.is_empty());
    if let Some(p) = parent.filter(|p| !p.is_empty()) {
        h.kind = SessionKind::Subagent;
        h.lineage.push(Lineage {
            kind: LineageKind::SubagentOf,
            target: p.clone(),
            evidence: "session.parent_id".into(),
        });
        h.parent = Some(p);
    }
    for t in [created, updated].into_iter().flatten().filter_map(ts) {
        h.touch(t);
    }
    if let Some(m) = model
        .and_then(|m| serde_json::from_str::<Value>(&m).ok())
        .and_then(|v| str_of(&v, "id").map(str::to_string))
    {
        h.add_model(&m);
    }
    let history = title_history(conn, id);
    title::apply(&mut h, title_now.as_deref(), history);
    if let Some(ws) = ws.filter(|w| !w.is_empty()) {
        if columns(conn, "workspace").contains("branch") {
            h.git_branch = conn
                .query_row("SELECT branch FROM workspace WHERE id = ?1", [&ws], |r| {
                    Ok(text_of(r.get_ref(0)?))
                })
                .optional()
                .ok()
                .flatten()
                .flatten()
                .filter(|b| !b.is_empty());
        }
    }
    Ok(h)
}

/// The session's revert point (`session.revert` JSON: `messageID`, optional `partID`).
pub(crate) fn revert(conn: &Connection, id: &str) -> Option<(String, Option<String>)> {
    if !columns(conn, "session").contains("revert") {
        return None;
    }
    let text: Option<String> = conn
        .query_row("SELECT revert FROM session WHERE id = ?1", [id], |r| {
            Ok(text_of(r.get_ref(0)?))
        })
        .ok()
        .flatten();
    let v: Value = serde_json::from_str(&text?).ok()?;
    crate::map::revert_of(&v)
}

/// Titles the session carried, oldest first, from `session.created` / `session.updated` events.
fn title_history(conn: &Connection, id: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let cols = columns(conn, "event");
    if !(cols.contains("aggregate_id") && cols.contains("data") && cols.contains("type")) {
        return out;
    }
    let sql = "SELECT data FROM event WHERE aggregate_id = ?1 \
               AND (type LIKE 'session.created.%' OR type LIKE 'session.updated.%') ORDER BY seq";
    let Ok(mut stmt) = conn.prepare(sql) else {
        return out;
    };
    let Ok(rows) = stmt.query_map([id], |r| Ok(bytes_of(r.get_ref(0)?))) else {
        return out;
    };
    for data in rows.flatten().flatten() {
        let Ok(v) = serde_json::from_slice::<Value>(&data) else {
            continue;
        };
        if let Some(t) = v
            .get("info")
            .and_then(|i| str_of(i, "title"))
            .filter(|t| !t.is_empty())
        {
            if out.last().map(String::as_str) != Some(t) {
                out.push(t.to_string());
            }
        }
    }
    out
}

/// Streams the messages and parts of session `id` into `mapper`, one message at a time.
pub(crate) fn read_events(
    conn: &Connection,
    path: &Path,
    flavor: Flavor,
    id: &str,
    mapper: &mut Mapper,
    out: &mut Emitter<'_>,
) -> Result<(), SourceError> {
    let sql =
        "SELECT m.id, m.time_created, m.data, m.rowid, p.id, p.time_created, p.data, p.rowid \
               FROM message m LEFT JOIN part p ON p.message_id = m.id \
               WHERE m.session_id = ?1 ORDER BY m.time_created, m.id, p.id";
    let mut stmt = conn.prepare(sql).map_err(|e| sql_err(path, flavor, e))?;
    let mut rows = stmt.query([id]).map_err(|e| sql_err(path, flavor, e))?;
    let mut current: Option<MessageRec> = None;
    loop {
        let row = match rows.next() {
            Ok(Some(r)) => r,
            Ok(None) => break,
            Err(e) => {
                out.warn(Warning::at(
                    WarningKind::Unreadable,
                    format!("reading messages of {id} stopped: {e}"),
                    path,
                    None,
                ));
                break;
            }
        };
        let get = |i: usize| row.get_ref(i).ok();
        let mid = get(0).and_then(text_of).unwrap_or_default();
        if current.as_ref().map(|m| m.id.as_str()) != Some(mid.as_str()) {
            if let Some(done) = current.take() {
                mapper.message(done, out);
            }
            let rowid = get(3).and_then(|v| v.as_i64().ok()).unwrap_or(0);
            let bytes = get(2).and_then(bytes_of).unwrap_or_default();
            let raw = raw_ref(rowid, bytes.len());
            let data = decode(&bytes, path, rowid, &format!("message {mid}"), out);
            current = Some(MessageRec {
                id: mid.clone(),
                created_ms: get(1).and_then(|v| v.as_i64().ok()),
                data,
                raw,
                place: Place {
                    file: path.to_path_buf(),
                    line: u64::try_from(rowid).ok(),
                },
                parts: Vec::new(),
            });
        }
        let Some(pid) = get(4).and_then(text_of) else {
            continue;
        };
        let rowid = get(7).and_then(|v| v.as_i64().ok()).unwrap_or(0);
        let bytes = get(6).and_then(bytes_of).unwrap_or_default();
        let what = format!("part {pid} of message {mid}");
        if let (Some(data), Some(msg)) = (decode(&bytes, path, rowid, &what, out), current.as_mut())
        {
            msg.parts.push(PartRec {
                id: pid,
                created_ms: get(5).and_then(|v| v.as_i64().ok()),
                data,
                raw: raw_ref(rowid, bytes.len()),
                place: Place {
                    file: path.to_path_buf(),
                    line: u64::try_from(rowid).ok(),
                },
            });
        }
    }
    if let Some(done) = current.take() {
        mapper.message(done, out);
    }
    Ok(())
}

/// Warns about data kept beside the `message` / `part` tables that is not read yet, and about a
/// live `-wal` that could not be read.
pub(crate) fn warn_unread(conn: &Snapshot, path: &Path, id: &str, out: &mut Emitter<'_>) {
    if columns(conn, "session_message").contains("session_id") {
        let n: i64 = conn
            .query_row(
                "SELECT count(*) FROM session_message WHERE session_id = ?1",
                [id],
                |r| r.get(0),
            )
            .unwrap_or(0);
        if n > 0 {
            out.warn(Warning::at(
                WarningKind::Other,
                format!("{n} row(s) of the newer 'session_message' table are not read yet"),
                path,
                None,
            ));
        }
    }
    if let Some(note) = conn.wal_note() {
        out.warn(Warning::at(
            WarningKind::Unreadable,
            note.to_string(),
            path,
            None,
        ));
    }
}

/// The most recently updated top-level session of an OpenCode database (for a database path
/// given directly); `None` when the file is not an OpenCode database.
pub(crate) fn latest_root_session(path: &Path, flavor: Flavor) -> Option<SessionRow> {
    let conn = open(path, flavor).ok()?;
    if !(columns(&conn, "message").contains("session_id")
        && columns(&conn, "part").contains("message_id"))
    {
        return None;
    }
    drop(conn);
    list_sessions(path, flavor)
        .ok()?
        .into_iter()
        .filter(|s| s.parent.is_none())
        .max_by_key(|s| s.updated_ms.unwrap_or(0))
}

fn decode(
    bytes: &[u8],
    path: &Path,
    rowid: i64,
    what: &str,
    out: &mut Emitter<'_>,
) -> Option<Value> {
    let text = match std::str::from_utf8(bytes) {
        Ok(t) => std::borrow::Cow::Borrowed(t),
        Err(_) => {
            out.warn(Warning::at(
                WarningKind::InvalidUtf8,
                format!("{what}: data is not valid UTF-8; decoded lossily"),
                path,
                u64::try_from(rowid).ok(),
            ));
            String::from_utf8_lossy(bytes)
        }
    };
    match serde_json::from_str::<Value>(&text) {
        Ok(v) if v.is_object() => Some(v),
        Ok(_) => {
            out.warn(Warning::at(
                WarningKind::CorruptRecord,
                format!("{what}: data is not a JSON object"),
                path,
                u64::try_from(rowid).ok(),
            ));
            None
        }
        Err(e) => {
            out.warn(Warning::at(
                WarningKind::CorruptRecord,
                format!("{what}: data is not valid JSON ({e})"),
                path,
                u64::try_from(rowid).ok(),
            ));
            None
        }
    }
}

fn raw_ref(rowid: i64, len: usize) -> RawRef {
    RawRef {
        file: 0,
        offset: 0,
        len: len as u64,
        line: u64::try_from(rowid).unwrap_or(0),
    }
}

/// A text (or blob) column as a `String`, lossily.
fn text_of(v: ValueRef<'_>) -> Option<String> {
    match v {
        ValueRef::Text(b) | ValueRef::Blob(b) => Some(String::from_utf8_lossy(b).into_owned()),
        ValueRef::Integer(i) => Some(i.to_string()),
        _ => None,
    }
}

/// A text or blob column's bytes.
fn bytes_of(v: ValueRef<'_>) -> Option<Vec<u8>> {
    match v {
        ValueRef::Text(b) | ValueRef::Blob(b) => Some(b.to_vec()),
        _ => None,
    }
}
