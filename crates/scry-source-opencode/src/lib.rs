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

mod db;
mod discover;
mod map;
mod storage;
mod title;

use std::path::Path;

use scry_model::{Header, ProviderId};
use scry_source::{Discovery, Emitter, Env, Root, Source, SourceError, SourceFile};

use crate::map::Mapper;

/// The OpenCode reader.
#[derive(Debug, Default, Clone, Copy)]
pub struct OpencodeSource;

impl OpencodeSource {
    fn parse_db(
        &self,
        file: &SourceFile,
        key: &str,
        out: &mut Emitter<'_>,
    ) -> Result<Header, SourceError> {
        let path = file.path.as_path();
        let conn = db::open(path)?;
        let mut header = db::header(&conn, path, key)?;
        header.sources.extend(file.related.iter().cloned());
        db::warn_unread(&conn, path, key, out);
        let mut mapper = Mapper::new(db::revert(&conn, key));
        db::read_events(&conn, path, key, &mut mapper, out)?;
        if header.agent_name.is_none() {
            header.agent_name = mapper.agent.clone();
        }
        mapper.finish(out);
        Ok(header)
    }

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
            let key = file.key.as_deref().unwrap_or(&file.id);
            let conn = db::open(&file.path)?;
            let mut header = db::header(&conn, &file.path, key)?;
            header.sources.extend(file.related.iter().cloned());
            if header.title.is_some() {
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
            let key = file.key.clone().unwrap_or_else(|| file.id.clone());
            self.parse_db(file, &key, out)
        } else {
            storage::parse(&file.path, out)
        }
    }
}
