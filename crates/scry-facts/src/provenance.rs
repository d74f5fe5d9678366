//! Provenance of every fact (SPEC S-F1): how it was obtained, by which extractor, and the
//! evidence handle (`E<n>·T<n>` + locator) that lets a reader drill down to the source event.

use scry_model::{Event, Locator};
use serde::{Deserialize, Serialize};

/// How trustworthy a fact is: where it came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Provenance {
    /// A structured field the agent itself recorded (a `Write` tool's `file_path`, a
    /// provider-recorded `FileChange`, an exit code).
    Observed,
    /// A deterministic rule applied to an action that really ran (a shell redirect target, an
    /// `ssh` host, a `scp` destination).
    Derived,
    /// Only mentioned in text; nothing proves anyone acted on it. Never enters a ledger.
    Candidate,
}

impl Provenance {
    /// The snake_case name.
    pub fn as_str(self) -> &'static str {
        match self {
            Provenance::Observed => "observed",
            Provenance::Derived => "derived",
            Provenance::Candidate => "candidate",
        }
    }
}

/// Where a fact was read from: one event of the session.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Evidence {
    /// 1-based display number of the event (`E<n>`), i.e. `seq + 1`.
    pub event: u32,
    /// Turn number (`T<n>`; 0 = preamble before the first prompt).
    pub turn: u32,
    /// The event's stable locator (S-E2).
    pub locator: Locator,
    /// The short handle `E<n>·T<n>`, for people.
    #[serde(default)]
    pub handle: String,
}

impl Evidence {
    /// The evidence handle of `event`.
    pub fn of(event: &Event) -> Self {
        let n = event.seq.saturating_add(1);
        Evidence {
            event: n,
            turn: event.turn,
            locator: event.locator.clone(),
            handle: format!("E{n}·T{}", event.turn),
        }
    }

    /// The short handle `E<n>·T<n>`.
    pub fn handle(&self) -> String {
        format!("E{}·T{}", self.event, self.turn)
    }

    /// The 0-based `seq` of the event.
    pub fn seq(&self) -> u32 {
        self.event.saturating_sub(1)
    }
}

/// Provenance, extractor name and evidence: attached (flattened) to every fact.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Origin {
    /// How the fact was obtained.
    pub provenance: Provenance,
    /// The rule that produced it, e.g. `tool:Write`, `item:FileChange`, `shell:redirect`.
    pub extractor: String,
    /// The event it was read from.
    pub evidence: Evidence,
}

impl Origin {
    /// An origin for `event`.
    pub fn new(provenance: Provenance, extractor: impl Into<String>, event: &Event) -> Self {
        Origin {
            provenance,
            extractor: extractor.into(),
            evidence: Evidence::of(event),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use scry_model::EventKind;

    #[test]
    fn handle_is_one_based_and_serializes_snake_case() {
        let mut e = Event::new(EventKind::ToolCall, "", Locator::native("u1", Some(0)));
        e.seq = 41;
        e.turn = 3;
        let o = Origin::new(Provenance::Derived, "shell:redirect", &e);
        assert_eq!(o.evidence.handle(), "E42·T3");
        let v = serde_json::to_value(&o).unwrap_or_default();
        assert_eq!(v["provenance"], "derived");
        assert_eq!(v["extractor"], "shell:redirect");
        assert_eq!(v["evidence"]["locator"], "id:u1#0");
        assert_eq!(v["evidence"]["handle"], "E42·T3");
    }
}
