//! Issue 20: a source rewritten shorter or truncated is indexed as it is now, and what the
//! index held before stays readable as an earlier revision (`--revision N`) and searchable
//! (hits marked superseded) until `index --prune`. A copy of the real corpus home is indexed;
//! one session file of every JSONL provider is truncated to its first half; the current
//! session must equal a direct parse of the new file and `--revision 1` the answers from
//! before. An append or a rewrite that keeps every event makes no revision.

use std::path::{Path, PathBuf};

use serde_json::Value;

// A copy of the real corpus home (or an empty one) and an index of its own.
use crate::util::IndexedHome as Home;

/// `v` without what the index owns, what depends on the source's state now, and the marks of
/// a revision read: `live`, `persisted`, fingerprints, cursors, `revision(s)`, `superseded`
/// and the hits' commands (which name the revision).
fn strip(v: &Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.iter()
                .filter(|(k, _)| {
                    !matches!(
                        k.as_str(),
                        "live"
                            | "persisted"
                            | "fingerprint"
                            | "next_cursor"
                            | "cursor"
                            | "revision"
                            | "revisions"
                            | "superseded"
                            | "command"
                    )
                })
                .map(|(k, v)| (k.clone(), strip(v)))
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(strip).collect()),
        other => other.clone(),
    }
}

/// Lines of a text file.
fn lines(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(str::to_string)
        .collect()
}

/// The uri of every session `list --global --kind all` shows (archived ones too).
pub(crate) fn listed(h: &Home) -> Vec<String> {
    let list = h.ok(&[
        "list", "--global", "--kind", "all", "--limit", "100000", "--json",
    ]);
    list["sessions"]
        .as_array()
        .expect("sessions")
        .iter()
        .filter_map(|s| s["uri"].as_str().map(str::to_string))
        .collect()
}

/// Each session of `provider` among `uris` whose uri names one session and that `show` reads:
/// (uri, its `show --json`, its primary source).
pub(crate) fn shown_of(h: &Home, uris: &[String], provider: &str) -> Vec<(String, Value, PathBuf)> {
    uris.iter()
        .filter(|u| u.starts_with(&format!("{provider}:")))
        .filter(|u| uris.iter().filter(|o| o == u).count() == 1)
        .filter_map(|uri| {
            let shown = h.run(&["show", uri, "--json"]);
            if shown.code != 0 {
                return None;
            }
            let v = shown.json();
            let src = v["sources"][0].as_str().map(PathBuf::from)?;
            Some((uri.clone(), v, src))
        })
        .collect()
}

/// A search of `phrase` over every session and area (the whole answer), and its hits in the
/// session `uri`.
pub(crate) fn hits_in(h: &Home, phrase: &str, uri: &str) -> (Value, Vec<Value>) {
    let all = h.ok(&[
        "search", phrase, "--global", "--area", "all", "--limit", "1000", "--json",
    ]);
    let hits = all["sessions"]
        .as_array()
        .expect("sessions")
        .iter()
        .filter(|s| s["session"]["uri"] == uri)
        .flat_map(|s| s["hits"].as_array().expect("hits").iter().cloned())
        .collect();
    (all, hits)
}

/// For each JSONL provider of the corpus, one session (uri, primary source) whose source is a
/// `.jsonl` file of at least 6 lines and whose uri names one session.
fn rewritable(h: &Home) -> Vec<(String, PathBuf)> {
    let uris = listed(h);
    let mut out: Vec<(String, PathBuf)> = Vec::new();
    for provider in ["claude", "codex", "pi", "gemini", "qwen", "copilot"] {
        let mut best: Option<(usize, String, PathBuf)> = None;
        for (uri, _, src) in shown_of(h, &uris, provider) {
            if src.extension().and_then(|e| e.to_str()) != Some("jsonl") {
                continue;
            }
            let n = lines(&src).len();
            if n >= 6 && best.as_ref().is_none_or(|b| n > b.0) {
                best = Some((n, uri, src));
            }
        }
        if let Some((_, uri, src)) = best {
            out.push((uri, src));
        }
    }
    out
}

/// What the read paths answer for `uri` (with `extra` flags): show, turns, events, commands.
pub(crate) fn answers(h: &Home, uri: &str, extra: &[&str]) -> Vec<Value> {
    let mut out = Vec::new();
    for cmd in [
        vec!["show", uri],
        vec!["turns", uri],
        vec!["events", uri, "--limit", "1000"],
        vec!["commands", uri],
        vec!["files", uri],
    ] {
        let mut args = cmd.clone();
        args.push("--json");
        args.extend_from_slice(extra);
        out.push(strip(&h.ok(&args)));
    }
    out
}

/// A word (≥ 8 characters) of an event of `before` with seq ≥ `from` (gone from the current
/// session) that a search of the current session does not find.
pub(crate) fn lost_phrase(h: &Home, uri: &str, before: &Value, from: u64) -> Option<String> {
    let rows = before["events"].as_array()?;
    let mut tried = 0;
    for e in rows {
        if e["seq"].as_u64().is_none_or(|s| s < from) {
            continue;
        }
        let text = e["preview"].as_str().unwrap_or_default();
        for word in text.split_whitespace() {
            if word.chars().count() < 8 || !word.chars().all(char::is_alphanumeric) {
                continue;
            }
            tried += 1;
            if tried > 12 {
                return None;
            }
            let now = h.ok(&["search", word, "--session", uri, "--area", "all", "--json"]);
            if now["total_matches"] == 0 {
                return Some(word.to_string());
            }
        }
    }
    None
}

#[test]
fn truncated_sources_keep_their_earlier_revision() {
    let h = Home::real();
    h.ok(&["index", "--all", "--json"]);
    let picked = rewritable(&h);
    let names: Vec<&str> = picked
        .iter()
        .filter_map(|(u, _)| u.split(':').next())
        .collect();
    assert!(picked.len() >= 5, "JSONL providers found: {names:?}");

    // Before: every answer, and the events (for a phrase only the lost part holds).
    let before: Vec<(Vec<Value>, Value)> = picked
        .iter()
        .map(|(uri, _)| {
            (
                answers(&h, uri, &[]),
                h.ok(&["events", uri, "--limit", "1000", "--json"]),
            )
        })
        .collect();

    // A pure append makes no revision; neither does a forced re-parse of unchanged content.
    h.ok(&["index", "--all", "--force", "--json"]);
    for (uri, _) in &picked {
        let v = h.ok(&["show", uri, "--json"]);
        assert!(v.get("revisions").is_none(), "{uri}: {v}");
    }

    // Truncate each to its first half (whole lines).
    for (_, path) in &picked {
        let all = lines(path);
        let keep = all.len() / 2;
        std::fs::write(path, all[..keep].join("\n") + "\n").expect("truncate");
    }
    let mut searched = 0;
    for ((uri, path), (was, events_before)) in picked.iter().zip(&before) {
        // The current session equals a direct parse of the new file.
        let now = answers(&h, uri, &[]);
        let direct = answers(&h, uri, &["--no-index"]);
        assert_eq!(now, direct, "{uri}: index == parse after the rewrite");
        // `show` says how many revisions there are.
        let shown = h.ok(&["show", uri, "--json"]);
        let revs = shown["revisions"].as_array().unwrap_or_else(|| {
            panic!(
                "{uri} ({}): no revisions after a truncation: {shown}",
                path.display()
            )
        });
        assert_eq!(revs.len(), 1, "{uri}: {shown}");
        assert_eq!(revs[0]["n"], 1);
        assert!(revs[0]["replaced_at"].is_string(), "{shown}");
        // `--revision 1` answers as before the rewrite.
        let then = answers(&h, uri, &["--revision", "1"]);
        assert_eq!(
            &then, was,
            "{uri}: --revision 1 equals the answer from before"
        );
        let rev_show = h.ok(&["show", uri, "--revision", "1", "--json"]);
        assert_eq!(rev_show["revision"], 1, "{rev_show}");
        assert_eq!(revs[0]["events"], rev_show["stats"]["events"]["total"]);
        // The text only the earlier revision holds is found, marked superseded.
        let kept = shown["stats"]["events"]["total"].as_u64().expect("total");
        if let Some(phrase) = lost_phrase(&h, uri, events_before, kept) {
            searched += 1;
            let (all, superseded) = hits_in(&h, &phrase, uri);
            assert!(!superseded.is_empty(), "{uri}: '{phrase}' found: {all}");
            assert!(
                superseded
                    .iter()
                    .all(|x| x["superseded"] == true && x["revision"] == 1),
                "{uri}: '{phrase}' only in revision 1: {all}"
            );
            assert!(superseded.iter().all(|x| x["command"]
                .as_str()
                .is_some_and(|c| c.ends_with("--revision 1"))));
            // Left out by --live-only.
            let live = h.ok(&[
                "search",
                &phrase,
                "--global",
                "--area",
                "all",
                "--live-only",
                "--json",
            ]);
            assert!(
                !live.to_string().contains("\"superseded\""),
                "{uri}: --live-only: {live}"
            );
            // Within the revision: every hit of it, as `search --session` gave before.
            let within = h.ok(&[
                "search",
                &phrase,
                "--session",
                uri,
                "--revision",
                "1",
                "--area",
                "all",
                "--json",
            ]);
            assert!(within["total_matches"].as_u64() > Some(0), "{within}");
            // Text: a mark.
            let text = h.run(&["search", &phrase, "--global", "--area", "all"]);
            assert!(text.stdout.contains("superseded"), "{}", text.render());
        }
    }
    assert!(searched >= 3, "lost phrases searched: {searched}");

    // An unknown revision: one line, exit 3; without the index: exit 2.
    let (uri, _) = &picked[0];
    let out = h.run(&["show", uri, "--revision", "2"]);
    assert_eq!(out.code, 3, "{}", out.render());
    assert_eq!(out.stderr.trim().lines().count(), 1, "{}", out.render());
    assert!(out.stderr.contains("revision 2"), "{}", out.render());
    let out = h.run(&["turns", uri, "--revision", "1", "--no-index"]);
    assert_eq!(out.code, 2, "{}", out.render());
    let out = h.run(&["turn", uri, "1", "--revision", "1", "--raw"]);
    assert_eq!(out.code, 2, "{}", out.render());

    // doctor counts them; prune --dry-run lists, --older-than 30d keeps, prune removes.
    let doctor = h.ok(&["doctor", "--json"]);
    assert_eq!(
        doctor["revisions"]["revisions"].as_u64(),
        Some(picked.len() as u64),
        "{}",
        doctor["revisions"]
    );
    assert!(doctor["revisions"]["bytes"].as_u64() > Some(0));
    let dry = h.ok(&["index", "--prune", "--dry-run", "--json"]);
    assert_eq!(dry["pruned_revisions"].as_u64(), Some(picked.len() as u64));
    assert_eq!(dry["prune"]["dry_run"], true);
    let old = h.ok(&["index", "--prune", "--older-than", "30d", "--json"]);
    assert_eq!(old["pruned_revisions"], 0, "{old}");
    h.ok(&["show", uri, "--revision", "1", "--json"]);
    let pruned = h.ok(&["index", "--prune", "--json"]);
    assert_eq!(
        pruned["pruned_revisions"].as_u64(),
        Some(picked.len() as u64)
    );
    let out = h.run(&["show", uri, "--revision", "1"]);
    assert_eq!(out.code, 3, "{}", out.render());
    let doctor = h.ok(&["doctor", "--json"]);
    assert_eq!(doctor["revisions"]["revisions"], 0);
    drop(h.dir);
}

/// Starts `scry serve --port 0` on `home` with the index `db`.
fn serve(home: &Path, db: &Path) -> std::process::Child {
    std::process::Command::new(env!("CARGO_BIN_EXE_scry"))
        .env_clear()
        .env("HOME", home)
        .env("TZ", "UTC")
        .env("SCRY_DB", db)
        .current_dir(home)
        .args(["serve", "--port", "0"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("start scry serve")
}

fn get(addr: &str, path: &str) -> (u16, Value) {
    let (status, _, body) = crate::util::http_get(addr, path, std::time::Duration::from_secs(60));
    let v =
        serde_json::from_str(&body).unwrap_or_else(|e| panic!("{path}: not JSON ({e}): {body}"));
    (status, v)
}

/// A rewrite in place (other text, fewer lines) keeps the old session as revision 1, then a
/// second rewrite makes it revision 2; HTTP `?revision=N` and MCP `revision` read them as the
/// CLI does; an index carried across a schema change keeps them.
#[test]
fn rewrites_are_served_by_revision_and_survive_a_schema_change() {
    let h = Home::empty();
    let id = "rev-served-0001";
    let path = crate::util::claude_session(&h.home, id, "/w/r", 4);
    let uri = format!("claude:{id}");
    let first = h.ok(&["turns", &uri, "--json"]);
    // Rewritten shorter: two turns, the second with other text.
    let mut body = String::new();
    for (n, (kind, text)) in [
        ("user", "prompt 0"),
        ("assistant", "answer 0\nsecond line of answer 0"),
        ("user", "a replacement prompt"),
    ]
    .into_iter()
    .enumerate()
    {
        body.push_str(&crate::util::claude_line(kind, id, n as u32, "/w/r", text));
        body.push('\n');
    }
    std::fs::write(&path, &body).expect("rewrite");
    let second = h.ok(&["turns", &uri, "--json"]);
    assert_eq!(
        strip(&h.ok(&["turns", &uri, "--revision", "1", "--json"])),
        strip(&first)
    );
    // Rewritten again (shorter still): the first is now revision 2.
    let line = crate::util::claude_line("user", id, 0, "/w/r", "prompt 0");
    std::fs::write(&path, line + "\n").expect("rewrite");
    h.ok(&["index", "--json"]);
    assert_eq!(
        strip(&h.ok(&["turns", &uri, "--revision", "1", "--json"])),
        strip(&second)
    );
    assert_eq!(
        strip(&h.ok(&["turns", &uri, "--revision", "2", "--json"])),
        strip(&first)
    );
    let shown = h.ok(&["show", &uri, "--json"]);
    assert_eq!(
        shown["revisions"].as_array().map(Vec::len),
        Some(2),
        "{shown}"
    );
    let text = h.run(&["show", &uri]);
    assert!(
        text.stdout.contains("2 earlier revisions"),
        "{}",
        text.render()
    );
    // export follows too: the first version's last prompt is in revision 2 only.
    let export = h.run(&["export", &uri, "--revision", "2"]);
    assert_eq!(export.code, 0, "{}", export.render());
    assert!(export.stdout.contains("prompt 3"), "{}", export.render());
    assert!(!h.run(&["export", &uri]).stdout.contains("prompt 3"));

    // HTTP.
    let mut child = serve(&h.home, &h.db);
    let addr = crate::util::announced_addr(&mut child);
    let (status, v) = get(&addr, &format!("/v1/sessions/{uri}/turns?revision=2"));
    assert_eq!(status, 200, "{v}");
    assert_eq!(strip(&v), strip(&first));
    let (status, v) = get(&addr, &format!("/v1/sessions/{uri}?revision=1"));
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["revision"], 1);
    let cli = h.ok(&["commands", &uri, "--revision", "2", "--json"]);
    let (status, v) = get(&addr, &format!("/v1/sessions/{uri}/commands?revision=2"));
    assert_eq!(status, 200, "{v}");
    assert_eq!(strip(&v), strip(&cli));
    let (status, v) = get(&addr, &format!("/v1/sessions/{uri}?revision=3"));
    assert_eq!(status, 404, "{v}");
    let (_, found) = get(&addr, "/v1/search?q=answer%203&global=true");
    let hit = &found["sessions"][0]["hits"][0];
    assert_eq!(hit["superseded"], true, "{found}");
    assert_eq!(hit["revision"], 2, "{found}");
    let _ = child.kill();
    let _ = child.wait();

    // MCP.
    let rt = crate::mcp::runtime();
    rt.block_on(async {
        let mcp_db = h.dir.path().join("mcp");
        std::fs::create_dir_all(&mcp_db).expect("mkdir");
        std::fs::copy(&h.db, mcp_db.join("index.db")).expect("copy index");
        let c = crate::mcp::connect(&h.home, &mcp_db, false).await;
        let (_, v, err) =
            crate::mcp::call(&c, "turns", serde_json::json!({"id": uri, "revision": 2})).await;
        assert!(!err, "{v}");
        assert_eq!(strip(&v["result"]), strip(&first));
        let (_, v, err) = crate::mcp::call(
            &c,
            "show_session",
            serde_json::json!({"id": uri, "revision": 5}),
        )
        .await;
        assert!(err, "{v}");
        let _ = c.cancel().await;
    });

    // Another schema version: the index is rebuilt from the sources and the revisions, which
    // no source can rebuild, are carried across.
    {
        let conn = rusqlite::Connection::open(&h.db).expect("open index");
        conn.execute_batch("UPDATE meta SET value = 7 WHERE key = 'schema_version'")
            .expect("downgrade");
    }
    assert_eq!(
        strip(&h.ok(&["turns", &uri, "--revision", "2", "--json"])),
        strip(&first)
    );
    assert_eq!(
        strip(&h.ok(&["turns", &uri, "--revision", "1", "--json"])),
        strip(&second)
    );
}
