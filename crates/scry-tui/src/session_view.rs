//! Drawing the session view: a header (title, agent, directory, turn k of n), the tab bar,
//! then the turn — each prompt and answer with its text wrapped, one line per tool call
//! (the focused one reversed, an expanded one followed by its call and output in full) — or
//! the ledger tab's rows.

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;
use scry_query::page::Group;

use crate::ledger::{Look, Tab};
use crate::session::{event_of, SessionState};
use crate::text::{clip, highlight, wrap};
use crate::theme::Theme;

/// One drawn line of a turn and the event it shows.
pub struct TurnLine {
    /// The line.
    pub line: Line<'static>,
    /// Its event number.
    pub event: Option<u32>,
}

fn push_text(
    out: &mut Vec<TurnLine>,
    text: &str,
    indent: usize,
    w: usize,
    event: Option<u32>,
    needle: Option<&str>,
    theme: Theme,
) {
    let base = theme.text();
    let pad = " ".repeat(indent);
    for l in wrap(text, w.saturating_sub(indent)) {
        let mut spans = vec![Span::raw(pad.clone())];
        match needle {
            Some(n) => spans.extend(highlight(&l, n, base, theme.matched())),
            None => spans.push(Span::styled(l, base)),
        }
        out.push(TurnLine {
            line: Line::from(spans),
            event,
        });
    }
}

/// The lines of the turn shown, for width `w`.
pub fn turn_lines(s: &SessionState, theme: Theme, w: usize) -> Vec<TurnLine> {
    let mut out = Vec::new();
    let needle = s.needle.as_deref().filter(|n| !n.is_empty());
    if let Some(t) = s.turns.get(s.turn) {
        let mut meta = format!(
            "Turn {} · {} events · {} tool calls",
            t.number, t.events, t.tool_calls
        );
        if t.failures > 0 {
            meta.push_str(&format!(" · {} failed", t.failures));
        }
        if t.start.is_some() {
            meta.push_str(&format!(" · {}", scry_query::render::time(t.start)));
        }
        out.push(TurnLine {
            line: Line::styled(clip(&meta, w), theme.dim()),
            event: Some(t.first + 1),
        });
    }
    for (i, u) in s.units.iter().enumerate() {
        let ev = event_of(u);
        match u.group {
            Group::Events => {
                let kind = u.json.get("kind").and_then(|k| k.as_str()).unwrap_or("");
                let style = if kind == "user" {
                    theme.user()
                } else {
                    theme.assistant()
                };
                out.push(TurnLine {
                    line: Line::raw(""),
                    event: ev,
                });
                out.push(TurnLine {
                    line: Line::styled(clip(&u.head, w), style),
                    event: ev,
                });
                push_text(&mut out, &u.body, 2, w, ev, needle, theme);
            }
            Group::Tools => {
                if i == 0 || s.units[i - 1].group != Group::Tools {
                    out.push(TurnLine {
                        line: Line::raw(""),
                        event: ev,
                    });
                }
                let open = ev.is_some_and(|e| s.expanded.contains_key(&e));
                let failed = u.json.get("failed").and_then(|f| f.as_bool()) == Some(true);
                let mark = if open { "▾" } else { "▸" };
                let text = format!("{mark}{}", u.head.trim_start_matches(' '));
                let style = if failed { theme.bad() } else { theme.tool() };
                let mut line = Line::styled(clip(&text, w), style);
                if s.focus == Some(i) {
                    line = line.style(theme.selected());
                }
                out.push(TurnLine { line, event: ev });
                if let Some(full) = ev.and_then(|e| s.expanded.get(&e)) {
                    for f in full {
                        let fe = event_of(f);
                        out.push(TurnLine {
                            line: Line::styled(clip(&format!("    {}", f.head), w), theme.dim()),
                            event: fe,
                        });
                        push_text(&mut out, &f.body, 6, w, fe, needle, theme);
                    }
                }
            }
        }
    }
    out
}

fn tab_bar(s: &SessionState, theme: Theme) -> Line<'static> {
    let mut spans = Vec::new();
    for (i, t) in Tab::ALL.iter().enumerate() {
        let label = format!(" {} {} ", i + 1, t.title());
        let style = if *t == s.tab {
            theme.selected()
        } else {
            theme.dim()
        };
        spans.push(Span::styled(label, style));
    }
    if let Some(h) = s.hit_text() {
        spans.push(Span::styled(format!("  {h}"), theme.dim()));
    }
    Line::from(spans)
}

/// Draws session `s` into `area`.
pub fn draw(f: &mut Frame, area: Rect, s: &mut SessionState, theme: Theme) {
    if area.height < 3 {
        return;
    }
    let w = area.width as usize;
    let h = &s.header;
    let title = h.title.clone().unwrap_or_else(|| "(untitled)".into());
    let turn_pos = match s.turns.len() {
        0 => "no turns".to_string(),
        n => format!("turn {}/{}", s.turn + 1, n),
    };
    let head = Line::from(vec![
        Span::styled(format!("{} ", h.provider.as_str()), theme.provider()),
        Span::styled(
            clip(
                &crate::text::one_line(&title),
                w.saturating_sub(h.provider.as_str().len() + turn_pos.len() + 3),
            ),
            theme.heading(),
        ),
        Span::styled(format!("  {turn_pos}"), theme.dim()),
    ]);
    let dir = Line::styled(
        clip(
            &format!("{} · {}", h.uri, h.cwd.as_deref().unwrap_or("-")),
            w,
        ),
        theme.dim(),
    );
    f.render_widget(
        Paragraph::new(vec![head, dir, tab_bar(s, theme)]),
        Rect { height: 3, ..area },
    );
    let body = Rect {
        y: area.y + 3,
        height: area.height - 3,
        ..area
    };
    let bh = body.height as usize;
    if s.tab != Tab::Turn {
        let rows = s.ledgers.get(&s.tab).cloned().unwrap_or_default();
        s.ledger_scroll = s.ledger_scroll.min(rows.len().saturating_sub(1));
        let lines: Vec<Line> = rows
            .iter()
            .skip(s.ledger_scroll)
            .take(bh)
            .map(|r| {
                let style = match r.look {
                    Look::Head => theme.heading(),
                    Look::Plain => theme.text(),
                    Look::Dim => theme.dim(),
                    Look::Bad => theme.bad(),
                    Look::Good => theme.good(),
                };
                Line::styled(clip(&r.text, w), style)
            })
            .collect();
        f.render_widget(Paragraph::new(lines), body);
        return;
    }
    let lines = turn_lines(s, theme, w);
    if let Some(t) = s.target.take() {
        // The last line of an event at or before the target, then back to its first line.
        if let Some(pos) = lines.iter().rposition(|l| l.event.is_some_and(|e| e <= t)) {
            let e = lines[pos].event;
            let first = lines[..=pos]
                .iter()
                .rposition(|l| l.event != e)
                .map_or(0, |p| p + 1);
            // A focused tool line stays in view without jumping when it already is.
            if first < s.scroll || first >= s.scroll + bh || s.focus.is_none() {
                s.scroll = first;
            }
        }
    }
    if s.follow {
        s.scroll = lines.len().saturating_sub(bh);
    }
    s.scroll = s.scroll.min(lines.len().saturating_sub(1));
    s.last_len = lines.len();
    s.last_height = bh;
    s.last_width = w;
    let shown: Vec<Line> = lines
        .into_iter()
        .skip(s.scroll)
        .take(bh)
        .map(|l| l.line)
        .collect();
    f.render_widget(Paragraph::new(shown), body);
}

/// The event of the first line shown (for copying a reference).
pub fn top_event(s: &SessionState, theme: Theme, w: usize) -> Option<u32> {
    turn_lines(s, theme, w)
        .iter()
        .skip(s.scroll)
        .find_map(|l| l.event)
}
