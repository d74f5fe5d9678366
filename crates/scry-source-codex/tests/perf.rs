//! Throughput and memory on a large generated rollout (ignored by default; run with
//! `cargo test --release -p scry-source-codex --test perf -- --ignored --nocapture`).

use std::io::Write;
use std::time::Instant;

use scry_model::{Event, Warning};
use scry_source::{Emitter, EventSink, Source};
use scry_source_codex::CodexSource;

struct Count(u64, u64);

impl EventSink for Count {
    fn event(&mut self, e: Event) {
        self.0 += 1;
        self.1 += e.usage.map(|u| u.output).unwrap_or(0);
    }
    fn warning(&mut self, _: Warning) {}
}

fn peak_rss_kb() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1).and_then(|n| n.parse().ok()))
        })
        .unwrap_or(0)
}

#[test]
#[ignore]
fn large_rollout_streams() {
    let real = scry_testkit::corpus().join("real/home/.codex/sessions/2026/11/30/rollout-2026-11-30T14-52-34-01a22cf1-805d-7161-bbbc-a2414caa5633.jsonl");
    let text = std::fs::read_to_string(real).unwrap();
    let mut lines = text.lines();
    let first = lines.next().unwrap();
    let body: Vec<&str> = lines.collect();
    let dir = tempfile::tempdir().unwrap();
    let path = dir
        .path()
        .join("rollout-2026-11-30T14-52-34-01a22cf1-805d-7161-bbbc-a2414caa5633.jsonl");
    let mut f = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    writeln!(f, "{first}").unwrap();
    let mut size = 0;
    while size < 200 * 1024 * 1024 {
        for l in &body {
            writeln!(f, "{l}").unwrap();
            size += l.len() + 1;
        }
    }
    drop(f);
    let before = peak_rss_kb();
    let src = CodexSource;
    let file = src.detect(&path).unwrap();
    let t = Instant::now();
    let mut sink = Count(0, 0);
    let mut out = Emitter::new(&mut sink);
    src.parse_into(&file, &mut out).unwrap();
    let el = t.elapsed();
    let t2 = Instant::now();
    let h = src.scan_header(&file).unwrap();
    println!(
        "{} MB, {} events, {:.2?} ({:.0} MB/s), peak RSS {} MB (before {} MB); scan_header {:.2?} ({})",
        size / 1024 / 1024,
        sink.0,
        el,
        size as f64 / 1024.0 / 1024.0 / el.as_secs_f64(),
        peak_rss_kb() / 1024,
        before / 1024,
        t2.elapsed(),
        h.id
    );
}
