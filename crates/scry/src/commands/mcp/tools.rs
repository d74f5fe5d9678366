//! The MCP tools of `scry mcp`: their names, descriptions (which say when to use each), input
//! schemas, and how each call becomes the typed request of the query operation that answers
//! the CLI command of the same meaning — so an MCP answer is exactly the CLI's `--json` answer
//! (then redacted and bounded).

use scry_model::ErrorCode;
use scry_query::ops::to_json;
use scry_query::turns::KEEP_JSON;
use scry_query::{Context, QueryError, QueryResult, SearchQuery};
use scry_team::inside;
use scry_team::read::{self, Sessions, Store, Team};
use serde_json::{json, Map, Value};

/// One tool.
pub struct ToolSpec {
    /// Tool name.
    pub name: &'static str,
    /// What it answers and when to use it.
    pub description: &'static str,
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

/// The input properties of a tool answering the query operation of request `T`: the type's
/// parameters (as the CLI's flags and the HTTP API's), but `omit`, with the id described as
/// MCP takes it.
fn typed<T: schemars::JsonSchema>(omit: &[&str]) -> Value {
    let mut props = Map::new();
    for p in crate::door::params::<T>() {
        if omit.contains(&p.name.as_str()) {
            continue;
        }
        let schema = if p.name == "id" {
            id_prop()
        } else {
            p.schema(true)
        };
        props.insert(p.name, schema);
    }
    Value::Object(props)
}

/// The request `T` of a typed tool from its arguments (the common `max_chars` / `cursor`
/// aside).
fn request<T: schemars::JsonSchema + serde::de::DeserializeOwned>(
    args: &Map<String, Value>,
) -> Result<T, ArgError> {
    let given = args
        .iter()
        .filter(|(k, _)| *k != "max_chars" && *k != "cursor")
        .map(|(k, v)| (k.clone(), v.clone()));
    crate::door::request(given, crate::door::Given::Json)
        .map_err(|e| e.message(|k| format!("unknown argument {k:?}")))
}

/// Every tool, in the order `tools/list` shows them.
pub fn all() -> Vec<ToolSpec> {
    vec![
        ToolSpec {
            name: "list_sessions",
            description: "List recent agent sessions (newest first) with id, uri, provider, title, cwd and time. Use first to find a session of this project (default scope: the server's working directory) or, with scope \"global\", of any project. Cheap.",
            // `cursor` is every tool's own continuation.
            properties: || typed::<scry_query::ListRequest>(&["cursor", "machine"]),
            required: &[],
            native_paging: false,
        },
        ToolSpec {
            name: "show_session",
            description: "Overview of one session (layer 1): turns, events by kind, files changed, commands, failures, tokens, the goal (first prompt), title history, final state and where the source files are. Use after list_sessions/search to decide whether to read further. Cheap.",
            properties: || typed::<scry_query::ShowRequest>(&[]),
            required: &["id"],
            native_paging: false,
        },
        ToolSpec {
            name: "turns",
            description: "One row per turn of a session (layer 2): time, event range (E-numbers), tool calls, failures, what the user asked and the first lines of the answer, status with evidence. Use to find the turn to read in full with read.",
            properties: || typed::<scry_query::TurnsRequest>(&[]),
            required: &["id"],
            native_paging: false,
        },
        ToolSpec {
            name: "read",
            description: "Read in full (layer 3): give exactly one of turns (\"3\", \"2-4\"), event (\"7\", \"5-9\", \"3,8,12\"; at most 50), locator (from another answer) or call (a tool call id). Returns the visible text with code blocks and a directory of tool calls; with raw=true the original source records. Use last, on the turn or event you need; page with cursor.",
            // No artifact files over MCP; `max_chars` is the answer's budget and `cursor` the
            // tool's own continuation; the event window is HTTP's.
            properties: || {
                typed::<scry_query::TurnRequest>(&[
                    "artifact",
                    "max_chars",
                    "cursor",
                    "around",
                    "radius",
                ])
            },
            required: &["id"],
            native_paging: true,
        },
        ToolSpec {
            name: "search",
            description: "Search session text. Without session: across sessions, grouped by session, ranked by the best hit (\"have we seen this error before?\"). With session: within that one session (returns its header even with zero hits). Each hit cites session uri, event number and locator. Use it first when looking for an error, a file or a topic. Literal by default (case-insensitive); regex=true for a Rust regex.",
            properties: || typed::<SearchQuery>(&["cursor", "machine"]),
            required: &["query"],
            native_paging: false,
        },
        ToolSpec {
            name: "commands",
            description: "The commands ledger of a session: every shell command, its outcome (exit code only when recorded), the turn and the event that ran it. Use to see what was run, or with failed=true what failed.",
            properties: || typed::<scry_query::CommandsRequest>(&[]),
            required: &["id"],
            native_paging: false,
        },
        ToolSpec {
            name: "files",
            description: "The files ledger of a session: every file written, grouped project / runtime / log, with the events that wrote it. Use to learn what a session changed.",
            properties: || typed::<scry_query::FilesRequest>(&[]),
            required: &["id"],
            native_paging: false,
        },
        ToolSpec {
            name: "errors",
            description: "The errors ledger of a session: every failure (failed tool call, command, harness error) and whether it was fixed later, with evidence. Use to learn what went wrong and how it was solved.",
            properties: || typed::<scry_query::ErrorsRequest>(&[]),
            required: &["id"],
            native_paging: false,
        },
        ToolSpec {
            name: "trace",
            description: "Lineage of a session: ancestors nearest first, descendants (subagents, forks, resumes) and the root or the first unresolvable parent. Use when a session continues or spawned another.",
            properties: || typed::<scry_query::TraceRequest>(&[]),
            required: &["id"],
            native_paging: false,
        },
        ToolSpec {
            name: "graph",
            description: "A session's edges to other sessions (references, hand-offs, lineage) with evidence. Use to find related sessions.",
            properties: || typed::<scry_query::GraphRequest>(&[]),
            required: &["id"],
            native_paging: false,
        },
        ToolSpec {
            name: "context",
            description: "The hand-off pack: what the model of that session sees now (the last compaction summary and what follows), newest kept first when the budget is short. Use to continue someone else's work with the least reading.",
            // `max_chars` is every tool's answer budget: the pack keeps its default.
            properties: || typed::<scry_query::ContextRequest>(&["max_chars"]),
            required: &["id"],
            native_paging: false,
        },
        ToolSpec {
            name: "usage",
            description: "Tokens and USD cost per day, week, month, session (subagents folded in) or 5-hour billing block, across every agent, priced from an embedded LiteLLM price table (models without a price are listed as unpriced with their tokens, never $0). Use to answer how much sessions cost or which model / project used the most.",
            properties: || typed::<scry_query::usage::UsageRequest>(&[]),
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

/// The typed request of `spec` with `args`, answered by the query operation behind the CLI
/// command of the same meaning: its JSON is that command's `--json`. `native_cursor` is the
/// continuation of a `read` page; `budget` its page size. With a team `store` (`mcp --store`,
/// issue 22) the tools that read sessions answer from it ([`either`]); trace, graph and context
/// are refused.
pub fn call(
    ctx: &Context,
    store: Option<&str>,
    spec: &ToolSpec,
    args: &Map<String, Value>,
    native_cursor: Option<&str>,
    budget: usize,
) -> QueryResult<Value> {
    let bad = |m: ArgError| QueryError::usage(ErrorCode::InvalidQuery, m);
    let known = (spec.properties)();
    for k in args.keys() {
        let common = k == "max_chars" || k == "cursor";
        if !common && known.get(k).is_none() {
            return Err(bad(format!("{}: unknown argument {k:?}", spec.name)));
        }
    }
    for r in spec.required {
        if string(args, r).map_err(bad)?.is_none_or(|s| s.is_empty()) {
            return Err(bad(format!("{}: {r} is required", spec.name)));
        }
    }
    // The per-session requests' `revision` (issue 20) is read in the context.
    let revised = |revision: u32| Context {
        revision,
        ..ctx.clone()
    };
    match spec.name {
        "list_sessions" => {
            let req: scry_query::ListRequest = request(args).map_err(bad)?;
            let q = req.query();
            either(
                store,
                |s| read::list(ctx, s, &q, None),
                || Ok(scry_query::list(ctx, &q)?.to_json()),
            )
        }
        "show_session" => {
            let req: scry_query::ShowRequest = request(args).map_err(bad)?;
            let ctx = &revised(req.revision);
            let id = req.id;
            either(
                store,
                |s| read::overview(ctx, s, &id),
                || Ok(scry_query::overview(ctx, &id)?.to_json()),
            )
        }
        "turns" => {
            let req: scry_query::TurnsRequest = request(args).map_err(bad)?;
            let ctx = &revised(req.revision);
            let id = req.id;
            either(
                store,
                |s| read::turns(s, &id, KEEP_JSON),
                || Ok(scry_query::turns(ctx, &id, KEEP_JSON)?.to_json()),
            )
        }
        "read" => {
            let mut req: scry_query::TurnRequest = request(args).map_err(bad)?;
            req.max_chars = budget;
            req.cursor = native_cursor.map(str::to_string);
            let ctx = &revised(req.revision);
            let read = req.read("read: give exactly one of turns, event, locator, call")?;
            either(
                store,
                |s| inside::read(s, &read),
                || Ok(scry_query::read(ctx, &read)?.to_json()),
            )
        }
        "search" => {
            let q: SearchQuery = request(args).map_err(bad)?;
            let ctx = &revised(q.revision);
            either(
                store,
                |s| read::search(ctx, s, &q, None),
                || Ok(scry_query::search(ctx, &q)?.to_json()),
            )
        }
        "commands" => {
            let req: scry_query::CommandsRequest = request(args).map_err(bad)?;
            let ctx = &revised(req.revision);
            either(
                store,
                |s| inside::commands(s, &req),
                || Ok(to_json(&scry_query::commands(ctx, &req)?)),
            )
        }
        "files" => {
            let req: scry_query::FilesRequest = request(args).map_err(bad)?;
            let ctx = &revised(req.revision);
            either(
                store,
                |s| inside::files(s, &req),
                || Ok(to_json(&scry_query::files(ctx, &req)?)),
            )
        }
        "errors" => {
            let req: scry_query::ErrorsRequest = request(args).map_err(bad)?;
            let ctx = &revised(req.revision);
            either(
                store,
                |s| inside::errors(s, &req),
                || Ok(to_json(&scry_query::errors(ctx, &req)?)),
            )
        }
        "trace" => {
            not_from(store, "trace")?;
            let req: scry_query::TraceRequest = request(args).map_err(bad)?;
            Ok(to_json(&scry_query::trace(ctx, &req)?))
        }
        "graph" => {
            not_from(store, "graph")?;
            let req: scry_query::GraphRequest = request(args).map_err(bad)?;
            Ok(to_json(&scry_query::graph(ctx, &req)?))
        }
        "context" => {
            not_from(store, "context")?;
            let req: scry_query::ContextRequest = request(args).map_err(bad)?;
            Ok(to_json(&scry_query::context(ctx, &req)?))
        }
        "usage" => {
            // Only the reports: `statusline` reads stdin, which is the MCP transport here.
            let req: scry_query::usage::UsageRequest = request(args).map_err(bad)?;
            let pricing = scry_query::usage::Pricing {
                prices: if ctx.demo {
                    Default::default()
                } else {
                    scry_sources::config::pricing(&ctx.env).map_err(|e| bad(e.to_string()))?
                },
                now: None,
            };
            match store {
                Some(url) => Ok(to_json(&inside::usage(
                    &mut Store::open(url)?,
                    &req,
                    &pricing,
                    None,
                )?)),
                None => Ok(to_json(&scry_query::usage::usage(ctx, &req, &pricing)?)),
            }
        }
        other => Err(bad(format!("no tool {other:?}"))),
    }
}

/// The answer from the team store at `store` (its JSON: each session with its `machine`),
/// or, without one, the local answer.
fn either<T: Sessions>(
    store: Option<&str>,
    team: impl FnOnce(&mut Store) -> QueryResult<Team<T>>,
    local: impl FnOnce() -> QueryResult<Value>,
) -> QueryResult<Value> {
    match store {
        Some(url) => Ok(team(&mut Store::open(url)?)?.to_json()),
        None => local(),
    }
}

/// Refuses tool `name` when answering from a team store (it is not served from one).
fn not_from(store: Option<&str>, name: &str) -> QueryResult<()> {
    match store {
        Some(_) => Err(QueryError::usage(
            ErrorCode::InvalidQuery,
            format!("{name} is not served from a team store (mcp --store)"),
        )),
        None => Ok(()),
    }
}
