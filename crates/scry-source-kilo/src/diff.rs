//! `storage/session_diff/<session id>.json`: Kilo's per-session summary of the files the
//! session changed (`[{file, patch, additions, deletions, status}]`), as one log-only event.

use std::path::Path;

use scry_model::{Event, EventKind, Locator, Surface, Warning, WarningKind};
use scry_source::json::str_of;
use scry_source::Emitter;
use serde_json::{json, Value};

/// Largest diff file read (they hold unified patches of the changed files).
const MAX: u64 = 16 * 1024 * 1024;

/// Emits the `session_diff` event of `path` (nothing for an empty list); unreadable or
/// malformed files are warnings.
pub(crate) fn emit(path: &Path, out: &mut Emitter<'_>) {
    let warn = |out: &mut Emitter<'_>, kind, msg: String| {
        out.warn(Warning::at(kind, msg, path, None));
    };
    match std::fs::metadata(path) {
        Ok(m) if m.len() > MAX => {
            return warn(
                out,
                WarningKind::Other,
                format!("session diff of {} bytes not read", m.len()),
            )
        }
        Ok(_) => {}
        Err(e) => return warn(out, WarningKind::Unreadable, format!("session diff: {e}")),
    }
    let v: Value = match std::fs::read(path)
        .map_err(|e| e.to_string())
        .and_then(|b| serde_json::from_slice(&b).map_err(|e| e.to_string()))
    {
        Ok(v) => v,
        Err(e) => {
            return warn(
                out,
                WarningKind::CorruptRecord,
                format!("session diff is not valid JSON ({e})"),
            )
        }
    };
    let Some(items) = v.as_array() else {
        return warn(
            out,
            WarningKind::CorruptRecord,
            "session diff is not a JSON array".into(),
        );
    };
    let files: Vec<Value> = items
        .iter()
        .filter_map(|i| {
            let file = str_of(i, "file")?;
            Some(json!({
                "file": file,
                "status": i.get("status"),
                "additions": i.get("additions"),
                "deletions": i.get("deletions"),
            }))
        })
        .collect();
    if files.is_empty() {
        return;
    }
    let text = files
        .iter()
        .filter_map(|f| f.get("file").and_then(Value::as_str))
        .collect::<Vec<_>>()
        .join("\n");
    let mut e = Event::new(EventKind::Meta, text, Locator::native("session_diff", None));
    e.subtype = Some("session_diff".into());
    e.surface = Surface::LogOnly;
    e.data = Some(json!({ "files": files }));
    out.emit(e);
}
