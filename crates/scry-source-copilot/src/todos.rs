//! The session's todo list: the `todos` table of `session-state/<id>/session.db`, the
//! per-session SQLite file Copilot CLI's `sql` tool writes (it exists only once the tool ran).
//!
//! Opened `file:…?mode=ro&immutable=1`: nothing is written, locked or created beside it (no
//! `-journal`, `-wal` or `-shm`). 1.0.102 leaves the file in rollback-journal mode; a non-empty
//! `-wal` beside it (changes immutable mode cannot see) is reported as a warning.

use std::path::Path;

use percent_encoding::{percent_encode, AsciiSet, CONTROLS};
use rusqlite::{Connection, OpenFlags};
use scry_model::{Warning, WarningKind};
use serde_json::{json, Value};

/// Characters that must be escaped in the path of an SQLite `file:` URI.
const URI_PATH: &AsciiSet = &CONTROLS.add(b' ').add(b'%').add(b'?').add(b'#');

/// One todo row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Todo {
    /// `id`.
    pub id: String,
    /// `title`.
    pub title: String,
    /// `status`: pending, in_progress, done or blocked.
    pub status: String,
    /// `description`, when set.
    pub description: Option<String>,
}

/// The todos of `db` in row order; empty when the file has no `todos` table. Problems become
/// warnings: the todo list only adds to the event log.
pub fn read(db: &Path, warnings: &mut Vec<Warning>) -> Vec<Todo> {
    let wal = db.with_file_name(format!(
        "{}-wal",
        db.file_name()
            .map(|n| n.to_string_lossy())
            .unwrap_or_default()
    ));
    if std::fs::metadata(&wal).is_ok_and(|m| m.len() > 0) {
        warnings.push(Warning::at(
            WarningKind::Other,
            "session.db has a non-empty -wal; todos written since its last checkpoint are not shown",
            &wal,
            None,
        ));
    }
    match query(db) {
        Ok(t) => t,
        Err(e) => {
            warnings.push(Warning::at(
                WarningKind::Unreadable,
                format!("cannot read the todo list: {e}"),
                db,
                None,
            ));
            Vec::new()
        }
    }
}

fn query(db: &Path) -> rusqlite::Result<Vec<Todo>> {
    let uri = format!(
        "file:{}?mode=ro&immutable=1",
        percent_encode(db.as_os_str().as_encoded_bytes(), URI_PATH)
    );
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY
        | OpenFlags::SQLITE_OPEN_URI
        | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = Connection::open_with_flags(uri, flags)?;
    let has: bool = conn.query_row(
        "SELECT count(*) > 0 FROM sqlite_master WHERE type = 'table' AND name = 'todos'",
        [],
        |r| r.get(0),
    )?;
    if !has {
        return Ok(Vec::new());
    }
    let mut stmt = conn.prepare(
        "SELECT CAST(id AS TEXT), CAST(title AS TEXT), CAST(status AS TEXT), \
         CAST(description AS TEXT) FROM todos ORDER BY rowid",
    )?;
    let rows = stmt.query_map([], |r| {
        Ok(Todo {
            id: r.get::<_, Option<String>>(0)?.unwrap_or_default(),
            title: r.get::<_, Option<String>>(1)?.unwrap_or_default(),
            status: r.get::<_, Option<String>>(2)?.unwrap_or_default(),
            description: r.get(3)?,
        })
    })?;
    rows.collect()
}

/// The todo list as an event text (`[status] title` per line) and data.
pub fn render(todos: &[Todo]) -> (String, Value) {
    let text = todos
        .iter()
        .map(|t| format!("[{}] {}", t.status, t.title))
        .collect::<Vec<_>>()
        .join("\n");
    let items: Vec<Value> = todos
        .iter()
        .map(|t| json!({"id": t.id, "title": t.title, "status": t.status, "description": t.description}))
        .collect();
    (text, json!({ "todos": items }))
}
