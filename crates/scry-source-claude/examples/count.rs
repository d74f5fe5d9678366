//! Streams a Claude Code session file through `parse_into` with a sink that only counts, and
//! prints events, warnings, bytes and events per second. Memory stays flat whatever the size.
//!
//! `cargo run --release -p scry-source-claude --example count -- <file.jsonl> [--header]`
//! (`--header` times the cheap header scan instead).

use std::time::Instant;

use scry_model::{Event, Warning};
use scry_source::{Emitter, EventSink, Source};
use scry_source_claude::ClaudeSource;

#[derive(Default)]
struct Count {
    events: u64,
    warnings: u64,
    with_usage: u64,
    output_tokens: u64,
}

impl EventSink for Count {
    fn event(&mut self, e: Event) {
        self.events += 1;
        if let Some(u) = e.usage {
            self.with_usage += 1;
            self.output_tokens += u.output;
        }
    }
    fn warning(&mut self, _: Warning) {
        self.warnings += 1;
    }
}

fn main() {
    let Some(path) = std::env::args().nth(1).map(std::path::PathBuf::from) else {
        eprintln!("usage: count <file.jsonl>");
        std::process::exit(2);
    };
    let Some(file) = ClaudeSource.detect(&path) else {
        eprintln!("{}: not a Claude Code session", path.display());
        std::process::exit(1);
    };
    if std::env::args().nth(2).as_deref() == Some("--header") {
        let start = Instant::now();
        match ClaudeSource.scan_header(&file) {
            Ok(h) => println!(
                "header scan: {:?} / {:?} in {:.3} s",
                h.title,
                h.cwd,
                start.elapsed().as_secs_f64()
            ),
            Err(e) => {
                eprintln!("{e}");
                std::process::exit(1);
            }
        }
        return;
    }
    let mut sink = Count::default();
    let start = Instant::now();
    let result = {
        let mut out = Emitter::new(&mut sink);
        ClaudeSource.parse_into(&file, &mut out)
    };
    let secs = start.elapsed().as_secs_f64();
    if let Err(e) = result {
        eprintln!("{e}");
        std::process::exit(1);
    }
    let mb = file.size as f64 / (1024.0 * 1024.0);
    println!(
        "{} events ({} with usage, {} output tokens), {} warnings, {:.1} MB in {:.3} s: {:.0} events/s, {:.1} MB/s",
        sink.events,
        sink.with_usage,
        sink.output_tokens,
        sink.warnings,
        mb,
        secs,
        sink.events as f64 / secs.max(1e-9),
        mb / secs.max(1e-9)
    );
}
