//! The model surface of a DSH session (SPEC S-Q2): which records the model sees now.
//!
//! Every model-visible record carries `surfaceOp`. `"append"` (or `{"op":"append"}`) adds the
//! record to the end of the surface; `{"op":"replace","start":a,"end":b}` (dsh 0.1.0-rc.8; the
//! synthetic v4 fixtures spell it `startSeq` / `endSeq`) replaces the surface span from record `a`
//! through record `b` — in SURFACE order, not seq order: after one compaction the summary sits
//! where the old records were, so a later replace can run from a higher seq to a lower one — with
//! the new record. Replaced records are shadowed.
//!
//! Whether a record is shadowed is known only after a later record, so the reader makes a cheap
//! first pass that folds only the `surfaceOp` fields ([`fold`]); the second pass emits events
//! with their final surface. The pass keeps one `u64` per model-visible record.

use std::collections::HashMap;
use std::io::BufRead;

use scry_source::lines::LineReader;
use serde::Deserialize;
use serde_json::Value;

/// A parsed `surfaceOp`.
#[derive(Debug, Clone, PartialEq)]
pub enum SurfaceOp {
    /// Add to the end of the surface.
    Append,
    /// Replace the surface span `start..=end` (record seqs, surface order).
    Replace {
        /// First replaced record.
        start: Option<u64>,
        /// Last replaced record.
        end: Option<u64>,
    },
    /// An op this reader does not know (treated as append).
    Other(String),
}

impl SurfaceOp {
    /// Reads a `surfaceOp` value.
    pub fn parse(v: &Value) -> SurfaceOp {
        let op = match v {
            Value::String(s) => s.as_str(),
            Value::Object(_) => v.get("op").and_then(Value::as_str).unwrap_or(""),
            _ => "",
        };
        match op {
            "append" => SurfaceOp::Append,
            "replace" => {
                let num = |keys: &[&str]| {
                    keys.iter()
                        .find_map(|k| v.get(*k).and_then(scry_source::json::as_u64))
                };
                SurfaceOp::Replace {
                    start: num(&["start", "startSeq"]),
                    end: num(&["end", "endSeq"]),
                }
            }
            other => SurfaceOp::Other(other.to_string()),
        }
    }
}

/// The result of folding every `surfaceOp` of a session.
#[derive(Debug, Default)]
pub struct SurfaceMap {
    /// Shadowed record seq → seq of the record that replaced it.
    pub shadowed_by: HashMap<u64, u64>,
    /// Replaced record seqs of each replacing record, in surface order.
    pub replaced: HashMap<u64, Vec<u64>>,
    /// Problems: replace ops whose span was not on the surface, unknown ops.
    pub anomalies: Vec<String>,
    /// Records on the surface at the end, in surface order.
    pub current: Vec<u64>,
}

#[derive(Deserialize)]
struct Probe {
    seq: Option<u64>,
    #[serde(rename = "surfaceOp")]
    surface_op: Option<Value>,
    #[serde(rename = "sourceEventSeqs", default)]
    source_event_seqs: Vec<Value>,
}

/// Applies one op of record `seq` to `map`.
pub fn apply(map: &mut SurfaceMap, seq: u64, op: &SurfaceOp, sources: &[u64]) {
    match op {
        SurfaceOp::Append => map.current.push(seq),
        SurfaceOp::Other(name) => {
            map.anomalies.push(format!(
                "record seq {seq}: unknown surfaceOp '{name}', treated as append"
            ));
            map.current.push(seq);
        }
        SurfaceOp::Replace { start, end } => {
            let pos = |s: Option<u64>| s.and_then(|s| map.current.iter().position(|x| *x == s));
            let removed: Vec<u64> = match (pos(*start), pos(*end)) {
                (Some(a), Some(b)) if a <= b => {
                    let removed: Vec<u64> = map.current.drain(a..=b).collect();
                    map.current.insert(a, seq);
                    removed
                }
                _ => {
                    // Fall back to the record's sourceEventSeqs that are on the surface.
                    let mut at = None;
                    let mut removed = Vec::new();
                    for s in sources {
                        if let Some(p) = map.current.iter().position(|x| x == s) {
                            at = Some(at.map_or(p, |a: usize| a.min(p)));
                        }
                    }
                    map.current.retain(|x| {
                        if sources.contains(x) {
                            removed.push(*x);
                            false
                        } else {
                            true
                        }
                    });
                    let at = at.unwrap_or(map.current.len()).min(map.current.len());
                    map.current.insert(at, seq);
                    map.anomalies.push(format!(
                        "record seq {seq}: replace span {}..{} is not on the surface; used its \
                         sourceEventSeqs ({} record(s) replaced)",
                        start.map_or("?".to_string(), |s| s.to_string()),
                        end.map_or("?".to_string(), |s| s.to_string()),
                        removed.len()
                    ));
                    removed
                }
            };
            for r in &removed {
                map.shadowed_by.insert(*r, seq);
            }
            map.replaced.insert(seq, removed);
        }
    }
}

/// First pass: folds the `surfaceOp` of every record of the decoded stream.
pub fn fold<R: BufRead>(reader: R) -> SurfaceMap {
    let mut map = SurfaceMap::default();
    let mut lines = LineReader::new(reader);
    let finder = b"\"surfaceOp\"";
    while let Ok(Some(line)) = lines.next_line() {
        if !contains(line.bytes, finder) {
            continue;
        }
        let Ok(probe) = serde_json::from_slice::<Probe>(line.bytes) else {
            continue;
        };
        let (Some(seq), Some(op)) = (probe.seq, probe.surface_op.as_ref()) else {
            continue;
        };
        let sources: Vec<u64> = probe
            .source_event_seqs
            .iter()
            .filter_map(scry_source::json::as_u64)
            .collect();
        apply(&mut map, seq, &SurfaceOp::parse(op), &sources);
    }
    map
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    memchr::memmem::find(hay, needle).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replace_runs_in_surface_order() {
        // The real 585b2c35 session: 7, 8 appended; 24, 27 appended; 31 replaces 7..8;
        // then 49 replaces 31..27 (surface order 31, 24, 27).
        let mut m = SurfaceMap::default();
        for s in [7, 8, 24, 27] {
            apply(&mut m, s, &SurfaceOp::Append, &[]);
        }
        let rep = |a, b| SurfaceOp::Replace {
            start: Some(a),
            end: Some(b),
        };
        apply(&mut m, 31, &rep(7, 8), &[]);
        assert_eq!(m.current, vec![31, 24, 27]);
        apply(&mut m, 49, &rep(31, 27), &[]);
        assert_eq!(m.current, vec![49]);
        assert_eq!(m.shadowed_by.get(&24), Some(&49));
        assert_eq!(m.shadowed_by.get(&7), Some(&31));
        assert_eq!(m.replaced.get(&49), Some(&vec![31, 24, 27]));
        assert!(m.anomalies.is_empty());
    }

    #[test]
    fn unknown_span_falls_back_to_sources() {
        let mut m = SurfaceMap::default();
        apply(&mut m, 2, &SurfaceOp::Append, &[]);
        apply(&mut m, 3, &SurfaceOp::Append, &[]);
        let op = SurfaceOp::Replace {
            start: Some(90),
            end: None,
        };
        apply(&mut m, 4, &op, &[2]);
        assert_eq!(m.current, vec![4, 3]);
        assert_eq!(m.anomalies.len(), 1);
    }

    #[test]
    fn op_shapes() {
        let v: Value = serde_json::json!({"op":"replace","startSeq":2,"endSeq":2});
        assert_eq!(
            SurfaceOp::parse(&v),
            SurfaceOp::Replace {
                start: Some(2),
                end: Some(2)
            }
        );
        assert_eq!(SurfaceOp::parse(&Value::from("append")), SurfaceOp::Append);
    }
}
