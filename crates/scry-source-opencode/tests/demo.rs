//! The synthetic OpenCode session of the embedded demo home (`demo/home/.local/share/opencode/
//! storage/`, legacy JSON layout) reads cleanly. Expected values come from the demo files
//! themselves (2 user messages, 6 tool parts of which 2 bash calls record `exit: 1`, 8
//! `step-finish` parts).

use std::path::Path;

use scry_model::EventKind;
use scry_source::{Env, Source};
use scry_source_opencode::OpencodeSource;

#[test]
fn demo_session_reads_cleanly() {
    let home = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../demo/home");
    let d = OpencodeSource.discover(&Env::with_home(home));
    assert!(d.warnings.is_empty(), "{:?}", d.warnings);
    assert_eq!(d.files.len(), 1);
    let s = OpencodeSource.parse(&d.files[0]).unwrap();
    assert!(s.warnings.is_empty(), "{:?}", s.warnings);
    let h = &s.header;
    assert_eq!(h.cwd.as_deref(), Some("/home/demo/projects/webapp"));
    assert_eq!(h.title.as_deref(), Some("Fix formatDate month padding"));
    assert_eq!(s.turn_count(), 2);
    let count = |k: EventKind| s.events.iter().filter(|e| e.kind == k).count();
    assert_eq!(count(EventKind::ToolCall), 6);
    assert_eq!(count(EventKind::ToolResult), 6);
    assert_eq!(s.events.iter().filter(|e| e.is_failure()).count(), 2);
    assert_eq!(s.events.iter().filter(|e| e.usage.is_some()).count(), 8);
    let created = h.created.unwrap().to_string();
    assert!(created.starts_with("2026-11-12"), "{created}");
}
