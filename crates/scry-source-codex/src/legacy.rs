//! The TypeScript-era rollout (codex 0.1.x, April–May 2025): one pretty-printed JSON document
//! `{session:{timestamp,id,instructions}, items:[ResponseItem…]}` per session, rewritten whole on
//! every item. Checked against codex 0.1.2505291658.
//!
//! The document is read whole: the format forces it (it is not line-oriented and is rewritten
//! in place) and these files are small (a few KB to a few hundred KB). Items are borrowed as raw
//! slices, so each event still points at its exact bytes (`raw.offset`/`len`, record number =
//! item index + 1). There are no per-item timestamps, no usage, no model and no cwd.
//! `/compact` leaves one synthetic assistant message `id:"compact-<ms>"` holding the summary,
//! which becomes a Compaction event (the mapper handles it).

use scry_model::{Header, Warning, WarningKind};
use scry_source::json::str_of;
use scry_source::{time, Emitter, SourceError, SourceFile};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;

use crate::mapper::{Mapper, Rec};

#[derive(Deserialize)]
struct Doc<'a> {
    #[serde(default)]
    session: Value,
    #[serde(borrow, default)]
    items: Vec<&'a RawValue>,
}

/// Parses a TypeScript-era document.
pub(crate) fn parse(file: &SourceFile, out: &mut Emitter<'_>) -> Result<Header, SourceError> {
    let bytes = std::fs::read(&file.path).map_err(|e| SourceError::io(&file.path, e))?;
    let text = match String::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => {
            out.warn(Warning::at(
                WarningKind::InvalidUtf8,
                "invalid UTF-8 in the session document; decoded lossily",
                &file.path,
                None,
            ));
            String::from_utf8_lossy(e.as_bytes()).into_owned()
        }
    };
    let doc: Doc<'_> = serde_json::from_str(&text).map_err(|e| {
        SourceError::format(
            &file.path,
            format!("not a Codex session document ({e}); a file being rewritten is read next time"),
        )
    })?;
    let session = &doc.session;
    let id = str_of(session, "id")
        .filter(|s| !s.is_empty())
        .unwrap_or(&file.id)
        .to_string();
    let mut header = Header::new(scry_model::ProviderId::Codex, id);
    header.sources.push(file.path.clone());
    if let Some(t) = session.get("timestamp").and_then(time::from_value) {
        header.touch(t);
    }
    header.cwd = str_of(session, "cwd")
        .filter(|c| !c.is_empty())
        .map(str::to_string);

    let mut mapper = Mapper::new(file.path.clone());
    let base = text.as_ptr() as usize;
    for (i, raw) in doc.items.iter().enumerate() {
        let slice = raw.get();
        let offset = (slice.as_ptr() as usize).saturating_sub(base) as u64;
        let line = i as u64 + 1;
        let rec = Rec {
            line,
            offset,
            raw: slice.as_bytes(),
            time: None,
        };
        match serde_json::from_str::<Value>(slice) {
            Ok(v) if v.is_object() => mapper.item(&rec, &v, None, out),
            _ => mapper.warn(
                WarningKind::CorruptRecord,
                format!("item {line} is not an object; skipped"),
                line,
            ),
        }
    }
    mapper.finish(out);
    if header.cwd.is_none() {
        header.cwd = mapper.env_cwd.clone();
    }
    Ok(header)
}
