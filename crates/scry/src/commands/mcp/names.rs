//! One request type per operation (issue 18): the CLI flags (clap), the HTTP query
//! parameters (the OpenAPI document) and the MCP input schema are derived from the query
//! layer's request type — these tests check, per type, that every front end names exactly the
//! type's fields (serde), so a parameter one front end adds without the type fails here.

use std::collections::BTreeSet;

use clap::{Args, Command};
use serde::Serialize;

use crate::commands::trace;
use crate::commands::{context, graph, ledger_commands, ledger_errors, ledger_files, ledger_jobs};

/// The field names of a request: from its serialization (every field serialized), checked
/// equal to its JSON Schema's properties (where HTTP and MCP take their parameters from).
fn fields<T: Serialize + Default + schemars::JsonSchema>() -> BTreeSet<String> {
    let names = match serde_json::to_value(T::default()) {
        Ok(serde_json::Value::Object(m)) => m.keys().cloned().collect(),
        other => panic!("a request serializes as an object: {other:?}"),
    };
    let schema: BTreeSet<String> = crate::door::params::<T>()
        .into_iter()
        .map(|p| p.name)
        .collect();
    assert_eq!(schema, names, "the schema names the serialized fields");
    names
}

/// `names` less `revision` (issue 20), which every reader of one session takes beside its
/// request (the CLI's `--revision`, HTTP's `revision`, MCP's `revision` outside the tool's own
/// properties) and which sets the query context, not the request; checked present.
fn less_revision(mut names: BTreeSet<String>) -> BTreeSet<String> {
    assert!(names.remove("revision"), "revision among {names:?}");
    names
}

/// The argument ids of a CLI command (field names), without `help` and the global flags.
fn cli<A: Args>() -> BTreeSet<String> {
    let globals: BTreeSet<String> = crate::cli::command()
        .get_arguments()
        .map(|a| a.get_id().to_string())
        .collect();
    A::augment_args(Command::new("x"))
        .get_arguments()
        .map(|a| a.get_id().to_string())
        .filter(|id| id != "help" && !globals.contains(id))
        .collect()
}

/// The flags of the real subcommand `name` of `scry` (what a user types), as field names.
fn subcommand(name: &str) -> BTreeSet<String> {
    let root = crate::cli::command();
    let globals: BTreeSet<String> = root
        .get_arguments()
        .map(|a| a.get_id().to_string())
        .collect();
    root.find_subcommand(name)
        .unwrap_or_else(|| panic!("no command {name}"))
        .get_arguments()
        .map(|a| a.get_id().to_string())
        .filter(|id| id != "help" && !globals.contains(id))
        .collect()
}

/// The parameters of an HTTP route: its query parameters and `{id}` in the path.
fn http(path: &str) -> BTreeSet<String> {
    let route = crate::http::openapi::route(path).unwrap_or_else(|| panic!("no route {path}"));
    let mut names: BTreeSet<String> = route.query_params().into_iter().map(|p| p.name).collect();
    if path.contains("{id}") {
        names.insert("id".into());
    }
    // The OpenAPI document lists the same.
    let doc = crate::http::openapi::document();
    let documented: BTreeSet<String> = doc["paths"][path]["get"]["parameters"]
        .as_array()
        .unwrap_or_else(|| panic!("{path} documented"))
        .iter()
        .filter_map(|p| p["name"].as_str().map(String::from))
        .collect();
    assert_eq!(
        documented, names,
        "{path}: the document names the route's parameters"
    );
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

#[test]
fn commands_names_agree() {
    let f = fields::<scry_query::CommandsRequest>();
    assert_eq!(less_revision(subcommand("commands")), f);
    assert_eq!(less_revision(cli::<ledger_commands::CommandsArgs>()), f);
    assert_eq!(less_revision(http("/v1/sessions/{id}/commands")), f);
    assert_eq!(mcp("commands"), f);
}

#[test]
fn files_names_agree() {
    let f = fields::<scry_query::FilesRequest>();
    assert_eq!(less_revision(subcommand("files")), f);
    assert_eq!(less_revision(cli::<ledger_files::FilesArgs>()), f);
    assert_eq!(less_revision(http("/v1/sessions/{id}/files")), f);
    assert_eq!(mcp("files"), f);
}

#[test]
fn errors_names_agree() {
    let f = fields::<scry_query::ErrorsRequest>();
    assert_eq!(less_revision(subcommand("errors")), f);
    assert_eq!(less_revision(cli::<ledger_errors::ErrorsArgs>()), f);
    assert_eq!(less_revision(http("/v1/sessions/{id}/errors")), f);
    assert_eq!(mcp("errors"), f);
}

#[test]
fn jobs_names_agree() {
    let f = fields::<scry_query::JobsRequest>();
    assert_eq!(less_revision(subcommand("jobs")), f);
    assert_eq!(less_revision(cli::<ledger_jobs::JobsArgs>()), f);
    assert_eq!(less_revision(http("/v1/sessions/{id}/jobs")), f);
}

#[test]
fn graph_names_agree() {
    let f = fields::<scry_query::GraphRequest>();
    assert_eq!(subcommand("graph"), f);
    assert_eq!(cli::<graph::GraphArgs>(), f);
    assert_eq!(http("/v1/graph/{id}"), f);
    assert_eq!(mcp("graph"), f);
}

#[test]
fn trace_names_agree() {
    let f = fields::<scry_query::TraceRequest>();
    assert_eq!(subcommand("trace"), f);
    assert_eq!(cli::<trace::TraceArgs>(), f);
    assert_eq!(mcp("trace"), f);
}

#[test]
fn context_names_agree() {
    let f = fields::<scry_query::ContextRequest>();
    assert_eq!(subcommand("context"), f);
    assert_eq!(cli::<context::ContextArgs>(), f);
    // MCP's `max_chars` is every tool's answer budget: the pack keeps its default there.
    let mut without = f.clone();
    without.remove("max_chars");
    assert_eq!(mcp("context"), without);
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
        c.a.request,
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
    assert_eq!(f.a.request.group, scry_query::GroupFilter::Log);
    assert_eq!(
        serde_json::to_value(f.a.request.group).unwrap(),
        serde_json::json!("log")
    );
    #[derive(Parser)]
    struct X {
        #[command(flatten)]
        a: context::ContextArgs,
    }
    let x = X::try_parse_from(["x", "s3"]).unwrap();
    assert_eq!(
        x.a.request,
        scry_query::ContextRequest {
            id: "s3".into(),
            ..Default::default()
        }
    );
}

#[test]
fn digest_names_agree() {
    let f = fields::<scry_query::DigestRequest>();
    assert_eq!(subcommand("digest"), f);
    assert_eq!(cli::<crate::commands::digest::DigestArgs>(), f);
}

#[test]
fn workspace_names_agree() {
    let f = fields::<scry_query::WorkspaceRequest>();
    assert_eq!(subcommand("workspace"), f);
    assert_eq!(cli::<crate::commands::workspace::WorkspaceArgs>(), f);
}
