//! The HTML export: one page, inline CSS, no script, and a Content-Security-Policy that allows
//! no request at all (no fonts, images, links to fetch). Every string from the session is
//! HTML-escaped; fenced code blocks in dialogue become `<pre><code>`; tool calls (with their
//! results), thinking and injected context are collapsible `<details>`.

use std::fmt::Write as _;

use scry_model::{Event, EventKind, Header};

use super::stream::{Piece, Plan};
use super::text::{call_summary, Redactor};

const CSS: &str = r#"
:root { color-scheme: light dark; --fg:#1d1f23; --bg:#fdfdfc; --muted:#6a6f78; --line:#d9dce1;
  --user:#eef4ff; --asst:#f6f7f5; --tool:#faf6ee; --err:#b42318; --code:#f1f2f4; }
@media (prefers-color-scheme: dark) { :root { --fg:#e4e6ea; --bg:#16181c; --muted:#9aa1ab;
  --line:#30343b; --user:#1c2635; --asst:#1d2024; --tool:#262219; --err:#ff8a80; --code:#202329; } }
* { box-sizing: border-box; }
body { margin: 0 auto; max-width: 60rem; padding: 1.5rem; font: 15px/1.5 system-ui, sans-serif;
  color: var(--fg); background: var(--bg); }
h1 { font-size: 1.4rem; margin: 0 0 .5rem; } h2 { font-size: 1.1rem; margin: 2rem 0 .5rem;
  border-bottom: 1px solid var(--line); padding-bottom: .25rem; }
dl.meta { display: grid; grid-template-columns: max-content 1fr; gap: .15rem 1rem; color: var(--muted); }
dl.meta dt { font-weight: 600; } dl.meta dd { margin: 0; overflow-wrap: anywhere; }
nav.toc { font-size: .9rem; color: var(--muted); } nav.toc a { color: inherit; margin-right: .6rem; }
.ev { border-radius: 6px; padding: .5rem .75rem; margin: .5rem 0; }
.ev .who { font-size: .8rem; font-weight: 600; color: var(--muted); text-transform: uppercase; }
.user { background: var(--user); } .assistant { background: var(--asst); }
.system, .meta, .compaction, .thinking { background: transparent; border: 1px dashed var(--line); }
.text { white-space: pre-wrap; overflow-wrap: anywhere; margin: .25rem 0; }
pre { background: var(--code); padding: .5rem; border-radius: 4px; overflow-x: auto;
  white-space: pre-wrap; overflow-wrap: anywhere; font: 13px/1.4 ui-monospace, monospace; }
details.tool { background: var(--tool); border-radius: 6px; padding: .35rem .75rem; margin: .5rem 0; }
details > summary { cursor: pointer; } summary code { font-size: .85rem; }
.failed { color: var(--err); font-weight: 600; } .muted { color: var(--muted); font-size: .85rem; }
footer { margin-top: 2rem; color: var(--muted); font-size: .8rem; }
"#;

/// Escapes text for HTML element content and attribute values.
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 16);
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            '\0' => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

/// Dialogue text: fenced code blocks as `<pre><code>`, the rest as pre-wrapped paragraphs.
fn text_html(text: &str) -> String {
    let mut out = String::new();
    let mut prose = String::new();
    let mut code: Option<(String, String)> = None; // (fence, body)
    let flush = |prose: &mut String, out: &mut String| {
        let t = prose.trim_matches('\n');
        if !t.is_empty() {
            let _ = write!(out, "<div class=\"text\">{}</div>", esc(t));
        }
        prose.clear();
    };
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim_start();
        match &mut code {
            Some((fence, body)) => {
                if trimmed.trim_end() == fence.as_str() {
                    let _ = write!(
                        out,
                        "<pre><code>{}</code></pre>",
                        esc(body.trim_end_matches('\n'))
                    );
                    code = None;
                } else {
                    body.push_str(line);
                }
            }
            None => {
                let ticks = trimmed.chars().take_while(|c| *c == '`').count();
                if ticks >= 3 {
                    flush(&mut prose, &mut out);
                    code = Some(("`".repeat(ticks), String::new()));
                } else {
                    prose.push_str(line);
                }
            }
        }
    }
    if let Some((_, body)) = code {
        // An unclosed fence: keep the code as code.
        let _ = write!(
            out,
            "<pre><code>{}</code></pre>",
            esc(body.trim_end_matches('\n'))
        );
    }
    flush(&mut prose, &mut out);
    out
}

fn label(e: &Event) -> &'static str {
    match e.kind {
        EventKind::User => "user",
        EventKind::Assistant => "assistant",
        EventKind::Thinking => "thinking",
        EventKind::System => "system",
        EventKind::Compaction => "compaction",
        EventKind::Meta => "meta",
        EventKind::ToolCall => "tool call",
        EventKind::ToolResult => "tool result",
    }
}

fn ev_ref(e: &Event) -> String {
    format!("E{}", e.seq + 1)
}

fn result_html(out: &mut String, e: &Event, r: &Redactor) {
    let failed = e.is_failure();
    let mut head = format!("result {}", ev_ref(e));
    if let Some(c) = e.exit_code {
        let _ = write!(head, " · exit {c}");
    }
    if failed {
        head.push_str(" · failed");
    }
    let _ = write!(
        out,
        "<div class=\"muted{}\">{}</div><pre><code>{}</code></pre>",
        if failed { " failed" } else { "" },
        esc(&head),
        esc(&r.s(&e.text))
    );
}

/// The page's head, the session's facts and the table of turns (`turns`: one number per turn,
/// in order).
pub fn head(out: &mut String, h: &Header, turns: &[u32], r: &Redactor) {
    let title = r.s(h.title.as_deref().unwrap_or("(untitled session)"));
    out.push_str("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">");
    out.push_str("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; img-src 'none'; base-uri 'none'; form-action 'none'\">");
    out.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">");
    out.push_str("<meta name=\"referrer\" content=\"no-referrer\">");
    let _ = write!(
        out,
        "<title>{} — scry export</title><style>{CSS}</style></head><body>",
        esc(&title)
    );
    let _ = write!(out, "<header><h1>{}</h1><dl class=\"meta\">", esc(&title));
    let mut meta = |k: &str, v: String| {
        let _ = write!(*out, "<dt>{}</dt><dd>{}</dd>", esc(k), esc(&v));
    };
    meta("session", r.s(&h.uri));
    meta("agent", h.provider.as_str().to_string());
    if let Some(c) = &h.cwd {
        meta("directory", r.s(c));
    }
    if let Some(t) = h.created {
        meta("created", t.to_string());
    }
    if let Some(t) = h.updated {
        meta("updated", t.to_string());
    }
    if !h.models.is_empty() {
        meta("models", r.s(&h.models.join(", ")));
    }
    if let Some(b) = &h.git_branch {
        meta("branch", r.s(b));
    }
    meta("kind", h.kind.as_str().to_string());
    if let Some(p) = &h.parent {
        meta("parent", r.s(p));
    }
    out.push_str("</dl></header>");
    out.push_str("<nav class=\"toc\">Turns: ");
    for n in turns {
        let _ = write!(out, "<a href=\"#turn-{n}\">{n}</a>");
    }
    out.push_str("</nav><main>");
}

/// One piece of the page; `open` says whether a turn's section is open (and is kept up to date).
pub fn piece(out: &mut String, p: &Piece, r: &Redactor, open: &mut bool) {
    match p {
        Piece::Turn(n) => {
            if *open {
                out.push_str("</section>");
            }
            *open = true;
            let heading = if *n == 0 {
                "Turn 0 (preamble)".to_string()
            } else {
                format!("Turn {n}")
            };
            let _ = write!(out, "<section id=\"turn-{n}\"><h2>{}</h2>", esc(&heading));
        }
        Piece::Text(e) => event_html(out, e, r),
        Piece::Call(call, results) => {
            let failed = results.iter().any(|x| x.is_failure());
            let tool = r.s(call.tool.as_deref().unwrap_or("tool"));
            let _ = write!(
                out,
                "<details class=\"tool\"><summary><b>{}</b> <code>{}</code> <span class=\"muted\">{}</span>{}</summary>",
                esc(&tool),
                esc(&r.s(&call_summary(call))),
                esc(&ev_ref(call)),
                if failed { " <span class=\"failed\">failed</span>" } else { "" }
            );
            let args = call
                .args
                .as_ref()
                .map(|a| serde_json::to_string_pretty(&r.json(a)).unwrap_or_default())
                .unwrap_or_else(|| r.s(&call.text));
            let _ = write!(
                out,
                "<div class=\"muted\">input</div><pre><code>{}</code></pre>",
                esc(&args)
            );
            if results.is_empty() {
                out.push_str("<div class=\"muted\">no result recorded</div>");
            }
            for res in results {
                result_html(out, res, r);
            }
            out.push_str("</details>");
        }
        Piece::Orphan(e) => {
            let _ = write!(
                out,
                "<details class=\"tool\"><summary><b>{}</b> <span class=\"muted\">{} · result without a recorded call</span></summary>",
                esc(&r.s(e.tool.as_deref().unwrap_or("tool"))),
                esc(&ev_ref(e))
            );
            result_html(out, e, r);
            out.push_str("</details>");
        }
    }
}

/// The page's end (`open`: a turn's section is still open).
pub fn tail(out: &mut String, plan: &Plan, r: &Redactor, open: bool) {
    if open {
        out.push_str("</section>");
    }
    let _ = writeln!(
        out,
        "</main><footer>Exported by scry from {} source file(s); {} event(s), {} warning(s){}.</footer></body></html>",
        plan.header.sources.len(),
        plan.events,
        plan.warnings.len(),
        if r.on() { "; secrets redacted" } else { "" }
    );
}

fn event_html(out: &mut String, e: &Event, r: &Redactor) {
    let text = r.s(&e.text);
    let who = label(e);
    let mut head = format!("{who} · {}", ev_ref(e));
    if let Some(st) = &e.subtype {
        let _ = write!(head, " · {}", r.s(st));
    }
    if let Some(t) = e.time {
        let _ = write!(head, " · {t}");
    }
    let collapsed = matches!(e.kind, EventKind::Thinking | EventKind::Meta);
    let class = who.replace(' ', "-");
    if collapsed {
        let _ = write!(
            out,
            "<details class=\"ev {class}\"><summary class=\"who\">{}</summary>{}</details>",
            esc(&head),
            text_html(&text)
        );
    } else {
        let _ = write!(
            out,
            "<div class=\"ev {class}\"><div class=\"who\">{}</div>{}</div>",
            esc(&head),
            text_html(&text)
        );
    }
}

#[cfg(test)]
mod tests {
    use super::{esc, text_html};

    #[test]
    fn escapes_and_keeps_code() {
        assert_eq!(
            esc("<a href=\"x\">&'"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;"
        );
        let h = text_html("before <b>\n```rust\nfn main() {}\n```\nafter");
        assert!(h.contains("<pre><code>fn main() {}</code></pre>"), "{h}");
        assert!(h.contains("before &lt;b&gt;"), "{h}");
        assert!(h.contains(">after</div>"), "{h}");
    }
}
