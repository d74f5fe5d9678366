//! A team archive of scry sessions on PostgreSQL (issue 22): each machine pushes its local
//! index ([`push::push`]), every front end can read the shared store ([`read`]) and gets the
//! same report types as from the local index, each session carrying its `machine`.
//!
//! - [`connect`]: one connection from a `postgres://` URL; failures are one line naming host,
//!   database and cause (refused, authentication, unknown database, a certificate that does not
//!   verify), never a panic.
//! - [`tls`]: rustls for `sslmode=prefer` / `require` / `verify-ca` / `verify-full` and
//!   `sslrootcert=` (a private CA), as libpq reads them.
//! - [`schema`]: the tables, versioned by [`schema::SCHEMA_VERSION`], created and migrated by
//!   the pusher; readers only check the version, so a read-only role is enough for them.
//! - [`push`]: mirrors the local index, one transaction per session, only changed sessions.
//! - [`index`]: the team store as scry-query's [`scry_store::SessionIndex`] (read-only), what
//!   the front ends' per-session reads and search go through.
//! - [`read`]: list, show, turns and search from the team store; [`inside`]: turn, events,
//!   the ledgers and usage.
//! - [`pool`]: open stores kept between a server's requests.
//! - [`cluster`]: a private PostgreSQL cluster for tests (initdb in a temporary directory).

pub mod cluster;
pub mod connect;
pub mod index;
pub mod inside;
pub mod pool;
pub mod push;
pub mod read;
pub mod schema;
mod stored;
pub mod tls;

pub use connect::{connect, Target};
pub use push::{push, PushOptions, PushReport};
