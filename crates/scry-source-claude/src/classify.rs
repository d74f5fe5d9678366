//! Splits `user` and `assistant` records into pieces (one per content block) and decides what
//! each piece is: a human prompt, a tool result, injected / meta text, a harness notice.
//!
//! The header scan and the full parse both call [`user_pieces`], so they agree on which record
//! holds the first human prompt.

use scry_model::EventKind;
use serde_json::Value;

/// Context a record is read in.
#[derive(Debug, Clone, Copy, Default)]
pub struct Ctx {
    /// The file is a subagent transcript (its first prompt is the task prompt, a real `User`).
    pub subagent_file: bool,
}

/// One event-to-be from a record's content.
#[derive(Debug)]
pub struct Piece<'a> {
    /// What it is.
    pub kind: EventKind,
    /// Finer label.
    pub subtype: Option<&'static str>,
    /// The text.
    pub text: String,
    /// Index of the first content block it came from (locator part).
    pub block: usize,
    /// The block itself (tool_use / tool_result), when relevant.
    pub raw: Option<&'a Value>,
    /// Images or documents that came with a prompt.
    pub attachments: u32,
}

impl<'a> Piece<'a> {
    fn new(kind: EventKind, subtype: Option<&'static str>, text: String, block: usize) -> Self {
        Piece {
            kind,
            subtype,
            text,
            block,
            raw: None,
            attachments: 0,
        }
    }
}

fn flag(v: &Value, key: &str) -> bool {
    v.get(key).and_then(Value::as_bool) == Some(true)
}

/// The `message.content` of a record (a bare string `message` counts as its content).
pub fn content(v: &Value) -> Option<&Value> {
    match v.get("message")? {
        Value::Object(m) => m.get("content"),
        s @ Value::String(_) => Some(s),
        _ => None,
    }
}

/// Pieces of a `user` record.
pub fn user_pieces<'a>(v: &'a Value, ctx: Ctx) -> Vec<Piece<'a>> {
    let mut out = Vec::new();
    let Some(content) = content(v) else {
        return out;
    };
    if flag(v, "isCompactSummary") {
        let text = scry_source::json::text_of(content);
        out.push(Piece::new(
            EventKind::Compaction,
            Some("compact_summary"),
            text,
            0,
        ));
        return out;
    }
    match content {
        Value::String(s) => out.push(classify_text(s, v, ctx, 0)),
        Value::Array(blocks) => {
            // Human text blocks of one record form one prompt (one turn), keyed by the first.
            let mut human: Option<Piece<'a>> = None;
            let mut attachments = 0u32;
            let has_results = blocks.iter().any(|b| block_type(b) == "tool_result");
            for (i, b) in blocks.iter().enumerate() {
                match block_type(b) {
                    "tool_result" => {
                        let mut p = Piece::new(EventKind::ToolResult, None, String::new(), i);
                        p.raw = Some(b);
                        out.push(p);
                    }
                    "image" | "document" => attachments += 1,
                    t if t == "text" || b.is_string() => {
                        let text = match b {
                            Value::String(s) => s.as_str(),
                            _ => b.get("text").and_then(Value::as_str).unwrap_or(""),
                        };
                        let p = classify_text(text, v, ctx, i);
                        if p.kind == EventKind::User {
                            if has_results {
                                // Text riding along a tool-result delivery is not a prompt.
                                out.push(Piece::new(
                                    EventKind::Meta,
                                    Some("tool_result_text"),
                                    p.text,
                                    i,
                                ));
                            } else if let Some(h) = human.as_mut() {
                                h.text.push('\n');
                                h.text.push_str(&p.text);
                            } else {
                                human = Some(p);
                            }
                        } else {
                            out.push(p);
                        }
                    }
                    _ => {
                        let mut p =
                            Piece::new(EventKind::Meta, Some("content_block"), String::new(), i);
                        p.raw = Some(b);
                        out.push(p);
                    }
                }
            }
            if attachments > 0 && !has_results && human.is_none() && !flag(v, "isMeta") {
                human = Some(Piece::new(EventKind::User, None, String::new(), 0));
            }
            if let Some(mut h) = human {
                h.attachments = attachments;
                let at = out
                    .iter()
                    .position(|p| p.block > h.block)
                    .unwrap_or(out.len());
                out.insert(at, h);
            }
        }
        other => out.push(classify_text(&other.to_string(), v, ctx, 0)),
    }
    out
}

fn block_type(b: &Value) -> &str {
    b.get("type").and_then(Value::as_str).unwrap_or("")
}

/// Decides what a user text is. Only a text that no rule below claims is a human prompt.
pub fn classify_text<'a>(text: &str, v: &Value, ctx: Ctx, block: usize) -> Piece<'a> {
    let t = text.trim_start();
    let (kind, subtype) = text_class(t, v, ctx);
    Piece::new(kind, subtype, text.to_string(), block)
}

fn text_class(t: &str, v: &Value, ctx: Ctx) -> (EventKind, Option<&'static str>) {
    use EventKind::{Meta, System, User};
    let starts = |p: &str| t.starts_with(p);
    if starts("<local-command-caveat>")
        || starts(
            "Caveat: The messages below were generated by the user while running local commands",
        )
    {
        return (Meta, Some("caveat"));
    }
    if starts("<command-name>") || starts("<command-message>") {
        return (Meta, Some("command"));
    }
    if starts("<local-command-stdout>") || starts("<local-command-stderr>") {
        return (System, Some("local_command"));
    }
    if starts("<bash-input>") {
        return (Meta, Some("bash_input"));
    }
    if starts("<bash-stdout>") || starts("<bash-stderr>") {
        return (System, Some("bash_output"));
    }
    if starts("[Request interrupted by user") {
        return (System, Some("interrupt"));
    }
    if starts("<task-notification>") {
        return (Meta, Some("task_notification"));
    }
    if starts("<system-reminder>") {
        return (Meta, Some("system_reminder"));
    }
    if flag(v, "isMeta") {
        return (Meta, Some("meta"));
    }
    if let Some(kind) = v
        .get("origin")
        .and_then(|o| o.get("kind"))
        .and_then(Value::as_str)
    {
        if kind != "human" {
            return (Meta, Some(origin_subtype(kind)));
        }
    }
    if flag(v, "isSidechain") && !ctx.subagent_file {
        if t.trim() == "Warmup" {
            return (Meta, Some("warmup"));
        }
        return (Meta, Some("sidechain_prompt"));
    }
    (User, None)
}

fn origin_subtype(kind: &str) -> &'static str {
    match kind {
        "task-notification" => "task_notification",
        "hook" => "hook",
        "system" => "system",
        "coordinator" => "coordinator",
        _ => "injected",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn kinds(v: &Value) -> Vec<(EventKind, Option<&'static str>)> {
        user_pieces(v, Ctx::default())
            .into_iter()
            .map(|p| (p.kind, p.subtype))
            .collect()
    }

    #[test]
    fn wrappers_are_not_prompts() {
        for (text, kind, sub) in [
            (
                "<command-name>/compact</command-name>",
                EventKind::Meta,
                "command",
            ),
            (
                "<local-command-stdout>ok</local-command-stdout>",
                EventKind::System,
                "local_command",
            ),
            (
                "<system-reminder>x</system-reminder>",
                EventKind::Meta,
                "system_reminder",
            ),
            (
                "[Request interrupted by user]",
                EventKind::System,
                "interrupt",
            ),
        ] {
            let v = json!({"type":"user","message":{"role":"user","content":text}});
            assert_eq!(kinds(&v), vec![(kind, Some(sub))], "{text}");
        }
        let v = json!({"type":"user","isMeta":true,"message":{"role":"user","content":"hi"}});
        assert_eq!(kinds(&v), vec![(EventKind::Meta, Some("meta"))]);
    }

    #[test]
    fn prompt_blocks_merge_and_reminders_split() {
        let v = json!({"type":"user","message":{"role":"user","content":[
            {"type":"text","text":"<system-reminder>ctx</system-reminder>"},
            {"type":"text","text":"fix it"},
            {"type":"text","text":"please"},
            {"type":"image","source":{}}
        ]}});
        let p = user_pieces(&v, Ctx::default());
        assert_eq!(p.len(), 2);
        assert_eq!(p[1].kind, EventKind::User);
        assert_eq!(p[1].text, "fix it\nplease");
        assert_eq!(p[1].attachments, 1);
    }
}
