//! The query API of scry (SPEC §7, S-Q1…S-Q7): the one door to sessions for every front end —
//! the CLI, the HTTP API (`scry serve`), the web page and MCP all call these functions, so they
//! give the same answers.
//!
//! - [`list()`]: sessions in a scope with the S-Q4 session filters and cursor paging;
//! - [`overview()`]: one session's header, stats and fact card (`show`);
//! - [`turns()`]: the turn directory (`turns`);
//! - [`read()`] / [`event_window()`]: turns, events, a locator, one tool call, an artifact or
//!   the raw records, paged with cursors that are refused once the source changed (`turn`);
//! - [`search()`]: across sessions or within one (S-Q5);
//! - [`events()`] / [`relations()`]: one session's events by seq, time, kind, surface and text
//!   (S-Q4), and one event's replacement chain and source / derived events (S-Q6);
//! - [`lineage()`]: ancestors, descendants, root or first unresolvable parent (S-Q6);
//! - [`commands()`], [`files()`], [`errors()`], [`jobs()`]: the ledgers of one session;
//!   [`graph()`]: its edges to other sessions; [`trace()`]: its lineage among every discovered
//!   session; [`context()`]: its hand-off pack; [`digest()`]: its short story;
//!   [`workspace()`]: every session of a subtree (module [`ops`], one typed request each);
//! - [`headers()`]: batch reads, one result per input in order, a failure rejecting only its
//!   own entry.
//!
//! Every result is a serde type whose JSON is exactly what the CLI's `--json` prints, and
//! carries the session header and the source fingerprint it was computed from (S-Q3). Every
//! failure is a [`QueryError`] with a closed [`scry_model::ErrorCode`] (S-Q7).
//!
//! Live-first (S-Q1): reads refresh the index for the sessions they touch and prefer the live
//! source; a result's [`Availability`] says whether its source is present now (`live`) and
//! whether the index holds it (`persisted`).
//!
//! The index is read through [`scry_store::SessionIndex`] (the trait another store implements
//! to stand here, issue 22) by the read helpers (`indexed::replay`, `archive::rows`, the SQL
//! list page, lease checks, the Aider cwd walk); opening, refreshing and rebuilding stay with
//! the SQLite [`scry_store::Store`]. No UI lives here: progress goes through
//! [`progress::Reporter`], errors carry only their [`scry_model::ErrorCode`], and exclusions
//! come in the [`Context`]. The JSON keeps the header's `live` / `persisted`
//! as a direct parse says them, so output is identical with and without the index (SPEC P2).

pub mod aider_cwds;
pub mod archive;
mod availability;
pub mod batch;
pub mod catalog;
mod context;
mod discover;
pub mod error;
pub mod events;
pub mod filter;
pub mod indexed;
pub mod lease;
pub mod lineage;
pub mod list;
mod list_sql;
pub mod ops;
pub mod overview;
pub mod page;
pub mod progress;
pub mod raw;
pub mod read;
#[cfg(test)]
mod read_tests;
pub mod render;
pub mod resume;
pub mod search;
pub mod selection;
pub mod session_read;
mod session_row;
pub mod stats;
pub mod turn_build;
mod turn_stream;
pub mod turns;
pub mod usage;

pub use availability::Availability;
pub use batch::{headers, Batch, BatchEntry, HeadersRequest};
pub use context::{fingerprint_text, source_fingerprint, Context, Index, StoreSeam};
pub use error::{QueryError, QueryResult};
pub use events::{events, relations, EventPage, EventQuery, EventsRequest, PageRequest, Relations};
pub use filter::{KindFilter, Scope};
pub use lineage::{lineage, Lineage, LineageRequest};
pub use list::{list, ListFilter, ListQuery, ListRequest, SessionList, SessionRow};
pub use ops::commands::{commands, CommandsReport, CommandsRequest};
pub use ops::context::{context, ContextReport, ContextRequest};
pub use ops::digest::{digest, DigestReport, DigestRequest};
pub use ops::doctor::{doctor, DoctorReport, DoctorRequest};
pub use ops::errors::{errors, ErrorsReport, ErrorsRequest};
pub use ops::files::{files, FilesReport, FilesRequest, GroupFilter};
pub use ops::graph::{graph, GraphReport, GraphRequest};
pub use ops::jobs::{jobs, JobsReport, JobsRequest};
pub use ops::trace::{trace, TraceReport, TraceRequest};
pub use ops::workspace::{workspace, WorkspaceReport, WorkspaceRequest};
pub use overview::{overview, Overview, ShowRequest};
pub use read::{event_window, read, ReadRequest, Selector, TurnPage, TurnRequest};
pub use search::{search, SearchQuery, SearchResult};
pub use turns::{turns, TurnRow, TurnsDir, TurnsRequest};
