//! scry provider for OpenCode (sst/opencode → anomalyco/opencode).
//!
//! Reads both of OpenCode's stores and merges them by session id:
//! - the SQLite database `opencode.db` (OpenCode ≥ 1.2), checked against the database written
//!   by OpenCode 1.18.33 (corpus/real) — see [`db`](crate::db);
//! - the legacy JSON tree `storage/` (OpenCode < 1.2 and migrated installs), checked against
//!   agent-sessions' stage0 fixtures (session versions 0.1 and 1.3.17) — see `storage`.
//!
//! A session in both stores is one session: the database wins and the JSON copy is listed in
//! `header.sources` after it. Parts map to events as tabled in `map`; tokens are normalized as
//! documented there.
//!
//! Agents forked from OpenCode that keep its database layout (Kilo CLI's `kilo.db`) read their
//! databases through [`sqlstore`], naming themselves with a [`Flavor`].

mod db;
mod discover;
mod map;
pub mod sqlstore;

pub use discover::{db_override, db_roots};
mod storage;
mod title;

use std::path::Path;

use scry_model::{Header, ProviderId};
use scry_source::{Discovery, Emitter, Env, Root, Source, SourceError, SourceFile};

/// Which agent wrote an OpenCode-shaped database: the provider its sessions belong to and the
/// agent's name in messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Flavor {
    /// The provider the sessions are listed under.
    pub provider: ProviderId,
    /// The agent's display name ("OpenCode", "Kilo").
    pub agent: &'static str,
}

/// OpenCode itself.
pub const OPENCODE: Flavor = Flavor {
    provider: ProviderId::Opencode,
    agent: "OpenCode",
};

/// The OpenCode reader.
#[derive(Debug, Default, Clone, Copy)]
pub struct OpencodeSource;

impl OpencodeSource {
    fn is_db(file: &SourceFile) -> bool {
        file.key.is_some() || discover::is_sqlite(&file.path)
    }
}

impl Source for OpencodeSource {
    fn id(&self) -> ProviderId {
        ProviderId::Opencode
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
        if Self::is_db(file) {
            if let Some(header) = sqlstore::titled_header(file, OPENCODE)? {
                return Ok(header);
            }
        } else if let Some(header) = storage::scan_header(&file.path) {
            return Ok(header);
        }
        // No stored title (or a JSON session): the first prompt needs the messages.
        let session = self.parse(file)?;
        Ok(session.header)
    }

    fn parse_into(&self, file: &SourceFile, out: &mut Emitter<'_>) -> Result<Header, SourceError> {
        if Self::is_db(file) {
            sqlstore::parse(file, OPENCODE, out)
        } else {
            storage::parse(&file.path, out)
        }
    }
}
