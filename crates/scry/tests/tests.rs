//! Integration tests of the `scry` binary: one test binary, one module per theme. Every run is
//! hermetic (`env_clear()`, `HOME` pinned, `TZ=UTC`).

mod adversarial;
mod adversarial_gen;
mod browser;
mod demo;
mod errors;
mod events;
mod export;
mod facts;
mod facts_index;
mod hardening_dupes;
mod hardening_index;
mod hardening_misc;
mod hardening_redact;
mod hardening_resolve;
mod hardening_serve;
mod http;
mod index_cli;
mod inspect;
mod list;
mod list_sql;
mod mcp;
mod paging;
mod parity;
mod readonly;
mod readonly_os;
mod resume;
mod skill;
mod sources;
mod timed;
mod util;
