//! `scry web [--open] [--scope …] [--host 127.0.0.1] [--port 7780] [--redact]` (S-H2): the local
//! web page (`crates/scry/web/`, embedded in the binary) and, on the same axum server, the HTTP
//! API of `scry serve` ([`http::api_router`]): the page reads sessions through exactly the
//! routes, guards and JSON every other front end uses (SPEC §7, S-H1).
//!
//! The page's own routes (`/`, `/index.html`, `/assets/…`) sit behind the same guards as the
//! API ([`http::front_router`]): the `Host` header must name a loopback host (DNS rebinding),
//! GET / HEAD only (405 otherwise), one request-log line on stderr per request (method, path,
//! status, time; never a query string or session text), JSON 404 for unknown paths. The page
//! is served with a strict Content-Security-Policy (its own scripts, style sheet and JSON;
//! no external request of any kind). Unlike `scry serve`, `scry web` listens on loopback only
//! (no token) and shows session text unredacted — as `scry serve --reveal`, its only use being
//! the person at this machine reading their own sessions; `--redact` redacts as `serve` does.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use axum::body::Body;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use clap::Args;
use scry_model::ErrorCode;

use crate::ctx::Ctx;
use crate::error::{CliError, CliResult};
use crate::http::{self, ApiOptions};
use crate::output::Output;

const INDEX_HTML: &str = include_str!("../../web/index.html");

const JS: &str = "text/javascript; charset=utf-8";

/// Everything under `/assets/`: name, content type, bytes. The scripts are ES modules that
/// import each other by relative path (`./api.js`); `app.js` is the entry.
const ASSETS: &[(&str, &str, &str)] = &[
    ("app.js", JS, include_str!("../../web/app.js")),
    ("api.js", JS, include_str!("../../web/api.js")),
    ("dom.js", JS, include_str!("../../web/dom.js")),
    ("nav.js", JS, include_str!("../../web/nav.js")),
    ("list.js", JS, include_str!("../../web/list.js")),
    ("search.js", JS, include_str!("../../web/search.js")),
    ("session.js", JS, include_str!("../../web/session.js")),
    ("side.js", JS, include_str!("../../web/side.js")),
    ("ref.js", JS, include_str!("../../web/ref.js")),
    ("live.js", JS, include_str!("../../web/live.js")),
    ("usage.js", JS, include_str!("../../web/usage.js")),
    (
        "style.css",
        "text/css; charset=utf-8",
        include_str!("../../web/style.css"),
    ),
];

/// The page may load its own scripts, style sheet and JSON, and nothing else.
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
    /// Redact secrets in session text, as `scry serve` does without --reveal
    #[arg(long)]
    pub redact: bool,
}

/// Runs `scry web`: listens, prints the page's address, and serves until interrupted.
pub fn run(ctx: &Ctx, args: &WebArgs) -> CliResult<Output> {
    let ip = loopback_ip(&args.host)?;
    let mut opts = ApiOptions::for_bind(&args.host, ip, None, !args.redact);
    // `--store`: the page reads the team store through the same routes as `serve --store`.
    opts.store.clone_from(&ctx.store);
    let scope = match args.scope.as_deref() {
        None => "global".to_string(),
        Some("cwd") => ctx.cwd.to_string_lossy().into_owned(),
        Some(s) => s.to_string(),
    };
    let index = INDEX_HTML
        .replace("{{SCOPE}}", &html_attr(&scope))
        .replace("{{DEMO}}", if ctx.demo { "true" } else { "false" })
        .replace("{{VERSION}}", env!("CARGO_PKG_VERSION"));
    let app = http::api_router(ctx.query.clone(), opts.clone())
        .merge(http::front_router(page_routes(index), &opts));
    let open = args.open;
    // Keeps the index current while serving (stopped and its lease released on return).
    let _watcher = super::watch::in_process(ctx, "web");
    http::run(SocketAddr::new(ip, args.port), app, move |local| {
        let url = format!("http://{local}/");
        if open {
            open_browser(&url);
        }
        format!("scry web: {url}")
    })?;
    Ok(Output::default())
}

/// The page (`/`, `/index.html`) and its assets.
fn page_routes(index: String) -> Router {
    let index: Arc<str> = index.into();
    let html = move || {
        let index = Arc::clone(&index);
        async move { page_response("text/html; charset=utf-8", Body::from(index.to_string())) }
    };
    let mut router = Router::new()
        .route("/", get(html.clone()))
        .route("/index.html", get(html));
    for &(name, content_type, text) in ASSETS {
        router = router.route(
            &format!("/assets/{name}"),
            get(move || async move { page_response(content_type, Body::from(text)) }),
        );
    }
    router
}

/// A page or asset with the CSP and the other hardening headers.
fn page_response(content_type: &'static str, body: Body) -> Response {
    let mut r = (StatusCode::OK, body).into_response();
    let h = r.headers_mut();
    for (name, value) in [
        (header::CONTENT_TYPE, content_type),
        (header::CONTENT_SECURITY_POLICY, CSP),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        (header::REFERRER_POLICY, "no-referrer"),
        (header::X_FRAME_OPTIONS, "DENY"),
        (header::CACHE_CONTROL, "no-cache"),
    ] {
        h.insert(name, HeaderValue::from_static(value));
    }
    r
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

#[cfg(test)]
mod tests {
    use super::{html_attr, loopback_ip, ASSETS, INDEX_HTML};

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

    /// Every module a script imports, and every asset the page names, is served.
    #[test]
    fn every_referenced_asset_is_embedded() {
        let served = |name: &str| ASSETS.iter().any(|(n, _, _)| *n == name);
        let mut referenced = 0;
        for (_, _, text) in ASSETS {
            for part in text.split(" from './").skip(1) {
                let name = part.split('\'').next().unwrap_or("");
                assert!(served(name), "imported but not served: {name}");
                referenced += 1;
            }
        }
        for part in INDEX_HTML.split("/assets/").skip(1) {
            let name = part.split('"').next().unwrap_or("");
            assert!(served(name), "named by index.html but not served: {name}");
            referenced += 1;
        }
        assert!(referenced >= ASSETS.len());
        // And nothing is served that nothing uses.
        for (name, _, _) in ASSETS {
            let used = INDEX_HTML.contains(&format!("/assets/{name}\""))
                || ASSETS
                    .iter()
                    .any(|(_, _, t)| t.contains(&format!(" from './{name}'")));
            assert!(used, "served but never loaded: {name}");
        }
    }
}
