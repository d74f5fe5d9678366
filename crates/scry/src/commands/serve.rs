//! `scry serve [--host 127.0.0.1] [--port 7777] [--token T] [--reveal]` (S-H1): the HTTP JSON
//! API ([`crate::http`]) on axum + tokio. Loopback by default; a non-loopback bind without a
//! token is refused (usage error, exit 2), and so is `--reveal` off loopback. Prints the
//! address it listens on (first line of stdout; `--port 0` picks a free port) and serves until
//! interrupted (Ctrl-C / SIGINT ends it cleanly). The server's limits (header and request
//! timeouts, caps on connections and requests, a bounded worker pool; `SCRY_SERVE_*` environment
//! variables) are in [`crate::http::server`]; `scry web` runs under the same ones.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};

use clap::Args;
use scry_model::ErrorCode;

use crate::ctx::Ctx;
use crate::error::{CliError, CliResult};
use crate::http::{self, ApiOptions};
use crate::output::Output;

/// Arguments of `scry serve`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Address to listen on (an IP address or `localhost`); non-loopback needs --token
    #[arg(long, default_value = "127.0.0.1")]
    pub host: String,
    /// Port to listen on (0 picks a free one)
    #[arg(long, default_value_t = 7777)]
    pub port: u16,
    /// Require `Authorization: Bearer <T>` on every request
    #[arg(
        long,
        value_name = "T",
        env = "SCRY_SERVE_TOKEN",
        hide_env_values = true
    )]
    pub token: Option<String>,
    /// Serve session text unredacted (loopback only)
    #[arg(long)]
    pub reveal: bool,
}

/// The address `--host` names: an IP address, or `localhost` (127.0.0.1).
fn bind_ip(host: &str) -> CliResult<IpAddr> {
    if host.eq_ignore_ascii_case("localhost") {
        return Ok(IpAddr::V4(Ipv4Addr::LOCALHOST));
    }
    host.trim_start_matches('[')
        .trim_end_matches(']')
        .parse()
        .map_err(|_| {
            CliError::usage(
                ErrorCode::InvalidQuery,
                format!("--host '{host}' is not an IP address or localhost"),
            )
        })
}

/// The checked options for a bind: refuses a non-loopback address without a token, and
/// `--reveal` off loopback.
pub fn options(args: &ServeArgs) -> CliResult<(IpAddr, ApiOptions)> {
    let ip = bind_ip(&args.host)?;
    let token = args.token.clone().filter(|t| !t.is_empty());
    if !ip.is_loopback() && token.is_none() {
        return Err(CliError::usage(
            ErrorCode::InvalidQuery,
            format!(
                "refusing to serve on non-loopback address {ip} without a token: anyone who can reach it could read every session; give --token T (or SCRY_SERVE_TOKEN)"
            ),
        ));
    }
    if args.reveal && !ip.is_loopback() {
        return Err(CliError::usage(
            ErrorCode::InvalidQuery,
            format!("--reveal is only allowed on a loopback address, not {ip}"),
        ));
    }
    Ok((ip, ApiOptions::for_bind(&args.host, ip, token, args.reveal)))
}

/// Runs `scry serve` until interrupted.
pub fn run(ctx: &Ctx, args: &ServeArgs) -> CliResult<Output> {
    let (ip, mut opts) = options(args)?;
    opts.store.clone_from(&ctx.store);
    let app = http::serve_router(ctx.query.clone(), opts);
    // Keeps the index current while serving (stopped and its lease released on return).
    let _watcher = super::watch::in_process(ctx, "serve");
    http::run(SocketAddr::new(ip, args.port), app, |local| {
        format!("scry serve: listening on http://{local}")
    })?;
    Ok(Output::default())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(host: &str, token: Option<&str>, reveal: bool) -> ServeArgs {
        ServeArgs {
            host: host.into(),
            port: 0,
            token: token.map(str::to_string),
            reveal,
        }
    }

    #[test]
    fn non_loopback_needs_a_token_and_never_reveals() {
        assert!(options(&args("127.0.0.1", None, true)).is_ok());
        assert!(options(&args("localhost", None, false)).is_ok());
        assert!(options(&args("::1", None, false)).is_ok());
        let e = options(&args("0.0.0.0", None, false)).unwrap_err();
        assert_eq!(e.exit_code(), 2);
        assert!(options(&args("0.0.0.0", Some("t"), false)).is_ok());
        assert!(options(&args("0.0.0.0", Some("t"), true)).is_err());
        assert!(options(&args("example.org", Some("t"), false)).is_err());
    }
}
