//! Integration tests of the `scry` binary: one test binary, one module per theme. Every run is
//! hermetic (`env_clear()`, `HOME` pinned, `TZ=UTC`).

mod adversarial;
mod browser;
mod demo;
mod errors;
mod facts;
mod http;
mod index_cli;
mod inspect;
mod list;
mod paging;
mod parity;
mod readonly;
mod sources;
mod util;
