//! Native, read-only decoding of LangGraph SQLite checkpoint databases (the `SqliteSaver`
//! schema used by Deep Agents Code and MT-Agent): msgpack with LangGraph's extension types,
//! LangChain message classes, message reconstruction with `add_messages` semantics, thread
//! listing and the `inspect_sessions.py`-compatible inspector. No Python, no pickle.
//!
//! Modules: [`msgpack`] (blobs → [`Value`], bounded), [`message`] (LangChain messages,
//! `add_messages`), [`db`] (read-only open, rows), [`reconstruct`] (messages as LangGraph
//! rebuilds them, message times, latest channel values), [`channels`] (any channel's history:
//! summarization events, pending interrupts), [`threads`] (id lookup, listing with subagent
//! namespaces as children), [`inspect`] (`inspect_sessions.py`-compatible output),
//! [`pyjson`] (Python-identical JSON rendering).
//!
//! A provider turns a thread into messages like this:
//!
//! ```no_run
//! use scry_langgraph::{db::Db, reconstruct, threads};
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let db = Db::open(std::path::Path::new("sessions.db"))?;
//! for info in threads::list_threads(&db, None, false)? {
//!     let rebuilt = reconstruct::thread_messages(&db, &info.thread_id, "")?;
//!     let times = reconstruct::message_times(&db, &info.thread_id, "", &rebuilt.messages)?;
//!     for (m, t) in rebuilt.messages.iter().zip(times) {
//!         println!("{:?} {} {}", t, m.kind(), m.text());
//!     }
//!     for child in &info.children {
//!         let _sub = reconstruct::thread_messages(&db, &info.thread_id, &child.namespace)?;
//!     }
//! }
//! # Ok(()) }
//! ```

pub mod channels;
pub mod db;
pub mod inspect;
pub mod message;
pub mod msgpack;
pub mod pyjson;
pub mod reconstruct;
pub mod threads;
pub mod value;

pub use db::{Db, OpenError};
pub use inspect::default_db_path;
pub use message::Message;
pub use value::{Constructor, Object, Value};
