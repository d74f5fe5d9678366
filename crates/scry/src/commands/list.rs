//! `scry list` (S-C1): recent sessions in a scope, newest first, children folded under their
//! parent unless `--kind` asks otherwise.

use std::collections::BTreeMap;

use clap::Args;
use scry_model::{Header, SessionKind, Timestamp};
use serde_json::{json, Value};

use super::Output;
use crate::app::Ctx;
use crate::catalog::{Catalog, Entry};
use crate::error::CliResult;
use crate::filter::{self, KindFilter, Scope};
use crate::render::{self, Style};

/// Arguments of `scry list`.
#[derive(Debug, Args)]
pub struct ListArgs {
    /// Show at most this many sessions
    #[arg(long, default_value_t = 20)]
    pub limit: usize,
    /// Directory subtree to list (a path, `cwd`, or `global`); default: the current directory
    #[arg(long, value_name = "PATH|cwd|global")]
    pub scope: Option<String>,
    /// List sessions from every directory (same as `--scope global`)
    #[arg(long)]
    pub global: bool,
    /// Only these providers (comma-separated: claude,codex,…)
    #[arg(long, value_name = "P,…")]
    pub provider: Option<String>,
    /// Only sessions updated since then: 30m, 24h, 7d, 2w, or an ISO date / time
    #[arg(long, value_name = "WHEN")]
    pub since: Option<String>,
    /// Session kinds to list; default: main sessions with children folded under their parent
    #[arg(long, value_enum)]
    pub kind: Option<KindFilter>,
}

/// One row: a session and the children folded under it.
struct Row {
    entry: Entry,
    children: BTreeMap<&'static str, usize>,
}

/// Runs `scry list`.
pub fn run(ctx: &Ctx, args: &ListArgs) -> CliResult<Output> {
    let scope = Scope::parse(
        args.scope.as_deref(),
        args.global,
        &ctx.cwd,
        ctx.demo,
        !ctx.demo,
    )?;
    let providers = filter::providers(args.provider.as_deref())?;
    let since = match &args.since {
        Some(s) => Some(filter::since(s, Timestamp::now())?),
        None => None,
    };
    let catalog = Catalog::discover(&ctx.env, &providers);
    let candidates: Vec<_> = catalog
        .files
        .iter()
        .filter(|f| f.cwd_hint.is_none() || scope.contains(f.cwd_hint.as_deref()))
        .collect();
    let (entries, scan_warnings) = crate::indexed::scan(ctx, &catalog, &candidates);
    let mut warnings = catalog.warnings.clone();
    warnings.extend(scan_warnings);

    let mut entries: Vec<Entry> = entries
        .into_iter()
        .filter(|e| scope.contains(e.header.cwd.as_deref()))
        .filter(|e| since.is_none_or(|s| e.header.updated.is_some_and(|u| u >= s)))
        .collect();
    entries.sort_by(|a, b| {
        b.header
            .updated
            .cmp(&a.header.updated)
            .then_with(|| a.header.uri.cmp(&b.header.uri))
    });
    let ids: Vec<String> = entries.iter().map(|e| e.header.id.clone()).collect();
    let (rows, hidden) = fold(entries, args.kind);
    let total = rows.len();
    let rows: Vec<Row> = rows.into_iter().take(args.limit).collect();
    if ctx.json {
        let sessions: Vec<Value> = rows.iter().map(row_json).collect();
        return Ok(super::json_out(&json!({
            "sessions": sessions,
            "total": total,
            "hidden": hidden,
            "warnings": render::warnings_json(&warnings),
        }))
        .into());
    }
    Ok(text(
        &rows,
        &ids,
        total,
        hidden,
        &warnings,
        Style::new(ctx.color),
    ))
}

/// Applies the kind filter; by default folds non-main sessions under a listed parent and hides
/// exec runs without one. Returns the rows and how many sessions were hidden.
fn fold(entries: Vec<Entry>, kind: Option<KindFilter>) -> (Vec<Row>, usize) {
    if let Some(k) = kind {
        let rows = entries
            .into_iter()
            .filter(|e| k.accepts(&e.header))
            .map(|entry| Row {
                entry,
                children: BTreeMap::new(),
            })
            .collect();
        return (rows, 0);
    }
    // Roots are main sessions and exec runs (exec runs are hidden unless `--kind` asks);
    // other kinds fold under a root of the same provider, or stand alone when it is not listed.
    let is_root = |h: &Header| matches!(h.kind, SessionKind::Main | SessionKind::Exec);
    let (roots, children): (Vec<Entry>, Vec<Entry>) =
        entries.into_iter().partition(|e| is_root(&e.header));
    let mut roots: Vec<Row> = roots
        .into_iter()
        .map(|entry| Row {
            entry,
            children: BTreeMap::new(),
        })
        .collect();
    let mut orphans = Vec::new();
    for child in children {
        let h = &child.header;
        let parent = roots.iter_mut().find(|r| {
            r.entry.header.provider == h.provider && h.parent.as_deref() == Some(&r.entry.header.id)
        });
        match parent {
            Some(p) => *p.children.entry(h.kind.as_str()).or_default() += 1,
            None => orphans.push(child),
        }
    }
    let mut hidden = 0;
    let mut rows: Vec<Row> = Vec::new();
    for row in roots {
        if row.entry.header.kind == SessionKind::Exec {
            hidden += 1 + row.children.values().sum::<usize>();
        } else {
            rows.push(row);
        }
    }
    for entry in orphans {
        rows.push(Row {
            entry,
            children: BTreeMap::new(),
        });
    }
    rows.sort_by(|a, b| {
        b.entry
            .header
            .updated
            .cmp(&a.entry.header.updated)
            .then_with(|| a.entry.header.uri.cmp(&b.entry.header.uri))
    });
    (rows, hidden)
}

fn children_label(children: &BTreeMap<&'static str, usize>) -> String {
    children
        .iter()
        .map(|(k, n)| format!("+{n} {k}{}", if *n == 1 { "" } else { "s" }))
        .collect::<Vec<_>>()
        .join(" ")
}

fn row_json(row: &Row) -> Value {
    let mut v = render::header_json(&row.entry.header);
    if let Value::Object(map) = &mut v {
        map.insert("children".into(), json!(row.children));
        map.insert("size".into(), json!(row.entry.file.size));
    }
    v
}

/// The shortest prefix of `id` (at least 8 characters, at most 24) that no other id shares.
fn short_id(id: &str, all: &[String]) -> String {
    let n = id.chars().count();
    // A word prefix such as `session-` or `ses_` does not count towards the 8 characters.
    let word = id
        .char_indices()
        .find(|(_, c)| !c.is_ascii_alphabetic())
        .filter(|(i, c)| *i > 0 && matches!(c, '-' | '_'))
        .map_or(0, |(i, _)| i + 1);
    let mut len = (word + 8).min(n);
    while len < n.min(word + 16) {
        let prefix: String = id.chars().take(len).collect();
        if !all.iter().any(|o| o != id && o.starts_with(&prefix)) {
            break;
        }
        len += 1;
    }
    id.chars().take(len).collect()
}

fn text(
    rows: &[Row],
    ids: &[String],
    total: usize,
    hidden: usize,
    warnings: &[scry_model::Warning],
    s: Style,
) -> Output {
    let mut out = String::new();
    let mut notes = String::new();
    if rows.is_empty() {
        notes.push_str("no sessions found in this scope (try --global)\n");
    }
    let pw = rows
        .iter()
        .map(|r| r.entry.header.provider.as_str().len())
        .max()
        .unwrap_or(6)
        .max(6);
    let shorts: Vec<String> = rows
        .iter()
        .map(|r| short_id(&r.entry.header.id, ids))
        .collect();
    let iw = shorts
        .iter()
        .map(|s| s.chars().count())
        .max()
        .unwrap_or(8)
        .max(8);
    // time 16 + provider + id + four gaps of 2 = the fixed part; title and cwd share the rest.
    let free = render::WIDTH.saturating_sub(16 + pw + iw + 8);
    let cwd_w = free * 2 / 5;
    let title_w = free - cwd_w;
    for (row, id) in rows.iter().zip(&shorts) {
        let h = &row.entry.header;
        let mut title = h.title.clone().unwrap_or_else(|| "(untitled)".into());
        if h.kind != SessionKind::Main {
            title = format!("[{}] {title}", h.kind.as_str());
        }
        let label = children_label(&row.children);
        let title = if label.is_empty() {
            render::cell(&title, title_w)
        } else {
            let room = title_w.saturating_sub(label.chars().count() + 1);
            let t = render::clip(&title, room);
            let pad = title_w.saturating_sub(t.chars().count() + 1 + label.chars().count());
            format!("{t}{} {}", " ".repeat(pad), s.dim(&label))
        };
        let cwd = render::clip_left(h.cwd.as_deref().unwrap_or("-"), cwd_w);
        let line = format!(
            "{}  {}  {}  {}  {}",
            render::cell(&render::time(h.updated), 16),
            s.cyan(&render::cell(h.provider.as_str(), pw)),
            render::cell(id, iw),
            title,
            cwd
        );
        out.push_str(line.trim_end());
        out.push('\n');
    }
    if total > rows.len() {
        notes.push_str(&format!("… {} more (raise --limit)\n", total - rows.len()));
    }
    if hidden > 0 {
        notes.push_str(&format!(
            "{hidden} one-shot (exec) sessions and their children hidden (--kind all or --kind exec)\n"
        ));
    }
    for line in render::warnings_text(warnings, 3) {
        notes.push_str(&line);
        notes.push('\n');
    }
    Output {
        stdout: out,
        stderr: notes,
    }
}
