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
mod stream;
mod text;

use text::Redactor;

use std::io::Write;

use clap::{Args, ValueEnum};
use scry_model::Event;
use serde_json::{json, Value};

use crate::ctx::Ctx;
use crate::error::{CliError, CliResult};
use crate::output::Output;
use crate::session_read::{self, FnSink, Opened};
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
    /// Read earlier revision N of the session, kept by the index when its source was rewritten
    /// shorter or changed (1 = the most recent; 0 = the current session)
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub revision: u32,
}

/// Where the document goes, counting the bytes written.
struct Sink<'a> {
    out: Box<dyn Write + 'a>,
    bytes: usize,
    buf: String,
}

impl Sink<'_> {
    /// Writes what `buf` holds and empties it.
    fn flush_buf(&mut self) -> std::io::Result<()> {
        self.out.write_all(self.buf.as_bytes())?;
        self.bytes += self.buf.len();
        self.buf.clear();
        Ok(())
    }
}

/// Runs `scry export`: a first pass over the session plans the document ([`stream::Plan`]), the
/// second writes it piece by piece as events stream (to `--output` or stdout), so neither the
/// session nor the document is ever held whole.
pub fn run(ctx: &Ctx, args: &ExportArgs) -> CliResult<Output> {
    let opened = session_read::open(ctx, &args.id)?;
    let mut plan = stream::Plan::read(&opened)?;
    let r = Redactor::new(args.redact);
    let stdout = std::io::stdout();
    let out: Box<dyn Write> = match &args.output {
        Some(path) => {
            let file = std::fs::File::create(path).map_err(|e| cannot_write(path, &e))?;
            Box::new(std::io::BufWriter::with_capacity(1 << 16, file))
        }
        None => Box::new(std::io::BufWriter::with_capacity(1 << 16, stdout.lock())),
    };
    let mut sink = Sink {
        out,
        bytes: 0,
        buf: String::new(),
    };
    let written = write_doc(&opened, &mut plan, args.format, &r, &mut sink)
        .and_then(|()| sink.out.flush().map_err(DocError::Write));
    drop(sink.out);
    if let Err(e) = written {
        if let Some(path) = &args.output {
            let _ = std::fs::remove_file(path);
        }
        return Err(match (e, &args.output) {
            (DocError::Read(e), _) => e,
            (DocError::Write(e), Some(path)) => cannot_write(path, &e),
            (DocError::Write(e), None) => CliError::from(e),
        });
    }
    let note = if args.redact {
        format!("redacted {} secret(s)\n", r.count())
    } else {
        String::new()
    };
    match &args.output {
        Some(path) => {
            let v = Written {
                session: &plan.header.uri,
                format: format!("{:?}", args.format).to_lowercase(),
                output: path,
                bytes: sink.bytes,
                redacted: args.redact.then(|| r.count()),
            };
            let stdout = if ctx.json {
                crate::output::typed_out(&v)
            } else {
                format!("wrote {} ({} bytes)\n", path.display(), sink.bytes)
            };
            Ok(Output {
                stdout,
                stderr: note,
            })
        }
        None => Ok(Output {
            stdout: String::new(),
            stderr: note,
        }),
    }
}

/// Why the document could not be written: the session's second read failed, or the output.
enum DocError {
    Read(CliError),
    Write(std::io::Error),
}

impl From<CliError> for DocError {
    fn from(e: CliError) -> Self {
        DocError::Read(e)
    }
}

impl From<std::io::Error> for DocError {
    fn from(e: std::io::Error) -> Self {
        DocError::Write(e)
    }
}

impl From<scry_query::QueryError> for DocError {
    fn from(e: scry_query::QueryError) -> Self {
        DocError::Read(e.into())
    }
}

fn cannot_write(path: &std::path::Path, e: &std::io::Error) -> CliError {
    CliError::new(
        ErrorCode::PersistenceFailure,
        format!("cannot write {}: {e}", path.display()),
    )
}

/// The second pass: streams the session again and writes the document in `format`.
fn write_doc(
    opened: &Opened,
    plan: &mut stream::Plan,
    format: Format,
    r: &Redactor,
    sink: &mut Sink<'_>,
) -> Result<(), DocError> {
    if format == Format::Json {
        return json_doc(opened, plan, r, sink);
    }
    match format {
        Format::Md => markdown::head(&mut sink.buf, &plan.header, r),
        _ => html::head(&mut sink.buf, &plan.header, &plan.turns, r),
    }
    sink.flush_buf()?;
    let mut grouper = stream::Grouper::new(plan);
    let mut open = false;
    let mut failed: Option<std::io::Error> = None;
    {
        let mut emit = |p: stream::Piece| {
            if failed.is_some() {
                return;
            }
            match format {
                Format::Md => markdown::piece(&mut sink.buf, &p, r),
                _ => html::piece(&mut sink.buf, &p, r, &mut open),
            }
            if sink.buf.len() >= 1 << 16 {
                if let Err(e) = sink.flush_buf() {
                    failed = Some(e);
                }
            }
        };
        let mut events = FnSink {
            on_event: |e: Event| grouper.push(e, &mut emit),
            on_warning: |_w| {},
        };
        opened.stream(&mut events)?;
        grouper.finish(&mut emit);
    }
    if let Some(e) = failed {
        return Err(DocError::Write(e));
    }
    match format {
        Format::Md => markdown::tail(&mut sink.buf, plan, r),
        _ => html::tail(&mut sink.buf, plan, r, open),
    }
    Ok(sink.flush_buf()?)
}

/// `v` pretty-printed as serde_json does, for a value nested `depth` levels deep (its first
/// line unindented). JSON text has no raw newline inside a string, so indenting every line
/// after the first is exactly the nested form.
fn pretty_at(v: &Value, depth: usize) -> String {
    let s = serde_json::to_string_pretty(v).unwrap_or_else(|_| "null".to_string());
    s.replace('\n', &format!("\n{}", "  ".repeat(depth)))
}

/// The JSON document: header, events, warnings (every string redacted when asked), written as
/// `json_out` would print the whole object (keys in order, two-space indent), one event at a
/// time. Redacting each event, the header and each warning apart is redacting the whole: the
/// rule reads a value's own key, and none of the document's top-level keys is secret-named.
fn json_doc(
    opened: &Opened,
    plan: &mut stream::Plan,
    r: &Redactor,
    sink: &mut Sink<'_>,
) -> Result<(), DocError> {
    let header = r.json(&serde_json::to_value(&plan.header).unwrap_or(Value::Null));
    let warnings: Vec<Value> = plan
        .warnings
        .iter()
        .map(|w| r.json(&serde_json::to_value(w).unwrap_or(Value::Null)))
        .collect();
    sink.buf.push_str("{\n  \"events\": [");
    let mut n = 0usize;
    let mut failed: Option<std::io::Error> = None;
    {
        let mut events = FnSink {
            on_event: |e: Event| {
                if failed.is_some() {
                    return;
                }
                let v = r.json(&serde_json::to_value(&e).unwrap_or(Value::Null));
                sink.buf.push_str(if n == 0 { "\n    " } else { ",\n    " });
                sink.buf.push_str(&pretty_at(&v, 2));
                n += 1;
                if sink.buf.len() >= 1 << 16 {
                    if let Err(e) = sink.flush_buf() {
                        failed = Some(e);
                    }
                }
            },
            on_warning: |_w| {},
        };
        opened.stream(&mut events)?;
    }
    if let Some(e) = failed {
        return Err(DocError::Write(e));
    }
    sink.buf.push_str(if n == 0 { "],\n" } else { "\n  ],\n" });
    let rest = [
        ("format", json!("scry-export/1")),
        ("redacted", json!(r.on())),
        ("redactions", json!(r.on().then(|| r.count()))),
        ("session", header),
        ("warnings", Value::Array(warnings)),
    ];
    let last = rest.len() - 1;
    for (i, (k, v)) in rest.iter().enumerate() {
        sink.buf
            .push_str(&format!("  \"{k}\": {}", pretty_at(v, 1)));
        sink.buf.push_str(if i == last { "\n" } else { ",\n" });
    }
    sink.buf.push_str("}\n");
    Ok(sink.flush_buf()?)
}

/// `export --output FILE --json`: what was written where.
#[derive(serde::Serialize)]
struct Written<'a> {
    session: &'a str,
    format: String,
    output: &'a std::path::Path,
    bytes: usize,
    redacted: Option<usize>,
}
