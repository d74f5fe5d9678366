//! One request type per operation (issue 18): the CLI flags (clap), the HTTP query
//! parameters (the OpenAPI document) and the MCP input schema are derived from the query
//! layer's request type — these tests check, per type, that every front end names exactly the
//! type's fields (serde), so a parameter one front end adds without the type fails here.

use std::collections::BTreeSet;

use clap::{Args, Command};
use serde::Serialize;

use crate::commands::{context, graph, ledger_commands, ledger_errors, ledger_files, ledger_jobs};
use crate::commands::{list, search, trace, tui, usage};

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

/// The parameters of an HTTP route, as the request fields they set: its query parameters and
/// `{id}` in the path.
fn http(path: &str) -> BTreeSet<String> {
    let route = crate::http::openapi::route(path).unwrap_or_else(|| panic!("no route {path}"));
    let params: BTreeSet<String> = route.query_params().into_iter().map(|p| p.name).collect();
    let mut names: BTreeSet<String> = params.iter().map(|p| route.field(p).to_string()).collect();
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
    let mut expected = params;
    if path.contains("{id}") {
        expected.insert("id".into());
    }
    assert_eq!(
        documented, expected,
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
    assert_eq!(subcommand("commands"), f);
    assert_eq!(cli::<ledger_commands::CommandsArgs>(), f);
    assert_eq!(http("/v1/sessions/{id}/commands"), f);
    assert_eq!(mcp("commands"), f);
}

#[test]
fn files_names_agree() {
    let f = fields::<scry_query::FilesRequest>();
    assert_eq!(subcommand("files"), f);
    assert_eq!(cli::<ledger_files::FilesArgs>(), f);
    assert_eq!(http("/v1/sessions/{id}/files"), f);
    assert_eq!(mcp("files"), f);
}

#[test]
fn errors_names_agree() {
    let f = fields::<scry_query::ErrorsRequest>();
    assert_eq!(subcommand("errors"), f);
    assert_eq!(cli::<ledger_errors::ErrorsArgs>(), f);
    assert_eq!(http("/v1/sessions/{id}/errors"), f);
    assert_eq!(mcp("errors"), f);
}

#[test]
fn jobs_names_agree() {
    let f = fields::<scry_query::JobsRequest>();
    assert_eq!(subcommand("jobs"), f);
    assert_eq!(cli::<ledger_jobs::JobsArgs>(), f);
    assert_eq!(http("/v1/sessions/{id}/jobs"), f);
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
            revision: 0,
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

/// `names` with `add` and without `remove`.
fn but(names: &BTreeSet<String>, add: &[&str], remove: &[&str]) -> BTreeSet<String> {
    let mut n = names.clone();
    n.extend(add.iter().map(|a| a.to_string()));
    n.retain(|x| !remove.contains(&x.as_str()));
    n
}

#[test]
fn list_names_agree() {
    let f = fields::<scry_query::ListRequest>();
    // `machine` filters a team store's sessions (`--store`, `serve --store`; HTTP refuses it
    // without one).
    assert!(f.contains("machine"));
    assert_eq!(subcommand("list"), f);
    assert_eq!(cli::<list::ListArgs>(), f);
    assert_eq!(http("/v1/sessions"), f);
    // MCP's `cursor` is every tool's own continuation; `mcp --store` takes no machine filter.
    assert_eq!(mcp("list_sessions"), but(&f, &[], &["cursor", "machine"]));
    // `scry tui` takes the list's session filters.
    let filter = fields::<scry_query::ListFilter>();
    assert_eq!(subcommand("tui"), filter);
    assert_eq!(cli::<tui::TuiArgs>(), filter);
}

#[test]
fn search_names_agree() {
    let f = fields::<scry_query::SearchQuery>();
    // `revision` reads an earlier revision of the `session` searched (issue 20).
    assert!(f.contains("machine") && f.contains("revision"));
    assert_eq!(subcommand("search"), f);
    assert_eq!(cli::<search::SearchArgs>(), f);
    // HTTP names the query `q` (the route's alias), for the same field.
    assert_eq!(http("/v1/search"), f);
    assert!(crate::http::openapi::route("/v1/search")
        .unwrap()
        .query_params()
        .iter()
        .any(|p| p.name == "q"));
    assert_eq!(mcp("search"), but(&f, &[], &["cursor", "machine"]));
}

#[test]
fn usage_names_agree() {
    let f = fields::<scry_query::usage::UsageRequest>();
    // The CLI's report is the positional `what` (which also names `statusline`).
    assert_eq!(subcommand("usage"), but(&f, &["what"], &["report"]));
    assert_eq!(cli::<usage::UsageArgs>(), but(&f, &["what"], &["report"]));
    assert_eq!(http("/v1/usage"), f);
    assert_eq!(mcp("usage"), f);
}

/// The HTTP text of each new request type becomes the request field by field, defaults where
/// nothing is given, and a bad enumeration value names its parameter.
#[test]
fn http_text_becomes_list_search_and_usage_requests() {
    use crate::door::{request, Given, Refused};
    let text = |pairs: &[(&str, &str)]| -> Vec<(String, serde_json::Value)> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), serde_json::json!(v)))
            .collect()
    };
    let l: scry_query::ListRequest = request(
        text(&[("kind", "fork"), ("global", ""), ("limit", "7")]),
        Given::Text,
    )
    .unwrap();
    assert_eq!(l.limit, 7);
    assert!(l.filter.global);
    assert_eq!(l.filter.kind, Some(scry_query::KindFilter::Fork));
    let d: scry_query::ListRequest = request(text(&[]), Given::Text).unwrap();
    assert_eq!(d, scry_query::ListRequest::default());
    assert_eq!(d.limit, 20);
    match request::<scry_query::ListRequest>(text(&[("kind", "bogus")]), Given::Text) {
        Err(Refused::Value(name, m)) => {
            assert_eq!(name, "kind");
            assert_eq!(
                m,
                "parameter 'kind' must be one of main, subagent, fork, exec, all, not 'bogus'"
            );
        }
        other => panic!("{other:?}"),
    }
    let q: scry_query::SearchQuery = request(
        text(&[
            ("query", "npm"),
            ("area", "tools"),
            ("sort", "time"),
            ("operator", "or"),
        ]),
        Given::Text,
    )
    .unwrap();
    assert_eq!(
        q,
        scry_query::SearchQuery {
            query: "npm".into(),
            area: scry_store::Area::Tools,
            sort: scry_store::SortOrder::Time,
            operator: scry_store::TermsOperator::Or,
            ..Default::default()
        }
    );
    let u: scry_query::usage::UsageRequest = request(
        text(&[("report", "blocks"), ("by", "machine")]),
        Given::Text,
    )
    .unwrap();
    assert_eq!(u.period, scry_query::usage::Period::Blocks);
    assert_eq!(u.by, Some(scry_query::usage::By::Machine));
    match request::<scry_query::usage::UsageRequest>(text(&[("report", "hourly")]), Given::Text) {
        Err(Refused::Value(name, _)) => assert_eq!(name, "report"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn show_and_turns_names_agree() {
    let f = fields::<scry_query::ShowRequest>();
    assert_eq!(subcommand("show"), f);
    assert_eq!(cli::<crate::commands::show::ShowArgs>(), f);
    assert_eq!(http("/v1/sessions/{id}"), f);
    assert_eq!(mcp("show_session"), f);
    let f = fields::<scry_query::TurnsRequest>();
    assert_eq!(subcommand("turns"), f);
    assert_eq!(cli::<crate::commands::turns::TurnsArgs>(), f);
    assert_eq!(http("/v1/sessions/{id}/turns"), f);
    assert_eq!(mcp("turns"), f);
}

#[test]
fn turn_names_agree() {
    let f = fields::<scry_query::TurnRequest>();
    // The event window (`around`, `radius`) is HTTP's alone.
    let cli_names = but(&f, &[], &["around", "radius"]);
    assert_eq!(subcommand("turn"), cli_names);
    assert_eq!(cli::<crate::commands::turn::TurnArgs>(), cli_names);
    assert_eq!(http("/v1/sessions/{id}/content"), f);
    // MCP reads no artifact file; `max_chars` / `cursor` are every tool's own.
    let mcp_names = but(
        &f,
        &[],
        &["artifact", "max_chars", "cursor", "around", "radius"],
    );
    assert_eq!(mcp("read"), mcp_names);
}

#[test]
fn events_names_agree() {
    let f = fields::<scry_query::EventsRequest>();
    // `--follow` keeps the CLI printing; HTTP follows with `/stream` (the filters alone).
    assert_eq!(subcommand("events"), but(&f, &["follow"], &[]));
    assert_eq!(
        cli::<crate::commands::events::EventsArgs>(),
        but(&f, &["follow"], &[])
    );
    assert_eq!(http("/v1/sessions/{id}/events"), f);
    let filters = fields::<scry_query::EventQuery>();
    assert_eq!(
        http("/v1/sessions/{id}/stream"),
        but(&filters, &["id"], &[])
    );
}

#[test]
fn doctor_names_agree() {
    // No parameters: exclusions come from the context (global flags, config file).
    let f = fields::<scry_query::DoctorRequest>();
    assert!(f.is_empty());
    assert_eq!(subcommand("doctor"), f);
    assert_eq!(cli::<crate::commands::doctor::DoctorArgs>(), f);
}

/// `revision` (issue 20) is a field of every request that reads one session (and of search,
/// for its `session`): the CLI's `--revision`, HTTP's and MCP's `revision` come from it.
#[test]
fn per_session_requests_take_revision() {
    let revisioned = [
        fields::<scry_query::ShowRequest>(),
        fields::<scry_query::TurnsRequest>(),
        fields::<scry_query::TurnRequest>(),
        fields::<scry_query::EventsRequest>(),
        fields::<scry_query::CommandsRequest>(),
        fields::<scry_query::FilesRequest>(),
        fields::<scry_query::ErrorsRequest>(),
        fields::<scry_query::JobsRequest>(),
        fields::<scry_query::SearchQuery>(),
    ];
    for f in revisioned {
        assert!(f.contains("revision"), "{f:?}");
    }
    assert!(!fields::<scry_query::GraphRequest>().contains("revision"));
    assert!(mcp("show_session").contains("revision") && mcp("errors").contains("revision"));
}

/// The batch read and the lineage (HTTP only) read their request types too.
#[test]
fn headers_and_lineage_names_agree() {
    let f = fields::<scry_query::HeadersRequest>();
    assert_eq!(http("/v1/headers"), f);
    let f = fields::<scry_query::LineageRequest>();
    assert_eq!(http("/v1/sessions/{id}/lineage"), f);
    let req = scry_query::HeadersRequest {
        ids: " a, ,b ,".into(),
    };
    assert_eq!(req.references(), ["a", "b"]);
}
