//! Issue 15, defect 6 (server part): `scry serve` cannot be starved. Slow-loris connections
//! are closed after the header timeout while `/health` answers; connections over the cap get a
//! 503 with the error JSON (descriptors cannot run out); requests over the cap get 503 +
//! `Retry-After`; a request over the request timeout gets 504; the blocking pool stays bounded
//! through a burst (the ~300 MB kept after load came from hundreds of blocking threads) and the
//! server answers afterwards. Limits are set small through their environment variables. All on
//! 127.0.0.1, bounded counts, generous "does not hang" deadlines only.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use serde_json::Value;

/// A running `scry serve --port 0 --demo` with extra environment; killed when dropped.
struct Server {
    child: Child,
    addr: String,
    _home: tempfile::TempDir,
}

impl Server {
    fn start(env: &[(&str, &str)]) -> Server {
        let home = tempfile::tempdir().expect("tempdir");
        let mut child = Command::new(env!("CARGO_BIN_EXE_scry"))
            .env_clear()
            .env("HOME", home.path())
            .env("TZ", "UTC")
            .env("SCRY_DB", home.path().join("index.db"))
            .envs(env.iter().copied())
            .current_dir(home.path())
            .args(["serve", "--port", "0", "--demo"])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start scry serve");
        let addr = crate::util::announced_addr(&mut child);
        Server {
            child,
            addr,
            _home: home,
        }
    }

    /// `GET path` on a fresh connection: (status, headers, body); status 0 = no answer.
    fn get(&self, path: &str) -> (u16, String, String) {
        get(&self.addr, path)
    }

    /// The server's thread count (`/proc/<pid>/status`).
    fn threads(&self) -> u64 {
        let text = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))
            .unwrap_or_default();
        text.lines()
            .find_map(|l| l.strip_prefix("Threads:"))
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or(0)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn get(addr: &str, path: &str) -> (u16, String, String) {
    let (status, head, body) = crate::util::http_get(addr, path, Duration::from_secs(30));
    (status, head.to_ascii_lowercase(), body)
}

/// Opens `n` connections that send half a request line and hold.
fn slow_connections(addr: &str, n: usize) -> Vec<TcpStream> {
    (0..n)
        .map(|_| {
            let mut s = TcpStream::connect(addr).expect("connect");
            s.write_all(b"GET /health HT").expect("half a request line");
            s.set_nonblocking(true).expect("nonblocking");
            s
        })
        .collect()
}

/// Waits (up to `limit`) until the server has closed every connection; returns how many it
/// closed.
fn wait_closed(conns: &mut [TcpStream], limit: Duration) -> usize {
    let deadline = Instant::now() + limit;
    let mut closed = vec![false; conns.len()];
    while Instant::now() < deadline && closed.iter().any(|c| !c) {
        for (s, c) in conns
            .iter_mut()
            .zip(closed.iter_mut())
            .filter(|(_, c)| !**c)
        {
            let mut buf = [0u8; 1024];
            match s.read(&mut buf) {
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
                Ok(0) | Err(_) => *c = true,
                // A response (408 or similar) before the close: keep reading to the end.
                Ok(_) => {}
            }
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    closed.iter().filter(|c| **c).count()
}

fn error_json(body: &str) -> Value {
    let v: Value = serde_json::from_str(body).unwrap_or_else(|e| panic!("not JSON ({e}): {body}"));
    assert!(v["error"]["code"].is_string(), "{v}");
    assert!(v["error"]["message"].is_string(), "{v}");
    v
}

#[test]
fn slow_loris_connections_are_closed_while_health_answers() {
    let srv = Server::start(&[("SCRY_SERVE_HEADER_TIMEOUT_MS", "1000")]);
    let mut slow = slow_connections(&srv.addr, 300);
    let t = Instant::now();
    let (status, _, body) = srv.get("/health");
    assert_eq!(status, 200, "{body}");
    assert!(
        t.elapsed() < Duration::from_secs(20),
        "health took {:?}",
        t.elapsed()
    );
    let closed = wait_closed(&mut slow, Duration::from_secs(20));
    assert_eq!(
        closed, 300,
        "slow connections the server closed after its header timeout"
    );
    let (status, _, _) = srv.get("/health");
    assert_eq!(status, 200);
}

#[test]
fn connections_over_the_cap_get_503_and_free_slots_come_back() {
    let srv = Server::start(&[
        ("SCRY_SERVE_MAX_CONNECTIONS", "20"),
        ("SCRY_SERVE_HEADER_TIMEOUT_MS", "1000"),
    ]);
    let mut slow = slow_connections(&srv.addr, 20);
    // Let the server accept all twenty before the next one arrives.
    std::thread::sleep(Duration::from_millis(300));
    let (status, head, body) = srv.get("/health");
    assert_eq!(status, 503, "the 21st connection: {head}{body}");
    assert!(head.contains("retry-after:"), "{head}");
    assert_eq!(error_json(&body)["error"]["code"], "ABORTED");
    assert_eq!(wait_closed(&mut slow, Duration::from_secs(20)), 20);
    let (status, _, _) = srv.get("/health");
    assert_eq!(
        status, 200,
        "slots free again once the slow ones are closed"
    );
}

#[test]
fn requests_over_the_cap_get_503_with_retry_after() {
    let srv = Server::start(&[
        ("SCRY_SERVE_MAX_REQUESTS", "1"),
        ("SCRY_SERVE_WORKERS", "1"),
    ]);
    let n = 24;
    let mut seen = Vec::new();
    // Up to three bursts of simultaneous searches: with one admitted request, at least one
    // of them must find the slot taken.
    for _ in 0..3 {
        let barrier = Arc::new(Barrier::new(n));
        let handles: Vec<_> = (0..n)
            .map(|_| {
                let (addr, barrier) = (srv.addr.clone(), barrier.clone());
                std::thread::spawn(move || {
                    barrier.wait();
                    get(&addr, "/v1/search?q=the&scope=global")
                })
            })
            .collect();
        seen.extend(handles.into_iter().map(|h| h.join().expect("thread")));
        if seen.iter().any(|r| r.0 == 503) {
            break;
        }
    }
    let busy: Vec<_> = seen.iter().filter(|r| r.0 == 503).collect();
    assert!(
        !busy.is_empty(),
        "no 503 in {} requests over a cap of 1",
        seen.len()
    );
    assert!(
        seen.iter().all(|r| r.0 == 200 || r.0 == 503),
        "other statuses: {:?}",
        seen.iter().map(|r| r.0).collect::<Vec<_>>()
    );
    assert!(
        seen.iter().any(|r| r.0 == 200),
        "the admitted ones are answered"
    );
    for (_, head, body) in busy {
        assert!(head.contains("retry-after: 1"), "{head}");
        let v = error_json(body);
        assert_eq!(v["error"]["code"], "ABORTED");
        assert!(
            v["error"]["message"]
                .as_str()
                .unwrap_or("")
                .contains("busy"),
            "{v}"
        );
    }
    assert_eq!(srv.get("/health").0, 200);
}

#[test]
fn a_request_over_the_timeout_gets_504_with_the_error_json() {
    let srv = Server::start(&[("SCRY_SERVE_REQUEST_TIMEOUT_MS", "1")]);
    let (status, _, body) = srv.get("/v1/search?q=the&scope=global");
    assert_eq!(status, 504, "{}", &body[..body.len().min(300)]);
    let v = error_json(&body);
    assert_eq!(v["error"]["code"], "ABORTED");
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap_or("")
            .contains("longer than"),
        "{v}"
    );
}

#[test]
fn a_burst_keeps_the_blocking_pool_bounded_and_the_server_answering() {
    let srv = Server::start(&[("SCRY_SERVE_WORKERS", "2")]);
    let list = srv.get("/v1/sessions?kind=all&limit=100&scope=global");
    assert_eq!(list.0, 200, "{}", list.2);
    let uris: Vec<String> = serde_json::from_str::<Value>(&list.2).expect("list")["sessions"]
        .as_array()
        .expect("sessions")
        .iter()
        .filter_map(|s| s["uri"].as_str().map(crate::http::enc))
        .collect();
    assert!(uris.len() >= 10);
    let paths: Arc<Vec<String>> = Arc::new(
        uris.iter()
            .flat_map(|u| {
                ["", "/turns", "/commands", "/files"].map(|t| format!("/v1/sessions/{u}{t}"))
            })
            .collect(),
    );
    let handles: Vec<_> = (0..48)
        .map(|i| {
            let (addr, paths) = (srv.addr.clone(), paths.clone());
            std::thread::spawn(move || {
                (0..4)
                    .map(|k| get(&addr, &paths[(i * 4 + k) % paths.len()]).0)
                    .collect::<Vec<u16>>()
            })
        })
        .collect();
    let mut peak = 0;
    while !handles.iter().all(|h| h.is_finished()) {
        peak = peak.max(srv.threads());
        std::thread::sleep(Duration::from_millis(10));
    }
    let statuses: Vec<u16> = handles
        .into_iter()
        .flat_map(|h| h.join().expect("thread"))
        .collect();
    assert!(
        statuses.iter().all(|s| *s == 200 || *s == 503),
        "{statuses:?}"
    );
    assert!(
        statuses.iter().filter(|s| **s == 200).count() >= 48,
        "{statuses:?}"
    );
    // The main thread, the runtime's workers (one per core), two request workers and two
    // /health slots on the blocking pool, and two to spare: 48 requests in flight must not
    // grow a blocking thread each (tokio's default pool allows 512).
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get()) as u64;
    let bound = 1 + cores + 2 + 2 + 2;
    assert!(
        peak <= bound,
        "{peak} threads during the burst (bound {bound})"
    );
    assert_eq!(srv.get("/health").0, 200);
    let after = srv.get(&paths[0]);
    assert_eq!(after.0, 200, "{}", after.2);
}

#[test]
fn a_bad_limit_is_a_usage_error_naming_it() {
    let home = tempfile::tempdir().expect("tempdir");
    let mut child = Command::new(env!("CARGO_BIN_EXE_scry"))
        .env_clear()
        .env("HOME", home.path())
        .env("SCRY_DB", home.path().join("index.db"))
        .env("SCRY_SERVE_MAX_REQUESTS", "lots")
        .current_dir(home.path())
        .args(["serve", "--port", "0", "--demo"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start scry serve");
    // A server that ignores the value would serve forever: give it 30 s, then stop it.
    let deadline = Instant::now() + Duration::from_secs(30);
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break Some(status);
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let mut stderr = String::new();
    let _ = child
        .stderr
        .take()
        .expect("stderr")
        .read_to_string(&mut stderr);
    let status = status.unwrap_or_else(|| panic!("still serving after 30 s: {stderr}"));
    assert_eq!(status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("SCRY_SERVE_MAX_REQUESTS='lots'"),
        "{stderr}"
    );
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
}
