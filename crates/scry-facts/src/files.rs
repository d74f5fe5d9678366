//! The files ledger (SPEC S-F3): one row per write event, never a candidate.
//!
//! Rows come from (1) file tools' arguments (`observed`, extractor `tool:<name>`),
//! (2) provider-recorded change items (`observed`, `item:FileChange` / `item:patch_apply_end`)
//! when no tool call already accounts for them, and (3) shell commands (`derived`,
//! `shell:redirect`, `shell:heredoc`, `shell:tee`, `shell:cp`, `shell:mv`, `shell:sed-i`,
//! `shell:scp`, `shell:python`).
//!
//! Groups are relative to [`project_root`] (the session cwd, else the first absolute working
//! directory a shell call names).
//!
//! A write needs proof the action ran: a file tool's call needs a paired result that is not a
//! failure ([`scry_model::Event::is_failure`]); a shell command needs a paired result, and its
//! non-redirect writes (cp, mv, tee, sed -i, scp, python) also need the command not to have
//! failed. A call without a result (interrupted) writes nothing here.

use std::collections::{BTreeMap, HashSet};

use scry_model::{Event, EventKind, Session};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::file_tools::{changes_writes, is_file_tool, tool_writes, ToolWrite};
use crate::pairing::Pairs;
use crate::paths::{display, group, normalize, resolve, FileGroup};
use crate::provenance::{Origin, Provenance};
use crate::shell::{command_of, cwd_of, is_shell_tool, shell_writes, WriteOp};

/// One write event.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileWrite {
    /// Resolved path (absolute when the session cwd is known; as written on a remote host).
    pub path: String,
    /// Path for people: relative to the cwd for project files, `host:path` for remote ones.
    pub display: String,
    /// Remote host, when written through ssh / scp.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
    /// What happened to the file.
    pub op: WriteOp,
    /// project / runtime / log.
    pub group: FileGroup,
    /// Turn of the action.
    pub turn: u32,
    /// Tool that acted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    /// Provenance, extractor, evidence.
    #[serde(flatten)]
    pub origin: Origin,
}

/// Counts per group; `project + runtime + log == total` by construction.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct GroupCounts {
    /// Project rows / files.
    pub project: usize,
    /// Runtime rows / files.
    pub runtime: usize,
    /// Log rows / files.
    pub log: usize,
    /// All.
    pub total: usize,
}

impl GroupCounts {
    fn add(&mut self, g: FileGroup) {
        match g {
            FileGroup::Project => self.project += 1,
            FileGroup::Runtime => self.runtime += 1,
            FileGroup::Log => self.log += 1,
        }
        self.total += 1;
    }

    /// The invariant: the groups add up to the total.
    pub fn adds_up(&self) -> bool {
        self.project + self.runtime + self.log == self.total
    }
}

/// One distinct file with its write events.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileSummary {
    /// Display path.
    pub display: String,
    /// Resolved path.
    pub path: String,
    /// Remote host.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
    /// Group.
    pub group: FileGroup,
    /// Number of write events.
    pub writes: usize,
    /// First and last turn written.
    pub first_turn: u32,
    /// Last turn written.
    pub last_turn: u32,
}

/// The files ledger of one session.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FilesLedger {
    /// Every write event, in session order.
    pub writes: Vec<FileWrite>,
}

impl FilesLedger {
    /// Write events per group.
    pub fn write_counts(&self) -> GroupCounts {
        let mut c = GroupCounts::default();
        for w in &self.writes {
            c.add(w.group);
        }
        c
    }

    /// Distinct files, in order of first write.
    pub fn files(&self) -> Vec<FileSummary> {
        let mut index: BTreeMap<(Option<String>, String), usize> = BTreeMap::new();
        let mut out: Vec<FileSummary> = Vec::new();
        for w in &self.writes {
            let key = (w.host.clone(), w.path.clone());
            match index.get(&key) {
                Some(&i) => {
                    if let Some(f) = out.get_mut(i) {
                        f.writes += 1;
                        f.last_turn = w.turn;
                    }
                }
                None => {
                    index.insert(key, out.len());
                    out.push(FileSummary {
                        display: w.display.clone(),
                        path: w.path.clone(),
                        host: w.host.clone(),
                        group: w.group,
                        writes: 1,
                        first_turn: w.turn,
                        last_turn: w.turn,
                    });
                }
            }
        }
        out
    }

    /// Distinct files per group.
    pub fn file_counts(&self) -> GroupCounts {
        let mut c = GroupCounts::default();
        for f in self.files() {
            c.add(f.group);
        }
        c
    }

    /// Write events per provenance: (observed, derived).
    pub fn by_provenance(&self) -> (usize, usize) {
        let observed = self
            .writes
            .iter()
            .filter(|w| w.origin.provenance == Provenance::Observed)
            .count();
        (observed, self.writes.len() - observed)
    }

    /// The rows of one group (`None` = all).
    pub fn group(&self, g: Option<FileGroup>) -> Vec<&FileWrite> {
        self.writes
            .iter()
            .filter(|w| g.is_none_or(|g| w.group == g))
            .collect()
    }
}

/// Builds the files ledger of `session`.
pub fn files_ledger(session: &Session) -> FilesLedger {
    let events = &session.events;
    let root = project_root(session);
    let cwd = root.as_deref();
    let pairs = Pairs::build(events);
    let mut writes = Vec::new();
    let mut calls_with_writes: HashSet<&str> = HashSet::new();
    for (i, e) in events.iter().enumerate() {
        if e.kind != EventKind::ToolCall {
            continue;
        }
        let Some(tool) = e.tool.as_deref() else {
            continue;
        };
        let result = pairs.result(i).and_then(|r| events.get(r));
        let Some(result) = result else { continue };
        let args = e.args.clone().unwrap_or(Value::Null);
        if is_file_tool(tool) {
            if result.is_failure() {
                continue;
            }
            let mut ws = tool_writes(tool, &args).unwrap_or_default();
            let mut extractor = format!("tool:{tool}");
            if ws.is_empty() {
                // The arguments were unreadable: the result's own change record may say more.
                if let Some(ch) = result.data.as_ref().and_then(|d| d.get("changes")) {
                    ws = changes_writes(ch);
                    extractor = "item:FileChange".to_string();
                }
            }
            if !ws.is_empty() {
                if let Some(id) = e.call_id.as_deref() {
                    calls_with_writes.insert(id);
                }
            }
            for w in ws {
                writes.push(row(
                    e,
                    tool,
                    &w,
                    None,
                    cwd_of(&args).as_deref(),
                    cwd,
                    Provenance::Observed,
                    &extractor,
                ));
            }
        } else if is_shell_tool(tool) {
            let Some(cmd) = command_of(&args) else {
                continue;
            };
            let failed = result.is_failure();
            let cmd_cwd = cwd_of(&args);
            let sws = shell_writes(&cmd);
            if !sws.is_empty() {
                if let Some(id) = e.call_id.as_deref() {
                    calls_with_writes.insert(id);
                }
            }
            for sw in sws {
                if sw.needs_success && failed {
                    continue;
                }
                let w = ToolWrite {
                    path: sw.path,
                    op: sw.op,
                };
                writes.push(row(
                    e,
                    tool,
                    &w,
                    sw.host.as_deref(),
                    cmd_cwd.as_deref(),
                    cwd,
                    Provenance::Derived,
                    sw.extractor,
                ));
            }
        }
    }
    // Provider-recorded change items that no tool call accounts for.
    for e in events {
        if e.kind == EventKind::ToolCall {
            continue;
        }
        let Some(label) = change_item_label(e) else {
            continue;
        };
        if e.call_id
            .as_deref()
            .is_some_and(|id| calls_with_writes.contains(id))
        {
            continue;
        }
        if e.kind == EventKind::ToolResult && e.is_failure() {
            continue;
        }
        let Some(changes) = e.data.as_ref().and_then(|d| d.get("changes")) else {
            continue;
        };
        let extractor = format!("item:{label}");
        for w in changes_writes(changes) {
            let tool = e.tool.clone().unwrap_or_default();
            writes.push(row(
                e,
                &tool,
                &w,
                None,
                None,
                cwd,
                Provenance::Observed,
                &extractor,
            ));
        }
    }
    writes.sort_by_key(|w| w.origin.evidence.event);
    FilesLedger { writes }
}

/// The directory project files live under: the session's cwd, else (older formats record
/// none) the first absolute working directory a shell call names.
pub fn project_root(session: &Session) -> Option<String> {
    if let Some(c) = session.header.cwd.as_deref().filter(|c| !c.is_empty()) {
        return Some(c.to_string());
    }
    session
        .events
        .iter()
        .filter(|e| e.kind == EventKind::ToolCall && e.tool.as_deref().is_some_and(is_shell_tool))
        .filter_map(|e| e.args.as_ref().and_then(cwd_of))
        .find(|c| c.starts_with('/'))
}

/// `FileChange` / `patch_apply_end` when `e` is such a change item.
pub(crate) fn change_item_label(e: &Event) -> Option<&'static str> {
    let names = [
        e.subtype.as_deref(),
        e.data
            .as_ref()
            .and_then(|d| d.get("type"))
            .and_then(Value::as_str),
    ];
    for n in names.into_iter().flatten() {
        let n = n.to_ascii_lowercase().replace(['_', '-'], "");
        if n == "filechange" {
            return Some("FileChange");
        }
        if n == "patchapplyend" {
            return Some("patch_apply_end");
        }
    }
    None
}

#[allow(clippy::too_many_arguments)]
fn row(
    e: &Event,
    tool: &str,
    w: &ToolWrite,
    host: Option<&str>,
    dir: Option<&str>,
    cwd: Option<&str>,
    provenance: Provenance,
    extractor: &str,
) -> FileWrite {
    let origin = Origin::new(provenance, extractor, e);
    write_row(w, host, dir, cwd, tool, origin, e.turn)
}

/// One row of the ledger: `w` resolved against `dir` (the action's working directory) and the
/// project root `cwd`, grouped and displayed.
pub(crate) fn write_row(
    w: &ToolWrite,
    host: Option<&str>,
    dir: Option<&str>,
    cwd: Option<&str>,
    tool: &str,
    origin: Origin,
    turn: u32,
) -> FileWrite {
    let path = match host {
        Some(_) => normalize(&w.path),
        None => resolve(&w.path, dir, cwd),
    };
    FileWrite {
        display: display(&path, host, cwd),
        group: group(&path, host, cwd),
        path,
        host: host.map(str::to_string),
        op: w.op,
        turn,
        tool: (!tool.is_empty()).then(|| tool.to_string()),
        origin,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pairing::testkit::Script;
    use scry_model::{Header, ProviderId};
    use serde_json::json;

    fn session(s: Script) -> Session {
        let mut h = Header::new(ProviderId::Claude, "s1");
        h.cwd = Some("/home/u/proj".into());
        let mut sess = Session::new(h);
        sess.events = s.events;
        sess
    }

    #[test]
    fn observed_and_derived_rows_grouped() {
        let mut s = Script::default();
        s.user("do it")
            .call("Write", "w1", json!({"file_path": "/home/u/proj/notes.md"}))
            .result("Write", "w1", "ok", None, Some(false))
            .bash("b1", "cd sub && make > build.log", Some(2), "error")
            .bash("b2", "cp notes.md /tmp/notes.bak", Some(0), "")
            .bash("b3", "cp x.md y.md", Some(1), "no such file")
            .call("Edit", "e1", json!({"file_path": "src/a.rs"}))
            .result("Edit", "e1", "String not found", None, Some(true))
            .call("Write", "w2", json!({"file_path": "/home/u/proj/never.md"}));
        let l = files_ledger(&session(s));
        let got: Vec<(&str, FileGroup, &str, Provenance)> = l
            .writes
            .iter()
            .map(|w| {
                (
                    w.display.as_str(),
                    w.group,
                    w.origin.extractor.as_str(),
                    w.origin.provenance,
                )
            })
            .collect();
        assert_eq!(
            got,
            vec![
                (
                    "notes.md",
                    FileGroup::Project,
                    "tool:Write",
                    Provenance::Observed
                ),
                (
                    "sub/build.log",
                    FileGroup::Log,
                    "shell:redirect",
                    Provenance::Derived
                ),
                (
                    "/tmp/notes.bak",
                    FileGroup::Runtime,
                    "shell:cp",
                    Provenance::Derived
                ),
            ]
        );
        assert_eq!(l.writes[0].origin.evidence.handle(), "E2·T1");
        let c = l.write_counts();
        assert!(c.adds_up());
        assert_eq!((c.project, c.runtime, c.log, c.total), (1, 1, 1, 3));
        assert_eq!(l.by_provenance(), (1, 2));
    }

    #[test]
    fn apply_patch_and_change_items_are_not_double_counted() {
        let mut s = Script::default();
        let patch = "*** Begin Patch\n*** Add File: a.md\n+x\n*** Update File: b.rs\n*** Delete File: c.txt\n*** Update File: d.py\n*** Move to: e.py\n*** End Patch";
        s.user("patch")
            .call("apply_patch", "p1", json!({ "input": patch }))
            .result("apply_patch", "p1", "Success", Some(0), None)
            .meta(
                "patch_apply_end",
                Some(json!({"changes": {"/home/u/proj/a.md": {"type": "add"}}})),
            );
        // The change item repeats the call's work: same call id → skipped.
        if let Some(last) = s.events.last_mut() {
            last.call_id = Some("p1".into());
        }
        s.meta(
            "FileChange",
            Some(json!({"changes": [{"path": "/home/u/proj/f.md", "kind": {"type": "update"}}]})),
        );
        let l = files_ledger(&session(s));
        let got: Vec<(&str, WriteOp, &str)> = l
            .writes
            .iter()
            .map(|w| (w.display.as_str(), w.op, w.origin.extractor.as_str()))
            .collect();
        assert_eq!(
            got,
            vec![
                ("a.md", WriteOp::Create, "tool:apply_patch"),
                ("b.rs", WriteOp::Edit, "tool:apply_patch"),
                ("c.txt", WriteOp::Delete, "tool:apply_patch"),
                ("d.py", WriteOp::Delete, "tool:apply_patch"),
                ("e.py", WriteOp::Move, "tool:apply_patch"),
                ("f.md", WriteOp::Edit, "item:FileChange"),
            ]
        );
        assert_eq!(l.files().len(), 6);
    }

    #[test]
    fn scp_remote_and_heredoc_rows() {
        let mut s = Script::default();
        s.user("deploy")
            .bash("b1", "scp dist/app.tgz deploy@web1:/srv/", Some(0), "")
            .bash("b2", "cat > conf.toml <<'EOF'\nx = 1 > 2\nEOF", Some(0), "")
            .bash("b3", "echo 'r.source > a.name'", Some(0), "");
        let l = files_ledger(&session(s));
        let got: Vec<(&str, FileGroup)> = l
            .writes
            .iter()
            .map(|w| (w.display.as_str(), w.group))
            .collect();
        assert_eq!(
            got,
            vec![
                ("web1:/srv/app.tgz", FileGroup::Runtime),
                ("conf.toml", FileGroup::Project)
            ]
        );
    }
}
