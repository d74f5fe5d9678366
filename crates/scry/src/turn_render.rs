//! Rendering one page of `scry turn` output as text for people (the JSON form is the query
//! crate's [`TurnPage::to_json`]).

use scry_query::TurnPage;
use serde_json::Value;

use crate::output::Output;
use crate::page::{chars, Group};
use crate::render::{self, Style};
use crate::turn_build::TurnInfo;

/// Text for people.
pub fn text(v: &TurnPage, s: Style) -> Output {
    let mut out = String::new();
    out.push_str(&s.bold(&format!(
        "{}  {}",
        v.header.uri,
        render::clip(v.header.title.as_deref().unwrap_or("(untitled)"), 60)
    )));
    out.push('\n');
    let mut current_turn: Option<u32> = None;
    let mut tools_open = false;
    for sl in &v.slices {
        let Some(u) = v.units.get(sl.unit) else {
            continue;
        };
        if v.headings && current_turn != Some(u.turn) {
            current_turn = Some(u.turn);
            tools_open = false;
            out.push('\n');
            out.push_str(&s.bold(&turn_heading(u.turn, v.infos.get(&u.turn))));
            out.push('\n');
        }
        match u.group {
            Group::Events => {
                tools_open = false;
                let cont = if sl.from > 0 { " (continued)" } else { "" };
                out.push_str(&s.dim(&format!("── {}{cont} ──", render::safe_text(&u.head))));
                out.push('\n');
                let body = render::safe_text(chars(&u.body, sl.from, sl.to));
                out.push_str(&body);
                if !body.ends_with('\n') {
                    out.push('\n');
                }
                let len = u.body_len();
                if sl.to < len {
                    out.push_str(&s.dim(&format!("[… cut at character {} of {}]\n", sl.to, len)));
                }
            }
            Group::Tools => {
                if !tools_open {
                    out.push_str(&s.dim("── tool calls ──"));
                    out.push('\n');
                    tools_open = true;
                }
                let failed = u.json.get("failed").and_then(Value::as_bool) == Some(true);
                let line = if failed {
                    s.red(&u.head)
                } else {
                    u.head.clone()
                };
                out.push_str(line.trim_end());
                out.push('\n');
            }
        }
    }
    if v.slices.is_empty() {
        out.push_str("(nothing to show)\n");
    }
    if let Some(c) = &v.next_cursor {
        out.push_str(&format!(
            "\n[more: this page stopped at --max-chars {}; continue with --cursor {c}]\n",
            v.max_chars
        ));
    }
    Output::with_warnings(out, &v.warnings)
}

fn turn_heading(turn: u32, info: Option<&TurnInfo>) -> String {
    let name = if turn == 0 {
        "T0 (preamble)".to_string()
    } else {
        format!("T{turn}")
    };
    let Some(i) = info else { return name };
    let mut parts = vec![
        name,
        render::time(i.start),
        format!("E{}–E{}", i.first + 1, i.last + 1),
        format!("{}, {} failed", render::count(i.calls, "call"), i.failures),
    ];
    if !i.hidden.is_empty() {
        let h: Vec<String> = i.hidden.iter().map(|(k, n)| format!("{n} {k}")).collect();
        parts.push(format!("not shown: {} (read with --event)", h.join(", ")));
    }
    parts.join(" · ")
}
