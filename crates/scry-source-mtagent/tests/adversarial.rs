//! Damaged input: torn tails, corrupt lines, unknown record types, unpaired results, a
//! missing or foreign checkpoint database — warnings, never a panic; nothing written.

mod common;

use scry_model::{EventKind, WarningKind};
use scry_source::{Source, SourceFile};
use scry_source_mtagent::MtagentSource;

fn parse(dir: &std::path::Path, name: &str, text: &str) -> scry_model::Session {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    let f = MtagentSource.detect(&path).expect("detected");
    MtagentSource.parse(&f).unwrap()
}

#[test]
fn damaged_lines_unknown_records_unpaired_results() {
    let tmp = tempfile::tempdir().unwrap();
    let text = concat!(
        r#"{"type":"session_start","sessionId":"x1","threadId":"t-missing","cwd":"/w"}"#,
        "\n",
        r#"{"type":"transcript_message","role":"user","content":"go"}"#,
        "\n",
        "{not json\n",
        r#"{"type":"telemetry","n":1}"#,
        "\n",
        r#"{"type":"telemetry","n":2}"#,
        "\n",
        r#"{"type":"transcript_message","role":"tool","tool_call_id":"nope","content":"x"}"#,
        "\n",
        r#"{"type":"transcript_message","role":"assistant","content":[{"type":"text","text":"a"}],"tool_calls":[{"id":"c1","function":{"name":"shell","arguments":"{\"command\":\"ls\"}"}}]}"#,
        "\n",
        r#"{"type":"compression","summary":"s"}"#,
        "\n",
        r#"{"type":"transcript_message","role":"user","content":"[SYSTEM] note"}"#,
        "\n",
        r#"{"type":"transcript_mess"#,
    );
    let s = parse(tmp.path(), "session-1-x1.jsonl", text);
    let kinds: Vec<WarningKind> = s.warnings.iter().map(|w| w.kind).collect();
    assert!(kinds.contains(&WarningKind::CorruptRecord));
    assert!(kinds.contains(&WarningKind::IncompleteTail));
    assert!(kinds.contains(&WarningKind::UnpairedResult));
    let unknown: Vec<_> = s
        .warnings
        .iter()
        .filter(|w| w.kind == WarningKind::UnknownRecord)
        .collect();
    assert_eq!(unknown.len(), 1);
    assert!(unknown[0].message.contains("2 record(s)"));
    // No checkpoints.sqlite beside it.
    assert!(kinds.contains(&WarningKind::Inconsistent));
    let call = s
        .events
        .iter()
        .find(|e| e.kind == EventKind::ToolCall)
        .unwrap();
    assert_eq!(call.tool.as_deref(), Some("shell"));
    assert_eq!(call.args.as_ref().unwrap()["command"], "ls");
    let unpaired = s
        .events
        .iter()
        .find(|e| e.kind == EventKind::ToolResult)
        .unwrap();
    assert_eq!(unpaired.data.as_ref().unwrap()["unconfirmed"], true);
    assert!(s
        .events
        .iter()
        .any(|e| e.subtype.as_deref() == Some("system_injected")));
    // A compression without counts shadows everything before it.
    assert!(s
        .events
        .iter()
        .filter(|e| e.raw.line < 8 && e.raw.line > 1)
        .all(|e| e.surface == scry_model::Surface::Shadowed));
}

#[test]
fn foreign_and_corrupt_checkpoint_databases() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("checkpoints.sqlite"), b"garbage").unwrap();
    let s = parse(
        tmp.path(),
        "session-2-y.jsonl",
        "{\"type\":\"session_start\",\"sessionId\":\"y\",\"threadId\":\"t\"}\n",
    );
    assert!(s.warnings.iter().any(|w| w.kind == WarningKind::Unreadable));
    // The orphan listing of a corrupt database is a discovery warning, not a failure.
    let home = tempfile::tempdir().unwrap();
    let proj = home.path().join(".mtagent/history/abc");
    std::fs::create_dir_all(&proj).unwrap();
    std::fs::write(proj.join("checkpoints.sqlite"), b"garbage").unwrap();
    let d = MtagentSource.discover(&scry_source::Env::with_home(home.path()));
    assert!(d.files.is_empty());
    assert_eq!(d.warnings.len(), 1);
    let f = SourceFile::new(
        scry_model::ProviderId::Mtagent,
        "t",
        proj.join("checkpoints.sqlite"),
    );
    assert!(MtagentSource.parse(&f).is_err());
}

#[test]
fn fixture_directories_are_not_touched() {
    let home = common::home().join(".mtagent/history");
    let snapshot = || {
        let mut v: Vec<(String, u64)> = walk(&home);
        v.sort();
        v
    };
    let before = snapshot();
    for f in common::files() {
        MtagentSource.parse(&f).unwrap();
    }
    assert_eq!(snapshot(), before);
}

fn walk(dir: &std::path::Path) -> Vec<(String, u64)> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push((p.display().to_string(), e.metadata().unwrap().len()));
        }
    }
    out
}
