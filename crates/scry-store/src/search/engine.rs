//! The part of search both back ends share, so the index and `--no-index` answer identically:
//! which fields of which events are searched, how hits are scored, self-echo folding, ranking,
//! paging with cursors bound to the request, and how a hit is shown (character ranges, excerpt,
//! command).

use std::collections::HashSet;

use regex::Regex;
use scry_model::{EventKind, Header, Session, Timestamp};
use std::sync::OnceLock;
use xxhash_rust::xxh3::xxh3_64;

use super::matcher::{FieldMatch, Matcher};
use super::{
    Area, Field, Hit, SearchPlan, SearchRequest, SearchResponse, SessionHits, SessionSearch,
    SortOrder,
};
use crate::codec::{aux_text, split_aux, time_to_i};
use crate::error::{Result, StoreError};

/// Ranges shown per hit.
const SHOWN_RANGES: usize = 20;
/// The self-echo window (S-S4).
const SELF_WINDOW_NS: i64 = 5 * 60 * 1_000_000_000;

/// A hit before it is shown: positions as byte ranges.
#[derive(Debug, Clone)]
pub(crate) struct RawHit {
    pub seq: Option<u32>,
    pub kind: Option<EventKind>,
    pub turn: u32,
    pub field: Field,
    pub ranges: Vec<(usize, usize)>,
    pub count: usize,
    pub score: f64,
    pub self_echo: bool,
}

/// One session's hits, keyed by the back end's handle (row id or position).
#[derive(Debug)]
pub(crate) struct SessionMatch {
    pub key: i64,
    pub uri: String,
    /// The primary source path: orders sessions that share a uri (one id in two files).
    pub source: String,
    pub updated: Option<i64>,
    pub hits: Vec<RawHit>,
    /// `(hit count, best score)` when `hits` holds only the hits the page could show (the
    /// best `max_hits` in [`hit_order`]) and no self-echo; `None` when `hits` is every hit.
    pub summary: Option<(usize, f64)>,
}

/// Validated request parts.
pub(crate) struct Plan {
    pub matcher: Matcher,
    pub kinds: Vec<EventKind>,
    pub session_fields: Vec<Field>,
    pub offset: usize,
    pub binding: u64,
}

impl Plan {
    pub fn new(req: &SearchRequest, within: bool) -> Result<Plan> {
        if req.limit == 0 || req.limit > 1000 {
            return Err(StoreError::InvalidPageSize(format!(
                "limit must be 1–1000 (got {})",
                req.limit
            )));
        }
        if req.max_hits == 0 || req.max_hits > 10_000 {
            return Err(StoreError::InvalidPageSize(format!(
                "max hits must be 1–10000 (got {})",
                req.max_hits
            )));
        }
        req.filter.validate()?;
        let matcher = Matcher::new(req)?;
        let kinds: Vec<EventKind> = if !req.kinds.is_empty() {
            let mut k = req.kinds.clone();
            k.sort();
            k.dedup();
            k
        } else {
            match req.area {
                Area::Dialogue => {
                    vec![EventKind::User, EventKind::Assistant, EventKind::Compaction]
                }
                Area::Tools => vec![EventKind::ToolCall, EventKind::ToolResult],
                Area::Artifacts => Vec::new(),
                Area::All => EventKind::ALL
                    .iter()
                    .copied()
                    .filter(|k| *k != EventKind::Thinking)
                    .collect(),
            }
        };
        let session_fields = if !req.kinds.is_empty() {
            Vec::new()
        } else {
            match req.area {
                Area::Dialogue => vec![Field::Title],
                Area::Tools => Vec::new(),
                Area::Artifacts => vec![Field::Artifact],
                Area::All => vec![Field::Title, Field::Artifact],
            }
        };
        let binding = binding(req, within);
        let offset = match &req.cursor {
            None => 0,
            Some(c) => parse_cursor(c, binding)?,
        };
        Ok(Plan {
            matcher,
            kinds,
            session_fields,
            offset,
            binding,
        })
    }

    /// Hits of one event, given its searchable parts: with their match ranges when `ranges`,
    /// else counted only (ranges empty; a shown hit gets them from its field again).
    pub fn event_hits(
        &self,
        seq: u32,
        kind: EventKind,
        turn: u32,
        text: &str,
        aux: Option<&str>,
        ranges: bool,
    ) -> Vec<RawHit> {
        if !self.kinds.contains(&kind) {
            return Vec::new();
        }
        let (tool, args) = aux.map_or(("", ""), split_aux);
        let fields = [
            (Field::Text, text),
            (Field::Tool, tool),
            (Field::Args, args),
        ];
        let fields = &fields[..if aux.is_some() { 3 } else { 1 }];
        let mut patterns = 0u64;
        let mut found: [Option<(Field, usize, FieldMatch)>; 3] = [None, None, None];
        for (slot, (f, t)) in found.iter_mut().zip(fields) {
            let m = if ranges {
                self.matcher.field(t)
            } else {
                let (count, patterns) = self.matcher.count(t);
                FieldMatch {
                    ranges: Vec::new(),
                    count,
                    patterns,
                }
            };
            if m.count > 0 {
                patterns |= m.patterns;
                *slot = Some((*f, t.len(), m));
            }
        }
        if patterns == 0 || !self.matcher.qualifies(patterns) {
            return Vec::new();
        }
        found
            .into_iter()
            .flatten()
            .map(|(field, len, m)| RawHit {
                seq: Some(seq),
                kind: Some(kind),
                turn,
                field,
                score: score(field, Some(kind), m.count, len),
                ranges: m.ranges,
                count: m.count,
                self_echo: false,
            })
            .collect()
    }

    /// Session-level hits (title, artifacts).
    pub fn session_hits(&self, title: Option<&str>, artifacts: Option<&str>) -> Vec<RawHit> {
        let mut out = Vec::new();
        for f in &self.session_fields {
            let text = match f {
                Field::Title => title,
                _ => artifacts,
            };
            let Some(text) = text else { continue };
            let m = self.matcher.field(text);
            if m.count > 0 && self.matcher.qualifies(m.patterns) {
                out.push(RawHit {
                    seq: None,
                    kind: None,
                    turn: 0,
                    field: *f,
                    score: score(*f, None, m.count, text.len()),
                    ranges: m.ranges,
                    count: m.count,
                    self_echo: false,
                });
            }
        }
        out
    }
}

/// BM25-like: term frequency saturated against the field's length (bytes, average 400), times
/// a boost for where the hit is.
fn score(field: Field, kind: Option<EventKind>, tf: usize, len: usize) -> f64 {
    let boost = match (field, kind) {
        (Field::Title, _) => 2.0,
        (Field::Text, Some(EventKind::User)) => 2.0,
        (Field::Text, Some(EventKind::Assistant | EventKind::Compaction))
        | (Field::Artifact, _) => 1.0,
        (Field::Text, Some(EventKind::System | EventKind::Meta)) => 0.5,
        _ => 0.8,
    };
    let (k1, b, avg) = (1.2, 0.75, 400.0);
    let tf = tf as f64;
    boost * tf * (k1 + 1.0) / (tf + k1 * (1.0 - b + b * len as f64 / avg))
}

pub(crate) fn scry_command() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r#"(?:^|[\s;&|(/`$"'])scry(?:\s|$)"#).expect("constant regex compiles")
    })
}

/// Seqs of the caller's self-echo events (S-S4): tool calls within the window whose argument
/// values run `scry …`, and the results paired with them by call id.
pub(crate) fn self_echo<'a>(
    events: impl Iterator<
        Item = (
            u32,
            EventKind,
            Option<i64>,
            Option<&'a str>,
            Option<&'a str>,
        ),
    >,
    now: Timestamp,
) -> HashSet<u32> {
    let now = time_to_i(now);
    let mut seqs = HashSet::new();
    let mut calls: HashSet<String> = HashSet::new();
    let mut results: Vec<(u32, String)> = Vec::new();
    for (seq, kind, time, aux, call_id) in events {
        match kind {
            EventKind::ToolCall => {
                let recent = time.is_some_and(|t| t >= now.saturating_sub(SELF_WINDOW_NS));
                let runs = aux.is_some_and(|a| scry_command().is_match(split_aux(a).1));
                if recent && runs {
                    seqs.insert(seq);
                    if let Some(c) = call_id {
                        calls.insert(c.to_string());
                    }
                }
            }
            EventKind::ToolResult => {
                if let Some(c) = call_id {
                    results.push((seq, c.to_string()));
                }
            }
            _ => {}
        }
    }
    for (seq, c) in results {
        if calls.contains(&c) {
            seqs.insert(seq);
        }
    }
    seqs
}

fn binding(req: &SearchRequest, within: bool) -> u64 {
    let mut r = req.clone();
    r.cursor = None;
    if let Some(c) = r.caller.as_mut() {
        c.now = Timestamp::UNIX_EPOCH;
    }
    if r.since_spec.is_some() {
        r.filter.updated.from = None;
    }
    r.kinds.sort();
    r.kinds.dedup();
    r.filter.uris.sort();
    r.filter.providers.sort();
    r.filter.kinds.sort_by_key(|k| k.as_str());
    if r.mode != super::SearchMode::Terms {
        r.terms.clear();
    } else {
        r.query.clear();
    }
    let json = serde_json::to_string(&(within, &r)).unwrap_or_default();
    xxh3_64(json.as_bytes())
}

pub(crate) fn make_cursor(offset: usize, binding: u64) -> String {
    format!("c1.{offset:x}.{binding:016x}")
}

fn parse_cursor(c: &str, binding: u64) -> Result<usize> {
    let bad = || StoreError::InvalidCursor(format!("'{c}' is not a cursor of this search"));
    let mut parts = c.split('.');
    let (Some("c1"), Some(off), Some(b), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(bad());
    };
    let off = usize::from_str_radix(off, 16).map_err(|_| bad())?;
    let b = u64::from_str_radix(b, 16).map_err(|_| bad())?;
    if b != binding {
        return Err(StoreError::InvalidCursor(
            "the cursor belongs to another query, filter set or page size".into(),
        ));
    }
    Ok(off)
}

pub(crate) fn hit_order(sort: SortOrder) -> impl Fn(&RawHit, &RawHit) -> std::cmp::Ordering {
    move |a, b| {
        let pos = |h: &RawHit| (h.seq.map_or(0, |s| i64::from(s) + 1), h.field);
        match sort {
            SortOrder::Relevance => b.score.total_cmp(&a.score).then(pos(a).cmp(&pos(b))),
            SortOrder::Time => pos(a).cmp(&pos(b)),
        }
    }
}

/// The order of matched sessions (with their best score) in a result: by best hit (or last
/// update for `sort: time`), then last update, uri, primary source, and the back end's key.
pub(crate) fn session_order(
    sort: SortOrder,
) -> impl Fn((&SessionMatch, f64), (&SessionMatch, f64)) -> std::cmp::Ordering {
    move |(a, sa), (b, sb)| {
        let recent = |m: &SessionMatch| std::cmp::Reverse(m.updated.map_or(i64::MIN, |u| u));
        match sort {
            SortOrder::Relevance => sb
                .total_cmp(&sa)
                .then(recent(a).cmp(&recent(b)))
                .then(a.uri.cmp(&b.uri))
                .then(a.source.cmp(&b.source))
                .then(b.key.cmp(&a.key)),
            SortOrder::Time => recent(a)
                .cmp(&recent(b))
                .then(a.uri.cmp(&b.uri))
                .then(a.source.cmp(&b.source))
                .then(b.key.cmp(&a.key)),
        }
    }
}

/// The result skeleton: which sessions and hits to show, before materializing them.
pub(crate) struct Ranked {
    pub sessions: Vec<(SessionMatch, f64, usize, bool)>,
    pub total_matches: u64,
    pub total_sessions: u64,
    pub self_folded: u64,
    pub total_exact: bool,
    pub next_cursor: Option<String>,
}

impl Ranked {
    /// The response of the shown `sessions` (built from [`Ranked::sessions`], taken out
    /// before) with these totals and cursor, found by `plan`.
    pub(crate) fn response(self, sessions: Vec<SessionHits>, plan: SearchPlan) -> SearchResponse {
        SearchResponse {
            sessions,
            total_matches: self.total_matches,
            total_sessions: self.total_sessions,
            self_folded: self.self_folded,
            total_exact: self.total_exact,
            next_cursor: self.next_cursor,
            plan,
        }
    }
}

/// Whether `req` counts only the sessions up to the first one of its next page
/// ([`super::Count::Page`] with `sort: time`): a back end may then stop reading sessions (in
/// [`session_order`]) once it has found `offset + limit + 1` with hits.
pub(crate) fn counts_page(req: &SearchRequest) -> bool {
    req.sort == SortOrder::Time && req.count == super::Count::Page
}

/// Folds self-echo, ranks sessions, pages them and picks the shown hits. With
/// [`counts_page`], the totals (and folded hits) are those of the sessions up to and including
/// the first session of the next page, in order — what a back end reading sessions in that
/// order until then has seen — and `total_exact` is `false` when there is a next page.
pub(crate) fn rank(req: &SearchRequest, plan: &Plan, matches: Vec<SessionMatch>) -> Ranked {
    // (session, best score, hits, folded hits); a session whose every hit folded keeps its
    // place (0 hits) for the partial totals.
    let mut all: Vec<(SessionMatch, f64, usize, u64)> = Vec::new();
    for mut m in matches {
        let mut folded = 0u64;
        if m.summary.is_none() {
            if !req.include_self {
                let before = m.hits.len();
                m.hits.retain(|h| !h.self_echo);
                folded = (before - m.hits.len()) as u64;
            }
            let best = m.hits.iter().map(|h| h.score).fold(f64::MIN, f64::max);
            m.summary = Some((m.hits.len(), best));
        }
        let (n, best) = m.summary.unwrap_or((0, f64::MIN));
        if n == 0 && folded == 0 {
            continue;
        }
        all.push((m, best, n, folded));
    }
    let order = session_order(req.sort);
    all.sort_by(|(a, sa, ..), (b, sb, ..)| order((a, *sa), (b, *sb)));
    let end = plan.offset.saturating_add(req.limit);
    let mut total_exact = true;
    if counts_page(req) {
        let cut = all
            .iter()
            .enumerate()
            .filter(|(_, s)| s.2 > 0)
            .nth(end)
            .map(|(i, _)| i);
        if let Some(cut) = cut {
            all.truncate(cut + 1);
            total_exact = false;
        }
    }
    let folded = all.iter().map(|s| s.3).sum();
    let sessions: Vec<(SessionMatch, f64, usize)> = all
        .into_iter()
        .filter(|s| s.2 > 0)
        .map(|(m, best, n, _)| (m, best, n))
        .collect();
    let total_matches = sessions.iter().map(|(_, _, n)| *n as u64).sum();
    let total_sessions = sessions.len() as u64;
    let next_cursor = (sessions.len() > end).then(|| make_cursor(end, plan.binding));
    let page = sessions
        .into_iter()
        .skip(plan.offset)
        .take(req.limit)
        .map(|(mut m, best, n)| {
            m.hits.sort_by(hit_order(req.sort));
            m.hits.truncate(req.max_hits);
            (m, best, n, n > req.max_hits)
        })
        .collect();
    Ranked {
        sessions: page,
        total_matches,
        total_sessions,
        self_folded: folded,
        total_exact,
        next_cursor,
    }
}

/// One page of hits within a session: `(hits, total, folded, next cursor)`.
pub(crate) fn page_within(
    req: &SearchRequest,
    plan: &Plan,
    mut hits: Vec<RawHit>,
) -> (Vec<RawHit>, u64, u64, Option<String>) {
    let before = hits.len();
    if !req.include_self {
        hits.retain(|h| !h.self_echo);
    }
    let folded = (before - hits.len()) as u64;
    let total = hits.len() as u64;
    hits.sort_by(hit_order(req.sort));
    let end = plan.offset.saturating_add(req.max_hits);
    let next = (hits.len() > end).then(|| make_cursor(end, plan.binding));
    let page = hits
        .into_iter()
        .skip(plan.offset)
        .take(req.max_hits)
        .collect();
    (page, total, folded, next)
}

/// Turns a raw hit into a shown hit, given the field's text and the event's details.
pub(crate) fn show(
    req: &SearchRequest,
    header: &Header,
    raw: &RawHit,
    text: &str,
    locator: Option<scry_model::Locator>,
    time: Option<Timestamp>,
) -> Hit {
    // Byte → char offsets for the shown ranges (one pass up to the last one).
    let mut ranges = Vec::new();
    let mut pos_b = 0usize;
    let mut pos_c = 0usize;
    let to_char = |b: usize, pos_b: &mut usize, pos_c: &mut usize| -> usize {
        let b = b.min(text.len());
        if let Some(s) = text.get(*pos_b..b) {
            *pos_c += s.chars().count();
            *pos_b = b;
        }
        *pos_c
    };
    for (s, e) in raw.ranges.iter().take(SHOWN_RANGES) {
        let cs = to_char(*s, &mut pos_b, &mut pos_c);
        let ce = to_char(*e, &mut pos_b, &mut pos_c);
        ranges.push([cs, ce]);
    }
    let (excerpt, excerpt_start) = match (raw.ranges.first(), ranges.first()) {
        (Some((s, e)), Some([cs, _])) => excerpt(text, *s, *e, *cs, req.context),
        _ => (String::new(), 0),
    };
    let command = match raw.seq {
        Some(seq) => format!("scry turn {} --event {}", header.uri, seq + 1),
        None => format!("scry show {}", header.uri),
    };
    Hit {
        provider: header.provider,
        uri: header.uri.clone(),
        turn: raw.seq.map(|_| raw.turn),
        event: raw.seq.map(|s| s + 1),
        kind: raw.kind,
        locator,
        time,
        field: raw.field,
        has_more_ranges: raw.count > SHOWN_RANGES || raw.ranges.len() > SHOWN_RANGES,
        ranges,
        match_count: raw.count,
        excerpt,
        excerpt_start,
        score: raw.score,
        command,
        self_echo: raw.self_echo,
        superseded: false,
        revision: None,
    }
}

/// `context` characters before the match at bytes `[s, e)` (char offset `cs`), the match (at
/// most 400 characters of it) and `context` characters after.
fn excerpt(text: &str, s: usize, e: usize, cs: usize, context: usize) -> (String, usize) {
    let before = text.get(..s).unwrap_or("");
    let mut start_b = s;
    let mut taken = 0;
    for (i, _) in before.char_indices().rev() {
        if taken == context {
            break;
        }
        start_b = i;
        taken += 1;
    }
    let matched = text.get(s..e).unwrap_or("");
    let keep_match = matched.chars().take(400).map(char::len_utf8).sum::<usize>();
    let after = text.get(s + keep_match..).unwrap_or("");
    let limit = if keep_match < matched.len() {
        0
    } else {
        context
    };
    let after_len: usize = after.chars().take(limit).map(char::len_utf8).sum();
    let end_b = s + keep_match + after_len;
    (
        text.get(start_b..end_b).unwrap_or("").to_string(),
        cs - taken,
    )
}

/// Search across parsed sessions without an index (`--no-index`): the same answers as
/// [`crate::Store::search`] over an index built from the same sessions (S-S5).
pub fn search_direct(sessions: &[Session], req: &SearchRequest) -> Result<SearchResponse> {
    let plan = Plan::new(req, false)?;
    let mut matches = Vec::new();
    for (i, s) in sessions.iter().enumerate() {
        if !req.filter.matches(&s.header) {
            continue;
        }
        let hits = direct_hits(&plan, req, s);
        if !hits.is_empty() {
            matches.push(SessionMatch {
                key: i as i64,
                uri: s.header.uri.clone(),
                source: s
                    .header
                    .sources
                    .first()
                    .map(|p| p.to_string_lossy().into_owned())
                    .unwrap_or_default(),
                updated: s.header.updated.map(time_to_i),
                hits,
                summary: None,
            });
        }
    }
    let mut ranked = rank(req, &plan, matches);
    let mut out = Vec::new();
    for (m, best, n, more) in std::mem::take(&mut ranked.sessions) {
        let s = &sessions[usize::try_from(m.key).unwrap_or(0)];
        let hits = m.hits.iter().map(|h| direct_show(req, s, h)).collect();
        out.push(SessionHits {
            header: s.header.clone(),
            score: best,
            hit_count: n,
            hits,
            has_more_hits: more,
        });
    }
    Ok(ranked.response(out, SearchPlan::Direct))
}

/// Search within one parsed session (S-Q5), like [`crate::Store::search_session`].
pub fn search_session_direct(session: &Session, req: &SearchRequest) -> Result<SessionSearch> {
    let plan = Plan::new(req, true)?;
    let hits = direct_hits(&plan, req, session);
    let (page, total, folded, next) = page_within(req, &plan, hits);
    Ok(SessionSearch {
        header: session.header.clone(),
        hits: page.iter().map(|h| direct_show(req, session, h)).collect(),
        total_matches: total,
        self_folded: folded,
        next_cursor: next,
    })
}

pub(crate) fn direct_hits(plan: &Plan, req: &SearchRequest, s: &Session) -> Vec<RawHit> {
    let artifacts = (!s.header.artifacts.is_empty()).then(|| s.header.artifacts.join("\n"));
    let mut hits = plan.session_hits(s.header.title.as_deref(), artifacts.as_deref());
    let auxes: Vec<Option<String>> = s.events.iter().map(aux_text).collect();
    for (e, aux) in s.events.iter().zip(&auxes) {
        hits.extend(plan.event_hits(e.seq, e.kind, e.turn, &e.text, aux.as_deref(), true));
    }
    if let Some(c) = req.caller.as_ref().filter(|c| c.uri == s.header.uri) {
        let echo = self_echo(
            s.events.iter().zip(&auxes).map(|(e, a)| {
                (
                    e.seq,
                    e.kind,
                    e.time.map(time_to_i),
                    a.as_deref(),
                    e.call_id.as_deref(),
                )
            }),
            c.now,
        );
        for h in &mut hits {
            h.self_echo = h.seq.is_some_and(|q| echo.contains(&q));
        }
    }
    hits
}

pub(crate) fn direct_show(req: &SearchRequest, s: &Session, h: &RawHit) -> Hit {
    let event = h.seq.and_then(|q| s.events.get(q as usize));
    show_event(req, &s.header, h, event)
}

/// [`direct_show`] of a hit of the session `header` heads, `event` the one at the hit's
/// position (`None` for a session-level hit, or when the session has no such event).
pub(crate) fn show_event(
    req: &SearchRequest,
    header: &Header,
    h: &RawHit,
    event: Option<&scry_model::Event>,
) -> Hit {
    match event {
        Some(e) => {
            let aux = aux_text(e);
            let text = match h.field {
                Field::Tool => split_aux(aux.as_deref().unwrap_or("")).0.to_string(),
                Field::Args => split_aux(aux.as_deref().unwrap_or("")).1.to_string(),
                _ => e.text.clone(),
            };
            show(req, header, h, &text, Some(e.locator.clone()), e.time)
        }
        None => {
            let text = match h.field {
                Field::Title => header.title.clone().unwrap_or_default(),
                _ => header.artifacts.join("\n"),
            };
            show(req, header, h, &text, None, None)
        }
    }
}
