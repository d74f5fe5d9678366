//! A private PostgreSQL cluster for tests (no mock): `initdb` in a temporary directory, the
//! server on a random free port of 127.0.0.1 with its unix socket in that directory, trust
//! authentication for the superuser `scry`, and everything stopped and removed when the
//! [`Cluster`] drops.
//!
//! `initdb` refuses to run as root: as root the cluster runs as the `postgres` user (which
//! Debian's `postgresql` package creates) through `runuser`; as anyone else it runs directly.
//! The binaries are found in `$SCRY_PG_BIN`, else the newest `/usr/lib/postgresql/*/bin`, else
//! `pg_config --bindir`. When none is there [`Cluster::start`] returns `None` (the caller skips
//! its test) unless `SCRY_REQUIRE_POSTGRES=1`, where a missing PostgreSQL fails the test.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU32, Ordering};

/// A running private cluster; dropped = stopped and its directory removed.
#[derive(Debug)]
pub struct Cluster {
    bin: PathBuf,
    dir: PathBuf,
    port: u16,
    run_as: Option<String>,
    next_db: AtomicU32,
}

/// The directory holding `initdb`, `pg_ctl` and `postgres`, if PostgreSQL is installed.
pub fn bin_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("SCRY_PG_BIN") {
        return Some(PathBuf::from(dir));
    }
    let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let v: u32 = e.file_name().to_str()?.parse().ok()?;
            let bin = e.path().join("bin");
            bin.join("initdb").exists().then_some((v, bin))
        })
        .collect();
    versions.sort();
    if let Some((_, bin)) = versions.pop() {
        return Some(bin);
    }
    let out = Command::new("pg_config").arg("--bindir").output().ok()?;
    let dir = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    dir.join("initdb").exists().then_some(dir)
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
        .unwrap_or(false)
}

/// `(uid, gid)` of `user` from `/etc/passwd`.
fn ids_of(user: &str) -> Option<(u32, u32)> {
    let passwd = std::fs::read_to_string("/etc/passwd").ok()?;
    passwd.lines().find_map(|l| {
        let f: Vec<&str> = l.split(':').collect();
        (f.first() == Some(&user) && f.len() > 3)
            .then(|| Some((f[2].parse().ok()?, f[3].parse().ok()?)))
            .flatten()
    })
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .unwrap_or(54329)
}

impl Cluster {
    /// Starts a cluster, or `None` when PostgreSQL is not installed and not required.
    ///
    /// # Panics
    /// When PostgreSQL is required (`SCRY_REQUIRE_POSTGRES=1`) but missing, or a step of
    /// starting it fails: this is test support, and a test must not pass without its server.
    pub fn start() -> Option<Cluster> {
        Cluster::start_with(false)
    }

    /// Starts a cluster that also speaks TLS (`ssl=on`) with a certificate for `127.0.0.1` and
    /// `localhost` signed by a private CA made now with `openssl` ([`Cluster::ca_file`]); `None`
    /// as [`Cluster::start`], or when `openssl` is missing (and PostgreSQL is not required).
    ///
    /// # Panics
    /// As [`Cluster::start`].
    pub fn start_tls() -> Option<Cluster> {
        Cluster::start_with(true)
    }

    fn start_with(tls: bool) -> Option<Cluster> {
        let required = std::env::var("SCRY_REQUIRE_POSTGRES").is_ok_and(|v| v == "1");
        let Some(bin) = bin_dir() else {
            assert!(
                !required,
                "SCRY_REQUIRE_POSTGRES=1 but no PostgreSQL (initdb) was found"
            );
            eprintln!("PostgreSQL is not installed: test skipped");
            return None;
        };
        static N: AtomicU32 = AtomicU32::new(0);
        let dir = std::env::temp_dir().join(format!(
            "scry-pg-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::SeqCst)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("create the cluster directory");
        let run_as = is_root().then(|| "postgres".to_string());
        if let Some(user) = &run_as {
            let (uid, gid) = ids_of(user).expect("running as root needs the postgres user");
            std::os::unix::fs::chown(&dir, Some(uid), Some(gid)).expect("chown cluster dir");
        }
        let cluster = Cluster {
            bin,
            port: free_port(),
            dir,
            run_as,
            next_db: AtomicU32::new(0),
        };
        cluster.run(
            "initdb",
            &[
                "-D",
                &cluster.data().to_string_lossy(),
                "-U",
                "scry",
                "-A",
                "trust",
                "-E",
                "UTF8",
                "--locale=C.UTF-8",
                "--no-sync",
            ],
        );
        let opts = format!(
            "-p {} -k {} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off",
            cluster.port,
            cluster.dir.display()
        );
        let opts = if tls {
            if !cluster.make_certificates(required) {
                return None;
            }
            format!(
                "{opts} -c ssl=on -c ssl_cert_file={} -c ssl_key_file={}",
                cluster.dir.join("server.crt").display(),
                cluster.dir.join("server.key").display()
            )
        } else {
            opts
        };
        cluster.run(
            "pg_ctl",
            &[
                "-D",
                &cluster.data().to_string_lossy(),
                "-o",
                &opts,
                "-l",
                &cluster.dir.join("log").to_string_lossy(),
                "-w",
                "start",
            ],
        );
        Some(cluster)
    }

    /// The private CA's certificate (PEM) that signed the server's, for `sslrootcert=`.
    pub fn ca_file(&self) -> PathBuf {
        self.dir.join("ca.crt")
    }

    /// A CA and a server certificate signed by it (`openssl`); false when `openssl` is missing.
    fn make_certificates(&self, required: bool) -> bool {
        let d = &self.dir;
        let openssl = |args: &[&str]| {
            Command::new("openssl")
                .args(args)
                .current_dir(d)
                .output()
                .map(|o| {
                    assert!(
                        o.status.success(),
                        "openssl {args:?} failed: {}",
                        String::from_utf8_lossy(&o.stderr)
                    );
                })
                .is_ok()
        };
        let ca = [
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "2",
            "-subj",
            "/CN=scry test CA",
            "-keyout",
            "ca.key",
            "-out",
            "ca.crt",
        ];
        if !openssl(&ca) {
            assert!(!required, "SCRY_REQUIRE_POSTGRES=1 but openssl is missing");
            eprintln!("openssl is not installed: TLS test skipped");
            return false;
        }
        std::fs::write(
            d.join("san.ext"),
            "subjectAltName=IP:127.0.0.1,DNS:localhost\n",
        )
        .expect("write san.ext");
        openssl(&[
            "req",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-subj",
            "/CN=localhost",
            "-keyout",
            "server.key",
            "-out",
            "server.csr",
        ]);
        openssl(&[
            "x509",
            "-req",
            "-in",
            "server.csr",
            "-CA",
            "ca.crt",
            "-CAkey",
            "ca.key",
            "-CAcreateserial",
            "-days",
            "2",
            "-extfile",
            "san.ext",
            "-out",
            "server.crt",
        ]);
        if let Some(user) = &self.run_as {
            let (uid, gid) = ids_of(user).expect("the postgres user");
            for f in ["server.key", "server.crt"] {
                std::os::unix::fs::chown(d.join(f), Some(uid), Some(gid)).expect("chown");
            }
        }
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(d.join("server.key"), std::fs::Permissions::from_mode(0o600))
            .expect("chmod server.key");
        true
    }

    fn data(&self) -> PathBuf {
        self.dir.join("data")
    }

    fn command(&self, program: &str) -> Command {
        let exe = self.bin.join(program);
        match &self.run_as {
            Some(user) => {
                let mut c = Command::new("runuser");
                c.args(["-u", user, "--"]).arg(exe);
                c
            }
            None => Command::new(exe),
        }
    }

    fn run(&self, program: &str, args: &[&str]) {
        let out = self
            .command(program)
            .args(args)
            .current_dir(&self.dir)
            .output()
            .unwrap_or_else(|e| panic!("cannot run {program}: {e}"));
        assert!(
            out.status.success(),
            "{program} failed: {}{}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr),
            std::fs::read_to_string(self.dir.join("log")).unwrap_or_default()
        );
    }

    /// The TCP port the server listens on (127.0.0.1).
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The cluster's directory (data, log, socket).
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The URL of database `db` as the superuser `scry`.
    pub fn url(&self, db: &str) -> String {
        format!("postgres://scry@127.0.0.1:{}/{db}", self.port)
    }

    /// Creates a new empty database and returns its URL.
    pub fn create_db(&self) -> String {
        let name = format!("t{}", self.next_db.fetch_add(1, Ordering::SeqCst));
        let mut client = postgres::Client::connect(&self.url("postgres"), postgres::NoTls)
            .expect("connect to the private cluster");
        client
            .batch_execute(&format!("CREATE DATABASE {name}"))
            .expect("create database");
        self.url(&name)
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let _ = self
            .command("pg_ctl")
            .args([
                "-D",
                &self.data().to_string_lossy(),
                "-m",
                "immediate",
                "-w",
            ])
            .arg("stop")
            .output();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
