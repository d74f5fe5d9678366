//! The synthetic demo session (`demo/home/.mtagent`, written by `fixtures/generate.py --demo`).

mod common;

use std::path::Path;

use scry_model::EventKind;
use scry_source::{Env, Source};
use scry_source_mtagent::MtagentSource;

#[test]
fn demo_session() {
    let home = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../demo/home");
    let d = MtagentSource.discover(&Env::with_home(home));
    assert!(d.warnings.is_empty());
    assert_eq!(d.files.len(), 1);
    let s = MtagentSource.parse(&d.files[0]).unwrap();
    assert!(s.warnings.is_empty(), "{:?}", s.warnings);
    assert_eq!(
        s.header.cwd.as_deref(),
        Some("/home/demo/projects/todo-api")
    );
    assert_eq!(s.turn_count(), 2);
    assert_eq!(common::count(&s, EventKind::ToolCall), 2);
    assert_eq!(common::count(&s, EventKind::ToolResult), 2);
    let failed = s
        .events
        .iter()
        .filter(|e| e.kind == EventKind::ToolResult && e.exit_code == Some(1))
        .count();
    assert_eq!(failed, 1);
    assert_eq!(common::with_subtype(&s, "approval_decision").len(), 1);
}
