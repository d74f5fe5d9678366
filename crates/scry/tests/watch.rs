//! `scry watch` (issue 16): the real binary watching a temporary home keeps the index equal to
//! a direct parse after every kind of change (create, append, truncate, rewrite, delete,
//! rename, a root appearing), with exactly one change line per change; while it holds the
//! lease read commands answer from the index without their own check (`--refresh` forces it);
//! a killed watcher's lease stops counting; a second watcher exits 0 naming the first; SIGTERM
//! ends it cleanly and releases the lease.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::util::{claude_line, claude_session, corpus, scry_env, Out};

/// Generous: the first refresh of a debug build on a loaded machine.
const DEADLINE: Duration = Duration::from_secs(90);

/// A `scry watch --json` child and the JSON lines it printed so far (also used by
/// `lease_catalog`).
pub(crate) struct Watch {
    child: Child,
    lines: Arc<Mutex<Vec<Value>>>,
}

impl Watch {
    /// Starts the watcher on `home` / `db` and waits for its ready line.
    pub(crate) fn start(home: &Path, db: &Path) -> Watch {
        let mut child = Command::new(env!("CARGO_BIN_EXE_scry"))
            .env_clear()
            .env("HOME", home)
            .env("TZ", "UTC")
            .env("SCRY_DB", db)
            .current_dir(home)
            .args(["watch", "--json"])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start scry watch");
        let lines = Arc::new(Mutex::new(Vec::new()));
        let out = child.stdout.take().expect("stdout");
        let sink = Arc::clone(&lines);
        std::thread::spawn(move || {
            for line in BufReader::new(out).lines().map_while(Result::ok) {
                let v: Value = serde_json::from_str(&line)
                    .unwrap_or_else(|e| panic!("not a JSON line ({e}): {line}"));
                sink.lock().unwrap().push(v);
            }
        });
        let w = Watch { child, lines };
        w.wait_for("the ready line", |l| {
            l.iter().any(|v| v["event"] == "ready")
        });
        w
    }

    fn pid(&self) -> String {
        self.child.id().to_string()
    }

    fn count(&self) -> usize {
        self.lines.lock().unwrap().len()
    }

    /// Waits (up to [`DEADLINE`]) until `done` holds of the lines printed so far.
    pub(crate) fn wait_for(&self, what: &str, done: impl Fn(&[Value]) -> bool) {
        let start = Instant::now();
        loop {
            if done(&self.lines.lock().unwrap()) {
                return;
            }
            assert!(
                start.elapsed() < DEADLINE,
                "no {what} within {DEADLINE:?}; lines: {:?}",
                self.lines.lock().unwrap()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Waits for the change lines `expected` ((change, id) pairs, any order) after line `from`,
    /// then checks that nothing else came (lost or doubled events).
    fn expect_changes(&self, from: usize, expected: &[(&str, &str)]) {
        let changes = |l: &[Value]| -> Vec<(String, String)> {
            let mut v: Vec<(String, String)> = l[from..]
                .iter()
                .filter(|v| v["event"] == "change")
                .map(|v| {
                    (
                        v["change"].as_str().unwrap_or_default().to_string(),
                        v["id"].as_str().unwrap_or_default().to_string(),
                    )
                })
                .collect();
            v.sort();
            v
        };
        let mut want: Vec<(String, String)> = expected
            .iter()
            .map(|(c, i)| (c.to_string(), i.to_string()))
            .collect();
        want.sort();
        self.wait_for(&format!("changes {want:?}"), |l| {
            changes(l).len() >= want.len()
        });
        // A doubled event would come within a debounce period or two.
        std::thread::sleep(Duration::from_millis(500));
        assert_eq!(changes(&self.lines.lock().unwrap()), want);
    }

    pub(crate) fn signal(&self, sig: &str) {
        let ok = Command::new("kill")
            .args([sig, &self.pid()])
            .status()
            .expect("kill")
            .success();
        assert!(ok, "kill {sig} failed");
    }
}

impl Watch {
    /// Kills the watcher (SIGKILL: its lease is left behind, dead once its pid is gone).
    pub(crate) fn kill(mut self) {
        self.signal("-KILL");
        let _ = self.child.wait();
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Runs `scry args…` on `home` with the index `db`.
fn run(home: &Path, db: &Path, args: &[&str]) -> Out {
    let out = scry_env(home, home, &[("SCRY_DB", db)], args);
    out.assert_no_panic();
    out
}

/// The same `--json` answer from the index (as the watcher keeps it; the lease skips the
/// command's own refresh) and from a direct parse.
fn assert_parity(home: &Path, db: &Path, args: &[&str]) {
    let indexed = run(home, db, args);
    let mut direct_args = args.to_vec();
    direct_args.push("--no-index");
    let direct = scry_env(home, home, &[], &direct_args);
    assert_eq!(indexed.code, direct.code, "{args:?}: {}", indexed.render());
    // `show` of a session rewritten shorter lists the earlier revisions the index keeps
    // (issue 20), which a direct parse cannot see: the rest must be the same.
    if let Ok(mut v) = serde_json::from_str::<serde_json::Value>(&indexed.stdout) {
        if let Some(m) = v.as_object_mut().filter(|m| m.contains_key("revisions")) {
            m.remove("revisions");
            let d: serde_json::Value = serde_json::from_str(&direct.stdout).expect("json");
            assert_eq!(v, d, "{args:?} differs from a direct parse");
            return;
        }
    }
    assert_eq!(
        indexed.stdout, direct.stdout,
        "{args:?} differs from a direct parse"
    );
}

fn assert_all_parity(home: &Path, db: &Path, ids: &[&str]) {
    // The live sessions: a deleted one stays in the index as archived (S-I6), shown by
    // `--kind all` / `--archived` and searched by default, which a direct parse cannot see.
    assert_parity(home, db, &["list", "--global", "--json"]);
    assert_parity(
        home,
        db,
        &["list", "--global", "--kind", "subagent", "--json"],
    );
    assert_parity(
        home,
        db,
        &["search", "answer", "--global", "--live-only", "--json"],
    );
    for id in ids {
        assert_parity(home, db, &["show", id, "--json"]);
        assert_parity(home, db, &["turns", id, "--json"]);
    }
}

pub(crate) fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(e.file_name());
        if e.path().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), &target).unwrap();
        }
    }
}

/// The first `.jsonl` file below `dir` whose path has a component `part`.
fn find_file(dir: &Path, part: &str) -> Option<PathBuf> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .ok()?
        .flatten()
        .map(|e| e.path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            if let Some(f) = find_file(&p, part) {
                return Some(f);
            }
        } else if p.extension().is_some_and(|x| x == "jsonl")
            && p.components().any(|c| c.as_os_str() == part)
        {
            return Some(p);
        }
    }
    None
}

fn append(path: &Path, line: &str) {
    use std::io::Write;
    let mut f = std::fs::OpenOptions::new().append(true).open(path).unwrap();
    writeln!(f, "{line}").unwrap();
}

/// A pi session of the corpus.
fn pi_session() -> PathBuf {
    let root = corpus().join("real/home/.pi/agent/sessions");
    let dir = std::fs::read_dir(&root)
        .unwrap()
        .flatten()
        .find(|e| e.path().is_dir())
        .expect("a pi project directory")
        .path();
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .expect("a pi session")
}

#[test]
fn every_change_reaches_the_index_once_and_it_equals_a_parse() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    let db = tmp.path().join("index.db");
    let cwd = "/work/watched";
    let a = claude_session(&home, "sess-a", cwd, 3);
    // Real Claude sessions beside the synthetic ones (the append goes to one of them: their
    // records carry the resume points a real session has).
    copy_dir(&corpus().join("real/home/.claude"), &home.join(".claude"));
    let sub = find_file(&home.join(".claude/projects"), "subagents").expect("a subagent file");
    let sub_id = sub
        .file_stem()
        .unwrap()
        .to_string_lossy()
        .trim_start_matches("agent-")
        .to_string();
    let w = Watch::start(&home, &db);
    let ready = w.lines.lock().unwrap()[0].clone();
    assert!(ready["sources"].as_u64().unwrap_or(0) > 2, "{ready}");
    let pi_root = ready["roots"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["provider"] == "pi")
        .expect("pi root")
        .clone();
    assert_eq!(pi_root["mode"], "waiting", "no pi root yet: {pi_root}");
    assert_all_parity(&home, &db, &["sess-a"]);

    // Create.
    let n = w.count();
    let b = claude_session(&home, "sess-b", cwd, 2);
    w.expect_changes(n, &[("created", "sess-b")]);
    assert_all_parity(&home, &db, &["sess-a", "sess-b"]);

    // Append to a real session: resumed, not re-parsed.
    let n = w.count();
    let text = std::fs::read_to_string(&sub).unwrap();
    let mut last: Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
    last["parentUuid"] = last["uuid"].clone();
    last["uuid"] = "0b0b0b0b-0000-4000-8000-00000000beef".into();
    last["message"]["id"] = "msg_watch_appended".into();
    last["message"]["content"] =
        serde_json::json!([{"type": "text", "text": "watchmarker appended"}]);
    append(&sub, &last.to_string());
    w.expect_changes(n, &[("appended", &sub_id)]);
    assert_all_parity(&home, &db, &["sess-a", "sess-b"]);
    let hits = run(&home, &db, &["search", "watchmarker", "--global", "--json"]).json();
    assert_eq!(hits["sessions"].as_array().map(Vec::len), Some(1), "{hits}");
    assert_parity(&home, &db, &["search", "watchmarker", "--global", "--json"]);

    // Truncate (fewer turns), then rewrite in place (other text, same length).
    let n = w.count();
    let first_two: String = std::fs::read_to_string(&a)
        .unwrap()
        .lines()
        .take(2)
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(&a, first_two).unwrap();
    w.expect_changes(n, &[("reparsed", "sess-a")]);
    assert_all_parity(&home, &db, &["sess-a", "sess-b"]);
    let n = w.count();
    let text = std::fs::read_to_string(&b).unwrap();
    std::fs::write(&b, text.replace("answer 0", "ANSWER 0")).unwrap();
    w.expect_changes(n, &[("reparsed", "sess-b")]);
    assert_all_parity(&home, &db, &["sess-a", "sess-b"]);

    // Delete.
    let n = w.count();
    std::fs::remove_file(&b).unwrap();
    w.expect_changes(n, &[("vanished", "sess-b")]);
    assert_all_parity(&home, &db, &["sess-a"]);

    // Rename.
    let n = w.count();
    let c = a.with_file_name("sess-c.jsonl");
    std::fs::rename(&a, &c).unwrap();
    w.expect_changes(n, &[("vanished", "sess-a"), ("created", "sess-c")]);
    assert_all_parity(&home, &db, &[]);

    // A root that did not exist at start: picked up on a heartbeat, then watched.
    let n = w.count();
    let src = pi_session();
    let project = home.join(".pi/agent/sessions/--work-pi--");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::copy(&src, project.join(src.file_name().unwrap())).unwrap();
    w.wait_for("the pi root watched", |l| {
        l[n..]
            .iter()
            .any(|v| v["event"] == "root" && v["provider"] == "pi" && v["mode"] == "watched")
    });
    w.wait_for("the pi session indexed", |l| {
        l[n..]
            .iter()
            .any(|v| v["change"] == "created" && v["provider"] == "pi")
    });
    assert_all_parity(&home, &db, &[]);
    let n = w.count();
    let stem = src.file_stem().unwrap().to_string_lossy().into_owned();
    let name = format!("{}beef.jsonl", &stem[..stem.len() - 4]);
    std::fs::copy(&src, project.join(&name)).unwrap();
    w.wait_for("a second pi session indexed", |l| {
        l[n..]
            .iter()
            .any(|v| v["change"] == "created" && v["provider"] == "pi")
    });
    assert_all_parity(&home, &db, &[]);
}

#[test]
fn the_lease_skips_refreshes_until_the_watcher_is_killed() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    let db = tmp.path().join("index.db");
    let cwd = "/work/leased";
    let a = claude_session(&home, "sess-a", cwd, 2);
    let w = Watch::start(&home, &db);

    let doctor = run(&home, &db, &["doctor"]);
    assert!(
        doctor
            .stdout
            .contains(&format!("watcher: pid {}, heartbeat", w.pid())),
        "{}",
        doctor.render()
    );
    let second = run(&home, &db, &["watch"]);
    assert_eq!(second.code, 0, "{}", second.render());
    assert!(
        second.stdout.contains(&format!(
            "already keeps {} current (pid {})",
            db.display(),
            w.pid()
        )),
        "{}",
        second.render()
    );

    // Stopped, the watcher misses a change; its lease still counts (fresh heartbeat, running
    // pid), so a plain command answers from the index and does not see it; --refresh does.
    w.signal("-STOP");
    append(
        &a,
        &claude_line("user", "sess-a", 4, cwd, "markerwhilestopped"),
    );
    let hits = |args: &[&str]| -> usize {
        let out = run(&home, &db, args);
        assert_eq!(out.code, 0, "{}", out.render());
        out.json()["sessions"].as_array().map_or(0, Vec::len)
    };
    assert_eq!(
        hits(&["search", "markerwhilestopped", "--global", "--json"]),
        0
    );
    // The lease does not depend on the directory a command runs in (Aider's root is the
    // command's own directory; it is not part of what the watcher keeps current).
    let elsewhere = scry_env(
        &home,
        tmp.path(),
        &[("SCRY_DB", &db)],
        &["search", "markerwhilestopped", "--global", "--json"],
    );
    assert_eq!(elsewhere.code, 0, "{}", elsewhere.render());
    assert_eq!(
        elsewhere.json()["sessions"].as_array().map_or(0, Vec::len),
        0,
        "a command run in another directory refreshed despite the lease"
    );
    assert_eq!(
        hits(&[
            "search",
            "markerwhilestopped",
            "--global",
            "--json",
            "--refresh"
        ]),
        1
    );

    // Killed: its lease is dead at once (its pid is gone); commands refresh again.
    w.signal("-KILL");
    let mut w = w;
    let _ = w.child.wait();
    append(
        &a,
        &claude_line("user", "sess-a", 5, cwd, "markerafterkill"),
    );
    assert_eq!(
        hits(&["search", "markerafterkill", "--global", "--json"]),
        1
    );
    let doctor = run(&home, &db, &["doctor"]);
    assert!(
        doctor.stdout.contains("watcher: none running"),
        "{}",
        doctor.render()
    );
    assert_parity(&home, &db, &["show", "sess-a", "--json"]);
}

#[test]
fn sigterm_ends_the_watcher_and_releases_the_lease() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    let db = tmp.path().join("index.db");
    claude_session(&home, "sess-a", "/work/term", 1);
    let mut w = Watch::start(&home, &db);
    w.signal("-TERM");
    let start = Instant::now();
    let status = loop {
        if let Some(s) = w.child.try_wait().unwrap() {
            break s;
        }
        assert!(start.elapsed() < Duration::from_secs(20), "still running");
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(status.code(), Some(0));
    let doctor = run(&home, &db, &["doctor", "--json"]).json();
    assert_eq!(doctor["watcher"], Value::Null, "lease left behind");
    // --no-index has nothing to watch.
    let out = run(&home, &db, &["watch", "--no-index"]);
    assert_eq!(out.code, 2, "{}", out.render());
}
