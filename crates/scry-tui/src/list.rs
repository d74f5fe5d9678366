//! The session list: `scry list`'s query (scope or global, provider, since, kind) answered by
//! [`scry_query::list`], newest first, page after page as the selection nears the end of what
//! is loaded, with each session's status (its failed tool results) and cost as the list rows
//! carry them (the index's usage ledger: no session is read for them), a selection, and the
//! filters cycled by keys.

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;
use scry_model::{SessionKind, Timestamp};
use scry_query::{KindFilter, ListQuery, SessionRow};

use crate::source::Source;

use crate::text::{age, cell, clip, clip_left, width};
use crate::theme::Theme;

/// Sessions loaded at once (one page of `list`).
pub const LIMIT: usize = 500;
/// The next page is loaded when the selection comes this close to the last loaded row.
pub const NEAR_END: usize = 50;

/// The values `s` cycles `--since` through.
pub const SINCE: [Option<&str>; 4] = [None, Some("24h"), Some("7d"), Some("30d")];
/// The values `k` cycles `--kind` through.
pub const KINDS: [Option<KindFilter>; 5] = [
    None,
    Some(KindFilter::Subagent),
    Some(KindFilter::Fork),
    Some(KindFilter::Exec),
    Some(KindFilter::All),
];

/// The list and its filters.
#[derive(Debug, Clone)]
pub struct ListState {
    /// The query (its filters change with keys).
    pub query: ListQuery,
    /// The listed sessions.
    pub rows: Vec<SessionRow>,
    /// Sessions in the whole result.
    pub total: usize,
    /// Hidden one-shot sessions.
    pub hidden: usize,
    /// Pages loaded (a reload loads as many again).
    pub pages: usize,
    /// The cursor of the page after the loaded ones, while rows remain.
    pub next_cursor: Option<String>,
    /// Index of the selected row.
    pub selected: usize,
    /// First row shown.
    pub offset: usize,
    /// Providers seen in an unfiltered list (what `a` cycles through).
    pub providers: Vec<String>,
}

impl ListState {
    /// A list for `query` (not loaded yet).
    pub fn new(mut query: ListQuery) -> ListState {
        query.limit = LIMIT;
        query.cursor = None;
        ListState {
            query,
            rows: Vec::new(),
            total: 0,
            hidden: 0,
            pages: 1,
            next_cursor: None,
            selected: 0,
            offset: 0,
            providers: Vec::new(),
        }
    }

    /// Loads the list for the current query (as many pages as were loaded); keeps the
    /// selected session selected when it is still listed.
    pub fn load(&mut self, ctx: &Source) -> Result<(), String> {
        let keep = self.selected_uri();
        let mut q = self.query.clone();
        q.cursor = None;
        let mut rows: Vec<SessionRow> = Vec::new();
        let mut next = None;
        for _ in 0..self.pages.max(1) {
            let list = ctx.reader.list(&ctx.ctx, &q).map_err(|e| e.to_string())?;
            self.total = list.total;
            self.hidden = list.hidden;
            rows.extend(list.rows);
            next = list.next_cursor;
            match &next {
                Some(c) => q.cursor = Some(c.clone()),
                None => break,
            }
        }
        self.set_rows(rows, next);
        self.selected = keep
            .and_then(|u| self.rows.iter().position(|r| r.header.uri == u))
            .unwrap_or(self.selected)
            .min(self.rows.len().saturating_sub(1));
        Ok(())
    }

    fn set_rows(&mut self, rows: Vec<SessionRow>, next: Option<String>) {
        for r in &rows {
            let p = r.header.provider.as_str().to_string();
            if !self.providers.contains(&p) {
                self.providers.push(p);
            }
        }
        self.providers.sort();
        self.rows = rows;
        self.next_cursor = next;
    }

    /// Loads the next page when the selection is within [`NEAR_END`] rows of the last loaded
    /// row and more remain; `Ok(true)` when rows were added.
    pub fn more_if_near_end(&mut self, ctx: &Source) -> Result<bool, String> {
        let Some(cursor) = self.next_cursor.clone() else {
            return Ok(false);
        };
        if self.selected + NEAR_END < self.rows.len() {
            return Ok(false);
        }
        let mut q = self.query.clone();
        q.cursor = Some(cursor);
        let list = ctx.reader.list(&ctx.ctx, &q).map_err(|e| e.to_string())?;
        self.total = list.total;
        self.hidden = list.hidden;
        let mut rows = std::mem::take(&mut self.rows);
        let before = rows.len();
        // A session listed again (the list moved under us) is kept once.
        let seen: std::collections::HashSet<(String, String)> = rows
            .iter()
            .map(|r| (r.header.uri.clone(), r.fingerprint.clone()))
            .collect();
        rows.extend(
            list.rows
                .into_iter()
                .filter(|r| !seen.contains(&(r.header.uri.clone(), r.fingerprint.clone()))),
        );
        let added = rows.len() > before;
        self.set_rows(rows, list.next_cursor);
        self.pages += 1;
        Ok(added)
    }

    /// The selected session's uri.
    pub fn selected_uri(&self) -> Option<String> {
        self.rows.get(self.selected).map(|r| r.header.uri.clone())
    }

    /// What changes when the list changes on disk (ids and fingerprints, in order).
    pub fn signature(&self) -> Vec<(String, String)> {
        self.rows
            .iter()
            .map(|r| (r.header.uri.clone(), r.fingerprint.clone()))
            .collect()
    }

    /// Moves the selection by `delta` rows (clamped).
    pub fn move_by(&mut self, delta: isize) {
        let n = self.rows.len();
        if n == 0 {
            return;
        }
        let s = self.selected as isize + delta;
        self.selected = s.clamp(0, n as isize - 1) as usize;
    }

    /// Toggles the scope between the current directory and every directory.
    pub fn toggle_global(&mut self) {
        self.pages = 1;
        let global = self.query.global || self.query.scope.as_deref() == Some("global");
        self.query.global = !global;
        if global {
            self.query.scope = None;
        }
    }

    /// The next provider filter: all, then each provider seen.
    pub fn cycle_provider(&mut self) {
        self.pages = 1;
        let cur = self.query.provider.clone();
        let next = match cur {
            None => self.providers.first().cloned(),
            Some(p) => {
                let i = self.providers.iter().position(|x| *x == p);
                i.and_then(|i| self.providers.get(i + 1).cloned())
            }
        };
        self.query.provider = next;
        self.selected = 0;
    }

    /// The next `--since` value.
    pub fn cycle_since(&mut self) {
        self.pages = 1;
        let i = SINCE
            .iter()
            .position(|s| s.map(str::to_string) == self.query.since)
            .map_or(0, |i| (i + 1) % SINCE.len());
        self.query.since = SINCE[i].map(str::to_string);
        self.selected = 0;
    }

    /// The next `--kind` value.
    pub fn cycle_kind(&mut self) {
        self.pages = 1;
        let i = KINDS
            .iter()
            .position(|k| *k == self.query.kind)
            .map_or(0, |i| (i + 1) % KINDS.len());
        self.query.kind = KINDS[i];
        self.selected = 0;
    }

    /// The filters as one line (`scope: cwd · provider: all · since: any · kind: main`).
    pub fn filters_text(&self) -> String {
        let scope = if self.query.global || self.query.scope.as_deref() == Some("global") {
            "global".to_string()
        } else {
            self.query.scope.clone().unwrap_or_else(|| "cwd".into())
        };
        let kind = match self.query.kind {
            None => "main".to_string(),
            Some(k) => format!("{k:?}").to_lowercase(),
        };
        format!(
            "scope {scope} · agent {} · since {} · kind {kind}",
            self.query.provider.as_deref().unwrap_or("all"),
            self.query.since.as_deref().unwrap_or("any"),
        )
    }
}

fn money(usd: f64) -> String {
    if usd >= 100.0 {
        format!("${usd:.0}")
    } else {
        format!("${usd:.2}")
    }
}

/// The cost cell: dollars when a request was priced, else the unpriced tokens (`30kt`), else
/// `-` (no request, or not known).
fn cost_text(row: &SessionRow) -> String {
    let Some(c) = &row.cost else {
        return "-".into();
    };
    if let Some(usd) = c.usd {
        return money(usd);
    }
    let unpriced: u64 = c.unpriced.values().sum();
    if unpriced > 0 {
        format!("{}t", tokens_text(unpriced))
    } else {
        "-".into()
    }
}

/// The status cell: `ok`, or how many tool results failed (`✗3`); `-` when not known.
fn status_text(row: &SessionRow) -> String {
    match row.failures {
        Some(0) => "ok".into(),
        Some(n) if n > 99 => "✗99+".into(),
        Some(n) => format!("✗{n}"),
        None => "-".into(),
    }
}

fn tokens_text(n: u64) -> String {
    match n {
        n if n >= 1_000_000 => format!("{:.1}M", n as f64 / 1e6),
        n if n >= 1_000 => format!("{}k", n / 1000),
        n => n.to_string(),
    }
}

/// Draws the list into `area`.
pub fn draw(f: &mut Frame, area: Rect, list: &mut ListState, theme: Theme, now: Timestamp) {
    let h = area.height as usize;
    if list.rows.is_empty() {
        let msg = if list.query.global {
            "no sessions found (s/a/k change the filters)"
        } else {
            "no sessions found in this scope (g: every directory)"
        };
        f.render_widget(Paragraph::new(Line::styled(msg, theme.dim())), area);
        return;
    }
    if list.selected < list.offset {
        list.offset = list.selected;
    }
    if h > 0 && list.selected >= list.offset + h {
        list.offset = list.selected + 1 - h;
    }
    let w = area.width as usize;
    // age 4, provider 11, status 4, cost 7, then title and (when wide) cwd; gaps of 1.
    let pw = 11;
    let sw = 4;
    let cw = 7;
    let free = w.saturating_sub(4 + 1 + pw + 1 + sw + 1 + cw + 1);
    let (title_w, dir_w) = if w >= 110 {
        let d = (free * 2 / 5).min(40);
        (free - d - 1, d)
    } else {
        (free, 0)
    };
    let mut lines = Vec::new();
    for (i, row) in list.rows.iter().enumerate().skip(list.offset).take(h) {
        let hd = &row.header;
        let mut title = hd.title.clone().unwrap_or_else(|| "(untitled)".into());
        if hd.kind != SessionKind::Main {
            title = format!("[{}] {title}", hd.kind.as_str());
        }
        if !hd.live {
            title = format!("[deleted] {title}");
        }
        let kids: Vec<String> = row
            .children
            .iter()
            .map(|(k, n)| format!("+{n} {k}{}", if *n == 1 { "" } else { "s" }))
            .collect();
        let kids = kids.join(" ");
        let title_cell = if kids.is_empty() {
            cell(&crate::text::one_line(&title), title_w)
        } else {
            let room = title_w.saturating_sub(width(&kids) + 1);
            let t = clip(&crate::text::one_line(&title), room);
            let pad = title_w.saturating_sub(width(&t) + 1 + width(&kids));
            format!("{t}{} {kids}", " ".repeat(pad))
        };
        let cost = cost_text(row);
        let status = status_text(row);
        let status_style = if row.failures.unwrap_or(0) > 0 {
            theme.bad()
        } else {
            theme.dim()
        };
        let mut spans = vec![
            Span::styled(format!("{:>4} ", age(hd.updated, now)), theme.dim()),
            Span::styled(cell(hd.provider.as_str(), pw) + " ", theme.provider()),
            Span::styled(cell(&status, sw) + " ", status_style),
            Span::styled(format!("{cost:>cw$} "), theme.dim()),
            Span::styled(title_cell, theme.text()),
        ];
        if dir_w > 0 {
            let dir = clip_left(hd.cwd.as_deref().unwrap_or("-"), dir_w);
            spans.push(Span::styled(format!(" {}", cell(&dir, dir_w)), theme.dim()));
        }
        let mut line = Line::from(spans);
        if i == list.selected {
            line = line.style(theme.selected());
        }
        lines.push(line);
    }
    f.render_widget(Paragraph::new(lines), area);
}
