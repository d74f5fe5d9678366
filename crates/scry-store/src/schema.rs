//! The database layout and its layer versions (SPEC S-I1).
//!
//! Four version numbers, each owning one layer:
//! - [`SCHEMA_VERSION`]: the table layout. A change drops every table and rebuilds from the
//!   sources (there are no migrations), except the archived sessions (source gone, S-I6), which
//!   no source can rebuild: [`crate::carry`] reads them before the drop and writes them after.
//!   The `archived` table (when each was found gone), the `revisions` table (earlier
//!   revisions of rewritten sources, [`crate::revision`]) and `files.did` (discovery's id of
//!   each source) were added without a change.
//! - [`PARSER_VERSION`]: L1 (sessions, events, warnings). Stored per file; a file indexed by
//!   another parser version is re-parsed on the next refresh.
//! - [`EXTRACTOR_VERSION`]: L2 facts. A change clears the `facts` table, which the facts layer
//!   recomputes from stored events without reading a source byte.
//! - [`EDGE_VERSION`]: L3 relations, likewise for the `edges` table.
//!
//! Tables:
//! - `files`: one row per discovered source (path + key inside a multi-session store) with its
//!   fingerprint (size, mtime, xxh3 of the first 64 KB, a stat signature of side files), the
//!   last resume point and the hash proving the bytes before it, `live`, and `sid`: the session
//!   currently indexed from it (`NULL` when none).
//! - `sessions`: one row per indexed source (a session's identity is its source, not its uri:
//!   two files holding one session id — a copied project folder — are two rows with the same
//!   `uri`), the header as JSON plus columns for what `list` sorts, filters and folds by
//!   (provider, `native` = the provider's session id, cwd, created, updated, kind, parent, live,
//!   title) and `recency` (= updated, or the smallest integer when unknown) so lists read in
//!   index order. The columns precede the header, so reading them never walks the header's
//!   overflow pages (schema 7 added `native` and `files_failed`, the partial index of the files
//!   whose last parse failed, so `list` finds them without reading every file row). Schema 8
//!   adds what discovery knew of the source when it was parsed, so `list` pages in SQL
//!   ([`crate::listing`]): `hint` (the source's `cwd_hint`) and `fold` (the parent `list` folds
//!   the session under: the header's, else discovery's), indexed with `native` for the page's
//!   children and short ids; `sessions_recent` and `files_sid` carry every column `list` reads,
//!   so its page and counts never read a session's header or a file's resume point. `sid` comes from the `next_sid` counter in `meta` and is never
//!   reused: a whole parse writes under a new sid.
//! - `pending`: sids whose blocks no session row reaches (yet or any more): a session being
//!   written in several transactions (`since` = its last commit, a heartbeat) or replaced
//!   (`since` = 0). Readers never see them; a refresh deletes their rows in bounded steps, a
//!   staged one only once its heartbeat is stale (its writer died).
//! - `blocks`: a session's events in runs of consecutive events, each run one zstd blob
//!   ([`crate::block`]); `id` = the first event's id `sid << 32 | seq` (so a session's blocks
//!   are one contiguous rowid range and need no second index), `last` = its last seq, `kinds` =
//!   a bitmask of the kinds inside, `bloom` (schema 14) = a Bloom filter of the block's own
//!   trigram keys ([`crate::grams::GramSet::take_bloom`]; a search skips a candidate group's
//!   block that cannot hold the query's keys without decompressing it; NULL: not known). Each
//!   event keeps its text whole, the searchable `aux` text
//!   of tool name and arguments, and the rest of the event as JSON.
//! - `warnings`: the session's warnings in order, as JSON.
//! - `grams`, `gram_runs`, `gram_dead` (schema 12, replacing the FTS5 table `events_fts`):
//!   the candidate index, our own posting lists ([`crate::postings`], written and merged by
//!   [`crate::gramq`]). A candidate document is a group of consecutive blocks of a session
//!   (schema 11, [`crate::block::GROUP_BLOCKS`]; its id is the id of the group's first block,
//!   which carries [`crate::block::GROUP_START`] in `kinds`) or a session's title and artifacts
//!   (id `sid << 32 | 0xFFFF_FFFF`); its keys are the distinct trigrams of the `text` and `aux`
//!   of its events ([`crate::grams`], schema 9). `grams(id, dir, ids)` (schema 13; schema 12
//!   had one row per run and key): per run (one per applied transaction, or a merge of runs),
//!   packs of consecutive keys' run lists of the documents holding the key; `gram_runs`: each run's level and bytes; `gram_dead`: sessions whose rows were
//!   deleted, with the newest run then (merges drop their ids). Lists only narrow candidates,
//!   whose events the regex then verifies; a stale id (a deleted or rewritten group) only adds
//!   a candidate that readers skip.
//! - `facts` (L2): per session, the scry-facts ledgers (commands, files, errors, jobs, turn
//!   statuses, tokens) as zstd JSON with the extractor version that computed them.
//! - `edges` (L3): per session, the reference candidates of its tool calls (the graph edges
//!   before resolution) as zstd JSON with the edge version. Both are computed from stored
//!   events (never from a source), on first use or by [`crate::Store::refresh_facts`].
//! - `requests` and `usage_sums` (schema 10, issue 19): the usage ledger ([`crate::ledger`]),
//!   every model request of a session and its sums per (model, context tier), written at
//!   ingest with the session's blocks.

use rusqlite::{params, Connection, OptionalExtension};

use crate::error::{Result, StoreError};
use crate::integrity::{APPLICATION_ID, MARKER_KEY};

/// Version of the table layout; a change rebuilds the index from scratch.
pub const SCHEMA_VERSION: i64 = 14;
/// Version of L1 (how sessions and events are stored and which parser produced them).
pub const PARSER_VERSION: i64 = 1;
/// Version of L2 (facts extracted from stored events).
pub const EXTRACTOR_VERSION: i64 = 1;
/// Version of L3 (relations between sessions).
pub const EDGE_VERSION: i64 = 1;

const DDL: &str = "
CREATE TABLE meta(key TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE files(
    fid INTEGER PRIMARY KEY,
    path TEXT NOT NULL,
    key TEXT NOT NULL DEFAULT '',
    provider TEXT NOT NULL,
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    head_hash INTEGER NOT NULL,
    related_sig INTEGER NOT NULL,
    parser_version INTEGER NOT NULL,
    resume TEXT,
    prefix_hash INTEGER,
    live INTEGER NOT NULL DEFAULT 1,
    error TEXT,
    sid INTEGER,
    UNIQUE(path, key)
);
CREATE INDEX files_sid ON files(sid, live, path, key);
CREATE INDEX files_failed ON files(path, key) WHERE error IS NOT NULL;
CREATE TABLE sessions(
    sid INTEGER PRIMARY KEY,
    uri TEXT NOT NULL,
    native TEXT NOT NULL,
    provider TEXT NOT NULL,
    cwd TEXT,
    created INTEGER,
    updated INTEGER,
    recency INTEGER NOT NULL,
    kind TEXT NOT NULL,
    parent TEXT,
    live INTEGER NOT NULL,
    title TEXT,
    artifacts TEXT,
    events INTEGER NOT NULL,
    hint TEXT,
    fold TEXT,
    header TEXT NOT NULL
);
CREATE INDEX sessions_uri ON sessions(uri);
CREATE INDEX sessions_updated ON sessions(updated);
CREATE INDEX sessions_recent ON sessions(
    recency DESC, uri, provider, kind, native, fold, cwd, hint, updated
);
CREATE INDEX sessions_cwd ON sessions(cwd);
CREATE INDEX sessions_native ON sessions(native);
CREATE INDEX sessions_fold ON sessions(fold);
CREATE TABLE blocks(
    id INTEGER PRIMARY KEY,
    last INTEGER NOT NULL,
    kinds INTEGER NOT NULL,
    bloom BLOB,
    data BLOB NOT NULL
);
CREATE TABLE warnings(
    sid INTEGER NOT NULL,
    n INTEGER NOT NULL,
    body TEXT NOT NULL,
    PRIMARY KEY(sid, n)
) WITHOUT ROWID;
CREATE TABLE grams(id INTEGER PRIMARY KEY, dir BLOB NOT NULL, ids BLOB NOT NULL);
CREATE TABLE gram_runs(
    run INTEGER PRIMARY KEY AUTOINCREMENT,
    level INTEGER NOT NULL,
    bytes INTEGER NOT NULL
);
CREATE TABLE gram_dead(sid INTEGER PRIMARY KEY, at INTEGER NOT NULL);
CREATE TABLE facts(sid INTEGER PRIMARY KEY, version INTEGER NOT NULL, body BLOB NOT NULL);
CREATE TABLE edges(sid INTEGER PRIMARY KEY, version INTEGER NOT NULL, body BLOB NOT NULL);
CREATE TABLE pending(sid INTEGER PRIMARY KEY, since INTEGER NOT NULL);
";

/// See [`ensure`]: created with the schema and on opening an index made before it existed.
const FILES_FINGERPRINT_INDEX: &str = "
CREATE INDEX IF NOT EXISTS files_fingerprint ON files(
    path, key, fid, provider, size, mtime_ns, head_hash, related_sig, parser_version,
    prefix_hash, live, sid
);
";

/// See [`ensure`]: discovery's id of each source (`SourceFile::id`, which is not always the
/// session's native id), so a command under a watcher's lease resolves an id from the index
/// ([`crate::Store::sources_by_id`]). Added after schema 9 shipped, without a bump (a bump
/// rebuilds the index from the sources); rows an older build writes leave it empty.
fn add_discovery_ids(conn: &Connection) -> Result<()> {
    let has: i64 = conn
        .query_row(
            "SELECT count(*) FROM pragma_table_info('files') WHERE name = 'did'",
            [],
            |r| r.get(0),
        )
        .map_err(StoreError::db("read schema"))?;
    if has == 0 {
        conn.execute_batch("ALTER TABLE files ADD COLUMN did TEXT")
            .map_err(StoreError::db("add discovery ids"))?;
    }
    conn.execute_batch("CREATE INDEX IF NOT EXISTS files_did ON files(did)")
        .map_err(StoreError::db("add discovery ids"))
}

/// Whether a live source has no discovery id stored (`files.did`: indexed by an older build,
/// or before the column existed). One indexed read.
pub(crate) fn missing_discovery_ids(conn: &Connection) -> Result<bool> {
    conn.prepare_cached("SELECT EXISTS(SELECT 1 FROM files WHERE did IS NULL AND live = 1)")
        .and_then(|mut st| st.query_row([], |r| r.get(0)))
        .map_err(StoreError::db("read discovery ids"))
}

/// `meta`'s `key`, `None` when unset or the table is missing. Both statements come from the
/// connection's cache: an open reads nine keys, and preparing each anew was a tenth of a warm
/// command's time.
fn meta_get(conn: &Connection, key: &str) -> Result<Option<i64>> {
    let has_meta: bool = conn
        .prepare_cached("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'meta'")
        .and_then(|mut st| st.query_row([], |r| r.get::<_, i64>(0)))
        .map_err(StoreError::db("read schema"))?
        > 0;
    if !has_meta {
        return Ok(None);
    }
    conn.prepare_cached("SELECT value FROM meta WHERE key = ?1")
        .and_then(|mut st| st.query_row([key], |r| r.get(0)).optional())
        .map_err(StoreError::db("read meta"))
}

fn meta_set(conn: &Connection, key: &str, value: i64) -> Result<()> {
    conn.execute(
        "INSERT INTO meta(key, value) VALUES(?1, ?2)
         ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        params![key, value],
    )
    .map_err(StoreError::db("write meta"))?;
    Ok(())
}

/// Whether the layout is already what [`ensure`] would make it: every version as this build
/// wants it, the scry marker present, the fingerprint index there. A plain read, so opening an
/// up-to-date index takes no write lock (a reader does not queue behind a long write).
fn up_to_date(conn: &Connection, versions: crate::LayerVersions) -> Result<bool> {
    let fingerprint_index: i64 = conn
        .query_row(
            "SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name = 'files_fingerprint'",
            [],
            |r| r.get(0),
        )
        .map_err(StoreError::db("read schema"))?;
    let archive_table: i64 = conn
        .query_row(
            "SELECT count(*) FROM sqlite_master WHERE name IN ('archived', 'files_gone',
             'revisions', 'revisions_source', 'files_did', ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            crate::listcache::NAMES,
            |r| r.get(0),
        )
        .map_err(StoreError::db("read schema"))?;
    Ok(fingerprint_index == 1
        && archive_table == 5 + crate::listcache::NAMES.len() as i64
        && meta_get(conn, "schema_version")? == Some(SCHEMA_VERSION)
        && meta_get(conn, "parser_version")? == Some(PARSER_VERSION)
        && meta_get(conn, "extractor_version")? == Some(versions.extractor)
        && meta_get(conn, "edge_version")? == Some(versions.edge)
        && meta_get(conn, MARKER_KEY)? == Some(i64::from(APPLICATION_ID)))
}

/// Brings the database to the current layout: creates it when empty, drops and recreates it
/// when the schema version differs, and clears L2 / L3 when their versions changed. Only
/// called on a file [`crate::integrity::ownership`] accepted (a scry index, or new), so the
/// tables it drops are scry's own.
pub(crate) fn ensure(conn: &mut Connection, versions: crate::LayerVersions) -> Result<()> {
    if up_to_date(conn, versions)? {
        return Ok(());
    }
    let tx = conn
        .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
        .map_err(StoreError::db("begin schema transaction"))?;
    if meta_get(&tx, "schema_version")? != Some(SCHEMA_VERSION) {
        let names: Vec<(String, String)> = {
            let mut st = tx
                .prepare(
                    "SELECT type, name FROM sqlite_master
                     WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite_%'",
                )
                .map_err(StoreError::db("list tables"))?;
            let rows = st
                .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
                .map_err(StoreError::db("list tables"))?;
            rows.collect::<rusqlite::Result<_>>()
                .map_err(StoreError::db("list tables"))?
        };
        for (ty, name) in names {
            // An earlier layout's FTS shadow tables disappear with their virtual table.
            let exists: i64 = tx
                .query_row(
                    "SELECT count(*) FROM sqlite_master WHERE name = ?1",
                    [&name],
                    |r| r.get(0),
                )
                .map_err(StoreError::db("list tables"))?;
            if exists == 0 {
                continue;
            }
            let kw = if ty == "view" { "VIEW" } else { "TABLE" };
            tx.execute_batch(&format!(
                "DROP {kw} IF EXISTS \"{}\"",
                name.replace('"', "\"\"")
            ))
            .map_err(StoreError::db("drop old schema"))?;
        }
        tx.execute_batch(DDL)
            .map_err(StoreError::db("create schema"))?;
        tx.execute_batch(crate::ledger::DDL)
            .map_err(StoreError::db("create usage ledger"))?;
        meta_set(&tx, "schema_version", SCHEMA_VERSION)?;
        meta_set(&tx, "parser_version", PARSER_VERSION)?;
    }
    // Added after schema 5 shipped: a covering index of every fingerprint column but the
    // (sometimes megabytes long) resume point, so a refresh reads all fingerprints, and the
    // vanished check reads every live source, without walking the table's overflow pages.
    tx.execute_batch(FILES_FINGERPRINT_INDEX)
        .map_err(StoreError::db("create fingerprint index"))?;
    // Added without a schema bump (issue 20): when each archived session's source was found
    // gone. A bump would rebuild the index from the sources and lose every archived session.
    tx.execute_batch(crate::archive::DDL)
        .map_err(StoreError::db("create archive table"))?;
    // Added without a schema bump (issue 20): earlier revisions of rewritten sources.
    tx.execute_batch(crate::revision::DDL)
        .map_err(StoreError::db("create revisions table"))?;
    // Added without a schema bump (issue 16): `list`'s stored counts and the write generation
    // that keeps them honest.
    tx.execute_batch(crate::listcache::DDL)
        .map_err(StoreError::db("create list count cache"))?;
    add_discovery_ids(&tx)?;
    if meta_get(&tx, "extractor_version")? != Some(versions.extractor) {
        tx.execute("DELETE FROM facts", [])
            .map_err(StoreError::db("clear facts"))?;
        meta_set(&tx, "extractor_version", versions.extractor)?;
    }
    if meta_get(&tx, "edge_version")? != Some(versions.edge) {
        tx.execute("DELETE FROM edges", [])
            .map_err(StoreError::db("clear edges"))?;
        meta_set(&tx, "edge_version", versions.edge)?;
    }
    meta_set(&tx, "parser_version", PARSER_VERSION)?;
    meta_set(&tx, MARKER_KEY, i64::from(APPLICATION_ID))?;
    tx.commit().map_err(StoreError::db("commit schema"))?;
    Ok(())
}

/// The stored layer versions (schema, parser, extractor, edge).
pub(crate) fn versions(conn: &Connection) -> Result<[i64; 4]> {
    let mut out = [0; 4];
    for (i, key) in [
        "schema_version",
        "parser_version",
        "extractor_version",
        "edge_version",
    ]
    .iter()
    .enumerate()
    {
        out[i] = meta_get(conn, key)?.unwrap_or(0);
    }
    Ok(out)
}
