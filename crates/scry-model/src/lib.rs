//! The normalized model of an agent session: one [`Session`] = a [`Header`] plus an ordered list of
//! [`Event`]s and the [`Warning`]s raised while reading it.
//!
//! Every provider (Claude Code, Codex, Gemini CLI, …) maps its own on-disk records into these types;
//! everything downstream (facts, index, query, front ends) reads only these types. The crate holds
//! data and pure helpers only: no I/O.
//!
//! Semantics worth knowing (SPEC §2):
//! - An [`EventKind::User`] event is a *human prompt* and starts a turn (S-E1). Injected context,
//!   meta records and `[SYSTEM]` prompts are [`EventKind::Meta`]; a compaction summary is
//!   [`EventKind::Compaction`]. Neither starts a turn.
//! - [`TokenUsage::input`] never includes cache reads; each provider converts its own semantics.
//!   A message's usage is attached to exactly one event, so summing events never double counts.
//! - [`Locator`]s are stable references that survive appends (S-E2).

mod error;
mod event;
mod locator;
pub mod lossy;
mod provider;
mod session;
mod turns;
mod usage;
mod warning;

pub use error::ErrorCode;
pub use event::{Event, EventKind, RawRef, Surface, TimeSource};
pub use locator::Locator;
pub use provider::{ParseProviderError, ProviderId};
pub use session::first_line;
pub use session::{Header, Lineage, LineageKind, Session, SessionKind, TitleSource};
pub use turns::{assign_turns, turn_spans, TurnSpan};
pub use usage::TokenUsage;
pub use warning::{Warning, WarningKind};

/// A point in time (UTC). Serialized as RFC 3339.
pub type Timestamp = jiff::Timestamp;
