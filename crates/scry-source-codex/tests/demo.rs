//! The synthetic demo rollouts under `demo/home/.codex` (embedded by `scry --demo`) stay
//! readable: two sessions, one named by `session_index.jsonl`, a failing command in each.

use std::path::Path;

use scry_model::{EventKind, TitleSource};
use scry_source::{Env, Source};
use scry_source_codex::CodexSource;

#[test]
fn demo_home_has_two_codex_sessions() {
    let home = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../demo/home");
    let src = CodexSource;
    let d = src.discover(&Env::with_home(&home));
    assert_eq!(d.files.len(), 2);
    let mut titled = 0;
    for f in &d.files {
        let s = src.parse(f).unwrap();
        assert!(s.warnings.is_empty(), "{:?}", s.warnings);
        assert_eq!(s.turn_count(), 2);
        assert!(s
            .header
            .cwd
            .as_deref()
            .unwrap()
            .starts_with("/home/demo/projects/"));
        let failed = s
            .events
            .iter()
            .filter(|e| e.kind == EventKind::ToolResult && e.is_failure())
            .count();
        assert_eq!(failed, 1);
        assert!(s
            .events
            .iter()
            .any(|e| e.tool.as_deref() == Some("apply_patch")));
        assert!(s.events.iter().any(|e| e.kind == EventKind::Thinking));
        assert!(s.total_usage().is_some());
        if s.header.title_source == Some(TitleSource::Custom) {
            titled += 1;
            assert_eq!(s.header.title.as_deref(), Some("Signup email validation"));
        }
    }
    assert_eq!(titled, 1);
}
