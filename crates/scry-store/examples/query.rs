//! Search latency on an existing index: `cargo run --release -p scry-store --example query --
//! <db> [runs]`. Runs each query shape of the benchmark (selective literal, common word, CJK 1-
//! and 2-character, regex with and without an extractable literal) `runs` times after one warm
//! run and prints p50 / p90, the plan and the true total.

use std::time::Instant;

use scry_store::{Area, SearchRequest, Store};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("index") {
        return index(&args[1..]);
    }
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

/// `query index <home> <db>`: a cold `index --all` of every provider's sessions under `home`
/// (as the CLI does), timed, with the index size against the source bytes.
fn index(args: &[String]) {
    let (Some(home), Some(db)) = (args.first(), args.get(1)) else {
        eprintln!("usage: query index <home> <db>");
        std::process::exit(2);
    };
    let sources = scry_sources::registry();
    let env = scry_source::Env::with_home(std::path::Path::new(home));
    let t = Instant::now();
    let files: Vec<_> = scry_sources::discover_all(&sources, &env, &[])
        .into_iter()
        .flat_map(|d| d.discovery.files)
        .collect();
    let bytes: u64 = files.iter().map(|f| f.size).sum();
    let mut store = Store::open(std::path::Path::new(db)).expect("open index");
    let report = store
        .refresh(
            &sources,
            &files,
            &scry_store::RefreshOptions::complete(),
            &mut |_| true,
        )
        .expect("refresh");
    let secs = t.elapsed().as_secs_f64();
    let size = store.size_bytes().unwrap_or(0);
    println!(
        "indexed {} files ({} parsed, {} failed), {:.1} MB in {secs:.1} s; index {:.1} MB = {:.3}x",
        files.len(),
        report.parsed,
        report.failed.len(),
        bytes as f64 / 1e6,
        size as f64 / 1e6,
        size as f64 / bytes.max(1) as f64
    );
}
