//! `scry watch` (issue 16): keeps the index current from file notifications in the foreground
//! until Ctrl-C / SIGTERM, holding the freshness lease meanwhile so read commands skip their
//! own check ([`scry_watch`]). One line when ready (what it watches, how many roots are polled
//! or not present yet); then one line per applied change (`--json`: one JSON object per line).
//! A second watcher on the same index says which process runs and exits 0.
//!
//! [`in_process`] runs the same watcher on a thread of `scry serve`, `scry web` and `scry mcp`,
//! which note on stderr what it does.

use std::io::Write;

use clap::Args;
use scry_model::ErrorCode;
use scry_watch::{Note, Options, Outcome, RootMode, RootState, Stopper, Watcher};
use serde::Serialize;

use crate::ctx::Ctx;
use crate::error::{CliError, CliResult};
use crate::indexed;
use crate::output::Output;

/// Arguments of `scry watch` (the global `--exclude-*` flags and the config file choose what is
/// left out, as for every command).
#[derive(Debug, Args)]
pub struct WatchArgs {}

/// The watcher's options for this invocation; `None` with `--no-index`.
fn options(ctx: &Ctx) -> Option<Options> {
    Some(Options {
        // The directory it was started in is not a root: a watcher serves commands run anywhere
        // (Aider's histories under a command's own directory are refreshed by that command).
        env: ctx.env.clone().without_cwd(),
        exclusions: (*ctx.exclusions).clone(),
        db: indexed::db_path(ctx)?,
    })
}

/// Runs `scry watch` until interrupted.
pub fn run(ctx: &Ctx, _args: &WatchArgs) -> CliResult<Output> {
    let Some(opts) = options(ctx) else {
        return Err(CliError::usage(
            ErrorCode::InvalidFilter,
            "`watch` keeps the index current; drop --no-index",
        ));
    };
    let index = opts.db.clone();
    let signals = Signals::install()?;
    let json = ctx.json;
    let watcher = Watcher::spawn(opts, move |note| print(&note, json, &index));
    signals.stop_on_signal(watcher.stopper());
    match watcher.join() {
        Outcome::Stopped | Outcome::Held(_) => Ok(Output::default()),
        Outcome::Failed(message) => Err(CliError::new(ErrorCode::PersistenceFailure, message)),
    }
}

/// Prints one note of the foreground watcher.
/// `watch --json`'s first line: what the watcher keeps current.
#[derive(Serialize)]
struct Ready<'a> {
    event: &'static str,
    index: &'a std::path::Path,
    sources: usize,
    watched: usize,
    polled: usize,
    waiting: usize,
    roots: &'a [RootState],
    took_ms: u128,
}

/// A `watch --json` line of another watcher holding the index.
#[derive(Serialize)]
struct Running<'a> {
    event: &'static str,
    pid: u32,
    index: &'a std::path::Path,
}

/// A `watch --json` line: `body`'s fields and the `event` that names it.
#[derive(Serialize)]
struct Tagged<'a, T: Serialize> {
    event: &'static str,
    #[serde(flatten)]
    body: &'a T,
}

/// One JSON line, keys in the order every scry JSON has (sorted, as `serde_json::Value` keeps
/// them).
fn line<T: Serialize>(v: &T) -> String {
    serde_json::to_value(v).unwrap_or_default().to_string()
}

fn print(note: &Note, json: bool, index: &std::path::Path) {
    let line = match note {
        Note::Ready { roots, files, took } => {
            let (w, p, a) = counts(roots);
            if json {
                line(&Ready {
                    event: "ready",
                    index,
                    sources: *files,
                    watched: w,
                    polled: p,
                    waiting: a,
                    roots,
                    took_ms: took.as_millis(),
                })
            } else {
                format!(
                    "scry watch: keeping {} current ({files} sources): {w} roots watched, {p} polled, {a} not present yet",
                    index.display()
                )
            }
        }
        Note::Change(c) => {
            if json {
                line(&Tagged {
                    event: "change",
                    body: c,
                })
            } else {
                let kind = serde_json::to_value(c.change)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_string))
                    .unwrap_or_default();
                format!("{kind} {} {} {}", c.provider, c.id, c.path.display())
            }
        }
        Note::Root(r) => {
            if json {
                line(&Tagged {
                    event: "root",
                    body: r,
                })
            } else {
                format!("root {} ({}): {}", r.path.display(), r.provider, mode(r))
            }
        }
        Note::Held(l) => {
            if json {
                line(&Running {
                    event: "running",
                    pid: l.pid,
                    index,
                })
            } else {
                format!(
                    "scry watch: a watcher already keeps {} current (pid {}); nothing to do",
                    index.display(),
                    l.pid
                )
            }
        }
        Note::Warning(w) => {
            eprintln!("warning: {w}");
            return;
        }
    };
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

fn mode(r: &RootState) -> String {
    match (r.mode, &r.reason) {
        (RootMode::Watched, _) => "watched".into(),
        (RootMode::Polled, Some(why)) => format!("polled ({why})"),
        (RootMode::Polled, None) => "polled".into(),
        (RootMode::Waiting, _) => "not present".into(),
    }
}

/// Roots watched, polled, waiting.
fn counts(roots: &[RootState]) -> (usize, usize, usize) {
    let n = |m: RootMode| roots.iter().filter(|r| r.mode == m).count();
    (
        n(RootMode::Watched),
        n(RootMode::Polled),
        n(RootMode::Waiting),
    )
}

/// The watcher `scry serve` / `web` / `mcp` run on a thread (`None` with `--no-index` or
/// `--demo`); it notes on stderr when it is ready or relies on another process's watcher.
/// Dropping it stops it and releases the lease.
pub fn in_process(ctx: &Ctx, who: &'static str) -> Option<Watcher> {
    if ctx.demo {
        return None;
    }
    let opts = options(ctx)?;
    Some(Watcher::spawn(opts, move |note| match note {
        Note::Ready { roots, files, .. } => {
            let (w, p, a) = counts(&roots);
            eprintln!(
                "scry {who}: keeping the index current ({files} sources; {w} roots watched, {p} polled, {a} not present yet)"
            );
        }
        Note::Held(l) => {
            eprintln!(
                "scry {who}: the watcher of pid {} keeps the index current",
                l.pid
            );
        }
        Note::Warning(w) => eprintln!("scry {who}: warning: {w}"),
        Note::Change(_) | Note::Root(_) => {}
    }))
}

/// SIGINT and SIGTERM, caught from before the watcher starts.
struct Signals {
    runtime: tokio::runtime::Runtime,
    #[cfg(unix)]
    streams: (tokio::signal::unix::Signal, tokio::signal::unix::Signal),
}

impl Signals {
    fn install() -> CliResult<Signals> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| {
                CliError::new(ErrorCode::Aborted, format!("cannot start the runtime: {e}"))
            })?;
        #[cfg(unix)]
        let streams = {
            use tokio::signal::unix::{signal, SignalKind};
            let _guard = runtime.enter();
            let catch = |kind| {
                signal(kind).map_err(|e| {
                    CliError::new(ErrorCode::Aborted, format!("cannot catch signals: {e}"))
                })
            };
            (
                catch(SignalKind::interrupt())?,
                catch(SignalKind::terminate())?,
            )
        };
        Ok(Signals {
            runtime,
            #[cfg(unix)]
            streams,
        })
    }

    /// Stops the watcher on the first signal (from a thread of its own).
    fn stop_on_signal(self, stop: Stopper) {
        std::thread::spawn(move || {
            let Signals {
                runtime,
                #[cfg(unix)]
                mut streams,
            } = self;
            runtime.block_on(async move {
                #[cfg(unix)]
                tokio::select! {
                    _ = streams.0.recv() => {}
                    _ = streams.1.recv() => {}
                }
                #[cfg(not(unix))]
                let _ = tokio::signal::ctrl_c().await;
            });
            stop.stop();
        });
    }
}
