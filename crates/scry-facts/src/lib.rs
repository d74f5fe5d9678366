//! Deterministic facts derived from a normalized session (SPEC §6): pure functions over
//! [`scry_model`] types, no I/O, no CLI.
//!
//! Every fact carries its [`Origin`] (S-F1): provenance (`observed` / `derived` /
//! `candidate`), the extractor that produced it (`tool:Write`, `item:FileChange`,
//! `shell:redirect`, …) and the evidence handle `E<n>·T<n>` + locator.
//!
//! | module | what | spec |
//! |---|---|---|
//! | [`commands`] | commands ledger | S-F2 |
//! | [`files`] (+ [`file_tools`], [`paths`], [`shell`]) | files ledger, project / runtime / log | S-F3 |
//! | [`errors`], [`jobs`] | failures with "fixed later?", background jobs from receipts | S-F4 |
//! | [`status`] | turn status with evidence | S-F5 |
//! | [`graph`] | reference and lineage edges | S-F6 |
//! | [`tokens`] | token totals per session / turn / model / day | S-F7 |
//! | [`surfaces`] | current / shadowed / log-only, context pack | S-Q2 |
//! | [`mentions`] | candidate path mentions (`text:path-mention`), never in a ledger | S-F1 |
//! | [`lineage`] | trace: ancestors, descendants, root xor unresolved parent | S-Q6 |
//! | [`overview`] | the stats card, agreeing with every ledger | S-C2 |
//! | [`fold`] | every ledger but turn statuses, folded while events stream (no session held) | S-C2, P6 |
//! | [`session_fold`], [`pack_fold`] | digest / workspace / graph facts and the context pack, folded while events stream | S-C7, S-Q2 |
//! | [`turns`] | per-turn summary: time, range, counts, prompt, answer, status | S-C3 |
//!
//! Shell commands are parsed with `brush-parser` (see [`shell::parse`]); here-doc bodies are
//! data, never commands.

/// Version of the fact extractors (index layer L2, SPEC S-I1). Bump it whenever any ledger,
/// status, surface or token rule changes its output, so stored facts are recomputed from the
/// stored events.
pub const EXTRACTOR_VERSION: u32 = 1;

/// Version of the edge rules (index layer L3, SPEC S-I1): bump when [`graph`] changes.
pub const EDGE_VERSION: u32 = 1;

pub mod commands;
pub mod errors;
pub mod file_tools;
pub mod files;
pub mod fold;
pub mod graph;
pub mod jobs;
pub mod lineage;
pub mod mentions;
pub mod overview;
pub mod pack_fold;
pub mod pairing;
pub mod paths;
pub mod provenance;
pub mod session_fold;
pub mod shell;
pub mod status;
pub mod surfaces;
pub mod text;
pub mod tokens;
pub mod turns;

pub use commands::{commands, CommandFilter, CommandRow, Outcome};
pub use errors::{failures, Failure};
pub use files::{files_ledger, FileWrite, FilesLedger, GroupCounts};
pub use fold::{LedgerFold, Ledgers};
pub use graph::{
    call_candidates, lineage_edges, reference_candidates, reference_edges, reference_edges_from,
    Edge, EdgeKind, ReferenceCandidate,
};
pub use jobs::{jobs, Job, JobStatus};
pub use lineage::{trace, Lineages, Trace};
pub use mentions::{path_mentions, Mention};
pub use overview::{
    overview, overview_counted, overview_from, overview_of, EventCounts, Facts, Overview,
};
pub use pack_fold::ContextFold;
pub use paths::FileGroup;
pub use provenance::{Evidence, Origin, Provenance};
pub use session_fold::{FoldedSession, SessionFold};
pub use status::{turn_statuses, TurnState, TurnStatus};
pub use surfaces::{apply_surfaces, context_pack, surfaces, ContextPack};
pub use tokens::{tokens, TokenFold, TokenReport};
pub use turns::{turn_summaries, TurnSummary};
