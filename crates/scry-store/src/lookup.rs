//! Small typed reads the query layer asks of the index, so its SQL stays here: the uri stored
//! for a source, the stored working directories (exclusions by project, the Aider cwd walk),
//! the data version a poller compares, explicit read transactions spanning several reads, and
//! the sources an id may name ([`Store::sources_by_id`], id resolution under a watcher's lease).

use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::Path;

use scry_model::ProviderId;

use crate::listing::indexed_source;
use crate::{IndexedSource, ListSpec, Result, Store, StoreError};

/// A live indexed source of another provider with its stored session's working directory
/// ([`Store::each_live_cwd`]).
#[derive(Debug, Clone, Copy)]
pub struct SourceCwd<'a> {
    /// The source path as stored.
    pub path: &'a str,
    /// The session key inside a multi-session store (`""` for a file of its own).
    pub key: &'a str,
    /// Size at the last refresh (-1 when unknown).
    pub size: i64,
    /// Modification time (ns) at the last refresh (-1 when unknown).
    pub mtime_ns: i64,
    /// The stored session's working directory.
    pub cwd: Option<&'a str>,
}

/// The live indexed sources of the other providers as the Aider cwd lookup needs them
/// ([`Store::live_cwds_of`]).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct LiveCwds {
    /// Live sources per provider (as stored), in the order first met.
    pub counts: Vec<(String, usize)>,
    /// The distinct stored cwds of the sessions of the live sources of the providers asked.
    pub cwds: BTreeSet<String>,
    /// `(path, key)` of the live sources of the providers asked that have no stored session.
    pub unsessioned: Vec<(String, String)>,
}

impl Store {
    /// Every live source of `spec` (its roots and providers; scope and since do not apply)
    /// whose discovery id starts with `id` (all of them when `prefix`, else only `id` itself),
    /// or does after a `session-` / `rollout-` prefix, of `provider` when given: each
    /// candidate an id resolution over the discovered set may pick, with discovery's id as its
    /// [`IndexedSource::id`]. Indexed range reads of `files.did`, no scan.
    ///
    /// `None` when the index cannot stand in for discovery here: a live source without a
    /// stored discovery id (indexed by an older build), or a candidate with side files or a
    /// `-wal` (discovery's `related`, which the index does not keep).
    pub fn sources_by_id(
        &self,
        spec: &ListSpec,
        provider: Option<ProviderId>,
        id: &str,
        prefix: bool,
    ) -> Result<Option<Vec<IndexedSource>>> {
        let fail =
            |e: rusqlite::Error| StoreError::db("read discovery ids")(e).in_index(self.path());
        if crate::schema::missing_discovery_ids(&self.conn)? {
            return Ok(None);
        }
        let mut st = self
            .conn
            .prepare_cached(
                "SELECT f.path, f.key, f.provider, f.size, f.mtime_ns, f.did, s.kind, s.fold,
                 s.hint, f.related_sig FROM files f LEFT JOIN sessions s ON s.sid = f.sid
                 WHERE f.did >= ?1 AND f.live = 1 ORDER BY f.did",
            )
            .map_err(fail)?;
        let mut out: Vec<IndexedSource> = Vec::new();
        let starts = [
            id.to_string(),
            format!("session-{id}"),
            format!("rollout-{id}"),
        ];
        // Without `prefix` only an exact id matches (no decorated forms either).
        for start in &starts[..if prefix { 3 } else { 1 }] {
            let mut rows = st.query([start]).map_err(fail)?;
            while let Some(r) = rows.next().map_err(fail)? {
                let did: String = r.get(5).map_err(fail)?;
                if !(did == *start || (prefix && did.starts_with(start.as_str()))) {
                    break;
                }
                let Some(s) = indexed_source(r).map_err(fail)? else {
                    continue;
                };
                let in_spec = spec.providers.contains(&s.provider)
                    && provider.is_none_or(|p| p == s.provider)
                    && spec.roots.iter().any(|root| {
                        s.path
                            .strip_prefix(root.as_str())
                            .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
                    });
                if !in_spec || out.iter().any(|o| o.path == s.path && o.key == s.key) {
                    continue;
                }
                let related: i64 = r.get(9).map_err(fail)?;
                let keyed = !s.key.is_empty();
                if related != crate::refresh::side_signature(Path::new(&s.path), keyed, &[]) {
                    return Ok(None);
                }
                out.push(s);
            }
        }
        Ok(Some(out))
    }

    /// The uri of the session indexed from source `path` (with `key`, `""` for a file of its
    /// own), `None` when the index does not hold it.
    pub fn uri_at(&self, path: &str, key: &str) -> Result<Option<String>> {
        use rusqlite::OptionalExtension;
        self.conn
            .query_row(
                "SELECT s.uri FROM files f JOIN sessions s ON s.sid = f.sid
                 WHERE f.path = ?1 AND f.key = ?2",
                rusqlite::params![path, key],
                |r| r.get::<_, String>(0),
            )
            .optional()
            .map_err(|e| StoreError::db("look up a source")(e).in_index(self.path()))
    }

    /// `(path, key, cwd)` of every indexed source whose stored session has a working
    /// directory.
    pub fn source_cwds(&self) -> Result<Vec<(String, String, String)>> {
        let mut st = self
            .conn
            .prepare(
                "SELECT f.path, f.key, s.cwd FROM files f JOIN sessions s ON s.sid = f.sid
                 WHERE s.cwd IS NOT NULL",
            )
            .map_err(StoreError::db("read source cwds"))?;
        let rows = st
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .map_err(StoreError::db("read source cwds"))?;
        Ok(rows.flatten().collect())
    }

    /// `(provider, cwd)` of every distinct working directory of the live sessions of providers
    /// other than `except`.
    pub fn live_cwds(&self, except: ProviderId) -> Result<Vec<(String, String)>> {
        let mut st = self
            .conn
            .prepare(
                "SELECT DISTINCT provider, cwd FROM sessions \
                 WHERE live = 1 AND provider != ?1 AND cwd IS NOT NULL",
            )
            .map_err(StoreError::db("read live cwds"))?;
        let rows = st
            .query_map([except.as_str()], |r| Ok((r.get(0)?, r.get(1)?)))
            .map_err(StoreError::db("read live cwds"))?;
        Ok(rows.flatten().collect())
    }

    /// Hands `each` every live indexed source of providers other than `except`, ordered by
    /// (path, key), with its stat at the last refresh and its session's stored cwd; rows that
    /// cannot be read are skipped. Nothing is copied for a row `each` ignores.
    pub fn each_live_cwd(
        &self,
        except: ProviderId,
        each: &mut dyn FnMut(SourceCwd<'_>),
    ) -> Result<()> {
        // Two index-only scans joined here, in one read snapshot: the sessions' cwds by sid
        // (`sessions_cwd`, in cwd order, so each distinct cwd is copied once), then the
        // sources (`files_fingerprint`, in (path, key) order). A join in SQL looked each
        // source's session up in the table (a page of header text per row: most of the
        // cost on many small sessions).
        let began = self.begin_read()?;
        let out = self.each_live_cwd_in(except, each);
        if began {
            self.end_read();
        }
        out
    }

    fn each_live_cwd_in(
        &self,
        except: ProviderId,
        each: &mut dyn FnMut(SourceCwd<'_>),
    ) -> Result<()> {
        let mut cwds: Vec<Option<String>> = Vec::new();
        let mut by_sid: HashMap<i64, usize> = HashMap::new();
        {
            let mut st = self
                .conn
                .prepare("SELECT sid, cwd FROM sessions INDEXED BY sessions_cwd ORDER BY cwd")
                .map_err(StoreError::db("read session cwds"))?;
            let mut rows = st.query([]).map_err(StoreError::db("read session cwds"))?;
            while let Ok(Some(row)) = rows.next() {
                let (Ok(sid), Ok(cwd)) = (row.get::<_, i64>(0), row.get_ref(1)) else {
                    continue;
                };
                let cwd = cwd.as_str_or_null().ok().flatten();
                if cwds.last().is_none_or(|c| c.as_deref() != cwd) {
                    cwds.push(cwd.map(str::to_string));
                }
                by_sid.insert(sid, cwds.len() - 1);
            }
        }
        let mut st = self
            .conn
            .prepare(
                "SELECT path, key, size, mtime_ns, sid FROM files \
                 WHERE live = 1 AND provider != ?1 ORDER BY path, key",
            )
            .map_err(StoreError::db("read source cwds"))?;
        let mut rows = st
            .query([except.as_str()])
            .map_err(StoreError::db("read source cwds"))?;
        while let Ok(Some(row)) = rows.next() {
            // A source without a stored session is left out, as by a join.
            let Some(cwd) = row
                .get::<_, Option<i64>>(4)
                .ok()
                .flatten()
                .and_then(|sid| by_sid.get(&sid))
                .and_then(|&i| cwds.get(i))
            else {
                continue;
            };
            let (Ok(path), Ok(key)) = (row.get_ref(0), row.get_ref(1)) else {
                continue;
            };
            let (Ok(path), Ok(key)) = (path.as_str(), key.as_str()) else {
                continue;
            };
            each(SourceCwd {
                path,
                key,
                size: row.get::<_, i64>(2).unwrap_or(-1),
                mtime_ns: row.get::<_, i64>(3).unwrap_or(-1),
                cwd: cwd.as_deref(),
            });
        }
        Ok(())
    }

    /// The live indexed sources of every provider but `except`, summed up for the Aider cwd
    /// lookup that runs after a refresh of every discovered source (`scry_query`'s
    /// `aider_cwds::add_refreshed`): how many per provider (so the caller can tell that the
    /// index holds exactly what discovery found), the distinct stored cwds of the sessions of
    /// the sources of the providers in `of`, and those sources of `of` without a stored session
    /// (failed parses). Two index-only scans (`files_fingerprint`, `sessions_cwd`) in one read
    /// snapshot; no path is compared. The answer is kept with the index's write generation
    /// ([`crate::listcache`]): while nothing is written, a later call reads it back instead.
    pub fn live_cwds_of(&self, except: ProviderId, of: &[ProviderId]) -> Result<LiveCwds> {
        let mut h = xxhash_rust::xxh3::Xxh3::new();
        h.update(b"live_cwds_of\0");
        for p in std::iter::once(except).chain(of.iter().copied()) {
            h.update(p.as_str().as_bytes());
            h.update(&[0]);
        }
        let key = h.digest() as i64;
        let began = self.begin_read()?;
        let out = self
            .cached_lookup::<LiveCwds>(key)
            .and_then(|(gen, hit)| match hit {
                Some(hit) => Ok((gen, hit, true)),
                None => Ok((gen, self.live_cwds_of_in(except, of)?, false)),
            });
        if began {
            self.end_read();
        }
        let (gen, live, hit) = out?;
        if began && !hit {
            self.save_lookup(key, gen, &live);
        }
        Ok(live)
    }

    fn live_cwds_of_in(&self, except: ProviderId, of: &[ProviderId]) -> Result<LiveCwds> {
        let fail = || StoreError::db("read live cwds");
        let mut out = LiveCwds::default();
        let mut sids: HashSet<i64> = HashSet::new();
        {
            let mut st = self
                .conn
                .prepare(
                    "SELECT provider, sid, path, key FROM files INDEXED BY files_fingerprint \
                     WHERE live = 1 AND provider != ?1",
                )
                .map_err(fail())?;
            let mut rows = st.query([except.as_str()]).map_err(fail())?;
            // The providers of `of` as stored, and the last provider seen (rows come in path
            // order, so runs of one provider are common).
            let wanted: Vec<&str> = of.iter().map(|p| p.as_str()).collect();
            let mut last: Option<(usize, bool)> = None;
            while let Some(r) = rows.next().map_err(fail())? {
                let provider = crate::refresh::text_ref(r, 0).map_err(fail())?;
                let at = match last {
                    Some((i, w)) if out.counts[i].0 == provider => (i, w),
                    _ => {
                        let i = match out.counts.iter().position(|(p, _)| p == provider) {
                            Some(i) => i,
                            None => {
                                out.counts.push((provider.to_string(), 0));
                                out.counts.len() - 1
                            }
                        };
                        (i, wanted.contains(&provider))
                    }
                };
                last = Some(at);
                out.counts[at.0].1 += 1;
                if !at.1 {
                    continue;
                }
                match r.get::<_, Option<i64>>(1).map_err(fail())? {
                    Some(sid) => {
                        sids.insert(sid);
                    }
                    None => out
                        .unsessioned
                        .push((r.get(2).map_err(fail())?, r.get(3).map_err(fail())?)),
                }
            }
        }
        let mut st = self
            .conn
            .prepare(
                "SELECT sid, cwd FROM sessions INDEXED BY sessions_cwd \
                 WHERE cwd IS NOT NULL ORDER BY cwd",
            )
            .map_err(fail())?;
        let mut rows = st.query([]).map_err(fail())?;
        // In cwd order: a cwd is copied once, when the first of its sessions is wanted.
        let mut taken: Option<String> = None;
        while let Some(r) = rows.next().map_err(fail())? {
            let sid: i64 = r.get(0).map_err(fail())?;
            if !sids.contains(&sid) {
                continue;
            }
            let cwd = crate::refresh::text_ref(r, 1).map_err(fail())?;
            if taken.as_deref() != Some(cwd) {
                out.cwds.insert(cwd.to_string());
                taken = Some(cwd.to_string());
            }
        }
        Ok(out)
    }

    /// SQLite's `data_version` of this connection: it changes when another connection commits
    /// (a poller compares it to see whether to read again).
    pub fn data_version(&self) -> Result<i64> {
        self.conn
            .query_row("PRAGMA data_version", [], |r| r.get::<_, i64>(0))
            .map_err(StoreError::db("read data_version"))
    }

    /// Opens a read transaction when none is open, so the reads until [`Store::end_read`] see
    /// one commit; `Ok(true)` when it opened one.
    pub fn begin_read(&self) -> Result<bool> {
        if !self.conn.is_autocommit() {
            return Ok(false);
        }
        self.conn
            .execute_batch("BEGIN DEFERRED")
            .map_err(StoreError::db("begin read"))?;
        Ok(true)
    }

    /// Ends the open read transaction, if any (a read has nothing to keep; a failure means the
    /// connection is gone, which the next read says).
    pub fn end_read(&self) {
        if !self.conn.is_autocommit() {
            let _ = self.conn.execute_batch("COMMIT");
        }
    }
}
