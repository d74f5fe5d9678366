//! Surfaces (SPEC S-Q2): one function derives, for every provider, which events the model sees
//! now (`current`), which were replaced (`shadowed`) and which it never saw (`log-only`); and
//! [`context_pack`] returns the current surface as a bounded hand-off pack.
//!
//! Rules, applied to the provider's own marks:
//! - `log-only` and `shadowed` set by the provider stay as they are (DSH `surfaceOp`, Gemini
//!   `$rewindTo`, pi branches, OpenCode reverts, UI mirrors).
//! - A `Compaction` event that is `current` shadows every `current` event before it (Claude
//!   compact boundary / summary, Codex `compacted`, pi / OpenCode compaction), except the run of
//!   `Compaction` events directly before it (a boundary and its summary form one group).
//! - A compaction whose provider already computed the replaced span (`data.surfaceOp`, DSH) or
//!   that is itself `log-only` (a failed or unconsumed compaction) shadows nothing.
//! - pi's `data.firstKeptEntryId` keeps the events from that entry on current.

use scry_model::{Event, EventKind, Session, Surface};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::provenance::Evidence;

/// Whether `e` shadows what precedes its group: a current compaction whose provider did not
/// compute the surface itself (`surfaceOp`). Shared with the streaming scan of `scry events`.
pub fn shadows(e: &Event) -> bool {
    e.kind == EventKind::Compaction
        && e.surface == Surface::Current
        && !e
            .data
            .as_ref()
            .is_some_and(|d| d.get("surfaceOp").is_some() || d.get("surface_op").is_some())
}

/// Index where the current surface starts: the first event of the last shadowing compaction
/// group, or `None` when no compaction shadows anything.
pub fn surface_start(events: &[Event]) -> Option<usize> {
    let last = events.iter().rposition(shadows)?;
    let mut start = last;
    while start > 0
        && events
            .get(start - 1)
            .is_some_and(|e| e.kind == EventKind::Compaction)
    {
        start -= 1;
    }
    Some(start)
}

/// The pi-style first kept entry id of a compaction (`firstKeptEntryId`), if it names one.
pub fn first_kept_id(compaction: &Event) -> Option<&str> {
    let d = compaction.data.as_ref()?;
    d.get("firstKeptEntryId")
        .or_else(|| d.get("first_kept_entry_id"))?
        .as_str()
}

/// The index of the first kept event named by a pi-style `firstKeptEntryId`.
fn first_kept(events: &[Event], compaction: &Event) -> Option<usize> {
    let id = first_kept_id(compaction)?;
    let exact = format!("id:{id}");
    let part = format!("id:{id}#");
    events
        .iter()
        .position(|e| e.locator.as_str() == exact || e.locator.as_str().starts_with(&part))
}

/// The surface of every event (same order as `events`).
pub fn surfaces(events: &[Event]) -> Vec<Surface> {
    let mut out: Vec<Surface> = events.iter().map(|e| e.surface).collect();
    for (i, e) in events.iter().enumerate() {
        if !shadows(e) {
            continue;
        }
        let mut start = i;
        while start > 0
            && events
                .get(start - 1)
                .is_some_and(|x| x.kind == EventKind::Compaction)
        {
            start -= 1;
        }
        let kept = first_kept(events, e).filter(|&k| k < start);
        for (j, s) in out.iter_mut().enumerate().take(start) {
            if kept.is_some_and(|k| j >= k) {
                continue;
            }
            if *s == Surface::Current {
                *s = Surface::Shadowed;
            }
        }
    }
    out
}

/// Writes [`surfaces`] into the events.
pub fn apply_surfaces(events: &mut [Event]) {
    let s = surfaces(events);
    for (e, s) in events.iter_mut().zip(s) {
        e.surface = s;
    }
}

/// One event of a context pack.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PackItem {
    /// Event handle.
    pub evidence: Evidence,
    /// Event kind.
    pub kind: EventKind,
    /// Tool name for calls / results.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    /// The text (for a tool call: its arguments as JSON), cut when the budget ran out.
    pub text: String,
    /// True when this item's text was cut.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub cut: bool,
}

/// The current surface as a hand-off pack: the last compaction summary plus everything after
/// it that the model sees (thinking and log-only events left out), within a character budget.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ContextPack {
    /// Seq of the first event of the surface (0 without compaction).
    pub from_seq: u32,
    /// The compaction summary the surface starts with, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<PackItem>,
    /// The events after it, oldest first (the most recent ones when the budget was short).
    pub items: Vec<PackItem>,
    /// Events of the surface left out for the budget (the oldest after the summary).
    pub omitted_events: usize,
    /// Characters in `summary` + `items` texts.
    pub chars: usize,
    /// True when anything was left out or cut.
    pub truncated: bool,
}

fn item_text(e: &Event) -> String {
    if e.kind == EventKind::ToolCall {
        match &e.args {
            Some(Value::Null) | None => e.text.clone(),
            Some(a) => a.to_string(),
        }
    } else {
        e.text.clone()
    }
}

fn cut(text: &str, max: usize) -> (String, bool) {
    if text.chars().count() <= max {
        (text.to_string(), false)
    } else {
        (text.chars().take(max).collect(), true)
    }
}

/// The current surface of `session`, at most `max_chars` characters of text.
pub fn context_pack(session: &Session, max_chars: usize) -> ContextPack {
    let events = &session.events;
    let surf = surfaces(events);
    let start = surface_start(events).unwrap_or(0);
    let visible: Vec<&Event> = events
        .iter()
        .zip(&surf)
        .skip(start)
        .filter(|(e, s)| **s == Surface::Current && e.kind != EventKind::Thinking)
        .map(|(e, _)| e)
        .collect();
    let (summary_ev, rest) = match visible.split_first() {
        Some((first, rest)) if first.kind == EventKind::Compaction => {
            // The group's last compaction is the summary; earlier ones are boundaries.
            let n = rest
                .iter()
                .take_while(|e| e.kind == EventKind::Compaction)
                .count();
            let group: Vec<&Event> = std::iter::once(*first)
                .chain(rest.iter().take(n).copied())
                .collect();
            let summary = group
                .iter()
                .rev()
                .find(|e| !e.text.trim().is_empty())
                .copied()
                .or(group.last().copied());
            (summary, rest.get(n..).unwrap_or(&[]))
        }
        _ => (None, &visible[..]),
    };
    let mut budget = max_chars;
    let mut truncated = false;
    let summary = summary_ev.map(|e| {
        let (text, was_cut) = cut(&item_text(e), budget);
        budget -= text.chars().count();
        truncated |= was_cut;
        PackItem {
            evidence: Evidence::of(e),
            kind: e.kind,
            tool: e.tool.clone(),
            text,
            cut: was_cut,
        }
    });
    // Most recent first until the budget runs out; the newest item may be cut.
    let mut items = Vec::new();
    let mut omitted = 0;
    for e in rest.iter().rev() {
        if budget == 0 {
            omitted += 1;
            continue;
        }
        let (text, was_cut) = cut(&item_text(e), budget);
        budget -= text.chars().count();
        truncated |= was_cut;
        items.push(PackItem {
            evidence: Evidence::of(e),
            kind: e.kind,
            tool: e.tool.clone(),
            text,
            cut: was_cut,
        });
    }
    items.reverse();
    truncated |= omitted > 0;
    ContextPack {
        from_seq: u32::try_from(start).unwrap_or(u32::MAX),
        chars: max_chars - budget,
        summary,
        items,
        omitted_events: omitted,
        truncated,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pairing::testkit::Script;
    use scry_model::{Header, ProviderId};
    use serde_json::json;

    fn script() -> Script {
        let mut s = Script::default();
        s.user("first prompt")
            .assistant("old answer")
            .kind(EventKind::Compaction, Some("compact_boundary"), "")
            .kind(
                EventKind::Compaction,
                Some("compact_summary"),
                "Summary: did X",
            )
            .user("second prompt")
            .assistant("new answer");
        s
    }

    #[test]
    fn compaction_shadows_what_precedes_its_group() {
        let mut s = script();
        if let Some(e) = s.events.get_mut(1) {
            e.surface = Surface::LogOnly;
        }
        let got = surfaces(&s.events);
        assert_eq!(
            got,
            vec![
                Surface::Shadowed,
                Surface::LogOnly,
                Surface::Current,
                Surface::Current,
                Surface::Current,
                Surface::Current,
            ]
        );
        assert_eq!(surface_start(&s.events), Some(2));
    }

    #[test]
    fn provider_computed_and_log_only_compactions_shadow_nothing() {
        let mut s = Script::default();
        s.user("a")
            .kind(EventKind::Compaction, Some("compaction"), "sum")
            .user("b")
            .kind(EventKind::Compaction, Some("compaction_summary"), "unused");
        if let Some(e) = s.events.get_mut(1) {
            e.data = Some(json!({"surfaceOp": {"op": "replace", "start": 0, "end": 0}}));
        }
        if let Some(e) = s.events.get_mut(3) {
            e.surface = Surface::LogOnly;
        }
        if let Some(e) = s.events.get_mut(0) {
            e.surface = Surface::Shadowed;
        }
        let got = surfaces(&s.events);
        assert_eq!(
            got,
            vec![
                Surface::Shadowed,
                Surface::Current,
                Surface::Current,
                Surface::LogOnly
            ]
        );
    }

    #[test]
    fn pi_first_kept_entry_stays_current() {
        let mut s = Script::default();
        s.user("a").assistant("b").user("c");
        s.kind(EventKind::Compaction, Some("compaction"), "sum");
        let kept = s.events[1]
            .locator
            .as_str()
            .trim_start_matches("id:")
            .to_string();
        if let Some(e) = s.events.get_mut(3) {
            e.data = Some(json!({ "firstKeptEntryId": kept }));
        }
        let got = surfaces(&s.events);
        assert_eq!(
            got,
            vec![
                Surface::Shadowed,
                Surface::Current,
                Surface::Current,
                Surface::Current
            ]
        );
    }

    #[test]
    fn context_pack_is_summary_plus_tail_and_bounded() {
        let mut sess = Session::new(Header::new(ProviderId::Claude, "x"));
        sess.events = script().events;
        let p = context_pack(&sess, 10_000);
        assert_eq!(
            p.summary.as_ref().map(|s| s.text.as_str()),
            Some("Summary: did X")
        );
        assert_eq!(p.items.len(), 2);
        assert!(!p.truncated);
        assert_eq!(p.from_seq, 2);
        let small = context_pack(&sess, 20);
        assert!(small.truncated);
        assert_eq!(small.chars, 20);
        assert_eq!(small.items.len(), 1);
        assert_eq!(small.omitted_events, 1);
        assert_eq!(small.items[0].text, "new an");
    }
}
