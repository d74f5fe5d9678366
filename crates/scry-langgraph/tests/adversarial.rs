//! Hand-built databases (in a tempdir, with rusqlite) for decoding and reconstruction edge
//! cases: corrupt / truncated / bomb blobs, pickle and unknown extensions, a corrupt latest
//! checkpoint, every `add_messages` / `Overwrite` form, Send / Interrupt / common types.

mod common;

use common::fixture::*;
use scry_langgraph::{msgpack, reconstruct, Value};

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
    // c2 is the latest checkpoint: c1's writes are replayed one by one.
    fx.checkpoint(
        "t1",
        "",
        "c2",
        Some("c1"),
        &checkpoint_blob(None),
        "2026-11-02T10:01:00+00:00",
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
    // In the latest checkpoint's pending step (writes on c2), a plain write after an
    // Overwrite is dropped like `update()` does, and said in a warning; `Overwrite(None)`
    // empties the list.
    let on_c2 = |task: &str, v: M| fx.write("t1", "c2", task, 0, "msgpack", &pack(&v));
    on_c2(
        "p1",
        kw(vec![(
            "__overwrite__",
            M::Array(vec![msg("human", "p1", "pending".into(), vec![])]),
        )]),
    );
    on_c2(
        "p2",
        M::Array(vec![msg("ai", "p2", "dropped".into(), vec![])]),
    );
    let r = reconstruct::thread_messages(&fx.db(), "t1", "").unwrap();
    assert_eq!(
        r.messages
            .iter()
            .map(|m| m.id().unwrap())
            .collect::<Vec<_>>(),
        ["p1"]
    );
    assert!(
        r.warnings
            .iter()
            .any(|w| w.contains("follows an Overwrite") && w.contains("task p2")),
        "{:?}",
        r.warnings
    );
    let ow_none = ext(
        2,
        M::Array(vec![
            "langgraph.types".into(),
            "Overwrite".into(),
            kw(vec![("value", M::Nil)]),
        ]),
    );
    let decoded = msgpack::decode(&pack(&ow_none)).unwrap();
    assert_eq!(
        scry_langgraph::message::classify_update(&decoded.value),
        Ok(scry_langgraph::message::Update::Overwrite(Vec::new()))
    );
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
