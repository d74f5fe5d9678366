//! [`search_direct`](super::search_direct) over one session that streams instead of being held
//! whole (`search --session <id> --no-index`, issue 17). The first read keeps each event's hits
//! (as [`super::engine::direct_hits`] makes them, ranges bounded per field) and, when a
//! [`super::Caller`] may fold self-echo, a small row per tool call and result; ranking then
//! picks the shown hits, and a second read keeps only the events they show. Memory is bounded
//! by the hits, not by the session's text. The answer equals `search_direct` over the session
//! parsed whole.

use std::collections::{HashMap, HashSet};

use scry_model::{Event, EventKind, Header};

use super::engine::{rank, scry_command, self_echo, show_event, Plan, SessionMatch};
use super::{search_direct, SearchPlan, SearchRequest, SearchResponse, SessionHits};
use crate::codec::{aux_text, split_aux, time_to_i};
use crate::error::Result;

/// What self-echo needs of an event: seq, kind, time, the arguments of a tool call that runs
/// `scry` (else `None`), the call id.
type EchoRow = (u32, EventKind, Option<i64>, Option<String>, Option<String>);

/// Searches the one session `read` delivers: `read` streams every event of it, in order, into
/// the closure it is given and returns the session's header (its `sources` set), or `None` when
/// the session cannot be read (or is left out), which answers as a search over no session.
/// `read` is called twice when the page shows event hits (the second time to show them).
pub fn search_one_direct(
    req: &SearchRequest,
    mut read: impl FnMut(&mut dyn FnMut(Event)) -> Option<Header>,
) -> Result<SearchResponse> {
    let plan = Plan::new(req, false)?;
    let echo_wanted = req.caller.is_some();
    let mut hits = Vec::new();
    let mut echo: Vec<EchoRow> = Vec::new();
    let header = read(&mut |e: Event| {
        let aux = aux_text(&e);
        hits.extend(plan.event_hits(e.seq, e.kind, e.turn, &e.text, aux.as_deref(), true));
        if echo_wanted && matches!(e.kind, EventKind::ToolCall | EventKind::ToolResult) {
            // `self_echo` reads a call's arguments only to see whether they run `scry`.
            let runs = aux.filter(|a| {
                e.kind == EventKind::ToolCall && scry_command().is_match(split_aux(a).1)
            });
            echo.push((
                e.seq,
                e.kind,
                e.time.map(time_to_i),
                runs,
                e.call_id.clone(),
            ));
        }
    });
    let Some(header) = header.filter(|h| req.filter.matches(h)) else {
        return search_direct(&[], req);
    };
    let artifacts = (!header.artifacts.is_empty()).then(|| header.artifacts.join("\n"));
    let mut all = plan.session_hits(header.title.as_deref(), artifacts.as_deref());
    all.append(&mut hits);
    if let Some(c) = req.caller.as_ref().filter(|c| c.uri == header.uri) {
        let rows = echo
            .iter()
            .map(|(s, k, t, a, id)| (*s, *k, *t, a.as_deref(), id.as_deref()));
        let echoed = self_echo(rows, c.now);
        for h in &mut all {
            h.self_echo = h.seq.is_some_and(|q| echoed.contains(&q));
        }
    }
    drop(echo);
    let matches = if all.is_empty() {
        Vec::new()
    } else {
        vec![SessionMatch {
            key: 0,
            uri: header.uri.clone(),
            source: header
                .sources
                .first()
                .map(|p| p.to_string_lossy().into_owned())
                .unwrap_or_default(),
            updated: header.updated.map(time_to_i),
            hits: all,
            summary: None,
        }]
    };
    let mut ranked = rank(req, &plan, matches);
    // The events the page shows, by position (as `direct_show` finds them in a whole session).
    let wanted: HashSet<usize> = ranked
        .sessions
        .iter()
        .flat_map(|(m, ..)| m.hits.iter().filter_map(|h| h.seq.map(|q| q as usize)))
        .collect();
    let mut kept: HashMap<usize, Event> = HashMap::new();
    if !wanted.is_empty() {
        let mut pos = 0usize;
        let again = read(&mut |e: Event| {
            if wanted.contains(&pos) {
                kept.insert(pos, e);
            }
            pos += 1;
        });
        if again.is_none() {
            return search_direct(&[], req);
        }
    }
    let sessions = std::mem::take(&mut ranked.sessions)
        .into_iter()
        .map(|(m, best, n, more)| SessionHits {
            header: header.clone(),
            score: best,
            hit_count: n,
            hits: m
                .hits
                .iter()
                .map(|h| show_event(req, &header, h, h.seq.and_then(|q| kept.get(&(q as usize)))))
                .collect(),
            has_more_hits: more,
        })
        .collect();
    Ok(ranked.response(sessions, SearchPlan::Direct))
}
