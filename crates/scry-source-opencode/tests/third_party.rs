//! The OpenCode provider against the legacy JSON storage fixtures in
//! corpus/third-party/opencode (agent-sessions stage0: `storage_legacy/`, `storage_v2/`).
//!
//! Expected values were read off the raw files with `cat` / `python3 -m json.tool`: message
//! and part counts per session directory, part `type`s, `state.status`, `state.metadata.exit`,
//! `state.time.end - start`, `tokens` of the `step-finish` part and of the message.

use std::fs;
use std::path::PathBuf;

use scry_model::{EventKind, Session};
use scry_source::{Env, Source};
use scry_source_opencode::OpencodeSource;

fn corpus() -> PathBuf {
    scry_testkit::corpus().join("third-party/opencode")
}

fn parse(rel: &str) -> Session {
    let f = OpencodeSource
        .detect(&corpus().join(rel))
        .expect("recognized as an OpenCode session");
    OpencodeSource.parse(&f).expect("parses")
}

fn kinds(s: &Session) -> Vec<(EventKind, Option<&str>)> {
    s.events
        .iter()
        .map(|e| (e.kind, e.subtype.as_deref()))
        .collect()
}

#[test]
fn every_fixture_file_is_read() {
    // Every session file parses, and every message and part file ends up in the sources.
    let mut all: Vec<PathBuf> = Vec::new();
    let mut stack = vec![corpus()];
    while let Some(d) = stack.pop() {
        for e in fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "json") {
                all.push(p.canonicalize().unwrap());
            }
        }
    }
    let mut seen: Vec<PathBuf> = Vec::new();
    let mut sessions = 0;
    for f in &all {
        if !f.parent().unwrap().parent().unwrap().ends_with("session") {
            continue;
        }
        let sf = OpencodeSource.detect(f).expect("session file recognized");
        let s = OpencodeSource.parse(&sf).unwrap();
        let scanned = OpencodeSource.scan_header(&sf).unwrap();
        assert_eq!(
            (&scanned.id, &scanned.title, &scanned.cwd, scanned.created),
            (
                &s.header.id,
                &s.header.title,
                &s.header.cwd,
                s.header.created
            )
        );
        sessions += 1;
        seen.extend(s.header.sources.iter().map(|p| p.canonicalize().unwrap()));
    }
    assert_eq!(sessions, 3);
    seen.sort();
    all.sort();
    assert_eq!(seen, all, "27 JSON files, all read");
}

#[test]
fn legacy_drift_session() {
    let s = parse("storage_legacy/session/proj_test/ses_s_stage0_drift.json");
    let h = &s.header;
    assert_eq!(h.id, "s_stage0_drift");
    assert_eq!(h.cwd.as_deref(), Some("/tmp/drift"));
    assert_eq!(h.title.as_deref(), Some("OpenCode Drift"));
    assert_eq!(h.agent_version.as_deref(), Some("0.1"));
    assert_eq!(h.models, vec!["gpt-4o-mini"]);
    // The user message has no part files; the two parts lie flat in storage/part/.
    assert_eq!(
        kinds(&s),
        vec![
            (EventKind::User, None),
            (EventKind::ToolCall, None),
            (EventKind::ToolResult, None),
            (EventKind::Assistant, None),
        ]
    );
    assert_eq!(s.events[0].text, "");
    assert_eq!(s.warnings.len(), 1);
    assert_eq!(s.warnings[0].kind, scry_model::WarningKind::MissingSideFile);
    let r = &s.events[2];
    assert_eq!(r.text, "# Title\n\nBody\n");
    assert_eq!(r.is_error, Some(false), "status 'success'");
    assert_eq!(r.exit_code, None, "no metadata.exit recorded");
    assert_eq!(r.duration_ms, Some(500));
    assert_eq!(
        s.events[1].args.as_ref().unwrap()["command"],
        "cat README.md"
    );
    assert_eq!(s.events[3].text, "Read README and extracted the title.");
}

#[test]
fn v2_large_session() {
    let s = parse("storage_v2/session/proj_test/ses_s_stage0_large.json");
    assert_eq!(s.header.agent_version.as_deref(), Some("1.3.17"));
    assert_eq!(
        kinds(&s),
        vec![
            (EventKind::User, None),
            (EventKind::ToolCall, None),
            (EventKind::ToolResult, None),
            (EventKind::Meta, Some("synthetic_text")),
            (EventKind::Meta, Some("file")),
            (EventKind::Thinking, None),
            (EventKind::Meta, Some("step_finish")),
            (EventKind::Compaction, Some("compaction_request")),
            (EventKind::Meta, Some("patch")),
            (EventKind::System, Some("error")),
            (EventKind::User, None),
            (EventKind::Assistant, None),
        ]
    );
    let r = &s.events[2];
    assert_eq!(r.exit_code, Some(1));
    assert!(r.is_failure());
    assert_eq!(s.events[9].text, "The operation was aborted.");
    // step-finish tokens {input:120, output:16} equal the message's tokens: counted once.
    let t = s.total_usage().unwrap();
    assert_eq!((t.input, t.output, t.cache_read), (120, 16, 0));
    assert_eq!(s.turn_count(), 2);
    assert!(s.warnings.is_empty(), "{:?}", s.warnings);
}

#[test]
fn v2_small_session() {
    let s = parse("storage_v2/session/proj_test/ses_s_stage0_small.json");
    let texts: Vec<(EventKind, &str)> =
        s.events.iter().map(|e| (e.kind, e.text.as_str())).collect();
    assert_eq!(
        texts,
        vec![
            (EventKind::User, "Hello"),
            (EventKind::ToolCall, ""),
            (EventKind::ToolResult, "a.txt\nb.txt\n"),
            (EventKind::Assistant, "Found 2 files."),
        ]
    );
    assert_eq!(s.events[2].exit_code, Some(0));
    assert_eq!(s.total_usage(), None, "no tokens recorded anywhere");
    assert!(s.warnings.is_empty());
}

/// Discovery over a `storage/` tree (a symlink to the fixture, nothing copied).
#[cfg(unix)]
#[test]
fn discovery_walks_a_storage_tree() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("opencode");
    fs::create_dir_all(&dir).unwrap();
    std::os::unix::fs::symlink(corpus().join("storage_v2"), dir.join("storage")).unwrap();
    let env = Env::with_home("/nonexistent").var_set("XDG_DATA_HOME", tmp.path().to_str().unwrap());
    let d = OpencodeSource.discover(&env);
    let mut ids: Vec<&str> = d.files.iter().map(|f| f.id.as_str()).collect();
    ids.sort();
    assert_eq!(ids, vec!["s_stage0_large", "s_stage0_small"]);
    assert!(d.warnings.is_empty());
}
