//! The Markdown export: the dialogue as written (it is Markdown already) but with no HTML of
//! its own and no fence it could break out of ([`escape`]), tool calls as `<details>` blocks
//! with fenced input and output (fences longer than any backtick run inside), thinking and
//! injected context collapsed.

mod escape;

use std::fmt::Write as _;

use scry_model::{Event, EventKind, Session};

use super::{call_summary, turns, Item, Redactor};
use escape::{code_span, fence, prose};

fn fenced(out: &mut String, body: &str) {
    let f = fence(body);
    let _ = writeln!(out, "{f}\n{}\n{f}", body.trim_end_matches('\n'));
}

/// One-line text safe inside a summary / heading (no HTML, no newlines).
fn inline(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace(['\n', '\r'], " ")
}

/// Renders the document.
pub fn render(s: &Session, r: &Redactor) -> String {
    let h = &s.header;
    let mut out = String::new();
    let title = r.s(h.title.as_deref().unwrap_or("(untitled session)"));
    let _ = writeln!(out, "# {}\n", inline(&title));
    let _ = writeln!(out, "- session: {}", code_span(&r.s(&h.uri)));
    let _ = writeln!(out, "- agent: {}", h.provider.as_str());
    if let Some(c) = &h.cwd {
        let _ = writeln!(out, "- directory: {}", code_span(&r.s(c)));
    }
    if let Some(t) = h.created {
        let _ = writeln!(out, "- created: {t}");
    }
    if let Some(t) = h.updated {
        let _ = writeln!(out, "- updated: {t}");
    }
    if !h.models.is_empty() {
        let _ = writeln!(out, "- models: {}", inline(&r.s(&h.models.join(", "))));
    }
    if let Some(b) = &h.git_branch {
        let _ = writeln!(out, "- branch: {}", code_span(&r.s(b)));
    }
    let _ = writeln!(out, "- kind: {}", h.kind.as_str());
    for t in turns(s) {
        if t.number == 0 {
            let _ = writeln!(out, "\n## Turn 0 (preamble)\n");
        } else {
            let _ = writeln!(out, "\n## Turn {}\n", t.number);
        }
        for item in &t.items {
            match item {
                Item::Text(e) => event_md(&mut out, e, r),
                Item::Call(c) => {
                    let failed = c.results.iter().any(|x| x.is_failure());
                    let _ = writeln!(
                        out,
                        "<details><summary>{} <code>{}</code> (E{}){}</summary>\n",
                        inline(&r.s(c.call.tool.as_deref().unwrap_or("tool"))),
                        inline(&r.s(&call_summary(c.call))),
                        c.call.seq + 1,
                        if failed { " — failed" } else { "" }
                    );
                    let args = c
                        .call
                        .args
                        .as_ref()
                        .map(|a| serde_json::to_string_pretty(&r.json(a)).unwrap_or_default())
                        .unwrap_or_else(|| r.s(&c.call.text));
                    fenced(&mut out, &args);
                    for res in &c.results {
                        result_md(&mut out, res, r);
                    }
                    if c.results.is_empty() {
                        out.push_str("\n_no result recorded_\n");
                    }
                    out.push_str("\n</details>\n\n");
                }
                Item::Orphan(e) => {
                    let _ = writeln!(
                        out,
                        "<details><summary>{} (E{}) — result without a recorded call</summary>\n",
                        inline(&r.s(e.tool.as_deref().unwrap_or("tool"))),
                        e.seq + 1
                    );
                    result_md(&mut out, e, r);
                    out.push_str("\n</details>\n\n");
                }
            }
        }
    }
    let _ = writeln!(
        out,
        "\n---\nExported by scry: {} event(s), {} warning(s){}.",
        s.events.len(),
        s.warnings.len(),
        if r.on() { ", secrets redacted" } else { "" }
    );
    out
}

fn result_md(out: &mut String, e: &Event, r: &Redactor) {
    let mut head = format!("\nResult (E{})", e.seq + 1);
    if let Some(c) = e.exit_code {
        let _ = write!(head, ", exit {c}");
    }
    if e.is_failure() {
        head.push_str(", failed");
    }
    let _ = writeln!(out, "{head}:\n");
    fenced(out, &r.s(&e.text));
}

fn event_md(out: &mut String, e: &Event, r: &Redactor) {
    let text = r.s(&e.text);
    match e.kind {
        EventKind::User => {
            let _ = writeln!(
                out,
                "**User** (E{}):\n\n{}\n",
                e.seq + 1,
                prose(text.trim_end())
            );
        }
        EventKind::Assistant => {
            let _ = writeln!(
                out,
                "**Assistant** (E{}):\n\n{}\n",
                e.seq + 1,
                prose(text.trim_end())
            );
        }
        EventKind::Thinking | EventKind::Meta => {
            let what = if e.kind == EventKind::Thinking {
                "Thinking".to_string()
            } else {
                format!(
                    "Context: {}",
                    inline(&r.s(e.subtype.as_deref().unwrap_or("meta")))
                )
            };
            let _ = writeln!(out, "<details><summary>{what} (E{})</summary>\n", e.seq + 1);
            fenced(out, &text);
            out.push_str("\n</details>\n\n");
        }
        _ => {
            let _ = writeln!(out, "> _{}_ (E{}):", e.kind.as_str(), e.seq + 1);
            for l in prose(text.trim_end()).lines() {
                let _ = writeln!(out, "> {l}");
            }
            out.push('\n');
        }
    }
}
