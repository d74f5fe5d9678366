//! Builders for hand-made LangGraph databases and msgpack values (tests only).
#![allow(dead_code)]

use std::path::{Path, PathBuf};

pub use rmpv::Value as M;
use scry_langgraph::inspect::{self, InspectArgs};
use scry_langgraph::Db;
use scry_source::Env;

pub fn ext(code: i8, inner: M) -> M {
    let mut payload = Vec::new();
    rmpv::encode::write_value(&mut payload, &inner).unwrap();
    M::Ext(code, payload)
}

pub fn pack(v: &M) -> Vec<u8> {
    let mut out = Vec::new();
    rmpv::encode::write_value(&mut out, v).unwrap();
    out
}

pub fn kw(pairs: Vec<(&str, M)>) -> M {
    M::Map(pairs.into_iter().map(|(k, v)| (M::from(k), v)).collect())
}

/// A LangChain message as LangGraph serializes it (pydantic v2, ext 5).
pub fn msg(kind: &str, id: &str, content: M, extra: Vec<(&str, M)>) -> M {
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

pub fn checkpoint_blob(messages: Option<M>) -> Vec<u8> {
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

pub struct Fixture {
    _dir: tempfile::TempDir,
    /// The database file.
    pub path: PathBuf,
    /// A writable connection used to build it.
    pub conn: rusqlite::Connection,
}

pub fn fixture(with_task_path: bool) -> Fixture {
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
    pub fn checkpoint(
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

    pub fn write(
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

    pub fn db(&self) -> Db {
        Db::open(&self.path).unwrap()
    }
}

pub fn run(path: &Path, f: impl FnOnce(&mut InspectArgs)) -> inspect::InspectOutput {
    let mut args = InspectArgs {
        db: Some(path.to_path_buf()),
        ..InspectArgs::default()
    };
    f(&mut args);
    inspect::run(&args, &Env::with_home("/nonexistent-home"))
}
