//! `digest` (S-C7): one session as a short story — the goal, one line per turn with its status
//! (S-F5), the files changed, the failures and whether they were fixed, and the final state
//! (last successful command, last files written, commits, the last answer). Every number comes
//! from the same ledgers as `show`, `files`, `errors`.
//!
//! `review` (the default) keeps what a reviewer needs: project files only, unfixed failures in
//! full and fixed ones counted. `full` lists every group of files and every failure, with the
//! per-turn command / write counts and the tokens.

use scry_facts::files::FileSummary;
use std::collections::BTreeMap;

use scry_facts::overview::{CommandAnchor, Commit, FileStats, JobStats, Overview};
use scry_facts::{
    overview_counted, overview_from, turn_summaries, Facts, Failure, FileGroup, FileWrite,
    FoldedSession, TurnSummary,
};
use scry_model::{EventKind, Header, Session, TokenUsage, Warning};
use serde::{Deserialize, Serialize, Serializer};
use serde_json::Value;

use crate::{Context, QueryResult};

/// What a digest dwells on.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum Focus {
    /// Project files, unfixed failures, the final state.
    #[default]
    Review,
    /// Everything: every file group, every failure, per-turn counts, tokens.
    Full,
}

impl Focus {
    /// Its name (`review`, `full`).
    pub fn as_str(self) -> &'static str {
        match self {
            Focus::Review => "review",
            Focus::Full => "full",
        }
    }
}

/// What `digest` is asked.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct DigestRequest {
    /// Session: full id, provider:id, a unique prefix (≥ 6 characters), or a file path
    pub id: String,
    /// review (default) or full
    #[serde(default)]
    #[cfg_attr(feature = "cli", arg(long, value_enum, default_value = "review"))]
    pub focus: Focus,
}

/// A computed digest.
#[derive(Debug, Clone)]
pub struct Digest {
    /// Its focus.
    pub focus: Focus,
    /// The session's overview (the counts `show` prints).
    pub overview: Overview,
    /// One summary per turn (the preamble left out).
    pub turns: Vec<TurnSummary>,
    /// The files changed (project files only under `review`).
    pub files: Vec<FileSummary>,
    /// The last non-empty answer.
    pub final_answer: Option<String>,
    /// The session's USD, priced per request as `scry usage` prices it (issue 19).
    pub cost: crate::usage::Cost,
}

fn to_value<T: Serialize>(v: &T) -> Value {
    serde_json::to_value(v).unwrap_or(Value::Null)
}

impl Digest {
    /// The digest of a session read in full.
    pub fn of(session: &Session, facts: &Facts, focus: Focus) -> Digest {
        let overview = overview_from(session, facts);
        let turns = turn_summaries(session, facts)
            .into_iter()
            .filter(|t| t.turn > 0)
            .collect();
        let files = project_files(facts, focus);
        let final_answer = session
            .events
            .iter()
            .rev()
            .find(|e| e.kind == EventKind::Assistant && !e.text.trim().is_empty())
            .map(|e| e.text.clone());
        Digest {
            focus,
            overview,
            turns,
            files,
            final_answer,
            cost: crate::usage::Cost::default(),
        }
    }

    /// The digest of a session whose facts were folded while it streamed (equal to
    /// [`Digest::of`] of the same events).
    pub fn folded(header: &Header, f: &FoldedSession, focus: Focus) -> Digest {
        Digest {
            focus,
            overview: overview_counted(header, &f.counts, &f.facts),
            turns: f.turns.iter().filter(|t| t.turn > 0).cloned().collect(),
            files: project_files(&f.facts, focus),
            final_answer: f.final_answer.clone(),
            cost: crate::usage::Cost::default(),
        }
    }

    /// The typed JSON shape of this digest (borrowed).
    fn shape(&self) -> DigestJson<'_> {
        let o = &self.overview;
        DigestJson {
            focus: self.focus,
            goal: &o.first_prompt,
            turns: &self.turns,
            files: &self.files,
            files_changed: &o.files,
            failures: o.failures,
            failures_fixed: o.failures_fixed,
            commands: o.commands,
            commands_failed: o.commands_failed,
            final_state: FinalJson {
                answer: &self.final_answer,
                last_successful_command: &o.last_successful_command,
                last_files_written: &o.last_files_written,
                commits: &o.commits,
                jobs: &o.jobs,
            },
            tokens: &o.tokens,
            cost_usd: self.cost.usd,
            unpriced: &self.cost.unpriced,
        }
    }
}

/// The files a digest of `focus` lists.
fn project_files(facts: &Facts, focus: Focus) -> Vec<FileSummary> {
    facts
        .files
        .files()
        .into_iter()
        .filter(|f| focus == Focus::Full || f.group == FileGroup::Project)
        .collect()
}

/// The JSON of a [`Digest`]: the goal, the turns, the files, the overview's counts, the final
/// state, tokens and cost.
#[derive(Serialize)]
struct DigestJson<'a> {
    focus: Focus,
    goal: &'a Option<String>,
    turns: &'a [TurnSummary],
    files: &'a [FileSummary],
    files_changed: &'a FileStats,
    failures: usize,
    failures_fixed: usize,
    commands: usize,
    commands_failed: usize,
    #[serde(rename = "final")]
    final_state: FinalJson<'a>,
    tokens: &'a Option<TokenUsage>,
    cost_usd: Option<f64>,
    unpriced: &'a BTreeMap<String, u64>,
}

/// The final state of a [`DigestJson`].
#[derive(Serialize)]
struct FinalJson<'a> {
    answer: &'a Option<String>,
    last_successful_command: &'a Option<CommandAnchor>,
    last_files_written: &'a [FileWrite],
    commits: &'a [Commit],
    jobs: &'a JobStats,
}

impl Serialize for Digest {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.shape().serialize(s)
    }
}

/// `[completed]`, `[failed_tail, no_response]`, `[nudged ×2]`.
pub fn status_label(t: &TurnSummary) -> String {
    let marks: Vec<String> = t
        .status
        .iter()
        .map(|m| {
            let name = to_value(&m.state).as_str().unwrap_or("?").to_string();
            match m.count {
                Some(n) if n > 1 => format!("{name} ×{n}"),
                _ => name,
            }
        })
        .collect();
    if marks.is_empty() {
        "-".into()
    } else {
        marks.join(", ")
    }
}

/// The answer of [`digest`] (`scry digest --json`).
#[derive(Debug, Clone, Serialize)]
pub struct DigestReport {
    /// The session header.
    #[serde(serialize_with = "super::ser_header")]
    pub session: Header,
    /// The digest.
    pub digest: Digest,
    /// Reading warnings.
    #[serde(serialize_with = "super::ser_warnings")]
    pub warnings: Vec<Warning>,
    /// Every failure of the session (for the text form; the JSON counts them).
    #[serde(skip)]
    pub failures: Vec<Failure>,
}

/// The digest of `req.id`. The session streams ([`super::load_folded`]): nothing holds it.
pub fn digest(ctx: &Context, req: &DigestRequest) -> QueryResult<DigestReport> {
    let l = super::load_folded(ctx, &req.id, true)?;
    let mut digest = Digest::folded(&l.session.header, &l.folded, req.focus);
    digest.cost = l.cost;
    Ok(DigestReport {
        digest,
        failures: l.folded.facts.failures,
        session: l.session.header,
        warnings: l.session.warnings,
    })
}
