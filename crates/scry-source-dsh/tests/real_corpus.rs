//! The DSH reader against the real sessions written by dsh 0.1.0-rc.8 (corpus `real/home/.dsh`)
//! and the synthetic third-party fixtures (corpus `third-party/dsh`).
//!
//! Every expected number below was computed independently of this reader: the files were
//! decompressed with the `zstd` CLI (`zstd -dc session.jsonl.zstd > s.jsonl`) and counted with a
//! small Python script over the raw records (json.loads per line):
//! prompts = `user/message` with `source.kind` absent or `user` and no `surfaceOp` replace;
//! meta = other `user/message`s; thinking / text / tool-call = blocks of `assistant/message`
//! content (tool calls unioned with `tool/call` records by id); results = `tool-result` blocks of
//! `tool/result`; errors = those with `isError: true`; compactions = `user/message` with a
//! `surfaceOp` replace; failed = `compaction/end` with `error`; usage = sum of
//! `assistant/message.data.usage` plus `compaction/summary.data.usage`; shadowed events = events
//! of the records listed in the `compaction/summary.shadowedSeqs` arrays (a different route
//! than the reader's own surface fold).

use scry_model::{EventKind, LineageKind, Session, SessionKind, Surface, TitleSource};
use scry_source::{Env, Source};
use scry_source_dsh::DshSource;
use scry_testkit::corpus;

fn count(s: &Session, kind: EventKind) -> usize {
    s.events.iter().filter(|e| e.kind == kind).count()
}

struct Expect {
    dir: &'static str,
    prompts: usize,
    meta_user: usize,
    thinking: usize,
    text: usize,
    calls: usize,
    results: usize,
    errors: usize,
    exit_codes: usize,
    compactions: usize,
    failed_compactions: usize,
    input: u64,
    output: u64,
    cache_read: u64,
    reasoning: u64,
    title: &'static str,
    shadowed: usize,
}

const EXPECT: [Expect; 4] = [
    Expect {
        dir: "44201f33-fb06-4bbb-aeb6-42c3c875e1e8",
        prompts: 1,
        meta_user: 1,
        thinking: 1,
        text: 1,
        calls: 1,
        results: 1,
        errors: 0,
        exit_codes: 0,
        compactions: 0,
        failed_compactions: 0,
        input: 10446,
        output: 104,
        cache_read: 7029,
        reasoning: 12,
        title: "Please count the files in",
        shadowed: 0,
    },
    Expect {
        dir: "session-585b2c35-c272-448a-9521-a2d8028fa1c4",
        prompts: 1,
        meta_user: 4,
        thinking: 0,
        text: 1,
        calls: 4,
        results: 4,
        errors: 0,
        exit_codes: 3,
        compactions: 3,
        failed_compactions: 2,
        input: 48430,
        output: 375,
        cache_read: 20128,
        reasoning: 0,
        title: "Mock reply.",
        shadowed: 9,
    },
    Expect {
        dir: "session-99bf26f5-3232-42a6-930b-2b4188f372b9",
        prompts: 1,
        meta_user: 1,
        thinking: 1,
        text: 1,
        calls: 3,
        results: 3,
        errors: 2,
        exit_codes: 1,
        compactions: 0,
        failed_compactions: 0,
        input: 13393,
        output: 253,
        cache_read: 20426,
        reasoning: 19,
        title: "Mock reply.",
        shadowed: 0,
    },
    Expect {
        dir: "session-ef057311-9e3b-411d-a442-d9980feaa67a",
        prompts: 1,
        meta_user: 2,
        thinking: 1,
        text: 1,
        calls: 2,
        results: 2,
        errors: 0,
        exit_codes: 0,
        compactions: 0,
        failed_compactions: 0,
        input: 18506,
        output: 166,
        cache_read: 6722,
        reasoning: 9,
        title: "Mock reply.",
        shadowed: 0,
    },
];

fn real_sessions() -> Vec<(scry_source::SourceFile, Session)> {
    let env = Env::with_home(corpus().join("real/home"));
    let d = DshSource.discover(&env);
    assert!(d.warnings.is_empty(), "{:?}", d.warnings);
    d.files
        .into_iter()
        .map(|f| {
            let s = DshSource.parse(&f).expect("parse");
            (f, s)
        })
        .collect()
}

#[test]
fn discovers_the_four_real_sessions_including_the_unprefixed_subagent_dir() {
    let env = Env::with_home(corpus().join("real/home"));
    let d = DshSource.discover(&env);
    let ids: Vec<&str> = d.files.iter().map(|f| f.id.as_str()).collect();
    let want: Vec<&str> = EXPECT.iter().map(|e| e.dir).collect();
    assert_eq!(ids, want);
    assert!(d.roots[0].exists);
    assert!(d
        .files
        .iter()
        .all(|f| f.path.ends_with("session.jsonl.zstd")));
    // `$DSH_HOME` overrides `~/.dsh`.
    let env = Env::with_home("/nonexistent").var_set(
        "DSH_HOME",
        corpus().join("real/home/.dsh").display().to_string(),
    );
    assert_eq!(DshSource.discover(&env).files.len(), 4);
}

#[test]
fn real_sessions_match_independent_counts() {
    for (f, s) in real_sessions() {
        let e = EXPECT.iter().find(|e| e.dir == f.id).expect("known dir");
        let name = e.dir;
        assert!(s.warnings.is_empty(), "{name}: {:?}", s.warnings);
        assert_eq!(count(&s, EventKind::User), e.prompts, "{name} prompts");
        let meta_user = s
            .events
            .iter()
            .filter(|ev| {
                ev.kind == EventKind::Meta
                    && matches!(
                        ev.subtype.as_deref(),
                        Some("plugin" | "agent-instructions" | "subagent-settled")
                    )
            })
            .count();
        assert_eq!(meta_user, e.meta_user, "{name} injected user messages");
        assert_eq!(
            count(&s, EventKind::Thinking),
            e.thinking,
            "{name} thinking"
        );
        assert_eq!(count(&s, EventKind::Assistant), e.text, "{name} text");
        assert_eq!(count(&s, EventKind::ToolCall), e.calls, "{name} calls");
        assert_eq!(
            count(&s, EventKind::ToolResult),
            e.results,
            "{name} results"
        );
        let errors = s
            .events
            .iter()
            .filter(|ev| ev.is_error == Some(true) && ev.kind == EventKind::ToolResult)
            .count();
        assert_eq!(errors, e.errors, "{name} isError");
        let codes = s.events.iter().filter(|ev| ev.exit_code.is_some()).count();
        assert_eq!(codes, e.exit_codes, "{name} exit codes");
        let comp = s
            .events
            .iter()
            .filter(|ev| ev.subtype.as_deref() == Some("compaction"))
            .count();
        assert_eq!(comp, e.compactions, "{name} compactions");
        assert_eq!(
            count(&s, EventKind::Compaction),
            e.compactions,
            "{name} no extra compaction events"
        );
        let failed = s
            .events
            .iter()
            .filter(|ev| ev.subtype.as_deref() == Some("compaction_failed"))
            .count();
        assert_eq!(failed, e.failed_compactions, "{name} failed compactions");
        let u = s.total_usage().expect("usage");
        assert_eq!(
            (u.input, u.output, u.cache_read, u.reasoning),
            (e.input, e.output, e.cache_read, e.reasoning),
            "{name} usage"
        );
        assert_eq!(s.header.title.as_deref(), Some(e.title), "{name} title");
        assert_eq!(
            s.header.cwd.as_deref(),
            Some("/home/dev/more/work/proj-dsh")
        );
        assert_eq!(s.header.models, vec!["deepseek-v4-flash".to_string()]);
        let shadowed = s
            .events
            .iter()
            .filter(|ev| ev.surface == Surface::Shadowed)
            .count();
        assert_eq!(shadowed, e.shadowed, "{name} shadowed");
        // Every result pairs with a call and copies its tool name.
        for r in s
            .events
            .iter()
            .filter(|ev| ev.kind == EventKind::ToolResult)
        {
            assert!(r.tool.is_some(), "{name}: unpaired {r:?}");
            assert!(r.duration_ms.is_some());
        }
        // Turns: exactly one prompt → turn 1; the preamble is turn 0.
        assert_eq!(s.turn_count(), 1);
        // Raw references point at real lines of the decoded stream.
        assert!(s.events.iter().all(|ev| ev.raw.line >= 2 && ev.raw.len > 0));
    }
}

#[test]
fn subagent_session_links_to_its_parent() {
    let all = real_sessions();
    let (_, sub) = all
        .iter()
        .find(|(f, _)| f.id.starts_with("44201f33"))
        .expect("subagent");
    assert_eq!(sub.header.id, "44201f33-fb06-4bbb-aeb6-42c3c875e1e8");
    assert_eq!(sub.header.kind, SessionKind::Subagent);
    assert_eq!(
        sub.header.parent.as_deref(),
        Some("session-ef057311-9e3b-411d-a442-d9980feaa67a")
    );
    assert_eq!(sub.header.lineage[0].kind, LineageKind::SubagentOf);
    assert_eq!(sub.header.lineage[0].evidence, "session.parentSession");
    assert_eq!(
        sub.header.agent_name.as_deref(),
        Some("Count project files")
    );
    assert_eq!(sub.header.title_source, Some(TitleSource::FirstPrompt));
    // The parent's id in the parent file matches what the child points at.
    let (_, parent) = all
        .iter()
        .find(|(f, _)| f.id.starts_with("session-ef057311"))
        .expect("parent");
    assert_eq!(parent.header.id, sub.header.parent.clone().unwrap());
    assert_eq!(parent.header.kind, SessionKind::Main);
    assert_eq!(parent.header.title_source, Some(TitleSource::Generated));
    assert_eq!(
        parent.header.titles,
        vec![
            "Please delegate counting the project".to_string(),
            "Mock reply.".to_string()
        ]
    );
    // The subagent call's result names the child session.
    let r = parent
        .events
        .iter()
        .find(|e| e.kind == EventKind::ToolResult && e.tool.as_deref() == Some("subagent"))
        .unwrap();
    assert!(r.text.contains("44201f33-fb06-4bbb-aeb6-42c3c875e1e8"));
}

#[test]
fn compaction_shadows_the_replaced_events_in_surface_order() {
    let all = real_sessions();
    let (_, s) = all
        .iter()
        .find(|(f, _)| f.id.starts_with("session-585b2c35"))
        .unwrap();
    let comps: Vec<_> = s
        .events
        .iter()
        .filter(|e| e.kind == EventKind::Compaction)
        .collect();
    assert_eq!(comps.len(), 3);
    // The first two checkpoints were themselves replaced by the next; the last is current.
    assert_eq!(comps[0].surface, Surface::Shadowed);
    assert_eq!(comps[1].surface, Surface::Shadowed);
    assert_eq!(comps[2].surface, Surface::Current);
    // Summarizer usage lands on the checkpoint: 8743 / 8832 / 8932 input (raw compaction/summary).
    let inputs: Vec<u64> = comps
        .iter()
        .map(|c| c.usage.map_or(0, |u| u.input))
        .collect();
    assert_eq!(inputs, vec![8743, 8832, 8932]);
    let data = comps[1].data.as_ref().unwrap();
    assert_eq!(data["replacedDshSeqs"], serde_json::json!([31, 24, 27]));
    assert_eq!(
        data["sourceEventSeqs"],
        serde_json::json!([47, 48, 31, 24, 27])
    );
    // replacedEvents are our seqs of the replaced records, the first being the first checkpoint.
    assert_eq!(data["replacedEvents"][0], serde_json::json!(comps[0].seq));
    // The human prompt was compacted away in the first compaction.
    let prompt = s.events.iter().find(|e| e.kind == EventKind::User).unwrap();
    assert_eq!(prompt.surface, Surface::Shadowed);
    assert_eq!(
        prompt.data.as_ref().unwrap()["shadowedByDshSeq"],
        serde_json::json!(31)
    );
    // Log-only bookkeeping: the settings records.
    assert!(s
        .events
        .iter()
        .any(|e| e.subtype.as_deref() == Some("sandbox_mode") && e.surface == Surface::LogOnly));
    // Failed compactions are System events with the error text.
    let failed = s
        .events
        .iter()
        .find(|e| e.subtype.as_deref() == Some("compaction_failed"))
        .unwrap();
    assert_eq!(failed.kind, EventKind::System);
    assert!(failed.text.starts_with("summary is not smaller"));
    // The last answer is still on the surface.
    let last = s
        .events
        .iter()
        .rev()
        .find(|e| e.kind == EventKind::Assistant)
        .unwrap();
    assert_eq!(last.text, "OK. Nothing else to do here.");
    assert_eq!(last.surface, Surface::Current);
}

#[test]
fn failing_tools_keep_is_error_and_exit_codes() {
    let all = real_sessions();
    let (_, s) = all
        .iter()
        .find(|(f, _)| f.id.starts_with("session-99bf26f5"))
        .unwrap();
    let results: Vec<_> = s
        .events
        .iter()
        .filter(|e| e.kind == EventKind::ToolResult)
        .collect();
    let shape: Vec<(Option<&str>, Option<bool>, Option<i64>)> = results
        .iter()
        .map(|r| (r.tool.as_deref(), r.is_error, r.exit_code))
        .collect();
    assert_eq!(
        shape,
        vec![
            (Some("read"), Some(true), None),
            (Some("edit"), Some(true), None),
            (Some("bash"), Some(false), Some(1))
        ]
    );
    assert!(results.iter().all(|r| r.is_failure()));
    // The tool call's arguments are decoded JSON.
    let bash = s
        .events
        .iter()
        .find(|e| e.kind == EventKind::ToolCall && e.tool.as_deref() == Some("bash"))
        .unwrap();
    assert_eq!(bash.args.as_ref().unwrap()["command"], "cat missing.txt");
    // Thinking and usage: 4 model requests → 4 events carry usage.
    assert_eq!(s.events.iter().filter(|e| e.usage.is_some()).count(), 4);
    // Native locators from message ids.
    assert!(s
        .events
        .iter()
        .filter(|e| e.kind == EventKind::User)
        .all(|e| e.locator.as_str().starts_with("id:")));
}

#[test]
fn header_scan_agrees_with_the_parse() {
    for (f, s) in real_sessions() {
        let h = DshSource.scan_header(&f).unwrap();
        assert_eq!(h.id, s.header.id);
        assert_eq!(h.cwd, s.header.cwd);
        assert_eq!(h.kind, s.header.kind);
        assert_eq!(h.parent, s.header.parent);
        assert_eq!(h.created, s.header.created);
        assert_eq!(h.models, s.header.models);
        // The sessions are under 64 KB decoded, so the scan sees everything the parse sees.
        assert_eq!(
            (h.title.as_deref(), h.title_source),
            (s.header.title.as_deref(), s.header.title_source)
        );
        assert_eq!(h.updated, s.header.updated);
    }
}

#[test]
fn detect_recognizes_session_files() {
    let env = Env::with_home(corpus().join("real/home"));
    for f in DshSource.discover(&env).files {
        let d = DshSource.detect(&f.path).expect("detected");
        assert_eq!(d.id, f.id);
        let dir = f.path.parent().unwrap();
        assert_eq!(
            DshSource.detect(dir).expect("directory detected").path,
            f.path
        );
    }
    let tp = corpus().join("third-party/dsh/future_v4_header.jsonl");
    assert_eq!(DshSource.detect(&tp).unwrap().id, "dsh-synth-v3-0001");
    // A pi session header (also `type: session`) is not DSH.
    assert!(DshSource
        .detect(&corpus().join("third-party/pi/agent-sessions_small_v3.jsonl"))
        .is_none());
}

#[test]
fn third_party_synthetic_fixtures() {
    // future_v4_header.jsonl (11 lines, read by eye): one user prompt, one assistant text,
    // two system messages (the second replaces the first: startSeq 2..endSeq 2), one PTC
    // dispatch (a call + its result).
    let f = scry_source::SourceFile::new(
        scry_model::ProviderId::Dsh,
        "x",
        corpus().join("third-party/dsh/future_v4_header.jsonl"),
    );
    let s = DshSource.parse(&f).unwrap();
    assert!(s.warnings.is_empty(), "{:?}", s.warnings);
    assert_eq!(s.header.id, "dsh-synth-v3-0001");
    assert_eq!(s.header.cwd.as_deref(), Some("/tmp/synthetic-dsh-demo"));
    assert_eq!(s.header.agent_name.as_deref(), Some("ptc"));
    assert_eq!(count(&s, EventKind::User), 1);
    assert_eq!(count(&s, EventKind::Assistant), 1);
    let sys: Vec<_> = s
        .events
        .iter()
        .filter(|e| e.subtype.as_deref() == Some("system_message"))
        .collect();
    assert_eq!(sys.len(), 2);
    assert_eq!(sys[0].surface, Surface::Shadowed);
    assert_eq!(sys[1].surface, Surface::Current);
    assert_eq!(sys[1].text, "SYNTHETIC system context");
    let call = s
        .events
        .iter()
        .find(|e| e.kind == EventKind::ToolCall)
        .unwrap();
    assert_eq!(call.call_id.as_deref(), Some("call-synth-sub"));
    let res = s
        .events
        .iter()
        .find(|e| e.kind == EventKind::ToolResult)
        .unwrap();
    assert_eq!(
        (res.tool.as_deref(), res.is_error, res.text.as_str()),
        (Some("read"), Some(false), "SYNTHETIC tool output")
    );
    assert_eq!(s.header.models, vec!["synthetic-model".to_string()]);
    assert!(
        s.total_usage().is_none(),
        "no usage recorded → unknown, not zero"
    );

    // v3_agent_instructions_source.jsonl: the only user/message has source.kind
    // agent-instructions → Meta, not a prompt; no turn starts.
    let f = scry_source::SourceFile::new(
        scry_model::ProviderId::Dsh,
        "y",
        corpus().join("third-party/dsh/v3_agent_instructions_source.jsonl"),
    );
    let s = DshSource.parse(&f).unwrap();
    assert!(s.warnings.is_empty(), "{:?}", s.warnings);
    assert_eq!(count(&s, EventKind::User), 0);
    let meta = s.events.iter().find(|e| e.kind == EventKind::Meta).unwrap();
    assert_eq!(meta.subtype.as_deref(), Some("agent-instructions"));
    assert_eq!(count(&s, EventKind::Assistant), 1);
    assert_eq!(s.turn_count(), 0);
}
