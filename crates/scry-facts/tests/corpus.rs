//! Facts over real sessions: every Claude Code and Codex session in the shared corpus
//! (`real/`, `real-older/`, `third-party/`) keeps the ledger invariants, and the real Claude and
//! Codex sessions give the commands, failures and files written down from their raw files.

mod corpus {
    pub mod invariants;
    pub mod real;
    pub mod sessions;
}
