//! The `scry` command line: parses the arguments, runs one command, and turns the outcome into
//! output and an exit code (0 ok, 1 runtime failure, 2 usage error, 3 not found / ambiguous).

mod app;
mod cli;
mod commands;
mod ctx;
mod demo;
mod door;
mod error;
mod http;
#[cfg(test)]
mod layering;
mod output;
mod pager;
mod progress;
mod render;
mod turn_render;

// The data access lives in the query crate (the one door to sessions for every front end);
// these names keep `crate::catalog::…` and friends working in the command files.
#[allow(unused_imports)]
use scry_query::{catalog, filter, indexed, page, raw, selection, session_read, stats, turn_build};

fn main() {
    std::process::exit(app::run());
}
