//! scry provider for Kilo CLI (`@kilocode/cli`, the OpenCode fork; checked against the
//! database Kilo CLI 7.7.9 wrote in corpus/real).
//!
//! Kilo keeps OpenCode's SQLite layout under its own name: `kilo.db` in `$XDG_DATA_HOME/kilo`
//! (`~/.local/share/kilo`), with the tables `session`, `message` and `part` (JSON in `data`),
//! the `event` log, and Kilo's own extras (`kilo_board`, `session_input`, `todo`, …). Sessions
//! are read with the OpenCode reader ([`scry_source_opencode::sqlstore`]) under
//! [`ProviderId::Kilo`]; what differs is tabled here:
//!
//! | record | event |
//! |---|---|
//! | `session` row | header: cwd (`directory`), title (the `New session - <ISO time>` placeholder is never a title: the first prompt is), version, agent (`code`; `general` for a subagent), model, times; `parent_id` → subagent of the parent |
//! | `message` + `part` rows | OpenCode's part mapping (text, reasoning, tool, step-start/-finish with tokens, `compaction`, `patch`, …: see the OpenCode crate's `map`) |
//! | tool part `status: completed` with `metadata.exit ≠ 0` | `ToolResult` with `exit_code` and `is_error: true` (Kilo stores a failed shell command as completed) |
//! | `task` tool part (`metadata.sessionId`) | `ToolCall`/`ToolResult` naming the child session; the child is its own session (`parent_id`) |
//! | assistant message with `summary: true` (agent `compaction`) and the `compaction` part | `Compaction` summary / request |
//! | `event` rows (`session.created.1`, `session.updated.1`, …) | title history only (they repeat the message and part rows) |
//! | `storage/session_diff/<session id>.json` | one log-only `Meta` `session_diff` (files, status, additions, deletions); the file is listed in `header.sources` |
//!
//! Tokens are OpenCode's (`input` excludes cache reads and writes; scry's `output` includes
//! `reasoning`), and sum per session to the `session` row's `tokens_*` columns and to
//! `ccusage kilo session` (tests/ccusage.rs).
//!
//! Kilo leaves `kilo.db` in WAL mode: rows still in a live `kilo.db-wal` are read through a
//! private copy ([`scry_source::sqlite`]), never by touching the agent's files.

mod diff;
mod discover;

use std::path::Path;

use scry_model::{Header, ProviderId};
use scry_source::{Discovery, Emitter, Env, Root, Source, SourceError, SourceFile};
use scry_source_opencode::{sqlstore, Flavor};

/// Kilo CLI's flavour of the OpenCode database.
pub const KILO: Flavor = Flavor {
    provider: ProviderId::Kilo,
    agent: "Kilo",
};

/// The Kilo CLI reader.
#[derive(Debug, Default, Clone, Copy)]
pub struct KiloSource;

impl Source for KiloSource {
    fn id(&self) -> ProviderId {
        ProviderId::Kilo
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

    fn scan_header(&self, file: &SourceFile) -> Result<Header, SourceError> {
        if let Some(header) = sqlstore::titled_header(file, KILO)? {
            return Ok(header);
        }
        // A placeholder title: the first prompt needs the messages.
        Ok(self.parse(file)?.header)
    }

    fn parse_into(&self, file: &SourceFile, out: &mut Emitter<'_>) -> Result<Header, SourceError> {
        let header = sqlstore::parse(file, KILO, out)?;
        for side in &file.related {
            diff::emit(side, out);
        }
        Ok(header)
    }
}
