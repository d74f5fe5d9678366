//! `doctor` over real homes: the corpus's real agent files, an environment override, unknown
//! record types from two providers, and broken sources (errors and panics) that must not stop
//! the others.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use scry_model::{Header, ProviderId, WarningKind};
use scry_source::{Discovery, Emitter, Env, Root, Source, SourceError, SourceFile};
use scry_sources::doctor::{ProviderHealth, RootHealth, UnknownRecordCount};
use scry_sources::{doctor, registry, render_text, Exclusions};

fn real_home() -> PathBuf {
    scry_testkit::corpus()
        .join("real/home")
        .canonicalize()
        .expect("corpus real/home")
}

fn health(report: &scry_sources::DoctorReport, p: ProviderId) -> &ProviderHealth {
    report
        .providers
        .iter()
        .find(|h| h.provider == p)
        .unwrap_or_else(|| panic!("{p} not in the report"))
}

fn write(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

/// Every provider with files in corpus/real/home is found, every source parses, and the bytes
/// add up. Expected counts come from the corpus itself, not from scry:
/// - claude 2: `find .claude -name '*.jsonl'` (the session and its subagent transcript);
/// - codex 3, gemini 2 (`find .codex .gemini -name '*.jsonl'`), dsh 4 (`find .dsh -name
///   'session.jsonl.zstd'`), pi 1 (`find .pi -name '*.jsonl'`);
/// - opencode 2: `sqlite3 opencode.db 'select count(*) from session'`; kilo 3: the same on
///   `kilo.db`;
/// - deepagents 2: real/README.md — one thread plus its `task` subagent namespace;
/// - copilot 2: `find .copilot/session-state -name events.jsonl`;
/// - qwen 3: `find .qwen/projects -name '*.jsonl'` (two chats and one subagent transcript);
/// - continue 2: `find .continue/sessions -name '*.json' ! -name sessions.json`;
/// - aider 0: its histories are found from the directory scry runs in, which a built `Env`
///   does not have (the aider crate's tests walk the corpus).
#[test]
fn real_home_every_present_provider_parses() {
    let home = real_home();
    let report = doctor(&Env::with_home(&home), &registry(), &Exclusions::new());
    let expected: BTreeMap<ProviderId, usize> = [
        (ProviderId::Claude, 2),
        (ProviderId::Codex, 3),
        (ProviderId::Gemini, 2),
        (ProviderId::Dsh, 4),
        (ProviderId::Opencode, 2),
        (ProviderId::Kilo, 3),
        (ProviderId::Pi, 1),
        (ProviderId::Deepagents, 2),
        (ProviderId::Copilot, 2),
        (ProviderId::Qwen, 3),
        (ProviderId::Continue, 2),
    ]
    .into();
    for h in &report.providers {
        let want = expected.get(&h.provider).copied().unwrap_or(0);
        assert_eq!(h.files_found, want, "{} files found", h.provider);
        assert_eq!(h.parsed, want, "{} parsed", h.provider);
        assert!(h.failed.is_empty(), "{}: {:?}", h.provider, h.failed);
        assert!(h.discovery_panic.is_none());
        assert!(!h.excluded && h.excluded_files.is_empty());
        if want > 0 {
            assert!(h.events > 0, "{} events", h.provider);
            let slow = h.slowest.as_ref().expect("slowest");
            assert!(slow.path.starts_with(&home), "{}", slow.path.display());
            assert!(h.roots.iter().any(|r| r.exists && r.env_var.is_none()));
        } else {
            assert!(h.slowest.is_none());
        }
    }
    // Bytes: the distinct primary files, stat'ed here.
    let claude = health(&report, ProviderId::Claude);
    let dir = home.join(".claude/projects/-home-dev-work-proj-claude");
    let main = dir.join("029942d1-8e5d-4155-96e8-b9fe03dadf8d.jsonl");
    let sub =
        dir.join("029942d1-8e5d-4155-96e8-b9fe03dadf8d/subagents/agent-a9975201ec1be8441.jsonl");
    let size = |p: &Path| fs::metadata(p).unwrap().len();
    assert_eq!(claude.bytes, size(&main) + size(&sub));
    let opencode = health(&report, ProviderId::Opencode);
    assert_eq!(
        opencode.bytes,
        size(&home.join(".local/share/opencode/opencode.db")),
        "two sessions in one database count its bytes once"
    );
    assert_eq!(report.totals.files_found, expected.values().sum::<usize>());
    assert_eq!(report.totals.parsed, report.totals.files_found);
    assert_eq!((report.totals.failed, report.panics()), (0, 0));
    assert!(report.all_parsed());
    assert_eq!(
        report.totals.bytes,
        report.providers.iter().map(|p| p.bytes).sum::<u64>()
    );

    let text = render_text(&report);
    assert!(
        text.starts_with("26 sources found, 0 excluded, 26 parsed, 0 failed"),
        "{text}"
    );
    assert!(text.contains("\nclaude (Claude Code)\n"), "{text}");
    assert!(text.contains("\ncopilot (GitHub Copilot CLI)\n"), "{text}");
    assert!(
        text.contains("\ngrok (Grok Build): no sessions — "),
        "{text}"
    );
    assert!(
        !text.contains("FAILED") && !text.contains("PANIC"),
        "{text}"
    );
}

/// `CLAUDE_CONFIG_DIR` and `CODEX_HOME` pointing at the corpus: the report names the variable
/// that chose each root, and the defaults are not searched.
#[test]
fn env_override_is_shown() {
    let tmp = tempfile::tempdir().unwrap();
    let home = real_home();
    let env = Env::with_home(tmp.path())
        .var_set(
            "CLAUDE_CONFIG_DIR",
            home.join(".claude").display().to_string(),
        )
        .var_set("CODEX_HOME", home.join(".codex").display().to_string());
    let report = doctor(&env, &registry(), &Exclusions::new());
    let claude = health(&report, ProviderId::Claude);
    assert_eq!(
        claude.roots,
        vec![RootHealth {
            path: home.join(".claude"),
            env_var: Some("CLAUDE_CONFIG_DIR".into()),
            exists: true,
        }]
    );
    assert_eq!((claude.files_found, claude.parsed), (2, 2));
    let codex = health(&report, ProviderId::Codex);
    assert_eq!(codex.roots[0].env_var.as_deref(), Some("CODEX_HOME"));
    assert_eq!((codex.files_found, codex.parsed), (3, 3));
    // Nothing else in the empty home.
    assert_eq!(report.totals.files_found, 5);
    let text = render_text(&report);
    assert!(
        text.contains(&format!(
            "  roots: {} (from $CLAUDE_CONFIG_DIR)\n",
            home.join(".claude").display()
        )),
        "{text}"
    );
    // The JSON form carries the same.
    let json = serde_json::to_value(&report).unwrap();
    let c = &json["providers"][0];
    assert_eq!(c["provider"], "claude");
    assert_eq!(c["roots"][0]["env_var"], "CLAUDE_CONFIG_DIR");
    assert_eq!(c["files_found"], 2);
    assert_eq!(json["totals"]["parsed"], 5);
}

/// Unknown record types, read from two providers' differently worded warnings, counted per
/// type over all files. The counts are the lines written here.
#[test]
fn unknown_record_types_with_counts() {
    let tmp = tempfile::tempdir().unwrap();
    let h = tmp.path();
    let claude_session = |id: &str, mystery: usize| {
        let mut s = format!(
            "{{\"type\":\"user\",\"uuid\":\"u-{id}\",\"sessionId\":\"{id}\",\"timestamp\":\"2026-11-01T00:00:00Z\",\"cwd\":\"/w\",\"message\":{{\"role\":\"user\",\"content\":\"hello\"}}}}\n"
        );
        for i in 0..mystery {
            s.push_str(&format!(
                "{{\"type\":\"mystery-record\",\"uuid\":\"m-{id}-{i}\",\"timestamp\":\"2026-11-01T00:00:01Z\"}}\n"
            ));
        }
        s.push_str(
            "{\"type\":\"other-new\",\"uuid\":\"o\",\"timestamp\":\"2026-11-01T00:00:02Z\"}\n",
        );
        s
    };
    let a = "11111111-1111-4111-8111-111111111111";
    let b = "22222222-2222-4222-8222-222222222222";
    write(
        &h.join(format!(".claude/projects/-w/{a}.jsonl")),
        &claude_session(a, 3),
    );
    write(
        &h.join(format!(".claude/projects/-w/{b}.jsonl")),
        &claude_session(b, 2),
    );
    let codex_id = "01a22cf1-0000-7000-8000-000000000001";
    let mut rollout = format!(
        "{{\"timestamp\":\"2026-11-01T00:00:00.000Z\",\"type\":\"session_meta\",\"payload\":{{\"id\":\"{codex_id}\",\"timestamp\":\"2026-11-01T00:00:00.000Z\",\"cwd\":\"/w\",\"originator\":\"codex_exec\",\"cli_version\":\"0.171.0\"}}}}\n"
    );
    for _ in 0..4 {
        rollout.push_str("{\"timestamp\":\"2026-11-01T00:00:01.000Z\",\"type\":\"mystery_kind\",\"payload\":{}}\n");
    }
    write(
        &h.join(format!(
            ".codex/sessions/2026/11/01/rollout-2026-11-01T00-00-00-{codex_id}.jsonl"
        )),
        &rollout,
    );
    let report = doctor(&Env::with_home(h), &registry(), &Exclusions::new());
    let ty = |t: &str, count, files| UnknownRecordCount {
        record_type: Some(t.into()),
        count,
        files,
        message: None,
    };
    let claude = health(&report, ProviderId::Claude);
    assert_eq!((claude.parsed, claude.failed.len()), (2, 0));
    assert_eq!(
        claude.unknown_records,
        vec![ty("mystery-record", 5, 2), ty("other-new", 2, 2)]
    );
    let unknown = claude
        .warnings
        .iter()
        .find(|w| w.kind == WarningKind::UnknownRecord)
        .unwrap();
    assert_eq!(unknown.count, 4, "one warning per type per file");
    let codex = health(&report, ProviderId::Codex);
    assert_eq!((codex.parsed, codex.failed.len()), (1, 0));
    assert_eq!(codex.unknown_records, vec![ty("mystery_kind", 4, 1)]);
    let text = render_text(&report);
    assert!(
        text.contains("  unknown records: mystery-record ×5, other-new ×2\n"),
        "{text}"
    );
    assert!(
        text.contains("  unknown records: mystery_kind ×4\n"),
        "{text}"
    );
}

/// A provider that finds two sessions and panics on one of them, or in discovery itself.
struct Panicky {
    id: ProviderId,
    dir: PathBuf,
    panic_in_discovery: bool,
    parsed: AtomicUsize,
}

impl Source for Panicky {
    fn id(&self) -> ProviderId {
        self.id
    }
    fn roots(&self, _env: &Env) -> Vec<Root> {
        vec![Root::new(self.dir.clone(), None)]
    }
    fn discover(&self, env: &Env) -> Discovery {
        if self.panic_in_discovery {
            panic!("discovery blew up");
        }
        Discovery {
            roots: self.roots(env),
            files: vec![
                SourceFile::new(self.id, "good", self.dir.join("good")),
                SourceFile::new(self.id, "bad", self.dir.join("bad")),
            ],
            warnings: Vec::new(),
        }
    }
    fn parse_into(&self, file: &SourceFile, _out: &mut Emitter<'_>) -> Result<Header, SourceError> {
        self.parsed.fetch_add(1, Ordering::SeqCst);
        if file.id == "bad" {
            let n: Vec<u8> = Vec::new();
            // An out-of-bounds index, the kind of bug catch_unwind must contain.
            let _ = n[usize::from(file.id.len() > 1)];
        }
        Ok(Header::new(self.id, &file.id))
    }
}

/// Broken sources — a file that is not a session (an error), a reader that panics on one
/// file, a discovery that panics — are reported, and every other source still parses.
#[test]
fn broken_sources_are_reported_and_the_others_parse() {
    let tmp = tempfile::tempdir().unwrap();
    let h = tmp.path();
    // Gemini legacy whole-file JSON that is not JSON: the provider cannot read it at all.
    let bad_gemini = h.join(".gemini/tmp/p/chats/session-2026-01-01T00-00-abcd1234.json");
    write(&bad_gemini, "{not json");
    // OpenCode: a database file that is not SQLite: a discovery warning, nothing listed.
    let bad_db = h.join(".local/share/opencode/opencode.db");
    write(&bad_db, "garbage, not SQLite");
    // pi: binary garbage with a torn tail — readable, so warnings, not a failure.
    write(
        &h.join(".pi/agent/sessions/--w--/2026-11-30T16-01-50-811Z_01a22d30-ecda-727d-b78c-ef0f21e58dab.jsonl"),
        "\u{1}garbage\n{",
    );
    let home = real_home();
    let env = Env::with_home(h).var_set(
        "CLAUDE_CONFIG_DIR",
        home.join(".claude").display().to_string(),
    );
    let mut sources = registry();
    sources.push(Box::new(Panicky {
        id: ProviderId::Mtagent,
        dir: h.join("panicky"),
        panic_in_discovery: false,
        parsed: AtomicUsize::new(0),
    }));
    sources.push(Box::new(Panicky {
        id: ProviderId::Grok,
        dir: h.join("panicky-discovery"),
        panic_in_discovery: true,
        parsed: AtomicUsize::new(0),
    }));
    let report = doctor(&env, &sources, &Exclusions::new());

    let gemini = health(&report, ProviderId::Gemini);
    assert_eq!(
        (gemini.files_found, gemini.parsed, gemini.failed.len()),
        (1, 0, 1)
    );
    assert_eq!(gemini.failed[0].path, bad_gemini);
    assert!(!gemini.failed[0].panicked);
    assert!(!gemini.failed[0].error.is_empty());

    let pi = health(&report, ProviderId::Pi);
    assert_eq!((pi.parsed, pi.failed.len()), (1, 0));
    assert!(pi
        .warnings
        .iter()
        .any(|w| w.kind == WarningKind::CorruptRecord));
    assert!(pi
        .warnings
        .iter()
        .any(|w| w.kind == WarningKind::IncompleteTail));

    let claude = health(&report, ProviderId::Claude);
    assert_eq!((claude.parsed, claude.failed.len()), (2, 0));

    // The registry's mtagent entry finds nothing here; the panicky one comes after it.
    let panicky = report
        .providers
        .iter()
        .rfind(|p| p.provider == ProviderId::Mtagent)
        .unwrap();
    assert_eq!((panicky.files_found, panicky.parsed), (2, 1));
    assert_eq!(panicky.failed.len(), 1);
    assert!(panicky.failed[0].panicked);
    assert_eq!(panicky.failed[0].path, h.join("panicky/bad"));
    assert!(
        panicky.failed[0]
            .error
            .starts_with("panicked: index out of bounds"),
        "{}",
        panicky.failed[0].error
    );
    let disc = report
        .providers
        .iter()
        .rfind(|p| p.provider == ProviderId::Grok)
        .unwrap();
    assert_eq!(
        disc.discovery_panic.as_deref(),
        Some("panicked: discovery blew up")
    );
    assert_eq!(disc.roots[0].path, h.join("panicky-discovery"));

    assert_eq!(report.totals.failed, 2);
    assert_eq!(report.panics(), 2);
    assert!(!report.all_parsed());
    let text = render_text(&report);
    assert!(
        text.contains("  FAILED ~/.gemini/tmp/p/chats/session-2026-01-01T00-00-abcd1234.json: "),
        "{text}"
    );
    assert!(
        text.contains("  PANIC (a bug in scry) ~/panicky/bad: panicked: index out of bounds"),
        "{text}"
    );
    let opencode = health(&report, ProviderId::Opencode);
    assert_eq!(
        (opencode.files_found, opencode.discovery_warnings_total),
        (0, 1)
    );
    assert_eq!(
        opencode.discovery_warnings[0].file.as_deref(),
        Some(bad_db.as_path())
    );
    assert!(
        text.contains(
            "  discovery warnings: 1\n    ~/.local/share/opencode/opencode.db: unreadable: "
        ),
        "{text}"
    );
    assert!(
        text.contains("  DISCOVERY PANIC (a bug in scry): panicked: discovery blew up\n"),
        "{text}"
    );
    assert!(
        text.contains("2 source(s) made a reader panic: that is a bug in scry"),
        "{text}"
    );
}

/// Older releases (corpus/real-older, each laid out as a home): every session file is found
/// and parses. Counts by `find <home> -path '*/projects/*.jsonl'` (claude),
/// `find <home>/.codex/sessions -name 'rollout-*'` (codex) and `find <home> -name 'session-*'`
/// (gemini).
#[test]
fn older_releases_parse() {
    let older = scry_testkit::corpus().join("real-older");
    let cases = [
        ("claude-1.0.71", ProviderId::Claude, 5),
        ("codex-0.1.2505291658", ProviderId::Codex, 2),
        ("codex-0.23.0", ProviderId::Codex, 1),
        ("gemini-0.22.4", ProviderId::Gemini, 1),
    ];
    for (dir, provider, files) in cases {
        let report = doctor(
            &Env::with_home(older.join(dir).join("home")),
            &registry(),
            &Exclusions::new(),
        );
        let h = health(&report, provider);
        assert_eq!((h.files_found, h.parsed), (files, files), "{dir}");
        assert!(h.failed.is_empty(), "{dir}: {:?}", h.failed);
        assert_eq!(
            report.totals.files_found, files,
            "{dir}: nothing else found"
        );
    }
}

/// Sources are parsed on several threads; the report must not depend on scheduling. Two runs
/// over the corpus give the same JSON once wall times are removed.
#[test]
fn report_is_deterministic() {
    fn strip_times(v: &mut serde_json::Value) {
        match v {
            serde_json::Value::Object(m) => {
                m.remove("ms");
                m.remove("elapsed_ms");
                // Which file is slowest is a measurement too.
                m.remove("slowest");
                m.values_mut().for_each(strip_times);
            }
            serde_json::Value::Array(a) => a.iter_mut().for_each(strip_times),
            _ => {}
        }
    }
    let env = Env::with_home(real_home());
    let run = || {
        let mut v = serde_json::to_value(doctor(&env, &registry(), &Exclusions::new())).unwrap();
        strip_times(&mut v);
        v
    };
    assert_eq!(run(), run());
}
