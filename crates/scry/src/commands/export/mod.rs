//! `scry export <id> --format md|html|json [--redact] [--output FILE]` (S-A4): one session as a
//! self-contained, readable document. HTML has inline CSS only and a Content-Security-Policy
//! that forbids every request; tool calls and thinking are collapsible `<details>`; code
//! blocks are kept; all session text is escaped. Markdown keeps the dialogue as written and
//! fences tool input/output. JSON is the header, every event and every warning.
//!
//! `--redact` replaces secrets (S-R3, `scry-redact`) with `[redacted:<kind>]` in every string
//! that reaches the document — header, dialogue, tool arguments and tool output — and says how
//! many it replaced.

mod html;
mod markdown;

use std::collections::HashMap;

use clap::{Args, ValueEnum};
use scry_model::{Event, EventKind, Session};
use serde_json::{json, Value};

use super::loaded;
use super::Output;
use crate::app::Ctx;
use crate::error::{CliError, CliResult};
use scry_model::ErrorCode;

/// Document formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Markdown.
    Md,
    /// One self-contained HTML page.
    Html,
    /// The header, every event and every warning.
    Json,
}

/// Arguments of `scry export`.
#[derive(Debug, Args)]
pub struct ExportArgs {
    /// Session: full id, provider:id, a unique prefix (≥ 6 characters), or a file path
    pub id: String,
    /// Document format
    #[arg(long, value_enum, default_value = "md")]
    pub format: Format,
    /// Replace secrets with [redacted:<kind>] everywhere, tool output included
    #[arg(long)]
    pub redact: bool,
    /// Write the document to this file instead of stdout
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<std::path::PathBuf>,
}

/// One tool call with its result(s), as the document shows it.
pub struct Call<'a> {
    /// The call event.
    pub call: &'a Event,
    /// Results paired by call id.
    pub results: Vec<&'a Event>,
}

/// What a turn shows, in order.
pub enum Item<'a> {
    /// A user / assistant / system / compaction / meta / thinking event.
    Text(&'a Event),
    /// A tool call and its results.
    Call(Call<'a>),
    /// A result whose call is not in the session.
    Orphan(&'a Event),
}

/// One turn.
pub struct Turn<'a> {
    /// Turn number (0 = preamble).
    pub number: u32,
    /// Its items.
    pub items: Vec<Item<'a>>,
}

/// Groups `s`'s events by turn, pairing results with their calls.
pub fn turns(s: &Session) -> Vec<Turn<'_>> {
    let mut by_call: HashMap<&str, Vec<&Event>> = HashMap::new();
    let call_ids: std::collections::HashSet<&str> = s
        .events
        .iter()
        .filter(|e| e.kind == EventKind::ToolCall)
        .filter_map(|e| e.call_id.as_deref())
        .collect();
    for e in &s.events {
        if e.kind == EventKind::ToolResult {
            if let Some(id) = e.call_id.as_deref().filter(|id| call_ids.contains(id)) {
                by_call.entry(id).or_default().push(e);
            }
        }
    }
    let mut out: Vec<Turn> = Vec::new();
    for e in &s.events {
        if out.last().is_none_or(|t| t.number != e.turn) {
            out.push(Turn {
                number: e.turn,
                items: Vec::new(),
            });
        }
        let Some(t) = out.last_mut() else { continue };
        match e.kind {
            EventKind::ToolCall => {
                let results = e
                    .call_id
                    .as_deref()
                    .and_then(|id| by_call.remove(id))
                    .unwrap_or_default();
                t.items.push(Item::Call(Call { call: e, results }));
            }
            EventKind::ToolResult => {
                let paired = e.call_id.as_deref().is_some_and(|id| call_ids.contains(id));
                if !paired {
                    t.items.push(Item::Orphan(e));
                }
            }
            _ => t.items.push(Item::Text(e)),
        }
    }
    out
}

/// Replaces secrets in the strings that reach the document (a no-op when off); counts them.
pub struct Redactor {
    on: bool,
    count: std::cell::Cell<usize>,
}

impl Redactor {
    /// A redactor that is on or off.
    pub fn new(on: bool) -> Self {
        Redactor {
            on,
            count: std::cell::Cell::new(0),
        }
    }

    /// `text`, redacted when on.
    pub fn s(&self, text: &str) -> String {
        if !self.on {
            return text.to_string();
        }
        let (out, findings) = scry_redact::redact(text);
        self.count.set(self.count.get() + findings.len());
        out.into_owned()
    }

    /// `v`, redacted when on: every string at every depth, secret-named fields whole, by the
    /// same rule as `scry serve` (identifier-shaped uris, ids and paths stay usable).
    pub fn json(&self, v: &Value) -> Value {
        let mut v = v.clone();
        if self.on {
            let n = crate::http::redact(&mut v);
            self.count.set(self.count.get() + n);
        }
        v
    }

    /// How many secrets were replaced so far.
    pub fn count(&self) -> usize {
        self.count.get()
    }

    /// Whether redaction is on.
    pub fn on(&self) -> bool {
        self.on
    }
}

/// A short one-line description of a tool call: the command, the path, or the first argument.
pub fn call_summary(e: &Event) -> String {
    let args = e.args.as_ref();
    let pick = [
        "command",
        "cmd",
        "file_path",
        "path",
        "pattern",
        "query",
        "url",
        "description",
    ]
    .iter()
    .find_map(|k| args.and_then(|a| a.get(k)));
    let text = match pick {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(a)) => a
            .iter()
            .map(|x| {
                x.as_str()
                    .map(str::to_string)
                    .unwrap_or_else(|| x.to_string())
            })
            .collect::<Vec<_>>()
            .join(" "),
        Some(other) => other.to_string(),
        None => String::new(),
    };
    let line = text.lines().next().unwrap_or("").trim();
    let mut short: String = line.chars().take(100).collect();
    if line.chars().count() > 100 || text.lines().nth(1).is_some() {
        short.push('…');
    }
    short
}

/// Runs `scry export`.
pub fn run(ctx: &Ctx, args: &ExportArgs) -> CliResult<Output> {
    let l = loaded::load(ctx, &args.id)?;
    let r = Redactor::new(args.redact);
    let doc = match args.format {
        Format::Json => json_doc(&l.session, &r),
        Format::Md => markdown::render(&l.session, &r),
        Format::Html => html::render(&l.session, &r),
    };
    let note = if args.redact {
        format!("redacted {} secret(s)\n", r.count())
    } else {
        String::new()
    };
    match &args.output {
        Some(path) => {
            std::fs::write(path, doc.as_bytes()).map_err(|e| {
                CliError::new(
                    ErrorCode::PersistenceFailure,
                    format!("cannot write {}: {e}", path.display()),
                )
            })?;
            let v = json!({
                "session": l.session.header.uri,
                "format": format!("{:?}", args.format).to_lowercase(),
                "output": path,
                "bytes": doc.len(),
                "redacted": args.redact.then(|| r.count()),
            });
            let stdout = if ctx.json {
                super::json_out(&v)
            } else {
                format!("wrote {} ({} bytes)\n", path.display(), doc.len())
            };
            Ok(Output {
                stdout,
                stderr: note,
            })
        }
        None => Ok(Output {
            stdout: doc,
            stderr: note,
        }),
    }
}

/// The JSON document: header, events, warnings (every string redacted when asked).
fn json_doc(s: &Session, r: &Redactor) -> String {
    let v = json!({
        "format": "scry-export/1",
        "redacted": r.on(),
        "session": serde_json::to_value(&s.header).unwrap_or(Value::Null),
        "events": s.events.iter().map(|e| serde_json::to_value(e).unwrap_or(Value::Null)).collect::<Vec<_>>(),
        "warnings": s.warnings.iter().map(|w| serde_json::to_value(w).unwrap_or(Value::Null)).collect::<Vec<_>>(),
    });
    let mut v = r.json(&v);
    if let Some(m) = v.as_object_mut() {
        m.insert("redactions".into(), json!(r.on().then(|| r.count())));
    }
    super::json_out(&v)
}
