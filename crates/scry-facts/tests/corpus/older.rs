//! Older Codex eras (real-older/): argv shell calls and `apply_patch` run as a program.
//! Numbers from the raw files (python): 0.23.0 — bare `function_call` `shell` items at lines
//! 10, 14, 25, 30, 34, 46, 57, 61 with `command` argv `bash -lc <cmd>` or
//! `["apply_patch", PATCH]`, outputs' `metadata.exit_code` 0, 0, 0, 0, 1, 0, 0, 1; the TypeScript
//! era 418836f6 — `local_shell_call` items with the same eight argvs, `working_directory`
//! /home/dev/older/work/proj-codex-0.1.2505291658, exit codes likewise.

use scry_facts::shell::WriteOp;
use scry_facts::{Facts, FileGroup, Outcome};

use super::sessions::session;

const COMMANDS: [(&str, Outcome, Option<i64>); 8] = [
    ("ls -la", Outcome::Succeeded, Some(0)),
    ("apply_patch", Outcome::Succeeded, Some(0)),
    ("cat notes.txt", Outcome::Succeeded, Some(0)),
    ("apply_patch", Outcome::Succeeded, Some(0)),
    ("cat missing.txt", Outcome::Failed, Some(1)),
    ("ls -1 | wc -l", Outcome::Succeeded, Some(0)),
    ("echo planning", Outcome::Succeeded, Some(0)),
    ("false", Outcome::Failed, Some(1)),
];

fn check(f: &Facts) {
    let got: Vec<(&str, Outcome, Option<i64>)> = f
        .commands
        .iter()
        .map(|c| {
            let first = if c.command.starts_with("apply_patch") {
                "apply_patch"
            } else {
                c.command.as_str()
            };
            (first, c.outcome, c.exit_code)
        })
        .collect();
    assert_eq!(got, COMMANDS.to_vec());
    let failed: Vec<&str> = f
        .failures
        .iter()
        .filter_map(|x| x.command.as_deref())
        .collect();
    assert_eq!(failed, vec!["cat missing.txt", "false"]);
    let files: Vec<(&str, WriteOp, FileGroup, &str)> = f
        .files
        .writes
        .iter()
        .map(|w| {
            (
                w.display.as_str(),
                w.op,
                w.group,
                w.origin.extractor.as_str(),
            )
        })
        .collect();
    assert_eq!(
        files,
        vec![
            (
                "notes.txt",
                WriteOp::Create,
                FileGroup::Project,
                "shell:apply_patch"
            ),
            (
                "notes.txt",
                WriteOp::Edit,
                FileGroup::Project,
                "shell:apply_patch"
            ),
        ]
    );
}

#[test]
fn codex_0_23_bare_era() {
    check(&Facts::of(&session("60e40a92-cf66-4f4c-82fd-dba660dd934f")));
}

#[test]
fn codex_typescript_era() {
    let f = Facts::of(&session("418836f6-a5f6-43de-9650-b0fede8a3574"));
    check(&f);
    assert!(f
        .commands
        .iter()
        .all(|c| c.cwd.as_deref() == Some("/home/dev/older/work/proj-codex-0.1.2505291658")));
}
