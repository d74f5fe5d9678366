//! Resuming a parse of a grown pi session (SPEC S-I2; protocol in [`scry_source::resume`]).
//!
//! pi's entries form a tree and the active branch is the path from the *last* entry back to
//! the root, so an append can in principle change which earlier entries are abandoned
//! (`Surface::Shadowed`). Hence:
//!
//! - the only safe point is the end of the file as parsed (after its last complete line, when
//!   no record was read after it — a torn tail leaves the point before it);
//! - a resume first reads the appended entries' ids and parent ids, and continues only when
//!   the new leaf's path reaches the old leaf through appended entries alone (the session went
//!   on along its active branch) and no appended id repeats an old one. Then every earlier
//!   entry keeps its surface; otherwise (a `/tree` jump back, a broken or cyclic path) it
//!   refuses and the index parses the file whole.
//!
//! Carried state: the old leaf id, whether the old active path was whole, the ids of all
//! entries (packed hashes, for the repeat check), the `session` header line, read warnings so
//! far, and the mapper's call ids, unknown types, warnings and titles. Like the full parse, a
//! resume reads the new bytes twice (ids first, then events).

use std::collections::{HashMap, HashSet};

use scry_model::{Header, Warning};
use scry_source::json::str_of;
use scry_source::lines::LineReader;
use scry_source::resume::{id_hash, pack_u64s, unpack_u64s};
use scry_source::{jsonl, Emitter, EmitterState, ResumePoint, SourceError, SourceFile};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::map::Mapper;

const STATE_VERSION: u32 = 1;

/// What a full (or resumed) pass hands to the point at its end.
#[derive(Debug)]
pub(crate) struct Carry {
    /// The last entry with an id.
    pub leaf: Option<String>,
    /// Whether the active path from it was whole.
    pub active: bool,
    /// Hashes of every entry id, in file order.
    pub ids: Vec<u64>,
}

#[derive(Debug, Serialize, Deserialize)]
struct State {
    v: u32,
    line: u64,
    leaf: Option<String>,
    active: bool,
    ids: String,
    header: Option<Value>,
    read_warnings: Vec<Warning>,
    mapper: Value,
}

impl Carry {
    /// The point after `line` ending at `offset`.
    pub(crate) fn point(
        self,
        offset: u64,
        line: u64,
        emitter: EmitterState,
        header: &Option<Value>,
        read_warnings: &[Warning],
        mapper: &Mapper,
    ) -> ResumePoint {
        let state = State {
            v: STATE_VERSION,
            line,
            leaf: self.leaf,
            active: self.active,
            ids: pack_u64s(&self.ids),
            header: header.clone(),
            read_warnings: read_warnings.to_vec(),
            mapper: mapper.state(),
        };
        ResumePoint {
            offset,
            emitter,
            state: serde_json::to_value(state).unwrap_or(Value::Null),
        }
    }
}

/// Continues the parse of `file` from `from` (see the module doc for when it refuses).
pub(crate) fn run(
    file: &SourceFile,
    from: &ResumePoint,
    out: &mut Emitter<'_>,
) -> Result<Header, SourceError> {
    let path = &file.path;
    let refuse = |why: &str| SourceError::format(path, format!("cannot resume: {why}"));
    let s = State::deserialize(&from.state).map_err(|e| refuse(&e.to_string()))?;
    if s.v != STATE_VERSION {
        return Err(refuse("other state version"));
    }
    let mut ids = unpack_u64s(&s.ids).ok_or_else(|| refuse("bad id set"))?;
    let old: HashSet<u64> = ids.iter().copied().collect();

    // Pass 1 over the appended bytes: ids and parents.
    let mut parents: HashMap<String, Option<String>> = HashMap::new();
    let mut last: Option<String> = None;
    let mut repeated = false;
    let mut discard = Vec::new();
    let reader = jsonl::open_at(path, from.offset)?;
    jsonl::read(reader, path, from.offset, s.line, &mut discard, |r| {
        if str_of(&r.value, "type") == Some("session") {
            return;
        }
        if let Some(id) = str_of(&r.value, "id") {
            let h = id_hash(id);
            repeated |= old.contains(&h);
            ids.push(h);
            parents.insert(
                id.to_string(),
                str_of(&r.value, "parentId").map(String::from),
            );
            last = Some(id.to_string());
        }
    });
    if repeated {
        return Err(refuse("an appended entry repeats an earlier id"));
    }
    // The new leaf's path must reach the old leaf through appended entries only.
    let mut chain: HashSet<String> = HashSet::new();
    let mut cur = last.clone();
    while let Some(id) = cur {
        if !chain.insert(id.clone()) {
            return Err(refuse("a cycle among the appended entries"));
        }
        cur = match parents.get(&id) {
            Some(Some(p)) if parents.contains_key(p) => Some(p.clone()),
            Some(Some(p)) if s.leaf.as_deref() == Some(p.as_str()) => None,
            Some(None) | None if s.leaf.is_none() => None,
            _ => return Err(refuse("the session left its active branch")),
        };
    }
    let active = s.active.then_some(chain);
    let carry = Carry {
        leaf: last.or(s.leaf),
        active: active.is_some(),
        ids,
    };
    let mut mapper = Mapper::new(path.clone(), active);
    mapper
        .restore(&s.mapper)
        .ok_or_else(|| refuse("bad mapper state"))?;
    let lines = LineReader::starting_at(jsonl::open_at(path, from.offset)?, from.offset, s.line);
    Ok(crate::events_pass(
        file,
        lines,
        mapper,
        s.header,
        s.read_warnings,
        Some(carry),
        out,
    ))
}
