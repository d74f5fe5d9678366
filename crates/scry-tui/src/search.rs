//! `/` search: the query typed so far, run through [`scry_query::search`] once typing pauses
//! ([`crate::app::DEBOUNCE`]), results grouped by session with the matches highlighted, and a
//! selection over the hits (Enter opens the session at the selected hit).

use std::time::Instant;

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;
use scry_query::{SearchQuery, SearchResult};

use crate::source::Source;
use scry_store::Area;

use crate::app::{Screen, DEBOUNCE};
use crate::text::{clip, spans_with};
use crate::theme::Theme;

/// One selectable hit: session index and hit index in the result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HitRef {
    /// Index into the result's sessions.
    pub session: usize,
    /// Index into that session's hits.
    pub hit: usize,
}

/// The search.
#[derive(Debug, Clone)]
pub struct SearchState {
    /// The text typed.
    pub input: String,
    /// The text the result is for.
    pub ran: String,
    /// When the input last changed and was not run yet.
    pub dirty: Option<Instant>,
    /// The result.
    pub result: Option<SearchResult>,
    /// Why the last search failed.
    pub error: Option<String>,
    /// The selected hit (index into [`SearchState::hits`]).
    pub selected: usize,
    /// First line shown.
    pub offset: usize,
    /// The screen `Esc` returns to.
    pub back: Screen,
    /// The query's scope, provider and since (the list's filters).
    pub base: SearchQuery,
}

impl Default for SearchState {
    fn default() -> Self {
        SearchState {
            input: String::new(),
            ran: String::new(),
            dirty: None,
            result: None,
            error: None,
            selected: 0,
            offset: 0,
            back: Screen::List,
            base: SearchQuery {
                area: Area::All,
                global: true,
                limit: 50,
                max_hits: 5,
                context: 50,
                ..Default::default()
            },
        }
    }
}

impl SearchState {
    /// The input changed at `now`: the search runs once typing pauses.
    pub fn edited(&mut self, now: Instant) {
        self.dirty = Some(now);
    }

    /// Whether the debounced search is due at `now`.
    pub fn due(&self, now: Instant) -> bool {
        self.dirty
            .is_some_and(|t| now.saturating_duration_since(t) >= DEBOUNCE)
    }

    /// Runs the search for the input now.
    pub fn run(&mut self, ctx: &Source) {
        self.dirty = None;
        self.ran = self.input.clone();
        self.selected = 0;
        self.offset = 0;
        if self.input.trim().is_empty() {
            self.result = None;
            self.error = None;
            return;
        }
        let q = SearchQuery {
            query: self.input.clone(),
            ..self.base.clone()
        };
        match ctx.reader.search(&ctx.ctx, &q) {
            Ok(r) => {
                self.result = Some(r);
                self.error = None;
            }
            Err(e) => {
                self.result = None;
                self.error = Some(e.to_string());
            }
        }
    }

    /// Every selectable hit, in display order.
    pub fn hits(&self) -> Vec<HitRef> {
        let Some(r) = &self.result else {
            return Vec::new();
        };
        r.response
            .sessions
            .iter()
            .enumerate()
            .flat_map(|(si, s)| {
                (0..s.hits.len()).map(move |hi| HitRef {
                    session: si,
                    hit: hi,
                })
            })
            .collect()
    }

    /// Moves the selection by `delta` hits.
    pub fn move_by(&mut self, delta: isize) {
        let n = self.hits().len();
        if n == 0 {
            return;
        }
        self.selected = (self.selected as isize + delta).clamp(0, n as isize - 1) as usize;
    }

    /// The selected hit: session uri, turn and event.
    pub fn selected_target(&self) -> Option<(String, Option<u32>, Option<u32>)> {
        let h = *self.hits().get(self.selected)?;
        let r = self.result.as_ref()?;
        let s = r.response.sessions.get(h.session)?;
        let hit = s.hits.get(h.hit)?;
        Some((s.header.uri.clone(), hit.turn, hit.event))
    }
}

/// Draws the search screen into `area`: the input line, then the results.
pub fn draw(f: &mut Frame, area: Rect, s: &mut SearchState, theme: Theme) {
    if area.height == 0 {
        return;
    }
    let input = Line::from(vec![
        Span::styled("/", theme.heading()),
        Span::raw(s.input.clone()),
        Span::styled("█", theme.dim()),
    ]);
    f.render_widget(Paragraph::new(input), Rect { height: 1, ..area });
    let body = Rect {
        y: area.y + 1,
        height: area.height - 1,
        ..area
    };
    let w = body.width as usize;
    let mut lines: Vec<Line> = Vec::new();
    let mut sel_line = 0;
    if let Some(e) = &s.error {
        lines.push(Line::styled(clip(e, w), theme.bad()));
    } else if s.dirty.is_some() {
        lines.push(Line::styled("…", theme.dim()));
    } else if let Some(r) = &s.result {
        let resp = &r.response;
        lines.push(Line::styled(
            format!(
                "{} matches in {} sessions",
                resp.total_matches, resp.total_sessions
            ),
            theme.dim(),
        ));
        let mut k = 0;
        for sess in &resp.sessions {
            let h = &sess.header;
            let mut title = h.title.clone().unwrap_or_else(|| "(untitled)".into());
            // Hits of an earlier revision (issue 20): text a rewrite of the source removed.
            if let Some(n) = sess
                .hits
                .iter()
                .find(|x| x.superseded)
                .and_then(|x| x.revision)
            {
                title = format!("[superseded: revision {n}] {title}");
            }
            lines.push(Line::from(vec![
                Span::styled(format!("{} ", h.provider.as_str()), theme.provider()),
                Span::styled(
                    clip(
                        &crate::text::one_line(&format!("{title}  ({} hits)", sess.hit_count)),
                        w.saturating_sub(h.provider.as_str().len() + 1),
                    ),
                    theme.heading(),
                ),
            ]));
            for hit in &sess.hits {
                let label = match (hit.turn, hit.event) {
                    (Some(t), Some(e)) => format!("  T{t} E{e} "),
                    _ => "  title ".to_string(),
                };
                let ex = crate::text::one_line(&hit.excerpt);
                // Match ranges are offsets into the field; the excerpt starts at
                // `excerpt_start` of it.
                let ranges: Vec<(usize, usize)> = hit
                    .ranges
                    .iter()
                    .filter_map(|[a, b]| {
                        let a = a.checked_sub(hit.excerpt_start)?;
                        Some((a, b - hit.excerpt_start))
                    })
                    .collect();
                let room = w.saturating_sub(label.chars().count());
                let ex_clipped = clip(&ex, room);
                let mut spans = vec![Span::styled(label, theme.dim())];
                spans.extend(spans_with(
                    &ex_clipped,
                    &ranges,
                    theme.text(),
                    theme.matched(),
                ));
                let mut line = Line::from(spans);
                if k == s.selected {
                    line = line.style(theme.selected());
                    sel_line = lines.len();
                }
                lines.push(line);
                k += 1;
            }
        }
        if resp.sessions.is_empty() {
            lines.push(Line::styled("no matches", theme.dim()));
        }
    } else {
        lines.push(Line::styled(
            "type to search every session (literal, case-insensitive); Enter opens the hit",
            theme.dim(),
        ));
    }
    let h = body.height as usize;
    if sel_line < s.offset {
        s.offset = sel_line.saturating_sub(1);
    }
    if h > 0 && sel_line >= s.offset + h {
        s.offset = sel_line + 1 - h;
    }
    let shown: Vec<Line> = lines.into_iter().skip(s.offset).take(h).collect();
    f.render_widget(Paragraph::new(shown), body);
}
