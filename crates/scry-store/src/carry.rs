//! Archived sessions across a schema change (issue 20, S-I6): a `SCHEMA_VERSION` change drops
//! every table and rebuilds the index from the sources, but an archived session has no source
//! left to rebuild from. Before the drop, [`carry_out`] reads each archived session back whole
//! (header, events, warnings, its file row) with this build's readers; after the new layout is
//! made, [`carry_in`] writes them again through the ordinary index writer, `live: false`.
//!
//! Earlier revisions of rewritten sources (issue 20) are carried the same way, oldest first
//! (so they keep their order), each under a new sid with its `revisions` row.
//!
//! `index --rebuild` and the automatic rebuild of a damaged index carry them too
//! ([`carry_from_file`]): the fresh file is built from the sources, and what no source can give
//! back is read from the old file first, one session at a time, so damage to one loses that one.
//!
//! Best effort by design: an older layout this build cannot read (a block format it does not
//! know) carries nothing, and the rebuild goes on as before. The sessions are held in memory
//! between the two steps (archived sessions are usually few; a huge one costs its size once).

use rusqlite::params;
use scry_model::{ProviderId, Session};
use scry_source::{EventSink, SourceFile};

use crate::error::{Result, StoreError};
use crate::ingest::{new_sid, write_header, IndexSink};
use crate::read::SessionRef;
use crate::schema::SCHEMA_VERSION;
use crate::Store;

/// One archived session read before a schema change.
pub(crate) struct Carried {
    /// `Some((replaced_at, common))` for an earlier revision (no file row of its own).
    revision: Option<(i64, u32)>,
    path: String,
    key: String,
    provider: String,
    fingerprint: [i64; 5],
    gone: Option<i64>,
    session: Session,
}

/// The archived sessions of an index whose stored schema version differs from this build's
/// (empty when it is the same, new, or unreadable).
pub(crate) fn carry_out(store: &Store) -> Vec<Carried> {
    match crate::schema::versions(&store.conn) {
        Ok([v, ..]) if v != 0 && v != SCHEMA_VERSION => read_every(store).0,
        _ => Vec::new(),
    }
}

/// What a rebuild keeps from the index file it replaces.
#[derive(Default)]
pub(crate) struct Kept {
    /// Archived sessions and earlier revisions read back whole.
    pub carried: Vec<Carried>,
    /// Those that could not be read (a damaged page, a row this build cannot decode).
    pub lost: usize,
}

/// The archived sessions and earlier revisions of the scry index at `path`, read through a
/// read-only connection (nothing is written to the old file) before a rebuild replaces it.
/// A file that cannot be opened or read at all keeps nothing; `lost` counts the rows that
/// were listed but could not be read back.
pub(crate) fn carry_from_file(path: &std::path::Path) -> Kept {
    let Some(conn) = crate::integrity::read_only(path) else {
        return Kept::default();
    };
    let store = Store {
        conn,
        path: path.to_path_buf(),
        versions: crate::LayerVersions::default(),
        busy_wait: std::cell::Cell::new(crate::BUSY_TIMEOUT),
        pending_counts: crate::listcache::Pending::default(),
    };
    let (carried, lost) = read_every(&store);
    Kept { carried, lost }
}

/// Archived sessions then revisions (oldest first), and how many rows could not be read.
fn read_every(store: &Store) -> (Vec<Carried>, usize) {
    let (mut out, mut lost) = read_all(store).unwrap_or_default();
    let (revisions, lost_revisions) = read_revisions(store).unwrap_or_default();
    out.extend(revisions);
    lost += lost_revisions;
    (out, lost)
}

type FileRow = (String, String, String, [i64; 5], i64);

/// Every archived session that reads back, and how many did not.
fn read_all(store: &Store) -> Result<(Vec<Carried>, usize)> {
    let rows: Vec<FileRow> = store
        .conn
        .prepare(
            "SELECT f.path, f.key, f.provider, f.size, f.mtime_ns, f.head_hash, f.related_sig,
                    f.parser_version, s.sid
             FROM files f JOIN sessions s ON s.sid = f.sid WHERE f.live = 0 AND s.live = 0",
        )
        .and_then(|mut st| {
            st.query_map([], |r| {
                Ok((
                    r.get(0)?,
                    r.get(1)?,
                    r.get(2)?,
                    [r.get(3)?, r.get(4)?, r.get(5)?, r.get(6)?, r.get(7)?],
                    r.get(8)?,
                ))
            })?
            .collect()
        })
        .map_err(StoreError::db("read archived sessions"))?;
    let mut out = Vec::with_capacity(rows.len());
    let mut lost = 0;
    for (path, key, provider, fingerprint, sid) in rows {
        let Ok(session) = store.session(SessionRef::Source {
            path: std::path::Path::new(&path),
            key: (!key.is_empty()).then_some(key.as_str()),
        }) else {
            lost += 1;
            continue;
        };
        // An index made before the `archived` table has no gone times.
        let gone = store
            .conn
            .query_row("SELECT gone FROM archived WHERE sid = ?1", [sid], |r| {
                r.get(0)
            })
            .ok();
        out.push(Carried {
            revision: None,
            path,
            key,
            provider,
            fingerprint,
            gone,
            session,
        });
    }
    Ok((out, lost))
}

/// Every earlier revision that reads back, oldest first (an index made before the table
/// existed has none), and how many did not.
fn read_revisions(store: &Store) -> Result<(Vec<Carried>, usize)> {
    type Row = (i64, String, String, i64, u32, String, String, u32);
    let rows: Vec<Row> = store
        .conn
        .prepare(
            "SELECT sid, path, key, replaced_at, common, uri, header, events FROM revisions
             ORDER BY sid",
        )
        .and_then(|mut st| {
            st.query_map([], |r| {
                Ok((
                    r.get(0)?,
                    r.get(1)?,
                    r.get(2)?,
                    r.get(3)?,
                    r.get(4)?,
                    r.get(5)?,
                    r.get(6)?,
                    r.get(7)?,
                ))
            })?
            .collect()
        })
        .map_err(StoreError::db("read revisions"))?;
    let mut out = Vec::with_capacity(rows.len());
    let mut lost = 0;
    for (sid, path, key, at, common, uri, json, n) in rows {
        let read = crate::read::decode_header(&uri, &json, false).and_then(|header| {
            let provider = header.provider.as_str().to_string();
            Ok((provider, store.session_at(sid, header, n)?))
        });
        let Ok((provider, session)) = read else {
            lost += 1;
            continue;
        };
        out.push(Carried {
            revision: Some((at, common)),
            path,
            key,
            provider,
            fingerprint: [0; 5],
            gone: None,
            session,
        });
    }
    Ok((out, lost))
}

/// Writes `carried` into the (new, empty) layout, each as an archived session of its old
/// source, in one transaction.
pub(crate) fn carry_in(store: &Store, carried: Vec<Carried>) -> Result<()> {
    if carried.is_empty() {
        return Ok(());
    }
    let tx = &store.conn;
    tx.execute_batch("BEGIN IMMEDIATE")
        .map_err(StoreError::db("begin carrying archived sessions"))?;
    let result = (|| -> Result<()> {
        for c in carried {
            let Ok(provider) = c.provider.parse::<ProviderId>() else {
                continue;
            };
            let sid = new_sid(tx)?;
            let Session {
                mut header,
                events,
                warnings,
            } = c.session;
            let n = u32::try_from(events.len()).unwrap_or(u32::MAX);
            let mut sink = IndexSink::new(tx, sid, 0, crate::block::BlockBuf::default());
            for e in events {
                sink.event(e);
            }
            for w in warnings {
                sink.warning(w);
            }
            sink.finish()?;
            header.live = false;
            header.persisted = false;
            if let Some((at, common)) = c.revision {
                tx.execute(
                    "INSERT INTO revisions(sid, path, key, replaced_at, common, uri, updated,
                                           events, header)
                     VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
                    params![
                        sid,
                        c.path,
                        c.key,
                        at,
                        common,
                        header.uri,
                        header.updated.map(crate::codec::time_to_i),
                        n,
                        serde_json::to_string(&header).map_err(|e| {
                            StoreError::IndexBuild(format!("cannot encode header: {e}"))
                        })?
                    ],
                )
                .map_err(StoreError::db("carry revision"))?;
                continue;
            }
            let mut file = SourceFile::with_stat(provider, header.id.clone(), &c.path, (0, 0));
            file.key = (!c.key.is_empty()).then(|| c.key.clone());
            write_header(tx, sid, &header, n, false, &file)?;
            let [size, mtime, head, related, parser] = c.fingerprint;
            tx.execute(
                "INSERT INTO files(path, key, provider, size, mtime_ns, head_hash, related_sig,
                                   parser_version, live, sid)
                 VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, 0, ?9)",
                params![c.path, c.key, c.provider, size, mtime, head, related, parser, sid],
            )
            .map_err(StoreError::db("carry archived file"))?;
            if let Some(gone) = c.gone {
                tx.execute(
                    "INSERT OR REPLACE INTO archived(sid, gone) VALUES(?1, ?2)",
                    params![sid, gone],
                )
                .map_err(StoreError::db("carry archived time"))?;
            }
        }
        crate::gramq::apply(tx)
    })();
    match result {
        Ok(()) => tx
            .execute_batch("COMMIT")
            .map_err(StoreError::db("commit archived sessions")),
        Err(e) => {
            crate::gramq::discard();
            let _ = tx.execute_batch("ROLLBACK");
            Err(e)
        }
    }
}
