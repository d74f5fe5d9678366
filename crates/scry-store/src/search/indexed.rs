//! Search over the index: candidates from the trigram posting lists ([`crate::postings`]; or a scan of stored text when
//! the query cannot be narrowed), verified by the same matcher as the direct path, then ranked
//! and shown by the shared engine.

use std::collections::{HashMap, HashSet};

use rusqlite::{params, params_from_iter, OptionalExtension};

use super::collector::Collector;
use super::engine::{self, page_within, rank, self_echo, Plan, RawHit, SessionMatch};
use super::{Field, Hit, SearchPlan, SearchRequest, SearchResponse, SessionHits, SessionSearch};
use crate::block::{kind_bit, Decoded, GROUP_START};
use crate::codec::{event_from, event_id_range, kind_from_i, kind_to_i, split_aux, time_to_i};
use crate::error::{Result, StoreError};
use crate::filter::SessionFilter;
use crate::read::SessionRef;
use crate::revision::RevScope;
use crate::Store;

/// Scanning per session range instead of the whole table below this many sessions in scope.
const RANGE_SCAN_MAX: usize = 256;
/// Candidate sessions of a trigram search above which the session filter is evaluated over the
/// whole `sessions` table instead of for each candidate.
const FILTER_CANDIDATES_MAX: usize = 4096;
/// Candidate sessions asked about in one statement.
const FILTER_CHUNK: usize = 500;

impl Store {
    /// Searches every session in scope (S-S1…S-S6); see [`crate::search`] for the semantics.
    pub fn search(&self, req: &SearchRequest) -> Result<SearchResponse> {
        self.snapshot(|| self.search_unlocked(req, None))
    }

    /// [`Store::search`] over the sessions indexed from `sources` only: the files a direct
    /// search would parse (one discovery, after exclusions), so a session indexed from a file
    /// outside it (another home, an excluded project, a copy opened by path) is not searched.
    pub fn search_sources(
        &self,
        req: &SearchRequest,
        sources: &[scry_source::SourceFile],
    ) -> Result<SearchResponse> {
        self.snapshot(|| {
            let sids = self.sids_of_sources(sources)?;
            self.search_unlocked(req, Some(sids))
        })
    }

    /// The sids indexed from `sources`. Many sources: one scan of the `files` index, matched
    /// to the sources' borrowed names (nothing allocated per row); a few: one lookup each.
    fn sids_of_sources(&self, sources: &[scry_source::SourceFile]) -> Result<HashSet<i64>> {
        let names: Vec<(std::borrow::Cow<'_, str>, &str)> = sources
            .iter()
            .map(|f| (f.path.to_string_lossy(), f.key.as_deref().unwrap_or("")))
            .collect();
        let mut out = HashSet::with_capacity(names.len());
        if names.len() > 64 {
            let mut plain: HashSet<&str> = HashSet::with_capacity(names.len());
            let mut keyed: HashSet<(&str, &str)> = HashSet::new();
            for (path, key) in &names {
                if key.is_empty() {
                    plain.insert(path.as_ref());
                } else {
                    keyed.insert((path.as_ref(), *key));
                }
            }
            let mut st = self
                .conn
                .prepare_cached("SELECT path, key, sid FROM files WHERE sid IS NOT NULL")
                .map_err(StoreError::db("read sources"))?;
            let mut rows = st.query([]).map_err(StoreError::db("read sources"))?;
            while let Some(r) = rows.next().map_err(StoreError::db("read sources"))? {
                let text = |i: usize| -> rusqlite::Result<&str> {
                    r.get_ref(i)?.as_str().map_err(|e| {
                        rusqlite::Error::FromSqlConversionFailure(
                            i,
                            rusqlite::types::Type::Text,
                            Box::new(e),
                        )
                    })
                };
                let mut read = || -> rusqlite::Result<()> {
                    let (path, key) = (text(0)?, text(1)?);
                    let wanted = if key.is_empty() {
                        plain.contains(path)
                    } else {
                        keyed.contains(&(path, key))
                    };
                    if wanted {
                        out.insert(r.get(2)?);
                    }
                    Ok(())
                };
                read().map_err(StoreError::db("read sources"))?;
            }
        } else {
            let mut st = self
                .conn
                .prepare_cached("SELECT sid FROM files WHERE path = ?1 AND key = ?2")
                .map_err(StoreError::db("read sources"))?;
            for (path, key) in &names {
                let sid: Option<Option<i64>> = st
                    .query_row(params![path.as_ref(), key], |r| r.get(0))
                    .optional()
                    .map_err(StoreError::db("read sources"))?;
                out.extend(sid.flatten());
            }
        }
        Ok(out)
    }

    pub(crate) fn search_unlocked(
        &self,
        req: &SearchRequest,
        within: Option<HashSet<i64>>,
    ) -> Result<SearchResponse> {
        // Earlier revisions of the sessions in scope (issue 20), unless the search is of live
        // sessions only or of named sessions (`--session`).
        let revs = if req.filter.live != Some(true) && req.filter.uris.is_empty() {
            crate::revision::scope_of(&self.conn, within.as_ref())?
        } else {
            RevScope::new()
        };
        self.search_in(req, within, &revs, true)
    }

    /// A search of one earlier revision (`search --session <id> --revision N`): every hit of
    /// it, marked superseded, paged as a search across sessions.
    pub fn search_revision(
        &self,
        at: SessionRef<'_>,
        req: &SearchRequest,
    ) -> Result<SearchResponse> {
        self.snapshot(|| {
            let (sid, _, _) = self.sid_of(at)?;
            let n = match at {
                SessionRef::Revision { n, .. } => n,
                _ => return self.search_unlocked(req, Some([sid].into_iter().collect())),
            };
            let revs: RevScope = [(sid, (sid, n, 0))].into_iter().collect();
            self.search_in(req, Some([sid].into_iter().collect()), &revs, false)
        })
    }

    fn search_in(
        &self,
        req: &SearchRequest,
        within: Option<HashSet<i64>>,
        revs: &RevScope,
        use_filter: bool,
    ) -> Result<SearchResponse> {
        let plan = Plan::new(req, false)?;
        let filter = (use_filter && !req.filter.is_empty()).then_some(&req.filter);
        let full = self.caller_sids(req)?;
        if engine::counts_page(req) {
            let (matches, used) =
                self.search_streamed(req, &plan, within.as_ref(), filter, revs, full)?;
            return self.respond(req, &plan, revs, matches, used);
        }
        let mut keep = Collector::new(revs, Some((req.max_hits, req.sort)));
        keep.full = full;
        let used = self.collect(&plan, within.as_ref(), filter, revs, &mut keep)?;
        let by_sid = keep.by_sid;
        let mut meta =
            self.session_meta(by_sid.keys().copied().filter(|s| !revs.contains_key(s)))?;
        meta.extend(self.revision_meta(by_sid.keys().copied().filter(|s| revs.contains_key(s)))?);
        let mut matches = Vec::new();
        for (sid, acc) in by_sid {
            let Some((uri, updated, source)) = meta.get(&sid).cloned() else {
                continue;
            };
            matches.push(SessionMatch {
                key: sid,
                uri,
                source,
                updated,
                summary: (!acc.all).then_some((acc.count, acc.best)),
                hits: acc.hits,
            });
        }
        self.mark_self(req, &mut matches)?;
        self.respond(req, &plan, revs, matches, used)
    }

    /// The response for the collected `matches` (self-echo marked): ranked, paged, shown.
    fn respond(
        &self,
        req: &SearchRequest,
        plan: &Plan,
        revs: &RevScope,
        matches: Vec<SessionMatch>,
        used: SearchPlan,
    ) -> Result<SearchResponse> {
        let mut ranked = rank(req, plan, matches);
        let mut sessions = Vec::new();
        for (m, best, n, more) in std::mem::take(&mut ranked.sessions) {
            let (header, _) = self.row_of(m.key)?;
            let mut hits = m
                .hits
                .iter()
                .map(|h| self.show_hit(req, plan, m.key, &header, h))
                .collect::<Result<Vec<_>>>()?;
            if let Some((_, n, _)) = revs.get(&m.key) {
                for h in &mut hits {
                    superseded(h, *n);
                }
            }
            sessions.push(SessionHits {
                header,
                score: best,
                hit_count: n,
                hits,
                has_more_hits: more,
            });
        }
        Ok(ranked.response(sessions, used))
    }

    /// Searches one session (by uri or by source; S-Q5): its header comes back even with zero
    /// hits. `req.filter` is ignored; `max_hits` is the page size and the cursor pages over hits.
    pub fn search_session<'a>(
        &self,
        at: impl Into<SessionRef<'a>>,
        req: &SearchRequest,
    ) -> Result<SessionSearch> {
        let at = at.into();
        self.snapshot(|| self.search_session_unlocked(at, req))
    }

    fn search_session_unlocked(
        &self,
        at: SessionRef<'_>,
        req: &SearchRequest,
    ) -> Result<SessionSearch> {
        let plan = Plan::new(req, true)?;
        let (sid, header, _) = self.sid_of(at)?;
        let uri = header.uri.as_str();
        let scope: HashSet<i64> = [sid].into_iter().collect();
        let revs = RevScope::new();
        let mut keep = Collector::new(&revs, None);
        self.collect(&plan, Some(&scope), None, &revs, &mut keep)?;
        let hits = keep.by_sid.remove(&sid).map(|a| a.hits).unwrap_or_default();
        let mut matches = vec![SessionMatch {
            key: sid,
            uri: uri.to_string(),
            source: String::new(),
            updated: None,
            hits,
            summary: None,
        }];
        self.mark_self(req, &mut matches)?;
        let hits = matches.pop().map(|m| m.hits).unwrap_or_default();
        let (page, total, folded, next) = page_within(req, &plan, hits);
        let hits = page
            .iter()
            .map(|h| self.show_hit(req, &plan, sid, &header, h))
            .collect::<Result<Vec<_>>>()?;
        Ok(SessionSearch {
            header,
            hits,
            total_matches: total,
            self_folded: folded,
            next_cursor: next,
        })
    }

    /// `(uri, updated, primary source path)` of the given sessions: one query per session for
    /// a few, one pass over the table for many.
    #[allow(clippy::type_complexity)]
    pub(super) fn session_meta(
        &self,
        sids: impl Iterator<Item = i64>,
    ) -> Result<HashMap<i64, (String, Option<i64>, String)>> {
        let sids: Vec<i64> = sids.collect();
        let mut out = HashMap::with_capacity(sids.len());
        type Meta = (i64, String, Option<i64>, String);
        let map = |r: &rusqlite::Row<'_>| -> rusqlite::Result<Meta> {
            Ok((
                r.get(0)?,
                r.get(1)?,
                r.get(2)?,
                r.get::<_, Option<String>>(3)?.unwrap_or_default(),
            ))
        };
        if sids.len() > 64 {
            let wanted: HashSet<i64> = sids.into_iter().collect();
            let mut st = self
                .conn
                .prepare_cached(
                    "SELECT s.sid, s.uri, s.updated, f.path
                     FROM sessions s LEFT JOIN files f ON f.sid = s.sid",
                )
                .map_err(StoreError::db("read sessions"))?;
            let rows = st
                .query_map([], map)
                .map_err(StoreError::db("read sessions"))?;
            for row in rows {
                let (sid, uri, updated, path) = row.map_err(StoreError::db("read sessions"))?;
                if wanted.contains(&sid) {
                    out.insert(sid, (uri, updated, path));
                }
            }
        } else {
            let mut st = self
                .conn
                .prepare_cached(
                    "SELECT s.sid, s.uri, s.updated, f.path
                     FROM sessions s LEFT JOIN files f ON f.sid = s.sid WHERE s.sid = ?1",
                )
                .map_err(StoreError::db("read session"))?;
            for sid in sids {
                if let Some((sid, uri, updated, path)) = st
                    .query_row([sid], map)
                    .optional()
                    .map_err(StoreError::db("read session"))?
                {
                    out.insert(sid, (uri, updated, path));
                }
            }
        }
        Ok(out)
    }

    /// `(uri, updated, primary source path)` of the given earlier revisions.
    #[allow(clippy::type_complexity)]
    pub(super) fn revision_meta(
        &self,
        sids: impl Iterator<Item = i64>,
    ) -> Result<HashMap<i64, (String, Option<i64>, String)>> {
        let mut st = self
            .conn
            .prepare_cached("SELECT uri, updated, path FROM revisions WHERE sid = ?1")
            .map_err(StoreError::db("read revision"))?;
        let mut out = HashMap::new();
        for sid in sids {
            if let Some(m) = st
                .query_row([sid], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
                .optional()
                .map_err(StoreError::db("read revision"))?
            {
                out.insert(sid, m);
            }
        }
        Ok(out)
    }

    /// The sessions holding a trigram candidate block or document of `req`, sorted: `None`
    /// when the query does not narrow by trigrams or more than `max` candidates match. A search
    /// over a listed set (`Store::search_listed`) then asks only these whether they are listed:
    /// the trigram path never looks at a session outside them.
    pub(crate) fn candidate_sessions(
        &self,
        req: &SearchRequest,
        max: usize,
    ) -> Result<Option<Vec<i64>>> {
        let plan = Plan::new(req, false)?;
        let Some(q) = &plan.matcher.grams else {
            return Ok(None);
        };
        let ids = self.trigram_ids(q)?;
        if ids.len() > max {
            return Ok(None);
        }
        let mut sids: Vec<i64> = ids.into_iter().map(|id| id >> 32).collect();
        sids.dedup();
        Ok(Some(sids))
    }

    /// The sids of every session `filter` admits, less those outside `within` (when given).
    pub(super) fn filter_sids(
        &self,
        filter: &SessionFilter,
        within: Option<&HashSet<i64>>,
    ) -> Result<HashSet<i64>> {
        let (cond, params) = filter.to_sql();
        let mut st = self
            .conn
            .prepare_cached(&format!("SELECT sid FROM sessions WHERE {cond}"))
            .map_err(StoreError::db("scope sessions"))?;
        let rows = st
            .query_map(params_from_iter(params), |r| r.get::<_, i64>(0))
            .map_err(StoreError::db("scope sessions"))?;
        let mut set = HashSet::new();
        for sid in rows {
            let sid = sid.map_err(StoreError::db("scope sessions"))?;
            if within.is_none_or(|w| w.contains(&sid)) {
                set.insert(sid);
            }
        }
        Ok(set)
    }

    /// Of the candidate sessions `sids` (those in `within`, when given), the ones `filter`
    /// admits: asked of these sessions alone, a few hundred at a time, so a selective search
    /// does not read the whole `sessions` table; many candidates read it once instead.
    pub(super) fn filter_candidates(
        &self,
        filter: &SessionFilter,
        within: Option<&HashSet<i64>>,
        sids: impl Iterator<Item = i64>,
    ) -> Result<HashSet<i64>> {
        let mut cands: Vec<i64> = sids
            .filter(|s| within.is_none_or(|w| w.contains(s)))
            .collect();
        cands.sort_unstable();
        cands.dedup();
        if cands.len() > FILTER_CANDIDATES_MAX {
            return self.filter_sids(filter, within);
        }
        let (cond, params) = filter.to_sql();
        let mut out = HashSet::with_capacity(cands.len());
        for chunk in cands.chunks(FILTER_CHUNK) {
            let first = params.len() + 1;
            let marks: Vec<String> = (first..first + chunk.len())
                .map(|i| format!("?{i}"))
                .collect();
            let sql = format!(
                "SELECT sid FROM sessions WHERE sid IN ({}) AND ({cond})",
                marks.join(", ")
            );
            let mut st = self
                .conn
                .prepare_cached(&sql)
                .map_err(StoreError::db("scope sessions"))?;
            let values = params
                .iter()
                .cloned()
                .chain(chunk.iter().map(|s| rusqlite::types::Value::Integer(*s)));
            let rows = st
                .query_map(params_from_iter(values), |r| r.get::<_, i64>(0))
                .map_err(StoreError::db("scope sessions"))?;
            for sid in rows {
                out.insert(sid.map_err(StoreError::db("scope sessions"))?);
            }
        }
        Ok(out)
    }

    /// The hits of `plan` in the sessions of `within` (every session when `None`) that
    /// `filter` admits (every one when `None`).
    /// An earlier revision in `revs` is in scope when its source's current session is (and is
    /// searched under its own sid).
    fn collect(
        &self,
        plan: &Plan,
        within: Option<&HashSet<i64>>,
        filter: Option<&SessionFilter>,
        revs: &RevScope,
        by_sid: &mut Collector<'_>,
    ) -> Result<SearchPlan> {
        let cur = |sid: i64| revs.get(&sid).map_or(sid, |r| r.0);
        let mask = plan.kinds.iter().fold(0i64, |m, k| m | kind_bit(*k));
        let mut raw = Decoded::default();
        if let Some(q) = &plan.matcher.grams {
            let ids = self.trigram_ids(q)?;
            let candidates = ids.len() as u64;
            let admitted = match filter {
                Some(f) => {
                    Some(self.filter_candidates(f, within, ids.iter().map(|id| cur(id >> 32)))?)
                }
                None => None,
            };
            let scope = admitted.as_ref().or(within);
            let in_scope = |sid: i64| scope.is_none_or(|s| s.contains(&cur(sid)));
            // Session documents (titles, artifacts) first, then the candidate blocks in order.
            let mut blocks: Vec<i64> = Vec::with_capacity(ids.len());
            for id in ids {
                let sid = id >> 32;
                if !in_scope(sid) {
                    continue;
                }
                if (id & 0xFFFF_FFFF) as u32 == u32::MAX {
                    by_sid.add(sid, self.session_level(plan, sid)?);
                } else {
                    blocks.push(id);
                }
            }
            blocks.sort_unstable();
            if mask != 0 {
                for start in blocks {
                    self.read_blocks(plan, start, true, mask, &mut raw, by_sid)?;
                }
            }
            by_sid.finish();
            return Ok(SearchPlan::Trigram { candidates });
        }
        // No narrowing: scan the stored blocks.
        let admitted = match filter {
            Some(f) => Some(self.filter_sids(f, within)?),
            None => None,
        };
        let scope = admitted.as_ref().or(within);
        let in_scope = |sid: i64| scope.is_none_or(|s| s.contains(&cur(sid)));
        if !plan.session_fields.is_empty() {
            let mut st = self
                .conn
                .prepare_cached(
                    "SELECT sid FROM sessions WHERE title IS NOT NULL OR artifacts IS NOT NULL",
                )
                .map_err(StoreError::db("scan titles"))?;
            let sids = st
                .query_map([], |r| r.get::<_, i64>(0))
                .map_err(StoreError::db("scan titles"))?
                .collect::<rusqlite::Result<Vec<_>>>()
                .map_err(StoreError::db("scan titles"))?;
            for sid in sids.into_iter().filter(|s| in_scope(*s)) {
                by_sid.add(sid, self.session_level(plan, sid)?);
            }
        }
        if mask == 0 {
            by_sid.finish();
            return Ok(SearchPlan::Scan);
        }
        let ranges: Vec<(i64, i64)> = match scope {
            Some(s) if s.len() <= RANGE_SCAN_MAX => {
                let mut v: Vec<i64> = s.iter().copied().collect();
                v.extend(
                    revs.iter()
                        .filter(|(_, r)| s.contains(&r.0))
                        .map(|(sid, _)| *sid),
                );
                v.sort_unstable();
                v.into_iter().map(event_id_range).collect()
            }
            _ => vec![(i64::MIN, i64::MAX)],
        };
        let mut st = self
            .conn
            .prepare_cached("SELECT id, kinds, data FROM blocks WHERE id BETWEEN ?1 AND ?2")
            .map_err(StoreError::db("scan events"))?;
        for (lo, hi) in ranges {
            let mut rows = st
                .query(params![lo, hi])
                .map_err(StoreError::db("scan events"))?;
            while let Some(r) = rows.next().map_err(StoreError::db("scan events"))? {
                let id: i64 = r.get(0).map_err(StoreError::db("scan events"))?;
                if !in_scope(id >> 32) {
                    continue;
                }
                let kinds: i64 = r.get(1).map_err(StoreError::db("scan events"))?;
                if kinds & mask == 0 {
                    continue;
                }
                let data = r.get_ref(2).map_err(StoreError::db("scan events"))?;
                block_hits(plan, id, data.as_blob().unwrap_or(&[]), &mut raw, by_sid)?;
            }
        }
        by_sid.finish();
        Ok(SearchPlan::Scan)
    }

    /// The candidate documents (groups, session documents) holding every key of one of the
    /// conjunctions of `q`, sorted: a superset (an id may name a group or session that is gone
    /// or no longer starts a group; [`Store::read_blocks`] and the session reads skip those).
    pub(super) fn trigram_ids(&self, q: &[Vec<u32>]) -> Result<Vec<i64>> {
        crate::postings::candidates(&self.conn, q)
    }

    /// Hits of the stored blocks from block `start` to the end of its session, or (`group`)
    /// to the end of its candidate group: the group's first block up to the next block that
    /// starts a group (nothing when no block `start` starts a group: a stale candidate id,
    /// whose group was rewritten and is read under its own id). Blocks of no kind in `mask`
    /// are not decoded.
    pub(super) fn read_blocks(
        &self,
        plan: &Plan,
        start: i64,
        group: bool,
        mask: i64,
        raw: &mut Decoded,
        by_sid: &mut Collector<'_>,
    ) -> Result<()> {
        let fail = || StoreError::db("read candidates");
        let mut st = self
            .conn
            .prepare_cached("SELECT id, kinds, bloom FROM blocks WHERE id BETWEEN ?1 AND ?2")
            .map_err(fail())?;
        // The blob is read only for a block that passes: a statement's step reads every
        // column it returns, overflow pages and all.
        let mut blob = self
            .conn
            .prepare_cached("SELECT data FROM blocks WHERE id = ?1")
            .map_err(fail())?;
        let end = event_id_range(start >> 32).1;
        let mut rows = st.query(params![start, end]).map_err(fail())?;
        let mut first = true;
        while let Some(r) = rows.next().map_err(fail())? {
            let id: i64 = r.get(0).map_err(fail())?;
            let kinds: i64 = r.get(1).map_err(fail())?;
            if group {
                let starts = kinds & GROUP_START != 0;
                // The first block must be `start` and start a group; the next start ends it.
                if if first {
                    id != start || !starts
                } else {
                    starts
                } {
                    break;
                }
            }
            first = false;
            if kinds & mask == 0 {
                continue;
            }
            // A block whose own keys cannot hold any conjunction of the query's is not
            // decompressed (its group was a candidate for keys spread over its blocks).
            if let Some(q) = &plan.matcher.grams {
                let bloom = r.get_ref(2).map_err(fail())?;
                let bloom = bloom.as_blob().unwrap_or(&[]);
                if !q
                    .iter()
                    .any(|conj| crate::grams::bloom_may_hold(bloom, conj))
                {
                    continue;
                }
            }
            let mut data = blob.query([id]).map_err(fail())?;
            if let Some(d) = data.next().map_err(fail())? {
                let d = d.get_ref(0).map_err(fail())?;
                block_hits(plan, id, d.as_blob().unwrap_or(&[]), raw, by_sid)?;
            }
        }
        Ok(())
    }

    pub(super) fn session_level(&self, plan: &Plan, sid: i64) -> Result<Vec<RawHit>> {
        let row: Option<(Option<String>, Option<String>)> = self
            .conn
            .prepare_cached("SELECT title, artifacts FROM sessions WHERE sid = ?1")
            .and_then(|mut st| {
                st.query_row([sid], |r| Ok((r.get(0)?, r.get(1)?)))
                    .optional()
            })
            .map_err(StoreError::db("read title"))?;
        // An earlier revision has no session-level document (its title is its successor's).
        let Some((title, artifacts)) = row else {
            return Ok(Vec::new());
        };
        Ok(plan.session_hits(title.as_deref(), artifacts.as_deref()))
    }

    /// The sessions (and earlier revisions) stored under the caller's uri: they keep every
    /// hit, for self-echo folding.
    pub(super) fn caller_sids(&self, req: &SearchRequest) -> Result<HashSet<i64>> {
        let Some(caller) = &req.caller else {
            return Ok(HashSet::new());
        };
        let mut st = self
            .conn
            .prepare_cached(
                "SELECT sid FROM sessions WHERE uri = ?1 UNION SELECT sid FROM revisions WHERE uri = ?1",
            )
            .map_err(StoreError::db("read caller"))?;
        let rows = st
            .query_map([&caller.uri], |r| r.get::<_, i64>(0))
            .map_err(StoreError::db("read caller"))?;
        rows.collect::<rusqlite::Result<_>>()
            .map_err(StoreError::db("read caller"))
    }

    /// Flags self-echo hits in the caller's session.
    pub(super) fn mark_self(
        &self,
        req: &SearchRequest,
        matches: &mut [SessionMatch],
    ) -> Result<()> {
        let Some(caller) = &req.caller else {
            return Ok(());
        };
        let Some(m) = matches.iter_mut().find(|m| m.uri == caller.uri) else {
            return Ok(());
        };
        let mut evs = Vec::new();
        let calls = [
            kind_to_i(scry_model::EventKind::ToolCall),
            kind_to_i(scry_model::EventKind::ToolResult),
        ];
        self.each_record(m.key, &m.uri, 0, u32::MAX - 1, &mut |r| {
            if !calls.contains(&r.kind) {
                return Ok(());
            }
            let e = event_from(&m.uri, String::new(), r.rest)?;
            evs.push((
                r.seq,
                e.kind,
                e.time.map(time_to_i),
                r.aux.map(str::to_string),
                e.call_id,
            ));
            Ok(())
        })?;
        let echo = self_echo(
            evs.iter()
                .map(|(s, k, t, a, c)| (*s, *k, *t, a.as_deref(), c.as_deref())),
            caller.now,
        );
        for h in &mut m.hits {
            h.self_echo = h.seq.is_some_and(|q| echo.contains(&q));
        }
        Ok(())
    }

    /// A hit as shown; its match ranges are found again in the field when it was only counted.
    fn show_hit(
        &self,
        req: &SearchRequest,
        plan: &Plan,
        sid: i64,
        header: &scry_model::Header,
        h: &RawHit,
    ) -> Result<Hit> {
        let ranged = |text: &str| {
            let mut h = h.clone();
            if h.ranges.is_empty() {
                h.ranges = plan.matcher.field(text).ranges;
            }
            h
        };
        let Some(seq) = h.seq else {
            let text = match h.field {
                Field::Title => header.title.clone().unwrap_or_default(),
                _ => header.artifacts.join("\n"),
            };
            return Ok(engine::show(req, header, &ranged(&text), &text, None, None));
        };
        let mut found: Option<(scry_model::Event, Option<String>)> = None;
        self.each_record(sid, &header.uri, seq, seq, &mut |r| {
            found = Some((
                event_from(&header.uri, r.text.to_string(), r.rest)?,
                r.aux.map(str::to_string),
            ));
            Ok(())
        })?;
        let (event, aux) = found.ok_or_else(|| StoreError::CorruptSession {
            uri: header.uri.clone(),
            message: format!("event {seq} is missing from the index"),
        })?;
        let field_text = match h.field {
            Field::Tool => split_aux(aux.as_deref().unwrap_or("")).0.to_string(),
            Field::Args => split_aux(aux.as_deref().unwrap_or("")).1.to_string(),
            _ => event.text.clone(),
        };
        Ok(engine::show(
            req,
            header,
            &ranged(&field_text),
            &field_text,
            Some(event.locator),
            event.time,
        ))
    }
}

/// Marks `h` as a hit in earlier revision `n` (its command reads that revision).
fn superseded(h: &mut Hit, n: u32) {
    h.superseded = true;
    h.revision = Some(n);
    h.command.push_str(&format!(" --revision {n}"));
}

/// Hits of the events of one stored block (`id` = its first event's id) into `by_sid`. A
/// literal prefilter over the whole decoded block skips blocks without any match first.
fn block_hits(
    plan: &Plan,
    id: i64,
    data: &[u8],
    raw: &mut Decoded,
    by_sid: &mut Collector<'_>,
) -> Result<()> {
    let sid = id >> 32;
    let damaged = || StoreError::CorruptSession {
        uri: format!("session #{sid}"),
        message: "event block does not decode; re-index with --force".into(),
    };
    if !raw.load(data, false) {
        return Err(damaged());
    }
    if !plan.matcher.may_match(raw.search_bytes()) {
        return Ok(());
    }
    for rec in raw.records() {
        let rec = rec.map_err(|()| damaged())?;
        let Some(k) = kind_from_i(rec.kind) else {
            continue;
        };
        by_sid.add(
            sid,
            plan.event_hits(rec.seq, k, rec.turn, rec.text, rec.aux, false),
        );
    }
    Ok(())
}
