//! Surfaces (S-Q2) while a session streams, without holding it: the same rules as
//! [`scry_facts::surfaces`] (the one function that derives them from a whole session), folded
//! into a few numbers per session so `scry events` can filter by surface event by event.
//!
//! The shared rules reduce to one number: a `Compaction` event whose provider surface is
//! `current` and that carries no provider-computed span (`surfaceOp` / `surface_op`) shadows
//! every provider-`current` event before its group (the run of `Compaction` events it ends),
//! except, with a pi-style `firstKeptEntryId` naming an earlier event, that event and those
//! after it. Each such compaction therefore shadows a prefix `[0, end)`, and an event is shadowed
//! by the rules exactly when its provider surface is `current` and its seq is below the largest
//! `end` ([`SurfaceScan::shadow_end`]). Provider surfaces other than `current` stay as they are.
//!
//! Memory: the scan keeps one hash per `id:` locator (to resolve `firstKeptEntryId`, which names
//! an earlier event), the compaction events and the provider-recorded replacements (DSH
//! `replacedEvents`) — never event text. Equivalence with [`scry_facts::surfaces`] is tested on
//! every corpus session.

use std::collections::HashMap;

use scry_facts::surfaces::{first_kept_id, shadows};
use scry_model::{Event, EventKind, Surface};
use serde_json::Value;

/// A compaction that shadows a prefix of the session (by the shared rules).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shadower {
    /// Its seq.
    pub seq: u32,
    /// First seq of its group (the run of compaction events it belongs to).
    pub group_start: u32,
    /// It shadows provider-current events with a seq below this.
    pub end: u32,
}

/// One compaction event (they are few), for replacement chains.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompactionInfo {
    /// Its seq.
    pub seq: u32,
    /// Its subtype (`compact_boundary`, `compact_summary`, …).
    pub subtype: Option<String>,
    /// The surface the provider gave it.
    pub provider_surface: Surface,
}

/// The state folded from a streamed session.
#[derive(Debug, Default)]
pub struct SurfaceScan {
    /// Events seen.
    pub total: u32,
    /// Compactions that shadow a prefix, in seq order.
    pub shadowers: Vec<Shadower>,
    /// Every compaction event, in seq order.
    pub compactions: Vec<CompactionInfo>,
    /// Runs of consecutive compaction events (first seq, last seq).
    pub runs: Vec<(u32, u32)>,
    /// Provider-recorded replacements: replaced event seq → seq of the replacing event (DSH
    /// `data.replacedEvents` of a compaction).
    pub recorded: HashMap<u32, u32>,
    /// First seq of each `id:` locator and of its `#`-prefixes, by hash.
    locators: HashMap<u64, u32>,
}

fn hash(s: &str) -> u64 {
    xxhash_rust::xxh3::xxh3_64(s.as_bytes())
}

impl SurfaceScan {
    /// Folds one event (in seq order); `e.surface` must be the provider's surface.
    pub fn add(&mut self, e: &Event) {
        self.total = self.total.max(e.seq.saturating_add(1));
        let loc = e.locator.as_str();
        if loc.starts_with("id:") {
            self.locators.entry(hash(loc)).or_insert(e.seq);
            for (i, _) in loc.match_indices('#') {
                if let Some(prefix) = loc.get(..i) {
                    self.locators.entry(hash(prefix)).or_insert(e.seq);
                }
            }
        }
        if e.kind != EventKind::Compaction {
            return;
        }
        match self.runs.last_mut() {
            Some((_, last)) if last.saturating_add(1) == e.seq => *last = e.seq,
            _ => self.runs.push((e.seq, e.seq)),
        }
        let group_start = self.runs.last().map_or(e.seq, |r| r.0);
        self.compactions.push(CompactionInfo {
            seq: e.seq,
            subtype: e.subtype.clone(),
            provider_surface: e.surface,
        });
        if let Some(replaced) = e
            .data
            .as_ref()
            .and_then(|d| d.get("replacedEvents"))
            .and_then(Value::as_array)
        {
            for r in replaced.iter().filter_map(Value::as_u64) {
                if let Ok(r) = u32::try_from(r) {
                    self.recorded.insert(r, e.seq);
                }
            }
        }
        if shadows(e) {
            let kept = first_kept_id(e)
                .and_then(|id| self.locators.get(&hash(&format!("id:{id}"))).copied())
                .filter(|&k| k < group_start);
            self.shadowers.push(Shadower {
                seq: e.seq,
                group_start,
                end: kept.unwrap_or(group_start),
            });
        }
    }

    /// Provider-current events below this seq are shadowed.
    pub fn shadow_end(&self) -> u32 {
        self.shadowers.iter().map(|s| s.end).max().unwrap_or(0)
    }

    /// The surface of an event with seq `seq` and provider surface `provider`.
    pub fn surface(&self, seq: u32, provider: Surface) -> Surface {
        surface_of(self.shadow_end(), seq, provider)
    }

    /// The first compaction (by the shared rules) that shadows an event at `seq`.
    pub fn shadower_of(&self, seq: u32) -> Option<&Shadower> {
        self.shadowers.iter().find(|s| s.end > seq)
    }

    /// The run of compaction events holding `seq`.
    pub fn run_of(&self, seq: u32) -> Option<(u32, u32)> {
        self.runs
            .iter()
            .copied()
            .find(|(a, b)| *a <= seq && seq <= *b)
    }

    /// The compaction event with this seq.
    pub fn compaction(&self, seq: u32) -> Option<&CompactionInfo> {
        self.compactions
            .binary_search_by_key(&seq, |c| c.seq)
            .ok()
            .and_then(|i| self.compactions.get(i))
    }
}

/// The surface of an event at `seq` with provider surface `provider` when provider-current
/// events below `shadow_end` are shadowed.
pub fn surface_of(shadow_end: u32, seq: u32, provider: Surface) -> Surface {
    if provider == Surface::Current && seq < shadow_end {
        Surface::Shadowed
    } else {
        provider
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use scry_model::{Locator, Session};

    fn scan(events: &[Event]) -> Vec<Surface> {
        let mut s = SurfaceScan::default();
        for e in events {
            s.add(e);
        }
        events.iter().map(|e| s.surface(e.seq, e.surface)).collect()
    }

    fn ev(seq: u32, kind: EventKind, loc: &str) -> Event {
        let mut e = Event::new(kind, "x", Locator::native(loc, None));
        e.seq = seq;
        e
    }

    #[test]
    fn agrees_with_the_shared_rules_on_synthetic_shapes() {
        use EventKind::*;
        let kinds = [
            vec![User, Assistant, Compaction, Compaction, User, Assistant],
            vec![User, Compaction, User, Compaction, Assistant],
            vec![Compaction, User, Assistant],
            vec![User, Assistant, User, Compaction],
        ];
        for (n, ks) in kinds.iter().enumerate() {
            let mut events: Vec<Event> = ks
                .iter()
                .enumerate()
                .map(|(i, k)| ev(i as u32, *k, &format!("e{n}-{i}")))
                .collect();
            assert_eq!(scan(&events), scry_facts::surfaces(&events), "shape {n}");
            // A log-only event, a provider-computed span, and a pi first-kept entry.
            if let Some(e) = events.get_mut(1) {
                e.surface = Surface::LogOnly;
            }
            assert_eq!(
                scan(&events),
                scry_facts::surfaces(&events),
                "shape {n} log-only"
            );
            let kept = format!("e{n}-1");
            for e in events.iter_mut().filter(|e| e.kind == Compaction) {
                e.set_data("firstKeptEntryId", serde_json::json!(kept));
            }
            assert_eq!(
                scan(&events),
                scry_facts::surfaces(&events),
                "shape {n} kept"
            );
            for e in events.iter_mut().filter(|e| e.kind == Compaction) {
                e.set_data("surfaceOp", serde_json::json!({"op": "replace"}));
            }
            assert_eq!(scan(&events), scry_facts::surfaces(&events), "shape {n} op");
        }
    }

    /// Every session of the real corpora: the streamed surfaces equal the shared function's.
    #[test]
    fn agrees_with_the_shared_rules_on_the_corpus() {
        let corpus =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus");
        let mut sessions = 0;
        let mut shadowed = 0;
        for home in ["real/home", "real-older/home"] {
            let env = scry_source::Env::with_home(corpus.join(home));
            let ctx = crate::Context {
                no_index: true,
                ..crate::Context::new(env, "/".into())
            };
            let catalog = crate::catalog::Catalog::discover(&ctx, &[]);
            for f in &catalog.files {
                let Ok(source) = catalog.source(f.provider) else {
                    continue;
                };
                let Ok(session): Result<Session, _> = source.parse(f) else {
                    continue;
                };
                sessions += 1;
                let shared = scry_facts::surfaces(&session.events);
                shadowed += shared.iter().filter(|s| **s == Surface::Shadowed).count();
                assert_eq!(scan(&session.events), shared, "{}", f.path.display());
            }
        }
        assert!(sessions >= 10, "{sessions} sessions");
        assert!(shadowed > 0);
    }
}
