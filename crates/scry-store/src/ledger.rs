//! The usage ledger (issue 19): every model request of a session (an event carrying
//! [`TokenUsage`]) as one row of `requests`, and per session its sums per (model, context tier)
//! in `usage_sums`, so cost is priced at read time without reading a session's events; and the
//! seqs of its failed tool results (`failures`, [`scry_model::Event::is_failure`]), a status
//! `list` and the TUI show without a read per session (issue 23).
//!
//! Written at ingest, in the transaction of the session's blocks: a request row goes in with
//! the block holding its event ([`crate::block::BlockBuf::requests`]), a resumed parse deletes
//! the rows (requests and failures) from the resume seq on as it deletes those events
//! ([`delete_from`]), and the sums
//! are recomputed from the rows whenever the session's header is written ([`resum`]), so they
//! follow appends. A retired session's rows go with its blocks. A schema change rebuilds them
//! with everything else (archived sessions are carried through the same writer).
//!
//! Tiers: a request is priced wholly at the long-context prices when its context (input +
//! cache read + cache write) is above the model's threshold. The thresholds of the price table
//! are [`TIER_BOUNDS`]; a sum's `tier` is how many of them the request's context passed, so
//! "above threshold `t`" is exact for any `t` in the list ([`UsageSum::above`]).

use rusqlite::{params, Connection};
use scry_model::{Event, Timestamp, TokenUsage};

use crate::codec::time_to_i;
use crate::error::{Result, StoreError};
use crate::read::SessionRef;
use crate::Store;

/// Every long-context threshold of the price table, ascending (the pricing crate checks that
/// its table uses no other).
pub const TIER_BOUNDS: [u64; 4] = [100_000, 128_000, 200_000, 272_000];

/// How many [`TIER_BOUNDS`] a request's context passes (0 ..= 4).
pub fn tier_of(usage: &TokenUsage) -> u8 {
    let context = usage.input + usage.cache_read + usage.cache_write;
    TIER_BOUNDS.iter().filter(|b| context > **b).count() as u8
}

pub(crate) const DDL: &str = "
CREATE TABLE requests(
    sid INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    time INTEGER,
    model TEXT NOT NULL,
    input INTEGER NOT NULL,
    output INTEGER NOT NULL,
    cache_read INTEGER NOT NULL,
    cache_write INTEGER NOT NULL,
    cache_write_1h INTEGER NOT NULL,
    reasoning INTEGER NOT NULL,
    PRIMARY KEY(sid, seq)
) WITHOUT ROWID;
CREATE INDEX requests_time ON requests(time, sid);
CREATE TABLE usage_sums(
    sid INTEGER NOT NULL,
    model TEXT NOT NULL,
    tier INTEGER NOT NULL,
    requests INTEGER NOT NULL,
    input INTEGER NOT NULL,
    output INTEGER NOT NULL,
    cache_read INTEGER NOT NULL,
    cache_write INTEGER NOT NULL,
    cache_write_1h INTEGER NOT NULL,
    reasoning INTEGER NOT NULL,
    first INTEGER,
    last INTEGER,
    PRIMARY KEY(sid, model, tier)
) WITHOUT ROWID;
CREATE TABLE failures(sid INTEGER NOT NULL, seq INTEGER NOT NULL, PRIMARY KEY(sid, seq))
    WITHOUT ROWID;
";

/// Whether `e` is a failed tool result (counted in the session's `failures`).
pub fn is_failed_result(e: &Event) -> bool {
    e.kind == scry_model::EventKind::ToolResult && e.is_failure()
}

/// One model request as the ledger keeps it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredRequest {
    /// The event's seq in its session.
    pub seq: u32,
    /// When it was answered.
    pub time: Option<Timestamp>,
    /// The model (`unknown` when the event names none).
    pub model: String,
    /// Its tokens.
    pub usage: TokenUsage,
    /// Of its cache writes, those with a 1-hour lifetime (`data.cache_write_1h`, Claude).
    pub cache_write_1h: u64,
}

impl StoredRequest {
    /// The request `e` records, when it carries usage.
    pub fn of(e: &Event) -> Option<StoredRequest> {
        let usage = e.usage?;
        let cache_write_1h = e
            .data
            .as_ref()
            .and_then(|d| d.get("cache_write_1h"))
            .and_then(serde_json::Value::as_u64)
            .unwrap_or(0);
        Some(StoredRequest {
            seq: e.seq,
            time: e.time,
            model: e.model.clone().unwrap_or_else(|| "unknown".to_string()),
            usage,
            cache_write_1h,
        })
    }
}

/// A session's requests of one model and context tier, summed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UsageSum {
    /// The model.
    pub model: String,
    /// How many [`TIER_BOUNDS`] the requests' context passed.
    pub tier: u8,
    /// Requests.
    pub requests: u64,
    /// Their tokens.
    pub usage: TokenUsage,
    /// Of the cache writes, the 1-hour ones.
    pub cache_write_1h: u64,
    /// First request time.
    pub first: Option<Timestamp>,
    /// Last request time.
    pub last: Option<Timestamp>,
}

impl UsageSum {
    /// Whether these requests' context was above `threshold` (exact for a threshold in
    /// [`TIER_BOUNDS`]; another is taken as the largest bound below it).
    pub fn above(&self, threshold: u64) -> bool {
        self.tier > 0 && TIER_BOUNDS[usize::from(self.tier) - 1] >= threshold
    }
}

/// `requests` summed as the ledger sums them: per (model, tier), in that order.
pub fn sums_of<'a>(requests: impl IntoIterator<Item = &'a StoredRequest>) -> Vec<UsageSum> {
    let mut by: std::collections::BTreeMap<(&str, u8), UsageSum> = Default::default();
    for r in requests {
        let tier = tier_of(&r.usage);
        let s = by
            .entry((r.model.as_str(), tier))
            .or_insert_with(|| UsageSum {
                model: r.model.clone(),
                tier,
                ..UsageSum::default()
            });
        s.requests += 1;
        s.usage += r.usage;
        s.cache_write_1h += r.cache_write_1h;
        if let Some(t) = r.time {
            s.first = Some(s.first.map_or(t, |f| f.min(t)));
            s.last = Some(s.last.map_or(t, |l| l.max(t)));
        }
    }
    by.into_values().collect()
}

/// `sums` of several sessions added per (model, tier), in that order (tokens are integers: the
/// result does not depend on the order they come in).
pub fn merge_sums(sums: impl IntoIterator<Item = UsageSum>) -> Vec<UsageSum> {
    let mut by: std::collections::BTreeMap<(String, u8), UsageSum> = Default::default();
    for s in sums {
        match by.entry((s.model.clone(), s.tier)) {
            std::collections::btree_map::Entry::Vacant(v) => {
                v.insert(s);
            }
            std::collections::btree_map::Entry::Occupied(mut o) => {
                let m = o.get_mut();
                m.requests += s.requests;
                m.usage += s.usage;
                m.cache_write_1h += s.cache_write_1h;
                m.first = match (m.first, s.first) {
                    (Some(a), Some(b)) => Some(a.min(b)),
                    (a, b) => a.or(b),
                };
                m.last = m.last.max(s.last);
            }
        }
    }
    by.into_values().collect()
}

fn int(v: u64) -> i64 {
    i64::try_from(v).unwrap_or(i64::MAX)
}

fn uint(v: i64) -> u64 {
    u64::try_from(v).unwrap_or(0)
}

fn time(ns: Option<i64>) -> Option<Timestamp> {
    ns.and_then(|ns| Timestamp::from_nanosecond(i128::from(ns)).ok())
}

/// Writes the request rows of session `sid` (a block's, in the block's transaction).
pub(crate) fn insert(tx: &Connection, sid: i64, requests: &[StoredRequest]) -> Result<()> {
    if requests.is_empty() {
        return Ok(());
    }
    let mut st = tx
        .prepare_cached(
            "INSERT OR REPLACE INTO requests(sid, seq, time, model, input, output, cache_read,
                                             cache_write, cache_write_1h, reasoning)
             VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
        )
        .map_err(StoreError::db("prepare request insert"))?;
    for r in requests {
        let u = &r.usage;
        st.execute(params![
            sid,
            r.seq,
            r.time.map(time_to_i),
            r.model,
            int(u.input),
            int(u.output),
            int(u.cache_read),
            int(u.cache_write),
            int(r.cache_write_1h),
            int(u.reasoning),
        ])
        .map_err(StoreError::db("insert request"))?;
    }
    Ok(())
}

/// Writes the failed tool results of session `sid` (a block's seqs).
pub(crate) fn insert_failures(tx: &Connection, sid: i64, seqs: &[u32]) -> Result<()> {
    if seqs.is_empty() {
        return Ok(());
    }
    let mut st = tx
        .prepare_cached("INSERT OR REPLACE INTO failures(sid, seq) VALUES(?1, ?2)")
        .map_err(StoreError::db("prepare failure insert"))?;
    for seq in seqs {
        st.execute(params![sid, seq])
            .map_err(StoreError::db("insert failure"))?;
    }
    Ok(())
}

/// Deletes the request and failure rows of `sid` from `from_seq` on (a resumed parse re-emits
/// them).
pub(crate) fn delete_from(tx: &Connection, sid: i64, from_seq: u32) -> Result<()> {
    for table in ["requests", "failures"] {
        tx.prepare_cached(&format!("DELETE FROM {table} WHERE sid = ?1 AND seq >= ?2"))
            .and_then(|mut st| st.execute(params![sid, from_seq]))
            .map_err(StoreError::db("delete ledger rows"))?;
    }
    Ok(())
}

/// Recomputes the sums of `sid` from its request rows.
pub(crate) fn resum(tx: &Connection, sid: i64) -> Result<()> {
    tx.prepare_cached("DELETE FROM usage_sums WHERE sid = ?1")
        .and_then(|mut st| st.execute([sid]))
        .map_err(StoreError::db("delete usage sums"))?;
    let [a, b, c, d] = TIER_BOUNDS;
    let sql = format!(
        "INSERT INTO usage_sums(sid, model, tier, requests, input, output, cache_read,
                                cache_write, cache_write_1h, reasoning, first, last)
         SELECT ?1, model, tier, count(*), sum(input), sum(output), sum(cache_read),
                sum(cache_write), sum(cache_write_1h), sum(reasoning), min(time), max(time)
         FROM (SELECT *, (ctx > {a}) + (ctx > {b}) + (ctx > {c}) + (ctx > {d}) AS tier
               FROM (SELECT *, input + cache_read + cache_write AS ctx
                     FROM requests WHERE sid = ?1))
         GROUP BY model, tier"
    );
    tx.prepare_cached(&sql)
        .and_then(|mut st| st.execute([sid]))
        .map_err(StoreError::db("sum usage"))?;
    Ok(())
}

fn request_of(r: &rusqlite::Row<'_>) -> rusqlite::Result<StoredRequest> {
    Ok(StoredRequest {
        seq: r.get(0)?,
        time: time(r.get(1)?),
        model: r.get(2)?,
        usage: TokenUsage {
            input: uint(r.get(3)?),
            output: uint(r.get(4)?),
            cache_read: uint(r.get(5)?),
            cache_write: uint(r.get(6)?),
            reasoning: uint(r.get(8)?),
        },
        cache_write_1h: uint(r.get(7)?),
    })
}

impl Store {
    /// The usage sums of session `sid` (a [`crate::ListRow::sid`] / [`crate::PageRow::sid`]),
    /// by model then tier; empty when it made no request.
    pub fn usage_sums(&self, sid: i64) -> Result<Vec<UsageSum>> {
        let mut st = self
            .conn
            .prepare_cached(
                "SELECT model, tier, requests, input, output, cache_read, cache_write,
                        cache_write_1h, reasoning, first, last
                 FROM usage_sums WHERE sid = ?1 ORDER BY model, tier",
            )
            .map_err(StoreError::db("read usage sums"))?;
        let rows = st
            .query_map([sid], |r| {
                Ok(UsageSum {
                    model: r.get(0)?,
                    tier: r.get(1)?,
                    requests: uint(r.get(2)?),
                    usage: TokenUsage {
                        input: uint(r.get(3)?),
                        output: uint(r.get(4)?),
                        cache_read: uint(r.get(5)?),
                        cache_write: uint(r.get(6)?),
                        reasoning: uint(r.get(8)?),
                    },
                    cache_write_1h: uint(r.get(7)?),
                    first: time(r.get(9)?),
                    last: time(r.get(10)?),
                })
            })
            .map_err(StoreError::db("read usage sums"))?;
        rows.collect::<rusqlite::Result<_>>()
            .map_err(StoreError::db("read usage sums"))
    }

    /// How many tool results of session `sid` failed.
    pub fn failure_count(&self, sid: i64) -> Result<u64> {
        self.conn
            .prepare_cached("SELECT count(*) FROM failures WHERE sid = ?1")
            .and_then(|mut st| st.query_row([sid], |r| r.get::<_, i64>(0)))
            .map(uint)
            .map_err(StoreError::db("count failures"))
    }

    /// The sources (path, key) whose stored session was last active before `since` and is
    /// neither the session `keep` (a native id) nor one of its children: what a usage report
    /// from `since` on may skip, read from the sessions' columns in one pass (no header is
    /// decoded).
    pub fn sources_idle_since(
        &self,
        since: Timestamp,
        keep: Option<&str>,
    ) -> Result<std::collections::HashSet<(String, String)>> {
        let keep = keep.unwrap_or_default();
        let mut st = self
            .conn
            .prepare_cached(
                "SELECT f.path, f.key FROM files f JOIN sessions s ON s.sid = f.sid
                 WHERE s.updated < ?1 AND s.native <> ?2 AND coalesce(s.parent, '') <> ?2",
            )
            .map_err(StoreError::db("read idle sessions"))?;
        let rows = st
            .query_map(params![time_to_i(since), keep], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })
            .map_err(StoreError::db("read idle sessions"))?;
        rows.collect::<rusqlite::Result<_>>()
            .map_err(StoreError::db("read idle sessions"))
    }

    /// The live sources whose session made a request at or after `since` (the `requests_time`
    /// index), or is the session `keep` names by native id, or folds under it (its children):
    /// what a statusline reads, without listing every source. Each with the side-file
    /// signature it was last indexed with (0: no side files), ordered by (path, key).
    pub fn sources_active_since(
        &self,
        since: Timestamp,
        keep: Option<&str>,
    ) -> Result<Vec<(crate::IndexedSource, i64)>> {
        let mut st = self
            .conn
            .prepare_cached(
                "SELECT f.path, f.key, f.provider, f.size, f.mtime_ns, s.native, s.kind, s.fold,
                        s.hint, f.related_sig
                 FROM files f JOIN sessions s ON s.sid = f.sid
                 WHERE f.live = 1 AND f.sid IN (
                     SELECT sid FROM requests WHERE time >= ?1
                     UNION SELECT sid FROM sessions WHERE native = ?2
                     UNION SELECT sid FROM sessions WHERE fold = ?2)
                 ORDER BY f.path, f.key",
            )
            .map_err(StoreError::db("read active sources"))?;
        let rows = st
            .query_map(params![time_to_i(since), keep.unwrap_or_default()], |r| {
                Ok(
                    crate::listing::indexed_source(r)?
                        .map(|s| (s, r.get::<_, i64>(9).unwrap_or(0))),
                )
            })
            .map_err(StoreError::db("read active sources"))?;
        let mut out = Vec::new();
        for r in rows {
            out.extend(r.map_err(StoreError::db("read active sources"))?);
        }
        Ok(out)
    }

    /// The stored sid of the session `at` names, when indexed.
    pub fn sid_by<'a>(&self, at: impl Into<SessionRef<'a>>) -> Result<Option<i64>> {
        match self.sid_of(at) {
            Ok((sid, _, _)) => Ok(Some(sid)),
            Err(StoreError::SessionNotFound(_)) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// The session `at` names, its header and its model requests in seq order, read from the
    /// ledger (no event is decoded); `None` when it is not indexed.
    pub fn requests<'a>(
        &self,
        at: impl Into<SessionRef<'a>>,
    ) -> Result<Option<(scry_model::Header, Vec<StoredRequest>)>> {
        let at = at.into();
        self.snapshot(|| {
            let (sid, header) = match self.sid_of(at) {
                Ok((sid, header, _)) => (sid, header),
                Err(StoreError::SessionNotFound(_)) => return Ok(None),
                Err(e) => return Err(e),
            };
            let mut st = self
                .conn
                .prepare_cached(
                    "SELECT seq, time, model, input, output, cache_read, cache_write,
                            cache_write_1h, reasoning
                     FROM requests WHERE sid = ?1 ORDER BY seq",
                )
                .map_err(StoreError::db("read requests"))?;
            let rows = st
                .query_map([sid], request_of)
                .map_err(StoreError::db("read requests"))?;
            let requests = rows
                .collect::<rusqlite::Result<_>>()
                .map_err(StoreError::db("read requests"))?;
            Ok(Some((header, requests)))
        })
    }
}
