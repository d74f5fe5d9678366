//! Resuming a parse of a grown Claude Code file (SPEC S-I2; protocol in
//! [`scry_source::resume`]).
//!
//! # Safe points
//! After a complete (newline-terminated) line where
//! - no assistant message is open (nothing held back: the next line cannot join a split
//!   message, so usage is attached the same way whether the parse continues or resumes), and
//! - the copied-prefix rule of [`crate::resume`] is decided (the file's first assistant line
//!   with a `requestId` lies at or before the point; before it, appended lines could still turn
//!   earlier lines into "copied history"). Files without any `requestId` (third-party gateways,
//!   synthetic fixtures) therefore never resume.
//!
//! Typically that is after every `user` line (prompts and tool-result deliveries). A session at
//! rest usually ends with its final answer still "open" (nothing closes an assistant message
//! but the next line of another message), so a resume re-reads that last message — a few KB.
//!
//! # Carried state
//! Envelope facts (cwd, branch, version, sessionId, agent name), title records, the bookkeeping
//! counts, whether a `compact_boundary` awaits its summary, the copied-prefix answer, the
//! tool-result side directories, and three id sets kept as 64-bit hashes: record `uuid`s (the
//! dedupe of duplicated lines — a repeated uuid gets a record locator — and the `summary.leafUuid`
//! check at the end), `message.id`s whose usage was counted (a message seen again never counts
//! twice), and tool-call ids with their tool name (a result pairs with any earlier call).
//!
//! Those sets grow with the file (one entry per record, message, call). They are packed (11
//! characters per id), and bounded: past [`MAX_STATE_IDS`] ids no new point is taken, so the
//! index keeps its last point below the bound (a resume then re-reads more, never wrongly).
//!
//! # Cost
//! Serializing the sets at every safe point would be quadratic. Instead the sets keep an
//! insertion log while the sink wants resume points; a safe point records only the log lengths
//! and the small facts, and the state of the *last* safe point is built once, at the end of the
//! pass, and handed to the sink with [`scry_source::Emitter::offer`].

use std::collections::HashSet;
use std::path::PathBuf;

use scry_model::TitleSource;
use scry_source::resume::{pack_u64s, unpack_u64s};
use scry_source::{Emitter, EmitterState, ResumePoint, SourceError};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::header::Facts;
use crate::parse::{ParseStats, Parser};
use crate::resume::CopiedPrefix;

/// Most ids (uuids + counted message ids + tool calls) a resume state carries (≈ 3.3 MB packed).
pub const MAX_STATE_IDS: usize = 300_000;

/// Version of the state layout; a point of another version is refused (→ full re-parse).
const STATE_VERSION: u32 = 1;

/// A set of id hashes that can log its insertions (for resume state).
#[derive(Debug, Default)]
pub struct IdSet {
    set: HashSet<u64>,
    log: Option<Vec<u64>>,
}

impl IdSet {
    /// Adds `k`; true when it was not there.
    pub fn insert(&mut self, k: u64) -> bool {
        let new = self.set.insert(k);
        if new {
            if let Some(log) = self.log.as_mut() {
                log.push(k);
            }
        }
        new
    }

    /// Whether `k` is in the set.
    pub fn contains(&self, k: &u64) -> bool {
        self.set.contains(k)
    }

    fn start_log(&mut self) {
        self.log = Some(self.set.iter().copied().collect());
    }

    fn logged(&self) -> usize {
        self.log.as_ref().map_or(0, Vec::len)
    }

    fn packed(&self, n: usize) -> String {
        let log = self.log.as_deref().unwrap_or(&[]);
        pack_u64s(log.get(..n).unwrap_or(log))
    }

    fn restore(values: Vec<u64>) -> Self {
        IdSet {
            set: values.iter().copied().collect(),
            log: None,
        }
    }
}

/// Resume bookkeeping of one pass.
#[derive(Debug, Default)]
pub(crate) struct Journal {
    /// Line from which the copied-prefix rule is decided (`None`: never, no safe point).
    decided: Option<u64>,
    /// Tool calls registered, in order (hash, tool-name index).
    pub(crate) calls: Vec<(u64, u32)>,
    last: Option<Snap>,
}

/// What is recorded at a safe point: the small facts, and lengths of the logs.
#[derive(Debug)]
struct Snap {
    offset: u64,
    line: u64,
    emitter: EmitterState,
    facts: Facts,
    stats: ParseStats,
    boundary: bool,
    side_dirs: Option<Vec<PathBuf>>,
    titles: usize,
    tools: usize,
    uuids: usize,
    counted: usize,
    calls: usize,
}

/// The provider state inside a [`ResumePoint`].
#[derive(Debug, Serialize, Deserialize)]
struct State {
    v: u32,
    line: u64,
    decided: u64,
    facts: Facts,
    stats: ParseStats,
    boundary: bool,
    side_dirs: Option<Vec<PathBuf>>,
    copied: Option<CopiedPrefix>,
    titles: Vec<(TitleSource, String, Option<String>)>,
    tools: Vec<String>,
    uuids: String,
    counted: String,
    /// Pairs (call id hash, tool-name index), packed flat.
    calls: String,
}

impl Parser<'_> {
    /// Starts resume bookkeeping; `decided` is where the copied-prefix rule became final.
    pub(crate) fn start_journal(&mut self, decided: Option<u64>) {
        self.titles.uuids.start_log();
        self.counted.start_log();
        let mut calls: Vec<(u64, u32)> = self.calls.iter().map(|(k, v)| (*k, *v)).collect();
        calls.sort_unstable();
        self.journal = Some(Journal {
            decided,
            calls,
            last: None,
        });
    }

    /// Called after each complete line ending at `offset` (line `line`): records a safe point
    /// when the state allows one (see the module doc).
    pub(crate) fn safe_point(&mut self, offset: u64, line: u64, out: &Emitter<'_>) {
        let Some(j) = self.journal.as_ref() else {
            return;
        };
        if !self.pending.is_idle() || j.decided.is_none_or(|d| line < d) {
            return;
        }
        let (uuids, counted, calls) = (
            self.titles.uuids.logged(),
            self.counted.logged(),
            j.calls.len(),
        );
        if uuids + counted + calls > MAX_STATE_IDS {
            return;
        }
        let snap = Snap {
            offset,
            line,
            emitter: out.state(),
            facts: self.facts.clone(),
            stats: self.stats.clone(),
            boundary: self.boundary_pending,
            side_dirs: self.side_dirs.clone(),
            titles: self.titles.entries.len(),
            tools: self.tool_names.len(),
            uuids,
            counted,
            calls,
        };
        if let Some(j) = self.journal.as_mut() {
            j.last = Some(snap);
        }
    }

    /// Hands the last safe point of the pass to the sink.
    pub(crate) fn offer_last(&mut self, out: &mut Emitter<'_>) {
        let Some(j) = self.journal.as_mut() else {
            return;
        };
        let Some(s) = j.last.take() else {
            return;
        };
        let mut flat = Vec::with_capacity(s.calls * 2);
        for (h, i) in j.calls.iter().take(s.calls) {
            flat.push(*h);
            flat.push(u64::from(*i));
        }
        let state = State {
            v: STATE_VERSION,
            line: s.line,
            decided: j.decided.unwrap_or(0),
            facts: s.facts,
            stats: s.stats,
            boundary: s.boundary,
            side_dirs: s.side_dirs,
            copied: self.copied.clone(),
            titles: self.titles.entries.iter().take(s.titles).cloned().collect(),
            tools: self.tool_names.iter().take(s.tools).cloned().collect(),
            uuids: self.titles.uuids.packed(s.uuids),
            counted: self.counted.packed(s.counted),
            calls: pack_u64s(&flat),
        };
        let Ok(state) = serde_json::to_value(state) else {
            return;
        };
        out.offer(ResumePoint {
            offset: s.offset,
            emitter: s.emitter,
            state,
        });
    }

    /// Restores the state of a resume point; returns the line number at the point.
    pub(crate) fn restore(&mut self, state: &Value) -> Result<u64, SourceError> {
        let bad = |why: &str| SourceError::format(&self.file.path, format!("resume state: {why}"));
        let s: State = State::deserialize(state).map_err(|e| bad(&e.to_string()))?;
        if s.v != STATE_VERSION {
            return Err(bad("other version"));
        }
        let ids = |p: &str| unpack_u64s(p).ok_or_else(|| bad("bad id set"));
        let uuids = ids(&s.uuids)?;
        let counted = ids(&s.counted)?;
        let calls = ids(&s.calls)?;
        self.facts = s.facts;
        self.stats = s.stats;
        self.boundary_pending = s.boundary;
        self.side_dirs = s.side_dirs;
        self.copied = s.copied;
        self.titles.entries = s.titles;
        self.titles.uuids = IdSet::restore(uuids);
        self.counted = IdSet::restore(counted);
        for (i, name) in s.tools.iter().enumerate() {
            self.tool_index.insert(name.clone(), i as u32);
        }
        self.tool_names = s.tools;
        for pair in calls.chunks_exact(2) {
            let idx = u32::try_from(pair[1]).map_err(|_| bad("bad call"))?;
            if idx as usize >= self.tool_names.len() {
                return Err(bad("bad call"));
            }
            self.calls.insert(pair[0], idx);
        }
        self.start_journal(Some(s.decided));
        Ok(s.line)
    }
}
