//! Issue 20 / SPEC S-I6: a session whose source the agent deleted stays readable and searchable
//! from the index until `index --prune`. A copy of the real corpus home (every provider) is
//! indexed, the answers recorded, every source deleted, and then every read path must give the
//! same answers with `live: false`; prune (and its dry run) removes them.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::util::scry_env;

// A copy of the real corpus home and an index of its own.
use crate::util::IndexedHome as Home;

impl Home {
    /// Every session of `list --global --kind all`: (uri, live).
    fn sessions(&self) -> Vec<(String, bool)> {
        let v = self.ok(&[
            "list", "--global", "--kind", "all", "--limit", "100000", "--json",
        ]);
        v["sessions"]
            .as_array()
            .expect("sessions")
            .iter()
            .map(|s| {
                (
                    s["uri"].as_str().expect("uri").to_string(),
                    s["live"].as_bool().expect("live"),
                )
            })
            .collect()
    }

    /// Removes every agent directory of the home (the sources of every session).
    fn delete_sources(&self) {
        for d in [
            ".claude",
            ".codex",
            ".gemini",
            ".pi",
            ".dsh",
            ".copilot",
            ".deepagents",
            ".continue",
            ".qwen",
            ".local/share/opencode",
            ".local/share/kilo",
            "new",
        ] {
            let p = self.home.join(d);
            if p.exists() {
                std::fs::remove_dir_all(&p).expect("remove");
            }
        }
    }
}

/// `v` without what the index owns or what depends on the source being present: `live`,
/// `persisted`, fingerprints and the archive marks.
fn strip(v: &Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.iter()
                .filter(|(k, _)| {
                    !matches!(
                        k.as_str(),
                        "live" | "persisted" | "fingerprint" | "deleted" | "last_seen"
                    )
                })
                .map(|(k, v)| (k.clone(), strip(v)))
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(strip).collect()),
        other => other.clone(),
    }
}

/// The uris that name one session (a uri two sources share is left out: ambiguous by id).
fn unique(sessions: &[(String, bool)]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for (u, _) in sessions {
        if sessions.iter().filter(|(o, _)| o == u).count() == 1 {
            out.push(u.clone());
        }
    }
    out
}

fn providers(uris: &[String]) -> Vec<String> {
    let mut p: Vec<String> = uris
        .iter()
        .filter_map(|u| u.split_once(':').map(|(p, _)| p.to_string()))
        .collect();
    p.sort();
    p.dedup();
    p
}

const QUERY: &str = "proj";

fn search(h: &Home, extra: &[&str]) -> Value {
    let mut args = vec![
        "search",
        QUERY,
        "--global",
        "--area",
        "all",
        "--limit",
        "1000",
        "--max-hits",
        "1000",
        "--json",
    ];
    args.extend_from_slice(extra);
    h.ok(&args)
}

/// (uri, hits) of every session of a search answer, sorted by uri.
fn hits(v: &Value) -> Vec<(String, Value)> {
    let mut out: Vec<(String, Value)> = v["sessions"]
        .as_array()
        .expect("sessions")
        .iter()
        .map(|s| {
            (
                s["session"]["uri"].as_str().unwrap_or_default().to_string(),
                strip(&s["hits"]),
            )
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

#[test]
fn deleted_sessions_answer_as_before_until_pruned() {
    let h = Home::real();
    let before = h.sessions();
    assert!(before.iter().all(|(_, live)| *live));
    let uris = unique(&before);
    let provs = providers(&uris);
    assert!(provs.len() >= 10, "providers in the corpus copy: {provs:?}");
    let record = |uri: &str| -> (Value, Value, Value) {
        (
            h.ok(&["show", uri, "--json"]),
            h.ok(&["turns", uri, "--json"]),
            h.ok(&["events", uri, "--json", "--limit", "1000"]),
        )
    };
    let answers: Vec<(String, (Value, Value, Value))> =
        uris.iter().map(|u| (u.clone(), record(u))).collect();
    let searched = search(&h, &[]);
    let hits_before = hits(&searched);
    assert!(hits_before.len() >= 3, "{searched}");
    let doctor = h.ok(&["doctor", "--json"]);
    assert_eq!(doctor["archive"]["sessions"], 0, "{}", doctor["archive"]);

    h.delete_sources();

    // list: gone from the default view, present with --kind all / --archived, live: false.
    let after = h.sessions();
    assert_eq!(
        after.iter().map(|(u, _)| u).collect::<Vec<_>>().len(),
        before.len()
    );
    let mut a: Vec<&String> = after.iter().map(|(u, _)| u).collect();
    let mut b: Vec<&String> = before.iter().map(|(u, _)| u).collect();
    a.sort();
    b.sort();
    assert_eq!(a, b);
    assert!(after.iter().all(|(_, live)| !*live), "{after:?}");
    let listed = h.ok(&["list", "--global", "--json", "--limit", "1000"]);
    assert_eq!(listed["sessions"].as_array().map(Vec::len), Some(0));
    let archived = h.ok(&[
        "list",
        "--global",
        "--archived",
        "--json",
        "--limit",
        "1000",
    ]);
    let rows = archived["sessions"].as_array().expect("rows");
    assert!(!rows.is_empty());
    for r in rows {
        assert_eq!(r["live"], false, "{r}");
        assert_eq!(r["persisted"], true, "{r}");
        assert!(r["last_seen"].is_string(), "{r}");
        assert!(r["deleted"].is_string(), "{r}");
    }
    let text = h.run(&["list", "--global", "--archived"]);
    assert_eq!(text.code, 0);
    assert!(text.stdout.contains("[deleted 20"), "{}", text.render());

    // show / turns / events: the same answers, from the index.
    for (uri, (show, turns, events)) in &answers {
        let s = h.ok(&["show", uri, "--json"]);
        assert_eq!(s["session"]["live"], false, "{uri}");
        assert_eq!(s["session"]["persisted"], true, "{uri}");
        assert_eq!(strip(&s), strip(show), "show {uri}");
        assert_eq!(
            strip(&h.ok(&["turns", uri, "--json"])),
            strip(turns),
            "turns {uri}"
        );
        assert_eq!(
            strip(&h.ok(&["events", uri, "--json", "--limit", "1000"])),
            strip(events),
            "events {uri}"
        );
    }
    // A prefix and the bare id resolve too; text says where it comes from.
    let (uri, _) = &answers[0];
    let id = uri.split_once(':').map(|(_, i)| i).unwrap_or(uri);
    let shown = h.run(&["show", id]);
    assert_eq!(shown.code, 0, "{}", shown.render());
    assert!(shown.stdout.contains("deleted"), "{}", shown.render());
    let prefix: String = id.chars().take(12).collect();
    let by_prefix = h.run(&["show", &prefix, "--json"]);
    assert!(
        by_prefix.code == 0 || by_prefix.code == 3,
        "{}",
        by_prefix.render()
    );

    // search: the same hits, marked live: false; --live-only leaves them out.
    let again = search(&h, &[]);
    assert_eq!(hits(&again), hits_before);
    for s in again["sessions"].as_array().expect("sessions") {
        assert_eq!(s["session"]["live"], false, "{s}");
    }
    let live_only = search(&h, &["--live-only"]);
    assert_eq!(live_only["sessions"].as_array().map(Vec::len), Some(0));
    let within = h.ok(&["search", QUERY, "--session", &hits_before[0].0, "--json"]);
    assert_eq!(within["session"]["live"], false, "{within}");

    // turn --raw and resume: one line each, exit 3 (the source is not found).
    let raw = h.run(&["turn", uri, "1", "--raw"]);
    assert_eq!(raw.code, 3, "{}", raw.render());
    assert_eq!(raw.stderr.trim().lines().count(), 1, "{}", raw.render());
    assert!(raw.stderr.contains("is gone"), "{}", raw.render());
    let claude = answers
        .iter()
        .map(|(u, _)| u)
        .find(|u| u.starts_with("claude:"))
        .expect("a claude session");
    let resume = h.run(&["resume", claude]);
    assert_eq!(resume.code, 3, "{}", resume.render());
    assert!(
        resume.stderr.contains("can no longer resume"),
        "{}",
        resume.render()
    );
    // --no-index has nothing to read them from, and says so.
    let direct = h.run(&["--no-index", "show", uri]);
    assert_eq!(direct.code, 3, "{}", direct.render());
    assert!(direct.stderr.contains("--no-index"), "{}", direct.render());

    // doctor counts them; prune --dry-run lists without removing; prune removes.
    let doctor = h.ok(&["doctor", "--json"]);
    assert_eq!(
        doctor["archive"]["sessions"].as_u64(),
        Some(before.len() as u64),
        "{}",
        doctor["archive"]
    );
    assert!(doctor["archive"]["bytes"].as_u64() > Some(0));
    let old = h.ok(&["index", "--prune", "--older-than", "30d", "--json"]);
    assert_eq!(old["pruned"], 0, "{old}");
    let dry = h.ok(&["index", "--prune", "--dry-run", "--json"]);
    assert_eq!(dry["pruned"].as_u64(), Some(before.len() as u64), "{dry}");
    assert_eq!(dry["prune"]["dry_run"], true);
    assert_eq!(h.sessions().len(), before.len());
    let pruned = h.ok(&["index", "--prune", "--json"]);
    assert_eq!(
        pruned["pruned"].as_u64(),
        Some(before.len() as u64),
        "{pruned}"
    );
    assert!(h.sessions().is_empty());
    let gone = h.run(&["show", uri]);
    assert_eq!(gone.code, 3, "{}", gone.render());
    let doctor = h.ok(&["doctor", "--json"]);
    assert_eq!(doctor["archive"]["sessions"], 0, "{}", doctor["archive"]);
    assert_eq!(doctor["archive"]["bytes"], 0, "{}", doctor["archive"]);
}

/// Writes a Claude parent session with one subagent (`agent-<sub>.jsonl` beside it).
fn parent_and_subagent(home: &Path) -> (PathBuf, PathBuf) {
    let parent = crate::util::claude_session(home, "arch-parent-0001", "/w/p", 2);
    let dir = parent.with_extension("").join("subagents");
    std::fs::create_dir_all(&dir).expect("mkdir");
    let mut body = String::new();
    for (i, kind) in ["user", "assistant"].iter().enumerate() {
        let line = crate::util::claude_line(kind, "arch-parent-0001", 10 + i as u32, "/w/p", "sub");
        let mut v: Value = serde_json::from_str(&line).expect("json");
        v["isSidechain"] = Value::Bool(true);
        v["agentId"] = Value::String("sub1".into());
        body.push_str(&v.to_string());
        body.push('\n');
    }
    let sub = dir.join("agent-sub1.jsonl");
    std::fs::write(&sub, body).expect("write");
    (parent, sub)
}

#[test]
fn subagent_stays_under_its_archived_parent() {
    let dir = tempfile::tempdir().expect("tempdir");
    let home = dir.path().join("home");
    let db = dir.path().join("index.db");
    let run = |args: &[&str]| {
        let out = scry_env(&home, &home, &[("SCRY_DB", &db)], args);
        out.assert_no_panic();
        out
    };
    std::fs::create_dir_all(&home).expect("mkdir");
    let (parent, _sub) = parent_and_subagent(&home);
    let before = run(&["list", "--global", "--json"]);
    assert_eq!(before.code, 0, "{}", before.render());
    let rows = before.json()["sessions"].clone();
    assert_eq!(rows.as_array().map(Vec::len), Some(1), "{rows}");
    std::fs::remove_file(&parent).expect("rm");
    // The default list shows the live subagent alone; --archived folds it under its parent.
    let archived = run(&["list", "--global", "--archived", "--json"]);
    assert_eq!(archived.code, 0, "{}", archived.render());
    let v = archived.json();
    let rows = v["sessions"].as_array().expect("rows");
    assert_eq!(rows.len(), 1, "{v}");
    assert_eq!(rows[0]["uri"], "claude:arch-parent-0001");
    assert_eq!(rows[0]["live"], false);
    assert_eq!(rows[0]["children"]["subagent"], 1, "{v}");
    let trace = run(&["trace", "claude:arch-parent-0001", "--json"]);
    assert_eq!(trace.code, 0, "{}", trace.render());
    let t = trace.json();
    assert_eq!(t["session"]["live"], false, "{t}");
    assert_eq!(
        t["trace"]["descendants"].as_array().map(Vec::len),
        Some(1),
        "{t}"
    );
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

fn get_json(addr: &str, path: &str) -> Value {
    let (status, _, body) = crate::util::http_get(addr, path, std::time::Duration::from_secs(60));
    assert_eq!(status, 200, "{path}: {body}");
    serde_json::from_str(&body).unwrap_or_else(|e| panic!("{path}: not JSON ({e}): {body}"))
}

#[test]
fn archived_sessions_are_served_and_survive_an_older_index() {
    let dir = tempfile::tempdir().expect("tempdir");
    let home = dir.path().join("home");
    let db = dir.path().join("index.db");
    std::fs::create_dir_all(&home).expect("mkdir");
    let run = |args: &[&str]| {
        let out = scry_env(&home, &home, &[("SCRY_DB", &db)], args);
        out.assert_no_panic();
        out
    };
    let id = "arch-served-0001";
    let path = crate::util::claude_session(&home, id, "/w/s", 3);
    let uri = format!("claude:{id}");
    let before = run(&["digest", &uri, "--json"]);
    assert_eq!(before.code, 0, "{}", before.render());
    let commands_before = run(&["commands", &uri, "--json"]);
    std::fs::remove_file(&path).expect("rm");

    // The ledgers, digest and export read it from the index.
    let after = run(&["digest", &uri, "--json"]);
    assert_eq!(after.code, 0, "{}", after.render());
    assert_eq!(strip(&after.json()), strip(&before.json()));
    let commands_after = run(&["commands", &uri, "--json"]);
    assert_eq!(
        strip(&commands_after.json()),
        strip(&commands_before.json())
    );
    let export = run(&["export", &uri]);
    assert_eq!(export.code, 0, "{}", export.render());
    assert!(export.stdout.contains("prompt 2"), "{}", export.render());

    // HTTP: the session, the list with kind=all and search all serve it with live: false.
    let mut child = serve(&home, &db);
    let addr = crate::util::announced_addr(&mut child);
    let shown = get_json(&addr, &format!("/v1/sessions/{uri}"));
    assert_eq!(shown["session"]["live"], false, "{shown}");
    assert_eq!(shown["session"]["uri"], uri.as_str());
    let listed = get_json(&addr, "/v1/sessions?global=true&kind=all");
    let row = &listed["sessions"][0];
    assert_eq!(row["uri"], uri.as_str(), "{listed}");
    assert_eq!(row["live"], false, "{listed}");
    assert!(row["deleted"].is_string(), "{listed}");
    let found = get_json(&addr, "/v1/search?q=second%20line&global=true");
    assert_eq!(found["sessions"][0]["session"]["live"], false, "{found}");
    let none = get_json(
        &addr,
        "/v1/search?q=second%20line&global=true&live_only=true",
    );
    assert_eq!(none["sessions"].as_array().map(Vec::len), Some(0), "{none}");
    let headers = get_json(&addr, &format!("/v1/headers?ids={uri}"));
    assert_eq!(headers["results"][0]["session"]["live"], false, "{headers}");
    let _ = child.kill();
    let _ = child.wait();

    // An index made before the `archived` table existed (schema 8 as the previous release
    // wrote it): opened by this build, it keeps its archived session, dated by the source's
    // last mtime.
    {
        let conn = rusqlite::Connection::open(&db).expect("open index");
        conn.execute_batch("DROP TABLE archived").expect("drop");
    }
    let listed = run(&["list", "--global", "--archived", "--json"]);
    assert_eq!(listed.code, 0, "{}", listed.render());
    let v = listed.json();
    let row = &v["sessions"][0];
    assert_eq!(row["uri"], uri.as_str(), "{v}");
    assert_eq!(row["live"], false, "{v}");
    assert_eq!(row["deleted"], row["last_seen"], "{v}");
    let again = run(&["digest", &uri, "--json"]);
    assert_eq!(strip(&again.json()), strip(&before.json()));

    // Another schema version (a release whose layout differs): the index is rebuilt from the
    // sources, and the archived session, which has none, is carried across.
    {
        let conn = rusqlite::Connection::open(&db).expect("open index");
        conn.execute_batch("UPDATE meta SET value = 7 WHERE key = 'schema_version'")
            .expect("downgrade");
    }
    let listed = run(&["list", "--global", "--archived", "--json"]);
    assert_eq!(listed.code, 0, "{}", listed.render());
    let v = listed.json();
    assert_eq!(v["sessions"][0]["uri"], uri.as_str(), "{v}");
    assert_eq!(v["sessions"][0]["live"], false, "{v}");
    let version: i64 = rusqlite::Connection::open(&db)
        .expect("open index")
        .query_row(
            "SELECT value FROM meta WHERE key = 'schema_version'",
            [],
            |r| r.get(0),
        )
        .expect("version");
    assert_eq!(version, scry_store::SCHEMA_VERSION);
    let again = run(&["digest", &uri, "--json"]);
    assert_eq!(strip(&again.json()), strip(&before.json()));
    let found = run(&["search", "second line", "--global", "--json"]);
    assert_eq!(found.json()["sessions"][0]["session"]["live"], false);
}

/// Excluded is not deleted: a whole-index run under path, project or provider exclusions marks
/// no existing source gone (it once marked every excluded session `live: false`, and a server
/// trusting a watcher's lease then lost them), while a file really deleted still is.
#[test]
fn exclusions_mark_no_source_gone() {
    let h = Home::real();
    h.ok(&["index", "--all", "--json"]);
    for flags in [
        ["--exclude-path", "**/.claude/**"],
        ["--exclude-project", "/home/dev/work/proj-claude"],
        ["--exclude-provider", "claude"],
    ] {
        let mut args = vec!["index", "--all", "--json"];
        args.extend(flags);
        let r = h.ok(&args);
        assert_eq!(r["vanished"], 0, "{flags:?}: {r}");
        // Without the exclusion nothing was lost or needs reviving.
        let r = h.ok(&["index", "--all", "--json"]);
        assert_eq!(
            (r["vanished"].clone(), r["revived"].clone()),
            (0.into(), 0.into()),
            "{flags:?}: {r}"
        );
    }
    // A deleted file is still found gone under exclusions that do not cover it.
    let pi = std::fs::read_dir(h.home.join(".pi/agent/sessions"))
        .unwrap()
        .flatten()
        .flat_map(|d| std::fs::read_dir(d.path()).unwrap().flatten())
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .expect("a pi session");
    std::fs::remove_file(&pi).unwrap();
    let r = h.ok(&[
        "index",
        "--all",
        "--json",
        "--exclude-path",
        "**/.claude/**",
    ]);
    assert_eq!(r["vanished"], 1, "{r}");
}

/// Aider's histories are found under the directory a command runs in: a whole-index run from
/// another directory does not list them, and must not take them for deleted.
#[test]
fn aider_histories_are_not_gone_when_run_elsewhere() {
    let h = Home::real();
    h.ok(&["index", "--all", "--json"]);
    let aider = |v: &Value| -> Vec<bool> {
        v["sessions"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|s| s["provider"] == "aider")
            .map(|s| s["live"].as_bool().unwrap())
            .collect()
    };
    let before = aider(&h.ok(&["list", "--global", "--archived", "--json"]));
    assert!(
        !before.is_empty() && before.iter().all(|l| *l),
        "{before:?}"
    );
    let elsewhere = tempfile::tempdir().unwrap();
    let out = scry_env(
        &h.home,
        elsewhere.path(),
        &[("SCRY_DB", &h.db)],
        &["index", "--all", "--json"],
    );
    assert_eq!(out.code, 0, "{}", out.render());
    assert_eq!(out.json()["vanished"], 0, "{}", out.render());
    let after = aider(&h.ok(&["list", "--global", "--archived", "--json"]));
    assert_eq!(after, before);
}
