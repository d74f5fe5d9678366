//! `files` (S-C6, S-F3): the files ledger of one session — every write event (observed from
//! file tools, derived from shell commands), grouped project / runtime / log, with the distinct
//! files per group. The counts are the overview's (`show`).

use scry_facts::files::FileSummary;
use scry_facts::{Facts, FileGroup, FileWrite, GroupCounts};
use scry_model::{Header, Session, Warning};
use serde::{Deserialize, Serialize};

use crate::{Context, QueryResult};

/// Which group of files a request wants.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum GroupFilter {
    /// Under the session's working directory.
    Project,
    /// Temp files, caches, home dotfiles, remote hosts.
    Runtime,
    /// Log files.
    Log,
    /// Every group.
    #[default]
    All,
}

impl GroupFilter {
    /// Every value, in the order the CLI lists them.
    pub const ALL: [GroupFilter; 4] = [
        GroupFilter::Project,
        GroupFilter::Runtime,
        GroupFilter::Log,
        GroupFilter::All,
    ];

    /// The one group, or `None` for every group.
    pub fn group(self) -> Option<FileGroup> {
        match self {
            GroupFilter::Project => Some(FileGroup::Project),
            GroupFilter::Runtime => Some(FileGroup::Runtime),
            GroupFilter::Log => Some(FileGroup::Log),
            GroupFilter::All => None,
        }
    }

    /// Its name (`project`, `runtime`, `log`, `all`).
    pub fn as_str(self) -> &'static str {
        match self.group() {
            Some(g) => g.as_str(),
            None => "all",
        }
    }

    /// The value named `s` (exact, lower case).
    pub fn parse(s: &str) -> Option<GroupFilter> {
        GroupFilter::ALL.into_iter().find(|g| g.as_str() == s)
    }
}

/// What `files` is asked.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct FilesRequest {
    /// Session: full id, provider:id, a unique prefix (≥ 6 characters), or a file path
    pub id: String,
    /// Which files: project, runtime, log, or all
    #[serde(default)]
    #[cfg_attr(feature = "cli", arg(long, value_enum, default_value = "all"))]
    pub group: GroupFilter,
    /// Read earlier revision N of the session, kept by the index when its source was rewritten
    /// shorter or changed (1 = the most recent; 0 = the current session)
    #[serde(default)]
    #[cfg_attr(feature = "cli", arg(long, value_name = "N", default_value_t = 0))]
    pub revision: u32,
}

/// Write events and distinct files per group.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct FileCounts {
    /// Write events per group.
    pub write_events: GroupCounts,
    /// Distinct files per group.
    pub files: GroupCounts,
}

/// The answer of [`files`] (`scry files --json`).
#[derive(Debug, Clone, Serialize)]
pub struct FilesReport {
    /// The session header.
    #[serde(serialize_with = "super::ser_header")]
    pub session: Header,
    /// The group shown.
    pub group: GroupFilter,
    /// The write events of that group, in order.
    pub writes: Vec<FileWrite>,
    /// The distinct files of that group.
    pub files: Vec<FileSummary>,
    /// Counts over every group.
    pub counts: FileCounts,
    /// Reading warnings.
    #[serde(serialize_with = "super::ser_warnings")]
    pub warnings: Vec<Warning>,
}

/// The files ledger of `req.id`.
pub fn files(ctx: &Context, req: &FilesRequest) -> QueryResult<FilesReport> {
    let mut l = super::load_ledgers(ctx, &req.id)?;
    super::use_index(ctx, &mut l);
    Ok(files_of(req, l.session, &l.facts))
}

/// [`files`] of a session already read (header and warnings) with its facts.
pub fn files_of(req: &FilesRequest, session: Session, facts: &Facts) -> FilesReport {
    let g = req.group.group();
    let ledger = &facts.files;
    FilesReport {
        group: req.group,
        writes: ledger.group(g).into_iter().cloned().collect(),
        files: ledger
            .files()
            .into_iter()
            .filter(|f| g.is_none_or(|g| f.group == g))
            .collect(),
        counts: FileCounts {
            write_events: ledger.write_counts(),
            files: ledger.file_counts(),
        },
        session: session.header,
        warnings: session.warnings,
    }
}
