//! Who may reach the team store and how (issue 22), against real private PostgreSQL clusters:
//! a role with only `SELECT` on the tables (and `USAGE` on the schema) serves every reader —
//! list / show / turns / turn / search / the ledgers / usage, `serve --store` — while `push`
//! with it fails with one line naming the role (exit 1); and the store over TLS (rustls):
//! `sslmode=verify-full` with `sslrootcert=` a private CA pushes and reads, a CA that did not
//! sign the server's certificate is named in one line.
//!
//! Skipped (with a line on stderr) when PostgreSQL is not installed, unless
//! `SCRY_REQUIRE_POSTGRES=1`.

use serde_json::Value;

use crate::team::{json, real_home, run, serve_store, setup, strip_machine};
use scry_team::cluster::Cluster;

/// Creates the role `reader` with `SELECT` on scry's tables and `USAGE` on the schema only
/// (PUBLIC's default rights on the schema and the database taken away) and returns its URL.
fn read_only_role(url: &str) -> String {
    let mut c = postgres::Client::connect(url, postgres::NoTls).expect("connect as scry");
    let db: String = c
        .query_one("SELECT current_database()::text", &[])
        .expect("database")
        .get(0);
    c.batch_execute(&format!(
        "CREATE ROLE reader LOGIN;
         REVOKE ALL ON SCHEMA public FROM PUBLIC;
         REVOKE TEMPORARY ON DATABASE {db} FROM PUBLIC;
         GRANT USAGE ON SCHEMA public TO reader;
         GRANT SELECT ON ALL TABLES IN SCHEMA public TO reader;"
    ))
    .expect("create the read-only role");
    url.replacen("postgres://scry@", "postgres://reader@", 1)
}

#[test]
fn a_read_only_role_serves_every_reader_and_cannot_push() {
    let Some(s) = setup() else { return };
    let home = real_home();
    let reader = read_only_role(&s.url);
    let list = [
        "list", "--global", "--kind", "all", "--limit", "100000", "--json",
    ];
    let as_owner = json(&run(
        &home,
        &s.db,
        &[],
        &[&list[..], &["--store", &s.url]].concat(),
    ));
    let as_reader = json(&run(
        &home,
        &s.db,
        &[],
        &[&list[..], &["--store", &reader]].concat(),
    ));
    assert_eq!(as_reader, as_owner);
    let rows = as_owner["sessions"].as_array().expect("sessions");
    assert!(rows.len() > 10, "{as_owner}");
    // A session with a command (so the ledgers are not empty).
    let uri = rows
        .iter()
        .filter_map(|r| r["uri"].as_str())
        .find(|uri| {
            let c = run(
                &home,
                &s.db,
                &[],
                &["commands", uri, "--json", "--store", &s.url],
            );
            c.code == 0
                && c.json()["commands"]
                    .as_array()
                    .is_some_and(|a| !a.is_empty())
        })
        .expect("a stored session with commands")
        .to_string();
    let reads: Vec<Vec<&str>> = vec![
        vec!["show", &uri],
        vec!["turns", &uri],
        vec!["turn", &uri, "1"],
        vec!["commands", &uri],
        vec!["files", &uri],
        vec!["errors", &uri],
        vec!["search", "error", "--global", "--limit", "20"],
        vec!["search", "cargo", "--session", &uri],
        vec!["usage", "daily"],
    ];
    for args in &reads {
        let owner = run(
            &home,
            &s.db,
            &[],
            &[&args[..], &["--json", "--store", &s.url]].concat(),
        );
        let by_reader = run(
            &home,
            &s.db,
            &[],
            &[&args[..], &["--json", "--store", &reader]].concat(),
        );
        assert_eq!(by_reader.code, 0, "{args:?}: {}", by_reader.stderr);
        assert_eq!(by_reader.json(), json(&owner), "{args:?}");
    }
    // `serve --store` as the reader.
    let (mut child, addr) = serve_store(&home, &s.db, &reader);
    let (status, _, body) = crate::util::http_get(
        &addr,
        "/v1/sessions?global=true&kind=all&limit=100000",
        std::time::Duration::from_secs(60),
    );
    let (search_status, _, _) = crate::util::http_get(
        &addr,
        "/v1/search?q=error&global=true",
        std::time::Duration::from_secs(60),
    );
    let _ = child.kill();
    let _ = child.wait();
    assert_eq!(status, 200, "{body}");
    assert_eq!(search_status, 200);
    let served: Value = serde_json::from_str(&body).unwrap_or(Value::Null);
    assert_eq!(served["sessions"], as_owner["sessions"]);
    // Push as the reader: one line naming the role and what push needs, exit 1, store as it was.
    let push = run(&home, &s.db, &[], &["push", &reader, "--machine", "gamma"]);
    assert_eq!(push.code, 1, "{}{}", push.stdout, push.stderr);
    let line = push.stderr.trim();
    assert_eq!(line.lines().count(), 1, "{line}");
    assert!(
        line.contains("\"reader\" may only read the team store"),
        "{line}"
    );
    assert!(!line.contains("panicked"), "{line}");
    let after = json(&run(
        &home,
        &s.db,
        &[],
        &[&list[..], &["--store", &reader]].concat(),
    ));
    assert_eq!(after, as_owner);
}

#[test]
fn the_store_over_tls_verifies_a_private_ca() {
    let Some(cluster) = Cluster::start_tls() else {
        return;
    };
    let url = cluster.create_db();
    let home = real_home();
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("index.db");
    let ca = cluster.ca_file();
    let tls_url = format!("{url}?sslmode=verify-full&sslrootcert={}", ca.display());
    let push = run(
        &home,
        &db,
        &[],
        &["push", &tls_url, "--machine", "alpha", "--reveal"],
    );
    assert_eq!(push.code, 0, "{}{}", push.stdout, push.stderr);
    let list = [
        "list", "--global", "--kind", "all", "--limit", "100000", "--json",
    ];
    let over_tls = json(&run(
        &home,
        &db,
        &[],
        &[&list[..], &["--store", &tls_url]].concat(),
    ));
    let local = json(&run(&home, &db, &[], &list));
    assert_eq!(strip_machine(over_tls)["sessions"], local["sessions"]);
    // A CA that did not sign the server's certificate (the system's trust store here).
    let system = format!("{url}?sslmode=verify-full&sslrootcert=system");
    let out = run(
        &home,
        &db,
        &[],
        &[&list[..], &["--store", &system]].concat(),
    );
    assert_eq!(out.code, 1, "{}{}", out.stdout, out.stderr);
    let line = out.stderr.trim();
    assert_eq!(line.lines().count(), 1, "{line}");
    assert!(
        line.contains("certificate does not verify") && line.contains("UnknownIssuer"),
        "{line}"
    );
    assert!(
        line.contains(&format!("host 127.0.0.1:{}", cluster.port())),
        "{line}"
    );
    // An unreadable root file is a usage error naming it.
    let missing = format!("{url}?sslmode=verify-full&sslrootcert=/nonexistent/ca.pem");
    let out = run(
        &home,
        &db,
        &[],
        &[&list[..], &["--store", &missing]].concat(),
    );
    assert_eq!(out.code, 2, "{}{}", out.stdout, out.stderr);
    assert!(out.stderr.contains("/nonexistent/ca.pem"), "{}", out.stderr);
}
