//! Index benchmark on a generated corpus: `cargo run --release -p scry-store --example bench --
//! [sessions] [dir]`. Prints each figure next to a baseline measured in the same run: cold index
//! time against a plain parse of the same files, index bytes against source bytes, list and
//! search latencies (p50 / p90 over repeated runs) against a direct (no-index) search.
//!
//! The sessions use a small line format (one JSON object per line, like the agents' JSONL) read
//! by a provider defined here, so the figures measure the store, not one agent's parser.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use scry_model::{Event, EventKind, Header, Locator, ProviderId, Session};
use scry_source::{Discovery, Emitter, Env, ResumePoint, Root, Source, SourceError, SourceFile};
use scry_store::{search_direct, Area, RefreshOptions, SearchRequest, SessionFilter, Store};
use serde_json::{json, Value};

struct Bench(PathBuf);

impl Bench {
    fn run(
        &self,
        file: &SourceFile,
        start: u64,
        out: &mut Emitter<'_>,
    ) -> Result<Header, SourceError> {
        let mut f = std::fs::File::open(&file.path).map_err(|e| SourceError::io(&file.path, e))?;
        std::io::Seek::seek(&mut f, std::io::SeekFrom::Start(start))
            .map_err(|e| SourceError::io(&file.path, e))?;
        let mut r = BufReader::new(f);
        let mut buf = Vec::new();
        let mut offset = start;
        let mut h = Header::new(ProviderId::Mtagent, file.id.clone());
        h.sources = vec![file.path.clone()];
        loop {
            buf.clear();
            let n = r
                .read_until(b'\n', &mut buf)
                .map_err(|e| SourceError::io(&file.path, e))?;
            if n == 0 || buf.last() != Some(&b'\n') {
                break;
            }
            let raw = &buf[..n - 1];
            if let Ok(v) = serde_json::from_slice::<Value>(raw) {
                if let Some(cwd) = v["cwd"].as_str() {
                    h.cwd = Some(cwd.to_string());
                }
                let kind = v["k"]
                    .as_str()
                    .and_then(EventKind::parse)
                    .unwrap_or(EventKind::Meta);
                let mut e = Event::new(
                    kind,
                    v["t"].as_str().unwrap_or(""),
                    Locator::record(offset, raw, None),
                );
                e.tool = v["tool"].as_str().map(str::to_string);
                e.call_id = v["call"].as_str().map(str::to_string);
                e.args = v.get("args").cloned();
                out.emit(
                    e.at(v["ts"]
                        .as_i64()
                        .and_then(|s| jiff::Timestamp::from_second(s).ok())),
                );
            }
            offset += n as u64;
            let cwd = h.cwd.clone();
            out.checkpoint(offset, || json!({ "cwd": cwd }));
        }
        Ok(h)
    }
}

impl Source for Bench {
    fn id(&self) -> ProviderId {
        ProviderId::Mtagent
    }
    fn roots(&self, _: &Env) -> Vec<Root> {
        vec![Root::new(self.0.clone(), None)]
    }
    fn discover(&self, _: &Env) -> Discovery {
        let mut files: Vec<SourceFile> = std::fs::read_dir(&self.0)
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
            .map(|p| {
                let id = p
                    .file_stem()
                    .unwrap_or_default()
                    .to_string_lossy()
                    .into_owned();
                SourceFile::new(ProviderId::Mtagent, id, p)
            })
            .collect();
        files.sort_by(|a, b| a.path.cmp(&b.path));
        Discovery {
            roots: vec![],
            files,
            warnings: vec![],
        }
    }
    fn parse_into(&self, file: &SourceFile, out: &mut Emitter<'_>) -> Result<Header, SourceError> {
        self.run(file, 0, out)
    }
    fn resume_support(&self) -> bool {
        true
    }
    fn parse_into_from(
        &self,
        file: &SourceFile,
        from: &ResumePoint,
        out: &mut Emitter<'_>,
    ) -> Result<Header, SourceError> {
        let mut h = self.run(file, from.offset, out)?;
        if let Some(c) = from.state["cwd"].as_str() {
            h.cwd.get_or_insert_with(|| c.to_string());
        }
        Ok(h)
    }
}

const WORDS: &[&str] = &[
    "the",
    "build",
    "fails",
    "because",
    "cargo",
    "test",
    "error",
    "function",
    "module",
    "index",
    "search",
    "refactor",
    "session",
    "parser",
    "config",
    "deploy",
    "release",
    "timeout",
    "retry",
    "cache",
    "render",
    "query",
    "schema",
    "migration",
    "handler",
    "request",
    "response",
    "token",
    "stream",
    "buffer",
];
const CJK: &[&str] = &["跨会话检索", "索引重建", "会话列表", "超时重试", "发布版本"];

fn rng(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

fn sentence(st: &mut u64, n: usize) -> String {
    let mut s = String::new();
    for i in 0..n {
        if i > 0 {
            s.push(' ');
        }
        let r = rng(st);
        if r.is_multiple_of(41) {
            s.push_str(CJK[(r / 41) as usize % CJK.len()]);
        } else if r.is_multiple_of(17) {
            s.push_str(&format!(
                "src/{}/{}.rs",
                WORDS[(r >> 8) as usize % WORDS.len()],
                WORDS[(r >> 16) as usize % WORDS.len()]
            ));
        } else {
            s.push_str(WORDS[(r >> 3) as usize % WORDS.len()]);
        }
    }
    s
}

fn generate(dir: &Path, n: usize) -> u64 {
    std::fs::create_dir_all(dir).unwrap();
    let mut st = 0x9E37_79B9_7F4A_7C15u64;
    let mut total = 0;
    for i in 0..n {
        let mut out = String::new();
        let t0 = 1_780_000_000 + (i as i64) * 600;
        out += &format!(
            "{}\n",
            json!({"k": "meta", "cwd": format!("/home/u/proj{}", i % 50), "ts": t0})
        );
        let turns = 3 + (rng(&mut st) % 5) as usize;
        let mut t = t0;
        for turn in 0..turns {
            t += 30;
            out += &format!(
                "{}\n",
                json!({"k": "user", "t": format!("{} ticket-{i}-{turn}", sentence(&mut st, 20)), "ts": t})
            );
            for c in 0..2 {
                let id = format!("call-{i}-{turn}-{c}");
                out += &format!(
                    "{}\n",
                    json!({"k": "tool_call", "tool": "Bash", "call": id, "args": {"command": format!("cargo test -p {} -- {}", WORDS[c % WORDS.len()], sentence(&mut st, 3))}, "ts": t + 1})
                );
                out += &format!(
                    "{}\n",
                    json!({"k": "tool_result", "tool": "Bash", "call": id, "t": sentence(&mut st, 120), "ts": t + 2})
                );
            }
            out += &format!(
                "{}\n",
                json!({"k": "thinking", "t": sentence(&mut st, 30), "ts": t + 3})
            );
            out += &format!(
                "{}\n",
                json!({"k": "assistant", "t": sentence(&mut st, 60), "ts": t + 4})
            );
        }
        total += out.len() as u64;
        std::fs::File::create(dir.join(format!("s{i:06}.jsonl")))
            .unwrap()
            .write_all(out.as_bytes())
            .unwrap();
    }
    total
}

fn pct(mut v: Vec<Duration>) -> (Duration, Duration) {
    v.sort();
    (v[v.len() / 2], v[v.len() * 9 / 10])
}

fn time<T>(runs: usize, mut f: impl FnMut() -> T) -> (Duration, Duration, T) {
    let mut v = Vec::new();
    let mut last = None;
    for _ in 0..runs {
        let t = Instant::now();
        last = Some(f());
        v.push(t.elapsed());
    }
    let (a, b) = pct(v);
    (a, b, last.unwrap())
}

fn main() {
    let mut args = std::env::args().skip(1);
    let n: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(20_000);
    let base = args
        .next()
        .map(PathBuf::from)
        .unwrap_or_else(|| std::env::temp_dir().join("scry-store-bench"));
    let _ = std::fs::remove_dir_all(&base);
    let src = base.join("src");
    let t = Instant::now();
    let bytes = generate(&src, n);
    println!(
        "generated {n} sessions, {:.1} MB in {:?}",
        bytes as f64 / 1e6,
        t.elapsed()
    );
    let bench = Bench(src.clone());
    let files = bench.discover(&Env::default()).files;
    let sources: Vec<Box<dyn Source>> = vec![Box::new(Bench(src.clone()))];

    // Baseline 1: a plain parse of every file (what --no-index pays per command).
    let t = Instant::now();
    let parsed: Vec<Session> = files.iter().map(|f| bench.parse(f).unwrap()).collect();
    let parse = t.elapsed();
    let events: usize = parsed.iter().map(|s| s.events.len()).sum();
    println!("baseline parse: {parse:?} ({events} events)");

    let db = base.join("index.db");
    let mut store = Store::open(&db).unwrap();
    let t = Instant::now();
    let r = store
        .refresh(&sources, &files, &RefreshOptions::complete(), &mut |_| true)
        .unwrap();
    let cold = t.elapsed();
    assert_eq!(r.parsed, n);
    rusqlite::Connection::open(store.path())
        .unwrap()
        .execute_batch("PRAGMA wal_checkpoint(TRUNCATE)")
        .unwrap();
    let size = std::fs::metadata(&db).unwrap().len();
    println!(
        "cold index: {cold:?} = {:.2}× the plain parse",
        cold.as_secs_f64() / parse.as_secs_f64()
    );
    println!(
        "index size: {:.1} MB = {:.2}× the source bytes",
        size as f64 / 1e6,
        size as f64 / bytes as f64
    );
    if let Ok(mut st) = rusqlite::Connection::open(store.path())
        .unwrap()
        .prepare("SELECT name, sum(pgsize) FROM dbstat GROUP BY name ORDER BY 2 DESC LIMIT 8")
    {
        let rows: Vec<(String, i64)> = st
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .flatten()
            .collect();
        for (name, sz) in rows {
            println!(
                "  {name}: {:.1} MB ({:.2}× source)",
                sz as f64 / 1e6,
                sz as f64 / bytes as f64
            );
        }
    }

    let t = Instant::now();
    let r = store
        .refresh(&sources, &files, &RefreshOptions::complete(), &mut |_| true)
        .unwrap();
    let warm = t.elapsed();
    assert_eq!(r.unchanged, n);
    println!(
        "no-change refresh: {warm:?} = {:.4}× the plain parse",
        warm.as_secs_f64() / parse.as_secs_f64()
    );

    // Append one line to one session.
    let f0 = &files[n / 2];
    std::fs::OpenOptions::new()
        .append(true)
        .open(&f0.path)
        .unwrap()
        .write_all(
            format!(
                "{}\n",
                json!({"k": "user", "t": "appended heartbeat", "ts": 1_790_000_000})
            )
            .as_bytes(),
        )
        .unwrap();
    let files2 = bench.discover(&Env::default()).files;
    let t = Instant::now();
    let r = store
        .refresh(&sources, &files2, &RefreshOptions::complete(), &mut |_| {
            true
        })
        .unwrap();
    println!(
        "append to one session + refresh of all: {:?} (resumed {}, parsed {})",
        t.elapsed(),
        r.resumed,
        r.parsed
    );

    let (p50, p90, h) = time(50, || {
        store.headers(&SessionFilter::default(), 20, 0).unwrap()
    });
    println!("list 20 newest: p50 {p50:?} p90 {p90:?} ({} rows)", h.len());
    let scoped = SessionFilter {
        cwd_under: Some("/home/u/proj7".into()),
        ..Default::default()
    };
    let (p50, p90, h) = time(50, || store.headers(&scoped, 20, 0).unwrap());
    println!(
        "list 20 in a scope: p50 {p50:?} p90 {p90:?} ({} rows)",
        h.len()
    );

    let queries: Vec<(&str, SearchRequest)> = vec![
        (
            "literal, 1 session (ticket-777-2)",
            SearchRequest::literal("ticket-777-2"),
        ),
        (
            "literal, rare (src/token/cache.rs)",
            SearchRequest {
                area: Area::All,
                ..SearchRequest::literal("src/token/cache.rs")
            },
        ),
        (
            "literal, common (timeout retry)",
            SearchRequest::literal("timeout retry"),
        ),
        (
            "CJK 4 chars (跨会话检索)",
            SearchRequest::literal("跨会话检索"),
        ),
        ("CJK 2 chars (会话), scan", SearchRequest::literal("会话")),
        (
            "regex with literal (ticket-12\\d-0\\b)",
            SearchRequest::regex(r"ticket-12\d-0\b"),
        ),
        (
            "regex without literal (\\d{5}-\\d), scan",
            SearchRequest::regex(r"\d{5}-\d"),
        ),
    ];
    let sample: Vec<Session> = parsed.iter().take(n.min(2000)).cloned().collect();
    for (name, q) in queries {
        let runs = 15;
        let (p50, p90, r) = time(runs, || store.search(&q).unwrap());
        let t = Instant::now();
        let d = search_direct(&sample, &q).unwrap();
        let direct = t.elapsed().as_secs_f64() * (n as f64 / sample.len() as f64);
        let _ = d;
        println!(
            "search {name}: p50 {p50:?} p90 {p90:?}; {} hits in {} sessions; plan {:?}; direct scan of parsed sessions (extrapolated, parse not counted) {:.1} ms",
            r.total_matches, r.total_sessions, r.plan, direct * 1e3
        );
    }
}
