//! The MCP tools of `scry mcp`: their names, descriptions (which say when to use each), input
//! schemas, and how each call becomes the argument list of the CLI command that answers it —
//! so an MCP answer is exactly the CLI's `--json` answer (then redacted and bounded).

use serde_json::{json, Map, Value};

/// One tool.
pub struct ToolSpec {
    /// Tool name.
    pub name: &'static str,
    /// What it answers and when to use it.
    pub description: &'static str,
    /// The CLI command it maps onto.
    pub command: &'static str,
    /// Input properties (JSON Schema), beside the common `max_chars` / `cursor`.
    pub properties: fn() -> Value,
    /// Required properties.
    pub required: &'static [&'static str],
    /// Whether the CLI command pages itself (`turn`): the cursor is passed through.
    pub native_paging: bool,
}

fn id_prop() -> Value {
    // Ids only: the server resolves sessions from discovery and never opens a path it is given.
    json!({"type": "string", "description": "Session reference: full id, provider:id (as in a session uri), or a unique prefix of at least 6 characters (not a file path)"})
}

fn scope_prop() -> Value {
    json!({"type": "string", "description": "Directory subtree: an absolute path, \"cwd\" (the server's working directory) or \"global\" (every directory)"})
}

fn since_prop() -> Value {
    json!({"type": "string", "description": "Only sessions updated since then: 30m, 24h, 7d, 2w, or an ISO date/time"})
}

fn provider_prop() -> Value {
    json!({"type": "string", "description": "Only these providers, comma-separated (claude, codex, gemini, grok, dsh, deepagents, pi, opencode, kilo, cursor, antigravity, mtagent, copilot, qwen, continue, aider)"})
}

/// Every tool, in the order `tools/list` shows them.
pub fn all() -> Vec<ToolSpec> {
    vec![
        ToolSpec {
            name: "list_sessions",
            description: "List recent agent sessions (newest first) with id, uri, provider, title, cwd and time. Use first to find a session of this project (default scope: the server's working directory) or, with scope \"global\", of any project. Cheap.",
            command: "list",
            properties: || {
                json!({
                    "scope": scope_prop(),
                    "provider": provider_prop(),
                    "since": since_prop(),
                    "kind": {"type": "string", "enum": ["main", "subagent", "exec", "all"], "description": "Session kinds; default: main sessions with children folded"},
                    "limit": {"type": "integer", "minimum": 1, "maximum": 500, "description": "Sessions to consider (default 20)"},
                })
            },
            required: &[],
            native_paging: false,
        },
        ToolSpec {
            name: "show_session",
            description: "Overview of one session (layer 1): turns, events by kind, files changed, commands, failures, tokens, the goal (first prompt), title history, final state and where the source files are. Use after list_sessions/search to decide whether to read further. Cheap.",
            command: "show",
            properties: || json!({"id": id_prop()}),
            required: &["id"],
            native_paging: false,
        },
        ToolSpec {
            name: "turns",
            description: "One row per turn of a session (layer 2): time, event range (E-numbers), tool calls, failures, what the user asked and the first lines of the answer, status with evidence. Use to find the turn to read in full with read.",
            command: "turns",
            properties: || json!({"id": id_prop()}),
            required: &["id"],
            native_paging: false,
        },
        ToolSpec {
            name: "read",
            description: "Read in full (layer 3): give exactly one of turns (\"3\", \"2-4\"), event (\"7\", \"5-9\", \"3,8,12\"; at most 50), locator (from another answer) or call (a tool call id). Returns the visible text with code blocks and a directory of tool calls; with raw=true the original source records. Use last, on the turn or event you need; page with cursor.",
            command: "turn",
            properties: || {
                json!({
                    "id": id_prop(),
                    "turns": {"type": "string", "description": "Turn number or range: 3, 2-4 (0 = preamble)"},
                    "event": {"type": "string", "description": "Event numbers: 7, 5-9, 3,8,12"},
                    "locator": {"type": "string", "description": "An event locator as cited in other answers"},
                    "call": {"type": "string", "description": "A tool call id: returns the call and its result"},
                    "raw": {"type": "boolean", "description": "The original source records instead of normalized text"},
                })
            },
            required: &["id"],
            native_paging: true,
        },
        ToolSpec {
            name: "search",
            description: "Search session text. Without session: across sessions, grouped by session, ranked by the best hit (\"have we seen this error before?\"). With session: within that one session (returns its header even with zero hits). Each hit cites session uri, event number and locator. Use it first when looking for an error, a file or a topic. Literal by default (case-insensitive); regex=true for a Rust regex.",
            command: "search",
            properties: || {
                json!({
                    "query": {"type": "string", "description": "Literal text (spaces are not split) or a regex with regex=true"},
                    "regex": {"type": "boolean"},
                    "case": {"type": "boolean", "description": "Match case exactly"},
                    "area": {"type": "string", "enum": ["dialogue", "tools", "artifacts", "all"], "description": "Which content (default dialogue; tools = tool calls and outputs)"},
                    "kind": {"type": "string", "description": "Only these event kinds, comma-separated: user, assistant, thinking, tool_call, tool_result, …"},
                    "session": {"type": "string", "description": "Search only this session (any session reference)"},
                    "scope": scope_prop(),
                    "since": since_prop(),
                    "provider": provider_prop(),
                    "limit": {"type": "integer", "minimum": 1, "maximum": 200, "description": "Sessions (default 20)"},
                    "max_hits": {"type": "integer", "minimum": 1, "maximum": 100, "description": "Hits shown per session (default 5)"},
                    "sort": {"type": "string", "enum": ["relevance", "time"]},
                })
            },
            required: &["query"],
            native_paging: false,
        },
        ToolSpec {
            name: "commands",
            description: "The commands ledger of a session: every shell command, its outcome (exit code only when recorded), the turn and the event that ran it. Use to see what was run, or with failed=true what failed.",
            command: "commands",
            properties: || {
                json!({
                    "id": id_prop(),
                    "failed": {"type": "boolean", "description": "Only failed commands"},
                    "turn": {"type": "integer", "minimum": 0, "description": "Only commands of this turn"},
                })
            },
            required: &["id"],
            native_paging: false,
        },
        ToolSpec {
            name: "files",
            description: "The files ledger of a session: every file written, grouped project / runtime / log, with the events that wrote it. Use to learn what a session changed.",
            command: "files",
            properties: || {
                json!({
                    "id": id_prop(),
                    "group": {"type": "string", "enum": ["project", "runtime", "log", "all"], "description": "Which files (default all)"},
                })
            },
            required: &["id"],
            native_paging: false,
        },
        ToolSpec {
            name: "errors",
            description: "The errors ledger of a session: every failure (failed tool call, command, harness error) and whether it was fixed later, with evidence. Use to learn what went wrong and how it was solved.",
            command: "errors",
            properties: || json!({"id": id_prop()}),
            required: &["id"],
            native_paging: false,
        },
        ToolSpec {
            name: "trace",
            description: "Lineage of a session: ancestors nearest first, descendants (subagents, forks, resumes) and the root or the first unresolvable parent. Use when a session continues or spawned another.",
            command: "trace",
            properties: || json!({"id": id_prop()}),
            required: &["id"],
            native_paging: false,
        },
        ToolSpec {
            name: "graph",
            description: "A session's edges to other sessions (references, hand-offs, lineage) with evidence. Use to find related sessions.",
            command: "graph",
            properties: || json!({"id": id_prop()}),
            required: &["id"],
            native_paging: false,
        },
        ToolSpec {
            name: "context",
            description: "The hand-off pack: what the model of that session sees now (the last compaction summary and what follows), newest kept first when the budget is short. Use to continue someone else's work with the least reading.",
            command: "context",
            properties: || json!({"id": id_prop()}),
            required: &["id"],
            native_paging: false,
        },
        ToolSpec {
            name: "usage",
            description: "Tokens and USD cost per day, week, month, session (subagents folded in) or 5-hour billing block, across every agent, priced from an embedded LiteLLM price table (models without a price are listed as unpriced with their tokens, never $0). Use to answer how much sessions cost or which model / project used the most.",
            command: "usage",
            properties: || {
                json!({
                    "report": {"type": "string", "enum": ["daily", "weekly", "monthly", "session", "blocks"], "description": "The report (default daily)"},
                    "since": {"type": "string", "description": "Requests since: a date (2026-12-01) or a duration (7d)"},
                    "until": {"type": "string", "description": "Requests until the end of this date"},
                    "by": {"type": "string", "enum": ["model", "provider", "project", "machine"], "description": "Breakdown of each row (default model)"},
                    "provider": provider_prop(),
                })
            },
            required: &[],
            native_paging: false,
        },
    ]
}

/// The input schema of `spec`: its properties plus `max_chars` and `cursor`.
pub fn schema(spec: &ToolSpec, default_budget: usize) -> Map<String, Value> {
    let mut props = (spec.properties)();
    if let Some(m) = props.as_object_mut() {
        m.insert(
            "max_chars".into(),
            json!({"type": "integer", "minimum": super::paging::MIN_BUDGET, "maximum": super::paging::MAX_BUDGET,
                   "description": format!("Character budget of the answer (default {default_budget})")}),
        );
        m.insert(
            "cursor".into(),
            json!({"type": "string", "description": "page.next_cursor of a previous answer: continue where it stopped (same other arguments)"}),
        );
    }
    let mut schema = Map::new();
    schema.insert("type".into(), json!("object"));
    schema.insert("properties".into(), props);
    schema.insert("required".into(), json!(spec.required));
    schema.insert("additionalProperties".into(), json!(false));
    schema
}

/// An argument problem, reported as `INVALID_QUERY`.
pub type ArgError = String;

fn string(args: &Map<String, Value>, key: &str) -> Result<Option<String>, ArgError> {
    match args.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(Value::Number(n)) => Ok(Some(n.to_string())),
        Some(other) => Err(format!("{key} must be a string, got {other}")),
    }
}

fn boolean(args: &Map<String, Value>, key: &str) -> Result<bool, ArgError> {
    match args.get(key) {
        None | Some(Value::Null) => Ok(false),
        Some(Value::Bool(b)) => Ok(*b),
        Some(other) => Err(format!("{key} must be true or false, got {other}")),
    }
}

fn integer(args: &Map<String, Value>, key: &str) -> Result<Option<u64>, ArgError> {
    match args.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v
            .as_u64()
            .map(Some)
            .ok_or_else(|| format!("{key} must be a non-negative integer, got {v}")),
    }
}

/// The CLI argument list (after `scry`) that answers `spec` with `args`. `native_cursor` is
/// the CLI cursor of a `read` continuation; `budget` its page size.
pub fn argv(
    spec: &ToolSpec,
    args: &Map<String, Value>,
    native_cursor: Option<&str>,
    budget: usize,
) -> Result<Vec<String>, ArgError> {
    let known = (spec.properties)();
    for k in args.keys() {
        let common = k == "max_chars" || k == "cursor";
        if !common && known.get(k).is_none() {
            return Err(format!("{}: unknown argument {k:?}", spec.name));
        }
    }
    for r in spec.required {
        if string(args, r)?.is_none_or(|s| s.is_empty()) {
            return Err(format!("{}: {r} is required", spec.name));
        }
    }
    let mut v: Vec<String> = vec![spec.command.to_string()];
    match spec.name {
        "list_sessions" => {
            flag(&mut v, "scope", string(args, "scope")?);
            flag(&mut v, "provider", string(args, "provider")?);
            flag(&mut v, "since", string(args, "since")?);
            flag(&mut v, "kind", string(args, "kind")?);
            flag(
                &mut v,
                "limit",
                integer(args, "limit")?.map(|n| n.to_string()),
            );
        }
        "read" => {
            flag(&mut v, "event", string(args, "event")?);
            flag(&mut v, "locator", string(args, "locator")?);
            flag(&mut v, "call", string(args, "call")?);
            flag(&mut v, "max-chars", Some(budget.to_string()));
            flag(&mut v, "cursor", native_cursor.map(str::to_string));
            if boolean(args, "raw")? {
                v.push("--raw".into());
            }
            v.push("--".into());
            v.push(string(args, "id")?.unwrap_or_default());
            if let Some(t) = string(args, "turns")? {
                v.push(t);
            }
            return Ok(v);
        }
        "search" => {
            flag(&mut v, "area", string(args, "area")?);
            flag(&mut v, "kind", string(args, "kind")?);
            flag(&mut v, "session", string(args, "session")?);
            flag(&mut v, "scope", string(args, "scope")?);
            flag(&mut v, "since", string(args, "since")?);
            flag(&mut v, "provider", string(args, "provider")?);
            flag(
                &mut v,
                "limit",
                integer(args, "limit")?.map(|n| n.to_string()),
            );
            flag(
                &mut v,
                "max-hits",
                integer(args, "max_hits")?.map(|n| n.to_string()),
            );
            flag(&mut v, "sort", string(args, "sort")?);
            if boolean(args, "regex")? {
                v.push("--regex".into());
            }
            if boolean(args, "case")? {
                v.push("--case".into());
            }
            v.push("--".into());
            v.push(string(args, "query")?.unwrap_or_default());
            return Ok(v);
        }
        "commands" => {
            flag(
                &mut v,
                "turn",
                integer(args, "turn")?.map(|n| n.to_string()),
            );
            if boolean(args, "failed")? {
                v.push("--failed".into());
            }
        }
        "files" => flag(&mut v, "group", string(args, "group")?),
        "usage" => {
            // Only the reports: `statusline` reads stdin, which is the MCP transport here.
            if let Some(r) = string(args, "report")? {
                if !["daily", "weekly", "monthly", "session", "blocks"].contains(&r.as_str()) {
                    return Err(format!(
                        "usage: report must be daily, weekly, monthly, session or blocks, not {r:?}"
                    ));
                }
                v.push(r);
            }
            flag(&mut v, "since", string(args, "since")?);
            flag(&mut v, "until", string(args, "until")?);
            flag(&mut v, "by", string(args, "by")?);
            flag(&mut v, "provider", string(args, "provider")?);
            return Ok(v);
        }
        _ => {}
    }
    if let Some(id) = string(args, "id")? {
        v.push("--".into());
        v.push(id);
    }
    Ok(v)
}

/// Pushes `--name value` when there is a value.
fn flag(v: &mut Vec<String>, name: &str, value: Option<String>) {
    if let Some(x) = value {
        v.push(format!("--{name}"));
        v.push(x);
    }
}
