//! Which tool calls run shell commands, and how to get the command string out of their
//! arguments.
//!
//! | agent | tool name | command in args |
//! |---|---|---|
//! | Claude Code, Amp | `Bash` | `command` (Amp: `cmd`) |
//! | Codex | `exec_command` | `cmd` (string or argv), `workdir` |
//! | Codex (older) | `shell`, `container.exec`, `local_shell_call` | `command` argv, `workdir` / `working_directory`; `action.command` |
//! | Gemini CLI | `run_shell_command` | `command`, `directory` |
//! | Deep Agents, MT-Agent | `execute` | `command` |
//! | OpenCode, pi, DSH | `bash` | `command`, `workdir` |
//! | Antigravity | `run_command`, `RUN_COMMAND` | `CommandLine`, `Cwd` |
//! | Grok, Cursor | `run_terminal_cmd`, `run_terminal_command` | `command`, `cwd` |
//! | Cline / Roo | `execute_command` | `command`, `cwd` |
//!
//! Names are matched case-insensitively, after dropping a namespace prefix such as
//! `functions.`. An argv array is turned back into a command string: `["bash","-lc","S"]` gives
//! `S`, any other argv is joined with shell quoting.

use serde_json::Value;

/// Known shell tool names (lower case).
const SHELL_TOOLS: &[&str] = &[
    "bash",
    "exec_command",
    "shell",
    "container.exec",
    "local_shell_call",
    "local_shell",
    "run_shell_command",
    "execute",
    "execute_command",
    "run_command",
    "run_terminal_cmd",
    "run_terminal_command",
    "terminal",
    "shell_command",
    "unified_exec",
];

/// Argument keys holding the command, in priority order.
const COMMAND_KEYS: &[&str] = &[
    "command",
    "cmd",
    "CommandLine",
    "commandLine",
    "command_line",
    "script",
];

/// Argument keys holding the working directory, in priority order.
const CWD_KEYS: &[&str] = &[
    "workdir",
    "cwd",
    "Cwd",
    "working_directory",
    "workingDirectory",
    "directory",
    "dir",
];

fn normalized(tool: &str) -> String {
    let t = tool.rsplit("functions.").next().unwrap_or(tool);
    t.to_ascii_lowercase()
}

/// True when `tool` is a known shell tool.
pub fn is_shell_tool(tool: &str) -> bool {
    let n = normalized(tool);
    SHELL_TOOLS.iter().any(|t| *t == n)
}

/// The command string of a shell tool call's `args`, or `None` when there is none.
pub fn command_of(args: &Value) -> Option<String> {
    match args {
        Value::String(s) => non_empty(s.clone()),
        Value::Array(_) => argv_to_command(args),
        Value::Object(map) => {
            for key in COMMAND_KEYS {
                if let Some(v) = map.get(*key) {
                    let cmd = match v {
                        Value::String(s) => non_empty(s.clone()),
                        Value::Array(_) => argv_to_command(v),
                        _ => None,
                    };
                    if cmd.is_some() {
                        return cmd;
                    }
                }
            }
            map.get("action").and_then(command_of)
        }
        _ => None,
    }
}

/// The working directory named in a shell tool call's `args`.
pub fn cwd_of(args: &Value) -> Option<String> {
    let map = args.as_object()?;
    for key in CWD_KEYS {
        if let Some(Value::String(s)) = map.get(*key) {
            if !s.is_empty() {
                return Some(s.clone());
            }
        }
    }
    map.get("action").and_then(cwd_of)
}

/// True when the call asked to run in the background (`run_in_background`, `background`,
/// `is_background`).
pub fn is_background(args: &Value) -> bool {
    ["run_in_background", "background", "is_background"]
        .iter()
        .any(|k| args.get(*k).and_then(Value::as_bool) == Some(true))
}

fn non_empty(s: String) -> Option<String> {
    (!s.trim().is_empty()).then_some(s)
}

/// Turns an argv array into one command string.
fn argv_to_command(v: &Value) -> Option<String> {
    let argv: Vec<&str> = v.as_array()?.iter().filter_map(Value::as_str).collect();
    if argv.is_empty() {
        return None;
    }
    let shell = argv
        .first()
        .map(|a| a.rsplit('/').next().unwrap_or(a))
        .is_some_and(|a| matches!(a, "bash" | "sh" | "zsh" | "dash"));
    if shell
        && argv.len() == 3
        && argv
            .get(1)
            .is_some_and(|f| f.starts_with('-') && f.ends_with('c'))
    {
        return argv.get(2).map(|s| s.to_string());
    }
    Some(argv.iter().map(|a| quote(a)).collect::<Vec<_>>().join(" "))
}

/// Quotes one argument for display / re-parsing when it needs it.
pub fn quote(a: &str) -> String {
    let plain = !a.is_empty()
        && a.chars()
            .all(|c| c.is_alphanumeric() || "-_./=:@%+,".contains(c));
    if plain {
        a.to_string()
    } else {
        format!("'{}'", a.replace('\'', "'\\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn knows_every_provider_shell_tool() {
        for t in [
            "Bash",
            "exec_command",
            "shell",
            "local_shell_call",
            "run_shell_command",
            "execute",
            "bash",
            "RUN_COMMAND",
            "functions.exec_command",
        ] {
            assert!(is_shell_tool(t), "{t}");
        }
        assert!(!is_shell_tool("Write"));
        assert!(!is_shell_tool("BashOutput"));
    }

    #[test]
    fn command_from_string_argv_and_nested_action() {
        assert_eq!(
            command_of(&json!({"command": "ls -la"})).as_deref(),
            Some("ls -la")
        );
        assert_eq!(command_of(&json!({"cmd": "make"})).as_deref(), Some("make"));
        assert_eq!(
            command_of(&json!({"command": ["bash", "-lc", "cd x && make"]})).as_deref(),
            Some("cd x && make")
        );
        assert_eq!(
            command_of(&json!({"command": ["git", "commit", "-m", "two words"]})).as_deref(),
            Some("git commit -m 'two words'")
        );
        assert_eq!(
            command_of(&json!({"action": {"type": "exec", "command": ["ls"]}})).as_deref(),
            Some("ls")
        );
        assert_eq!(
            command_of(&json!({"CommandLine": "npm test", "Cwd": "/p"})).as_deref(),
            Some("npm test")
        );
        assert_eq!(
            cwd_of(&json!({"CommandLine": "npm test", "Cwd": "/p"})).as_deref(),
            Some("/p")
        );
        assert_eq!(
            cwd_of(&json!({"action": {"working_directory": "/w"}})).as_deref(),
            Some("/w")
        );
        assert_eq!(command_of(&json!({"command": ""})), None);
    }
}
