//! Kilo CLI provider: a `kilo.db` in OpenCode's layout (the tables Kilo 7.7.9 creates that scry
//! reads) built from the input, whose pieces (split at 0xFF) are the session-diff file, then
//! alternately a message's `data` and a part's `data` of that message (one session). Odd-length
//! inputs leave the rows in a live `-wal` (the writer stays open, no checkpoint), so they are
//! read through `scry_source::sqlite::open_snapshot`'s private copy; even-length inputs are
//! checkpointed and read in place (`immutable=1`).
#![no_main]

use libfuzzer_sys::fuzz_target;
use rusqlite::Connection;
use scry_fuzz::{drive, put, reset, split};

const DIR: &str = ".local/share/kilo";
const SID: &str = "ses_fuzz";

const SCHEMA: &str = "
CREATE TABLE session (id text PRIMARY KEY, project_id text, parent_id text, directory text,
  title text, version text, time_created integer, time_updated integer, agent text, model text,
  revert text);
CREATE TABLE message (id text PRIMARY KEY, session_id text, time_created integer,
  time_updated integer, data text);
CREATE TABLE part (id text PRIMARY KEY, message_id text, session_id text, time_created integer,
  time_updated integer, data text);
CREATE TABLE event (id text PRIMARY KEY, aggregate_id text, seq integer, type text, data text);
";

fuzz_target!(|data: &[u8]| {
    let home = reset();
    let pieces = split(data, 32);
    let Some(diff) = pieces.first() else {
        return;
    };
    put(&format!("{DIR}/storage/session_diff/{SID}.json"), diff);
    let db = home.join(DIR).join("kilo.db");
    let Ok(conn) = Connection::open(&db) else {
        return;
    };
    let live = data.len() % 2 == 1;
    let mut setup = String::from(SCHEMA);
    if live {
        setup.insert_str(0, "PRAGMA journal_mode=WAL; PRAGMA wal_autocheckpoint=0;");
    }
    if conn.execute_batch(&setup).is_err() {
        return;
    }
    let _ = conn.execute(
        "INSERT INTO session VALUES (?1, 'p', NULL, '/w', 'New session - 2026-12-01T00:00:00.000Z',
         '7.7.9', 1, 2, 'code', NULL, NULL)",
        [SID],
    );
    let mut msg = String::from("msg_0");
    for (i, piece) in pieces.iter().enumerate().skip(1) {
        let text = String::from_utf8_lossy(piece);
        let t = i as i64;
        if i % 2 == 1 {
            msg = format!("msg_{i:04}");
            let _ = conn.execute(
                "INSERT INTO message VALUES (?1, ?2, ?3, ?3, ?4)",
                rusqlite::params![msg, SID, t, text],
            );
        } else {
            let _ = conn.execute(
                "INSERT INTO part VALUES (?1, ?2, ?3, ?4, ?4, ?5)",
                rusqlite::params![format!("prt_{i:04}"), msg, SID, t, text],
            );
        }
    }
    // A live store keeps its writer (and so its `-wal`) open while it is read.
    let writer = live.then_some(conn);
    drive(&scry_source_kilo::KiloSource, &[db]);
    drop(writer);
});
