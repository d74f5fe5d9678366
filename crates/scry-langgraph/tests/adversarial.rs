//! Hand-built databases (in a tempdir, with rusqlite) for the edge cases: thread-id prefixes
//! with LIKE metacharacters, ambiguity, subagent namespaces, corrupt / truncated / bomb blobs,
//! pickle and unknown extensions, every `add_messages` / `Overwrite` form, truncation at the
//! `--max-content` boundary, database location rules and argument validation.

mod common;

use std::path::{Path, PathBuf};

use rmpv::Value as M;
use scry_langgraph::inspect::{self, InspectArgs, Mode};
use scry_langgraph::{msgpack, reconstruct, threads, Db, Value};
use scry_source::Env;

fn ext(code: i8, inner: M) -> M {
    let mut payload = Vec::new();
    rmpv::encode::write_value(&mut payload, &inner).unwrap();
    M::Ext(code, payload)
}

fn pack(v: &M) -> Vec<u8> {
    let mut out = Vec::new();
    rmpv::encode::write_value(&mut out, v).unwrap();
    out
}

fn kw(pairs: Vec<(&str, M)>) -> M {
    M::Map(pairs.into_iter().map(|(k, v)| (M::from(k), v)).collect())
}

/// A LangChain message as LangGraph serializes it (pydantic v2, ext 5).
fn msg(kind: &str, id: &str, content: M, extra: Vec<(&str, M)>) -> M {
    let (module, class) = match kind {
        "human" => ("langchain_core.messages.human", "HumanMessage"),
        "ai" => ("langchain_core.messages.ai", "AIMessage"),
        "tool" => ("langchain_core.messages.tool", "ToolMessage"),
        "remove" => ("langchain_core.messages.modifier", "RemoveMessage"),
        _ => ("langchain_core.messages.system", "SystemMessage"),
    };
    let mut fields = vec![
        ("content", content),
        ("type", M::from(kind)),
        ("id", M::from(id)),
    ];
    fields.extend(extra);
    ext(
        5,
        M::Array(vec![
            module.into(),
            class.into(),
            kw(fields),
            "model_validate_json".into(),
        ]),
    )
}

fn checkpoint_blob(messages: Option<M>) -> Vec<u8> {
    let cv = match messages {
        Some(m) => kw(vec![("messages", m)]),
        None => kw(vec![]),
    };
    pack(&kw(vec![
        ("v", M::from(4)),
        ("ts", M::from("2026-11-02T10:00:00+00:00")),
        ("channel_values", cv),
    ]))
}

struct Fixture {
    _dir: tempfile::TempDir,
    path: PathBuf,
    conn: rusqlite::Connection,
}

fn fixture(with_task_path: bool) -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sessions.db");
    let conn = rusqlite::Connection::open(&path).unwrap();
    let task_path = if with_task_path {
        "task_path TEXT NOT NULL DEFAULT '',"
    } else {
        ""
    };
    conn.execute_batch(&format!(
        "CREATE TABLE checkpoints (thread_id TEXT NOT NULL, checkpoint_ns TEXT NOT NULL DEFAULT '', \
         checkpoint_id TEXT NOT NULL, parent_checkpoint_id TEXT, type TEXT, checkpoint BLOB, metadata BLOB, \
         PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id)); \
         CREATE TABLE writes (thread_id TEXT NOT NULL, checkpoint_ns TEXT NOT NULL DEFAULT '', \
         checkpoint_id TEXT NOT NULL, task_id TEXT NOT NULL, {task_path} idx INTEGER NOT NULL, \
         channel TEXT NOT NULL, type TEXT, value BLOB, \
         PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id, task_id, idx));"
    ))
    .unwrap();
    Fixture {
        _dir: dir,
        path,
        conn,
    }
}

impl Fixture {
    fn checkpoint(
        &self,
        thread: &str,
        ns: &str,
        id: &str,
        parent: Option<&str>,
        blob: &[u8],
        updated: &str,
    ) {
        let meta = format!(
            "{{\"updated_at\": \"{updated}\", \"agent_name\": \"agent\", \"turn_number\": 1}}"
        );
        self.conn
            .execute(
                "INSERT INTO checkpoints VALUES (?1, ?2, ?3, ?4, 'msgpack', ?5, ?6)",
                (thread, ns, id, parent, blob, meta.as_bytes()),
            )
            .unwrap();
    }

    fn write(
        &self,
        thread: &str,
        checkpoint: &str,
        task: &str,
        idx: i64,
        type_name: &str,
        value: &[u8],
    ) {
        self.conn
            .execute(
                "INSERT INTO writes (thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, value) \
                 VALUES (?1, '', ?2, ?3, ?4, 'messages', ?5, ?6)",
                (thread, checkpoint, task, idx, type_name, value),
            )
            .unwrap();
    }

    fn db(&self) -> Db {
        Db::open(&self.path).unwrap()
    }
}

fn run(path: &Path, f: impl FnOnce(&mut InspectArgs)) -> inspect::InspectOutput {
    let mut args = InspectArgs {
        db: Some(path.to_path_buf()),
        ..InspectArgs::default()
    };
    f(&mut args);
    inspect::run(&args, &Env::with_home("/nonexistent-home"))
}

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
fn corrupt_truncated_and_bomb_writes_are_skipped_with_located_warnings() {
    let fx = fixture(false); // also covers `writes` without `task_path`
    let hello = pack(&M::Array(vec![msg("human", "h1", "hello".into(), vec![])]));
    fx.checkpoint(
        "t1",
        "",
        "c1",
        None,
        &checkpoint_blob(None),
        "2026-11-02T10:00:00+00:00",
    );
    fx.write("t1", "c1", "task-a", 0, "msgpack", &hello);
    fx.write("t1", "c1", "task-b", 0, "msgpack", &[0xc1, 0x00]); // never-used marker
    fx.write(
        "t1",
        "c1",
        "task-c",
        0,
        "msgpack",
        &hello[..hello.len() - 3],
    ); // truncated
    fx.write(
        "t1",
        "c1",
        "task-d",
        0,
        "msgpack",
        &[0xdd, 0xff, 0xff, 0xff, 0xff, 0x90],
    ); // length bomb
    fx.write(
        "t1",
        "c1",
        "task-e",
        0,
        "msgpack",
        &[0xdb, 0x7f, 0xff, 0xff, 0xff, b'x'],
    ); // 2 GiB string
    fx.write("t1", "c1", "task-f", 0, "msgpack", &vec![0x91; 200_000]); // nesting bomb
    fx.write("t1", "c1", "task-g", 0, "pickle", b"\x80\x04cos\nsystem\n");
    fx.write(
        "t1",
        "c1",
        "task-h",
        0,
        "msgpack",
        &pack(&M::Array(vec![ext(42, M::Nil)])),
    );
    fx.write("t1", "c1", "task-i", 0, "msgpack", &pack(&M::from(17)));
    let db = fx.db();
    let r = reconstruct::thread_messages(&db, "t1", "").unwrap();
    assert_eq!(r.messages.len(), 1);
    assert_eq!(r.messages[0].id(), Some("h1"));
    let w = r.warnings.join("\n");
    for task in [
        "task-b", "task-c", "task-d", "task-e", "task-f", "task-g", "task-h", "task-i",
    ] {
        assert!(
            w.contains(&format!("checkpoint c1, task {task}, idx 0")),
            "{task} not named in:\n{w}"
        );
    }
    assert!(w.contains("nesting deeper than"), "{w}");
    assert!(w.contains("pickle"), "{w}");
    assert!(w.contains("extension type 42"), "{w}");
    // The inspector surfaces them and still answers.
    let out = run(&fx.path, |a| a.thread_id = Some("t1".into()));
    assert_eq!(out.exit_code, 0);
    assert_eq!(
        out.json().unwrap()["warnings"].as_array().unwrap().len(),
        r.warnings.len()
    );
}

#[test]
fn corrupt_latest_checkpoint_falls_back_to_the_parent_chain() {
    let fx = fixture(true);
    let base = M::Array(vec![msg("human", "h1", "first".into(), vec![])]);
    fx.checkpoint(
        "t1",
        "",
        "c1",
        None,
        &checkpoint_blob(Some(base)),
        "2026-11-02T10:00:00+00:00",
    );
    fx.write(
        "t1",
        "c1",
        "t",
        0,
        "msgpack",
        &pack(&M::Array(vec![msg("ai", "a1", "answer".into(), vec![])])),
    );
    fx.checkpoint(
        "t1",
        "",
        "c2",
        Some("c1"),
        &[0x85, 0x01],
        "2026-11-02T10:01:00+00:00",
    );
    let r = reconstruct::thread_messages(&fx.db(), "t1", "").unwrap();
    let ids: Vec<_> = r.messages.iter().map(|m| m.id().unwrap()).collect();
    assert_eq!(ids, ["h1", "a1"]);
    assert!(
        r.warnings
            .iter()
            .any(|w| w.contains("Could not decode checkpoint c2")),
        "{:?}",
        r.warnings
    );
}

#[test]
fn add_messages_remove_overwrite_forms() {
    let fx = fixture(true);
    fx.checkpoint(
        "t1",
        "",
        "c1",
        None,
        &checkpoint_blob(None),
        "2026-11-02T10:00:00+00:00",
    );
    let w = |task: &str, v: M| fx.write("t1", "c1", task, 0, "msgpack", &pack(&v));
    let tool_call = kw(vec![
        ("name", "ls".into()),
        ("args", kw(vec![("path", "/p".into())])),
        ("id", "call1".into()),
        ("type", "tool_call".into()),
    ]);
    w(
        "t01",
        M::Array(vec![
            msg("human", "h1", "one".into(), vec![]),
            msg(
                "ai",
                "a1",
                "".into(),
                vec![("tool_calls", M::Array(vec![tool_call]))],
            ),
        ]),
    );
    w(
        "t02",
        M::Array(vec![msg(
            "tool",
            "r1",
            "out".into(),
            vec![("tool_call_id", "call1".into()), ("status", "error".into())],
        )]),
    );
    // Same id replaces in place.
    w(
        "t03",
        M::Array(vec![msg("ai", "a1", "replaced".into(), vec![])]),
    );
    // Removing an absent id is ignored (LangGraph would raise; the 0.1.57 inspector crashes).
    w(
        "t04",
        M::Array(vec![msg("remove", "nope", "".into(), vec![])]),
    );
    w(
        "t05",
        M::Array(vec![msg("remove", "r1", "".into(), vec![])]),
    );
    // A dict message and a bare string are coerced like `convert_to_messages`.
    w(
        "t06",
        M::Array(vec![kw(vec![
            ("role", "user".into()),
            ("content", "dict form".into()),
            ("id", "d1".into()),
        ])]),
    );
    let r = reconstruct::thread_messages(&fx.db(), "t1", "").unwrap();
    let ids: Vec<_> = r.messages.iter().map(|m| m.id().unwrap_or("-")).collect();
    assert_eq!(ids, ["h1", "a1", "d1"]);
    assert_eq!(r.messages[1].text(), "replaced");
    assert_eq!(r.messages[2].kind(), "human");
    assert!(
        r.warnings
            .iter()
            .any(|w| w.contains("nope") && w.contains("task t04")),
        "{:?}",
        r.warnings
    );

    // Overwrite: extension form, both dict forms; remove-all keeps what follows it.
    let over = |task: &str, v: M| fx.write("t1", "c1", task, 0, "msgpack", &pack(&v));
    over(
        "t07",
        ext(
            2,
            M::Array(vec![
                "langgraph.types".into(),
                "Overwrite".into(),
                kw(vec![(
                    "value",
                    M::Array(vec![msg("human", "o1", "ow".into(), vec![])]),
                )]),
            ]),
        ),
    );
    let r = reconstruct::thread_messages(&fx.db(), "t1", "").unwrap();
    assert_eq!(
        r.messages
            .iter()
            .map(|m| m.id().unwrap())
            .collect::<Vec<_>>(),
        ["o1"]
    );
    over(
        "t08",
        kw(vec![(
            "__overwrite__",
            M::Array(vec![msg("human", "o2", "ow2".into(), vec![])]),
        )]),
    );
    let r = reconstruct::thread_messages(&fx.db(), "t1", "").unwrap();
    assert_eq!(
        r.messages
            .iter()
            .map(|m| m.id().unwrap())
            .collect::<Vec<_>>(),
        ["o2"]
    );
    over(
        "t09",
        kw(vec![
            ("type", "__overwrite__".into()),
            (
                "value",
                M::Array(vec![msg("human", "o3", "ow3".into(), vec![])]),
            ),
        ]),
    );
    over(
        "t10",
        M::Array(vec![msg("ai", "a9", "after".into(), vec![])]),
    );
    let r = reconstruct::thread_messages(&fx.db(), "t1", "").unwrap();
    assert_eq!(
        r.messages
            .iter()
            .map(|m| m.id().unwrap())
            .collect::<Vec<_>>(),
        ["o3", "a9"]
    );
    over(
        "t11",
        M::Array(vec![
            msg("human", "x1", "gone".into(), vec![]),
            msg("remove", "__remove_all__", "".into(), vec![]),
            msg("human", "k1", "kept".into(), vec![]),
        ]),
    );
    let r = reconstruct::thread_messages(&fx.db(), "t1", "").unwrap();
    assert_eq!(
        r.messages
            .iter()
            .map(|m| m.id().unwrap())
            .collect::<Vec<_>>(),
        ["k1"]
    );
    // A malformed Overwrite keeps the list and names the write.
    over("t12", kw(vec![("__overwrite__", M::from("not a list"))]));
    let r = reconstruct::thread_messages(&fx.db(), "t1", "").unwrap();
    assert_eq!(r.messages.len(), 1);
    assert!(
        r.warnings
            .iter()
            .any(|w| w.contains("malformed Overwrite") && w.contains("task t12")),
        "{:?}",
        r.warnings
    );
    assert!(r.warnings.len() == 2, "{:?}", r.warnings);
}

#[test]
fn send_interrupt_and_common_types_decode() {
    let send = ext(
        1,
        M::Array(vec![
            "langgraph.types".into(),
            "Send".into(),
            M::Array(vec!["tools".into(), kw(vec![("x", 1.into())])]),
        ]),
    );
    let interrupt = ext(
        2,
        M::Array(vec![
            "langgraph.types".into(),
            "Interrupt".into(),
            kw(vec![("value", "approve?".into()), ("id", "i1".into())]),
        ]),
    );
    let uuid = ext(
        0,
        M::Array(vec![
            "uuid".into(),
            "UUID".into(),
            "0123456789abcdef0123456789abcdef".into(),
        ]),
    );
    let when = ext(
        3,
        M::Array(vec![
            "datetime".into(),
            "datetime".into(),
            "2026-11-02T10:00:00".into(),
            "fromisoformat".into(),
        ]),
    );
    let numpy = ext(
        6,
        M::Array(vec![
            "<f8".into(),
            M::Array(vec![1.into()]),
            "C".into(),
            M::Binary(vec![0; 8]),
        ]),
    );
    let d = msgpack::decode(&pack(&M::Array(vec![send, interrupt, uuid, when, numpy]))).unwrap();
    let items = d.value.as_array().unwrap();
    let send = items[0].as_object().unwrap();
    assert_eq!(
        (send.class.as_str(), send.args[0].as_str()),
        ("Send", Some("tools"))
    );
    assert_eq!(
        items[1].get("value").and_then(Value::as_str),
        Some("approve?")
    );
    assert_eq!(
        items[2].as_str(),
        Some("01234567-89ab-cdef-0123-456789abcdef")
    );
    assert_eq!(items[3].as_str(), Some("2026-11-02T10:00:00"));
    assert!(matches!(items[4], Value::Opaque { .. }));
    assert_eq!(d.warnings.len(), 1, "numpy is opaque with a warning");
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
fn opaque_values_inside_inline_messages_are_reported() {
    let fx = fixture(true);
    let msgs = M::Array(vec![msg(
        "human",
        "h1",
        M::Array(vec![ext(99, M::Nil)]),
        vec![],
    )]);
    fx.checkpoint(
        "t1",
        "",
        "c1",
        None,
        &checkpoint_blob(Some(msgs)),
        "2026-11-02T10:00:00+00:00",
    );
    let r = reconstruct::thread_messages(&fx.db(), "t1", "").unwrap();
    assert_eq!(r.messages.len(), 1);
    assert_eq!(
        r.warnings,
        ["Inline messages of checkpoint c1 contain undecoded values: msgpack ext 99."]
    );
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
