//! The `scry` command line: parses the arguments, runs one command, and turns the outcome into
//! output and an exit code (0 ok, 1 runtime failure, 2 usage error, 3 not found / ambiguous).

mod app;
mod catalog;
mod cli;
mod commands;
mod demo;
mod error;
mod filter;
mod indexed;
mod page;
mod raw;
mod render;
mod selection;
mod session_read;
mod stats;
mod turn_build;
mod turn_render;

fn main() {
    std::process::exit(app::run());
}
