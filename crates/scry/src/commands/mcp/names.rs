//! One request type per fact operation (issue 18): the CLI flags (clap), the HTTP query
//! parameters (the OpenAPI table) and the MCP input schema name the fields of the query
//! layer's request type — the same words everywhere, so a parameter means one thing.

use std::collections::BTreeSet;

use clap::{Args, Command};
use serde::Serialize;

use crate::commands::trace;
use crate::commands::{context, graph, ledger_commands, ledger_errors, ledger_files, ledger_jobs};

/// The field names of a request, from its serialization (every field serialized).
fn fields<T: Serialize + Default>() -> BTreeSet<String> {
    match serde_json::to_value(T::default()) {
        Ok(serde_json::Value::Object(m)) => m.keys().cloned().collect(),
        other => panic!("a request serializes as an object: {other:?}"),
    }
}

/// The argument ids of a clap `Args` struct (field names), without `help`.
fn cli<A: Args>() -> BTreeSet<String> {
    A::augment_args(Command::new("x"))
        .get_arguments()
        .map(|a| a.get_id().to_string())
        .filter(|id| id != "help")
        .collect()
}

/// The parameters of an HTTP route: its query parameters and `{id}` in the path.
fn http(path: &str) -> BTreeSet<String> {
    let route = crate::http::openapi::route(path).unwrap_or_else(|| panic!("no route {path}"));
    let mut names: BTreeSet<String> = route.params.iter().map(|p| p.name.to_string()).collect();
    if path.contains("{id}") {
        names.insert("id".into());
    }
    names
}

/// The input properties of an MCP tool, without the common budget and cursor of every tool.
fn mcp(tool: &str) -> BTreeSet<String> {
    let specs = super::tools::all();
    let spec = specs
        .iter()
        .find(|s| s.name == tool)
        .unwrap_or_else(|| panic!("no tool {tool}"));
    match (spec.properties)() {
        serde_json::Value::Object(m) => m.keys().cloned().collect(),
        other => panic!("{tool}: properties are an object: {other}"),
    }
}

fn subset(what: &str, part: &BTreeSet<String>, of: &BTreeSet<String>) {
    let extra: Vec<&String> = part.difference(of).collect();
    assert!(
        extra.is_empty(),
        "{what} names {extra:?}, not fields of the request {of:?}"
    );
}

#[test]
fn commands_names_agree() {
    let f = fields::<scry_query::CommandsRequest>();
    assert_eq!(cli::<ledger_commands::CommandsArgs>(), f);
    assert_eq!(http("/v1/sessions/{id}/commands"), f);
    // MCP leaves `host` out (agents ask by turn or failure).
    subset("the commands tool", &mcp("commands"), &f);
}

#[test]
fn files_names_agree() {
    let f = fields::<scry_query::FilesRequest>();
    assert_eq!(cli::<ledger_files::FilesArgs>(), f);
    assert_eq!(http("/v1/sessions/{id}/files"), f);
    assert_eq!(mcp("files"), f);
}

#[test]
fn errors_names_agree() {
    let f = fields::<scry_query::ErrorsRequest>();
    assert_eq!(cli::<ledger_errors::ErrorsArgs>(), f);
    assert_eq!(http("/v1/sessions/{id}/errors"), f);
    assert_eq!(mcp("errors"), f);
}

#[test]
fn jobs_names_agree() {
    let f = fields::<scry_query::JobsRequest>();
    assert_eq!(cli::<ledger_jobs::JobsArgs>(), f);
    assert_eq!(http("/v1/sessions/{id}/jobs"), f);
}

#[test]
fn graph_names_agree() {
    let f = fields::<scry_query::GraphRequest>();
    assert_eq!(cli::<graph::GraphArgs>(), f);
    assert_eq!(http("/v1/graph/{id}"), f);
    assert_eq!(mcp("graph"), f);
}

#[test]
fn trace_names_agree() {
    let f = fields::<scry_query::TraceRequest>();
    assert_eq!(cli::<trace::TraceArgs>(), f);
    assert_eq!(mcp("trace"), f);
}

#[test]
fn context_names_agree() {
    let f = fields::<scry_query::ContextRequest>();
    assert_eq!(cli::<context::ContextArgs>(), f);
    // MCP's `max_chars` is every tool's answer budget: the pack keeps its default there.
    subset("the context tool", &mcp("context"), &f);
}

/// The CLI's arguments become the request field by field (a flag set on the command line
/// reaches the operation).
#[test]
fn cli_arguments_become_the_request() {
    use clap::Parser;
    #[derive(Parser)]
    struct C {
        #[command(flatten)]
        a: ledger_commands::CommandsArgs,
    }
    let c = C::try_parse_from(["x", "--failed", "--turn", "3", "--host", "h", "s1"]).unwrap();
    assert_eq!(
        c.a.request(),
        scry_query::CommandsRequest {
            id: "s1".into(),
            failed: true,
            turn: Some(3),
            host: Some("h".into()),
        }
    );
    #[derive(Parser)]
    struct F {
        #[command(flatten)]
        a: ledger_files::FilesArgs,
    }
    let f = F::try_parse_from(["x", "--group", "log", "s2"]).unwrap();
    assert_eq!(f.a.request().group, scry_query::GroupFilter::Log);
    assert_eq!(
        serde_json::to_value(f.a.request().group).unwrap(),
        serde_json::json!("log")
    );
    #[derive(Parser)]
    struct X {
        #[command(flatten)]
        a: context::ContextArgs,
    }
    let x = X::try_parse_from(["x", "s3"]).unwrap();
    assert_eq!(
        x.a.request(),
        scry_query::ContextRequest {
            id: "s3".into(),
            ..Default::default()
        }
    );
}

#[test]
fn digest_names_agree() {
    let f = fields::<scry_query::DigestRequest>();
    assert_eq!(cli::<crate::commands::digest::DigestArgs>(), f);
}

#[test]
fn workspace_names_agree() {
    let f = fields::<scry_query::WorkspaceRequest>();
    assert_eq!(cli::<crate::commands::workspace::WorkspaceArgs>(), f);
}
