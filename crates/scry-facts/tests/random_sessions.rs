//! Random event lists (kinds, tools, arguments, call ids, surfaces, usage, times all mixed,
//! results missing or duplicated) go through every extractor without a panic, and the ledger
//! invariants hold on each, and the streaming fold ([`scry_facts::LedgerFold`]) gives the
//! same ledgers and card as the whole-session extractors.

use scry_facts::{
    context_pack, overview_counted, overview_from, overview_of, path_mentions,
    reference_candidates, reference_edges, surfaces, turn_summaries, Facts, LedgerFold,
    SessionFold,
};
use scry_model::{
    assign_turns, Event, EventKind, Header, Locator, ProviderId, Session, Surface, TokenUsage,
};
use serde_json::json;

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[(self.next() % xs.len() as u64) as usize]
    }
}

const TOOLS: &[&str] = &[
    "Bash",
    "exec_command",
    "shell",
    "Write",
    "Edit",
    "apply_patch",
    "BashOutput",
    "KillShell",
    "write_stdin",
    "Agent",
    "Read",
    "mcp__scry__show",
    "run_command",
    "write_file",
];
const CMDS: &[&str] = &[
    "ls",
    "cat > a.txt <<EOF\nx > y\nEOF",
    "scry show abc123",
    "ssh h 'echo > /etc/x.conf'",
    "git commit -m 'x'",
    "cd d && make > b.log",
    "sed -i 's/a/b/' f.rs",
    "'unterminated",
    "scp a.tgz h:/srv/",
    "python3 -c \"open('o.txt','w')\"",
    "",
    "继续",
    "$(((((",
];
const TEXTS: &[&str] = &[
    "continue",
    "继续",
    "see src/a.rs",
    "",
    "<task-notification><task-id>b1</task-id><status>completed</status>",
    "Command running in background with ID: b1",
    "Process running with session ID 3",
    "Process exited with code 2",
    "<status>killed</status>",
];
const SUBTYPES: &[Option<&str>] = &[
    None,
    Some("task_started"),
    Some("task_complete"),
    Some("turn_aborted"),
    Some("FileChange"),
    Some("compact_boundary"),
    Some("patch_apply_end"),
];

fn random_session(rng: &mut Rng) -> Session {
    let n = (rng.next() % 60) as usize;
    let mut events = Vec::with_capacity(n);
    for i in 0..n {
        let kind = *rng.pick(&EventKind::ALL);
        let mut e = Event::new(
            kind,
            *rng.pick(TEXTS),
            Locator::native(&format!("e{i}"), None),
        );
        e.seq = i as u32;
        e.subtype = rng.pick(SUBTYPES).map(str::to_string);
        if matches!(kind, EventKind::ToolCall | EventKind::ToolResult)
            || rng.next().is_multiple_of(5)
        {
            e.tool = Some(rng.pick(TOOLS).to_string());
            if !rng.next().is_multiple_of(4) {
                e.call_id = Some(format!("c{}", rng.next() % 8));
            }
        }
        e.args = match rng.next() % 5 {
            0 => Some(
                json!({ "command": rng.pick(CMDS), "run_in_background": rng.next().is_multiple_of(2) }),
            ),
            1 => Some(json!({ "file_path": rng.pick(CMDS), "bash_id": "b1", "session_id": 3 })),
            2 => {
                Some(json!({ "input": "*** Begin Patch\n*** Add File: x.md\n*** Move to: y.md\n" }))
            }
            3 => Some(json!([rng.pick(CMDS), 1, null])),
            _ => None,
        };
        e.exit_code = match rng.next() % 3 {
            0 => None,
            1 => Some(0),
            _ => Some((rng.next() % 3) as i64 - 1),
        };
        e.is_error = match rng.next() % 3 {
            0 => None,
            1 => Some(true),
            _ => Some(false),
        };
        e.surface = *rng.pick(&[
            Surface::Current,
            Surface::Current,
            Surface::Shadowed,
            Surface::LogOnly,
        ]);
        if rng.next().is_multiple_of(3) {
            e.usage = Some(TokenUsage {
                input: rng.next() % 100,
                output: 1,
                ..TokenUsage::default()
            });
            e.model = Some(rng.pick(&["m1", "m2"]).to_string());
        }
        if rng.next().is_multiple_of(2) {
            e.time =
                jiff::Timestamp::from_second(1_790_000_000 + (rng.next() % 100_000) as i64).ok();
        }
        if rng.next().is_multiple_of(6) {
            e.data = Some(json!({
                "changes": { "/p/z.rs": { "type": "update" } },
                "turn_id": format!("t{}", rng.next() % 3),
                "result": { "isAsync": true, "agentId": "b1", "stdout": "out" },
                "firstKeptEntryId": format!("e{}", rng.next() % 60),
            }));
        }
        events.push(e);
    }
    assign_turns(&mut events);
    let mut h = Header::new(ProviderId::Claude, "rand");
    if rng.next().is_multiple_of(2) {
        h.cwd = Some("/p".into());
    }
    let mut s = Session::new(h);
    s.events = events;
    s
}

#[test]
fn random_sessions_never_panic_and_keep_invariants() {
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    for _ in 0..400 {
        let s = random_session(&mut rng);
        let facts = Facts::of(&s);
        let o = overview_from(&s, &facts);
        assert_eq!(o.files.write_events, facts.files.writes.len());
        assert!(o.files.events_by_group.adds_up());
        assert!(o.files.files_by_group.adds_up());
        assert_eq!(o.writes.len(), facts.files.writes.len());
        let failing = s
            .events
            .iter()
            .filter(|e| e.kind == EventKind::ToolResult && e.is_failure())
            .count();
        assert_eq!(o.failures, failing);
        assert_eq!(facts.tokens.total, s.total_usage());
        let _ = turn_summaries(&s, &facts);
        assert_eq!(surfaces(&s.events).len(), s.events.len());
        let budget = (rng.next() % 300) as usize;
        let pack = context_pack(&s, budget);
        assert!(pack.chars <= budget);
        let _ = path_mentions(&s, &facts.files);
        let _ = reference_edges(&s, |id| Some(format!("x:{id}")));
    }
}

/// The fold over `s`'s events gives what the whole-session extractors give.
fn fold_agrees(s: &Session, what: &str) {
    let facts = Facts::of(s);
    let mut fold = LedgerFold::new();
    for e in &s.events {
        fold.push(e);
    }
    let l = fold.finish(&s.header);
    assert_eq!(l.files, facts.files, "files: {what}");
    assert_eq!(l.commands, facts.commands, "commands: {what}");
    assert_eq!(l.failures, facts.failures, "failures: {what}");
    assert_eq!(l.jobs, facts.jobs, "jobs: {what}");
    assert_eq!(l.tokens, facts.tokens, "tokens: {what}");
    let card = overview_from(s, &facts);
    assert_eq!(overview_of(&s.header, &l), card, "card: {what}");
    let mut lean = LedgerFold::for_card();
    for e in &s.events {
        lean.push(e);
    }
    let lean = overview_of(&s.header, &lean.finish(&s.header));
    assert_eq!(lean, card, "card-only fold: {what}");
    session_fold_agrees(s, &facts, what);
}

/// [`SessionFold`] over `s`'s events gives what the whole-session functions give: facts with
/// statuses, turn summaries, card, last answer, reference candidates, context packs of several
/// budgets (issue 17: `digest`, `graph`, `context`, `workspace` stream through it).
fn session_fold_agrees(s: &Session, facts: &Facts, what: &str) {
    for budget in [0usize, 1, 7, 40, 300, 32_000] {
        let mut f = SessionFold::with_pack(budget);
        for e in &s.events {
            f.push(e.clone());
        }
        let f = f.finish(&s.header);
        assert_eq!(
            f.pack,
            Some(context_pack(s, budget)),
            "pack {budget}: {what}"
        );
        if budget > 0 {
            continue;
        }
        assert_eq!(f.events, s.events.len(), "events: {what}");
        assert_eq!(f.facts.files, facts.files, "files: {what}");
        assert_eq!(f.facts.commands, facts.commands, "commands: {what}");
        assert_eq!(f.facts.failures, facts.failures, "failures: {what}");
        assert_eq!(f.facts.jobs, facts.jobs, "jobs: {what}");
        assert_eq!(f.facts.statuses, facts.statuses, "statuses: {what}");
        assert_eq!(f.facts.tokens, facts.tokens, "tokens: {what}");
        assert_eq!(f.turns, turn_summaries(s, facts), "turns: {what}");
        assert_eq!(
            overview_counted(&s.header, &f.counts, &f.facts),
            overview_from(s, facts),
            "card: {what}"
        );
        assert_eq!(f.candidates, reference_candidates(s), "candidates: {what}");
        let last = s
            .events
            .iter()
            .rev()
            .find(|e| e.kind == EventKind::Assistant && !e.text.trim().is_empty())
            .map(|e| e.text.clone());
        assert_eq!(f.final_answer, last, "final answer: {what}");
        let times: Vec<_> = s.events.iter().map(|e| e.time).collect();
        assert_eq!(f.times, times, "times: {what}");
    }
}

#[test]
fn fold_equals_whole_session_extractors() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for i in 0..3000 {
        let s = random_session(&mut rng);
        fold_agrees(&s, &format!("session {i}"));
    }
}
