//! The session list: `scry list`'s query (scope or global, provider, since, kind) answered by
//! [`scry_query::list`], newest first, with each session's cost from the per-session usage
//! report ([`scry_query::usage::usage`]), a selection, and the filters cycled by keys.

use std::collections::HashMap;

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;
use scry_model::{SessionKind, Timestamp};
use scry_query::usage::{Period, UsageRequest};
use scry_query::{KindFilter, ListQuery, SessionRow};

use crate::source::Source;

use crate::text::{age, cell, clip, clip_left, width};
use crate::theme::Theme;

/// Sessions loaded at once (one page of `list`).
pub const LIMIT: usize = 500;

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
    /// USD per session uri (subagents folded into their parent), where priced.
    pub costs: HashMap<String, f64>,
    /// Tokens per session uri.
    pub tokens: HashMap<String, u64>,
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
            costs: HashMap::new(),
            tokens: HashMap::new(),
            selected: 0,
            offset: 0,
            providers: Vec::new(),
        }
    }

    /// Loads the list for the current query; keeps the selected session selected when it is
    /// still listed.
    pub fn load(&mut self, ctx: &Source) -> Result<(), String> {
        let keep = self.selected_uri();
        let list = ctx
            .reader
            .list(&ctx.ctx, &self.query)
            .map_err(|e| e.to_string())?;
        for r in &list.rows {
            let p = r.header.provider.as_str().to_string();
            if !self.providers.contains(&p) {
                self.providers.push(p);
            }
        }
        self.providers.sort();
        self.rows = list.rows;
        self.total = list.total;
        self.hidden = list.hidden;
        self.selected = keep
            .and_then(|u| self.rows.iter().position(|r| r.header.uri == u))
            .unwrap_or(self.selected)
            .min(self.rows.len().saturating_sub(1));
        Ok(())
    }

    /// Loads the cost column: the per-session usage report (subagents folded into their
    /// parent, like the list's rows). Best effort: a failure leaves the column as it was.
    pub fn load_costs(&mut self, ctx: &Source, now: Timestamp) {
        let req = UsageRequest {
            period: Period::Session,
            provider: self.query.provider.clone(),
            timezone: Some("UTC".into()),
            now: Some(now),
            ..Default::default()
        };
        // The cost column is best effort: a usage failure leaves it empty.
        if let Ok(report) = ctx.reader.usage(&ctx.ctx, &req) {
            self.costs.clear();
            self.tokens.clear();
            for row in report.rows {
                if let Some(c) = row.cost_usd {
                    self.costs.insert(row.key.clone(), c);
                }
                self.tokens.insert(row.key, row.tokens.total);
            }
        }
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
        let global = self.query.global || self.query.scope.as_deref() == Some("global");
        self.query.global = !global;
        if global {
            self.query.scope = None;
        }
    }

    /// The next provider filter: all, then each provider seen.
    pub fn cycle_provider(&mut self) {
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
        let i = SINCE
            .iter()
            .position(|s| s.map(str::to_string) == self.query.since)
            .map_or(0, |i| (i + 1) % SINCE.len());
        self.query.since = SINCE[i].map(str::to_string);
        self.selected = 0;
    }

    /// The next `--kind` value.
    pub fn cycle_kind(&mut self) {
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
    // age 4, provider 11, cost 7, then title and (when wide) cwd; gaps of 1.
    let pw = 11;
    let cw = 7;
    let free = w.saturating_sub(4 + 1 + pw + 1 + cw + 1);
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
        let cost = match list.costs.get(&hd.uri) {
            Some(c) => money(*c),
            None => list
                .tokens
                .get(&hd.uri)
                .filter(|t| **t > 0)
                .map(|t| format!("{}t", tokens_text(*t)))
                .unwrap_or_else(|| "-".into()),
        };
        let mut spans = vec![
            Span::styled(format!("{:>4} ", age(hd.updated, now)), theme.dim()),
            Span::styled(cell(hd.provider.as_str(), pw) + " ", theme.provider()),
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
