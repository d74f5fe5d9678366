//! A step whose stream ended without its `assistant/message`: rebuilt from the buffered chunks
//! (see [`crate::chunks`]) and marked `data.partial = true`.

use scry_model::{Event, EventKind, Locator, RawRef, Surface};
use scry_source::json::decode_json_string;
use scry_source::Emitter;
use serde_json::{json, Value};

use crate::chunks::Origin;

use super::{set_data, usage_of, Call, Mapper, Rec};

impl Mapper<'_> {
    /// Emits the step rebuilt from its chunks when no `assistant/message` closed it.
    pub(super) fn flush_chunks(&mut self, out: &mut Emitter<'_>) {
        if self.chunks.is_empty() {
            return;
        }
        let pending = std::mem::take(&mut self.chunks);
        let Some(origin) = pending.origin else { return };
        let raw_ref = RawRef {
            file: 0,
            offset: origin.offset,
            len: origin.len,
            line: origin.line,
        };
        let copied = self.copied(origin.time_ms);
        let mut events = Vec::new();
        for (i, b) in pending.blocks.values().enumerate() {
            let loc = Locator::record(origin.line, &origin.raw, Some(i));
            let mut ev = match b.kind.as_str() {
                "reasoning" => Event::new(EventKind::Thinking, b.text.clone(), loc),
                "tool-call" => {
                    let mut ev = Event::new(EventKind::ToolCall, String::new(), loc);
                    ev.tool = b.name.clone();
                    ev.call_id = b.call_id.clone();
                    ev.args = Some(decode_json_string(&Value::String(b.args.clone())));
                    if let Some(id) = &b.call_id {
                        self.calls.insert(
                            id.clone(),
                            Call {
                                tool: b.name.clone().unwrap_or_default(),
                                start_ms: origin.time_ms,
                            },
                        );
                        self.emitted_calls.insert(id.clone());
                    }
                    ev
                }
                _ => Event::new(EventKind::Assistant, b.text.clone(), loc),
            };
            ev.raw = raw_ref;
            ev = ev.at(origin.time_ms.and_then(scry_source::time::from_millis));
            ev.surface = Surface::LogOnly;
            ev.model = self.model.clone();
            set_data(&mut ev, "partial", json!(true));
            if !b.ended {
                set_data(
                    &mut ev,
                    "note",
                    json!("rebuilt from streamed deltas; the block never ended"),
                );
            }
            if copied {
                set_data(&mut ev, "copied", json!(true));
            }
            events.push(ev);
        }
        if events.is_empty() {
            let loc = Locator::record(origin.line, &origin.raw, None);
            let mut ev = Event::new(EventKind::Assistant, String::new(), loc);
            ev.raw = raw_ref;
            ev = ev.at(origin.time_ms.and_then(scry_source::time::from_millis));
            ev.surface = Surface::LogOnly;
            ev.subtype = Some("empty_response".into());
            set_data(&mut ev, "partial", json!(true));
            events.push(ev);
        }
        let usage = pending.usage.as_ref().and_then(usage_of);
        let n = events.len();
        for (i, mut ev) in events.into_iter().enumerate() {
            if i + 1 == n && !copied {
                ev.usage = usage;
            }
            out.emit(ev);
        }
    }
}

pub(super) fn origin_of(rec: &Rec<'_>) -> Origin {
    Origin {
        line: rec.raw_ref.line,
        offset: rec.raw_ref.offset,
        len: rec.raw_ref.len,
        raw: rec.raw.to_vec(),
        time_ms: rec.time_ms,
    }
}
