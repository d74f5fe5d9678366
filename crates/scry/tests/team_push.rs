//! `scry push` beyond one run (issue 22), against real private PostgreSQL clusters: `--watch`
//! sends a session that appears in the home and again one that changes; exclusions keep
//! sessions out of the store and take back what an earlier push sent; a password role
//! authenticates (SCRAM over TLS) and a wrong password is one line naming the user, never the
//! password.
//!
//! Skipped (with a line on stderr) when PostgreSQL is not installed, unless
//! `SCRY_REQUIRE_POSTGRES=1`.

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::team::{json, real_home, run, setup};
use scry_team::cluster::Cluster;

/// Every file under `from` copied to `to` (a provider's directory of the real home).
fn copy_tree(from: &Path, to: &Path) {
    for e in walkdir::WalkDir::new(from).into_iter().flatten() {
        let rel = e.path().strip_prefix(from).expect("under from");
        let dst = to.join(rel);
        if e.file_type().is_dir() {
            std::fs::create_dir_all(&dst).expect("mkdir");
        } else {
            std::fs::copy(e.path(), &dst).expect("copy");
        }
    }
}

/// The uris the store lists (every kind).
fn stored_uris(home: &Path, db: &Path, url: &str) -> Vec<String> {
    let out = run(
        home,
        db,
        &[],
        &[
            "list", "--global", "--kind", "all", "--limit", "1000", "--json", "--store", url,
        ],
    );
    if out.code != 0 {
        return Vec::new(); // no store yet: the first round has not run
    }
    let mut uris: Vec<String> = out.json()["sessions"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|r| r["uri"].as_str().map(str::to_string))
        .collect();
    uris.sort();
    uris
}

/// Waits (up to 90 s) until `done` holds for the store's uris.
fn wait_for(home: &Path, db: &Path, url: &str, what: &str, done: impl Fn(&[String]) -> bool) {
    let start = Instant::now();
    loop {
        let uris = stored_uris(home, db, url);
        if done(&uris) {
            return;
        }
        assert!(
            start.elapsed() < Duration::from_secs(90),
            "push --watch: {what} did not happen: {uris:?}"
        );
        std::thread::sleep(Duration::from_millis(300));
    }
}

#[test]
fn push_watch_sends_new_and_changed_sessions() {
    let Some(cluster) = Cluster::start() else {
        return;
    };
    let url = cluster.create_db();
    let dir = tempfile::tempdir().expect("tempdir");
    let home = dir.path().join("home");
    copy_tree(&real_home().join(".codex"), &home.join(".codex"));
    let db = dir.path().join("index.db");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_scry"))
        .env_clear()
        .env("HOME", &home)
        .env("TZ", "UTC")
        .env("SCRY_DB", &db)
        .current_dir(&home)
        .args(["push", &url, "--machine", "w", "--watch", "--interval", "1"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("start scry push --watch");
    let reader_db = dir.path().join("reader.db");
    let codex = |u: &[String]| u.iter().filter(|u| u.starts_with("codex:")).count();
    wait_for(&home, &reader_db, &url, "the first push", |u| {
        codex(u) == 3 && u.len() == 3
    });
    // A new session appears: the next round sends it.
    copy_tree(&real_home().join(".pi"), &home.join(".pi"));
    wait_for(&home, &reader_db, &url, "sending a new session", |u| {
        u.len() == 4 && u.iter().any(|u| u.starts_with("pi:"))
    });
    // A session file grows: the next round sends it again (its fingerprint changes).
    let fingerprint = |c: &mut postgres::Client| -> String {
        c.query_one(
            "SELECT fingerprint FROM scry_sessions WHERE provider = 'pi'",
            &[],
        )
        .expect("the pi row")
        .get(0)
    };
    let mut c = postgres::Client::connect(&url, postgres::NoTls).expect("connect");
    let before = fingerprint(&mut c);
    let pi = walkdir::WalkDir::new(home.join(".pi"))
        .into_iter()
        .flatten()
        .find(|e| e.file_type().is_file() && e.path().extension().is_some_and(|x| x == "jsonl"))
        .expect("the pi session file");
    let mut text = std::fs::read_to_string(pi.path()).expect("read");
    text.push('\n');
    std::fs::write(pi.path(), text).expect("grow the pi session");
    let start = Instant::now();
    while fingerprint(&mut c) == before {
        assert!(
            start.elapsed() < Duration::from_secs(90),
            "push --watch did not send the changed session"
        );
        std::thread::sleep(Duration::from_millis(300));
    }
    assert_eq!(stored_uris(&home, &reader_db, &url).len(), 4);
    let _ = child.kill();
    let _ = child.wait();
}

#[test]
fn exclusions_keep_sessions_out_and_take_back_what_was_sent() {
    let Some(s) = setup() else { return };
    let home = real_home();
    let store = stored_uris(&home, &s.db, &s.url);
    assert!(store.iter().any(|u| u.starts_with("codex:")), "{store:?}");
    // The same home as `gamma` without codex: no codex session of gamma in the store.
    let push = |extra: &[&str]| {
        let args = [&["push", &s.url, "--machine", "gamma", "--json"][..], extra].concat();
        json(&run(&home, &s.db, &[], &args))
    };
    let first = push(&["--exclude-provider", "codex"]);
    let gamma = |extra: &[&str]| -> Vec<Value> {
        let args = [
            &[
                "list",
                "--global",
                "--kind",
                "all",
                "--limit",
                "1000",
                "--json",
                "--machine",
                "gamma",
                "--store",
                &s.url,
            ][..],
            extra,
        ]
        .concat();
        json(&run(&home, &s.db, &[], &args))["sessions"]
            .as_array()
            .cloned()
            .unwrap_or_default()
    };
    let without = gamma(&[]);
    assert!(!without.is_empty());
    assert!(
        without.iter().all(|r| r["provider"] != "codex"),
        "{without:?}"
    );
    // Without the exclusion the codex sessions are sent; with it again they are removed.
    let all = push(&[]);
    let codex = store.iter().filter(|u| u.starts_with("codex:")).count() as u64;
    assert_eq!(all["sent"].as_u64(), Some(codex), "{all}");
    assert!(gamma(&[]).iter().any(|r| r["provider"] == "codex"));
    let again = push(&["--exclude-provider", "codex"]);
    assert_eq!(again["removed"].as_u64(), Some(codex), "{again}");
    assert_eq!(again["sent"], 0, "{again}");
    assert_eq!(gamma(&[]), without);
    assert_eq!(first["machine"], "gamma");
}

#[test]
fn a_password_role_authenticates_over_tls_and_a_wrong_one_is_one_line() {
    let Some(cluster) = Cluster::start_tls() else {
        return;
    };
    let url = cluster.create_db();
    // Password (SCRAM) authentication for the role `ann`, ahead of the cluster's trust lines.
    let hba = cluster.dir().join("data/pg_hba.conf");
    let rest = std::fs::read_to_string(&hba).expect("read pg_hba.conf");
    std::fs::write(
        &hba,
        format!("host all ann 127.0.0.1/32 scram-sha-256\n{rest}"),
    )
    .expect("write pg_hba.conf");
    let mut c = postgres::Client::connect(&url, postgres::NoTls).expect("connect");
    let name: String = c
        .query_one("SELECT current_database()::text", &[])
        .expect("database")
        .get(0);
    // The pusher role of docs/team.md: CREATE on the database (for pg_trgm and the tables).
    c.batch_execute(&format!(
        "SET password_encryption = 'scram-sha-256';
         CREATE ROLE ann LOGIN PASSWORD 'right-secret';
         GRANT CREATE ON DATABASE {name} TO ann;
         GRANT ALL ON SCHEMA public TO ann;
         SELECT pg_reload_conf();"
    ))
    .expect("create ann");
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("index.db");
    let home = real_home();
    let ca = cluster.ca_file();
    let at = |password: &str| {
        url.replacen(
            "postgres://scry@",
            &format!("postgres://ann:{password}@"),
            1,
        ) + &format!("?sslmode=verify-full&sslrootcert={}", ca.display())
    };
    let wrong = run(
        &home,
        &db,
        &[],
        &["push", &at("wrong-secret"), "--machine", "a"],
    );
    assert_eq!(wrong.code, 1, "{}{}", wrong.stdout, wrong.stderr);
    let line = wrong.stderr.trim();
    assert_eq!(line.lines().count(), 1, "{line}");
    assert!(
        line.contains("authentication failed for user \"ann\"")
            && line.contains(&format!("host 127.0.0.1:{}", cluster.port())),
        "{line}"
    );
    assert!(!line.contains("wrong-secret"), "{line}");
    let right = run(
        &home,
        &db,
        &[],
        &["push", &at("right-secret"), "--machine", "a"],
    );
    assert_eq!(right.code, 0, "{}{}", right.stdout, right.stderr);
    assert!(!stored_uris(&home, &db, &at("right-secret")).is_empty());
}
