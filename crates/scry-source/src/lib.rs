//! The door every provider goes through: the [`Source`] trait, the streaming [`Emitter`], what discovery returns
//! ([`SourceFile`], [`Discovery`]), the environment a provider may look at ([`Env`]), and the
//! shared reading helpers — the streaming JSONL reader ([`lines`], [`jsonl`]), time parsing
//! ([`time`]) and small JSON accessors ([`json`]); with the `sqlite` feature, read-only SQLite
//! stores read through their live `-wal` (`sqlite`).
//!
//! Callers run a provider's parse through [`guard`], which turns a panic in it into a value.
//!
//! Providers that can continue an append-only file from a safe point implement
//! [`Source::resume_support`] / [`Source::parse_into_from`] (see [`resume`]).
//!
//! Providers never know about the index or the CLI; they turn files into
//! [`scry_model::Session`]s and report problems as located [`scry_model::Warning`]s.

mod emit;
mod env;
mod error;
pub mod guard;
pub mod json;
pub mod jsonl;
pub mod lines;
pub mod par;
pub mod resume;
mod source;
#[cfg(feature = "sqlite")]
pub mod sqlite;
pub mod time;

pub use emit::{collect, CollectSink, Emitter, EventSink};
pub use env::Env;
pub use error::SourceError;
pub use resume::{EmitterState, ResumePoint};
pub use source::{
    entry_stat, file_stat, list_dir, metadata_stat, Discovery, Root, Source, SourceFile,
};
