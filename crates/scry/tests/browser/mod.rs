//! `scry web` (S-H2): the server's HTTP contract (always run; its `/v1` routes are `scry
//! serve`'s router, so `tests/http.rs` covers them in depth), and the page driven in headless
//! Chromium through chromedriver's WebDriver HTTP API (a tiny client on `std::net`: plain JSON
//! over HTTP, no extra crate). The browser tests need Debian's `chromium` and
//! `chromium-driver`; without them they skip with a loud message, unless
//! `SCRY_REQUIRE_BROWSER=1`, where a missing browser fails the test (CI sets it).
//!
//! Screenshots are written to each test's temporary directory; set `SCRY_SCREENSHOT_DIR` to
//! also copy them somewhere that outlives the test.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

mod page;

// ---------- the scry web server under test ----------

/// A running `scry web`; killed on drop. `log` collects its stderr (the request log).
struct WebServer {
    child: Child,
    base: String,
    port: u16,
    log: Arc<Mutex<Vec<String>>>,
}

impl Drop for WebServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl WebServer {
    /// Starts `scry web --port 0 <extra…>` with `HOME=home`, the index in `db`, from `home`.
    fn start(home: &Path, db: &Path, extra: &[&str]) -> WebServer {
        let mut child = Command::new(env!("CARGO_BIN_EXE_scry"))
            .env_clear()
            .env("HOME", home)
            .env("SCRY_DB", db)
            .env("TZ", "UTC")
            .current_dir(home)
            .args(["web", "--port", "0"])
            .args(extra)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start scry web");
        let stdout = child.stdout.take().expect("stdout");
        let mut first = String::new();
        BufReader::new(stdout)
            .read_line(&mut first)
            .expect("read the address line");
        let base = first
            .trim()
            .strip_prefix("scry web: ")
            .unwrap_or_else(|| panic!("unexpected first line: {first:?}"))
            .trim_end_matches('/')
            .to_string();
        let port: u16 = base
            .rsplit(':')
            .next()
            .and_then(|p| p.parse().ok())
            .expect("port in the address");
        let log = Arc::new(Mutex::new(Vec::new()));
        let stderr = child.stderr.take().expect("stderr");
        let sink = Arc::clone(&log);
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if let Ok(mut l) = sink.lock() {
                    l.push(line);
                }
            }
        });
        WebServer {
            child,
            base,
            port,
            log,
        }
    }

    /// The request-log lines naming an API route (`/v1/…`).
    fn api_requests(&self) -> Vec<String> {
        self.log
            .lock()
            .map(|l| l.iter().filter(|s| s.contains(" /v1/")).cloned().collect())
            .unwrap_or_default()
    }
}

/// One raw HTTP exchange: (status, headers lower-cased, body). Panics on a transport error.
fn http(
    port: u16,
    method: &str,
    path: &str,
    host: &str,
    body: Option<&str>,
) -> (u16, Vec<(String, String)>, String) {
    try_http(port, method, path, host, body).unwrap_or_else(|e| panic!("{method} {path}: {e}"))
}

/// Status, headers and body of one HTTP response.
type Reply = (u16, Vec<(String, String)>, String);

/// One HTTP/1.1 exchange; the body is read to its Content-Length (chromedriver keeps the
/// connection open whatever `Connection: close` says), else chunk by chunk, else to EOF.
fn try_http(
    port: u16,
    method: &str,
    path: &str,
    host: &str,
    body: Option<&str>,
) -> Result<Reply, String> {
    let mut s = TcpStream::connect(("127.0.0.1", port)).map_err(|e| e.to_string())?;
    s.set_read_timeout(Some(Duration::from_secs(120))).ok();
    let body = body.unwrap_or("");
    let req = format!(
        "{method} {path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    s.write_all(req.as_bytes()).map_err(|e| e.to_string())?;
    let mut reader = BufReader::new(s);
    let mut status_line = String::new();
    reader
        .read_line(&mut status_line)
        .map_err(|e| e.to_string())?;
    let status: u16 = status_line
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .ok_or_else(|| format!("bad status line {status_line:?}"))?;
    let mut headers = Vec::new();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).map_err(|e| e.to_string())? == 0 {
            break;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some((k, v)) = line.split_once(':') {
            headers.push((k.trim().to_ascii_lowercase(), v.trim().to_string()));
        }
    }
    let mut raw = Vec::new();
    if let Some(len) = header(&headers, "content-length").and_then(|v| v.parse::<usize>().ok()) {
        raw.resize(len, 0);
        reader.read_exact(&mut raw).map_err(|e| e.to_string())?;
    } else if header(&headers, "transfer-encoding").is_some_and(|v| v.contains("chunked")) {
        loop {
            let mut size = String::new();
            reader.read_line(&mut size).map_err(|e| e.to_string())?;
            let n = usize::from_str_radix(size.trim().split(';').next().unwrap_or("0"), 16)
                .map_err(|e| e.to_string())?;
            let mut chunk = vec![0; n + 2];
            reader.read_exact(&mut chunk).map_err(|e| e.to_string())?;
            if n == 0 {
                break;
            }
            raw.extend_from_slice(&chunk[..n]);
        }
    } else {
        reader.read_to_end(&mut raw).map_err(|e| e.to_string())?;
    }
    Ok((status, headers, String::from_utf8_lossy(&raw).into_owned()))
}

fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
}

fn demo_server() -> (tempfile::TempDir, WebServer) {
    let tmp = tempfile::tempdir().expect("tempdir");
    let home = tmp.path().join("home");
    std::fs::create_dir_all(&home).expect("home");
    let server = WebServer::start(&home, &tmp.path().join("index.db"), &["--demo"]);
    (tmp, server)
}

// ---------- HTTP contract (no browser needed) ----------

#[test]
fn web_serves_page_with_csp_and_refuses_writes_and_foreign_hosts() {
    let (_tmp, server) = demo_server();
    let host = format!("127.0.0.1:{}", server.port);

    let (status, headers, body) = http(server.port, "GET", "/", &host, None);
    assert_eq!(status, 200);
    let csp = header(&headers, "content-security-policy").expect("CSP header");
    assert!(csp.contains("default-src 'none'"), "{csp}");
    assert!(csp.contains("connect-src 'self'"), "{csp}");
    assert_eq!(header(&headers, "x-content-type-options"), Some("nosniff"));
    assert!(body.contains("/assets/app.js") && body.contains("data-scope=\"global\""));
    // The page references nothing outside this server: the page, every asset it names, and
    // every module those scripts import (followed transitively).
    let mut queue: Vec<String> = vec!["/".into()];
    let mut seen: Vec<String> = Vec::new();
    while let Some(asset) = queue.pop() {
        if seen.contains(&asset) {
            continue;
        }
        let (status, headers, text) = http(server.port, "GET", &asset, &host, None);
        assert_eq!(status, 200, "{asset}");
        assert!(
            !text.contains("http://") && !text.contains("https://") && !text.contains("//cdn"),
            "{asset} names an external address"
        );
        if asset.ends_with(".js") {
            // Module scripts load only with a JavaScript MIME type.
            assert_eq!(
                header(&headers, "content-type"),
                Some("text/javascript; charset=utf-8"),
                "{asset}"
            );
            for part in text.split(" from './").skip(1) {
                let name = part.split('\'').next().unwrap_or_default();
                queue.push(format!("/assets/{name}"));
            }
        } else if asset == "/" {
            for part in text.split("\"/assets/").skip(1) {
                let name = part.split('"').next().unwrap_or_default();
                queue.push(format!("/assets/{name}"));
            }
        }
        seen.push(asset);
    }
    for needed in ["/assets/app.js", "/assets/api.js", "/assets/style.css"] {
        assert!(
            seen.iter().any(|s| s == needed),
            "{needed} not loaded: {seen:?}"
        );
    }
    assert!(seen.len() >= 6, "{seen:?}");
    // HEAD answers like GET without a body; an unknown page is a JSON 404.
    let mut s = TcpStream::connect(("127.0.0.1", server.port)).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(60))).ok();
    write!(
        s,
        "HEAD / HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
    )
    .expect("send");
    let mut raw = String::new();
    s.read_to_string(&mut raw).expect("HEAD reply");
    assert!(raw.starts_with("HTTP/1.1 200"), "{raw}");
    assert!(raw.ends_with("\r\n\r\n"), "a body after HEAD: {raw}");
    let (status, _, body) = http(server.port, "GET", "/nope.html", &host, None);
    assert_eq!(status, 404, "{body}");
    assert_eq!(
        serde_json::from_str::<Value>(&body).expect("JSON 404")["error"]["code"],
        "INVALID_QUERY"
    );

    let (status, headers, body) = http(server.port, "POST", "/v1/sessions", &host, Some("{}"));
    assert_eq!(status, 405, "{body}");
    assert_eq!(header(&headers, "allow"), Some("GET, HEAD"));

    // DNS rebinding: another name resolving to 127.0.0.1 is refused.
    let (status, _, body) = http(
        server.port,
        "GET",
        "/v1/sessions",
        &format!("evil.example:{}", server.port),
        None,
    );
    assert_eq!(status, 403, "{body}");

    let (status, _, body) = http(
        server.port,
        "GET",
        "/v1/sessions/claude%3Anope-nope-nope",
        &host,
        None,
    );
    assert_eq!(status, 404, "{body}");
    let v: Value = serde_json::from_str(&body).expect("JSON error");
    assert_eq!(v["error"]["code"], "SESSION_NOT_FOUND");

    let (status, _, body) = http(server.port, "GET", "/v1/search?q=%28&regex=1", &host, None);
    assert_eq!(status, 400, "{body}");

    // The request log names paths, never query strings (it is written after the reply).
    let deadline = Instant::now() + Duration::from_secs(10);
    let log = loop {
        let log = server.log.lock().expect("log").join("\n");
        if log.contains("GET /v1/search 400") || Instant::now() > deadline {
            break log;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(log.contains("GET /v1/search 400"), "{log}");
    assert!(!log.contains("q=%28"), "{log}");
}

/// `scry web` shows session text as it is (the person at this machine reading their own
/// sessions, like `scry serve --reveal`); `--redact` redacts it as `scry serve` does.
#[test]
fn web_reveals_unless_asked_to_redact() {
    for (extra, redacted) in [(&[][..], false), (&["--redact"][..], true)] {
        let tmp = tempfile::tempdir().expect("tempdir");
        let home = tmp.path().join("home");
        std::fs::create_dir_all(&home).expect("home");
        let mut args = vec!["--demo"];
        args.extend_from_slice(extra);
        let server = WebServer::start(&home, &tmp.path().join("index.db"), &args);
        let host = format!("127.0.0.1:{}", server.port);
        let (status, _, body) = http(server.port, "GET", "/manifest", &host, None);
        assert_eq!(status, 200, "{body}");
        let v: Value = serde_json::from_str(&body).expect("manifest JSON");
        assert_eq!(v["redacted"], json!(redacted), "{extra:?}: {v}");
        assert_eq!(v["auth"], "none");
    }
}

#[test]
fn web_refuses_a_non_loopback_host() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let out = Command::new(env!("CARGO_BIN_EXE_scry"))
        .env_clear()
        .env("HOME", tmp.path())
        .env("SCRY_DB", tmp.path().join("index.db"))
        .args(["web", "--demo", "--host", "0.0.0.0", "--port", "0"])
        .output()
        .expect("run scry web");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("loopback"));
}

#[test]
fn web_api_bodies_equal_the_cli_json() {
    let (tmp, server) = demo_server();
    let host = format!("127.0.0.1:{}", server.port);
    let cli = |args: &[&str]| -> Value {
        let out = Command::new(env!("CARGO_BIN_EXE_scry"))
            .env_clear()
            .env("HOME", tmp.path().join("home"))
            .env("SCRY_DB", tmp.path().join("index.db"))
            .env("TZ", "UTC")
            .current_dir(tmp.path())
            .args(args)
            .output()
            .expect("run scry");
        serde_json::from_slice(&out.stdout).expect("CLI JSON")
    };
    let api = |path: &str| -> Value {
        let (status, _, body) = http(server.port, "GET", path, &host, None);
        assert_eq!(status, 200, "{path}: {body}");
        serde_json::from_str(&body).expect("API JSON")
    };
    let uri = "claude:4f1c2a9e-7b3d-4c8e-9a21-5d6e7f809a1b";
    assert_eq!(
        api("/v1/sessions?limit=5"),
        cli(&["list", "--demo", "--json", "--global", "--limit", "5"])
    );
    assert_eq!(
        api(&format!("/v1/sessions/{uri}/turns")),
        cli(&["turns", "--demo", "--json", uri])
    );
    assert_eq!(
        api("/v1/search?q=password"),
        cli(&["search", "--demo", "--json", "--global", "password"])
    );
    assert_eq!(
        api(&format!("/v1/sessions/{uri}/content?event=9%2C10")),
        cli(&["turn", "--demo", "--json", uri, "--event", "9,10"])
    );
}

// ---------- WebDriver ----------
