//! The made-up demo session (`demo/home/.qwen`, compiled into `scry --demo`) is a well-formed
//! Qwen Code 0.24.4 log: it reads without warnings, and its calls, results and tokens are the
//! ones written in it.

use std::path::Path;

use scry_model::EventKind;
use scry_source::{Env, Source};
use scry_source_qwen::QwenSource;

#[test]
fn demo_session_reads_cleanly() {
    let home = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../demo/home");
    let d = QwenSource.discover(&Env::with_home(home));
    assert_eq!(d.files.len(), 1);
    let s = QwenSource.parse(&d.files[0]).unwrap();
    assert!(s.warnings.is_empty(), "{:?}", s.warnings);
    assert_eq!(s.header.id, "5a7e0c42-9d1b-4f3e-8c26-1b4d7e9f0a13");
    assert_eq!(s.header.cwd.as_deref(), Some("/home/demo/projects/webapp"));
    assert_eq!(s.turn_count(), 1);
    let calls: Vec<&str> = s
        .events
        .iter()
        .filter(|e| e.kind == EventKind::ToolCall)
        .filter_map(|e| e.tool.as_deref())
        .collect();
    assert_eq!(calls, ["run_shell_command", "edit", "run_shell_command"]);
    let results: Vec<(Option<i64>, Option<u64>)> = s
        .events
        .iter()
        .filter(|e| e.kind == EventKind::ToolResult)
        .map(|e| (e.exit_code, e.duration_ms))
        .collect();
    assert_eq!(
        results,
        [
            (Some(0), Some(212)),
            (None, Some(301)),
            (Some(0), Some(4130))
        ]
    );
    let u = s.total_usage().unwrap();
    // Four requests: prompts 18420 + 18610 + 18790 + 18980, cached 0 + 16384 + 16512 + 16640.
    assert_eq!(u.input + u.cache_read, 74800);
    assert_eq!(u.cache_read, 49536);
    assert_eq!(u.output, 96 + 88 + 70 + 64);
}
