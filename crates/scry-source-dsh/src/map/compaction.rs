//! Compaction: the summarizer's `compaction/summary` (its usage and model), the checkpoint
//! `user/message` whose `surfaceOp` replace shadows the replaced records (one Compaction event
//! per compaction, carrying `sourceEventSeqs` and the replaced records), and failed compactions
//! (`compaction/end` with `error` → System `compaction_failed`).

use scry_model::{Event, EventKind, Locator, Surface};
use scry_source::json::{str_of, text_of};
use scry_source::Emitter;
use serde_json::{json, Value};

use super::{set_data, usage_of, Mapper, Rec, Summary};

impl Mapper<'_> {
    /// The compaction checkpoint: a `user/message` that replaces part of the surface.
    pub(super) fn checkpoint(
        &mut self,
        rec: &Rec<'_>,
        data: &Value,
        whole: &Value,
        text: String,
        loc: Locator,
        out: &mut Emitter<'_>,
    ) {
        let mut ev = self.event(rec, EventKind::Compaction, text, loc);
        ev.subtype = Some("compaction".into());
        let compaction_id = scry_source::json::path(data, &["source", "compactionId"])
            .and_then(Value::as_str)
            .map(str::to_string);
        if let Some(c) = &compaction_id {
            set_data(&mut ev, "compactionId", json!(c));
        }
        if let Some(op) = whole.get("surfaceOp") {
            set_data(&mut ev, "surfaceOp", op.clone());
        }
        if let Some(s) = whole.get("sourceEventSeqs") {
            set_data(&mut ev, "sourceEventSeqs", s.clone());
        }
        if let Some(seq) = rec.seq {
            set_data(&mut ev, "dshSeq", json!(seq));
            if let Some(replaced) = self.surface.replaced.get(&seq) {
                let events: Vec<u32> = replaced
                    .iter()
                    .filter_map(|s| self.events_of.get(s))
                    .flatten()
                    .copied()
                    .collect();
                set_data(&mut ev, "replacedDshSeqs", json!(replaced));
                set_data(&mut ev, "replacedEvents", json!(events));
            }
        }
        // The summarizer's request belongs to this compaction.
        let matches = self
            .summary
            .as_ref()
            .is_some_and(|s| s.id.is_none() || compaction_id.is_none() || s.id == compaction_id);
        if matches {
            if let Some(s) = self.summary.take() {
                ev.model = s.model;
                if s.copied {
                    set_data(&mut ev, "copied", json!(true));
                } else {
                    ev.usage = s.usage;
                }
                set_data(&mut ev, "summary", json!(s.text));
            }
        }
        if self.copied(rec.time_ms) {
            set_data(&mut ev, "copied", json!(true));
        }
        self.emit(rec, ev, out);
    }

    pub(super) fn compaction_summary(
        &mut self,
        rec: &Rec<'_>,
        data: &Value,
        out: &mut Emitter<'_>,
    ) {
        // A summary never followed by its checkpoint is flushed before the next one.
        self.flush_summary(out);
        let model = str_of(data, "model").map(str::to_string);
        if let Some(m) = &model {
            self.note_model(Some(m));
        }
        self.summary = Some(Summary {
            id: str_of(data, "compactionId").map(str::to_string),
            text: data.get("summary").map(text_of).unwrap_or_default(),
            usage: data.get("usage").and_then(usage_of),
            model,
            time_ms: rec.time_ms,
            raw: rec.raw_ref,
            locator: self.locator(rec, None, None),
            copied: self.copied(rec.time_ms),
        });
    }

    pub(super) fn compaction_end(&mut self, rec: &Rec<'_>, data: &Value, out: &mut Emitter<'_>) {
        let id = str_of(data, "compactionId").map(str::to_string);
        if self.summary.as_ref().is_some_and(|s| s.id == id) {
            self.flush_summary(out);
        }
        if let Some(err) = data.get("error").filter(|e| !e.is_null()) {
            let text = match err {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            let loc = self.locator(rec, None, None);
            let mut ev = self.event(rec, EventKind::System, text, loc);
            ev.subtype = Some("compaction_failed".into());
            if let Some(id) = id {
                set_data(&mut ev, "compactionId", json!(id));
            }
            self.emit(rec, ev, out);
        }
    }

    /// Emits a pending compaction summary that no checkpoint message consumed.
    pub(super) fn flush_summary(&mut self, out: &mut Emitter<'_>) {
        let Some(s) = self.summary.take() else { return };
        let mut ev = Event::new(EventKind::Compaction, s.text, s.locator);
        ev.raw = s.raw;
        ev = ev.at(s.time_ms.and_then(scry_source::time::from_millis));
        ev.surface = Surface::LogOnly;
        ev.subtype = Some("compaction_summary".into());
        ev.model = s.model;
        if s.copied {
            set_data(&mut ev, "copied", json!(true));
        } else {
            ev.usage = s.usage;
        }
        if let Some(id) = s.id {
            set_data(&mut ev, "compactionId", json!(id));
        }
        out.emit(ev);
    }
}
