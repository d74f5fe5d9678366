//! The freshness lease (issue 16): a watcher (`scry watch`, or the one `scry serve` / `web` /
//! `mcp` run in-process) that keeps the index current records itself in the index's `meta`
//! table — holder pid, start and heartbeat times, a digest of the roots and exclusions it
//! watches, and how many roots it watches or polls. While a live lease's digest equals a read
//! command's own, the command answers from the index without its freshness check.
//!
//! A lease is live while its heartbeat is younger than [`LEASE_TTL`] (a few [`HEARTBEAT`]s)
//! and, on Linux, its pid still runs (`/proc/<pid>`): a watcher killed with SIGKILL stops
//! counting at once, a stopped or hung one after [`LEASE_TTL`]. Taking the lease is one
//! `BEGIN IMMEDIATE` transaction, so two watchers cannot both hold it.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rusqlite::{params, OptionalExtension};

use crate::error::{Result, StoreError};
use crate::Store;

/// How often the holder renews the lease.
pub const HEARTBEAT: Duration = Duration::from_secs(2);
/// Age of the last heartbeat after which a lease is dead even if its pid still runs.
pub const LEASE_TTL: Duration = Duration::from_secs(10);

/// The `meta` keys of the lease, in [`Lease`]'s field order.
const KEYS: [&str; 7] = [
    "lease_pid",
    "lease_started_ms",
    "lease_heartbeat_ms",
    "lease_digest",
    "lease_watched",
    "lease_polled",
    "lease_waiting",
];

/// A lease as stored (live or not: see [`Lease::is_live`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Lease {
    /// Process id of the holder.
    pub pid: u32,
    /// When the holder took the lease (ms since the Unix epoch).
    pub started_ms: i64,
    /// The holder's last heartbeat (ms since the Unix epoch).
    pub heartbeat_ms: i64,
    /// Digest of the roots and exclusions the holder watches.
    pub digest: i64,
    /// Roots kept current from OS notifications.
    pub watched: u32,
    /// Existing roots that could not be watched and are checked periodically instead.
    pub polled: u32,
    /// Roots that do not exist (yet), checked periodically for appearing.
    pub waiting: u32,
}

/// What [`Store::acquire_lease`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Acquired {
    /// This process holds the lease now.
    Ours,
    /// Another live process holds it.
    HeldBy(Lease),
}

/// Milliseconds since the Unix epoch, now.
pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}

/// Whether process `pid` runs (on Linux via `/proc`; elsewhere assumed, the heartbeat decides).
pub fn pid_alive(pid: u32) -> bool {
    if cfg!(target_os = "linux") {
        std::path::Path::new(&format!("/proc/{pid}")).exists()
    } else {
        true
    }
}

impl Lease {
    /// Milliseconds since the last heartbeat at `now_ms` (0 for a clock that went back).
    pub fn age_ms(&self, now_ms: i64) -> i64 {
        (now_ms - self.heartbeat_ms).max(0)
    }

    /// Whether the lease counts at `now_ms`: a fresh heartbeat and a running holder.
    pub fn is_live(&self, now_ms: i64) -> bool {
        let ttl = i64::try_from(LEASE_TTL.as_millis()).unwrap_or(i64::MAX);
        self.age_ms(now_ms) < ttl && now_ms >= self.heartbeat_ms - ttl && pid_alive(self.pid)
    }
}

/// Reads the lease rows; `None` when there is none (or a row is missing).
fn read(conn: &rusqlite::Connection) -> Result<Option<Lease>> {
    let mut v = [0i64; 7];
    let mut st = conn
        .prepare_cached("SELECT value FROM meta WHERE key = ?1")
        .map_err(StoreError::db("read lease"))?;
    for (slot, key) in v.iter_mut().zip(KEYS) {
        match st
            .query_row([key], |r| r.get::<_, i64>(0))
            .optional()
            .map_err(StoreError::db("read lease"))?
        {
            Some(x) => *slot = x,
            None => return Ok(None),
        }
    }
    let u = |x: i64| u32::try_from(x).unwrap_or(0);
    Ok(Some(Lease {
        pid: u(v[0]),
        started_ms: v[1],
        heartbeat_ms: v[2],
        digest: v[3],
        watched: u(v[4]),
        polled: u(v[5]),
        waiting: u(v[6]),
    }))
}

fn write(conn: &rusqlite::Connection, l: &Lease) -> Result<()> {
    let values = [
        i64::from(l.pid),
        l.started_ms,
        l.heartbeat_ms,
        l.digest,
        i64::from(l.watched),
        i64::from(l.polled),
        i64::from(l.waiting),
    ];
    let mut st = conn
        .prepare_cached(
            "INSERT INTO meta(key, value) VALUES(?1, ?2)
             ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        )
        .map_err(StoreError::db("write lease"))?;
    for (key, value) in KEYS.iter().zip(values) {
        st.execute(params![key, value])
            .map_err(StoreError::db("write lease"))?;
    }
    Ok(())
}

/// A write transaction (`BEGIN IMMEDIATE`), rolled back when dropped uncommitted.
struct Tx<'c>(&'c rusqlite::Connection);

impl<'c> Tx<'c> {
    fn begin(conn: &'c rusqlite::Connection) -> Result<Self> {
        conn.execute_batch("BEGIN IMMEDIATE")
            .map_err(StoreError::db("begin lease transaction"))?;
        Ok(Tx(conn))
    }

    fn commit(self) -> Result<()> {
        self.0
            .execute_batch("COMMIT")
            .map_err(StoreError::db("commit lease"))
    }
}

impl Drop for Tx<'_> {
    fn drop(&mut self) {
        if !self.0.is_autocommit() {
            let _ = self.0.execute_batch("ROLLBACK");
        }
    }
}

impl Store {
    /// The lease recorded in the index, live or not.
    pub fn lease(&self) -> Result<Option<Lease>> {
        read(&self.conn)
    }

    /// Takes the lease for this process (watching roots with `digest`; `watched` / `polled` /
    /// `waiting` roots) unless another live process holds it. Re-taking one's own lease
    /// refreshes it.
    pub fn acquire_lease(
        &self,
        digest: i64,
        watched: u32,
        polled: u32,
        waiting: u32,
    ) -> Result<Acquired> {
        let me = std::process::id();
        let guard = Tx::begin(&self.conn)?;
        let now = now_ms();
        if let Some(held) = read(&self.conn)? {
            if held.pid != me && held.is_live(now) {
                return Ok(Acquired::HeldBy(held));
            }
        }
        write(
            &self.conn,
            &Lease {
                pid: me,
                started_ms: now,
                heartbeat_ms: now,
                digest,
                watched,
                polled,
                waiting,
            },
        )?;
        guard.commit()?;
        Ok(Acquired::Ours)
    }

    /// Renews this process's lease (heartbeat now, current root counts). `false` when the
    /// lease is no longer this process's (taken over after it expired, or the index was
    /// replaced): the caller should [`Store::acquire_lease`] again.
    pub fn renew_lease(&self, watched: u32, polled: u32, waiting: u32) -> Result<bool> {
        let guard = Tx::begin(&self.conn)?;
        match read(&self.conn)? {
            Some(mut l) if l.pid == std::process::id() => {
                l.heartbeat_ms = now_ms();
                l.watched = watched;
                l.polled = polled;
                l.waiting = waiting;
                write(&self.conn, &l)?;
                guard.commit()?;
                Ok(true)
            }
            _ => Ok(false),
        }
    }

    /// Gives up this process's lease (nothing when another process holds it).
    pub fn release_lease(&self) -> Result<()> {
        let guard = Tx::begin(&self.conn)?;
        if read(&self.conn)?.is_some_and(|l| l.pid == std::process::id()) {
            let mut st = self
                .conn
                .prepare_cached("DELETE FROM meta WHERE key = ?1")
                .map_err(StoreError::db("release lease"))?;
            for key in KEYS {
                st.execute([key]).map_err(StoreError::db("release lease"))?;
            }
        }
        guard.commit()
    }
}

/// The lease recorded in the index at `path`, read over a read-only connection (for `doctor`,
/// which never writes to the index). `None` when there is none or the index cannot be read.
pub fn lease_at(path: &std::path::Path) -> Option<Lease> {
    let conn = crate::integrity::read_only(path)?;
    read(&conn).ok().flatten()
}
