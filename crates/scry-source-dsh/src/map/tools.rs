//! Tool calls and results: `tool/call` (confirms a call the model message already carried and
//! starts its duration clock), `tool/result` (one ToolResult per `tool-result` block, paired by
//! call id, `isError`, the harness's `[exit code: N]` marker) and the programmatic-tool-calling
//! sub-calls `tool/ptc-dispatch-start` / `tool/ptc-dispatch`.

use scry_model::{EventKind, Locator, Warning, WarningKind};
use scry_source::json::{decode_json_string, str_of, text_of};
use scry_source::Emitter;
use serde_json::{json, Value};

use super::{exit_code_marker, set_data, Call, Mapper, Rec};

impl Mapper<'_> {
    pub(super) fn tool_call_record(&mut self, rec: &Rec<'_>, data: &Value, out: &mut Emitter<'_>) {
        let call_id = str_of(data, "callId").unwrap_or("").to_string();
        let name = str_of(data, "name").unwrap_or("").to_string();
        if !call_id.is_empty() && self.emitted_calls.contains(&call_id) {
            // Execution start of a call the model message already recorded.
            if let Some(c) = self.calls.get_mut(&call_id) {
                c.start_ms = rec.time_ms.or(c.start_ms);
            }
            return;
        }
        let loc = self.locator(rec, None, None);
        let mut ev = self.event(rec, EventKind::ToolCall, String::new(), loc);
        ev.tool = Some(name.clone());
        ev.call_id = Some(call_id.clone()).filter(|c| !c.is_empty());
        ev.args = data.get("arguments").map(decode_json_string);
        ev.model = self.model.clone();
        if self.copied(rec.time_ms) {
            set_data(&mut ev, "copied", json!(true));
        }
        if !call_id.is_empty() {
            self.calls.insert(
                call_id.clone(),
                Call {
                    tool: name,
                    start_ms: rec.time_ms,
                },
            );
            self.emitted_calls.insert(call_id);
        }
        self.emit(rec, ev, out);
    }

    /// A ToolResult for `call_id` with `text`, paired with its call (or marked unconfirmed).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn result_event(
        &mut self,
        rec: &Rec<'_>,
        call_id: &str,
        text: String,
        is_error: Option<bool>,
        loc: Locator,
        out: &mut Emitter<'_>,
        extra: Option<(&str, Value)>,
    ) {
        let mut ev = self.event(rec, EventKind::ToolResult, text, loc);
        ev.call_id = Some(call_id.to_string()).filter(|c| !c.is_empty());
        ev.is_error = is_error;
        ev.exit_code = exit_code_marker(&ev.text);
        match self.calls.get(call_id) {
            Some(call) => {
                ev.tool = Some(call.tool.clone());
                if let (Some(a), Some(b)) = (call.start_ms, rec.time_ms) {
                    ev.duration_ms = u64::try_from(b - a).ok();
                }
            }
            None => {
                set_data(&mut ev, "unconfirmed", json!(true));
                out.warn(Warning::at(
                    WarningKind::UnpairedResult,
                    format!("tool result for call id '{call_id}' matches no tool call"),
                    self.path,
                    Some(rec.raw_ref.line),
                ));
            }
        }
        if let Some((k, v)) = extra {
            set_data(&mut ev, k, v);
        }
        if self.copied(rec.time_ms) {
            set_data(&mut ev, "copied", json!(true));
        }
        self.emit(rec, ev, out);
    }

    pub(super) fn tool_result(&mut self, rec: &Rec<'_>, data: &Value, out: &mut Emitter<'_>) {
        let null = Value::Null;
        let msg = data.get("message").unwrap_or(&null);
        let id = str_of(msg, "id");
        let error = data.get("error").cloned();
        let mut any = false;
        if let Some(Value::Array(blocks)) = msg.get("content") {
            for (i, block) in blocks.iter().enumerate() {
                if str_of(block, "type") != Some("tool-result") {
                    continue;
                }
                any = true;
                let call_id = str_of(block, "toolCallId").unwrap_or("").to_string();
                let text = block.get("content").map(text_of).unwrap_or_default();
                let is_error = block.get("isError").and_then(Value::as_bool);
                let loc = self.locator(rec, id, Some(i));
                let extra = error.clone().map(|e| ("error", e));
                self.result_event(rec, &call_id, text, is_error, loc, out, extra);
            }
        }
        if !any {
            let call_id = scry_source::json::path(msg, &["source", "callId"])
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string();
            let text = msg.get("content").map(text_of).unwrap_or_default();
            let loc = self.locator(rec, id, None);
            let extra = error.map(|e| ("error", e));
            self.result_event(rec, &call_id, text, None, loc, out, extra);
        }
    }

    pub(super) fn ptc_start(&mut self, rec: &Rec<'_>, data: &Value, out: &mut Emitter<'_>) {
        let call_id = str_of(data, "subCallId").unwrap_or("").to_string();
        let name = str_of(data, "name").unwrap_or("").to_string();
        let loc = self.locator(rec, None, None);
        let mut ev = self.event(rec, EventKind::ToolCall, String::new(), loc);
        ev.tool = Some(name.clone());
        ev.call_id = Some(call_id.clone()).filter(|c| !c.is_empty());
        ev.args = data.get("arguments").map(decode_json_string);
        ev.subtype = Some("ptc_dispatch".into());
        set_data(
            &mut ev,
            "rootCallId",
            data.get("rootCallId").cloned().unwrap_or(Value::Null),
        );
        set_data(
            &mut ev,
            "parentCallId",
            data.get("parentCallId").cloned().unwrap_or(Value::Null),
        );
        self.calls.insert(
            call_id.clone(),
            Call {
                tool: name,
                start_ms: rec.time_ms,
            },
        );
        self.emitted_calls.insert(call_id);
        self.emit(rec, ev, out);
    }

    pub(super) fn ptc_result(&mut self, rec: &Rec<'_>, data: &Value, out: &mut Emitter<'_>) {
        let call_id = str_of(data, "subCallId").unwrap_or("").to_string();
        let text = data.get("content").map(text_of).unwrap_or_default();
        let is_error = data.get("isError").and_then(Value::as_bool);
        let loc = self.locator(rec, None, None);
        let extra = data.get("rootCallId").cloned().map(|r| ("rootCallId", r));
        self.result_event(rec, &call_id, text, is_error, loc, out, extra);
    }
}
