//! `load`: a bounded load test of `scry serve` on 127.0.0.1 (issue 15, defect 6).
//!
//! Starts `scry serve --port 0` on a corpus HOME (under `sh -c 'ulimit -n N; exec …'` so the
//! server runs with a chosen descriptor limit, default 1024 as on a stock Linux login), then:
//!
//! 1. **burst**: `--requests` GETs (default 1,000) over real session routes (show, turns,
//!    content, ledgers, lineage, search, list), `--inflight` at a time (default 150), one
//!    connection per request; latency of each, status counts, the server's peak RSS (VmHWM) and
//!    CPU time (utime + stime) over the burst; with `--retries N` a 503 is retried after the
//!    server's `Retry-After` (1 s) up to N times, its latency counting every wait;
//! 2. **idle**: waits `--idle-secs` (default 15, past tokio's 10 s blocking-thread keep-alive)
//!    and reads the server's RSS and thread count again;
//! 3. **slow**: opens `--slow` connections (default 500) that send half a request line and
//!    hold, while `/health` is probed every 200 ms for `--slow-secs` (default 12); reports the
//!    probes' latency / failures and how many slow connections the server closed, and when.
//!
//! Everything is std: threads and raw `TcpStream`s. Prints one JSON object on stdout. Nothing
//! is written anywhere but the index (a temporary `SCRY_DB`); the corpus is only read.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

struct Opts {
    scry: PathBuf,
    home: PathBuf,
    requests: usize,
    inflight: usize,
    slow: usize,
    slow_secs: u64,
    idle_secs: u64,
    nofile: u64,
    env: Vec<(String, String)>,
    label: String,
    retries: u32,
}

fn usage(msg: &str) -> ! {
    eprintln!("load: {msg}");
    eprintln!(
        "usage: load --scry BIN --home DIR [--requests 1000] [--inflight 150] [--slow 500] \
         [--slow-secs 12] [--idle-secs 15] [--nofile 1024] [--retries 0] [--env K=V]… [--label L]"
    );
    std::process::exit(2)
}

fn parse_args() -> Opts {
    let mut o = Opts {
        scry: PathBuf::new(),
        home: PathBuf::new(),
        requests: 1000,
        inflight: 150,
        slow: 500,
        slow_secs: 12,
        idle_secs: 15,
        nofile: 1024,
        env: Vec::new(),
        label: String::new(),
        retries: 0,
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut val = || {
            args.next()
                .unwrap_or_else(|| usage(&format!("{a} needs a value")))
        };
        let num = |v: String| -> u64 {
            v.parse()
                .unwrap_or_else(|_| usage(&format!("{a}: '{v}' is not a number")))
        };
        match a.as_str() {
            "--scry" => o.scry = val().into(),
            "--home" => o.home = val().into(),
            "--requests" => o.requests = num(val()) as usize,
            "--inflight" => o.inflight = num(val()).max(1) as usize,
            "--slow" => o.slow = num(val()) as usize,
            "--slow-secs" => o.slow_secs = num(val()),
            "--idle-secs" => o.idle_secs = num(val()),
            "--nofile" => o.nofile = num(val()),
            "--label" => o.label = val(),
            "--retries" => o.retries = num(val()) as u32,
            "--env" => {
                let v = val();
                let (k, x) = v
                    .split_once('=')
                    .unwrap_or_else(|| usage(&format!("--env '{v}' is not K=V")));
                o.env.push((k.into(), x.into()));
            }
            _ => usage(&format!("unknown argument '{a}'")),
        }
    }
    if o.scry.as_os_str().is_empty() || o.home.as_os_str().is_empty() {
        usage("--scry and --home are required");
    }
    o
}

/// The server under test; killed by its own handle when dropped.
struct Server {
    child: Child,
    addr: SocketAddr,
    _db: TempDir,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A directory removed on drop (no tempfile dependency outside dev-dependencies).
struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn start(o: &Opts) -> Server {
    let db = std::env::temp_dir().join(format!("scry-load-{}", std::process::id()));
    std::fs::create_dir_all(&db).expect("temp dir");
    let db = TempDir(db);
    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg(format!(
            "ulimit -n {} && exec \"$0\" serve --port 0",
            o.nofile
        ))
        .arg(&o.scry)
        .env_clear()
        .env("HOME", &o.home)
        .env("TZ", "UTC")
        .env("PATH", "/usr/bin:/bin")
        .env("SCRY_DB", db.0.join("index.db"))
        .current_dir(&o.home)
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    for (k, v) in &o.env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().expect("start scry serve");
    let mut line = String::new();
    BufReader::new(child.stdout.take().expect("stdout"))
        .read_line(&mut line)
        .expect("first line");
    let addr = line
        .trim()
        .rsplit("http://")
        .next()
        .and_then(|a| a.parse().ok())
        .unwrap_or_else(|| panic!("no address in {line:?}"));
    Server {
        child,
        addr,
        _db: db,
    }
}

/// One GET with `Connection: close`: (status, body); status 0 = connection failed / timed out.
fn get(addr: SocketAddr, path: &str, timeout: Duration) -> (u16, String) {
    let Ok(mut s) = TcpStream::connect_timeout(&addr, timeout) else {
        return (0, String::new());
    };
    s.set_read_timeout(Some(timeout)).ok();
    s.set_write_timeout(Some(timeout)).ok();
    let req = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
    if s.write_all(req.as_bytes()).is_err() {
        return (0, String::new());
    }
    let mut raw = Vec::new();
    if s.read_to_end(&mut raw).is_err() && raw.is_empty() {
        return (0, String::new());
    }
    let text = String::from_utf8_lossy(&raw).into_owned();
    let status = text
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    let body = text
        .split_once("\r\n\r\n")
        .map(|(_, b)| b.to_string())
        .unwrap_or_default();
    (status, body)
}

/// A field of `/proc/<pid>/status` in kB.
fn status_kb(pid: u32, field: &str) -> u64 {
    let text = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    text.lines()
        .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

/// utime + stime of the process, in seconds (clock ticks of 1/100 s, Linux's USER_HZ).
fn cpu_secs(pid: u32) -> f64 {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let after = text.rsplit_once(')').map_or("", |(_, r)| r);
    let f: Vec<u64> = after
        .split_whitespace()
        .map(|x| x.parse().unwrap_or(0))
        .collect();
    // Fields after the command: state(0) ppid … utime is field 14 overall = index 11 here.
    (f.get(11).copied().unwrap_or(0) + f.get(12).copied().unwrap_or(0)) as f64 / 100.0
}

fn pct(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

fn enc(s: &str) -> String {
    s.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
                char::from(b).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

/// The request mix: for every session, its card, turns, first turn's content and ledgers;
/// plus lists and searches. Cycled until `n` paths.
fn paths(addr: SocketAddr, n: usize) -> Vec<String> {
    let (status, body) = get(
        addr,
        "/v1/sessions?scope=global&kind=all&limit=1000",
        Duration::from_secs(300),
    );
    assert_eq!(status, 200, "list failed: {body}");
    let v: Value = serde_json::from_str(&body).expect("list JSON");
    let uris: Vec<String> = v["sessions"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|s| s["uri"].as_str().map(enc))
                .collect()
        })
        .unwrap_or_default();
    assert!(!uris.is_empty(), "no sessions in the corpus home");
    let mut mix = Vec::new();
    for u in &uris {
        for tail in [
            "",
            "/turns",
            "/content?turns=1",
            "/commands",
            "/files",
            "/errors",
            "/lineage",
        ] {
            mix.push(format!("/v1/sessions/{u}{tail}"));
        }
    }
    for q in ["error", "the", "fn", "test"] {
        mix.push(format!("/v1/search?q={q}&scope=global"));
    }
    mix.push("/v1/sessions?scope=global&limit=50".into());
    (0..n).map(|i| mix[i % mix.len()].clone()).collect()
}

fn burst(addr: SocketAddr, pid: u32, o: &Opts) -> Value {
    let paths = Arc::new(paths(addr, o.requests));
    let next = Arc::new(AtomicUsize::new(0));
    let results = Arc::new(Mutex::new(Vec::with_capacity(o.requests)));
    let rss_before = status_kb(pid, "VmRSS");
    let cpu_before = cpu_secs(pid);
    let start = Instant::now();
    let retries = o.retries;
    let workers: Vec<_> = (0..o.inflight)
        .map(|_| {
            let (paths, next, results) = (paths.clone(), next.clone(), results.clone());
            std::thread::spawn(move || loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(p) = paths.get(i) else { break };
                let t = Instant::now();
                let mut status = get(addr, p, Duration::from_secs(120)).0;
                let mut retried = 0;
                // A polite client: on 503 wait the server's Retry-After (1 s) and try again.
                while status == 503 && retried < retries {
                    std::thread::sleep(Duration::from_secs(1));
                    status = get(addr, p, Duration::from_secs(120)).0;
                    retried += 1;
                }
                let ms = t.elapsed().as_secs_f64() * 1000.0;
                results.lock().expect("results").push((status, ms, retried));
            })
        })
        .collect();
    let mut peak_threads = 0;
    while !workers.iter().all(|w| w.is_finished()) {
        peak_threads = peak_threads.max(status_kb(pid, "Threads"));
        std::thread::sleep(Duration::from_millis(20));
    }
    for w in workers {
        let _ = w.join();
    }
    let wall = start.elapsed().as_secs_f64();
    let cpu = cpu_secs(pid) - cpu_before;
    let results = results.lock().expect("results");
    let mut ms: Vec<f64> = results.iter().map(|r| r.1).collect();
    ms.sort_by(f64::total_cmp);
    let count = |f: &dyn Fn(u16) -> bool| results.iter().filter(|r| f(r.0)).count();
    let mut ok_ms: Vec<f64> = results
        .iter()
        .filter(|r| (200..300).contains(&r.0))
        .map(|r| r.1)
        .collect();
    ok_ms.sort_by(f64::total_cmp);
    json!({
        "requests": results.len(),
        "inflight": o.inflight,
        "ok_2xx": count(&|s| (200..300).contains(&s)),
        "status_4xx": count(&|s| (400..500).contains(&s)),
        "status_503": count(&|s| s == 503),
        "status_5xx_other": count(&|s| s >= 500 && s != 503),
        "failed_no_answer": count(&|s| s == 0),
        "retries": o.retries,
        "retried_503s": results.iter().map(|r| r.2 as usize).sum::<usize>(),
        "p50_ms": pct(&ms, 0.50),
        "p99_ms": pct(&ms, 0.99),
        "max_ms": pct(&ms, 1.0),
        "ok_p50_ms": pct(&ok_ms, 0.50),
        "ok_p99_ms": pct(&ok_ms, 0.99),
        "wall_s": wall,
        "server_cpu_s": cpu,
        "rss_before_mb": rss_before as f64 / 1024.0,
        "rss_peak_mb": status_kb(pid, "VmHWM") as f64 / 1024.0,
        "rss_end_mb": status_kb(pid, "VmRSS") as f64 / 1024.0,
        "threads_peak": peak_threads,
    })
}

fn slow(addr: SocketAddr, pid: u32, o: &Opts) -> Value {
    let start = Instant::now();
    let mut conns = Vec::new();
    let mut refused = 0;
    for _ in 0..o.slow {
        match TcpStream::connect_timeout(&addr, Duration::from_secs(2)) {
            Ok(mut s) => {
                // Half a request line, then nothing more.
                let _ = s.write_all(b"GET /health HT");
                s.set_nonblocking(true).ok();
                conns.push((s, None::<f64>));
            }
            Err(_) => refused += 1,
        }
    }
    let opened = conns.len();
    let open_s = start.elapsed().as_secs_f64();
    let mut probes = Vec::new();
    let deadline = start + Duration::from_secs(o.slow_secs);
    let mut fds_peak = 0;
    while Instant::now() < deadline {
        let t = Instant::now();
        let (status, _) = get(addr, "/health", Duration::from_secs(5));
        probes.push((status, t.elapsed().as_secs_f64() * 1000.0));
        let fds = std::fs::read_dir(format!("/proc/{pid}/fd"))
            .map(|d| d.count())
            .unwrap_or(0);
        fds_peak = fds_peak.max(fds);
        for (s, closed) in conns.iter_mut().filter(|c| c.1.is_none()) {
            let mut buf = [0u8; 512];
            match s.read(&mut buf) {
                Ok(_) => *closed = Some(start.elapsed().as_secs_f64()),
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
                Err(_) => *closed = Some(start.elapsed().as_secs_f64()),
            }
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    let mut closed: Vec<f64> = conns.iter().filter_map(|c| c.1).collect();
    closed.sort_by(f64::total_cmp);
    let ok: Vec<f64> = probes.iter().filter(|p| p.0 == 200).map(|p| p.1).collect();
    let mut sorted = ok.clone();
    sorted.sort_by(f64::total_cmp);
    json!({
        "slow_requested": o.slow,
        "slow_opened": opened,
        "slow_connect_failed": refused,
        "open_s": open_s,
        "health_probes": probes.len(),
        "health_ok": ok.len(),
        "health_p50_ms": pct(&sorted, 0.5),
        "health_max_ms": pct(&sorted, 1.0),
        "slow_closed_by_server": closed.len(),
        "slow_first_closed_s": closed.first(),
        "slow_last_closed_s": closed.last(),
        "server_fds_peak": fds_peak,
        "rss_mb": status_kb(pid, "VmRSS") as f64 / 1024.0,
    })
}

fn main() {
    let o = parse_args();
    let srv = start(&o);
    let pid = srv.child.id();
    let rss_start = status_kb(pid, "VmRSS");
    let burst = burst(srv.addr, pid, &o);
    eprintln!("load: burst done: {burst}");
    std::thread::sleep(Duration::from_secs(o.idle_secs));
    let idle = json!({
        "after_s": o.idle_secs,
        "rss_mb": status_kb(pid, "VmRSS") as f64 / 1024.0,
        "threads": status_kb(pid, "Threads"),
    });
    let slow = if o.slow > 0 {
        slow(srv.addr, pid, &o)
    } else {
        Value::Null
    };
    let out = json!({
        "label": o.label,
        "nofile": o.nofile,
        "env": o.env.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>(),
        "rss_start_mb": rss_start as f64 / 1024.0,
        "burst": burst,
        "idle": idle,
        "slow": slow,
    });
    println!("{out}");
}
