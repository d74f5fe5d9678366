//! Resuming a parse of a grown plain `.jsonl` rollout (SPEC S-I2; protocol in
//! [`scry_source::resume`]). `.jsonl.zst` rollouts and TypeScript-era documents are not
//! resumed (a compressed stream cannot be entered in the middle; documents are rewritten whole).
//!
//! # Safe points
//! After a complete (newline-terminated) line where
//! - nothing is held back ([`crate::pending`] has no open request: its usage and receipts
//!   cannot land on an event before the point) — in practice after every `token_count`,
//!   `task_started`, `task_complete` and `compacted` line, so a rollout at rest ends on one;
//! - the mirror decision is final: it depends on the first 512 KB of the file
//!   ([`crate::use_mirrors`]), so the point must lie beyond them, or beyond the first
//!   `"response_item"` in them (which settles it whatever is appended).
//!
//! # Carried state
//! The identity (first `session_meta`), last `turn_context` cwd and model, thread names,
//! models, the token tracker (previous totals, for the repeated-total dedupe), the fork-copy
//! state (copying or not, when it started, whether turn ids are UUIDv7), the mirror flag, the
//! environment-context cwd, unknown types, warnings collected so far (Codex reports them at
//! the end), open tool calls, receipts waiting for their result, and the record ids already
//! used by native locators (packed hashes, capped at 200 000 by the mapper itself).
//!
//! Safe points are cheap: the sets that grow keep an insertion log while the sink wants resume
//! points; a safe point records log lengths and the small facts, and only the last one is
//! serialized, at the end of the pass.

use std::collections::{BTreeMap, HashMap};

use scry_model::{Timestamp, Warning};
use scry_source::resume::{pack_u64s, unpack_u64s};
use scry_source::{Emitter, EmitterState, ResumePoint, SourceError};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::pending::Receipt;
use crate::rollout::{Identity, Rollout};
use crate::usage::Tracker;

/// Version of the state layout; a point of another version is refused (→ full re-parse).
const STATE_VERSION: u32 = 1;

/// The small facts, copied at every safe point.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Facts {
    identity: Option<Identity>,
    turn_cwd: Option<String>,
    thread_names: Vec<String>,
    models: Vec<String>,
    tracker: Tracker,
    records: u64,
    span: Option<(Timestamp, Timestamp)>,
    copy_start: Option<Timestamp>,
    copy_v7: bool,
    unknown: BTreeMap<String, (u64, u64)>,
    model: Option<String>,
    copied: bool,
    use_mirrors: bool,
    env_cwd: Option<String>,
    saw_prompt: bool,
}

/// What a safe point records.
#[derive(Debug)]
struct Snap {
    offset: u64,
    line: u64,
    emitter: EmitterState,
    facts: Facts,
    native: usize,
    calls: usize,
    receipts: usize,
    map_warnings: usize,
    read_warnings: usize,
}

/// The provider state inside a [`ResumePoint`].
#[derive(Debug, Serialize, Deserialize)]
struct State {
    v: u32,
    line: u64,
    facts: Facts,
    native: String,
    calls: Vec<(String, String)>,
    receipts: Vec<(String, Receipt)>,
    map_warnings: Vec<Warning>,
    read_warnings: Vec<Warning>,
}

/// Resume bookkeeping of one pass.
#[derive(Debug)]
pub(crate) struct Journal {
    /// Offset from which the mirror decision is final.
    decided: u64,
    last: Option<Snap>,
}

fn facts(ro: &Rollout) -> Facts {
    let m = &ro.mapper;
    Facts {
        identity: ro.identity.clone(),
        turn_cwd: ro.turn_cwd.clone(),
        thread_names: ro.thread_names.clone(),
        models: ro.models.clone(),
        tracker: ro.tracker.clone(),
        records: ro.records,
        span: ro.span,
        copy_start: ro.copy_start,
        copy_v7: ro.copy_v7,
        unknown: m.unknown.clone(),
        model: m.model.clone(),
        copied: m.copied,
        use_mirrors: m.use_mirrors,
        env_cwd: m.env_cwd.clone(),
        saw_prompt: m.saw_prompt,
    }
}

fn replay<V: Clone>(log: &[(String, Option<V>)]) -> Vec<(String, V)> {
    let mut map: HashMap<&str, &V> = HashMap::new();
    for (k, v) in log {
        match v {
            Some(v) => {
                map.insert(k.as_str(), v);
            }
            None => {
                map.remove(k.as_str());
            }
        }
    }
    let mut out: Vec<(String, V)> = map
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.clone()))
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

impl Journal {
    /// Starts bookkeeping on `ro`; safe points only from offset `decided` on.
    pub(crate) fn start(ro: &mut Rollout, decided: u64) -> Journal {
        let m = &mut ro.mapper;
        let mut native: Vec<u64> = m.native_seen.iter().copied().collect();
        native.sort_unstable();
        m.native_log = Some(native);
        m.calls_log = Some(
            m.calls
                .iter()
                .map(|(k, v)| (k.clone(), Some(v.clone())))
                .collect(),
        );
        m.pending.receipts_log = Some(
            m.pending
                .receipts
                .iter()
                .map(|(k, v)| (k.clone(), Some(v.clone())))
                .collect(),
        );
        Journal {
            decided,
            last: None,
        }
    }

    /// Called after each complete line: records a safe point when the state allows one.
    pub(crate) fn line_end(
        &mut self,
        ro: &Rollout,
        offset: u64,
        line: u64,
        read_warnings: usize,
        out: &Emitter<'_>,
    ) {
        let m = &ro.mapper;
        if offset < self.decided || !m.pending.is_idle() {
            return;
        }
        let len = |v: Option<usize>| v.unwrap_or(0);
        self.last = Some(Snap {
            offset,
            line,
            emitter: out.state(),
            facts: facts(ro),
            native: len(m.native_log.as_ref().map(Vec::len)),
            calls: len(m.calls_log.as_ref().map(Vec::len)),
            receipts: len(m.pending.receipts_log.as_ref().map(Vec::len)),
            map_warnings: m.warnings.len(),
            read_warnings,
        });
    }

    /// The last safe point of the pass, with its state built now.
    pub(crate) fn point(self, ro: &Rollout, read_warnings: &[Warning]) -> Option<ResumePoint> {
        let s = self.last?;
        let m = &ro.mapper;
        let native = m.native_log.as_deref().unwrap_or(&[]);
        let calls = m.calls_log.as_deref().unwrap_or(&[]);
        let receipts = m.pending.receipts_log.as_deref().unwrap_or(&[]);
        let state = State {
            v: STATE_VERSION,
            line: s.line,
            facts: s.facts,
            native: pack_u64s(native.get(..s.native)?),
            calls: replay(calls.get(..s.calls)?),
            receipts: replay(receipts.get(..s.receipts)?),
            map_warnings: m.warnings.get(..s.map_warnings)?.to_vec(),
            read_warnings: read_warnings.get(..s.read_warnings)?.to_vec(),
        };
        Some(ResumePoint {
            offset: s.offset,
            emitter: s.emitter,
            state: serde_json::to_value(state).ok()?,
        })
    }
}

/// Restores `ro` from a point's state; returns the line number at the point and the read
/// warnings collected before it.
pub(crate) fn restore(
    ro: &mut Rollout,
    state: &Value,
    path: &std::path::Path,
) -> Result<(u64, Vec<Warning>), SourceError> {
    let bad = |why: &str| SourceError::format(path, format!("resume state: {why}"));
    let s = State::deserialize(state).map_err(|e| bad(&e.to_string()))?;
    if s.v != STATE_VERSION {
        return Err(bad("other version"));
    }
    let f = s.facts;
    ro.identity = f.identity;
    ro.turn_cwd = f.turn_cwd;
    ro.thread_names = f.thread_names;
    ro.models = f.models;
    ro.tracker = f.tracker;
    ro.records = f.records;
    ro.span = f.span;
    ro.copy_start = f.copy_start;
    ro.copy_v7 = f.copy_v7;
    let m = &mut ro.mapper;
    m.unknown = f.unknown;
    m.model = f.model;
    m.copied = f.copied;
    m.use_mirrors = f.use_mirrors;
    m.env_cwd = f.env_cwd;
    m.saw_prompt = f.saw_prompt;
    m.native_seen = unpack_u64s(&s.native)
        .ok_or_else(|| bad("bad id set"))?
        .into_iter()
        .collect();
    m.calls = s.calls.into_iter().collect();
    m.pending.receipts = s.receipts.into_iter().collect();
    m.warnings = s.map_warnings;
    Ok((s.line, s.read_warnings))
}
