//! `scry trace <id>` (S-Q6): lineage over the headers of every discovered session — ancestors
//! nearest first, the forest of descendants, and either the root or the first parent id that
//! no discovered session has (never both).

use clap::Args;
use scry_facts::lineage::TraceNode;
use scry_facts::Lineages;
use scry_model::{ErrorCode, Header};

use super::loaded;
use super::Output;
use crate::app::Ctx;
use crate::catalog::Catalog;
use crate::error::{CliError, CliResult};
use crate::render::Style;

/// Arguments of `scry trace`.
#[derive(Debug, Args)]
pub struct TraceArgs {
    /// Session: full id, provider:id, a unique prefix (≥ 6 characters), or a file path
    pub id: String,
}

/// Runs `scry trace`.
pub fn run(ctx: &Ctx, args: &TraceArgs) -> CliResult<Output> {
    let catalog = Catalog::discover(&ctx.env, &[]);
    let file = catalog.resolve_ref(ctx, &args.id)?;
    let all: Vec<_> = catalog.files.iter().collect();
    let (entries, scan_warnings) = catalog.scan(&all);
    let mut headers: Vec<Header> = entries.into_iter().map(|e| e.header).collect();
    let uri = Header::new(file.provider, file.id.clone()).uri;
    if !headers.iter().any(|h| h.uri == uri) {
        // A path given directly that discovery does not list: scan it too.
        let (extra, _) = catalog.scan(&[&file]);
        headers.extend(extra.into_iter().map(|e| e.header));
    }
    let archived = scry_query::archive::headers(ctx, &catalog, &headers);
    headers.extend(archived);
    let lineages = Lineages::new(&headers);
    let trace = lineages.trace(&uri).ok_or_else(|| {
        CliError::new(
            ErrorCode::SessionNotFound,
            format!("no readable header for '{}'", args.id),
        )
    })?;
    let me = headers.iter().find(|h| h.uri == uri);
    if ctx.json {
        let mut v = serde_json::json!({
            "session": me.map(crate::render::header_json),
            "trace": loaded::to_value(&trace),
            "warnings": crate::render::warnings_json(&scan_warnings),
        });
        if let Some(m) = v.as_object_mut() {
            m.insert("sessions_scanned".into(), headers.len().into());
        }
        return Ok(super::json_out(&v).into());
    }
    let s = Style::new(ctx.color);
    let label = |u: &str| -> String {
        match headers.iter().find(|h| h.uri == u) {
            Some(h) => format!(
                "{u}  {} {}",
                h.kind.as_str(),
                crate::render::clip(h.title.as_deref().unwrap_or(""), 40)
            ),
            None => u.to_string(),
        }
    };
    let mut out = vec![s.bold(&label(&trace.uri))];
    match (&trace.root, &trace.unresolved_parent) {
        (Some(r), _) if *r == trace.uri => out.push("root      itself (no parent)".into()),
        (Some(r), _) => out.push(format!("root      {r}")),
        (None, Some(p)) => out.push(format!(
            "root      unknown: parent '{p}' is not among the discovered sessions"
        )),
        (None, None) => {}
    }
    if trace.ancestors.is_empty() {
        out.push("ancestors none".into());
    } else {
        for (i, a) in trace.ancestors.iter().enumerate() {
            out.push(format!(
                "{:<10}{}{}",
                if i == 0 { "ancestors" } else { "" },
                "↑ ".repeat(i + 1),
                label(a)
            ));
        }
    }
    if trace.descendants.is_empty() {
        out.push("descendants none".into());
    } else {
        out.push("descendants".into());
        fn walk(
            out: &mut Vec<String>,
            nodes: &[TraceNode],
            depth: usize,
            label: &dyn Fn(&str) -> String,
        ) {
            for n in nodes {
                out.push(format!("{}└ {}", "  ".repeat(depth + 1), label(&n.uri)));
                walk(out, &n.children, depth + 1, label);
            }
        }
        walk(&mut out, &trace.descendants, 0, &label);
    }
    Ok(loaded::lines(out).into())
}
