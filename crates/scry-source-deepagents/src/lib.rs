//! scry provider for LangChain Deep Agents Code (`dcode`): the LangGraph `SqliteSaver`
//! database `sessions.db`, decoded natively by `scry-langgraph` (SPEC §1 row `deepagents`,
//! S-L). Checked against deepagents-code 0.1.88 (corpus/real) and 0.1.57
//! (corpus/langgraph/dcode).
//!
//! - [`discover`](crate::discover): where the database is (`DEEPAGENTS_SESSIONS_DB`,
//!   `DEEPAGENTS_HOME`, `~/.deepagents`), one session per root thread, subagent namespaces as
//!   child sessions.
//! - `thread`: one thread → header and events (summarization / offload events, pending
//!   approvals, model spec and context tokens, forked subagent context).
//! - `map`: LangChain messages → events; usage normalization; exit codes.
//! - `memory`: the `AGENTS.md` memory layers listed as artifacts.
//!
//! The database is opened read-only through `scry_source::sqlite::open_snapshot` (via
//! `scry_langgraph::Db`): immutable in place, or, with a live `-wal`, a private copy of database
//! and WAL, so rows not yet checkpointed are read and nothing (no `-shm`) appears beside the
//! agent's files.

pub mod discover;
pub mod map;
pub mod memory;
mod thread;

use std::path::Path;

use scry_model::{Header, ProviderId};
use scry_source::{Discovery, Emitter, Env, Root, Source, SourceError, SourceFile};

/// The Deep Agents Code reader.
#[derive(Debug, Default, Clone, Copy)]
pub struct DeepagentsSource;

impl Source for DeepagentsSource {
    fn id(&self) -> ProviderId {
        ProviderId::Deepagents
    }

    fn roots(&self, env: &Env) -> Vec<Root> {
        discover::roots(env)
    }

    fn discover(&self, env: &Env) -> Discovery {
        discover::discover(env)
    }

    fn detect(&self, path: &Path) -> Option<SourceFile> {
        discover::detect(path)
    }

    fn parse_into(&self, file: &SourceFile, out: &mut Emitter<'_>) -> Result<Header, SourceError> {
        thread::parse(file, out)
    }
}
