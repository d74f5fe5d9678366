//! The small hold-back buffer between the record mapper and the [`Emitter`].
//!
//! Codex writes a request's `token_count` *after* the items the request produced — often after
//! the tool output that answers it too (`function_call`, `function_call_output`,
//! `token_count`) — and writes `exec_command_end` / `patch_apply_end` / `item_completed`
//! receipts before or after the output they describe. To attach each usage to exactly one event
//! (the last model output of its request) and each receipt to its result, the events of the
//! current request are held here until its `token_count` arrives or the next request starts
//! (a model output after an input-side event). Memory is bounded by one request's items.

use std::collections::HashMap;

use scry_model::{Event, EventKind, TokenUsage};
use scry_source::Emitter;
use serde_json::Value;

/// What a completion receipt says about a call.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub(crate) struct Receipt {
    /// Exit code when recorded.
    pub exit_code: Option<i64>,
    /// Duration in milliseconds when recorded.
    pub duration_ms: Option<u64>,
    /// `false` when the receipt reports failure (`success: false`, `status: failed`).
    pub success: Option<bool>,
}

/// Receipts kept for calls whose result has not arrived yet, at most this many.
const MAX_WAITING_RECEIPTS: usize = 4096;

/// Held-back events of the current request plus receipts waiting for their results.
#[derive(Debug, Default)]
pub(crate) struct Pending {
    events: Vec<Event>,
    last_model: Option<usize>,
    input_after_model: bool,
    pub(crate) receipts: HashMap<String, Receipt>,
    /// Receipt changes in order (kept `Some`, used `None`), for resume state.
    pub(crate) receipts_log: Option<Vec<(String, Option<Receipt>)>>,
}

impl Pending {
    /// A model output (assistant text, thinking, tool call). Starts a new request when an
    /// input-side event came after the previous model output.
    pub(crate) fn model(&mut self, ev: Event, out: &mut Emitter<'_>) {
        if self.input_after_model {
            self.flush(out);
        }
        self.last_model = Some(self.events.len());
        self.events.push(ev);
    }

    /// Anything that is not a model output. Held only while a request is open.
    pub(crate) fn input(&mut self, ev: Event, out: &mut Emitter<'_>) {
        if self.last_model.is_none() {
            out.emit(ev);
            return;
        }
        self.input_after_model = true;
        self.events.push(ev);
    }

    /// A tool result: a receipt that arrived first is applied, then it is held like input.
    pub(crate) fn result(&mut self, mut ev: Event, out: &mut Emitter<'_>) {
        if let Some(id) = &ev.call_id {
            if let Some(r) = self.receipts.remove(id) {
                if let Some(log) = self.receipts_log.as_mut() {
                    log.push((id.clone(), None));
                }
                apply(&mut ev, &r);
            }
        }
        self.input(ev, out);
    }

    /// A completion receipt for `call_id`: applied to a held result, or kept until the result
    /// arrives.
    pub(crate) fn receipt(&mut self, call_id: &str, r: Receipt) {
        if let Some(ev) = self
            .events
            .iter_mut()
            .rev()
            .find(|e| e.kind == EventKind::ToolResult && e.call_id.as_deref() == Some(call_id))
        {
            apply(ev, &r);
            return;
        }
        if self.receipts.len() < MAX_WAITING_RECEIPTS {
            if let Some(log) = self.receipts_log.as_mut() {
                log.push((call_id.to_string(), Some(r.clone())));
            }
            self.receipts.insert(call_id.to_string(), r);
        }
    }

    /// Attaches a request's usage to its last model output and closes the request. Returns the
    /// usage back when no held model output can take it (the caller then emits it on an event
    /// of its own).
    pub(crate) fn usage(&mut self, usage: TokenUsage, out: &mut Emitter<'_>) -> Option<TokenUsage> {
        let taken = match self.last_model.and_then(|i| self.events.get_mut(i)) {
            Some(ev) if ev.usage.is_none() && !is_copied(ev) => {
                ev.usage = Some(usage);
                true
            }
            _ => false,
        };
        self.flush(out);
        (!taken).then_some(usage)
    }

    /// True when nothing is held back (no request open): a safe point.
    pub(crate) fn is_idle(&self) -> bool {
        self.events.is_empty() && self.last_model.is_none() && !self.input_after_model
    }

    /// Emits everything held.
    pub(crate) fn flush(&mut self, out: &mut Emitter<'_>) {
        for ev in self.events.drain(..) {
            out.emit(ev);
        }
        self.last_model = None;
        self.input_after_model = false;
    }
}

/// Whether an event was marked as copied parent history.
pub(crate) fn is_copied(ev: &Event) -> bool {
    ev.data
        .as_ref()
        .and_then(|d| d.get("copied"))
        .and_then(Value::as_bool)
        .unwrap_or(false)
}

/// Fills what a receipt knows into a result, never overwriting recorded values.
fn apply(ev: &mut Event, r: &Receipt) {
    if ev.exit_code.is_none() {
        ev.exit_code = r.exit_code;
    }
    if ev.duration_ms.is_none() {
        ev.duration_ms = r.duration_ms;
    }
    if ev.is_error.is_none() {
        ev.is_error = match (ev.exit_code, r.success) {
            (Some(c), _) => Some(c != 0),
            (None, Some(s)) => Some(!s),
            (None, None) => None,
        };
    }
}
