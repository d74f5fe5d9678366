//! Deterministic facts derived from a normalized session (SPEC §6): pure functions over
//! [`scry_model`] types, no I/O.
//!
//! Every fact carries its [`Origin`]: provenance (`observed` / `derived` / `candidate`), the
//! extractor that produced it, and the evidence handle `E<n>·T<n>` + locator.

pub mod commands;
pub mod errors;
pub mod file_tools;
pub mod files;
pub mod jobs;
pub mod pairing;
pub mod paths;
pub mod provenance;
pub mod shell;
pub mod status;
pub mod text;

pub use provenance::{Evidence, Origin, Provenance};
