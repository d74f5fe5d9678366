//! Reads inside a session and the front ends over the team store (issue 22), against a real
//! private PostgreSQL cluster: two homes pushed as two machines; `turn` / `events` / the
//! ledgers / `usage` from the store equal each home's local answers (less `machine`); text
//! output names the machine; `serve --store` serves those routes and the `machine` filter;
//! `mcp --store` (here through `SCRY_STORE`) and `tui --store` (in a pty) answer from the
//! store; what the store does not serve is refused with one line and exit 2.
//!
//! Skipped (with a line on stderr) when PostgreSQL is not installed, unless
//! `SCRY_REQUIRE_POSTGRES=1`.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use crate::team::{json, real_home, run, serve_store, setup, strip_machine, Setup};
use crate::util::corpus;

/// The second machine's home: an older Claude Code's sessions.
fn older_home() -> PathBuf {
    corpus().join("real-older/claude-1.0.71/home")
}

/// The real home pushed as `alpha` (by [`setup`]) and the older home as `beta`.
struct Two {
    s: Setup,
    beta_db: PathBuf,
    _dir: tempfile::TempDir,
}

fn push_beta(s: Setup) -> Two {
    let dir = tempfile::tempdir().expect("tempdir");
    let beta_db = dir.path().join("index.db");
    let out = run(
        &older_home(),
        &beta_db,
        &[],
        &["push", &s.url, "--machine", "beta", "--reveal"],
    );
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    Two {
        s,
        beta_db,
        _dir: dir,
    }
}

/// Every session uri of `home`, as the local `list` gives them.
fn uris(home: &Path, db: &Path) -> Vec<String> {
    let l = json(&run(
        home,
        db,
        &[],
        &[
            "list", "--global", "--kind", "all", "--limit", "100000", "--json",
        ],
    ));
    l["sessions"]
        .as_array()
        .expect("sessions")
        .iter()
        .filter_map(|r| r["uri"].as_str().map(str::to_string))
        .collect()
}

/// `args` with `--json`, run locally and from the store (the session named
/// `machine/uri` there): equal less `machine`, or failing alike.
fn same(t: &Two, machine: &str, home: &Path, db: &Path, uri: &str, args: &[&str]) {
    let local: Vec<&str> = [args, &["--json"]].concat();
    let reference = format!("{machine}/{uri}");
    let stored: Vec<&str> = local
        .iter()
        .map(|a| if *a == uri { reference.as_str() } else { a })
        .chain(["--store", t.s.url.as_str()])
        .collect();
    let l = run(home, db, &[], &local);
    let r = run(home, db, &[], &stored);
    if l.code != 0 {
        // No such turn, say: the store refuses it with the same code.
        assert_eq!(r.code, l.code, "{args:?}: {}{}", r.stdout, r.stderr);
        assert_eq!(
            r.json()["error"]["code"],
            l.json()["error"]["code"],
            "{args:?}"
        );
        return;
    }
    let r = json(&r);
    assert_eq!(r["session"]["machine"], machine, "{args:?}");
    assert_eq!(strip_machine(r), l.json(), "{args:?}");
}

#[test]
fn turn_events_ledgers_and_usage_equal_the_local_answers() {
    let Some(s) = setup() else { return };
    let home = real_home();
    // usage: the store holding one machine answers as that machine's index.
    for report in [
        vec!["usage", "daily"],
        vec!["usage", "monthly", "--by", "provider"],
        vec!["usage", "session"],
        vec!["usage", "session", "--split", "--by", "project"],
    ] {
        let local = json(&run(
            &home,
            &s.db,
            &[],
            &[&report[..], &["--json"]].concat(),
        ));
        let stored = json(&run(
            &home,
            &s.db,
            &[],
            &[&report[..], &["--json", "--store", &s.url]].concat(),
        ));
        assert_eq!(stored, local, "{report:?}");
    }
    let t = push_beta(s);
    let by_machine = json(&run(
        &home,
        &t.s.db,
        &[],
        &[
            "usage", "monthly", "--by", "machine", "--json", "--store", &t.s.url,
        ],
    ));
    let mut keys: Vec<&str> = by_machine["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .flat_map(|r| r["breakdown"].as_array().into_iter().flatten())
        .filter_map(|p| p["key"].as_str())
        .collect();
    keys.sort();
    keys.dedup();
    assert_eq!(keys, ["alpha", "beta"], "{by_machine}");

    let older = older_home();
    for (machine, home, db) in [("alpha", &home, &t.s.db), ("beta", &older, &t.beta_db)] {
        let all = uris(home, db);
        assert!(!all.is_empty());
        for uri in all.iter().take(8) {
            let uri = uri.as_str();
            for args in [
                vec!["turn", uri, "1"],
                vec!["turn", uri, "0-2", "--max-chars", "400"],
                vec!["turn", uri, "--event", "1-3"],
                vec!["events", uri, "--limit", "15"],
                vec!["events", uri, "--kind", "tool_call,tool_result"],
                vec!["events", uri, "--surface", "current", "--text", "the"],
                vec!["events", uri, "--relations", "0"],
                vec!["commands", uri],
                vec!["commands", uri, "--failed"],
                vec!["files", uri],
                vec!["errors", uri],
                vec!["jobs", uri],
            ] {
                same(&t, machine, home, db, uri, &args);
            }
            // A page's cursor from the local read continues the stored read alike (the
            // fingerprint of the source travelled with the session).
            let first = json(&run(
                home,
                db,
                &[],
                &["turn", uri, "0-3", "--max-chars", "300", "--json"],
            ));
            if let Some(c) = first["next_cursor"].as_str() {
                same(
                    &t,
                    machine,
                    home,
                    db,
                    uri,
                    &["turn", uri, "0-3", "--max-chars", "300", "--cursor", c],
                );
            }
        }
    }
}

#[test]
fn text_names_the_machine_and_unserved_reads_are_refused() {
    let Some(s) = setup() else { return };
    let t = push_beta(s);
    let home = real_home();
    let store = ["--store", t.s.url.as_str()];
    let list = run(
        &home,
        &t.s.db,
        &[],
        &[&["list", "--global"][..], &store].concat(),
    );
    assert_eq!(list.code, 0, "{}", list.stderr);
    let lines: Vec<&str> = list.stdout.lines().collect();
    assert!(
        lines.iter().any(|l| l.contains("  alpha  ")),
        "{}",
        list.stdout
    );
    assert!(
        lines.iter().any(|l| l.contains("  beta  ")),
        "{}",
        list.stdout
    );
    let found = run(
        &home,
        &t.s.db,
        &[],
        &[
            &["search", "the", "--global", "--machine", "beta"][..],
            &store,
        ]
        .concat(),
    );
    assert_eq!(found.code, 0, "{}", found.stderr);
    assert!(found.stdout.contains("beta/claude:"), "{}", found.stdout);
    assert!(!found.stdout.contains("alpha/"), "{}", found.stdout);
    let uri = uris(&older_home(), &t.beta_db).remove(0);
    let turn = run(
        &home,
        &t.s.db,
        &[],
        &[&["turn", &uri, "1"][..], &store].concat(),
    );
    assert_eq!(turn.code, 0, "{}", turn.stderr);
    assert!(turn
        .stdout
        .lines()
        .nth(1)
        .is_some_and(|l| l.starts_with("machine   beta")));
    for args in [
        vec!["digest", uri.as_str()],
        vec!["graph", uri.as_str()],
        vec!["turn", uri.as_str(), "1", "--raw"],
        vec!["events", uri.as_str(), "--follow"],
        vec!["usage", "statusline"],
    ] {
        let out = run(&home, &t.s.db, &[], &[&args[..], &store].concat());
        assert_eq!(out.code, 2, "{args:?}: {}{}", out.stdout, out.stderr);
        assert_eq!(out.stderr.lines().count(), 1, "{args:?}: {}", out.stderr);
        assert!(out.stderr.contains("store"), "{args:?}: {}", out.stderr);
    }
}

#[test]
fn serve_store_serves_the_session_routes_and_the_machine_filter() {
    let Some(s) = setup() else { return };
    let t = push_beta(s);
    let home = real_home();
    let (mut child, addr) = serve_store(&home, &t.s.db, &t.s.url);
    let get = |path: &str| {
        let (status, _, body) =
            crate::util::http_get(&addr, path, std::time::Duration::from_secs(60));
        (
            status,
            serde_json::from_str::<Value>(&body).unwrap_or(Value::Null),
        )
    };
    let cli = |args: &[&str]| {
        json(&run(
            &home,
            &t.s.db,
            &[],
            &[args, &["--json", "--store", &t.s.url]].concat(),
        ))
    };
    let uri = uris(&older_home(), &t.beta_db).remove(0);
    let id = format!("beta/{uri}");
    // In a path the machine's `/` is escaped (as the web page's encodeURIComponent does).
    let at = format!("beta%2F{uri}");
    let mut answers = vec![
        (
            "/v1/sessions?global=true&kind=all&limit=1000&machine=beta".to_string(),
            cli(&[
                "list",
                "--global",
                "--kind",
                "all",
                "--limit",
                "1000",
                "--machine",
                "beta",
            ]),
        ),
        (
            "/v1/search?q=the&global=true&machine=alpha".to_string(),
            cli(&["search", "the", "--global", "--machine", "alpha"]),
        ),
        (
            format!("/v1/sessions/{at}/content?turns=1"),
            cli(&["turn", &id, "1"]),
        ),
        (
            format!("/v1/sessions/{at}/content?around=2&radius=1"),
            cli(&["turn", &id, "--event", "1-3"]),
        ),
        (
            format!("/v1/sessions/{at}/events?limit=10"),
            cli(&["events", &id, "--limit", "10"]),
        ),
        (
            format!("/v1/sessions/{at}/events?relations=0"),
            cli(&["events", &id, "--relations", "0"]),
        ),
        (
            format!("/v1/sessions/{at}/commands"),
            cli(&["commands", &id]),
        ),
        (format!("/v1/sessions/{at}/files"), cli(&["files", &id])),
        (format!("/v1/sessions/{at}/errors"), cli(&["errors", &id])),
        (format!("/v1/sessions/{at}/jobs"), cli(&["jobs", &id])),
        (
            "/v1/usage?report=monthly&by=machine".to_string(),
            cli(&["usage", "monthly", "--by", "machine"]),
        ),
    ];
    let lineage = get(&format!("/v1/sessions/{at}/lineage"));
    let stream = get(&format!("/v1/sessions/{at}/stream"));
    let got: Vec<(u16, Value)> = answers.iter().map(|(path, _)| get(path)).collect();
    let _ = child.kill();
    let _ = child.wait();
    for ((path, expected), (status, body)) in answers.drain(..).zip(got) {
        assert_eq!(status, 200, "{path}: {body}");
        assert_eq!(body, expected, "{path}");
    }
    assert!(beta_rows(&home, &t) > 0);
    for (status, body) in [lineage, stream] {
        assert_eq!(status, 400, "{body}");
        assert_eq!(body["error"]["code"], "INVALID_QUERY", "{body}");
    }
}

/// `list --machine beta` from the store holds exactly beta's sessions.
fn beta_rows(home: &Path, t: &Two) -> usize {
    let beta = json(&run(
        home,
        &t.s.db,
        &[],
        &[
            "list",
            "--global",
            "--kind",
            "all",
            "--limit",
            "1000",
            "--machine",
            "beta",
            "--json",
            "--store",
            &t.s.url,
        ],
    ));
    let rows = beta["sessions"].as_array().expect("rows");
    assert!(rows.iter().all(|r| r["machine"] == "beta"));
    assert_eq!(rows.len(), uris(&older_home(), &t.beta_db).len());
    rows.len()
}

#[test]
fn mcp_store_answers_from_the_team_store() {
    let Some(s) = setup() else { return };
    let t = push_beta(s);
    let home = real_home();
    let uri = uris(&older_home(), &t.beta_db).remove(0);
    let id = format!("beta/{uri}");
    let cli = |args: &[&str]| {
        json(&run(
            &home,
            &t.s.db,
            &[],
            &[args, &["--json", "--store", &t.s.url]].concat(),
        ))
    };
    let expected = [
        ("show_session", json!({"id": id}), cli(&["show", &id])),
        ("turns", json!({"id": id}), cli(&["turns", &id])),
        (
            "read",
            json!({"id": id, "turns": "1"}),
            cli(&["turn", &id, "1", "--max-chars", "120000"]),
        ),
        ("commands", json!({"id": id}), cli(&["commands", &id])),
        ("files", json!({"id": id}), cli(&["files", &id])),
        ("errors", json!({"id": id}), cli(&["errors", &id])),
    ];
    crate::mcp::runtime().block_on(async {
        let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_scry"));
        cmd.env_clear()
            .env("HOME", &home)
            .env("TZ", "UTC")
            .env("SCRY_DB", &t.s.db)
            .env("SCRY_STORE", &t.s.url)
            .current_dir(&home)
            .arg("mcp");
        let (transport, _stderr) = rmcp::transport::TokioChildProcess::builder(cmd)
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("spawn scry mcp");
        let c = rmcp::ServiceExt::serve((), transport)
            .await
            .expect("MCP initialize");
        let (_, listed, err) = crate::mcp::call(
            &c,
            "list_sessions",
            json!({"scope": "global", "limit": 1000, "max_chars": 200000}),
        )
        .await;
        assert!(!err, "{listed}");
        let machines: Vec<&str> = listed["result"]["sessions"]
            .as_array()
            .expect("sessions")
            .iter()
            .filter_map(|r| r["machine"].as_str())
            .collect();
        assert!(machines.contains(&"alpha") && machines.contains(&"beta"));
        for (tool, mut args, cli) in expected {
            args["max_chars"] = json!(200_000);
            let (_, v, err) = crate::mcp::call(&c, tool, args.clone()).await;
            assert!(!err, "{tool}: {v}");
            assert_eq!(v["result"]["session"]["machine"], "beta", "{tool}");
            if v["redacted"] == json!(0) {
                assert_eq!(v["result"], cli, "{tool} {args}");
            }
        }
        let (_, v, err) = crate::mcp::call(&c, "trace", json!({"id": id})).await;
        assert!(err, "{v}");
        assert_eq!(v["error"]["code"], "INVALID_QUERY", "{v}");
        c.cancel().await.ok();
    });
}

#[test]
fn tui_store_lists_searches_and_opens_stored_sessions_in_a_pty() {
    let Some(s) = setup() else { return };
    let t = push_beta(s);
    let home = tempfile::tempdir().expect("tempdir");
    let mut cmd = std::process::Command::new("sh");
    cmd.arg("-c")
        .arg("stty rows 24 cols 100 && exec \"$0\" tui --global --store \"$1\"")
        .arg(env!("CARGO_BIN_EXE_scry"))
        .arg(&t.s.url)
        .env_clear()
        .env("HOME", home.path())
        .env("TZ", "UTC")
        .env("TERM", "xterm-256color")
        .env("PATH", "/usr/bin:/bin")
        .env("SCRY_DB", &t.s.db)
        .current_dir(home.path());
    let mut p = rexpect::session::spawn_command(cmd, Some(60_000)).expect("spawn in a pty");
    // The home here is empty: every session listed, found and opened comes from the store.
    let (_, top) = p
        .exp_regex(r"scry \S+ \d+ sessions")
        .expect("the list is drawn");
    let listed: usize = top
        .split_whitespace()
        .nth(2)
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    assert!(listed > 10, "{top}");
    p.exp_string("Enter open").expect("the list's keys");
    p.send("/").unwrap();
    p.flush().unwrap();
    p.exp_string("select").expect("the search screen");
    p.send("the").unwrap();
    p.flush().unwrap();
    p.exp_string("matches").expect("results from the store");
    p.send("\r").unwrap();
    p.flush().unwrap();
    p.exp_regex(r"turn \d+/\d+")
        .expect("a stored session opens");
    p.send("\x1b").unwrap();
    p.flush().unwrap();
    p.exp_string("quit").expect("back in the list");
    p.send("q").unwrap();
    p.flush().unwrap();
    p.exp_eof().expect("scry exits");
    match p.process().wait().expect("wait") {
        rexpect::process::WaitStatus::Exited(_, code) => assert_eq!(code, 0, "exit status"),
        other => panic!("scry tui did not exit normally: {other:?}"),
    }
}
