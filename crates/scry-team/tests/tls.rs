//! TLS to the team store against a real private cluster with `ssl=on` and a certificate a
//! private CA signed at test time (`openssl`): what each `sslmode` does, and that a failure is
//! one line naming the host and the certificate problem. Skipped when PostgreSQL or openssl is
//! missing, unless `SCRY_REQUIRE_POSTGRES=1`.

use scry_team::cluster::Cluster;

/// Whether the connection of `url` is encrypted (or its error message).
fn encrypted(url: &str) -> Result<bool, String> {
    let (mut client, _) = scry_team::connect(url).map_err(|e| e.message)?;
    let row = client
        .query_one(
            "SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()",
            &[],
        )
        .map_err(|e| e.to_string())?;
    Ok(row.get(0))
}

#[test]
fn each_sslmode_against_a_tls_server() {
    let Some(cluster) = Cluster::start_tls() else {
        return;
    };
    let url = cluster.create_db();
    let ca = cluster.ca_file();
    let ca = ca.display();
    assert_eq!(encrypted(&format!("{url}?sslmode=disable")), Ok(false));
    assert_eq!(
        encrypted(&url),
        Ok(true),
        "prefer (the default) takes TLS when offered"
    );
    assert_eq!(encrypted(&format!("{url}?sslmode=require")), Ok(true));
    assert_eq!(
        encrypted(&format!("{url}?sslmode=verify-full&sslrootcert={ca}")),
        Ok(true)
    );
    // The key=value form too.
    let kv = format!(
        "host=127.0.0.1 port={} user=scry dbname=postgres sslmode=verify-full sslrootcert='{ca}'",
        cluster.port()
    );
    assert_eq!(encrypted(&kv), Ok(true));
    // A name the certificate does not hold (the address is still the server's): verify-full
    // refuses it, verify-ca accepts it.
    let other = url.replacen("127.0.0.1", "db.invalid", 1);
    let wrong_name = format!("{other}?hostaddr=127.0.0.1&sslmode=verify-full&sslrootcert={ca}");
    let e = encrypted(&wrong_name).unwrap_err();
    assert!(
        e.contains("certificate does not verify") && e.contains("NotValidForName"),
        "{e}"
    );
    assert!(e.contains("host db.invalid:"), "{e}");
    assert_eq!(e.lines().count(), 1, "{e}");
    assert_eq!(
        encrypted(&format!(
            "{other}?hostaddr=127.0.0.1&sslmode=verify-ca&sslrootcert={ca}"
        )),
        Ok(true)
    );
    // Not signed by a trusted root.
    let e = encrypted(&format!("{url}?sslmode=verify-full&sslrootcert=system")).unwrap_err();
    assert!(e.contains("UnknownIssuer"), "{e}");
    // require with a root file verifies the chain (as libpq): the server's own certificate is
    // no CA of itself.
    let own = cluster.dir().join("server.crt");
    let e = encrypted(&format!(
        "{url}?sslmode=require&sslrootcert={}",
        own.display()
    ))
    .unwrap_err();
    assert!(e.contains("certificate does not verify"), "{e}");
}

#[test]
fn require_against_a_server_without_tls_is_one_line() {
    let Some(cluster) = Cluster::start() else {
        return;
    };
    let url = cluster.create_db();
    assert_eq!(encrypted(&url), Ok(false), "prefer falls back to plain TCP");
    let e = encrypted(&format!("{url}?sslmode=require")).unwrap_err();
    assert!(e.contains("TLS"), "{e}");
    assert!(
        e.contains(&format!("host 127.0.0.1:{}", cluster.port())),
        "{e}"
    );
    assert_eq!(e.lines().count(), 1, "{e}");
}
