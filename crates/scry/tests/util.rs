//! Helpers: run the binary in a hermetic environment, print its outcome jj-style (stdout, a
//! stderr separator, the exit status), redact machine-specific paths, and write small
//! Claude-shaped session files.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::time::Duration;

use serde_json::Value;

/// The `127.0.0.1:PORT` a just-started `scry serve` / `scry web` names on its first stdout line
/// (its stdout is taken and closed after that line).
pub fn announced_addr(child: &mut Child) -> String {
    let mut line = String::new();
    BufReader::new(child.stdout.take().expect("stdout"))
        .read_line(&mut line)
        .expect("address line");
    let addr = line
        .trim()
        .trim_end_matches('/')
        .rsplit("http://")
        .next()
        .unwrap_or_default()
        .to_string();
    assert!(addr.starts_with("127.0.0.1:"), "no address: {line:?}");
    addr
}

/// `GET path` on a fresh connection to `addr` (`Host: addr`, `Connection: close`), read until
/// the server closes or `timeout` passes: (status, head, body), status 0 when nothing usable
/// came back (no connection, nothing sent, no status line).
pub fn http_get(addr: &str, path: &str, timeout: Duration) -> (u16, String, String) {
    let r = scry_testkit::http::get(addr, path, timeout);
    (r.status, r.head, r.body)
}

/// What one run printed.
#[derive(Debug)]
pub struct Out {
    pub stdout: String,
    pub stderr: String,
    pub code: i32,
}

impl Out {
    /// stdout, then stderr after a separator, then the exit status.
    pub fn render(&self) -> String {
        let mut s = self.stdout.clone();
        if !self.stderr.is_empty() {
            s.push_str("------- stderr -------\n");
            s.push_str(&self.stderr);
        }
        s.push_str(&format!("[exit status: {}]\n", self.code));
        s
    }

    /// stdout parsed as JSON.
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("stdout is not JSON ({e}):\n{}", self.render()))
    }

    /// Asserts the process did not panic (exit 101 or a panic message).
    pub fn assert_no_panic(&self) {
        assert!(
            self.code != 101 && !self.stderr.contains("panicked"),
            "panic:\n{}",
            self.render()
        );
    }
}

/// Runs `scry args…` with `HOME=home`, `TZ=UTC`, nothing else in the environment, in `cwd`.
pub fn scry_in(home: &Path, cwd: &Path, args: &[&str]) -> Out {
    scry_env(home, cwd, &[], args)
}

/// Like [`scry_in`] with extra environment variables.
/// Unless `vars` names `SCRY_DB`, the index goes to a fresh temporary directory: never into
/// `home` (a corpus home must stay untouched) and never shared between runs.
pub fn scry_env(home: &Path, cwd: &Path, vars: &[(&str, &Path)], args: &[&str]) -> Out {
    let db = tempfile::tempdir().expect("tempdir for the index");
    let db_file = db.path().join("index.db");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_scry"));
    cmd.env_clear();
    if !vars.iter().any(|(k, _)| *k == "SCRY_DB") {
        cmd.env("SCRY_DB", &db_file);
    }
    let out = cmd
        .env("HOME", home)
        .env("TZ", "UTC")
        .envs(vars.iter().map(|(k, v)| (*k, *v)))
        .current_dir(cwd)
        .args(args)
        .output()
        .expect("run scry");
    Out {
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        code: out.status.code().unwrap_or(-1),
    }
}

/// Runs `scry args…` with `HOME=home`, from `home`.
pub fn scry(home: &Path, args: &[&str]) -> Out {
    scry_in(home, home, args)
}

/// Replaces `home` with `[HOME]` and the demo cache hash with `[HASH]`.
pub fn redact(text: &str, home: &Path) -> String {
    let s = text.replace(&home.display().to_string(), "[HOME]");
    let re = regex::Regex::new("demo-[0-9a-f]{16}").expect("regex");
    re.replace_all(&s, "demo-[HASH]").into_owned()
}

/// The shared corpus directory.
pub use scry_testkit::corpus;

/// Every session uri `list --kind all --json` reports for a home (demo when `demo`).
pub fn all_uris(home: &Path, demo: bool) -> Vec<String> {
    let mut args = vec![
        "list", "--global", "--kind", "all", "--limit", "100000", "--json",
    ];
    if demo {
        args.push("--demo");
    }
    let out = scry(home, &args);
    assert_eq!(out.code, 0, "{}", out.render());
    out.json()["sessions"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|s| s["uri"].as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// One Claude Code–shaped line.
pub fn claude_line(kind: &str, session: &str, n: u32, cwd: &str, text: &str) -> String {
    let ts = format!("2026-11-20T10:{:02}:00.000Z", n % 60);
    let v = if kind == "user" {
        serde_json::json!({
            "type": "user", "uuid": format!("u-{session}-{n}"), "sessionId": session,
            "cwd": cwd, "timestamp": ts, "version": "2.1.0",
            "message": {"role": "user", "content": text}
        })
    } else {
        serde_json::json!({
            "type": "assistant", "uuid": format!("a-{session}-{n}"), "sessionId": session,
            "cwd": cwd, "timestamp": ts, "version": "2.1.0",
            "message": {"id": format!("msg-{session}-{n}"), "role": "assistant",
                "model": "claude-test", "content": [{"type": "text", "text": text}],
                "usage": {"input_tokens": 10, "output_tokens": 5}}
        })
    };
    v.to_string()
}

/// Writes a Claude session `<home>/.claude/projects/<slug>/<id>.jsonl` of `turns` prompt/answer
/// pairs; returns its path.
pub fn claude_session(home: &Path, id: &str, cwd: &str, turns: u32) -> PathBuf {
    let dir = home.join(".claude/projects/-test-proj");
    std::fs::create_dir_all(&dir).expect("mkdir");
    let mut body = String::new();
    for t in 0..turns {
        body.push_str(&claude_line("user", id, t * 2, cwd, &format!("prompt {t}")));
        body.push('\n');
        body.push_str(&claude_line(
            "assistant",
            id,
            t * 2 + 1,
            cwd,
            &format!("answer {t}\nsecond line of answer {t}"),
        ));
        body.push('\n');
    }
    let path = dir.join(format!("{id}.jsonl"));
    std::fs::write(&path, body).expect("write");
    path
}

/// Every `tests/*.rs` module is declared in `tests.rs` (with `autotests = false` a forgotten
/// file would silently never run).
#[test]
fn no_forgotten_test_files() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let root = std::fs::read_to_string(dir.join("tests.rs")).expect("tests.rs");
    for entry in std::fs::read_dir(&dir).expect("tests dir").flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if let Some(module) = name.strip_suffix(".rs") {
            if module != "tests" {
                assert!(
                    root.contains(&format!("mod {module};")),
                    "tests/{name} is not declared in tests/tests.rs"
                );
            }
        }
    }
}

/// A home for a test that changes sources: a temporary directory holding `home` (a writable
/// copy of the real corpus home, or empty) and an index of its own at `db`.
pub struct IndexedHome {
    /// The temporary directory (removed when dropped).
    pub dir: tempfile::TempDir,
    /// The home the binary runs in.
    pub home: PathBuf,
    /// Its index (`SCRY_DB`).
    pub db: PathBuf,
}

impl IndexedHome {
    /// A writable copy of `real/home` (the corpus may be read-only).
    pub fn real() -> IndexedHome {
        let h = IndexedHome::empty();
        std::fs::remove_dir(&h.home).expect("rmdir");
        let status = Command::new("cp")
            .arg("-a")
            .arg(corpus().join("real/home"))
            .arg(&h.home)
            .status()
            .expect("cp");
        assert!(status.success());
        let _ = Command::new("chmod")
            .args(["-R", "u+w"])
            .arg(&h.home)
            .status();
        h
    }

    /// An empty home.
    pub fn empty() -> IndexedHome {
        let dir = tempfile::tempdir().expect("tempdir");
        let home = dir.path().join("home");
        std::fs::create_dir_all(&home).expect("mkdir");
        let db = dir.path().join("index.db");
        IndexedHome { dir, home, db }
    }

    /// The binary in `home` with this index; never a panic.
    pub fn run(&self, args: &[&str]) -> Out {
        let out = scry_env(&self.home, &self.home, &[("SCRY_DB", &self.db)], args);
        out.assert_no_panic();
        out
    }

    /// [`IndexedHome::run`] that must exit 0; its JSON.
    pub fn ok(&self, args: &[&str]) -> Value {
        let out = self.run(args);
        assert_eq!(out.code, 0, "{args:?}\n{}", out.render());
        out.json()
    }
}
