//! The generated adversarial corpus (SPEC S-R1, S-R2; issue 10), beyond the line-level damage
//! of `adversarial.rs`: every case is built in a temporary HOME at test time (nothing is
//! committed), in the agent's real directory layout, next to a healthy session. Each case runs
//! `list`, `show`, `search` and `index` with a deadline (`timed::DEADLINE`) and asserts: no
//! panic, no hang, the right warning or error naming the damaged file, and the healthy session
//! still listed and readable.
//!
//! Cases: JSON nested 100,000 deep (Claude, Codex); truncated, garbage and corrupt-middle zstd
//! frames (DeepSeek Harness); a SQLite source that is corrupt, not SQLite at all, locked by a
//! writer holding a write transaction, and WAL-mode in a read-only directory (OpenCode, Deep
//! Agents); Kilo stores with a torn or garbage live `-wal`, in a read-only directory, with
//! damaged rows; msgpack length bombs in a LangGraph checkpoint; file symlink loops; unreadable
//! files and directories (as root, where mode 000 stops nothing, the file must simply be
//! read); a file that grows and one that shrinks while being read; 100,000 small sessions in
//! one directory.

use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::timed::{run, Timed, DEADLINE};
use crate::util::{claude_line, claude_session, corpus};

mod contaider;
mod copilot;
mod databases;
mod files;
mod kilo;
mod qwen;

const CWD: &str = "/work/adv";
const HEALTHY: &str = "0e000001-0000-4000-8000-000000000000";

/// A case's HOME and its index (outside HOME).
struct Case {
    dir: tempfile::TempDir,
}

impl Case {
    /// A HOME holding one healthy Claude session.
    fn new() -> Case {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir_all(dir.path().join("home")).expect("mkdir home");
        claude_session(&dir.path().join("home"), HEALTHY, CWD, 2);
        Case { dir }
    }

    fn home(&self) -> PathBuf {
        self.dir.path().join("home")
    }

    fn db(&self) -> PathBuf {
        self.dir.path().join("index/index.db")
    }

    fn scry(&self, args: &[&str]) -> Timed {
        run(&self.home(), &self.db(), &[], args, DEADLINE)
    }

    /// Copies a file or directory tree of the shared corpus to `rel` under HOME, writable.
    fn copy_from_corpus(&self, from: &Path, rel: &str) -> PathBuf {
        let to = self.home().join(rel);
        if from.is_file() {
            std::fs::create_dir_all(to.parent().expect("parent")).expect("mkdir");
            std::fs::copy(from, &to).expect("copy");
            let _ = std::fs::set_permissions(&to, std::fs::Permissions::from_mode(0o644));
            return to;
        }
        for entry in walkdir::WalkDir::new(from) {
            let entry = entry.expect("walk corpus");
            let dst = to.join(entry.path().strip_prefix(from).expect("under"));
            if entry.file_type().is_dir() {
                std::fs::create_dir_all(&dst).expect("mkdir");
            } else {
                if let Some(p) = dst.parent() {
                    std::fs::create_dir_all(p).expect("mkdir");
                }
                std::fs::copy(entry.path(), &dst).expect("copy");
                let _ = std::fs::set_permissions(&dst, std::fs::Permissions::from_mode(0o644));
            }
        }
        to
    }

    /// Runs the four commands of every case; returns the `list --json` output. Asserts the
    /// healthy session is listed and shown, `index` and `search` finish without failing.
    fn check_common(&self) -> Value {
        let index = self.scry(&["index", "--all", "--json"]);
        assert_eq!(index.out.code, 0, "index:\n{}", index.out.render());
        let list = self.scry(&[
            "list", "--global", "--kind", "all", "--json", "--limit", "1000",
        ]);
        assert_eq!(list.out.code, 0, "list:\n{}", list.out.render());
        let v = list.out.json();
        assert!(
            uris(&v).contains(&format!("claude:{HEALTHY}")),
            "healthy session not listed:\n{}",
            list.out.render()
        );
        let show = self.scry(&["show", "--json", HEALTHY]);
        assert_eq!(show.out.code, 0, "show:\n{}", show.out.render());
        let search = self.scry(&["search", "--global", "--json", "prompt 1"]);
        assert_eq!(search.out.code, 0, "search:\n{}", search.out.render());
        assert!(
            search.out.stdout.contains(HEALTHY),
            "search lost the healthy session:\n{}",
            search.out.render()
        );
        let no_index = self.scry(&["list", "--global", "--kind", "all", "--json", "--no-index"]);
        assert_eq!(no_index.out.code, 0, "{}", no_index.out.render());
        assert!(uris(&no_index.out.json()).contains(&format!("claude:{HEALTHY}")));
        v
    }
}

fn uris(list: &Value) -> Vec<String> {
    list["sessions"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|s| s["uri"].as_str().map(str::to_string))
        .collect()
}

/// Every object anywhere in `v` that looks like a warning or error (has `kind`/`code` and
/// `message`/`error`) and whose file, message or error text contains `needle`.
fn naming(v: &Value, needle: &str) -> Vec<Value> {
    let mut out = Vec::new();
    fn walk(v: &Value, needle: &str, out: &mut Vec<Value>) {
        match v {
            Value::Object(o) => {
                let text = ["file", "path", "message", "error", "reason"]
                    .iter()
                    .filter_map(|k| o.get(*k).and_then(Value::as_str))
                    .any(|s| s.contains(needle));
                let is_warning = o.contains_key("message") || o.contains_key("error");
                if text && is_warning {
                    out.push(v.clone());
                }
                for x in o.values() {
                    walk(x, needle, out);
                }
            }
            Value::Array(a) => a.iter().for_each(|x| walk(x, needle, out)),
            _ => {}
        }
    }
    walk(v, needle, &mut out);
    out
}

/// All of `texts` (JSON outputs) searched by [`naming`]; panics with the outputs when empty.
fn assert_named(outputs: &[&str], needle: &str, what: &str) -> Vec<Value> {
    let mut found = Vec::new();
    for o in outputs {
        if let Ok(v) = serde_json::from_str::<Value>(o) {
            found.extend(naming(&v, needle));
        }
        // Plain-text errors (stderr) count when they name the file.
        if found.is_empty() && o.starts_with("error: ") && o.contains(needle) {
            found.push(Value::String((*o).to_string()));
        }
    }
    assert!(
        !found.is_empty(),
        "{what}: no warning or error names {needle}:\n{}",
        outputs.join("\n-----\n")
    );
    found
}

fn id(n: u32) -> String {
    format!("0e{n:06x}-0000-4000-8000-000000000000")
}

fn claude_dir(home: &Path) -> PathBuf {
    home.join(".claude/projects/-test-proj")
}

/// `depth` nested arrays around a string: `[[[…"x"…]]]`.
fn nested(depth: usize) -> String {
    let mut s = String::with_capacity(depth * 2 + 3);
    s.push_str(&"[".repeat(depth));
    s.push_str("\"x\"");
    s.push_str(&"]".repeat(depth));
    s
}

#[test]
fn json_nested_100000_deep() {
    let c = Case::new();
    let home = c.home();
    // Claude: the deep value is a whole middle line and, on another line, a field value.
    let sid = id(2);
    let deep = nested(100_000);
    let field = claude_line("user", &sid, 2, CWD, "deep").replace("\"deep\"", &deep);
    let body = format!(
        "{}\n{deep}\n{field}\n{}\n",
        claude_line("user", &sid, 0, CWD, "before the deep line"),
        claude_line("assistant", &sid, 3, CWD, "after the deep line")
    );
    let file = claude_dir(&home).join(format!("{sid}.jsonl"));
    std::fs::write(&file, body).expect("write");
    // Codex: a rollout with the deep value as a record payload.
    let cdir = home.join(".codex/sessions/2026/11/20");
    std::fs::create_dir_all(&cdir).expect("mkdir");
    let csid = "0e0c0dec-0000-7000-8000-000000000001";
    let meta = serde_json::json!({"timestamp": "2026-11-20T10:00:00Z", "type": "session_meta",
        "payload": {"id": csid, "timestamp": "2026-11-20T10:00:00Z", "cwd": CWD,
            "originator": "codex-tui", "cli_version": "0.171.0", "source": "cli"}});
    let user = serde_json::json!({"timestamp": "2026-11-20T10:00:01Z", "type": "response_item",
        "payload": {"type": "message", "role": "user",
            "content": [{"type": "input_text", "text": "codex prompt"}]}});
    let cbody = format!(
        "{meta}\n{{\"timestamp\":\"2026-11-20T10:00:02Z\",\"type\":\"response_item\",\
         \"payload\":{deep}}}\n{user}\n"
    );
    let cfile = cdir.join(format!("rollout-2026-11-20T10-00-00-{csid}.jsonl"));
    std::fs::write(&cfile, cbody).expect("write");

    let list = c.check_common();
    assert!(uris(&list).contains(&format!("claude:{sid}")), "{list}");
    let show = c.scry(&["show", "--json", &sid]);
    assert_eq!(show.out.code, 0, "{}", show.out.render());
    let w = assert_named(&[&show.out.stdout], &format!("{sid}.jsonl"), "deep JSON");
    let lines: Vec<u64> = w.iter().filter_map(|w| w["line"].as_u64()).collect();
    assert!(lines.contains(&2), "deep line 2 not located: {w:?}");
    // The records around the deep lines survive.
    assert!(
        show.out.stdout.contains("before the deep line")
            || show.out.json()["stats"]["events"]["user"].as_u64() >= Some(1)
    );
    let cshow = c.scry(&["show", "--json", csid]);
    assert_eq!(cshow.out.code, 0, "{}", cshow.out.render());
    let w = assert_named(&[&cshow.out.stdout], "rollout-", "deep JSON (codex)");
    assert!(w.iter().any(|w| w["line"] == 2), "{w:?}");
    assert_eq!(
        cshow.out.json()["stats"]["events"]["user"],
        1,
        "{}",
        cshow.out.render()
    );
    for args in [
        vec!["turn", "--raw", sid.as_str(), "0-10"],
        vec!["turns", sid.as_str()],
        vec!["search", "--global", "--area", "all", "--json", "x"],
    ] {
        let t = c.scry(&args);
        assert!(
            [0, 1, 2].contains(&t.out.code),
            "{args:?}\n{}",
            t.out.render()
        );
    }
}

/// The DeepSeek Harness session directory of the corpus, and its zstd file.
fn dsh_source() -> (PathBuf, String) {
    let base = corpus().join("real/home/.dsh/sessions/--home-dev-more-work-proj-dsh--");
    let dir = base.join("session-585b2c35-c272-448a-9521-a2d8028fa1c4");
    (dir, "585b2c35-c272-448a-9521-a2d8028fa1c4".to_string())
}

#[test]
fn truncated_garbage_and_corrupt_zstd_frames() {
    let c = Case::new();
    let (src, real_id) = dsh_source();
    let bytes = std::fs::read(src.join("session.jsonl.zstd")).expect("dsh corpus file");
    let proj = ".dsh/sessions/--home-adv--";
    // The healthy copy, then three damaged ones under other ids.
    c.copy_from_corpus(&src, &format!("{proj}/session-{real_id}"));
    let put = |n: u32, data: &[u8]| -> (String, PathBuf) {
        let sid = format!("0e00d5b{n}-0000-4000-8000-000000000000");
        let dir = c.home().join(format!("{proj}/session-{sid}"));
        std::fs::create_dir_all(&dir).expect("mkdir");
        let f = dir.join("session.jsonl.zstd");
        std::fs::write(&f, data).expect("write");
        (sid, f)
    };
    // Truncated: the file ends inside its last frames.
    let truncated = put(1, &bytes[..bytes.len() * 3 / 5]);
    // Garbage: zstd magic, then noise.
    let mut garbage = vec![0x28, 0xB5, 0x2F, 0xFD];
    let mut x: u32 = 0x9E37_79B9;
    for _ in 0..4096 {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        garbage.push(x as u8);
    }
    let garbage = put(2, &garbage);
    // Corrupt middle: noise written over the middle tenth; frames before and after survive.
    let mut middle = bytes.clone();
    let (a, b) = (middle.len() * 9 / 20, middle.len() * 11 / 20);
    for (i, byte) in middle[a..b].iter_mut().enumerate() {
        *byte = (i as u8).wrapping_mul(151) ^ 0x5A;
    }
    let middle = put(3, &middle);

    let list = c.check_common();
    assert!(uris(&list).iter().any(|u| u.ends_with(&real_id)), "{list}");
    for (sid, file) in [&truncated, &garbage, &middle] {
        let show = c.scry(&["show", "--json", sid]);
        let name = file.display().to_string();
        let outputs = [
            show.out.stdout.as_str(),
            show.out.stderr.as_str(),
            &list.to_string(),
        ];
        let w = assert_named(&outputs, &name, "damaged zstd");
        if show.out.code == 0 {
            let kinds: Vec<&str> = w.iter().filter_map(|w| w["kind"].as_str()).collect();
            assert!(
                kinds
                    .iter()
                    .any(|k| *k == "corrupt_frame" || *k == "incomplete_tail"),
                "{sid}: {w:?}"
            );
        } else {
            assert!(
                show.out.stderr.starts_with("error: "),
                "{}",
                show.out.render()
            );
        }
    }
    // The truncated copy keeps what its complete frames hold.
    let t = c.scry(&["show", "--json", &truncated.0]);
    assert_eq!(t.out.code, 0, "{}", t.out.render());
    assert!(
        t.out.json()["stats"]["turns"].as_u64() >= Some(1),
        "{}",
        t.out.render()
    );
}
