//! The L2 and L3 layers (SPEC S-I1, S-F1…S-F7): per session, the scry-facts ledgers
//! ([`scry_facts::Facts`]: commands, files, errors, jobs, turn statuses, tokens) and the
//! reference candidates of its tool calls (the graph edges before resolution, S-F6), each
//! stored as zstd JSON with the version of the layer that computed it.
//!
//! Both are computed from the stored events — never from a source — when first asked for or by
//! [`Store::refresh_facts`], folded while the events stream one block at a time
//! ([`scry_facts::SessionFold`]: the session is never held, issue 17), so bumping the extractor or edge version recomputes them even
//! after the source is gone. Re-indexing a session deletes its rows. Reading them back equals
//! computing them from the parse, because the stored events equal the parse (S-I4).
//!
//! Candidates are stored unresolved: which session an id like `scry show 3f2a…` names depends
//! on what is discovered when the question is asked, so the caller resolves them (as a direct
//! read does) with [`scry_facts::reference_edges_from`].

use rusqlite::{params, OptionalExtension};
use scry_facts::{Facts, ReferenceCandidate, SessionFold};
use scry_model::Header;

use crate::block::{compress, decompress_into};
use crate::error::{Result, StoreError};
use crate::schema::{EDGE_VERSION, EXTRACTOR_VERSION};
use crate::Store;

/// The L2 / L3 versions a store computes with. [`Default`] is the crate's
/// [`EXTRACTOR_VERSION`] / [`EDGE_VERSION`]; other values are a test hook
/// ([`Store::open_with_versions`]) standing in for a new release of the extractors.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LayerVersions {
    /// L2 facts.
    pub extractor: i64,
    /// L3 edges.
    pub edge: i64,
}

impl Default for LayerVersions {
    fn default() -> Self {
        LayerVersions {
            extractor: EXTRACTOR_VERSION,
            edge: EDGE_VERSION,
        }
    }
}

/// The stored L2 / L3 of one session.
#[derive(Debug, Clone)]
pub struct SessionFacts {
    /// Every fact of the session.
    pub facts: Facts,
    /// The reference candidates of its tool calls, in call order.
    pub references: Vec<ReferenceCandidate>,
    /// Whether this call computed them from the stored events (`false`: read back as stored).
    pub computed: bool,
}

fn encode<T: serde::Serialize>(v: &T) -> Result<Vec<u8>> {
    let json = serde_json::to_vec(v)
        .map_err(|e| StoreError::IndexBuild(format!("cannot encode facts: {e}")))?;
    Ok(compress(&json))
}

fn decode<T: serde::de::DeserializeOwned>(blob: &[u8]) -> Option<T> {
    let mut raw = Vec::new();
    if !decompress_into(blob, &mut raw) {
        return None;
    }
    serde_json::from_slice(&raw).ok()
}

/// What one session's stored layers hold: the facts and candidates when their versions are
/// current.
type Stored = (Option<Facts>, Option<Vec<ReferenceCandidate>>);

impl Store {
    fn stored_layers(&self, sid: i64) -> Result<Stored> {
        let get = |table: &str, version: i64| -> Result<Option<Vec<u8>>> {
            self.conn
                .prepare_cached(&format!(
                    "SELECT body FROM {table} WHERE sid = ?1 AND version = ?2"
                ))
                .and_then(|mut st| st.query_row(params![sid, version], |r| r.get(0)).optional())
                .map_err(StoreError::db("read facts"))
        };
        let facts = get("facts", self.versions.extractor)?.and_then(|b| decode(&b));
        let refs = get("edges", self.versions.edge)?.and_then(|b| decode(&b));
        Ok((facts, refs))
    }

    /// The facts and reference candidates of a session (by uri or by source): read back when
    /// stored by the current layer versions, else computed from the stored events (not the
    /// source) and stored. A session that is not indexed is [`StoreError::SessionNotFound`].
    pub fn facts<'a>(&self, at: impl Into<crate::SessionRef<'a>>) -> Result<SessionFacts> {
        let at = at.into();
        let (sid, stamp, stored, computed) = self.snapshot(|| {
            let (sid, header, n) = self.sid_of(at)?;
            let stamp = self.stamp(sid)?;
            let stored = self.stored_layers(sid)?;
            let computed = match &stored {
                (Some(_), Some(_)) => None,
                _ => Some(self.fold_at(sid, &header, n)?),
            };
            Ok((sid, stamp, stored, computed))
        })?;
        match (computed, stored) {
            (Some(c), (facts, refs)) => self.fill(sid, &stamp, c, facts, refs),
            (None, (Some(facts), Some(references))) => Ok(SessionFacts {
                facts,
                references,
                computed: false,
            }),
            (None, (facts, refs)) => {
                let c = self.snapshot(|| {
                    let (header, n) = self.row_of(sid)?;
                    self.fold_at(sid, &header, n)
                })?;
                self.fill(sid, &stamp, c, facts, refs)
            }
        }
    }

    /// The facts and reference candidates of the stored session `sid` (`header`, `n` events),
    /// folded while its events stream one block at a time.
    fn fold_at(
        &self,
        sid: i64,
        header: &Header,
        n: u32,
    ) -> Result<(Facts, Vec<ReferenceCandidate>)> {
        let mut fold = SessionFold::new();
        if n > 0 {
            let uri = header.uri.as_str();
            self.each_record(sid, uri, 0, n - 1, &mut |r| {
                fold.push(crate::codec::event_from(uri, r.text.to_string(), r.rest)?);
                Ok(())
            })?;
        }
        let f = fold.finish(header);
        Ok((f.facts, f.candidates))
    }

    /// Completes what was not stored from the folded `computed` layers and stores it.
    fn fill(
        &self,
        sid: i64,
        stamp: &(String, i64),
        computed: (Facts, Vec<ReferenceCandidate>),
        facts: Option<Facts>,
        refs: Option<Vec<ReferenceCandidate>>,
    ) -> Result<SessionFacts> {
        let facts = facts.unwrap_or(computed.0);
        let references = refs.unwrap_or(computed.1);
        // Storing is a cache fill: when another writer holds the index, the answer is the same.
        let _ = self.store_layers(sid, stamp, &facts, &references);
        Ok(SessionFacts {
            facts,
            references,
            computed: true,
        })
    }

    /// What identifies the stored version of a session: its header JSON and event count.
    fn stamp(&self, sid: i64) -> Result<(String, i64)> {
        self.conn
            .prepare_cached("SELECT header, events FROM sessions WHERE sid = ?1")
            .and_then(|mut st| st.query_row([sid], |r| Ok((r.get(0)?, r.get(1)?))))
            .map_err(StoreError::db("read session"))
    }

    /// Writes the layers of `sid`, unless the session changed since `stamp` was read.
    fn store_layers(
        &self,
        sid: i64,
        stamp: &(String, i64),
        facts: &Facts,
        refs: &[ReferenceCandidate],
    ) -> Result<()> {
        let facts = encode(facts)?;
        let refs = encode(&refs)?;
        let begin = if self.conn.is_autocommit() {
            "BEGIN IMMEDIATE"
        } else {
            "SAVEPOINT facts"
        };
        self.conn
            .execute_batch(begin)
            .map_err(StoreError::db("begin facts"))?;
        let out = (|| -> Result<()> {
            if self.stamp(sid)? != *stamp {
                return Ok(());
            }
            for (table, version, body) in [
                ("facts", self.versions.extractor, &facts),
                ("edges", self.versions.edge, &refs),
            ] {
                self.conn
                    .prepare_cached(&format!(
                        "INSERT INTO {table}(sid, version, body) VALUES(?1, ?2, ?3)
                         ON CONFLICT(sid) DO UPDATE SET version = excluded.version,
                             body = excluded.body"
                    ))
                    .and_then(|mut st| st.execute(params![sid, version, body]))
                    .map_err(StoreError::db("write facts"))?;
            }
            Ok(())
        })();
        let end = match (&out, begin) {
            (Ok(()), "BEGIN IMMEDIATE") => "COMMIT",
            (Err(_), "BEGIN IMMEDIATE") => "ROLLBACK",
            (Ok(()), _) => "RELEASE facts",
            (Err(_), _) => "ROLLBACK TO facts; RELEASE facts",
        };
        self.conn
            .execute_batch(end)
            .map_err(StoreError::db("commit facts"))?;
        out
    }

    /// Computes and stores the facts and reference candidates of every session that lacks
    /// them at the current layer versions, from stored events only. Returns how many sessions
    /// were computed.
    pub fn refresh_facts(&mut self) -> Result<usize> {
        let stale: Vec<i64> = {
            let mut st = self
                .conn
                .prepare(
                    "SELECT s.sid FROM sessions s
                     WHERE NOT EXISTS (SELECT 1 FROM facts f WHERE f.sid = s.sid AND f.version = ?1)
                        OR NOT EXISTS (SELECT 1 FROM edges e WHERE e.sid = s.sid AND e.version = ?2)
                     ORDER BY s.sid",
                )
                .map_err(StoreError::db("list stale facts"))?;
            let rows = st
                .query_map(params![self.versions.extractor, self.versions.edge], |r| {
                    r.get(0)
                })
                .map_err(StoreError::db("list stale facts"))?;
            rows.collect::<rusqlite::Result<_>>()
                .map_err(StoreError::db("list stale facts"))?
        };
        let mut n = 0;
        for sid in stale {
            let ((facts, refs), stamp) = self.snapshot(|| {
                let (header, n) = self.row_of(sid)?;
                Ok((self.fold_at(sid, &header, n)?, self.stamp(sid)?))
            })?;
            self.store_layers(sid, &stamp, &facts, &refs)?;
            n += 1;
        }
        Ok(n)
    }
}
