//! Prints one line per event of a Claude Code session file (kind, subtype, tool, usage, text
//! head), then the header and warnings: a quick look at what the provider makes of a file.
//!
//! `cargo run -p scry-source-claude --example dump -- <file.jsonl>`

use std::io::Write;

use scry_source::Source;
use scry_source_claude::ClaudeSource;

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: dump <file.jsonl>");
        std::process::exit(2);
    };
    let path = std::path::PathBuf::from(path);
    let Some(file) = ClaudeSource.detect(&path) else {
        eprintln!("{}: not a Claude Code session", path.display());
        std::process::exit(1);
    };
    let session = match ClaudeSource.parse(&file) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    };
    let stdout = std::io::stdout();
    let mut w = stdout.lock();
    for e in &session.events {
        let head: String = e
            .text
            .chars()
            .take(70)
            .collect::<String>()
            .replace('\n', "⏎");
        let usage = e
            .usage
            .map(|u| {
                format!(
                    " usage=[{} {} {} {}]",
                    u.input, u.output, u.cache_read, u.cache_write
                )
            })
            .unwrap_or_default();
        let line = writeln!(
            w,
            "{:>3} T{} L{:<4} {:<11} {:<18} {:<8} {}{} {}",
            e.seq,
            e.turn,
            e.raw.line,
            e.kind.as_str(),
            e.subtype.as_deref().unwrap_or(""),
            e.tool.as_deref().unwrap_or(""),
            head,
            usage,
            e.data
                .as_ref()
                .map(|d| {
                    let keys: Vec<&str> = d
                        .as_object()
                        .map(|o| o.keys().map(String::as_str).collect())
                        .unwrap_or_default();
                    format!("data={keys:?}")
                })
                .unwrap_or_default()
        );
        if line.is_err() {
            return; // stdout closed (e.g. piped into head)
        }
    }
    let mut h = session.header.clone();
    h.sources.clear();
    let _ = writeln!(
        w,
        "{}",
        serde_json::to_string_pretty(&h).unwrap_or_default()
    );
    let _ = writeln!(w, "total usage: {:?}", session.total_usage());
    for warning in &session.warnings {
        let _ = writeln!(w, "warning: {warning}");
    }
}
