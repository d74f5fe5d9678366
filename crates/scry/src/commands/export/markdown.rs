//! The Markdown export: the dialogue as written (it is Markdown already) but with no HTML of
//! its own and no fence it could break out of ([`escape`]), tool calls as `<details>` blocks
//! with fenced input and output (fences longer than any backtick run inside), thinking and
//! injected context collapsed.

mod escape;

use std::fmt::Write as _;

use scry_model::{Event, EventKind, Header};

use super::stream::{Piece, Plan};
use super::text::{call_summary, Redactor};
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

/// The document's head: title and the session's facts.
pub fn head(out: &mut String, h: &Header, r: &Redactor) {
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
}

/// One piece of the document: a turn heading, a dialogue event, a call with its results, or a
/// result without a call.
pub fn piece(out: &mut String, p: &Piece, r: &Redactor) {
    match p {
        Piece::Turn(0) => {
            let _ = writeln!(out, "\n## Turn 0 (preamble)\n");
        }
        Piece::Turn(n) => {
            let _ = writeln!(out, "\n## Turn {n}\n");
        }
        Piece::Text(e) => event_md(out, e, r),
        Piece::Call(call, results) => {
            let failed = results.iter().any(|x| x.is_failure());
            let _ = writeln!(
                out,
                "<details><summary>{} <code>{}</code> (E{}){}</summary>\n",
                inline(&r.s(call.tool.as_deref().unwrap_or("tool"))),
                inline(&r.s(&call_summary(call))),
                call.seq + 1,
                if failed { " — failed" } else { "" }
            );
            let args = call
                .args
                .as_ref()
                .map(|a| serde_json::to_string_pretty(&r.json(a)).unwrap_or_default())
                .unwrap_or_else(|| r.s(&call.text));
            fenced(out, &args);
            for res in results {
                result_md(out, res, r);
            }
            if results.is_empty() {
                out.push_str("\n_no result recorded_\n");
            }
            out.push_str("\n</details>\n\n");
        }
        Piece::Orphan(e) => {
            let _ = writeln!(
                out,
                "<details><summary>{} (E{}) — result without a recorded call</summary>\n",
                inline(&r.s(e.tool.as_deref().unwrap_or("tool"))),
                e.seq + 1
            );
            result_md(out, e, r);
            out.push_str("\n</details>\n\n");
        }
    }
}

/// The document's last line.
pub fn tail(out: &mut String, plan: &Plan, r: &Redactor) {
    let _ = writeln!(
        out,
        "\n---\nExported by scry: {} event(s), {} warning(s){}.",
        plan.events,
        plan.warnings.len(),
        if r.on() { ", secrets redacted" } else { "" }
    );
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
