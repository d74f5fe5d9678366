//! One open session: its turn directory ([`scry_query::turns`]), the turn shown
//! ([`scry_query::read`] of one turn: the dialogue and a line per tool call), tool calls
//! expanded to their call and output (a read of those events in full), the ledger tabs, the
//! hits of a search inside it, and the live check that reloads it when its source changes.

use std::collections::HashMap;
use std::path::PathBuf;

use scry_model::Header;
use scry_query::page::{Group, Unit};
use scry_query::{ReadRequest, Selector, TurnRow};

use crate::ledger::{self, Tab};
use crate::source::Source;

/// Characters read per turn (a turn is read whole; the view scrolls).
const MAX_CHARS: usize = 4_000_000;

/// The open session.
#[derive(Debug, Clone)]
pub struct SessionState {
    /// `provider:id`.
    pub uri: String,
    /// Its header (with `live` as its source is now).
    pub header: Header,
    /// The primary source (its fingerprint is checked for changes).
    pub source: Option<PathBuf>,
    /// The fingerprint the view was read at.
    pub fingerprint: String,
    /// The turn directory.
    pub turns: Vec<TurnRow>,
    /// Index into `turns` of the turn shown.
    pub turn: usize,
    /// The shown turn's units (dialogue and tool lines).
    pub units: Vec<Unit>,
    /// Expanded tool calls: call event number → the call and its result in full.
    pub expanded: HashMap<u32, Vec<Unit>>,
    /// The focused tool line (index into `units`).
    pub focus: Option<usize>,
    /// First line shown.
    pub scroll: usize,
    /// Scroll so this event is in view at the next draw.
    pub target: Option<u32>,
    /// Stay at the end of the last turn when the session grows.
    pub follow: bool,
    /// The tab shown.
    pub tab: Tab,
    /// Ledger tabs already read, as lines.
    pub ledgers: HashMap<Tab, Vec<ledger::Row>>,
    /// Scroll of the ledger tabs.
    pub ledger_scroll: usize,
    /// Hits of the search inside this session: (turn, event).
    pub hits: Vec<(u32, u32)>,
    /// The hit jumped to last.
    pub hit: Option<usize>,
    /// The search text (highlighted in the turn).
    pub needle: Option<String>,
    /// Lines of the last draw (for paging and `G`).
    pub last_len: usize,
    /// Height of the last draw.
    pub last_height: usize,
    /// Width of the last draw.
    pub last_width: usize,
}

fn err(e: scry_query::QueryError) -> String {
    e.to_string()
}

impl SessionState {
    /// Opens `uri` at turn `turn` (default: the first with a prompt) and event `event`.
    pub fn open(
        ctx: &Source,
        uri: &str,
        turn: Option<u32>,
        event: Option<u32>,
    ) -> Result<SessionState, String> {
        let dir = ctx
            .reader
            .turns(&ctx.ctx, uri, scry_query::turns::KEEP_TEXT)
            .map_err(err)?;
        let mut header = dir.header.clone();
        header.live = dir.availability.live;
        let uri = header.uri.clone();
        let source = header.sources.first().cloned();
        let idx = match turn {
            Some(t) => dir.rows.iter().position(|r| r.number == t),
            None => dir.rows.iter().position(|r| r.number >= 1),
        }
        .unwrap_or(0);
        let mut s = SessionState {
            uri,
            header,
            source,
            fingerprint: dir.fingerprint.clone(),
            turns: dir.rows,
            turn: idx,
            units: Vec::new(),
            expanded: HashMap::new(),
            focus: None,
            scroll: 0,
            target: event,
            follow: false,
            tab: Tab::Turn,
            ledgers: HashMap::new(),
            ledger_scroll: 0,
            hits: Vec::new(),
            hit: None,
            needle: None,
            last_len: 0,
            last_height: 0,
            last_width: 80,
        };
        s.load_turn(ctx)?;
        Ok(s)
    }

    /// The number of the turn shown.
    pub fn turn_number(&self) -> Option<u32> {
        self.turns.get(self.turn).map(|r| r.number)
    }

    /// Reads the turn shown.
    pub fn load_turn(&mut self, ctx: &Source) -> Result<(), String> {
        let Some(n) = self.turn_number() else {
            self.units.clear();
            return Ok(());
        };
        let page = ctx
            .reader
            .read(
                &ctx.ctx,
                &ReadRequest {
                    id: self.uri.clone(),
                    selector: Selector::Turns(n.to_string()),
                    raw: false,
                    max_chars: MAX_CHARS,
                    cursor: None,
                },
            )
            .map_err(err)?;
        self.units = page.units;
        self.focus = None;
        Ok(())
    }

    /// Shows turn index `idx` (clamped), from its top.
    pub fn goto_turn(&mut self, ctx: &Source, idx: usize) -> Result<(), String> {
        let idx = idx.min(self.turns.len().saturating_sub(1));
        if idx != self.turn || self.units.is_empty() {
            self.turn = idx;
            self.load_turn(ctx)?;
        }
        self.scroll = 0;
        self.follow = false;
        Ok(())
    }

    /// The tool lines of the turn: unit indices.
    pub fn tool_units(&self) -> Vec<usize> {
        self.units
            .iter()
            .enumerate()
            .filter(|(_, u)| u.group == Group::Tools)
            .map(|(i, _)| i)
            .collect()
    }

    /// Moves the tool focus to the next (`forward`) or previous tool line, and brings it into
    /// view.
    pub fn focus_tool(&mut self, forward: bool) {
        let tools = self.tool_units();
        if tools.is_empty() {
            return;
        }
        let next = match self.focus {
            None if forward => tools[0],
            None => tools[tools.len() - 1],
            Some(f) => {
                let pos = tools.iter().position(|&t| t == f).unwrap_or(0);
                if forward {
                    tools[(pos + 1).min(tools.len() - 1)]
                } else {
                    tools[pos.saturating_sub(1)]
                }
            }
        };
        self.focus = Some(next);
        self.target = event_of(&self.units[next]);
    }

    /// Expands or collapses the focused tool call (reading the call and its result in full).
    pub fn toggle_focused(&mut self, ctx: &Source) -> Result<(), String> {
        let Some(u) = self.focus.and_then(|f| self.units.get(f)) else {
            return Ok(());
        };
        let Some(call) = event_of(u) else {
            return Ok(());
        };
        if self.expanded.remove(&call).is_some() {
            return Ok(());
        }
        let result = u.json.get("result_event").and_then(|v| v.as_u64());
        let events = match result {
            Some(r) if r as u32 != call => format!("{call},{r}"),
            _ => call.to_string(),
        };
        let page = ctx
            .reader
            .read(
                &ctx.ctx,
                &ReadRequest {
                    id: self.uri.clone(),
                    selector: Selector::Events(events),
                    raw: false,
                    max_chars: MAX_CHARS,
                    cursor: None,
                },
            )
            .map_err(err)?;
        self.expanded.insert(call, page.units);
        Ok(())
    }

    /// Sets the search hits inside this session (for `n` / `N`), from a within-session
    /// search for `needle`.
    pub fn load_hits(&mut self, ctx: &Source, needle: &str) -> Result<(), String> {
        let q = scry_query::SearchQuery {
            query: needle.to_string(),
            session: Some(self.uri.clone()),
            area: scry_store::Area::All,
            limit: 1,
            max_hits: 1000,
            context: 20,
            ..Default::default()
        };
        let res = ctx.reader.search(&ctx.ctx, &q).map_err(err)?;
        let mut hits: Vec<(u32, u32)> = res
            .response
            .sessions
            .iter()
            .flat_map(|s| s.hits.iter())
            .filter_map(|h| Some((h.turn?, h.event?)))
            .collect();
        hits.sort_unstable();
        hits.dedup();
        self.hits = hits;
        self.needle = Some(needle.to_string());
        self.hit = None;
        Ok(())
    }

    /// Jumps to the next (`forward`) or previous hit after / before the one shown last.
    pub fn jump_hit(&mut self, ctx: &Source, forward: bool) -> Result<(), String> {
        if self.hits.is_empty() {
            return Err("no search hits in this session (/ to search)".into());
        }
        let n = self.hits.len();
        let i = match self.hit {
            None if forward => 0,
            None => n - 1,
            Some(i) if forward => (i + 1) % n,
            Some(i) => (i + n - 1) % n,
        };
        self.goto_hit(ctx, i)
    }

    /// Shows hit `i`: its turn, scrolled to its event.
    pub fn goto_hit(&mut self, ctx: &Source, i: usize) -> Result<(), String> {
        let Some(&(turn, event)) = self.hits.get(i) else {
            return Ok(());
        };
        self.hit = Some(i);
        self.tab = Tab::Turn;
        if let Some(idx) = self.turns.iter().position(|r| r.number == turn) {
            self.goto_turn(ctx, idx)?;
        }
        self.target = Some(event);
        Ok(())
    }

    /// Index of the hit shown last, as "3/12".
    pub fn hit_text(&self) -> Option<String> {
        if self.hits.is_empty() {
            return None;
        }
        Some(match self.hit {
            Some(i) => format!("hit {}/{}", i + 1, self.hits.len()),
            None => format!("{} hits", self.hits.len()),
        })
    }

    /// Reads the ledger of the current tab if not read yet.
    pub fn ensure_ledger(
        &mut self,
        ctx: &Source,
        now: scry_model::Timestamp,
    ) -> Result<(), String> {
        if self.tab == Tab::Turn || self.ledgers.contains_key(&self.tab) {
            return Ok(());
        }
        let rows = ledger::load(ctx, self.tab, &self.header, now)?;
        self.ledgers.insert(self.tab, rows);
        Ok(())
    }

    /// Reloads the session when its source changed on disk: the turn directory, the turn
    /// shown (or the new last turn when following), and drops the ledgers read. Returns
    /// whether it changed.
    pub fn refresh_if_changed(&mut self, ctx: &Source) -> Result<bool, String> {
        let Some(src) = &self.source else {
            return Ok(false);
        };
        if scry_query::fingerprint_text(src) == self.fingerprint {
            return Ok(false);
        }
        let dir = ctx
            .reader
            .turns(&ctx.ctx, &self.uri, scry_query::turns::KEEP_TEXT)
            .map_err(err)?;
        let was_last = self.turn + 1 >= self.turns.len();
        let at_end = self.scroll + self.last_height >= self.last_len;
        self.fingerprint = dir.fingerprint;
        self.header = dir.header;
        self.header.live = dir.availability.live;
        self.turns = dir.rows;
        self.ledgers.clear();
        if was_last && (at_end || self.follow) {
            self.turn = self.turns.len().saturating_sub(1);
            self.follow = true;
        }
        self.turn = self.turn.min(self.turns.len().saturating_sub(1));
        let focus = self.focus;
        self.load_turn(ctx)?;
        self.focus = focus.filter(|f| *f < self.units.len());
        Ok(true)
    }

    /// The reference of the event in view: the focused tool call, else the first event at
    /// or after the top line (`provider:id E<n>`).
    pub fn reference(&self, top_event: Option<u32>) -> String {
        let event = self
            .focus
            .and_then(|f| self.units.get(f))
            .and_then(event_of)
            .or(top_event);
        match event {
            Some(e) => format!("{} E{e}", self.uri),
            None => self.uri.clone(),
        }
    }
}

/// The 1-based event number of a unit.
pub fn event_of(u: &Unit) -> Option<u32> {
    u.json
        .get("event")
        .and_then(|v| v.as_u64())
        .map(|v| v as u32)
}
