//! Relations of one event (S-Q6): its surface, what replaced it, what it replaced, and its
//! source and derived events — only where the event model records the link:
//!
//! Derived:
//! - **Replacement chain** of a shadowed event: by the shared surface rules (S-Q2, see
//!   [`super::surface`]) the first compaction group whose shadowed prefix covers the event
//!   (Claude compact boundary + summary, Codex `compacted`, pi / OpenCode compaction), then the
//!   group that shadowed that group, and so on until a group that is current. Where the
//!   provider recorded the replacing event itself (DSH: a compaction's `replacedEvents`), that
//!   record is used instead (`rule: "recorded"`).
//! - **What a compaction replaced**: the seq span newly shadowed by its group (events before it
//!   that earlier compactions had not already replaced), with the count of events in it that
//!   were current; or the recorded `replacedEvents` (DSH).
//! - **Compaction group**: the run of compaction events it belongs to (boundary + summary).
//! - **Source / derived**: a tool result's call and a call's results, by `call_id` (the pairing
//!   the providers record; a result whose call id matches no call is `unconfirmed`, P3).
//!
//! Not derived (no link in the model, so nothing is claimed): which event replaced an event
//! the *provider* marked shadowed without naming the replacement (Gemini `$rewindTo`, pi
//! branches, OpenCode reverts, MT-Agent `compression`, Deep Agents summarization) — the result
//! says so in `note`; UI mirrors and the event they mirror (the providers drop mirrors of items
//! they read elsewhere, e.g. Codex `event_msg`, and record no link for those they keep); a
//! subagent's own session (see `trace`), and the records of a split message.

use scry_model::{ErrorCode, Event, EventKind, Header, Surface, Warning};
use scry_source::EventSink;
use serde::{Serialize, Serializer};
use serde_json::{json, Value};

use super::clause::surface_name;
use super::surface::SurfaceScan;
use super::EventRow;
use crate::error::{QueryError, QueryResult};
use crate::{render, session_read, Availability, Context};

/// One step of a replacement chain: the events that replaced the previous one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Link {
    /// Seqs of the replacing events (a compaction group).
    pub seqs: Vec<u32>,
    /// Their subtypes, in the same order.
    pub subtypes: Vec<Option<String>>,
    /// `compaction` (the shared surface rules) or `recorded` (the provider named it).
    pub rule: &'static str,
    /// The surface of the replacing group's first event.
    pub surface: Surface,
}

/// An event related to the one asked about.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Related {
    /// Its seq.
    pub seq: u32,
    /// Its 1-based number.
    pub event: u32,
    /// Its kind.
    pub kind: EventKind,
    /// Its tool name.
    pub tool: Option<String>,
    /// How it is related: `call_id`.
    pub via: &'static str,
}

/// The relations of one event.
#[derive(Debug)]
pub struct Relations {
    /// The header it was computed from (S-Q3).
    pub header: Header,
    /// The source fingerprint (S-Q3).
    pub fingerprint: String,
    /// Live / persisted (S-Q1).
    pub availability: Availability,
    /// The event (derived surface, preview).
    pub event: EventRow,
    /// The surface its provider gave it (before the shared rules).
    pub provider_surface: Surface,
    /// What replaced it, then what replaced that, … (empty when current or not recorded).
    pub replaced_by: Vec<Link>,
    /// Its compaction group (seqs), for a compaction event.
    pub group: Vec<u32>,
    /// For a compaction: the span it replaced (`from_seq`, `to_seq`, `events`) or the recorded
    /// list.
    pub replaces: Option<Value>,
    /// Source events (a result's call).
    pub sources: Vec<Related>,
    /// Derived events (a call's results).
    pub derived: Vec<Related>,
    /// What could not be derived, in words.
    pub notes: Vec<String>,
    /// Read warnings.
    pub warnings: Vec<Warning>,
}

struct Scan {
    target: u32,
    event: Option<Event>,
    surfaces: SurfaceScan,
    /// Provider surface per seq (one byte each), for counting what a compaction replaced.
    provider: Vec<Surface>,
    /// Every tool call / result with a call id: (call id, seq, kind, tool).
    calls: Vec<(String, u32, EventKind, Option<String>)>,
    warnings: Vec<Warning>,
}

impl EventSink for Scan {
    fn event(&mut self, e: Event) {
        self.surfaces.add(&e);
        self.provider.push(e.surface);
        if matches!(e.kind, EventKind::ToolCall | EventKind::ToolResult) {
            if let Some(id) = &e.call_id {
                self.calls.push((id.clone(), e.seq, e.kind, e.tool.clone()));
            }
        }
        if e.seq == self.target {
            self.event = Some(e);
        }
    }
    fn warning(&mut self, w: Warning) {
        self.warnings.push(w);
    }
}

/// Parses `--relations`: a 0-based seq (`12`) or a display number (`E13`).
pub fn parse_target(value: &str) -> QueryResult<u32> {
    let v = value.trim();
    let bad = || {
        QueryError::usage(
            ErrorCode::InvalidFilter,
            format!("invalid event '{value}': use a seq (0-based) or E<n>"),
        )
    };
    match v.strip_prefix(['E', 'e']) {
        Some(n) => n
            .parse::<u32>()
            .ok()
            .and_then(|n| n.checked_sub(1))
            .ok_or_else(bad),
        None => v.parse::<u32>().map_err(|_| bad()),
    }
}

fn link(s: &SurfaceScan, run: (u32, u32), rule: &'static str) -> Link {
    let seqs: Vec<u32> = (run.0..=run.1).collect();
    let subtypes = seqs
        .iter()
        .map(|q| s.compaction(*q).and_then(|c| c.subtype.clone()))
        .collect();
    let provider = s
        .compaction(run.0)
        .map_or(Surface::Current, |c| c.provider_surface);
    Link {
        seqs,
        subtypes,
        rule,
        surface: s.surface(run.0, provider),
    }
}

/// The replacement chain of the event at `seq` with provider surface `provider`.
fn chain(s: &SurfaceScan, seq: u32, provider: Surface) -> Vec<Link> {
    let mut out = Vec::new();
    let (mut at, mut at_surface) = (seq, provider);
    while out.len() < 10_000 {
        let next = if let Some(by) = s.recorded.get(&at).copied() {
            let run = s.run_of(by).map_or((by, by), |r| (by, r.1.max(by)));
            Some(link(s, run, "recorded"))
        } else if at_surface == Surface::Current {
            s.shadower_of(at)
                .and_then(|sh| s.run_of(sh.seq))
                .map(|run| link(s, run, "compaction"))
        } else {
            None
        };
        let Some(l) = next else { break };
        let Some(&first) = l.seqs.first() else { break };
        if first <= at {
            break;
        }
        at = first;
        at_surface = s
            .compaction(first)
            .map_or(Surface::Current, |c| c.provider_surface);
        out.push(l);
    }
    out
}

/// The relations of event `seq` (0-based) of session `id`.
pub fn relations(ctx: &Context, id: &str, seq: u32) -> QueryResult<Relations> {
    let opened = session_read::open(ctx, id)?;
    relations_from(&opened, seq)
}

/// [`relations`] of a session already opened, local or stored elsewhere (the team store).
pub fn relations_from(opened: &dyn session_read::Streamed, seq: u32) -> QueryResult<Relations> {
    let fingerprint = format!("{:016x}", opened.fingerprint());
    let mut scan = Scan {
        target: seq,
        event: None,
        surfaces: SurfaceScan::default(),
        provider: Vec::new(),
        calls: Vec::new(),
        warnings: Vec::new(),
    };
    let header = opened.stream(&mut scan)?;
    let Some(e) = scan.event.take() else {
        return Err(QueryError::new(
            ErrorCode::EventNotFound,
            format!(
                "no event with seq {seq} in {} (it has {} event{}: seqs 0-{})",
                header.uri,
                scan.surfaces.total,
                if scan.surfaces.total == 1 { "" } else { "s" },
                scan.surfaces.total.saturating_sub(1)
            ),
        ));
    };
    let s = &scan.surfaces;
    let surface = s.surface(e.seq, e.surface);
    let replaced_by = chain(s, e.seq, e.surface);
    let mut notes = Vec::new();
    if surface == Surface::Shadowed && replaced_by.is_empty() {
        notes.push(format!(
            "shadowed by the {} provider itself; the event that replaced it is not recorded",
            header.provider
        ));
    }
    let mut group = Vec::new();
    let mut replaces = None;
    if e.kind == EventKind::Compaction {
        if let Some(run) = s.run_of(e.seq) {
            group = (run.0..=run.1).collect();
        }
        let recorded: Vec<u32> = {
            let mut r: Vec<u32> = s
                .recorded
                .iter()
                .filter(|(_, by)| **by == e.seq)
                .map(|(k, _)| *k)
                .collect();
            r.sort_unstable();
            r
        };
        if !recorded.is_empty() {
            replaces = Some(json!({ "rule": "recorded", "seqs": recorded }));
        } else if let Some(pos) = s.shadowers.iter().position(|sh| group.contains(&sh.seq)) {
            let end = s
                .shadowers
                .iter()
                .filter(|sh| group.contains(&sh.seq))
                .map(|sh| sh.end)
                .max()
                .unwrap_or(0);
            let prev = s
                .shadowers
                .get(..pos)
                .map_or(0, |p| p.iter().map(|sh| sh.end).max().unwrap_or(0));
            if end > prev {
                let count = (prev..end)
                    .filter(|q| scan.provider.get(*q as usize) == Some(&Surface::Current))
                    .count();
                replaces = Some(json!({
                    "rule": "compaction",
                    "from_seq": prev,
                    "to_seq": end - 1,
                    "events": count,
                }));
            } else {
                replaces = Some(json!({ "rule": "compaction", "events": 0 }));
            }
        }
    }
    let related = |kind: EventKind| -> Vec<Related> {
        let Some(id) = &e.call_id else {
            return Vec::new();
        };
        scan.calls
            .iter()
            .filter(|(cid, q, k, _)| cid == id && *k == kind && *q != e.seq)
            .map(|(_, q, k, tool)| Related {
                seq: *q,
                event: q.saturating_add(1),
                kind: *k,
                tool: tool.clone(),
                via: "call_id",
            })
            .collect()
    };
    let (sources, derived) = match e.kind {
        EventKind::ToolResult => (related(EventKind::ToolCall), Vec::new()),
        EventKind::ToolCall => (Vec::new(), related(EventKind::ToolResult)),
        _ => (Vec::new(), Vec::new()),
    };
    if e.kind == EventKind::ToolResult && sources.is_empty() {
        notes.push(match &e.call_id {
            Some(id) => format!("unconfirmed: no tool call with call id '{id}' (SPEC P3)"),
            None => "the result carries no call id: its call is not recorded".to_string(),
        });
    }
    if e.kind == EventKind::ToolCall && derived.is_empty() {
        notes.push("no result recorded for this call".to_string());
    }
    Ok(Relations {
        event: EventRow::of(&e, surface, None),
        provider_surface: e.surface,
        header,
        fingerprint,
        availability: opened.availability(),
        replaced_by,
        group,
        replaces,
        sources,
        derived,
        notes,
        warnings: scan.warnings,
    })
}

impl Relations {
    /// The JSON contract of `events --relations --json`.
    pub fn to_json(&self) -> Value {
        json!({
            "session": render::header_json(&self.header),
            "fingerprint": self.fingerprint,
            "event": self.event,
            "surface": surface_name(self.event.surface),
            "provider_surface": surface_name(self.provider_surface),
            "replaced_by": self.replaced_by,
            "group": self.group,
            "replaces": self.replaces,
            "sources": self.sources,
            "derived": self.derived,
            "notes": self.notes,
            "warnings": render::warnings_json(&self.warnings),
        })
    }
}

impl Serialize for Relations {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.to_json().serialize(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use scry_model::Locator;

    #[test]
    fn targets() {
        assert_eq!(parse_target("12").unwrap(), 12);
        assert_eq!(parse_target("E13").unwrap(), 12);
        assert!(parse_target("E0").is_err());
        assert!(parse_target("x").is_err());
    }

    #[test]
    fn chains_follow_later_compactions() {
        use EventKind::*;
        let kinds = [
            User, Assistant, Compaction, Compaction, User, Compaction, User,
        ];
        let mut s = SurfaceScan::default();
        for (i, k) in kinds.iter().enumerate() {
            let mut e = Event::new(*k, "x", Locator::native(&format!("e{i}"), None));
            e.seq = i as u32;
            s.add(&e);
        }
        let c = chain(&s, 0, Surface::Current);
        let seqs: Vec<Vec<u32>> = c.iter().map(|l| l.seqs.clone()).collect();
        assert_eq!(seqs, vec![vec![2, 3], vec![5]]);
        assert_eq!(c[0].surface, Surface::Shadowed);
        assert_eq!(c[1].surface, Surface::Current);
        assert!(chain(&s, 6, Surface::Current).is_empty());
        assert!(chain(&s, 1, Surface::LogOnly).is_empty());
    }
}
