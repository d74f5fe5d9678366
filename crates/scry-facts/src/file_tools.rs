//! Observed writes: file-writing tools and provider-recorded file changes (SPEC S-F3).
//!
//! | tool (any agent) | op | path from args |
//! |---|---|---|
//! | `Write`, `write`, `write_file`, `write_to_file`, `create_file` | write | `file_path`, `filePath`, `path`, `TargetFile`, `target_file`, … |
//! | `Edit`, `MultiEdit`, `edit`, `edit_file`, `replace`, `replace_file_content`, `multi_replace_file_content`, `search_replace`, `str_replace`, `apply_diff`, `insert_content` | edit | same |
//! | `NotebookEdit` | edit | `notebook_path` |
//! | `str_replace_based_edit_tool`, `str_replace_editor` | `command`: create → write, str_replace / insert → edit (view: none) | `path` |
//! | `apply_patch` | from the patch headers: `*** Add File:` create, `*** Update File:` edit (+ `*** Move to:` move), `*** Delete File:` delete | patch text in `input` / `patch` / a string / `command[1]` |
//!
//! Provider-recorded changes (`FileChange` items, Codex `patch_apply_end`) carry a `changes`
//! map `{path: {type: add|update|delete, move_path}}` (or `{path: {add: …}}`, or a list of
//! `{path, kind: {type, move_path}}`); see [`changes_writes`].

use serde_json::Value;

use crate::shell::WriteOp;

/// One write recorded by a tool's arguments or a change item.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolWrite {
    /// The path as recorded.
    pub path: String,
    /// What happened.
    pub op: WriteOp,
}

const WRITE_TOOLS: &[&str] = &[
    "write",
    "write_file",
    "write_to_file",
    "create_file",
    "create",
];

const EDIT_TOOLS: &[&str] = &[
    "edit",
    "multiedit",
    "multi_edit",
    "edit_file",
    "replace",
    "replace_file_content",
    "multi_replace_file_content",
    "search_replace",
    "str_replace",
    "apply_diff",
    "insert_content",
    "notebookedit",
    "notebook_edit",
    "edit_notebook",
];

const PATCH_TOOLS: &[&str] = &["apply_patch", "applypatch", "patch"];

const EDITOR_TOOLS: &[&str] = &["str_replace_based_edit_tool", "str_replace_editor"];

const PATH_KEYS: &[&str] = &[
    "file_path",
    "filepath",
    "filePath",
    "notebook_path",
    "path",
    "TargetFile",
    "target_file",
    "targetFile",
    "absolute_path",
    "filename",
    "file",
];

fn normalized(tool: &str) -> String {
    tool.rsplit("functions.")
        .next()
        .unwrap_or(tool)
        .to_ascii_lowercase()
}

/// True when `tool` is a known file-writing tool.
pub fn is_file_tool(tool: &str) -> bool {
    let n = normalized(tool);
    [WRITE_TOOLS, EDIT_TOOLS, PATCH_TOOLS, EDITOR_TOOLS]
        .iter()
        .any(|t| t.contains(&n.as_str()))
}

/// The writes a file tool's `args` record; `None` when `tool` is not a file tool.
pub fn tool_writes(tool: &str, args: &Value) -> Option<Vec<ToolWrite>> {
    let n = normalized(tool);
    let n = n.as_str();
    if PATCH_TOOLS.contains(&n) {
        return Some(
            patch_text(args)
                .map(|p| patch_files(&p))
                .unwrap_or_default(),
        );
    }
    let op = if WRITE_TOOLS.contains(&n) {
        WriteOp::Write
    } else if EDIT_TOOLS.contains(&n) {
        WriteOp::Edit
    } else if EDITOR_TOOLS.contains(&n) {
        match args.get("command").and_then(Value::as_str) {
            Some("create") => WriteOp::Write,
            Some("str_replace" | "insert" | "undo_edit") => WriteOp::Edit,
            _ => return Some(Vec::new()),
        }
    } else {
        return None;
    };
    let path = path_of(args);
    Some(
        path.map(|path| vec![ToolWrite { path, op }])
            .unwrap_or_default(),
    )
}

/// The file path in a tool's args.
pub fn path_of(args: &Value) -> Option<String> {
    PATH_KEYS.iter().find_map(|k| {
        args.get(*k)
            .and_then(Value::as_str)
            .filter(|s| !s.trim().is_empty())
            .map(str::to_string)
    })
}

fn patch_text(args: &Value) -> Option<String> {
    match args {
        Value::String(s) => Some(s.clone()),
        Value::Object(m) => ["input", "patch", "content", "diff"]
            .iter()
            .find_map(|k| m.get(*k).and_then(Value::as_str).map(str::to_string))
            .or_else(|| {
                m.get("command")
                    .and_then(Value::as_array)
                    .and_then(|a| {
                        a.iter()
                            .filter_map(Value::as_str)
                            .find(|s| s.contains("*** "))
                    })
                    .map(str::to_string)
            }),
        Value::Array(a) => a
            .iter()
            .filter_map(Value::as_str)
            .find(|s| s.contains("*** "))
            .map(str::to_string),
        _ => None,
    }
}

/// Files named by an `apply_patch` envelope's headers.
pub fn patch_files(patch: &str) -> Vec<ToolWrite> {
    let mut out: Vec<ToolWrite> = Vec::new();
    for line in patch.lines() {
        let line = line.trim_end();
        let hdr = |p: &str| line.strip_prefix(p).map(|s| s.trim().to_string());
        if let Some(p) = hdr("*** Add File:") {
            out.push(ToolWrite {
                path: p,
                op: WriteOp::Create,
            });
        } else if let Some(p) = hdr("*** Update File:") {
            out.push(ToolWrite {
                path: p,
                op: WriteOp::Edit,
            });
        } else if let Some(p) = hdr("*** Delete File:") {
            out.push(ToolWrite {
                path: p,
                op: WriteOp::Delete,
            });
        } else if let Some(p) = hdr("*** Move to:") {
            // The update before it moves its file: the source is gone, the target written.
            if let Some(last) = out.last_mut() {
                if last.op == WriteOp::Edit {
                    last.op = WriteOp::Delete;
                }
            }
            out.push(ToolWrite {
                path: p,
                op: WriteOp::Move,
            });
        }
    }
    out.retain(|w| !w.path.is_empty());
    out
}

/// Writes in a provider-recorded `changes` value (FileChange / patch_apply_end).
pub fn changes_writes(changes: &Value) -> Vec<ToolWrite> {
    let mut out = Vec::new();
    match changes {
        Value::Object(map) => {
            for (path, change) in map {
                push_change(&mut out, path, change);
            }
        }
        Value::Array(items) => {
            for it in items {
                if let Some(path) = it.get("path").and_then(Value::as_str) {
                    let change = it.get("kind").unwrap_or(it);
                    push_change(&mut out, path, change);
                }
            }
        }
        _ => {}
    }
    out
}

fn push_change(out: &mut Vec<ToolWrite>, path: &str, change: &Value) {
    let ty = change
        .get("type")
        .and_then(Value::as_str)
        .map(str::to_string)
        .or_else(|| {
            change
                .as_object()
                .and_then(|m| {
                    m.keys()
                        .find(|k| matches!(k.as_str(), "add" | "update" | "delete"))
                })
                .cloned()
        })
        .or_else(|| change.as_str().map(str::to_string));
    let move_to = change
        .get("move_path")
        .or_else(|| change.get("update").and_then(|u| u.get("move_path")))
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty());
    let op = match ty.as_deref() {
        Some("add" | "create") => WriteOp::Create,
        Some("delete" | "remove") => WriteOp::Delete,
        _ => WriteOp::Edit,
    };
    if let Some(m) = move_to {
        out.push(ToolWrite {
            path: path.to_string(),
            op: WriteOp::Delete,
        });
        out.push(ToolWrite {
            path: m.to_string(),
            op: WriteOp::Move,
        });
    } else {
        out.push(ToolWrite {
            path: path.to_string(),
            op,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ops(v: Vec<ToolWrite>) -> Vec<(String, WriteOp)> {
        v.into_iter().map(|w| (w.path, w.op)).collect()
    }

    #[test]
    fn write_edit_and_notebook_tools() {
        let w = tool_writes("Write", &json!({"file_path": "/p/a.md", "content": "x"}));
        assert_eq!(
            ops(w.unwrap_or_default()),
            vec![("/p/a.md".into(), WriteOp::Write)]
        );
        let e = tool_writes("MultiEdit", &json!({"file_path": "b.rs", "edits": []}));
        assert_eq!(
            ops(e.unwrap_or_default()),
            vec![("b.rs".into(), WriteOp::Edit)]
        );
        let n = tool_writes("NotebookEdit", &json!({"notebook_path": "n.ipynb"}));
        assert_eq!(
            ops(n.unwrap_or_default()),
            vec![("n.ipynb".into(), WriteOp::Edit)]
        );
        let a = tool_writes("write_to_file", &json!({"TargetFile": "/w/plan.md"}));
        assert_eq!(
            ops(a.unwrap_or_default()),
            vec![("/w/plan.md".into(), WriteOp::Write)]
        );
        let v = tool_writes(
            "str_replace_based_edit_tool",
            &json!({"command": "view", "path": "x"}),
        );
        assert_eq!(v, Some(Vec::new()));
        assert_eq!(tool_writes("Read", &json!({"file_path": "x"})), None);
    }

    #[test]
    fn apply_patch_headers() {
        let patch = "*** Begin Patch\n*** Add File: notes.md\n+hi\n*** Update File: src/lib.rs\n@@\n-a\n+b\n*** Delete File: old.txt\n*** Update File: a/x.py\n*** Move to: b/x.py\n@@\n*** End Patch\n";
        let w = tool_writes("apply_patch", &json!({ "input": patch })).unwrap_or_default();
        assert_eq!(
            ops(w),
            vec![
                ("notes.md".into(), WriteOp::Create),
                ("src/lib.rs".into(), WriteOp::Edit),
                ("old.txt".into(), WriteOp::Delete),
                ("a/x.py".into(), WriteOp::Delete),
                ("b/x.py".into(), WriteOp::Move),
            ]
        );
        let argv = tool_writes("apply_patch", &json!({"command": ["apply_patch", patch]}));
        assert_eq!(argv.map(|v| v.len()), Some(5));
        let raw = tool_writes("apply_patch", &json!(patch));
        assert_eq!(raw.map(|v| v.len()), Some(5));
    }

    #[test]
    fn change_maps_in_every_shape() {
        let a = changes_writes(
            &json!({"/p/a.rs": {"type": "add"}, "/p/b.rs": {"type": "update", "move_path": "/p/c.rs"}}),
        );
        assert_eq!(
            ops(a),
            vec![
                ("/p/a.rs".into(), WriteOp::Create),
                ("/p/b.rs".into(), WriteOp::Delete),
                ("/p/c.rs".into(), WriteOp::Move),
            ]
        );
        let b = changes_writes(&json!({"/p/d.rs": {"delete": {}}}));
        assert_eq!(ops(b), vec![("/p/d.rs".into(), WriteOp::Delete)]);
        let c = changes_writes(&json!([{"path": "/p/e.rs", "kind": {"type": "update"}}]));
        assert_eq!(ops(c), vec![("/p/e.rs".into(), WriteOp::Edit)]);
    }
}
