//! Search latency on an existing index: `cargo run --release -p scry-store --example query --
//! <db> [runs]`. Runs each query shape of the benchmark (selective literal, common word, CJK 1-
//! and 2-character, regex with and without an extractable literal) `runs` times after one warm
//! run and prints p50 / p90, the plan and the true total.

use std::time::Instant;

use scry_store::{Area, SearchRequest, Store};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(db) = args.first() else {
        eprintln!("usage: query <db> [runs] [marker]");
        std::process::exit(2);
    };
    let runs: usize = args.get(1).and_then(|r| r.parse().ok()).unwrap_or(15);
    let marker = args
        .get(2)
        .cloned()
        .unwrap_or_else(|| "quokka-zanzibar-4471".into());
    let store = match Store::open(std::path::Path::new(db)) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    };
    let all = |mut r: SearchRequest| {
        r.area = Area::All;
        r
    };
    let shapes: Vec<(&str, SearchRequest)> = vec![
        ("selective literal", SearchRequest::literal(marker.clone())),
        (
            "selective literal, all",
            all(SearchRequest::literal(marker.clone())),
        ),
        ("common word", SearchRequest::literal("the")),
        ("common word, all", all(SearchRequest::literal("error"))),
        ("CJK 2-char", SearchRequest::literal("会话")),
        ("CJK 1-char", SearchRequest::literal("会")),
        (
            "regex with literal",
            SearchRequest::regex(format!("{}\\b", regex_syntax_escape(&marker))),
        ),
        (
            "regex without literal",
            SearchRequest::regex(r"\b[qz]\w{5}a-\w+"),
        ),
    ];
    for (name, req) in shapes {
        let mut times = Vec::new();
        let mut last = None;
        for i in 0..=runs {
            let t = Instant::now();
            let r = store.search(&req);
            let dt = t.elapsed().as_secs_f64() * 1000.0;
            if i > 0 {
                times.push(dt);
            }
            last = Some(r);
        }
        times.sort_by(f64::total_cmp);
        let p = |q: f64| times[((times.len() - 1) as f64 * q).round() as usize];
        match last {
            Some(Ok(r)) => println!(
                "{name:<24} p50 {:>9.2} ms  p90 {:>9.2} ms  total {:>7}  sessions {:>5}  {:?}",
                p(0.5),
                p(0.9),
                r.total_matches,
                r.total_sessions,
                r.plan
            ),
            Some(Err(e)) => println!("{name:<24} error {e}"),
            None => {}
        }
    }
}

fn regex_syntax_escape(s: &str) -> String {
    regex::escape(s)
}
