//! `scry web [--open] [--scope …] [--host 127.0.0.1] [--port 7780]` (S-H2): serves the local web
//! page (`crates/scry/web/`, embedded in the binary) and, beside it, the JSON routes it reads.
//!
//! The server is a small HTTP/1.1 loop on `std::net` (one thread per connection, `Connection:
//! close`): GET only (405 otherwise), loopback only, the `Host` header checked against the bound
//! address (DNS rebinding), a strict Content-Security-Policy (no external request of any kind),
//! and a request log on stderr that names the method, path, status and time but never a query
//! string or session text. The `/v1/…` routes map onto the CLI's own commands with `--json`, so
//! their bodies are exactly the CLI's JSON (S-H1 shapes): sessions, one session, turn directory,
//! content (turns / events / locator / call), search, and the files / commands / errors / jobs
//! ledgers.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{IpAddr, SocketAddr, TcpListener, TcpStream};
use std::time::{Duration, Instant};

use clap::Args;
use clap::Parser;
use scry_model::ErrorCode;
use serde_json::json;

use super::Output;
use crate::app::Ctx;
use crate::error::{CliError, CliResult};

const INDEX_HTML: &str = include_str!("../../web/index.html");
const APP_JS: &str = include_str!("../../web/app.js");
const STYLE_CSS: &str = include_str!("../../web/style.css");

/// The page may load its own script, style sheet and JSON, and nothing else.
const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; \
                   connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/// Arguments of `scry web`.
#[derive(Debug, Args)]
pub struct WebArgs {
    /// Open the page in the default browser once the server listens
    #[arg(long)]
    pub open: bool,
    /// Default workspace filter of the page (a path, `cwd`, or `global`); default: global
    #[arg(long, value_name = "PATH|cwd|global")]
    pub scope: Option<String>,
    /// Address to listen on (loopback only: 127.0.0.1, ::1 or localhost)
    #[arg(long, default_value = "127.0.0.1")]
    pub host: String,
    /// Port to listen on (0 picks a free one)
    #[arg(long, default_value_t = 7780)]
    pub port: u16,
}

/// Runs `scry web`: listens, prints the page's address, and serves until the process ends.
pub fn run(ctx: &Ctx, args: &WebArgs) -> CliResult<Output> {
    let ip = loopback_ip(&args.host)?;
    let listener = TcpListener::bind(SocketAddr::new(ip, args.port)).map_err(|e| {
        CliError::new(
            ErrorCode::Aborted,
            format!("cannot listen on {}:{}: {e}", args.host, args.port),
        )
    })?;
    let local = listener.local_addr()?;
    let url = match local.ip() {
        IpAddr::V6(_) => format!("http://[{}]:{}/", local.ip(), local.port()),
        IpAddr::V4(_) => format!("http://{}:{}/", local.ip(), local.port()),
    };
    let scope = match args.scope.as_deref() {
        None => "global".to_string(),
        Some("cwd") => ctx.cwd.to_string_lossy().into_owned(),
        Some(s) => s.to_string(),
    };
    let index = INDEX_HTML
        .replace("{{SCOPE}}", &html_attr(&scope))
        .replace("{{DEMO}}", if ctx.demo { "true" } else { "false" })
        .replace("{{VERSION}}", env!("CARGO_PKG_VERSION"));
    {
        let mut out = std::io::stdout().lock();
        writeln!(out, "scry web: {url}")?;
        out.flush()?;
    }
    if args.open {
        open_browser(&url);
    }
    let server = std::sync::Arc::new(Server {
        ctx: ctx.clone(),
        index,
        port: local.port(),
    });
    for stream in listener.incoming() {
        let Ok(stream) = stream else { continue };
        let server = std::sync::Arc::clone(&server);
        std::thread::spawn(move || server.handle(stream));
    }
    Ok(Output::default())
}

/// Only loopback addresses: the page shows session text and has no login.
fn loopback_ip(host: &str) -> CliResult<IpAddr> {
    let ip: Option<IpAddr> = match host {
        "localhost" => Some(IpAddr::from([127, 0, 0, 1])),
        h => h.trim_start_matches('[').trim_end_matches(']').parse().ok(),
    };
    match ip {
        Some(ip) if ip.is_loopback() => Ok(ip),
        _ => Err(CliError::usage(
            ErrorCode::InvalidQuery,
            format!(
                "--host {host}: scry web listens on loopback only (127.0.0.1, ::1, localhost); \
                 use `scry serve --token …` to serve other machines"
            ),
        )),
    }
}

fn open_browser(url: &str) {
    let opener = if cfg!(target_os = "macos") {
        "open"
    } else if cfg!(windows) {
        "explorer"
    } else {
        "xdg-open"
    };
    if let Err(e) = std::process::Command::new(opener)
        .arg(url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
    {
        eprintln!("scry web: cannot start {opener} ({e}); open {url} yourself");
    }
}

/// Escapes text for a double-quoted HTML attribute.
fn html_attr(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('"', "&quot;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

struct Server {
    ctx: Ctx,
    index: String,
    port: u16,
}

/// One HTTP response.
struct Reply {
    status: u16,
    content_type: &'static str,
    body: Vec<u8>,
    extra: Vec<(&'static str, String)>,
}

impl Reply {
    fn new(status: u16, content_type: &'static str, body: impl Into<Vec<u8>>) -> Self {
        Reply {
            status,
            content_type,
            body: body.into(),
            extra: Vec::new(),
        }
    }

    fn error(status: u16, code: ErrorCode, message: impl Into<String>) -> Self {
        let v =
            json!({"error": {"code": code.as_str(), "message": message.into(), "candidates": []}});
        Reply::new(status, "application/json", v.to_string())
    }
}

/// A parsed request line and the headers the server looks at.
struct Request {
    method: String,
    path: String,
    query: String,
    host: Option<String>,
}

impl Server {
    fn handle(&self, mut stream: TcpStream) {
        let _ = stream.set_read_timeout(Some(Duration::from_secs(30)));
        let started = Instant::now();
        let req = match read_request(&stream) {
            Ok(Some(r)) => r,
            Ok(None) => return,
            Err(msg) => {
                let reply = Reply::error(400, ErrorCode::InvalidQuery, msg);
                let _ = write_reply(&mut stream, &reply, false);
                return;
            }
        };
        let reply = self.respond(&req);
        let head_only = req.method == "HEAD";
        let _ = write_reply(&mut stream, &reply, head_only);
        // Path only: the query string can hold a search and the body holds session text.
        eprintln!(
            "scry web: {} {} {} {}ms",
            req.method,
            req.path,
            reply.status,
            started.elapsed().as_millis()
        );
    }

    fn respond(&self, req: &Request) -> Reply {
        if !self.host_allowed(req.host.as_deref()) {
            return Reply::error(
                403,
                ErrorCode::InvalidQuery,
                "the Host header does not name this loopback server",
            );
        }
        if req.method != "GET" && req.method != "HEAD" {
            let mut r = Reply::error(
                405,
                ErrorCode::InvalidQuery,
                format!("{} is not allowed: the API is read-only (GET)", req.method),
            );
            r.extra.push(("Allow", "GET, HEAD".to_string()));
            return r;
        }
        match req.path.as_str() {
            "/" | "/index.html" => Reply::new(200, "text/html; charset=utf-8", self.index.clone()),
            "/assets/app.js" => Reply::new(200, "text/javascript; charset=utf-8", APP_JS),
            "/assets/style.css" => Reply::new(200, "text/css; charset=utf-8", STYLE_CSS),
            "/health" => Reply::new(200, "application/json", r#"{"ok":true}"#),
            p if p.starts_with("/v1/") => self.api(p, &parse_query(&req.query)),
            _ => Reply::error(
                404,
                ErrorCode::InvalidQuery,
                format!("no such page: {}", req.path),
            ),
        }
    }

    /// DNS rebinding: a page from another origin that resolves to 127.0.0.1 still sends its own
    /// host name; only loopback names with this server's port are answered.
    fn host_allowed(&self, host: Option<&str>) -> bool {
        let Some(host) = host else { return false };
        let host = host.trim().to_ascii_lowercase();
        ["127.0.0.1", "localhost", "[::1]"]
            .iter()
            .any(|name| host == format!("{name}:{}", self.port))
    }

    /// The JSON routes, each the CLI command with `--json`.
    fn api(&self, path: &str, q: &[(String, String)]) -> Reply {
        let parts: Vec<String> = path
            .trim_start_matches("/v1/")
            .split('/')
            .map(percent_decode)
            .collect();
        let get = |k: &str| {
            q.iter()
                .find(|(name, v)| name == k && !v.is_empty())
                .map(|(_, v)| v.clone())
        };
        let flag = |k: &str| matches!(get(k).as_deref(), Some("1" | "true" | "yes"));
        let mut argv: Vec<String> = Vec::new();
        let push = |argv: &mut Vec<String>, name: &str, key: &str| {
            if let Some(v) = get(key) {
                argv.push(format!("--{name}"));
                argv.push(v);
            }
        };
        let parts: Vec<&str> = parts.iter().map(String::as_str).collect();
        match parts.as_slice() {
            ["sessions"] => {
                argv.push("list".into());
                argv.push("--scope".into());
                argv.push(get("scope").unwrap_or_else(|| "global".into()));
                for (name, key) in [
                    ("provider", "provider"),
                    ("since", "since"),
                    ("kind", "kind"),
                ] {
                    push(&mut argv, name, key);
                }
                push(&mut argv, "limit", "limit");
                push(&mut argv, "cursor", "cursor");
            }
            ["sessions", id] => argv.extend(["show".into(), (*id).to_string()]),
            ["sessions", id, "turns"] => argv.extend(["turns".into(), (*id).to_string()]),
            ["sessions", id, ledger @ ("files" | "commands" | "errors" | "jobs")] => {
                argv.extend([(*ledger).to_string(), (*id).to_string()]);
            }
            ["sessions", id, "content"] => {
                argv.extend(["turn".into(), (*id).to_string()]);
                if let Some(t) = get("turns") {
                    argv.push(t);
                }
                for (name, key) in [
                    ("event", "event"),
                    ("locator", "locator"),
                    ("call", "call"),
                    ("artifact", "artifact"),
                    ("cursor", "cursor"),
                    ("max-chars", "max_chars"),
                ] {
                    push(&mut argv, name, key);
                }
                if flag("raw") {
                    argv.push("--raw".into());
                }
            }
            ["search"] => {
                argv.push("search".into());
                argv.push("--scope".into());
                argv.push(get("scope").unwrap_or_else(|| "global".into()));
                for (name, key) in [
                    ("provider", "provider"),
                    ("since", "since"),
                    ("area", "area"),
                    ("kind", "event_kind"),
                    ("session", "session"),
                    ("limit", "limit"),
                    ("max-hits", "max_hits"),
                    ("context", "context"),
                    ("sort", "sort"),
                    ("cursor", "cursor"),
                ] {
                    push(&mut argv, name, key);
                }
                for f in ["regex", "case"] {
                    if flag(f) {
                        argv.push(format!("--{f}"));
                    }
                }
                argv.push("--".into());
                argv.push(get("q").unwrap_or_default());
            }
            _ => {
                return Reply::error(
                    404,
                    ErrorCode::InvalidQuery,
                    format!("no such route: {path}"),
                )
            }
        }
        self.run_cli(argv)
    }

    fn run_cli(&self, argv: Vec<String>) -> Reply {
        let full = std::iter::once("scry".to_string()).chain(argv);
        let cli = match crate::cli::Cli::try_parse_from(full) {
            Ok(c) => c,
            Err(e) => {
                let text = e.render().to_string();
                let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
                return Reply::error(
                    400,
                    ErrorCode::InvalidQuery,
                    first.trim_start_matches("error: "),
                );
            }
        };
        if matches!(cli.command, super::Command::Web(_)) {
            return Reply::error(400, ErrorCode::InvalidQuery, "not a route");
        }
        let mut ctx = self.ctx.clone();
        ctx.json = true;
        ctx.color = false;
        match super::run(&ctx, &cli.command) {
            Ok(out) => {
                let mut r = Reply::new(200, "application/json", out.stdout);
                r.extra.push(("Cache-Control", "no-store".to_string()));
                r
            }
            Err(e) => {
                let code = match &e {
                    CliError::Failed(f) => f.code,
                    _ => ErrorCode::Aborted,
                };
                let body = e
                    .to_json()
                    .unwrap_or_else(|| json!({"error": {"code": code.as_str(), "message": "failed", "candidates": []}}));
                Reply::new(status_of(code), "application/json", body.to_string())
            }
        }
    }
}

/// The HTTP status that fits a closed error code.
fn status_of(code: ErrorCode) -> u16 {
    match code {
        ErrorCode::SessionNotFound | ErrorCode::EventNotFound => 404,
        ErrorCode::AmbiguousId | ErrorCode::StaleLocator | ErrorCode::SourceConflict => 409,
        ErrorCode::InvalidQuery
        | ErrorCode::InvalidFilter
        | ErrorCode::InvalidWindow
        | ErrorCode::InvalidLineage
        | ErrorCode::InvalidCursor
        | ErrorCode::InvalidPageSize
        | ErrorCode::InvalidSurface => 400,
        ErrorCode::SearchDisabled => 503,
        ErrorCode::CorruptSession
        | ErrorCode::PersistenceFailure
        | ErrorCode::IndexBuildFailure
        | ErrorCode::Aborted => 500,
    }
}

/// Reads the request line and headers (at most 64 KB); the body, if any, is ignored.
fn read_request(stream: &TcpStream) -> Result<Option<Request>, String> {
    let mut reader = BufReader::new(stream.take(64 * 1024));
    let mut line = String::new();
    if reader.read_line(&mut line).map_err(|e| e.to_string())? == 0 {
        return Ok(None);
    }
    let mut it = line.split_whitespace();
    let (Some(method), Some(target)) = (it.next(), it.next()) else {
        return Err("malformed request line".into());
    };
    let (path, query) = target.split_once('?').unwrap_or((target, ""));
    let mut host = None;
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h).map_err(|e| e.to_string())? == 0 {
            break;
        }
        let h = h.trim_end();
        if h.is_empty() {
            break;
        }
        if let Some((name, value)) = h.split_once(':') {
            if name.eq_ignore_ascii_case("host") {
                host = Some(value.trim().to_string());
            }
        }
    }
    Ok(Some(Request {
        method: method.to_string(),
        path: path.to_string(),
        query: query.to_string(),
        host,
    }))
}

fn write_reply(stream: &mut TcpStream, r: &Reply, head_only: bool) -> std::io::Result<()> {
    let reason = match r.status {
        200 => "OK",
        400 => "Bad Request",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        409 => "Conflict",
        503 => "Service Unavailable",
        _ => "Internal Server Error",
    };
    let mut head = format!(
        "HTTP/1.1 {} {reason}\r\nContent-Type: {}\r\nContent-Length: {}\r\nConnection: close\r\n\
         Content-Security-Policy: {CSP}\r\nX-Content-Type-Options: nosniff\r\n\
         Referrer-Policy: no-referrer\r\nX-Frame-Options: DENY\r\n",
        r.status,
        r.content_type,
        r.body.len()
    );
    for (k, v) in &r.extra {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes())?;
    if !head_only {
        stream.write_all(&r.body)?;
    }
    stream.flush()
}

/// `a=1&b=x%20y` → pairs, percent- and `+`-decoded.
fn parse_query(q: &str) -> Vec<(String, String)> {
    q.split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            (
                percent_decode(&k.replace('+', " ")),
                percent_decode(&v.replace('+', " ")),
            )
        })
        .collect()
}

/// Decodes `%XX` escapes (invalid escapes are kept as they are; invalid UTF-8 becomes U+FFFD).
fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = |c: u8| (c as char).to_digit(16);
        match (
            b.get(i),
            b.get(i + 1).copied().and_then(hex),
            b.get(i + 2).copied().and_then(hex),
        ) {
            (Some(b'%'), Some(h), Some(l)) => {
                out.push((h * 16 + l) as u8);
                i += 3;
            }
            (Some(&c), _, _) => {
                out.push(c);
                i += 1;
            }
            (None, _, _) => break,
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::{html_attr, loopback_ip, parse_query, percent_decode};

    #[test]
    fn decodes_queries() {
        assert_eq!(percent_decode("claude%3Aabc"), "claude:abc");
        assert_eq!(percent_decode("%E4%BC%9A%zz"), "会%zz");
        let q = parse_query("q=a+b%20c&regex=1&&x");
        assert_eq!(q[0], ("q".to_string(), "a b c".to_string()));
        assert_eq!(q[1], ("regex".to_string(), "1".to_string()));
        assert_eq!(q[2], ("x".to_string(), String::new()));
    }

    #[test]
    fn loopback_only() {
        assert!(loopback_ip("127.0.0.1").is_ok());
        assert!(loopback_ip("localhost").is_ok());
        assert!(loopback_ip("::1").is_ok());
        assert!(loopback_ip("0.0.0.0").is_err());
        assert!(loopback_ip("192.168.1.2").is_err());
    }

    #[test]
    fn escapes_attributes() {
        assert_eq!(
            html_attr(r#"/a "b" <c>&"#),
            "/a &quot;b&quot; &lt;c&gt;&amp;"
        );
    }
}
