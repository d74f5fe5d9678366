//! Ledger invariants over every Claude Code / Codex session in the corpus (S-F3, S-F4, S-C2).

use scry_facts::{
    commands, context_pack, overview_counted, overview_from, overview_of, reference_candidates,
    reference_edges, surfaces, turn_summaries, Facts, JobStatus, LedgerFold, Outcome, Provenance,
    SessionFold,
};
use scry_model::{EventKind, Session, Surface, TokenUsage};

use super::sessions::{all_sessions, sessions_of};

fn check(path: &str, s: &Session) {
    let facts = Facts::of(s);
    let o = overview_from(s, &facts);
    let ev = &s.events;

    // Files: one ledger, three views that agree; groups add up; never a candidate.
    assert_eq!(o.files.write_events, facts.files.writes.len(), "{path}");
    assert_eq!(o.writes.len(), facts.files.writes.len(), "{path}");
    assert!(o.files.events_by_group.adds_up(), "{path}");
    assert!(o.files.files_by_group.adds_up(), "{path}");
    assert_eq!(
        o.files.events_by_group.total, o.files.write_events,
        "{path}"
    );
    assert_eq!(
        o.files.files_by_group.total, o.files.files_changed,
        "{path}"
    );
    assert_eq!(
        o.files.observed + o.files.derived,
        o.files.write_events,
        "{path}"
    );
    for w in &facts.files.writes {
        assert_ne!(w.origin.provenance, Provenance::Candidate, "{path}");
        let e = ev.get(w.origin.evidence.seq() as usize);
        assert_eq!(
            e.map(|e| &e.locator),
            Some(&w.origin.evidence.locator),
            "{path}"
        );
        assert_eq!(e.map(|e| e.turn), Some(w.turn), "{path}");
    }

    // Candidates stay out of the ledger and the ledger's paths out of the candidates.
    for m in scry_facts::path_mentions(s, &facts.files) {
        assert_eq!(m.origin.provenance, Provenance::Candidate, "{path}");
        assert!(
            !facts.files.writes.iter().any(|w| w.path == m.path),
            "{path}"
        );
    }

    // Failures: one definition everywhere.
    let failing = ev
        .iter()
        .filter(|e| e.kind == EventKind::ToolResult && e.is_failure())
        .count();
    assert_eq!(facts.failures.len(), failing, "{path}");
    assert_eq!(o.failures, failing, "{path}");

    // Commands: rows are shell calls; exit codes are the results' own, never invented.
    assert_eq!(commands(s), facts.commands, "{path}");
    for c in &facts.commands {
        let call = ev.get(c.origin.evidence.seq() as usize);
        assert_eq!(call.map(|e| e.kind), Some(EventKind::ToolCall), "{path}");
        let result = c.result.as_ref().and_then(|r| ev.get(r.seq() as usize));
        assert_eq!(c.exit_code, result.and_then(|r| r.exit_code), "{path}");
        assert_eq!(
            c.outcome == Outcome::Failed,
            result.is_some_and(|r| r.is_failure()),
            "{path}"
        );
    }
    assert_eq!(
        o.commands_failed,
        facts.commands.iter().filter(|c| c.failed()).count(),
        "{path}"
    );

    // Jobs: a status only with a receipt.
    for j in &facts.jobs {
        assert_eq!(
            j.status == JobStatus::Unknown,
            j.receipt.is_none(),
            "{path}"
        );
    }

    // Turn status: one entry per turn, every mark with evidence.
    assert_eq!(facts.statuses.len() as u32, s.turn_count(), "{path}");
    for t in &facts.statuses {
        for m in &t.marks {
            assert!(!m.evidence.is_empty(), "{path} T{} {:?}", t.turn, m.state);
        }
    }

    // Tokens: the breakdowns add up to the session total; unknown stays unknown.
    assert_eq!(facts.tokens.total, s.total_usage(), "{path}");
    let sum = |v: Vec<TokenUsage>| v.into_iter().sum::<TokenUsage>();
    if let Some(total) = facts.tokens.total {
        assert_eq!(
            sum(facts.tokens.by_turn.iter().map(|t| t.usage).collect()),
            total,
            "{path}"
        );
        assert_eq!(
            sum(facts.tokens.by_model.iter().map(|t| t.usage).collect()),
            total,
            "{path}"
        );
        assert_eq!(
            sum(facts.tokens.by_day.iter().map(|t| t.usage).collect()),
            total,
            "{path}"
        );
    } else {
        assert!(facts.tokens.by_turn.is_empty(), "{path}");
    }

    // Surfaces keep the provider's own marks; the pack respects its budget.
    let surf = surfaces(ev);
    assert_eq!(surf.len(), ev.len(), "{path}");
    for (e, s2) in ev.iter().zip(&surf) {
        if e.surface != Surface::Current {
            assert_eq!(e.surface, *s2, "{path}");
        }
    }
    let pack = context_pack(s, 400);
    assert!(pack.chars <= 400, "{path}");
    let full = context_pack(s, usize::MAX / 2);
    assert!(!full.truncated, "{path}");

    // Deterministic and idempotent.
    let again = Facts::of(s);
    assert_eq!(
        serde_json::to_string(&facts).ok(),
        serde_json::to_string(&again).ok(),
        "{path}"
    );
    let resolve = |id: &str| Some(format!("x:{id}"));
    assert_eq!(
        reference_edges(s, resolve),
        reference_edges(s, resolve),
        "{path}"
    );

    // The streaming fold gives the same ledgers and card.
    let mut fold = LedgerFold::new();
    for e in ev {
        fold.push(e);
    }
    let l = fold.finish(&s.header);
    assert_eq!(l.files, facts.files, "{path}");
    assert_eq!(l.commands, facts.commands, "{path}");
    assert_eq!(l.failures, facts.failures, "{path}");
    assert_eq!(l.jobs, facts.jobs, "{path}");
    assert_eq!(l.tokens, facts.tokens, "{path}");
    assert_eq!(overview_of(&s.header, &l), o, "{path}");
    // The card-only fold (what `show` uses) gives the same card.
    let mut lean = LedgerFold::for_card();
    for e in ev {
        lean.push(e);
    }
    assert_eq!(overview_of(&s.header, &lean.finish(&s.header)), o, "{path}");

    // The session fold (what `digest`, `graph`, `context`, `workspace` stream through, issue
    // 17) gives the whole-session answers.
    for budget in [0usize, 100, 400, 32_000, usize::MAX / 2] {
        let mut f = SessionFold::with_pack(budget);
        for e in ev {
            f.push(e.clone());
        }
        let f = f.finish(&s.header);
        assert_eq!(
            f.pack,
            Some(context_pack(s, budget)),
            "{path} pack {budget}"
        );
        assert_eq!(f.facts.files, facts.files, "{path}");
        assert_eq!(f.facts.commands, facts.commands, "{path}");
        assert_eq!(f.facts.failures, facts.failures, "{path}");
        assert_eq!(f.facts.jobs, facts.jobs, "{path}");
        assert_eq!(f.facts.statuses, facts.statuses, "{path}");
        assert_eq!(f.facts.tokens, facts.tokens, "{path}");
        assert_eq!(f.turns, turn_summaries(s, &facts), "{path}");
        assert_eq!(
            overview_counted(&s.header, &f.counts, &f.facts),
            o,
            "{path}"
        );
        assert_eq!(f.candidates, reference_candidates(s), "{path}");
        let times: Vec<_> = ev.iter().map(|e| e.time).collect();
        assert_eq!(f.times, times, "{path}");
    }
}

#[test]
fn every_corpus_session_keeps_the_ledger_invariants() {
    let all = all_sessions();
    // real/: 2 Claude files + 3 Codex rollouts; real-older/: 5 Claude + 2 + 1 Codex; third-party
    // files the providers recognize come on top.
    assert!(all.len() >= 13, "only {} sessions found", all.len());
    let mut with_writes = 0;
    let mut with_failures = 0;
    for (p, s) in &all {
        check(&p.display().to_string(), s);
        let f = Facts::of(s);
        with_writes += usize::from(!f.files.writes.is_empty());
        with_failures += usize::from(!f.failures.is_empty());
    }
    // Not vacuous: the scenario writes notes.txt and runs failing commands in most sessions.
    assert!(with_writes >= 4, "{with_writes}");
    assert!(with_failures >= 4, "{with_failures}");
}

#[test]
fn every_provider_session_in_the_corpus_keeps_the_ledger_invariants() {
    let all = sessions_of(&[]);
    let providers: std::collections::BTreeSet<&str> = all
        .iter()
        .map(|(_, s)| s.header.provider.as_str())
        .collect();
    for (p, s) in &all {
        check(&p.display().to_string(), s);
    }
    // Claude, Codex and at least the other providers of real/ that have landed.
    assert!(providers.len() >= 4, "{providers:?}");
}
