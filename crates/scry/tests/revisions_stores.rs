//! Issue 20 for the providers whose sources are not plain JSONL files: multi-session SQLite
//! stores (OpenCode, Kilo: one session's last messages deleted; Deep Agents: a thread's newest
//! checkpoints deleted), a zstd-framed JSONL file (DeepSeek Harness), a JSON document
//! (Continue: its history cut) and a markdown history (Aider: its last chat cut in half). In a copy
//! of the real corpus home each rewrite must leave the current session equal to a direct parse
//! and keep the old one as revision 1, answering as before the rewrite — also after
//! `index --rebuild`, which carries revisions and archived sessions into the fresh file.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::revisions::{answers, hits_in, listed, lost_phrase, shown_of};
use crate::util::IndexedHome as Home;

/// The session of `provider` with the most events (with `latest`, the last created) whose uri
/// names one session: (uri, source).
fn pick(h: &Home, provider: &str, latest: bool) -> Option<(String, PathBuf)> {
    let uris = listed(h);
    let mut best: Option<(String, String, PathBuf)> = None;
    for (uri, v, src) in shown_of(h, &uris, provider) {
        let n = v["stats"]["events"]["total"].as_u64().unwrap_or(0);
        let rank = if latest {
            v["created"].as_str().unwrap_or_default().to_string()
        } else {
            format!("{n:020}")
        };
        if n >= 4 && best.as_ref().is_none_or(|b| rank > b.0) {
            best = Some((rank, uri, src));
        }
    }
    best.map(|(_, u, p)| (u, p))
}

/// The native session id of `uri` (`provider:id`).
fn native(uri: &str) -> &str {
    uri.split_once(':').map_or(uri, |(_, id)| id)
}

/// OpenCode / Kilo: the second half of the session's messages (and their parts) deleted.
fn cut_messages(db: &Path, uri: &str) {
    let conn = rusqlite::Connection::open(db).expect("open store copy");
    let ids: Vec<String> = conn
        .prepare("SELECT id FROM message WHERE session_id = ?1 ORDER BY time_created, id")
        .and_then(|mut st| {
            st.query_map([native(uri)], |r| r.get(0))?
                .collect::<rusqlite::Result<Vec<String>>>()
        })
        .expect("messages");
    assert!(ids.len() >= 2, "{uri}: {} messages", ids.len());
    for id in &ids[ids.len() / 2..] {
        conn.execute("DELETE FROM part WHERE message_id = ?1", [id])
            .expect("delete parts");
        conn.execute("DELETE FROM message WHERE id = ?1", [id])
            .expect("delete message");
    }
}

/// Deep Agents: the newest half of the thread's checkpoints (and their writes) deleted, as if
/// the thread were rolled back.
fn cut_checkpoints(db: &Path, uri: &str) {
    let conn = rusqlite::Connection::open(db).expect("open store copy");
    let ids: Vec<String> = conn
        .prepare(
            "SELECT checkpoint_id FROM checkpoints WHERE thread_id = ?1 ORDER BY checkpoint_id",
        )
        .and_then(|mut st| {
            st.query_map([native(uri)], |r| r.get(0))?
                .collect::<rusqlite::Result<Vec<String>>>()
        })
        .expect("checkpoints");
    assert!(ids.len() >= 2, "{uri}: {} checkpoints", ids.len());
    for id in &ids[ids.len() / 2..] {
        conn.execute(
            "DELETE FROM writes WHERE thread_id = ?1 AND checkpoint_id = ?2",
            [native(uri), id],
        )
        .expect("delete writes");
        conn.execute(
            "DELETE FROM checkpoints WHERE thread_id = ?1 AND checkpoint_id = ?2",
            [native(uri), id],
        )
        .expect("delete checkpoint");
    }
}

/// DeepSeek Harness: the zstd-framed JSONL cut to its first half (one frame).
fn cut_zstd(path: &Path) {
    let raw = zstd::decode_all(std::fs::File::open(path).expect("open")).expect("decode");
    let text = String::from_utf8(raw).expect("utf-8");
    let lines: Vec<&str> = text.lines().collect();
    let kept = lines[..lines.len() / 2].join("\n") + "\n";
    let packed = zstd::encode_all(kept.as_bytes(), 3).expect("encode");
    std::fs::write(path, packed).expect("write");
}

/// Continue: the history array cut to its first half.
fn cut_history(path: &Path) {
    let mut v: Value =
        serde_json::from_str(&std::fs::read_to_string(path).expect("read")).expect("json");
    let history = v["history"].as_array_mut().expect("history");
    let keep = history.len() / 2;
    history.truncate(keep);
    std::fs::write(path, serde_json::to_string_pretty(&v).expect("encode")).expect("write");
}

/// Aider: the history's last session (one file holds every session run in the directory)
/// cut to its first half.
fn cut_last_chat(path: &Path) {
    let text = std::fs::read_to_string(path).expect("read");
    let lines: Vec<&str> = text.lines().collect();
    let start = lines
        .iter()
        .rposition(|l| l.starts_with("# aider chat started at"))
        .expect("a chat");
    let keep = start + (lines.len() - start) / 2;
    std::fs::write(path, lines[..keep].join("\n") + "\n").expect("write");
}

#[test]
fn rewritten_stores_and_documents_keep_their_earlier_revision() {
    let h = Home::real();
    h.ok(&["index", "--all", "--json"]);
    let mut picked = Vec::new();
    for provider in ["opencode", "kilo", "deepagents", "dsh", "continue", "aider"] {
        match pick(&h, provider, provider == "aider") {
            Some(p) => picked.push((provider, p)),
            None => panic!("no {provider} session of ≥ 4 events in the corpus home"),
        }
    }
    let before: Vec<Vec<Value>> = picked
        .iter()
        .map(|(_, (uri, _))| answers(&h, uri, &[]))
        .collect();
    let events_before: Vec<Value> = picked
        .iter()
        .map(|(_, (uri, _))| h.ok(&["events", uri, "--limit", "1000", "--json"]))
        .collect();

    for (provider, (uri, src)) in &picked {
        match *provider {
            "opencode" | "kilo" => cut_messages(src, uri),
            "deepagents" => cut_checkpoints(src, uri),
            "dsh" => cut_zstd(src),
            "continue" => cut_history(src),
            _ => cut_last_chat(src),
        }
    }
    for ((provider, (uri, src)), was) in picked.iter().zip(&before) {
        let now = answers(&h, uri, &[]);
        let direct = answers(&h, uri, &["--no-index"]);
        assert_eq!(
            now, direct,
            "{provider} {uri}: index == parse after the rewrite"
        );
        assert_ne!(&now, was, "{provider} {uri}: the rewrite changed nothing");
        let shown = h.ok(&["show", uri, "--json"]);
        let revs = shown["revisions"].as_array().unwrap_or_else(|| {
            panic!(
                "{provider} {uri} ({}): no revision after the rewrite: {shown}",
                src.display()
            )
        });
        assert_eq!(revs.len(), 1, "{provider} {uri}: {shown}");
        assert_eq!(
            &answers(&h, uri, &["--revision", "1"]),
            was,
            "{provider} {uri}: --revision 1 equals the answer from before"
        );
    }
    // The text only a revision holds is found, every hit of it marked superseded.
    let mut searched = 0;
    for ((provider, (uri, _)), events) in picked.iter().zip(&events_before) {
        let shown = h.ok(&["show", uri, "--json"]);
        let kept = shown["stats"]["events"]["total"].as_u64().expect("total");
        let Some(phrase) = lost_phrase(&h, uri, events, kept) else {
            continue;
        };
        searched += 1;
        let (all, hits) = hits_in(&h, &phrase, uri);
        assert!(!hits.is_empty(), "{provider} {uri}: '{phrase}': {all}");
        assert!(
            hits.iter()
                .all(|x| x["superseded"] == true && x["revision"] == 1),
            "{provider} {uri}: '{phrase}' only in revision 1: {all}"
        );
    }
    assert!(searched >= 3, "lost phrases searched: {searched}");

    // `index --rebuild` builds from the sources, which no longer hold the revisions: they are
    // carried from the old file, and answer as before.
    let rebuilt = h.ok(&["index", "--rebuild", "--json"]);
    assert_eq!(rebuilt["rebuilt"], true, "{rebuilt}");
    assert_eq!(rebuilt["carry_lost"], 0, "{rebuilt}");
    assert!(
        rebuilt["carried"].as_u64() >= Some(picked.len() as u64),
        "{rebuilt}"
    );
    for ((provider, (uri, _)), was) in picked.iter().zip(&before) {
        assert_eq!(
            &answers(&h, uri, &["--revision", "1"]),
            was,
            "{provider} {uri}: --revision 1 after the rebuild"
        );
    }
    // Every revision belongs to a rewritten source (deleting a Deep Agents thread's newest
    // checkpoints also cuts its subagent's, a session of the same store: a revision too).
    let doctor = h.ok(&["doctor", "--json"]);
    let rows: Vec<String> = rusqlite::Connection::open(&h.db)
        .and_then(|c| {
            c.prepare("SELECT path FROM revisions")?
                .query_map([], |r| r.get(0))?
                .collect()
        })
        .expect("revision rows");
    assert_eq!(
        doctor["revisions"]["revisions"].as_u64(),
        Some(rows.len() as u64),
        "{}",
        doctor["revisions"]
    );
    assert!(rows.len() >= picked.len(), "{rows:#?}");
    let rewritten: Vec<String> = picked
        .iter()
        .map(|(_, (_, src))| src.to_string_lossy().into_owned())
        .collect();
    assert!(
        rows.iter().all(|p| rewritten.contains(p)),
        "{rows:#?} not all of {rewritten:#?}"
    );
    // An earlier revision never changes: following one is refused in one line.
    let (_, (uri, _)) = &picked[0];
    let out = h.run(&["events", uri, "--revision", "1", "--follow"]);
    assert_eq!(out.code, 2, "{}", out.render());
    assert!(out.stderr.contains("--revision"), "{}", out.render());
}
