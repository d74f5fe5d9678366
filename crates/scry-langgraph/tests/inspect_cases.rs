//! Hand-built databases for the inspector and thread lookup: LIKE metacharacters in
//! prefixes, ambiguity, subagent namespaces, truncation at the `--max-content` boundary, the
//! `[SYSTEM]` preamble rule, missing tables, a non-SQLite file, argument validation and the
//! database location rules.

mod common;

use std::path::Path;

use common::fixture::*;
use scry_langgraph::inspect::{self, InspectArgs, Mode};
use scry_langgraph::threads;
use scry_source::Env;

#[test]
fn like_metacharacters_are_literal_and_ambiguity_lists_candidates() {
    let fx = fixture(true);
    let blob = checkpoint_blob(Some(M::Array(vec![])));
    for t in [
        "a%b-1", "axb-1", "a_c-1", "abc-1", "a\\d-1", "aXd-1", "dup-1", "dup-2",
    ] {
        fx.checkpoint(t, "", "c1", None, &blob, "2026-11-02T10:00:00+00:00");
    }
    // A subagent namespace of another id is never a root thread.
    fx.checkpoint(
        "sub-only",
        "tools:x",
        "c1",
        None,
        &blob,
        "2026-11-02T10:00:00+00:00",
    );
    let db = fx.db();
    assert_eq!(threads::resolve_thread_id(&db, "a%").unwrap(), "a%b-1");
    assert_eq!(threads::resolve_thread_id(&db, "a_").unwrap(), "a_c-1");
    assert_eq!(threads::resolve_thread_id(&db, "a\\").unwrap(), "a\\d-1");
    assert_eq!(threads::resolve_thread_id(&db, "dup-2").unwrap(), "dup-2");
    match threads::resolve_thread_id(&db, "dup") {
        Err(threads::ResolveError::Ambiguous(c)) => assert_eq!(c, ["dup-1", "dup-2"]),
        other => panic!("{other:?}"),
    }
    assert_eq!(
        threads::resolve_thread_id(&db, "sub-only"),
        Err(threads::ResolveError::NotFound("sub-only".into()))
    );
    let out = run(&fx.path, |a| a.thread_id = Some("dup".into()));
    assert_eq!(
        (out.exit_code, out.stderr.join("")),
        (1, "Thread prefix is ambiguous:\n  dup-1\n  dup-2".into())
    );
    let out = run(&fx.path, |a| a.thread_id = Some("zzz".into()));
    assert_eq!(out.stderr, ["Thread not found: zzz"]);
    // Listing: only root threads.
    let listed = threads::list_threads(&db, None, false).unwrap();
    assert_eq!(listed.len(), 8);
    assert!(listed.iter().all(|t| t.thread_id != "sub-only"));
}

#[test]
fn truncation_at_max_content_boundary() {
    let fx = fixture(true);
    let ten = "0123456789";
    let tool_call = kw(vec![
        ("name", "w".into()),
        ("args", kw(vec![("b", "é".into()), ("a", 1.into())])),
        ("id", "c1".into()),
    ]);
    let msgs = M::Array(vec![
        msg("human", "h1", ten.into(), vec![]),
        msg(
            "ai",
            "a1",
            M::Array(vec![
                kw(vec![
                    ("type", "reasoning".into()),
                    ("reasoning", "hidden".into()),
                ]),
                kw(vec![("type", "text".into()), ("text", "ééééé".into())]),
            ]),
            vec![("tool_calls", M::Array(vec![tool_call]))],
        ),
    ]);
    fx.checkpoint(
        "t1",
        "",
        "c1",
        None,
        &checkpoint_blob(Some(msgs)),
        "2026-11-02T10:00:00+00:00",
    );
    // `{"b": "é", "a": 1}` is 18 code points.
    for (max, truncated, args_truncated) in [
        (10, false, true),
        (9, true, true),
        (18, false, false),
        (17, false, true),
    ] {
        let out = run(&fx.path, |a| {
            a.thread_id = Some("t1".into());
            a.mode = Mode::Transcript;
            a.max_content = max;
        });
        let j = out.json().unwrap();
        let user = &j["turns"][0]["messages"][0];
        assert_eq!(user["content_chars"], 10);
        assert_eq!(user["content_truncated"], truncated, "max {max}");
        if truncated {
            assert_eq!(user["content"], format!("{}…", &ten[..max as usize]));
        }
        let ai = &j["turns"][0]["messages"][1];
        assert_eq!(
            ai["content"].as_str().unwrap().chars().count(),
            5,
            "reasoning excluded, é counted once"
        );
        let call = &ai["tool_calls"][0];
        assert_eq!(call["args_truncated"], args_truncated, "max {max}");
        if args_truncated {
            let s = call["args"].as_str().unwrap();
            assert_eq!(
                s,
                format!(
                    "{}…",
                    "{\"b\": \"é\", \"a\": 1}"
                        .chars()
                        .take(max as usize)
                        .collect::<String>()
                )
            );
        } else {
            assert_eq!(call["args"], serde_json::json!({"b": "é", "a": 1}));
        }
    }
}

#[test]
fn system_prefixed_human_goes_to_preamble() {
    let fx = fixture(true);
    let msgs = M::Array(vec![
        msg("system", "s1", "sys".into(), vec![]),
        msg("human", "h0", "[SYSTEM] injected".into(), vec![]),
        msg("human", "h1", "real".into(), vec![]),
        msg("ai", "a1", "ok".into(), vec![]),
    ]);
    fx.checkpoint(
        "t1",
        "",
        "c1",
        None,
        &checkpoint_blob(Some(msgs)),
        "2026-11-02T10:00:00+00:00",
    );
    let out = run(&fx.path, |a| {
        a.thread_id = Some("t1".into());
        a.mode = Mode::Transcript;
    });
    let j = out.json().unwrap();
    assert_eq!(j["preamble"].as_array().unwrap().len(), 2);
    assert_eq!(j["preamble"][1]["role"], "user");
    assert_eq!(j["turn_count"], 1);
    assert_eq!(j["turns"][0]["start_message_index"], 2);
    let out = run(&fx.path, |a| a.thread_id = Some("t1".into()));
    let j = out.json().unwrap();
    assert_eq!(j["latest_turn"]["stored_turn_number"], 1);
    assert_eq!(j["latest_turn"]["turn_id"], serde_json::Value::Null);
}

#[test]
fn missing_tables_non_sqlite_and_missing_file() {
    let dir = tempfile::tempdir().unwrap();
    let only_checkpoints = dir.path().join("half.db");
    rusqlite::Connection::open(&only_checkpoints)
        .unwrap()
        .execute_batch("CREATE TABLE checkpoints (x); CREATE TABLE other (y);")
        .unwrap();
    let out = run(&only_checkpoints, |a| a.list = Some(3));
    assert_eq!(
        (out.exit_code, out.stderr.clone()),
        (
            1,
            vec!["Not a supported sessions database; missing tables: writes".to_string()]
        )
    );
    let text = dir.path().join("notes.txt");
    std::fs::write(
        &text,
        "this is not a database, just text that is long enough to have a header",
    )
    .unwrap();
    let out = run(&text, |a| a.list = Some(3));
    assert_eq!(out.exit_code, 1);
    assert!(out.stderr[0].contains("not a database"), "{:?}", out.stderr);
    let missing = dir.path().join("nope.db");
    let out = run(&missing, |a| a.list = Some(3));
    assert_eq!(
        out.stderr,
        [format!(
            "Sessions database not found: {}",
            missing.display()
        )]
    );
    assert!(!missing.exists(), "opening never creates the file");
}

#[test]
fn argument_validation_and_list_warnings() {
    let db = common::langgraph_db();
    type Case = (Box<dyn Fn(&mut InspectArgs)>, &'static str);
    let cases: Vec<Case> = vec![
        (
            Box::new(|a| a.max_content = 0),
            "--max-content must be positive",
        ),
        (Box::new(|a| a.list = Some(0)), "--list must be positive"),
        (Box::new(|_| {}), "Provide a thread ID or use --list N"),
        (
            Box::new(|a| {
                a.list = Some(1);
                a.thread_id = Some("x".into())
            }),
            "Use either a thread ID or --list N, not both",
        ),
    ];
    for (f, msg) in cases {
        let out = run(&db, |a| f(a));
        assert_eq!((out.exit_code, out.stderr.join("")), (1, msg.to_string()));
    }
    let out = run(&db, |a| {
        a.list = Some(2);
        a.mode = Mode::LatestTurn;
        a.max_content = 7
    });
    assert!(
        out.json().unwrap().get("warnings").is_none(),
        "--max-content alone is not warned about"
    );
    let out = run(&db, |a| {
        a.list = Some(2);
        a.include_metadata = true
    });
    assert_eq!(
        out.json().unwrap()["warnings"][0],
        "--mode and --include-metadata are ignored when listing threads."
    );
}

#[test]
fn database_location_rules() {
    let env = Env::with_home("/home/u");
    assert_eq!(
        inspect::default_db_path(&env).unwrap(),
        Path::new("/home/u/.deepagents/.state/sessions.db")
    );
    let e = env.clone().var_set("DEEPAGENTS_HOME", "~/profiles/a");
    assert_eq!(
        inspect::default_db_path(&e).unwrap(),
        Path::new("/home/u/profiles/a/.state/sessions.db")
    );
    let e = env.clone().var_set("DEEPAGENTS_HOME", "/srv/da");
    assert_eq!(
        inspect::default_db_path(&e).unwrap(),
        Path::new("/srv/da/.state/sessions.db")
    );
    let e = env
        .clone()
        .var_set("DEEPAGENTS_HOME", "/srv/da")
        .var_set("DEEPAGENTS_SESSIONS_DB", "~/x.db");
    assert_eq!(
        inspect::default_db_path(&e).unwrap(),
        Path::new("/home/u/x.db")
    );
    let e = env.clone().var_set("DEEPAGENTS_HOME", "relative/dir");
    assert_eq!(
        inspect::default_db_path(&e).unwrap_err(),
        "Invalid DEEPAGENTS_HOME 'relative/dir': use an absolute path or a path beginning with '~/'."
    );
    let e = env.clone().var_set("DEEPAGENTS_HOME", "~bob/da");
    assert!(inspect::default_db_path(&e)
        .unwrap_err()
        .contains("'~user' forms are not allowed"));
    // Through `run`: the error is reported with exit code 1 before anything is opened.
    let out = inspect::run(
        &InspectArgs {
            list: Some(1),
            ..InspectArgs::default()
        },
        &e,
    );
    assert_eq!(out.exit_code, 1);
    // The default location is found under the corpus home.
    let home = common::corpus().join("langgraph/dcode/home");
    let out = inspect::run(
        &InspectArgs {
            list: Some(1),
            ..InspectArgs::default()
        },
        &Env::with_home(home),
    );
    assert_eq!(out.exit_code, 0, "{:?}", out.stderr);
}

#[test]
fn non_list_tool_calls_are_preserved_as_text_with_a_warning() {
    let fx = fixture(true);
    let msgs = M::Array(vec![
        msg("human", "h1", "go".into(), vec![]),
        msg(
            "ai",
            "a1",
            M::Array(vec![M::from(5), M::Nil, "x".into()]),
            vec![("tool_calls", kw(vec![("name", "ls".into())]))],
        ),
    ]);
    fx.checkpoint(
        "t1",
        "",
        "c1",
        None,
        &checkpoint_blob(Some(msgs)),
        "2026-11-02T10:00:00+00:00",
    );
    let out = run(&fx.path, |a| a.thread_id = Some("t1".into()));
    let j = out.json().unwrap();
    let ai = &j["latest_turn"]["messages"][1];
    assert_eq!(ai["tool_calls_malformed"], "{'name': 'ls'}");
    // Non-dict blocks are stringified like Python's str(): 5, None, x.
    assert_eq!(ai["content"], "5\nNone\nx");
    assert_eq!(
        j["warnings"][0],
        "Message 1 had non-list tool_calls; preserved as raw text."
    );
}
