//! Resuming a parse of an append-only source (SPEC S-I2): what a provider hands back at a safe
//! point so an index can later continue from there instead of re-reading the whole file.
//!
//! The protocol, end to end:
//! 1. During a parse, a provider that supports resuming calls [`crate::Emitter::checkpoint`] at
//!    *safe points*: places where everything before `offset` has been consumed and every event
//!    that follows depends only on the bytes after `offset` plus the small provider `state` it
//!    hands over (open call ids, header facts seen so far, the line number …). The emitter adds
//!    its own counters ([`EmitterState`]) and passes a [`ResumePoint`] to the sink — but only when
//!    the sink asked for them ([`crate::EventSink::wants_resume_points`]), so ordinary parses pay
//!    nothing.
//! 2. The index keeps the last point together with a hash of the bytes before `offset`.
//! 3. When the file grew, the index verifies that hash; if the prefix is unchanged it drops the
//!    events and warnings emitted after the point (`emitter.events`, `emitter.warnings`), builds
//!    an emitter with [`crate::Emitter::resumed`] and calls
//!    [`crate::Source::parse_into_from`]. The provider seeks to `offset`, restores `state`, and
//!    emits exactly what a full parse would have emitted after that point, returning the full
//!    header. Any doubt (hash mismatch, shrink, provider error) means a full re-parse instead.

use scry_model::Timestamp;
use serde::{Deserialize, Serialize};

/// The [`crate::Emitter`]'s own counters at a safe point, so numbering (`seq`, turns) and the
/// header facts it completes (times, models, first prompt) continue seamlessly after a resume.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EmitterState {
    /// Events emitted before this point (the next event's `seq`).
    pub events: u32,
    /// Warnings emitted before this point.
    pub warnings: u64,
    /// The current turn number.
    pub turn: u32,
    /// Earliest event time so far.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created: Option<Timestamp>,
    /// Latest event time so far.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub updated: Option<Timestamp>,
    /// Models seen so far, in first-use order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub models: Vec<String>,
    /// The first prompt's title line, once seen.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_prompt: Option<String>,
}

/// An opaque place to continue a parse from (see the module docs).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResumePoint {
    /// Bytes of the primary file (as stored on disk) consumed before this point.
    pub offset: u64,
    /// The emitter's counters at this point.
    pub emitter: EmitterState,
    /// Provider-private state needed to continue; only the provider reads it.
    #[serde(default)]
    pub state: serde_json::Value,
}
