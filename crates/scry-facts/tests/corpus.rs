//! Facts over real sessions: every session the registry's providers find in the shared corpus
//! (`real/`, `real-older/`, `langgraph/dcode`, `third-party/`) keeps the ledger invariants, and
//! the real Claude and Codex sessions give the commands, failures and files written down from
//! their raw files.

mod corpus {
    pub mod invariants;
    pub mod older;
    pub mod real;
    pub mod sessions;
}
