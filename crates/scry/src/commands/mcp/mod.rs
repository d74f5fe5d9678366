//! `scry mcp [--max-chars N]` (S-A2): an MCP server over stdio, on the official Rust SDK
//! (`rmcp`), exposing read-only tools — list sessions, show, turns, read (turns / events /
//! locator / tool call), search (across sessions or within one), the commands / files / errors
//! ledgers, trace, graph and the hand-off context pack.
//!
//! Each tool call is answered by the query operation behind the CLI command of the same meaning
//! (so an MCP answer equals `scry <command> --json`), then redacted (S-R3, `scry-redact`, the same rule as `scry serve`) and bounded to a
//! character budget with a continuation cursor ([`paging`]). Every answer names the session
//! uri it cites (`session`), and the CLI's rows carry their event numbers and locators. Errors
//! come back as tool errors whose text is `{"error": {"code": <S-Q7 code>, "message", …}}`.
//!
//! The stdio framing is scry's own ([`transport`]): JSON-RPC 2.0 parse errors and invalid
//! requests are answered (`-32700` / `-32600`) and notifications before `initialize` are
//! ignored, where the SDK's stdio transport stays silent or ends the handshake.

#[cfg(test)]
mod names;
mod paging;
mod tools;
pub mod transport;

use std::sync::Arc;

use clap::Args;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
    ToolAnnotations,
};
use rmcp::service::{RequestContext, ServerInitializeError};
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use scry_model::ErrorCode;
use serde_json::{json, Map, Value};

use crate::ctx::Ctx;
use crate::error::{CliError, CliResult};
use crate::output::Output;
use paging::Cursor;
use tools::ToolSpec;

/// Arguments of `scry mcp`.
#[derive(Debug, Args)]
pub struct McpArgs {
    /// Default character budget of one tool answer (a call may ask for another with max_chars)
    #[arg(long, value_name = "N", default_value_t = 16_000)]
    pub max_chars: usize,
}

/// What the server tells a client at initialization.
const INSTRUCTIONS: &str = "scry reads the session histories of AI coding agents on this machine (Claude Code, Codex, Gemini CLI, Grok, DSH, Deep Agents, pi, OpenCode, Cursor, …), read-only. Start cheap: list_sessions or search, then show_session / turns, and read only the turn or event you need. Every answer is bounded (max_chars) and paged: when page.next_cursor is set, call again with the same arguments and cursor. Cite facts by session uri and event number / locator as given. Secrets are redacted as [redacted:<kind>].";

/// Runs `scry mcp` until the client closes stdin.
pub fn run(ctx: &Ctx, args: &McpArgs) -> CliResult<Output> {
    if !(paging::MIN_BUDGET..=paging::MAX_BUDGET).contains(&args.max_chars) {
        return Err(CliError::usage(
            ErrorCode::InvalidPageSize,
            format!(
                "--max-chars {} is outside {}..={}",
                args.max_chars,
                paging::MIN_BUDGET,
                paging::MAX_BUDGET
            ),
        ));
    }
    // Keeps the index current while serving (stopped and its lease released on return).
    let _watcher = super::watch::in_process(ctx, "mcp");
    let mut ctx = ctx.clone();
    ctx.json = true;
    ctx.color = false;
    let server = Scry {
        ctx: Arc::new(ctx),
        budget: args.max_chars,
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| CliError::new(ErrorCode::Aborted, format!("cannot start the runtime: {e}")))?;
    runtime.block_on(async move {
        let (stdin, stdout) = rmcp::transport::stdio();
        let running = match server
            .serve(transport::LineTransport::new(stdin, stdout))
            .await
        {
            Ok(r) => r,
            // The client went away before initializing: nothing failed here.
            Err(ServerInitializeError::ConnectionClosed(_)) => return Ok(()),
            Err(e) => {
                return Err(CliError::new(
                    ErrorCode::Aborted,
                    format!("MCP handshake failed: {e}"),
                ))
            }
        };
        running
            .waiting()
            .await
            .map_err(|e| CliError::new(ErrorCode::Aborted, format!("MCP server stopped: {e}")))?;
        Ok::<(), CliError>(())
    })?;
    Ok(Output::default())
}

/// The server: the context every call runs in, and the default budget.
#[derive(Clone)]
struct Scry {
    ctx: Arc<Ctx>,
    budget: usize,
}

impl ServerHandler for Scry {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(
                Implementation::new("scry", env!("CARGO_PKG_VERSION"))
                    .with_title("scry — agent session histories"),
            )
            .with_instructions(INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(
            tools::all().iter().map(|s| tool(s, self.budget)).collect(),
        ))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let this = self.clone();
        let name = request.name.to_string();
        let args = request.arguments.unwrap_or_default();
        let answer = tokio::task::spawn_blocking(move || this.answer(&name, &args))
            .await
            .unwrap_or_else(|e| {
                Err(CliError::new(
                    ErrorCode::Aborted,
                    format!("the tool stopped: {e}"),
                ))
            });
        Ok(match answer {
            Ok(v) => result(v, false),
            Err(e) => result(error_json(&e), true),
        }
        .into())
    }
}

/// The `tools/list` entry of `spec`.
fn tool(spec: &ToolSpec, budget: usize) -> Tool {
    Tool::new(spec.name, spec.description, tools::schema(spec, budget)).with_annotations(
        ToolAnnotations::new()
            .read_only(true)
            .destructive(false)
            .idempotent(true)
            .open_world(false),
    )
}

/// A tool result: the JSON as text (what most clients show the model) and as structured content.
fn result(v: Value, is_error: bool) -> CallToolResult {
    let text = v.to_string();
    let mut r = if is_error {
        CallToolResult::error(vec![ContentBlock::text(text)])
    } else {
        CallToolResult::success(vec![ContentBlock::text(text)])
    };
    r.structured_content = Some(v);
    r
}

/// The error object of a failure (S-Q7 codes, as the CLI prints with `--json`).
fn error_json(e: &CliError) -> Value {
    e.to_json().unwrap_or_else(|| {
        json!({"error": {"code": ErrorCode::Aborted.as_str(), "message": "the command failed", "candidates": []}})
    })
}

impl Scry {
    /// Answers one tool call: runs the query operation, redacts, bounds.
    fn answer(&self, name: &str, args: &Map<String, Value>) -> CliResult<Value> {
        let specs = tools::all();
        let spec = specs
            .iter()
            .find(|s| s.name == name)
            .ok_or_else(|| CliError::usage(ErrorCode::InvalidQuery, format!("no tool {name:?}")))?;
        let budget = match args.get("max_chars") {
            None | Some(Value::Null) => self.budget,
            Some(v) => v
                .as_u64()
                .map(|n| n as usize)
                .filter(|n| (paging::MIN_BUDGET..=paging::MAX_BUDGET).contains(n))
                .ok_or_else(|| {
                    CliError::usage(
                        ErrorCode::InvalidPageSize,
                        format!(
                            "max_chars {v} is outside {}..={}",
                            paging::MIN_BUDGET,
                            paging::MAX_BUDGET
                        ),
                    )
                })?,
        };
        let cursor = match args.get("cursor") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(Cursor::parse(s).ok_or_else(|| {
                CliError::usage(
                    ErrorCode::InvalidCursor,
                    format!("not a cursor of scry mcp: {s:?}"),
                )
            })?),
            Some(v) => {
                return Err(CliError::usage(
                    ErrorCode::InvalidCursor,
                    format!("cursor must be a string, got {v}"),
                ))
            }
        };
        let native = match (&cursor, spec.native_paging) {
            (Some(Cursor::Native(c)), true) => Some(c.as_str()),
            (Some(Cursor::Native(_)), false) | (Some(Cursor::Generic { .. }), true) => {
                return Err(CliError::usage(
                    ErrorCode::InvalidCursor,
                    format!("this cursor does not belong to {name}"),
                ))
            }
            _ => None,
        };
        // The read's own page leaves room for the JSON around its text.
        let mut full = tools::call(
            &self.ctx.query,
            self.ctx.store.as_deref(),
            spec,
            args,
            native,
            budget.saturating_mul(3) / 5,
        )?;
        // The CLI's continuation (read) is taken before redaction touches any string.
        let native_next = if spec.native_paging {
            take_native_cursor(&mut full)
        } else {
            None
        };
        // The same redaction as `scry serve`: every string at every depth; identifier-shaped
        // uris, locators, cursors and paths keep what only looks random.
        let findings = crate::http::redact(&mut full);
        let session = cited_session(&full);
        let overhead = 160 + session.as_ref().map_or(0, |s| s.len());
        let offset = match cursor {
            Some(Cursor::Generic {
                offset,
                fingerprint,
            }) => {
                if fingerprint != paging::fingerprint(&full) {
                    return Err(CliError::usage(
                        ErrorCode::InvalidCursor,
                        "the cursor is stale: the result changed since it was issued; start again without cursor",
                    ));
                }
                offset
            }
            _ => 0,
        };
        let paged = if spec.native_paging {
            if paging::chars(&full) + overhead + 200 > budget {
                paging::compact_session(&mut full);
            }
            let (value, cut) = paging::fit_strings(full, budget.saturating_sub(overhead + 200));
            paging::Paged {
                value,
                page: json!({
                    "truncated": native_next.is_some() || cut,
                    "strings_cut": cut,
                    "next_cursor": native_next.map(|c| Cursor::Native(c).encode()),
                }),
            }
        } else {
            paging::page(&full, offset, budget, overhead)
        };
        Ok(json!({
            "tool": name,
            "session": session,
            "redacted": findings,
            "page": paged.page,
            "result": paged.value,
        }))
    }
}

/// Removes and returns the CLI's continuation cursor of a `read` page.
fn take_native_cursor(v: &mut Value) -> Option<String> {
    let m = v.as_object_mut()?;
    for key in ["next_cursor", "cursor"] {
        if let Some(Value::String(s)) = m.get(key) {
            let s = s.clone();
            m.insert(key.to_string(), json!("(see page.next_cursor)"));
            return Some(s);
        }
    }
    if let Some(Value::Object(p)) = m.get_mut("page") {
        if let Some(Value::String(s)) = p.get("next_cursor") {
            let s = s.clone();
            p.insert("next_cursor".into(), json!("(see page.next_cursor)"));
            return Some(s);
        }
    }
    None
}

/// The uri of the session a result is about (`session.uri`), when it is about one.
fn cited_session(v: &Value) -> Option<String> {
    v.get("session")
        .and_then(|s| s.get("uri"))
        .and_then(Value::as_str)
        .map(str::to_string)
}
