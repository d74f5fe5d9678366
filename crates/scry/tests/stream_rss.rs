//! Per-session commands stream (issue 17): on a generated ~40 MB Claude Code session, the peak
//! RSS of `turns`, `turn` (one turn, and every turn), `events`, `export` (md, html, json), `search --session`, `resume`,
//! `show`, `digest`, `graph`, `context` and `workspace`, indexed and `--no-index`, stays under
//! 0.25× the session's size + 32 MB. A reader that
//! holds the session (or the document it writes) needs about 1.3–1.8× the size and fails.
//!
//! The session is the real corpus Claude session repeated, every id but the session id made
//! unique per copy and each copy's root chained to the previous copy's last record (the logic
//! of `shared/tools/big-session.py`, without its timestamp shift), each copy followed by
//! text-heavy prompts and answers so that most of the file is event text.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::util::corpus;

/// Target size of the generated session.
const TARGET_BYTES: usize = 40 << 20;

/// Text-heavy exchanges added after each copy, so most of the file is event text (the corpus
/// session alone is mostly metadata: 30 MB of it make ~7 MB of events).
const HEAVY_PER_COPY: u32 = 24;

/// The binary under test (`SCRY_RSS_BIN` runs the check against another build, e.g. a base
/// release, to see it fail there).
pub(super) fn scry_bin() -> PathBuf {
    std::env::var_os("SCRY_RSS_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_scry")))
}

/// One user or assistant line of ~16 KB of distinct text, chained after `parent`.
fn heavy_line(sid: &str, k: u64, i: u32, parent: &str) -> (String, String) {
    let uuid = format!("00000000-0000-4000-8000-{:012x}", k * 1000 + u64::from(i));
    let mut text = String::new();
    let mut n = 0;
    while text.len() < 16 << 10 {
        text.push_str(&format!(
            "copy {k} line {i}.{n}: the quick brown fox checks the build output again\n"
        ));
        n += 1;
    }
    let ts = "2026-11-20T10:00:00.000Z";
    let v = if i.is_multiple_of(2) {
        serde_json::json!({
            "type": "user", "uuid": uuid, "parentUuid": parent, "sessionId": sid,
            "cwd": "/home/dev/big", "timestamp": ts, "version": "2.1.0",
            "message": {"role": "user", "content": text}
        })
    } else {
        serde_json::json!({
            "type": "assistant", "uuid": uuid, "parentUuid": parent, "sessionId": sid,
            "cwd": "/home/dev/big", "timestamp": ts, "version": "2.1.0",
            "message": {"id": format!("msg_heavy{k}x{i}"), "role": "assistant",
                "model": "claude-test", "content": [{"type": "text", "text": text}],
                "usage": {"input_tokens": 10, "output_tokens": 5}}
        })
    };
    (v.to_string(), uuid)
}

/// Writes the big session under `home`; returns its id and its size in bytes.
pub(super) fn big_session(home: &Path) -> (String, usize) {
    let projects = corpus().join("real/home/.claude/projects");
    let src: PathBuf = std::fs::read_dir(&projects)
        .expect("corpus claude projects")
        .flatten()
        .flat_map(|d| std::fs::read_dir(d.path()).into_iter().flatten().flatten())
        .map(|f| f.path())
        .find(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .expect("a corpus claude session");
    let sid = src
        .file_stem()
        .and_then(|s| s.to_str())
        .expect("session id")
        .to_string();
    let text = std::fs::read_to_string(&src).expect("read corpus session");
    let uuid = regex::Regex::new(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-([0-9a-f]{12})")
        .expect("regex");
    let ids = regex::Regex::new(r"\b(msg_|req_|toolu_|call_)([A-Za-z0-9]{6,})").expect("regex");
    let last_uuid = regex::Regex::new(r#""uuid":"([0-9a-f-]{36})""#).expect("regex");
    let dir = home.join(".claude/projects/-home-dev-big");
    std::fs::create_dir_all(&dir).expect("mkdir");
    let mut out = String::with_capacity(TARGET_BYTES + text.len());
    let mut last: Option<String> = None;
    let mut k: u64 = 0;
    while out.len() < TARGET_BYTES {
        for line in text.lines() {
            let l = uuid.replace_all(line, |c: &regex::Captures| {
                let whole = &c[0];
                if whole == sid {
                    return whole.to_string();
                }
                let tail = u64::from_str_radix(&c[1], 16).unwrap_or(0);
                let moved = (tail + k * 7919) % (1 << 48);
                format!("{}{moved:012x}", &whole[..24])
            });
            let l = ids.replace_all(&l, |c: &regex::Captures| format!("{}{}K{k}", &c[1], &c[2]));
            let mut l = l.into_owned();
            if k > 0 {
                if let Some(prev) = &last {
                    if l.contains(r#""parentUuid":null"#) {
                        l = l.replacen(
                            r#""parentUuid":null"#,
                            &format!(r#""parentUuid":"{prev}""#),
                            1,
                        );
                    }
                }
            }
            if let Some(c) = last_uuid.captures(&l) {
                last = Some(c[1].to_string());
            }
            out.push_str(&l);
            out.push('\n');
        }
        for i in 0..HEAVY_PER_COPY {
            let parent = last.clone().unwrap_or_default();
            let (line, uuid) = heavy_line(&sid, k, i, &parent);
            out.push_str(&line);
            out.push('\n');
            last = Some(uuid);
        }
        k += 1;
    }
    std::fs::write(dir.join(format!("{sid}.jsonl")), &out).expect("write big session");
    (sid, out.len())
}

/// Runs scry with `args`; returns (exit code, stdout, peak RSS in bytes). The peak is
/// `/usr/bin/time`'s maximum resident set size when that exists, else the child's VmHWM read
/// from /proc while it runs.
pub(super) fn run_peak(home: &Path, db: &Path, args: &[&str]) -> (i32, String, u64) {
    let time = Path::new("/usr/bin/time");
    let report = db.with_extension("time");
    let mut cmd = if time.exists() {
        let mut c = Command::new(time);
        c.arg("-f").arg("%M").arg("-o").arg(&report).arg(scry_bin());
        c
    } else {
        Command::new(scry_bin())
    };
    let out_file = db.with_extension("out");
    let mut child = cmd
        .env_clear()
        .env("HOME", home)
        .env("TZ", "UTC")
        .env("SCRY_DB", db)
        .current_dir(home)
        .args(args)
        .stdout(std::fs::File::create(&out_file).expect("stdout file"))
        .stderr(Stdio::null())
        .spawn()
        .expect("run scry");
    let started = Instant::now();
    let mut hwm: u64 = 0;
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait") {
            break s;
        }
        if let Ok(st) = std::fs::read_to_string(format!("/proc/{}/status", child.id())) {
            if let Some(kb) = st
                .lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            {
                hwm = hwm.max(kb * 1024);
            }
        }
        assert!(
            started.elapsed() < Duration::from_secs(600),
            "scry {args:?} does not finish"
        );
        std::thread::sleep(Duration::from_millis(5));
    };
    if time.exists() {
        let text = std::fs::read_to_string(&report).unwrap_or_default();
        if let Some(kb) = text
            .lines()
            .last()
            .and_then(|l| l.trim().parse::<u64>().ok())
        {
            hwm = kb * 1024;
        }
    }
    let out = std::fs::read_to_string(&out_file).unwrap_or_default();
    (status.code().unwrap_or(-1), out, hwm)
}

#[test]
fn per_session_commands_stay_under_the_session_size() {
    let home = tempfile::tempdir().expect("home");
    let (sid, size) = big_session(home.path());
    let db_dir = tempfile::tempdir().expect("db dir");
    let db = db_dir.path().join("index.db");
    let bound = size as u64 / 4 + (32 << 20);
    let mut failures = Vec::new();
    // Every event count the outputs report must agree (turn rows, the documents).
    let mut counts: Vec<(String, u64)> = Vec::new();
    for no_index in [true, false] {
        if !no_index {
            let (code, _, _) = run_peak(home.path(), &db, &["index", &sid]);
            assert_eq!(code, 0, "index the big session");
        }
        let runs: Vec<Vec<&str>> = vec![
            vec!["turns", &sid],
            vec!["--json", "turns", &sid],
            vec!["turn", &sid, "3"],
            // Every turn: more than a read keeps, streamed again page by page.
            vec!["turn", &sid, "1-1000000", "--max-chars", "200000"],
            vec!["events", &sid],
            vec!["export", &sid, "--format", "md"],
            vec!["export", &sid, "--format", "html"],
            vec!["export", &sid, "--format", "json"],
            vec!["search", "the", "--session", &sid],
            vec!["resume", &sid],
            vec!["show", &sid],
            vec!["digest", &sid],
            vec!["--json", "digest", &sid, "--focus", "full"],
            vec!["graph", &sid],
            vec!["--json", "context", &sid],
            vec!["workspace", "global", "--digest"],
        ];
        for mut args in runs {
            if no_index {
                args.insert(0, "--no-index");
            }
            let (code, out, peak) = run_peak(home.path(), &db, &args);
            eprintln!(
                "{args:?}: exit {code}, {} bytes out, peak {} MB (session {} MB, bound {} MB)",
                out.len(),
                peak >> 20,
                size >> 20,
                bound >> 20
            );
            assert_eq!(code, 0, "{args:?} exits 0");
            assert!(!out.is_empty(), "{args:?} prints something");
            let label = format!("{args:?}");
            if args.contains(&"--json") && args.contains(&"turns") {
                let v: serde_json::Value = serde_json::from_str(&out).expect("turns json");
                let n = v["turns"]
                    .as_array()
                    .expect("turns")
                    .iter()
                    .map(|t| t["events"].as_u64().expect("events"))
                    .sum();
                counts.push((label, n));
            } else if args.contains(&"json") {
                let v: serde_json::Value = serde_json::from_str(&out).expect("export json");
                let n = v["events"].as_array().expect("events").len() as u64;
                counts.push((label, n));
            } else if args.contains(&"md") || args.contains(&"html") {
                let n = out
                    .rsplit_once(" event(s)")
                    .and_then(|(a, _)| a.rsplit([' ', ';']).next())
                    .and_then(|d| d.parse::<u64>().ok())
                    .expect("the document's event count");
                counts.push((label, n));
            }
            if peak > bound {
                failures.push(format!("{args:?}: {} MB", peak >> 20));
            }
        }
    }
    assert!(
        counts.len() == 8 && counts.iter().all(|c| c.1 > 1000 && c.1 == counts[0].1),
        "every output carries every event: {counts:?}"
    );
    assert!(
        failures.is_empty(),
        "peak RSS over {} MB (0.25 × {} MB + 32 MB): {failures:?}",
        bound >> 20,
        size >> 20
    );
}
