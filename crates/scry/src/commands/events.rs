//! `scry events <id>` (S-Q4): one session's events by seq range, time range, kind, surface and
//! a text clause, one small row each (number, turn, time, kind, tool, surface, a preview), paged
//! with `--limit` and a cursor; `scry events <id> --relations <seq>` (S-Q6): one event's
//! surface, replacement chain, compaction group and source / derived events. Both answer
//! through the query crate (`scry_query::events`, `scry_query::relations`).
//! `scry events <id> --follow` prints the page, then the session's new events as they are
//! written ([`follow`]).

mod follow;

use clap::Args;
use scry_model::Surface;
use scry_query::events::clause::surface_name;
use scry_query::events::relations::parse_target;
use scry_query::events::{EventRow, Link, Related};
use scry_query::{EventPage, EventsRequest, Relations};

use crate::ctx::Ctx;
use crate::error::CliResult;
use crate::output::Output;
use crate::render::{self, Style};

/// Arguments of `scry events`: the query's request type (its flags defined once, in
/// `scry_query::EventsRequest`) and `--follow`.
#[derive(Debug, Args)]
pub struct EventsArgs {
    /// The events asked for.
    #[command(flatten)]
    pub request: EventsRequest,
    /// Keep printing new events as the session is written (filters apply); Ctrl-C ends
    // An earlier revision never changes: nothing to follow (issue 20).
    #[arg(long, conflicts_with_all = ["relations", "revision"])]
    pub follow: bool,
    /// Which revision of the session (issue 20).
    #[command(flatten)]
    pub rev: super::RevisionArg,
}

/// Runs `scry events`.
pub fn run(ctx: &Ctx, args: &EventsArgs) -> CliResult<Output> {
    let s = Style::new(ctx.color);
    let req = &args.request;
    if let Some(target) = &req.relations {
        let r = scry_query::relations(ctx, &req.id, parse_target(target)?)?;
        if ctx.json {
            return Ok(crate::output::json_out(&r.to_json()).into());
        }
        return Ok(relations_text(&r, s));
    }
    let (q, page) = (&req.filter, req.page());
    if args.follow {
        return follow::run(ctx, &req.id, q, &page, s);
    }
    let p = scry_query::events(ctx, &req.id, q, &page)?;
    if ctx.json {
        return Ok(crate::output::json_out(&p.to_json()).into());
    }
    Ok(page_text(&p, s))
}

fn title(h: &scry_model::Header, s: Style) -> String {
    s.bold(&format!(
        "{}  {}",
        h.uri,
        render::clip(h.title.as_deref().unwrap_or("(untitled)"), 60)
    ))
}

/// `E13  T1  2026-11-30 14:52  tool_call Bash  [shadowed]`.
fn row_head(r: &EventRow, s: Style) -> String {
    let mut what = r.kind.as_str().to_string();
    if let Some(st) = &r.subtype {
        what.push_str(&format!("/{st}"));
    }
    if let Some(t) = &r.tool {
        what.push_str(&format!(" {t}"));
    }
    if let Some(c) = r.exit_code {
        what.push_str(&format!(" exit {c}"));
    } else if r.failed == Some(true) {
        what.push_str(" error");
    }
    if r.surface != Surface::Current {
        what.push_str(&format!("  [{}]", surface_name(r.surface)));
    }
    let line = format!(
        "{:<6} T{:<3} {}  {}",
        format!("E{}", r.event),
        r.turn,
        render::time(r.time),
        render::safe_text(&what)
    );
    if r.failed == Some(true) {
        s.red(&line)
    } else {
        line
    }
}

/// A row as the text output shows it: its head line and, indented, its preview.
fn row_text(r: &EventRow, s: Style) -> String {
    let mut out = row_head(r, s);
    out.push('\n');
    if !r.preview.is_empty() {
        out.push_str(&format!(
            "  {}\n",
            render::clip(&r.preview, render::WIDTH - 2)
        ));
    }
    out
}

pub(super) fn page_text(p: &EventPage, s: Style) -> Output {
    let mut out = title(&p.header, s);
    out.push('\n');
    for r in &p.events {
        out.push_str(&row_text(r, s));
    }
    if p.events.is_empty() {
        out.push_str("(no matching events)\n");
    }
    let shown = p.events.len() as u64;
    let range = if shown == 0 {
        String::new()
    } else {
        format!("; showing {}–{}", p.before + 1, p.before + shown)
    };
    out.push_str(&s.dim(&format!(
        "{} of {} events match{range}",
        render::thousands(p.total),
        render::thousands(u64::from(p.session_events)),
    )));
    out.push('\n');
    if let Some(first) = p.events.first() {
        out.push_str(&s.dim(&format!(
            "read in full: scry turn {} --event {}",
            p.header.uri, first.event
        )));
        out.push('\n');
    }
    if let Some(c) = &p.next_cursor {
        out.push_str(&format!(
            "[more: this page stopped at --limit {}; continue with --cursor {c}]\n",
            p.limit
        ));
    }
    Output::with_warnings(out, &p.warnings)
}

fn numbers(seqs: &[u32]) -> String {
    match (seqs.first(), seqs.last()) {
        (Some(a), Some(b)) if a != b => format!("E{}–E{}", a + 1, b + 1),
        (Some(a), _) => format!("E{}", a + 1),
        _ => "-".into(),
    }
}

fn link_text(l: &Link) -> String {
    let subtypes: Vec<&str> = l.subtypes.iter().flatten().map(String::as_str).collect();
    let mut t = format!("{} compaction", numbers(&l.seqs));
    if !subtypes.is_empty() {
        t.push_str(&format!(" ({})", subtypes.join(", ")));
    }
    t.push_str(&format!(" [{}", surface_name(l.surface)));
    if l.rule == "recorded" {
        t.push_str(", recorded by the provider");
    }
    t.push(']');
    t
}

fn related_text(r: &Related) -> String {
    let mut t = format!("E{} {}", r.event, r.kind.as_str());
    if let Some(tool) = &r.tool {
        t.push_str(&format!(" {tool}"));
    }
    t.push_str(&format!(" (by {})", r.via));
    t
}

pub(super) fn relations_text(r: &Relations, s: Style) -> Output {
    let e = &r.event;
    let mut out = vec![title(&r.header, s), row_head(e, s)];
    if !e.preview.is_empty() {
        out.push(format!("  {}", render::clip(&e.preview, render::WIDTH - 2)));
    }
    let mut surface = format!("surface: {}", surface_name(e.surface));
    if e.surface != r.provider_surface {
        surface.push_str(&format!(
            " (derived; the provider recorded it as {})",
            surface_name(r.provider_surface)
        ));
    }
    out.push(surface);
    if !r.replaced_by.is_empty() {
        let chain: Vec<String> = r.replaced_by.iter().map(link_text).collect();
        out.push(format!("replaced by: {}", chain.join(" → ")));
    }
    if !r.group.is_empty() {
        out.push(format!("compaction group: {}", numbers(&r.group)));
    }
    if let Some(rep) = &r.replaces {
        let line = match (rep["from_seq"].as_u64(), rep["to_seq"].as_u64()) {
            (Some(a), Some(b)) => format!(
                "replaces: E{}–E{} ({} current then)",
                a + 1,
                b + 1,
                render::count(rep["events"].as_u64().unwrap_or(0), "event")
            ),
            _ => match rep["seqs"].as_array() {
                Some(list) => {
                    let seqs: Vec<u32> = list
                        .iter()
                        .filter_map(|v| v.as_u64())
                        .filter_map(|v| u32::try_from(v).ok())
                        .collect();
                    let mut shown: Vec<String> = seqs
                        .iter()
                        .take(10)
                        .map(|q| format!("E{}", q + 1))
                        .collect();
                    if seqs.len() > 10 {
                        shown.push(format!("… {} more", seqs.len() - 10));
                    }
                    format!(
                        "replaces: {} ({}, recorded by the provider)",
                        shown.join(", "),
                        render::count(seqs.len() as u64, "event")
                    )
                }
                None => "replaces: nothing new (earlier compactions already did)".into(),
            },
        };
        out.push(line);
    }
    for src in &r.sources {
        out.push(format!("source: {}", related_text(src)));
    }
    for d in &r.derived {
        out.push(format!("derived: {}", related_text(d)));
    }
    for n in &r.notes {
        out.push(format!("note: {n}"));
    }
    let mut stdout = out.join("\n");
    stdout.push('\n');
    Output::with_warnings(stdout, &r.warnings)
}
