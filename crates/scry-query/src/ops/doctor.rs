//! `doctor` (issue 18: a typed query operation): the health of every source (scry-sources'
//! [`scry_sources::doctor`]: roots, files found / excluded / parsed / failed, warnings, the
//! slowest file) and of the index — its state (`PRAGMA quick_check`, read-only), the watcher
//! that keeps it current, and the archive of sessions whose source is gone. The CLI renders
//! its text from the [`DoctorReport`]; `--json` serializes it.
//!
//! Not served over HTTP or MCP: it parses every source of every provider (the API bounds a
//! request's time) and reports the home, the config path and the environment's roots.

use std::path::PathBuf;

use scry_sources::{doctor as check_sources, registry, DoctorReport as SourcesReport};
use scry_store::{ArchiveStats, IndexHealth, RevisionStats};
use serde::{Deserialize, Serialize};

use crate::Context;

/// What `doctor` is asked: nothing (exclusions come from the context: the global
/// `--exclude-*` flags and the config file).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct DoctorRequest {}

/// The index of a [`DoctorReport`].
#[derive(Debug, Clone, Serialize)]
pub struct IndexReport {
    /// Where it is (lossy where not UTF-8).
    #[serde(serialize_with = "scry_model::lossy::path")]
    pub path: PathBuf,
    /// `missing`, `ok`, `damaged` or `not_an_index`.
    pub status: &'static str,
    /// Why (an earlier release's index, SQLite's words on the damage, why it is no index).
    pub detail: Option<String>,
    /// The state as the store reports it.
    #[serde(skip)]
    pub health: IndexHealth,
}

/// The watcher of a [`DoctorReport`]: the freshness lease recorded in the index.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct WatcherReport {
    /// Process id of the holder.
    pub pid: u32,
    /// Whether it still renews the lease (and runs).
    pub live: bool,
    /// Milliseconds since its last heartbeat.
    pub heartbeat_age_ms: i64,
    /// Roots kept current from OS notifications.
    pub watched: u32,
    /// Roots checked periodically instead.
    pub polled: u32,
    /// Roots that do not exist yet.
    pub waiting: u32,
}

/// The answer of [`doctor`] (`scry doctor --json`): the sources' report, and the index's
/// `index`, `watcher`, `archive` and `revisions` (`null` when there is none: `--no-index`, no lease, an
/// index that cannot be read).
#[derive(Debug, Clone, Serialize)]
pub struct DoctorReport {
    /// Every source's health.
    #[serde(flatten)]
    pub sources: SourcesReport,
    /// The index (`None` with `--no-index`).
    pub index: Option<IndexReport>,
    /// The watcher keeping the index current, if one ever held the lease.
    pub watcher: Option<WatcherReport>,
    /// Sessions whose source is gone, kept by a healthy index.
    pub archive: Option<ArchiveStats>,
    /// Earlier revisions of rewritten sources, kept by a healthy index (issue 20).
    pub revisions: Option<RevisionStats>,
}

/// Checks every source and the index (read-only: doctor never writes to the index).
pub fn doctor(ctx: &Context, _req: &DoctorRequest) -> DoctorReport {
    let sources = check_sources(&ctx.env, &registry(), &ctx.exclusions);
    let index = crate::indexed::db_path(ctx).map(|path| {
        let health = scry_store::inspect(&path);
        let (status, detail) = match &health {
            IndexHealth::Missing => ("missing", None),
            IndexHealth::Healthy { legacy: false } => ("ok", None),
            IndexHealth::Healthy { legacy: true } => {
                ("ok", Some("made by an earlier release".to_string()))
            }
            IndexHealth::Damaged(d) => ("damaged", Some(d.clone())),
            IndexHealth::NotAnIndex(r) => ("not_an_index", Some(r.clone())),
        };
        IndexReport {
            path,
            status,
            detail,
            health,
        }
    });
    let healthy = index
        .as_ref()
        .filter(|i| matches!(i.health, IndexHealth::Healthy { .. }));
    let now = scry_store::now_ms();
    let watcher = healthy
        .and_then(|i| scry_store::lease_at(&i.path))
        .map(|l| WatcherReport {
            pid: l.pid,
            live: l.is_live(now),
            heartbeat_age_ms: l.age_ms(now),
            watched: l.watched,
            polled: l.polled,
            waiting: l.waiting,
        });
    let archive = healthy.and_then(|i| scry_store::archive_at(&i.path));
    let revisions = healthy.and_then(|i| scry_store::revisions_at(&i.path));
    DoctorReport {
        sources,
        index,
        watcher,
        archive,
        revisions,
    }
}
