//! Every root thread of both corpus databases rebuilds to exactly the messages LangGraph
//! itself produced (`corpus/langgraph/expected/<db>.json`, written by langgraph 1.2.24's
//! `get_state`; `*.verify.txt` records that the reference matched LangGraph for each thread).

mod common;

use scry_langgraph::{reconstruct, Db};

fn check(db_name: &str, db_path: std::path::PathBuf) {
    let expected: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(
            common::corpus().join(format!("langgraph/expected/{db_name}.json")),
        )
        .unwrap(),
    )
    .unwrap();
    let db = Db::open(&db_path).unwrap();
    let threads = expected.as_array().unwrap();
    assert!(!threads.is_empty());
    for t in threads {
        let id = t["thread_id"].as_str().unwrap();
        let rebuilt = reconstruct::thread_messages(&db, id, "").unwrap();
        assert!(rebuilt.warnings.is_empty(), "{id}: {:?}", rebuilt.warnings);
        let want = t["messages"].as_array().unwrap();
        let got: Vec<serde_json::Value> = rebuilt.messages.iter().map(|m| m.to_json()).collect();
        assert_eq!(got.len(), want.len(), "{id}: message count");
        for (i, (g, w)) in got.iter().zip(want).enumerate() {
            for key in [
                "id",
                "type",
                "content",
                "tool_calls",
                "tool_call_id",
                "status",
            ] {
                assert_eq!(g.get(key), w.get(key), "{id} message {i} field {key}");
            }
            // Beyond the brief's fields: the whole message equals LangGraph's own.
            assert_eq!(g, w, "{id} message {i}");
        }
    }
}

#[test]
fn langgraph_db_matches_langgraph_rebuild() {
    // Includes the delta-channel threads …0e (exit durability + snapshots), …0f (default
    // durability + snapshots) and …10 (stub checkpoint, no snapshot).
    check("langgraph", common::langgraph_db());
}

#[test]
fn dcode_db_matches_langgraph_rebuild() {
    check("dcode", common::dcode_db());
}
